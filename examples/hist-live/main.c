/* SPDX-License-Identifier: MIT */
/*
 * hist-live: Linux hist triggers on a kernel built without them.
 *
 * The kernel still records events (CONFIG_EVENT_TRACING); hist-live
 * enables the events that the triggers name, reads the raw ring-buffer
 * pages, feeds every record through libhist and prints the `hist` files
 * the kernel would have printed: on exit (a signal, the end of a command
 * or of the -p processes, -d) and every -i SECONDS.  What it changed in
 * tracefs is undone on exit (see tracefs.c).
 *
 * The loop sleeps in ppoll() on the per-CPU buffers (woken when one is
 * buffer_percent full), the -i/-d timer, the signals and the processes it
 * follows; it never polls on a clock of its own, so an idle system costs
 * it nothing.  Its own pid is in the instance's set_event_notrace_pid:
 * the kernel records none of its system calls or context switches, so
 * neither its rows nor the work of reading them exist.  The signals it
 * handles stay blocked outside ppoll(), so a signal never interrupts a
 * tracefs write half done: each is seen at the next wait, and the undo
 * runs on the normal exit path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "live.h"
#include "../common/field.h"
#include "../common/hint.h"
#include "../common/json.h"
#include "../listen/listen.h"

/*
 * Exit statuses of hist-live's own.  With a COMMAND that ended by itself,
 * hist-live exits with its status instead (128+N if a signal N killed
 * it), unless hist-live itself failed.
 */
enum {
	EXIT_OK = 0,
	EXIT_REJECTED = 1,	/* a trigger command was rejected */
	EXIT_USAGE = 2,		/* bad usage, or no trigger left to run */
	EXIT_NOTRACE = 3,	/* no tracefs, not permitted */
	EXIT_TRACEFAIL = 4,	/* tracing failed while running (read, output) */
	EXIT_EXEC = 127,	/* COMMAND could not be run */
};

static const char usage_text[] =
	"usage: " PROG " [OPTIONS] [-- COMMAND [ARG...]]\n"
	"\n"
	"Run Linux ftrace hist triggers on the live kernel, even one built\n"
	"without CONFIG_HIST_TRIGGERS: the events the triggers name are\n"
	"enabled in a private trace instance, their records read from the\n"
	"per-CPU ring buffers and aggregated by libhist.  The histograms are\n"
	"printed as `cat events/SYSTEM/EVENT/hist` would print them, on exit\n"
	"(Ctrl-C, the end of COMMAND or of the -p processes, -d) and every\n"
	"-i SECONDS, each followed by a '# lost:' line.\n"
	"\n"
	"  -t, --trigger 'SYSTEM/EVENT COMMAND'\n"
	"                        a trigger command (repeatable, in order)\n"
	"  -T, --trigger-file FILE\n"
	"                        lines 'SYSTEM/EVENT COMMAND', or\n"
	"                        'synthetic_events DEFINITION'; '#' comments\n"
	"  -s, --synth 'DEFINITION'\n"
	"                        define a synthetic event (repeatable)\n"
	"  -p, --pid PID         record only the events of process PID (its\n"
	"                        threads; repeatable); stop when all are gone\n"
	"      --follow          also record the children and new threads of\n"
	"                        COMMAND or of the -p processes\n"
	"  -i, --interval SECONDS\n"
	"                        also print every SECONDS\n"
	"      --delta           with -i: each print holds only its interval\n"
	"  -d, --duration SECONDS\n"
	"                        stop after SECONDS\n"
	"  -o, --output FILE     print to FILE instead of standard output\n"
	"      --json            print JSON, one document per line\n"
	"      --listen [ADDR:]PORT  serve the histograms as OpenMetrics on\n"
	"                        http://ADDR:PORT/metrics (ADDR: 127.0.0.1),\n"
	"                        read up to the moment of each request\n"
	"  -b, --buffer-kb N     per-CPU ring buffer size in KiB (default: 4096\n"
	"                        per traced event, at most 32768, and in all at\n"
	"                        most 1/32 of the memory)\n"
	"      --no-kernel-filter\n"
	"                        do not give the triggers' filters to the kernel\n"
	"      --top             use the top-level buffer instead of a private\n"
	"                        instance (the files changed are restored)\n"
	"      --tracefs DIR     tracefs is at DIR (default: the mounted one,\n"
	"                        else it is mounted on /sys/kernel/tracing)\n"
	"      --kernel VERSION  accept, reject, log and print as Linux VERSION\n"
	"                        does: 6.1, 6.12 or latest (default: the\n"
	"                        running kernel's version)\n"
	"      --cleanup         only remove the instances that hist-live\n"
	"                        processes no longer running left behind\n"
	"  -q, --quiet           no progress messages on standard error\n"
	"  -h, --help            this text\n"
	"      --version         print the version\n"
	"\n"
	"With COMMAND, hist-live runs it once tracing is on, stops when it\n"
	"exits and exits with its status.  Own exit statuses: 0 success;\n"
	"1 a command was rejected; 2 bad usage; 3 tracing is not available\n"
	"here (no tracefs, not permitted); 4 tracing failed while running;\n"
	"127 COMMAND could not be run.\n";

enum {
	OPT_JSON = 256, OPT_TOP, OPT_TRACEFS, OPT_VERSION, OPT_FOLLOW,
	OPT_DELTA, OPT_CLEANUP, OPT_NO_KFILTER, OPT_KERNEL, OPT_LISTEN,
};

static const struct option long_opts[] = {
	{ "trigger", required_argument, NULL, 't' },
	{ "trigger-file", required_argument, NULL, 'T' },
	{ "synth", required_argument, NULL, 's' },
	{ "pid", required_argument, NULL, 'p' },
	{ "follow", no_argument, NULL, OPT_FOLLOW },
	{ "interval", required_argument, NULL, 'i' },
	{ "delta", no_argument, NULL, OPT_DELTA },
	{ "duration", required_argument, NULL, 'd' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "buffer-kb", required_argument, NULL, 'b' },
	{ "no-kernel-filter", no_argument, NULL, OPT_NO_KFILTER },
	{ "top", no_argument, NULL, OPT_TOP },
	{ "tracefs", required_argument, NULL, OPT_TRACEFS },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "cleanup", no_argument, NULL, OPT_CLEANUP },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

struct cmd {
	char *target, *text;	/* target "synthetic_events" or SYS/EVENT */
	int accepted;
};

/* A process of -p: its pidfd tells when it is gone; without one (fd -1:
 * Linux before 5.3, or pidfd_open refused), kill(pid, 0) every
 * PID_POLL_MS does. */
struct watched {
	int pid, fd, gone;
};
#define PID_POLL_MS 200

struct state {
	const char *listen_spec;	/* --listen */
	struct listen_srv *srv;
	struct cmd *cmds;
	size_t nr_cmds;
	struct watched *pids;
	size_t nr_pids;
	double interval, duration;
	const char *output, *tracefs;
	const char *kernel;	/* --kernel, or NULL: the running kernel's */
	long buffer_kb;
	int json, top, quiet, follow, delta, cleanup, no_kfilter;
	char **argv;		/* COMMAND, or NULL */
	FILE *out;
	hist_ctx *ctx;
	struct live_host *host;
	struct live_tfs tfs;
	struct live_ring *ring;
	pid_t child;		/* COMMAND while it runs */
	int child_status, child_done, child_ended_by_us;
	int release_fd;		/* COMMAND waits for EOF on this before exec */
	int rejected;
	int out_closed;		/* the reader of our output went away */
	double start, last_print;
	uint64_t *printed_lost;	/* per CPU: the losses at the last print */
	sigset_t wait_mask;	/* the mask while waiting: our signals open */
	sigset_t orig_mask;	/* COMMAND gets this one */
	/* feed(): the event of the last record type fed (a run of records
	 * is mostly of one type), and whether records carry stacks */
	uint32_t feed_type;
	hist_event *feed_ev;
	int feed_track;		/* the type is a name-tracking event's */
	int stacks;
	struct live_comms *comms;	/* host_comms() */
	int names_on;		/* start_names() ran */
	/* ordered reading: pages read per CPU in this drain, and the most
	 * a drain reads of one CPU (ordered_stop()) */
	uint32_t *drain_pages, nr_drain_pages, max_drain_pages;
	int cheap_clock;	/* size_buffers() chose CHEAP_CLOCK */
};

static volatile sig_atomic_t stop_sig, child_changed;

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		child_changed = 1;
	else if (!stop_sig)
		stop_sig = sig;
}

/* The signals that stop hist-live (and restore tracefs), and SIGCHLD. */
static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void add_cmd(struct state *st, const char *target, size_t tlen,
		    const char *text)
{
	struct cmd *v = realloc(st->cmds, (st->nr_cmds + 1) * sizeof(*v));

	if (!v || !(v[st->nr_cmds].target = strndup(target, tlen)) ||
	    !(v[st->nr_cmds].text = strdup(text))) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(EXIT_USAGE);
	}
	v[st->nr_cmds].accepted = 0;
	st->cmds = v;
	st->nr_cmds++;
}

/* "SYSTEM/EVENT COMMAND" (blank or TAB between); WHERE: FILE:LINE or NULL. */
static int add_trigger(struct state *st, const char *line, const char *where)
{
	const char *text;
	size_t t;

	if (live_split_trigger(line, where, &t, &text))
		return -1;
	add_cmd(st, line, t, text);
	return 0;
}

static int add_line(void *st, const char *line, const char *where)
{
	return add_trigger(st, line, where);
}

static int add_pid(struct state *st, const char *s)
{
	struct watched *v;
	int pid;

	if (live_parse_pid(s, &pid))
		return -1;
	v = realloc(st->pids, (st->nr_pids + 1) * sizeof(*v));
	if (!v)
		return -1;
	v[st->nr_pids].pid = pid;
	v[st->nr_pids].fd = -1;
	v[st->nr_pids].gone = 0;
	st->pids = v;
	st->nr_pids++;
	return 0;
}

/* ---- output --------------------------------------------------------- */

static int file_write(void *arg, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

static void print_errlog(struct state *st)
{
	hist_ctx_print_error_log(st->ctx, file_write, stderr);
	hist_ctx_clear_error_log(st->ctx);
}

/* ---- commands -------------------------------------------------------- */

/* The largest size= here: hist_ctx_opts.max_map_bits is left at 0, the
 * kernel's 2^17. */
#define LIVE_MAP_BITS 17

/* The event a "SYSTEM/EVENT" target names, or NULL. */
static hist_event *target_event(struct state *st, const struct cmd *c)
{
	char *slash = strchr(c->target, '/');
	hist_event *ev;

	if (!slash)
		return NULL;
	*slash = 0;
	ev = hist_event_lookup(st->ctx, c->target, slash + 1);
	*slash = '/';
	return ev;
}

static int is_hist_cmd(const char *text)
{
	return !strncmp(text, "hist:", 5) || !strcmp(text, "hist");
}

/* The live shim's limits, said before anything runs: 0 or -1. */
static int check_cmd(struct state *st, const struct cmd *c)
{
	if (strstr(c->text, ".snapshot(") || !strncmp(c->text, "snapshot", 8))
		fprintf(stderr, PROG ": warning: %s: '%s': a snapshot() is noted in "
			"the histogram, but no copy of the trace buffer is kept\n",
			c->target, c->text);
	if (!strncmp(c->text, "traceon", 7) || !strncmp(c->text, "traceoff", 8) ||
	    !strncmp(c->text, "stacktrace", 10))
		fprintf(stderr, PROG ": warning: %s: '%s': does nothing here (it would "
			"act on the trace buffer, which hist-live reads itself)\n",
			c->target, c->text);
	(void)st;
	return 0;
}

/* Synthetic events first, then the triggers, as hist-replay does. */
static void apply_cmds(struct state *st)
{
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < st->nr_cmds; i++) {
			struct cmd *c = &st->cmds[i];
			int synth = !strcmp(c->target, "synthetic_events");
			struct hist_error herr;
			char hint[512];
			hist_event *ev;
			int ret;

			if (synth != !pass)
				continue;
			if (synth) {
				ret = hist_synth_parse(st->ctx, c->text, 0, NULL);
			} else {
				ev = target_event(st, c);
				if (!ev) {
					fprintf(stderr, PROG ": %s: no such event\n",
						c->target);
					st->rejected = 1;
					continue;
				}
				check_cmd(st, c);
				memset(&herr, 0, sizeof(herr));
				ret = hist_trigger_parse(ev, c->text, &herr);
			}
			if (ret) {
				fprintf(stderr, PROG ": %s: '%s' failed: %s\n",
					c->target, c->text, strerror(-ret));
				/* the kernel logs nothing for a bad size= */
				if (!synth && !herr.nr_logged &&
				    hint_map_size(c->text, LIVE_MAP_BITS, NULL, hint,
						  sizeof(hint)))
					fprintf(stderr, PROG ": %s\n", hint);
				print_errlog(st);
				st->rejected = 1;
			} else {
				c->accepted = 1;
			}
		}
	}
}

/* --delta: the command that clears C's histogram (its text with
 * ":clear" before the filter).  0 or -errno. */
static int clear_cmd(struct state *st, const struct cmd *c)
{
	size_t len;
	const char *filter = tfs_cmd_filter(c->text, &len);
	char *text = malloc(strlen(c->text) + 16);
	hist_event *ev = target_event(st, c);
	int ret;

	if (!text || !ev) {
		free(text);
		return -ENOMEM;
	}
	sprintf(text, "%.*s:clear%s%s", (int)len, c->text, filter ? " if " : "",
		filter ? filter : "");
	ret = hist_trigger_parse(ev, text, NULL);
	free(text);
	return ret;
}

static int clear_all(struct state *st, int quiet_fail)
{
	size_t i;

	for (i = 0; i < st->nr_cmds; i++) {
		const struct cmd *c = &st->cmds[i];
		int ret;

		if (!c->accepted || !is_hist_cmd(c->text) ||
		    !strcmp(c->target, "synthetic_events"))
			continue;
		ret = clear_cmd(st, c);
		if (ret) {
			if (!quiet_fail) {
				fprintf(stderr, PROG ": --delta: cannot clear %s '%s': "
					"%s\n", c->target, c->text, strerror(-ret));
				print_errlog(st);
			}
			return -1;
		}
	}
	return 0;
}

/* ---- feeding ---------------------------------------------------------- */

/* Per record: what is per event type or per run is looked up once. */
static void feed(void *arg, const struct hist_ftrace_record *rec)
{
	struct state *st = arg;
	struct hist_hit hit = { .ts = rec->ts, .cpu = rec->cpu, .pid = -1 };

	if (rec->type != st->feed_type) {
		st->feed_type = rec->type;
		st->feed_ev = host_event_by_id(st->host, rec->type);
		st->feed_track = comms_type(st->comms, rec->type);
	}
	if (st->feed_ev) {
		if (st->stacks)
			hit.stack = ring_stack(st->ring, &hit.nr_stack);
		hist_event_hit(st->feed_ev, rec->data, rec->len, &hit);
	}
	/* a name change applies to the records after it (a trigger on the
	 * event itself got it above, under the old name, as the kernel's) */
	if (st->feed_track)
		comms_record(st->comms, rec);
}

/*
 * Ordered reading: whether a drain reads no more of CPU now.  Past the
 * drain's marker (PAST_SYNC), what a CPU holds is newer than the drain
 * and would only wait in memory for the next one; where a flood
 * overwrote the marker, two buffers' worth of pages is more than the
 * CPU held when the drain began.  What is left stays in the kernel's
 * buffer (overwritten, it is counted lost).  Without it, a soak run with
 * two triggers on sys_enter (time order for comm) grew to 661 MB.
 */
static int ordered_stop(void *arg, uint32_t cpu, int past_sync)
{
	struct state *st = arg;

	if (past_sync)
		return 1;
	return cpu < st->nr_drain_pages && ++st->drain_pages[cpu] > st->max_drain_pages;
}

static long drain(struct state *st, int final)
{
	long n;

	host_tick(st->host);
	if (st->drain_pages)
		memset(st->drain_pages, 0, st->nr_drain_pages * sizeof(*st->drain_pages));
	n = ring_drain(st->ring, final, feed, st);
	comms_drained(st->comms, ring_lost(st->ring));
	return n;
}

static int cmp_bound(const void *a, const void *b)
{
	const struct hist_event_desc *x = hist_event_desc(*(hist_event *const *)a);
	const struct hist_event_desc *y = hist_event_desc(*(hist_event *const *)b);
	int c = strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

/* The events to print: those the commands named that have a hist
 * trigger (synthetic ones included), by system then name. */
static size_t print_list(struct state *st, hist_event **evs)
{
	size_t i, j, n = 0;

	for (i = 0; i < st->nr_cmds; i++) {
		hist_event *ev = target_event(st, &st->cmds[i]);

		if (!ev || !hist_event_nr_hists(ev))
			continue;
		for (j = 0; j < n && evs[j] != ev; j++)
			;
		if (j == n)
			evs[n++] = ev;
	}
	qsort(evs, n, sizeof(*evs), cmp_bound);
	return n;
}

/*
 * The losses of a print: hist-replay's "# lost:" line and JSON "lost"
 * object, per CPU and in total; with --delta those of the interval.
 */
static void print_lost(struct state *st)
{
	uint32_t i, n = ring_nr_cpus(st->ring);
	uint64_t total = 0, unknown = 0;

	for (i = 0; i < n; i++) {
		const struct ring_loss *l = ring_cpu_loss(st->ring, i);

		total += l->lost - (st->delta ? st->printed_lost[i] : 0);
		unknown += l->unknown;
	}
	if (st->json) {
		fprintf(st->out, ", \"lost\": { \"total\": %llu, \"unknown\": %llu, "
			"\"cpus\": [", (unsigned long long)total,
			(unsigned long long)unknown);
		for (i = 0; i < n; i++) {
			const struct ring_loss *l = ring_cpu_loss(st->ring, i);

			fprintf(st->out, "%s{ \"cpu\": %u, \"events\": %llu, \"unknown\": "
				"%llu, \"overrun\": %llu, \"commit_overrun\": %llu, "
				"\"dropped\": %llu }", i ? ", " : "", l->cpu,
				(unsigned long long)(l->lost - (st->delta ?
						     st->printed_lost[i] : 0)),
				(unsigned long long)l->unknown,
				(unsigned long long)l->overrun,
				(unsigned long long)l->commit_overrun,
				(unsigned long long)l->dropped);
		}
		fputs("] }", st->out);
		return;
	}
	fputs("\n# lost:", st->out);
	for (i = 0; i < n && total; i++) {
		const struct ring_loss *l = ring_cpu_loss(st->ring, i);
		uint64_t k = l->lost - (st->delta ? st->printed_lost[i] : 0);

		if (k)
			fprintf(st->out, " CPU %u %llu,", l->cpu, (unsigned long long)k);
	}
	fprintf(st->out, " total %llu events\n", (unsigned long long)total);
}

static int print_all(struct state *st, int final)
{
	hist_event **evs = calloc(st->nr_cmds, sizeof(*evs));
	struct json_line line = { st->out, 0 };	/* --json: NDJSON */
	double t = now();
	size_t i, n;
	int ret = 0;

	if (!evs)
		return -1;
	n = print_list(st, evs);
	if (st->json) {
		fprintf(st->out, "{ \"libhist\": \"%s\", \"elapsed\": %.3f, "
			"\"final\": %s, \"records\": %llu", hist_version(),
			t - st->start, final ? "true" : "false",
			(unsigned long long)ring_records(st->ring));
		if (st->delta)
			fprintf(st->out, ", \"interval\": %.3f", t - st->last_print);
		print_lost(st);
		fputs(", \"events\": [", st->out);
	}
	for (i = 0; i < n && !ret; i++) {
		const struct hist_event_desc *d = hist_event_desc(evs[i]);

		if (st->json) {
			fputs(i ? ", { \"system\": " : "{ \"system\": ", st->out);
			json_put_str(st->out, d->system);
			fputs(", \"event\": ", st->out);
			json_put_str(st->out, d->name);
			fputs(", \"histograms\": ", st->out);
			ret = hist_event_print_json(evs[i], json_line_write, &line);
			fputs(" }", st->out);
		} else {
			fprintf(st->out, "%s# %s/%s after %.1f s", i ? "\n" : "",
				d->system, d->name, t - st->start);
			if (st->delta)
				fprintf(st->out, " (the last %.1f s)", t - st->last_print);
			fputs("\n", st->out);
			ret = hist_event_print_hist(evs[i], file_write, st->out);
		}
	}
	if (st->json)
		fputs("] }\n", st->out);
	else
		print_lost(st);
	fflush(st->out);
	free(evs);
	for (i = 0; i < ring_nr_cpus(st->ring); i++)
		st->printed_lost[i] = ring_cpu_loss(st->ring, i)->lost;
	st->last_print = t;
	if (!ret && !ferror(st->out))
		return 0;
	/* SIGPIPE is blocked: a closed pipe shows as EPIPE */
	st->out_closed = errno == EPIPE;
	return -1;
}

/* ---- setup -------------------------------------------------------------- */

/* /proc/meminfo's MemTotal in KiB, or 0. */
static unsigned long long mem_total_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	unsigned long long kb = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/*
 * The default per-CPU buffer: 4 MiB per traced event (at 64 bytes a
 * record, 64k records: 65 ms of a CPU recording a million events a
 * second), at most 32 MiB per CPU, and all CPUs' together at most 1/32
 * of the memory; never less than the kernel's own default (1.4 MiB).
 */
static long default_buffer_kb(size_t nr_events)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long long kb = 4096ull * (nr_events ? nr_events : 1);
	unsigned long long mem = mem_total_kb();

	if (kb > 32768)
		kb = 32768;
	if (cpus > 0 && mem && kb * (unsigned long long)cpus > mem / 32)
		kb = mem / 32 / (unsigned long long)cpus;
	return kb < 1410 ? 1410 : (long)kb;
}

/* The pids to record: COMMAND, each -p process's threads.  The string
 * for set_event_pid, or NULL (no pid filter). */
static char *pid_list(struct state *st)
{
	size_t cap = 64, n = 0, i;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = 0;
	for (i = 0; i <= st->nr_pids; i++) {
		char dir[64], path[300];
		struct dirent *d;
		DIR *dp;

		if (i == st->nr_pids) {
			if (!st->child || !st->follow)
				break;
			snprintf(path, sizeof(path), "%d ", (int)st->child);
			goto append;
		}
		snprintf(dir, sizeof(dir), "/proc/%d/task", st->pids[i].pid);
		dp = opendir(dir);
		if (!dp)
			continue;	/* gone already */
		while ((d = readdir(dp))) {
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "%s ", d->d_name);
			while (n + strlen(path) + 1 > cap) {
				char *v = realloc(s, cap *= 2);

				if (!v) {
					closedir(dp);
					free(s);
					return NULL;
				}
				s = v;
			}
			strcpy(s + n, path);
			n += strlen(path);
		}
		closedir(dp);
		continue;
append:
		while (n + strlen(path) + 1 > cap) {
			char *v = realloc(s, cap *= 2);

			if (!v) {
				free(s);
				return NULL;
			}
			s = v;
		}
		strcpy(s + n, path);
		n += strlen(path);
	}
	if (!n) {
		free(s);
		return NULL;
	}
	return s;
}

/* Do the triggers need the CPUs merged in time order?  Only those that
 * keep state between events do: variables, actions, synthetic events. */
static int needs_order(const struct state *st)
{
	size_t i;

	for (i = 0; i < st->nr_cmds; i++) {
		const struct cmd *c = &st->cmds[i];
		const char *p;

		if (!c->accepted)
			continue;
		if (!strcmp(c->target, "synthetic_events") ||
		    !strncmp(c->target, "synthetic/", 10))
			return 1;
		if (!is_hist_cmd(c->text) || strchr(c->text, '$') ||
		    strstr(c->text, "onmatch(") || strstr(c->text, "onmax(") ||
		    strstr(c->text, "onchange("))
			return 1;
		/* a variable: ":NAME=" that no hist attribute spells */
		for (p = strchr(c->text, ':'); p; p = strchr(p + 1, ':')) {
			static const char *const attrs[] = {
				"keys=", "key=", "vals=", "values=", "val=", "sort=",
				"size=", "name=", "clock=",
			};
			size_t a, w = strcspn(p + 1, "=: \t");

			if (p[1 + w] != '=')
				continue;
			for (a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++)
				if (!strncmp(p + 1, attrs[a], strlen(attrs[a])))
					break;
			if (a == sizeof(attrs) / sizeof(attrs[0]))
				return 1;
		}
	}
	return 0;
}

/* Does TEXT's first N bytes name the current task's comm as a field
 * (comm, COMM, common_comm), not as part of another name (prev_comm)? */
static int mentions_comm(const char *text, size_t n)
{
	static const char *const names[] = { "common_comm", "comm", "COMM" };
	size_t i, k, l;

	for (i = 0; i < n; i++) {
		if (i && (text[i - 1] == '_' || text[i - 1] == '.' ||
			  (text[i - 1] >= '0' && text[i - 1] <= '9') ||
			  ((text[i - 1] | 32) >= 'a' && (text[i - 1] | 32) <= 'z')))
			continue;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			char c;

			l = strlen(names[k]);
			if (i + l > n || strncmp(text + i, names[k], l))
				continue;
			c = i + l < n ? text[i + l] : 0;
			if (c != '_' && !(c >= '0' && c <= '9') &&
			    !((c | 32) >= 'a' && (c | 32) <= 'z'))
				return 1;
		}
	}
	return 0;
}

/*
 * Does libhist ask for the task names of EV's records (NULL: the
 * synthetic_events definitions)?  A comm key or value, or a comm filter
 * the kernel's filter on EV is not EXACT for, asks per record (the
 * records must then be fed in time order: a name change recorded on one
 * CPU applies to the task's records on every other); unless PER_RECORD,
 * .execname too, which asks when an entry is made.
 */
static int names_wanted(struct state *st, const hist_event *ev, int exact, int per_record)
{
	size_t i, len;

	for (i = 0; i < st->nr_cmds; i++) {
		const struct cmd *c = &st->cmds[i];
		const char *f;

		if (!c->accepted || target_event(st, c) != ev)
			continue;
		f = tfs_cmd_filter(c->text, &len);
		if (mentions_comm(c->text, len) ||
		    (!per_record && memmem(c->text, len, ".execname", 9)))
			return 1;
		if (f && !exact && mentions_comm(f, strlen(f)))
			return 1;
	}
	return 0;
}

/* Does a trigger key on (or keep) a stack? */
static int needs_stacks(const struct state *st)
{
	size_t i;

	for (i = 0; i < st->nr_cmds; i++)
		if (st->cmds[i].accepted && is_hist_cmd(st->cmds[i].text) &&
		    strstr(st->cmds[i].text, "stacktrace"))
			return 1;
	return 0;
}

/*
 * The kernel's event filter for SYS/NAME: the disjunction of the filters
 * of the commands on it, or NULL when one has none (it wants every
 * record) or removes a trigger ("!...": what is left is not known here).
 * The kernel then writes no record that no trigger could count.
 * *EXACT: every command on the event has the same filter, so a record
 * the kernel writes passes each of them (libhist need not ask again).
 */
static char *kernel_filter(struct state *st, const char *sys, const char *name,
			   int *exact)
{
	size_t i, n = 0, len;
	const char *first = NULL;
	char *s = NULL;

	*exact = 1;

	for (i = 0; i < st->nr_cmds; i++) {
		const struct cmd *c = &st->cmds[i];
		size_t tl = strlen(sys);
		const char *f;

		if (strncmp(c->target, sys, tl) || c->target[tl] != '/' ||
		    strcmp(c->target + tl + 1, name))
			continue;
		if (c->text[0] == '!') {
			free(s);
			return NULL;
		}
		if (!c->accepted)
			continue;
		f = tfs_cmd_filter(c->text, &len);
		if (!f) {
			free(s);
			return NULL;
		}
		if (first && !strcmp(first, f))
			continue;	/* (F) || (F) is (F) */
		*exact = !first;
		first = f;
		if (tfs_filter_or(&s, &n, f, strlen(f)))
			return NULL;
	}
	return s;
}

static int set_file(struct state *st, const char *rel, const char *val)
{
	int ret = tfs_write(&st->tfs, rel, val, 1);

	if (ret)
		fprintf(stderr, PROG ": %s: %s\n", rel, strerror(-ret));
	return ret;
}

/* enable_event/disable_event of an event without triggers of its own:
 * the kernel would turn its recording on or off, which feeds no
 * histogram here (its records are not read).  Say so. */
static void check_enables(struct state *st)
{
	size_t i;

	for (i = 0; i < st->nr_cmds; i++) {
		const struct cmd *c = &st->cmds[i];
		char sys[128], name[128];
		hist_event *ev;

		if (!c->accepted || (strncmp(c->text, "enable_event:", 13) &&
				     strncmp(c->text, "disable_event:", 14)))
			continue;
		if (sscanf(strchr(c->text, ':') + 1, "%127[^:]:%127[^: \t]", sys,
			   name) != 2)
			continue;
		ev = hist_event_lookup(st->ctx, sys, name);
		if (!ev || !host_event_by_id(st->host, hist_event_desc(ev)->id))
			fprintf(stderr, PROG ": warning: %s: '%s': %s/%s has no trigger "
				"here, so enabling it feeds nothing (give it one)\n",
				c->target, c->text, sys, name);
	}
}

/* The sub-buffer size (KiB) where the buffer holds at least 64 of them. */
#define SUBBUF_KB "16"
#define SUBBUF_MIN_BUFFER_KB (64 * 16)

/* the trace clock where no record's time stamp is read (size_buffers()) */
#define CHEAP_CLOCK "uptime"

/* Will start_tracing() read in time order?  Its decision, made before
 * the kernel is asked: a kernel filter is taken to be accepted (where it
 * is refused, start_tracing() goes back to a fine clock). */
static int will_order(struct state *st)
{
	size_t i, n = host_nr_bound(st->host);

	if (needs_order(st) || needs_stacks(st))
		return 1;
	for (i = 0; i < n; i++) {
		const char *sys, *name;
		hist_event *ev = host_bound(st->host, i, &sys, &name);
		char *filter = NULL;
		int exact = 0;

		if (!strcmp(sys, "synthetic"))
			continue;
		if (!st->no_kfilter && !comms_event(NULL, sys, name))
			filter = kernel_filter(st, sys, name, &exact);
		free(filter);
		if (names_wanted(st, ev, filter && exact, 1))
			return 1;
	}
	return 0;
}

/* The buffers' size, watermark and clock, before the ring is opened. */
static int size_buffers(struct state *st)
{
	char num[32];
	long kb;
	size_t i, n = host_bind(st->host, st->ctx), nr_kernel = 0;
	const char *clock = host_clock(st->host);
	int ret;

	if (!n) {
		fprintf(stderr, PROG ": no trigger to run\n");
		return -EINVAL;
	}
	st->feed_type = UINT32_MAX;	/* no record has this type */
	st->feed_ev = NULL;
	check_enables(st);
	for (i = 0; i < n; i++) {
		const char *sys, *name;

		host_bound(st->host, i, &sys, &name);
		nr_kernel += strcmp(sys, "synthetic") != 0;
	}
	kb = st->buffer_kb ? st->buffer_kb : default_buffer_kb(nr_kernel);
	snprintf(num, sizeof(num), "%ld", kb);
	if ((ret = set_file(st, "buffer_size_kb", num)))
		return ret;
	/* A read of trace_pipe_raw returns one sub-buffer: 16 KiB ones take
	 * a quarter of the system calls and of the kernel's per-read work
	 * (bench/live.py, own CPU 56 -> 45 ns per event, medians of 8
	 * rounds; 64 KiB: 48, a partial sub-buffer is copied whole).  Only
	 * in a buffer of many (a small -b keeps its granularity of losses),
	 * and where the kernel can (6.8+; else its page-sized default). */
	if (kb >= SUBBUF_MIN_BUFFER_KB)
		tfs_write(&st->tfs, "buffer_subbuf_size_kb", SUBBUF_KB, 1);
	/* wake the reader at 20% full: the other 80% is its time to get
	 * a CPU on a busy machine (at 50%, a dd burst on 2 loaded CPUs
	 * lost 30%); -i and the end read whatever is there.  Fewer
	 * wake-ups at 50% did not lower its own CPU (bench/live.py, 13
	 * rounds: 43 against 34 ms a million events, within the noise) */
	if ((ret = set_file(st, "buffer_percent", "20")))
		return ret;
	/* Nothing reads a record's time stamp when no hist uses
	 * common_timestamp (libhist asks for a clock only then) and records
	 * are fed as read, not merged across CPUs by time: the kernel then
	 * need not read a fine clock for each record it writes.  "uptime"
	 * (jiffies) is a load of a word; "local" reads the TSC, and in a
	 * KVM guest pvclock too: 10% of dd's CPU under the bench's trigger.
	 * A new clock empties the buffers and zeroes their loss counters:
	 * before ring_open() reads the counters' baseline; and so only in
	 * a private instance (--top's buffer may hold someone's trace). */
	if (!clock && !st->top && !will_order(st)) {
		clock = CHEAP_CLOCK;
		st->cheap_clock = 1;
	}
	return clock ? set_file(st, "trace_clock", clock) : 0;
}

/* Record the events that change task names (comms.c), once, before the
 * first event whose records need them. */
static int start_names(struct state *st)
{
	int ret;

	if (st->names_on)
		return 0;
	st->names_on = 1;
	/* recording first: no rename between the seed and the tracking
	 * events' first records goes unseen */
	if ((ret = set_file(st, "tracing_on", "1")))
		return ret;
	ret = comms_start(st->comms, &st->tfs, 1);
	if (!ret && !st->quiet)
		fprintf(stderr, PROG ": tracing task/task_newtask, task/task_rename, "
			"sched/sched_process_exit (task names)\n");
	if (ret)
		fprintf(stderr, PROG ": warning: cannot record task name changes "
			"(task/task_newtask, task/task_rename, sched/sched_process_exit: "
			"%s); names are read from /proc when the records are\n",
			strerror(-ret));
	return 0;
}

/* Turn on the events that have triggers, and tracing. */
static int start_tracing(struct state *st)
{
	char rel[512], num[32], self_comm[32] = "";
	size_t i, n = host_nr_bound(st->host);
	char *pids;
	int ret, ordered = 0, self_in = 0;
	int *exact_ok;

	pids = pid_list(st);
	if (st->nr_pids && !pids) {
		fprintf(stderr, PROG ": no process of -p is running\n");
		return -ESRCH;
	}
	ret = pids ? set_file(st, "set_event_pid", pids) : 0;
	free(pids);
	if (ret)
		return ret;
	if (st->follow && (ret = set_file(st, "options/event-fork", "1")))
		return ret;
	ring_set_ordered(st->ring, needs_order(st));
	if (needs_stacks(st)) {
		/* ftrace's own events have no id file: the format says it */
		char *fmt = tfs_read(&st->tfs, "events/ftrace/kernel_stack/format", 0, NULL);
		char *id = fmt ? strstr(fmt, "\nID: ") : NULL;

		ret = id ? tfs_write(&st->tfs, "options/stacktrace", "1", 1) : -ENOENT;
		if (ret) {
			fprintf(stderr, PROG ": a trigger keys on a stack, but this "
				"kernel cannot record stacks with events "
				"(options/stacktrace, ftrace/kernel_stack): %s\n",
				strerror(-ret));
			free(fmt);
			return ret;
		}
		ring_set_stack_type(st->ring, (int)strtol(id + 5, NULL, 10));
		st->stacks = 1;
		free(fmt);
	}
	st->comms = host_comms(st->host);
	if (prctl(PR_GET_NAME, self_comm, 0, 0, 0))
		self_comm[0] = 0;
	self_in |= !self_comm[0];
	/* synthetic events: fed by libhist from any event's records */
	if (names_wanted(st, NULL, 0, 0) && (ret = start_names(st)))
		return ret;
	for (i = 0; i < n; i++) {
		const char *sys, *name;
		hist_event *ev = host_bound(st->host, i, &sys, &name);

		if (!strcmp(sys, "synthetic") && names_wanted(st, ev, 0, 0) &&
		    (ret = start_names(st)))
			return ret;
	}
	exact_ok = calloc(n ? n : 1, sizeof(*exact_ok));
	if (!exact_ok)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *sys, *name;
		char *filter;
		int exact;
		hist_event *ev = host_bound(st->host, i, &sys, &name);

		if (!strcmp(sys, "synthetic"))
			continue;	/* generated by libhist, not the kernel */
		/* a tracking event's records are all needed, whatever its
		 * triggers want: libhist filters for them */
		filter = st->no_kfilter || comms_event(st->comms, sys, name) ? NULL :
			 kernel_filter(st, sys, name, &exact);
		self_in |= !filter;
		if (filter) {
			snprintf(rel, sizeof(rel), "events/%s/%s/filter", sys, name);
			ret = tfs_write(&st->tfs, rel, filter, 1);
			if (!st->quiet)
				fprintf(stderr, PROG ": %s/%s: kernel filter %s%s%s%s\n",
					sys, name, filter, ret ? ": not accepted, "
					"libhist filters alone: " : "",
					ret ? strerror(-ret) : "",
					!ret && exact ? " (exact: libhist does not "
					"filter again)" : "");
			/* The kernel's verdict is the one a kernel with hist
			 * triggers would reach (same filter code, comm of the
			 * task at the event, not as /proc says later), so
			 * where it is exact it is the only one. */
			if (!ret && exact) {
				if (hist_event_set_host_filtered(ev, 1))
					fprintf(stderr, PROG ": %s/%s: out of memory\n", sys,
						name);
				else
					exact_ok[i] = 1;
			}
			self_in |= ret || !tfs_filter_excludes(filter, self_comm, (int32_t)getpid(),
							       tool_find_field(hist_event_desc(ev), "comm") != NULL);
			free(filter);
		}
	}
	/* Our own system calls and switches are never recorded.  Where
	 * every event's kernel filter already refuses our records (say
	 * `if comm == "dd"`), the pid list is left empty: the kernel then
	 * checks no pid for each record (1.8% of dd's CPU in
	 * bench/live.py's workload). */
	snprintf(num, sizeof(num), "%d", (int)getpid());
	if (self_in && (ret = set_file(st, "set_event_notrace_pid", num))) {
		free(exact_ok);
		return ret;
	}
	if (!self_in && !st->quiet)
		fprintf(stderr, PROG ": the kernel filters refuse its own records: no pid list\n");
	ret = 0;
	for (i = 0; i < n; i++) {
		const char *sys, *name;
		hist_event *ev = host_bound(st->host, i, &sys, &name);

		if (!strcmp(sys, "synthetic"))
			continue;
		/* where the kernel decides alone, no name is asked for:
		 * exact counts, no tracking records (and their losses) */
		if (names_wanted(st, ev, exact_ok[i], 0) && (ret = start_names(st)))
			break;
		/* unordered reading (CPU by CPU) costs less, and is exact
		 * where no name is decided per record */
		if (names_wanted(st, ev, exact_ok[i], 1))
			ordered = 1;
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", sys, name);
		if ((ret = set_file(st, rel, "1")))
			break;
		if (!st->quiet)
			fprintf(stderr, PROG ": tracing %s/%s\n", sys, name);
	}
	free(exact_ok);
	if (ret)
		return ret;
	if (ordered)
		ring_set_ordered(st->ring, 1);
	if (ordered || needs_order(st) || st->stacks) {
		char *kb = tfs_read(&st->tfs, "buffer_size_kb", 1, NULL);
		long v = kb ? strtol(kb, NULL, 10) : 0;

		free(kb);
		st->nr_drain_pages = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
		st->drain_pages = calloc(st->nr_drain_pages ? st->nr_drain_pages : 1,
					 sizeof(*st->drain_pages));
		/* pages of at least 4 KiB */
		st->max_drain_pages = (uint32_t)(2 * (v > 0 ? v : st->buffer_kb) / 4) + 2;
		if (st->drain_pages)
			ring_set_stop(st->ring, ordered_stop, st);
	}
	/* A kernel filter will_order() counted on was refused: time order
	 * needs a fine clock.  The new clock empties the buffers (records
	 * of the set-up only) and the name tracker starts again from /proc,
	 * recording on. */
	if (ordered && st->cheap_clock) {
		st->cheap_clock = 0;
		if ((ret = set_file(st, "trace_clock", "local")))
			return ret;
		if (st->names_on)
			comms_start(st->comms, &st->tfs, 1);	/* warned if it fails */
	}
	return set_file(st, "tracing_on", "1");
}

/*
 * Fork COMMAND, held before exec until release_command(): its pid must
 * be in set_event_pid before it runs, and the fork must happen before
 * event-fork is on (else hist-live's notrace entry would pass to it).
 */
static int fork_command(struct state *st)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC)) {
		fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		char c;
		size_t i;

		close(fds[1]);
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
		for (i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
			signal(handled[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, &st->orig_mask, NULL);
		execvp(st->argv[0], st->argv);
		fprintf(stderr, PROG ": %s: %s\n", st->argv[0], strerror(errno));
		_exit(EXIT_EXEC);
	}
	close(fds[0]);
	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		close(fds[1]);
		return -1;
	}
	st->child = pid;
	st->release_fd = fds[1];
	return 0;
}

static void release_command(struct state *st)
{
	if (st->release_fd >= 0)
		close(st->release_fd);
	st->release_fd = -1;
}

static int open_pidfds(struct state *st)
{
	size_t i;

	for (i = 0; i < st->nr_pids; i++) {
		st->pids[i].fd = (int)syscall(SYS_pidfd_open, st->pids[i].pid, 0);
		if (st->pids[i].fd < 0 && (errno == ESRCH ||
					   (kill(st->pids[i].pid, 0) && errno == ESRCH))) {
			fprintf(stderr, PROG ": -p %d: no such process\n",
				st->pids[i].pid);
			return -1;
		}
	}
	return 0;
}

/* ---- the loop ------------------------------------------------------------ */

static void reap_child(struct state *st)
{
	int status;

	if (st->child <= 0 || waitpid(st->child, &status, WNOHANG) != st->child)
		return;
	st->child = 0;
	st->child_done = 1;
	st->child_status = WIFEXITED(status) ? WEXITSTATUS(status) :
			   WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
	if (!st->quiet)
		fprintf(stderr, PROG ": %s exited (%d)\n", st->argv[0],
			st->child_status);
}

/* --listen: the tables as they are (the loop drained the buffers just
 * before answering), every event in one exposition, then the losses. */
static int live_render(void *arg, int openmetrics, char **text, size_t *len)
{
	struct state *st = arg;
	hist_event **evs = calloc(st->nr_cmds ? st->nr_cmds : 1, sizeof(*evs));
	struct hist_print_opts o;
	FILE *f = evs ? open_memstream(text, len) : NULL;
	size_t i, n;
	int ret = 0;

	if (!f) {
		free(evs);
		return -1;
	}
	memset(&o, 0, sizeof(o));
	o.flags = HIST_PRINT_NO_EOF | (openmetrics ? 0 : HIST_PRINT_PROMETHEUS_TEXT);
	n = print_list(st, evs);
	for (i = 0; i < n && !ret; i++)
		ret = hist_event_print_openmetrics(evs[i], file_write, f, &o);
	o.flags = HIST_PRINT_HOST_LOST | (openmetrics ? 0 : HIST_PRINT_PROMETHEUS_TEXT);
	o.host_lost = ring_lost(st->ring);
	if (!ret)
		ret = hist_print_openmetrics_eof(file_write, f, &o);
	if (fclose(f))
		ret = -1;
	free(evs);
	return ret ? -1 : 0;
}

/* Milliseconds until the next print or the end; -1: no timer. */
static int next_timeout(const struct state *st, double t, double next)
{
	double until = -1;

	if (next)
		until = next - t;
	if (st->duration && (until < 0 || st->start + st->duration - t < until))
		until = st->start + st->duration - t;
	if (until < 0 && (next || st->duration))
		return 0;
	return until < 0 ? -1 : (int)(until * 1000) + 1;
}

/* 0 when stopped normally, -1 on a tracing failure. */
static int loop(struct state *st)
{
	size_t nr_cpu = ring_nr_cpus(st->ring), nfds, i;
	struct pollfd *fds = calloc(nr_cpu + st->nr_pids + 1, sizeof(*fds));
	double next = st->interval ? st->start + st->interval : 0;
	size_t alive = st->nr_pids;
	int ret = 0;

	if (!fds)
		return -1;
	for (;;) {
		double t = now();
		int timeout = next_timeout(st, t, next), k, lt = -1, unwatched = 0;
		struct timespec ts;

		for (i = 0; i < st->nr_pids; i++) {
			struct watched *w = &st->pids[i];

			if (w->gone || w->fd >= 0)
				continue;
			if (kill(w->pid, 0) && errno == ESRCH) {
				w->gone = 1;
				alive--;
			} else {
				unwatched = 1;
			}
		}
		if (unwatched && (timeout < 0 || timeout > PID_POLL_MS))
			timeout = PID_POLL_MS;
		if (stop_sig || st->child_done || (st->nr_pids && !alive))
			break;
		if (st->duration && t - st->start >= st->duration)
			break;
		if (next && t >= next) {
			if (drain(st, 0) < 0 || print_all(st, 0)) {
				ret = -1;
				break;
			}
			if (st->delta)
				clear_all(st, 1);
			while (next <= t)
				next += st->interval;
			continue;
		}
		nfds = ring_pollfds(st->ring, fds, nr_cpu);
		for (i = 0; i < st->nr_pids; i++) {
			fds[nfds].fd = st->pids[i].fd;	/* -1: ignored */
			fds[nfds].events = POLLIN;
			fds[nfds++].revents = 0;
		}
		if (st->srv) {
			lt = listen_timeout_ms(st->srv);
			fds[nfds].fd = listen_fd(st->srv);
			fds[nfds].events = POLLIN;
			fds[nfds++].revents = 0;
			if (lt >= 0 && (timeout < 0 || lt < timeout))
				timeout = lt;
		}
		ts.tv_sec = timeout / 1000;
		ts.tv_nsec = (long)(timeout % 1000) * 1000000;
		k = ppoll(fds, nfds, timeout < 0 ? NULL : &ts, &st->wait_mask);
		if (k < 0 && errno != EINTR) {
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			ret = -1;
			break;
		}
		if (child_changed) {
			child_changed = 0;
			reap_child(st);
		}
		/* the server's own timer is due too when the ring's fds woke
		 * the poll first (a busy event): MHD_get_timeout() says 0 while
		 * a connection has work left, and a keep-alive connection
		 * whose client closed would otherwise linger 10 s */
		if (st->srv && (fds[nfds - 1].revents || (lt >= 0 && now() - t >= lt / 1000.0))) {
			/* drain first, then answer: a scrape sees every record
			 * the kernel wrote before it */
			if (fds[nfds - 1].revents && drain(st, 0) < 0) {
				ret = -1;
				break;
			}
			listen_run(st->srv);
		}
		if (k <= 0)
			continue;
		for (i = 0; i < st->nr_pids; i++) {
			struct pollfd *p = &fds[nr_cpu + i];

			if (p->fd >= 0 && p->revents) {
				close(st->pids[i].fd);
				st->pids[i].fd = -1;
				st->pids[i].gone = 1;
				alive--;
			}
		}
		for (i = 0; i < nr_cpu; i++)
			if (fds[i].revents)
				break;
		if (i < nr_cpu && drain(st, 0) < 0) {
			ret = -1;
			break;
		}
	}
	free(fds);
	/* the last records: stop the buffer, then read all that is left */
	tfs_write(&st->tfs, "tracing_on", "0", 1);
	if (drain(st, 1) < 0)
		ret = -1;
	return ret;
}

/* Say how big a buffer would have held what was lost. */
static void size_warning(struct state *st)
{
	uint64_t lost = ring_lost(st->ring);
	char *cur;
	long kb;
	double want;

	if (!lost)
		return;
	cur = tfs_read(&st->tfs, "buffer_size_kb", 1, NULL);
	kb = cur ? strtol(cur, NULL, 10) : 0;
	free(cur);
	if (kb <= 0)
		kb = st->buffer_kb;
	want = (double)kb * ring_burst(st->ring) * 1.25;
	if (want < kb * 2.0)
		want = kb * 2.0;
	fprintf(stderr, PROG ": the kernel lost %llu events (buffers of %ld KiB per "
		"CPU were full); -b %.0f would have held the worst burst\n",
		(unsigned long long)lost, kb, (double)((long long)(want / 1024) + 1) * 1024);
}

/* ---- options and main -------------------------------------------------- */

/* --kernel's TEXT, else the running kernel's release (uname -r), else
 * latest. */
static uint32_t kernel_version(const char *text)
{
	struct utsname u;
	uint32_t k;

	if (text)
		return hist_kernel_parse(text, &k) ? HIST_KERNEL_LATEST : k;
	if (uname(&u) || hist_kernel_parse(u.release, &k))
		return HIST_KERNEL_LATEST;
	return k;
}

static int parse_args(struct state *st, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "+t:T:s:p:i:d:o:b:qh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 't':
			if (add_trigger(st, optarg, NULL))
				return EXIT_USAGE;
			break;
		case 'T':
			if (live_read_lines(optarg, add_line, st))
				return EXIT_USAGE;
			break;
		case 's':
			add_cmd(st, "synthetic_events", 16, optarg);
			break;
		case 'p':
			if (add_pid(st, optarg)) {
				fprintf(stderr, PROG ": -p wants a pid, got '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'i':
		case 'd':
			if (live_parse_seconds(optarg, c == 'i' ? &st->interval
							   : &st->duration)) {
				fprintf(stderr, PROG ": -%c wants seconds, got '%s'\n",
					c, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'o':
			st->output = optarg;
			break;
		case 'b':
			if (live_parse_kb(optarg, &st->buffer_kb)) {
				fprintf(stderr, PROG ": -b wants KiB, got '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_JSON:
			st->json = 1;
			break;
		case OPT_LISTEN:
			st->listen_spec = optarg;
			break;
		case OPT_FOLLOW:
			st->follow = 1;
			break;
		case OPT_DELTA:
			st->delta = 1;
			break;
		case OPT_NO_KFILTER:
			st->no_kfilter = 1;
			break;
		case OPT_TOP:
			st->top = 1;
			break;
		case OPT_TRACEFS:
			st->tracefs = optarg;
			break;
		case OPT_KERNEL: {
			uint32_t k;

			if (hist_kernel_parse(optarg, &k)) {
				fprintf(stderr, PROG ": --kernel wants 6.1, 6.12, "
					"latest or a version X.Y, got '%s'\n", optarg);
				return EXIT_USAGE;
			}
			st->kernel = optarg;
			break;
		}
		case OPT_CLEANUP:
			st->cleanup = 1;
			break;
		case 'q':
			st->quiet = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		case OPT_VERSION:
			printf(PROG " (libhist) %s\n", hist_version());
			return -1;
		default:
			fputs(usage_text, stderr);
			return EXIT_USAGE;
		}
	}
	st->argv = optind < argc ? argv + optind : NULL;
	if (st->cleanup)
		return 0;
	if (!st->nr_cmds) {
		fprintf(stderr, PROG ": no trigger given (-t, -T)\n");
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (st->delta && !st->interval) {
		fprintf(stderr, PROG ": --delta wants -i\n");
		return EXIT_USAGE;
	}
	if (st->follow && !st->argv && !st->nr_pids) {
		fprintf(stderr, PROG ": --follow wants -- COMMAND or -p PID\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* Block the signals we handle; they are let in only inside ppoll(). */
static void setup_signals(struct state *st)
{
	struct sigaction sa;
	sigset_t block;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&block);
	for (i = 0; i < sizeof(handled) / sizeof(handled[0]); i++) {
		sigaction(handled[i], &sa, NULL);
		sigaddset(&block, handled[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &st->orig_mask);
	st->wait_mask = st->orig_mask;
	for (i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		sigdelset(&st->wait_mask, handled[i]);
}

/* COMMAND still running when hist-live stops: it ends too. */
static void end_child(struct state *st)
{
	int status, i;

	if (st->child <= 0)
		return;
	release_command(st);
	kill(st->child, SIGTERM);
	for (i = 0; i < 100 && waitpid(st->child, &status, WNOHANG) == 0; i++)
		usleep(20000);
	if (i == 100) {
		kill(st->child, SIGKILL);
		waitpid(st->child, &status, 0);
	}
	st->child = 0;
	st->child_ended_by_us = 1;
}

int main(int argc, char **argv)
{
	struct state st;
	struct hist_host host;
	struct hist_ctx_opts opts;
	char err[512];
	int ret, status = EXIT_USAGE;
	size_t i;

	/* a fixed threshold: the ordered reader's copies (ring.c), grown in
	 * bursts and halved after, are their own mappings and go back to
	 * the system (glibc's sliding threshold moved them to the heap) */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	memset(&st, 0, sizeof(st));
	st.out = stdout;
	st.release_fd = -1;
	ret = parse_args(&st, argc, argv);
	if (ret) {
		status = ret < 0 ? EXIT_OK : ret;
		goto out_args;
	}
	setup_signals(&st);
	if (st.output && !(st.out = fopen(st.output, "w"))) {
		fprintf(stderr, PROG ": %s: %s\n", st.output, strerror(errno));
		st.out = stdout;
		goto out_args;
	}
	if (tfs_open(&st.tfs, st.tracefs, st.top || st.cleanup, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		status = EXIT_NOTRACE;
		goto out_file;
	}
	ret = tfs_reap(st.tfs.root, PROG, st.quiet && !st.cleanup);
	if (st.cleanup) {
		status = ret < 0 ? EXIT_TRACEFAIL : EXIT_OK;
		goto out;
	}
	st.host = host_create(&st.tfs);
	memset(&opts, 0, sizeof(opts));
	opts.nr_cpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	opts.kernel = kernel_version(st.kernel);
	if (st.host) {
		host_fill(st.host, &host);
		st.ctx = hist_ctx_create(&host, &opts, &ret);
	}
	if (!st.ctx) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	apply_cmds(&st);
	if (st.delta && clear_all(&st, 0))
		goto out;
	if (open_pidfds(&st))
		goto out;
	ret = size_buffers(&st);
	if (ret) {
		status = ret == -EACCES || ret == -EPERM ? EXIT_NOTRACE : EXIT_USAGE;
		goto out;
	}
	st.ring = ring_open(&st.tfs, err, sizeof(err));
	if (!st.ring) {
		fprintf(stderr, PROG ": %s\n", err);
		status = EXIT_NOTRACE;
		goto out;
	}
	st.printed_lost = calloc(ring_nr_cpus(st.ring), sizeof(*st.printed_lost));
	if (!st.printed_lost) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	if (st.argv && fork_command(&st))
		goto out;
	ret = start_tracing(&st);
	if (ret) {
		status = ret == -EACCES || ret == -EPERM ? EXIT_NOTRACE : EXIT_USAGE;
		goto out;
	}
	st.start = st.last_print = now();
	if (!st.quiet)
		fprintf(stderr, PROG ": running%s\n", st.argv || st.duration ||
			st.nr_pids ? "" : "; Ctrl-C to stop");
	release_command(&st);
	if (st.listen_spec) {
		char lerr[256];

		st.srv = listen_start_polled(st.listen_spec, live_render, &st, lerr, sizeof(lerr));
		if (!st.srv) {
			fprintf(stderr, PROG ": %s\n", lerr);
			status = EXIT_USAGE;
			goto out;
		}
		fprintf(stderr, PROG ": serving /metrics on port %u\n", listen_port(st.srv));
	}
	ret = loop(&st);
	listen_stop(st.srv);
	st.srv = NULL;
	if (ret) {
		status = st.out_closed ? 128 + SIGPIPE : EXIT_TRACEFAIL;
		goto out;
	}
	if (st.child > 0)
		end_child(&st);
	if (stop_sig == SIGPIPE || stop_sig == SIGQUIT) {
		status = 128 + stop_sig;	/* no one to print to, or asked not to */
		goto out;
	}
	if (print_all(&st, 1)) {
		status = st.out_closed ? 128 + SIGPIPE : EXIT_TRACEFAIL;
		goto out;
	}
	size_warning(&st);
	status = st.rejected ? EXIT_REJECTED :
		 st.child_done && !st.child_ended_by_us ? st.child_status : EXIT_OK;
out:
	end_child(&st);
	release_command(&st);
	ring_close(st.ring);
	tfs_close(&st.tfs);
	hist_ctx_destroy(st.ctx);
	host_free(st.host);
	free(st.printed_lost);
	free(st.drain_pages);
out_file:
	if (st.out != stdout)
		fclose(st.out);
out_args:
	for (i = 0; i < st.nr_cmds; i++) {
		free(st.cmds[i].target);
		free(st.cmds[i].text);
	}
	free(st.cmds);
	for (i = 0; i < st.nr_pids; i++)
		if (st.pids[i].fd >= 0)
			close(st.pids[i].fd);
	free(st.pids);
	return status;
}
