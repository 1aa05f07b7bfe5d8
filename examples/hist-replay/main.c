/* SPDX-License-Identifier: MIT */
/*
 * hist-replay: run Linux ftrace hist triggers over a recorded trace.dat.
 *
 * The kernel's hist triggers aggregate events as they happen; this tool
 * feeds the events of a recording (trace-cmd's trace.dat) through libhist
 * instead, so the same trigger commands give the histograms the kernel
 * would have printed for the same events.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "args.h"
#include "replay.h"

#define PROG "hist-replay"

/* The trace is damaged or cut short; the histograms of every record
 * before the damage were printed (documented in hist-replay.1). */
#define EXIT_DAMAGED 3

static const char usage_text[] =
	"usage: " PROG " [OPTIONS] [TRACE.dat]\n"
	"\n"
	"TRACE.dat '-' reads the recording from standard input; none: ./trace.dat,\n"
	"else ./perf.data.\n"
	"Replay the records of TRACE.dat through Linux hist triggers (libhist)\n"
	"and print each event's hist file, as `cat events/*/*/hist` would.\n"
	"TRACE.dat may also be a perf.data (perf record -e SYSTEM:EVENT), or\n"
	"the directory perf record --threads writes.\n"
	"\n"
	"  -t, --trigger 'SYSTEM/EVENT COMMAND'\n"
	"                        attach a trigger command (repeatable, applied in\n"
	"                        order); SYSTEM:EVENT works too\n"
	"  -T, --trigger-file FILE\n"
	"                        lines 'TARGET<TAB>TEXT' (the conformance cases'\n"
	"                        `triggers` format); TARGET is SYSTEM/EVENT or a\n"
	"                        tracefs file: synthetic_events, dynamic_events,\n"
	"                        kprobe_events, /events/SYS/EVENT/filter, ...;\n"
	"                        '#' lines are comments\n"
	"  -s, --synth 'DEFINITION'\n"
	"                        define a synthetic event (repeatable)\n"
	"  -S, --synth-file FILE one synthetic event definition per line\n"
	"  -o, --output DIR      write DIR/events/SYSTEM/EVENT/hist and trigger for\n"
	"                        every event written to, DIR/error_log and\n"
	"                        DIR/synthetic_events\n"
	"      --at-marker 'TEXT<TAB>TARGET<TAB>COMMAND'\n"
	"                        write COMMAND to TARGET when the replay reaches the\n"
	"                        trace_marker (ftrace:print) record whose text is\n"
	"                        TEXT (repeatable)\n"
	"      --marker-sync     apply --at-marker writes at the marker writer's\n"
	"                        next write(2) entry when the recording has system\n"
	"                        call entries (`echo CMD >> trigger` right after\n"
	"                        the marker takes effect inside that write)\n"
	"      --map-bits N      allow maps of up to 2^N entries (kernel: 17)\n"
	"      --sums MODE       where maps keep their sums: auto (default: per\n"
	"                        cpu up to the kernel's largest size=, shared past\n"
	"                        it), per-cpu, or shared (once per entry, as the\n"
	"                        kernel does); the output is the same\n"
	"      --kernel VERSION  accept, reject, log and print as Linux VERSION\n"
	"                        does: 6.1, 6.12 or latest (another X.Y behaves\n"
	"                        as the nearest of them below it); default: the\n"
	"                        recording's kernel (its uname), else latest\n"
	"      --instance NAME   replay the ring buffer of instance NAME (trace-cmd\n"
	"                        record -B NAME); '' or top: the top buffer.\n"
	"                        Default: the top buffer, or the one instance\n"
	"                        with records when the top buffer has none\n"
	"      --kallsyms FILE   resolve kernel addresses (.sym keys, stacktrace)\n"
	"                        of a perf.data with FILE: a copy of the recorded\n"
	"                        machine's /proc/kallsyms, plain or zstd-compressed\n"
	"                        (perf.data holds none; default: /proc/kallsyms\n"
	"                        when the recording is of the running kernel)\n"
	"      --pid PID         a system-wide recording (perf -a, trace-cmd without\n"
	"                        -P): feed only the records the kernel's pid filter\n"
	"                        would pass with set_event_pid=PID and\n"
	"                        options/event-fork=1 (PID and the tasks forked from\n"
	"                        it; a sched_switch to or from one of them, a waking\n"
	"                        or wakeup of one of them)\n"
	"      --list            list the recording's buffers, their events with\n"
	"                        record counts and each event's fields; no replay\n"
	"      --cpu LIST        feed only the records of these CPUs (0,2-3)\n"
	"      --from T, --to T  feed only the records from T on / before T:\n"
	"                        seconds after the first record (1.5), or with\n"
	"                        '@' a time stamp as trace-cmd report prints it\n"
	"                        (@2076.044615)\n"
	"      --interval S      print the tables every S seconds of the\n"
	"                        recording and start them empty again: the\n"
	"                        windows add up to the whole (with --json:\n"
	"                        a document per window, one per line)\n"
	"      --json            print the histograms as JSON instead of the\n"
	"                        kernel's text (with -o: DIR/hist.json)\n"
	"      --openmetrics[=text]  print them as OpenMetrics text (with -o:\n"
	"                        DIR/metrics); =text: the Prometheus text format\n"
	"      --quantiles LIST  add these quantiles (0.5,0.99) of every numeric\n"
	"                        key to --json and --openmetrics\n"
	"      --listen [ADDR:]PORT  after the replay, serve the tables as\n"
	"                        OpenMetrics on http://ADDR:PORT/metrics until\n"
	"                        SIGINT/SIGTERM (ADDR: 127.0.0.1)\n"
	"  -h, --help            this text\n"
	"      --version         print the version\n"
	"\n"
	"Synthetic event definitions (-s, -S) are applied first, then the\n"
	"triggers (-t, -T), each group in command-line order.  Definitions of\n"
	"events the recording already describes (kprobe_events lines) are\n"
	"accepted as no-ops.  A command the kernel would reject does not stop\n"
	"the replay: its error_log entry goes to stderr (and DIR/error_log).\n"
	"\n"
	"Events the kernel lost while recording (the file's own loss records)\n"
	"are counted per CPU on stderr ('# lost: ...') and in the JSON 'lost'.\n"
	"A map that fills drops hits: a warning gives the count and the size=\n"
	"(and --map-bits) that would hold them.\n"
	"\n"
	"Exit status: 0 success; 1 a command was rejected; 2 bad usage, an\n"
	"unreadable trace or an output error; 3 the trace is damaged or cut\n"
	"short: the histograms of every record before the damage are printed\n"
	"and a warning says where the damage is (3 wins over 1).\n";

enum {
	OPT_AT_MARKER = 256,
	OPT_JSON,
	OPT_VERSION,
	OPT_MARKER_SYNC,
	OPT_MAP_BITS,
	OPT_SUMS,
	OPT_KERNEL,
	OPT_INSTANCE,
	OPT_LIST,
	OPT_CPU,
	OPT_FROM,
	OPT_TO,
	OPT_INTERVAL,
	OPT_OPENMETRICS,
	OPT_QUANTILES,
	OPT_LISTEN,
	OPT_KALLSYMS,
	OPT_PID,
};

static const struct option long_opts[] = {
	{ "trigger", required_argument, NULL, 't' },
	{ "trigger-file", required_argument, NULL, 'T' },
	{ "synth", required_argument, NULL, 's' },
	{ "synth-file", required_argument, NULL, 'S' },
	{ "output", required_argument, NULL, 'o' },
	{ "at-marker", required_argument, NULL, OPT_AT_MARKER },
	{ "marker-sync", no_argument, NULL, OPT_MARKER_SYNC },
	{ "map-bits", required_argument, NULL, OPT_MAP_BITS },
	{ "sums", required_argument, NULL, OPT_SUMS },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "instance", required_argument, NULL, OPT_INSTANCE },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "openmetrics", optional_argument, NULL, OPT_OPENMETRICS },
	{ "quantiles", required_argument, NULL, OPT_QUANTILES },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

struct state {
	struct cmds synth, trig;
	struct marker *markers;
	size_t nr_markers, markers_cap;
	const char *outdir;
	int json;
	struct replay_buf errlog;	/* every entry, for DIR/error_log */
	int failed;
	int damaged;			/* replay_run() met damage */
	const char *trace;		/* as named on the command line */
	uint32_t max_map_bits;
	int window;			/* JSON: the window fields below */
	uint64_t win_index, win_start, win_end;
	struct replay *r;
	int out_failed;			/* a window's output failed */
	uint8_t *cpu_set;
};

#define ECHO_MAX 256

/* Report a failed write: our line, then its error_log entries. */
static void report(struct state *st, const char *where, const char *marker,
		   const char *target, const char *text, int rc,
		   const char *errlog, const char *msg)
{
	if (rc == 0) {
		if (errlog && errlog[0]) {
			/* accepted but logged (rare): keep the log complete */
			fputs(errlog, stderr);
			replay_buf_puts(&st->errlog, errlog);
		}
		return;
	}
	st->failed = 1;
	if (marker)
		fprintf(stderr, PROG ": at marker '%s': ", marker);
	else
		fprintf(stderr, PROG ": %s: ", where);
	/* a command of megabytes is named by its start and its length */
	if (strlen(text) > ECHO_MAX)
		fprintf(stderr, "%s: '%.*s...' (%zu bytes): %s%s%s\n", target,
			ECHO_MAX, text, strlen(text), strerror(-rc),
			msg ? ": " : "", msg ? msg : "");
	else
		fprintf(stderr, "%s: '%s': %s%s%s\n", target, text, strerror(-rc),
			msg ? ": " : "", msg ? msg : "");
	if (errlog && errlog[0]) {
		fputs(errlog, stderr);
		replay_buf_puts(&st->errlog, errlog);
	}
}

static void on_marker_write(void *arg, const struct replay_write_res *res)
{
	report(arg, NULL, res->marker, res->target, res->text, res->rc,
	       res->errlog, res->msg);
}

static void free_state(struct state *st)
{
	size_t i;

	cmds_free(&st->synth);
	cmds_free(&st->trig);
	for (i = 0; i < st->nr_markers; i++) {
		free(st->markers[i].text);
		free(st->markers[i].target);
		free(st->markers[i].cmd);
	}
	free(st->markers);
	replay_buf_free(&st->errlog);
	free(st->cpu_set);
}

static int cmp_ev(const void *a, const void *b)
{
	const struct replay_out_ev *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		buf[i] = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		buf[i] = path[i];
	}
	return 0;
}

/*
 * The files under -o DIR are made relative to DIR's descriptor: DIR may
 * be as long as a path can be, the names under it are never cut short.
 * REL names the file for DIR (messages say DIR/REL).
 */
struct outdir {
	int fd;
	const char *name;
};

static void out_error(const struct outdir *o, const char *rel)
{
	fprintf(stderr, PROG ": %s/%s: %s\n", o->name, rel, strerror(errno));
}

static int mkdirat_p(const struct outdir *o, const char *rel)
{
	char buf[1024];
	size_t i, n = strlen(rel);

	if (n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		out_error(o, rel);
		return -1;
	}
	memcpy(buf, rel, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		buf[i] = 0;
		if (mkdirat(o->fd, buf, 0777) && errno != EEXIST) {
			out_error(o, buf);
			return -1;
		}
		buf[i] = rel[i];
	}
	return 0;
}

static FILE *out_open(const struct outdir *o, const char *rel)
{
	int fd = openat(o->fd, rel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;

	if (!f) {
		out_error(o, rel);
		if (fd >= 0)
			close(fd);
	}
	return f;
}

static int write_file(const struct outdir *o, const char *rel, const char *data,
		      size_t len)
{
	FILE *f = out_open(o, rel);

	if (!f)
		return -1;
	if ((len && fwrite(data, 1, len, f) != len) | fclose(f)) {
		out_error(o, rel);
		return -1;
	}
	return 0;
}

static int print_event(hist_event *ev, int triggers, struct replay_buf *b)
{
	int rc;

	replay_buf_reset(b);
	rc = triggers ? hist_event_print_triggers(ev, replay_buf_write, b) :
			hist_event_print_hist(ev, replay_buf_write, b);
	if (rc)
		fprintf(stderr, PROG ": printing failed: %s\n", strerror(-rc));
	return rc ? -1 : 0;
}

static int write_json(struct state *st, struct replay *r, FILE *f,
		      const struct replay_out_ev *evs, size_t n, const char *trace)
{
	struct replay_doc doc;

	memset(&doc, 0, sizeof(doc));
	doc.trace = trace;
	doc.instance = replay_instance(r);
	doc.records = replay_nr_records(r);
	doc.evs = evs;
	doc.n = n;
	doc.errlog = st->errlog.s ? st->errlog.s : "";
	doc.td = replay_tracedat(r);
	doc.damage = st->damaged ? replay_error(r) : NULL;
	doc.window = st->window;
	doc.win_index = st->win_index;
	doc.win_start = st->win_start;
	doc.win_end = st->win_end;
	return replay_json(f, &doc);
}

static int write_outdir(struct state *st, struct replay *r,
			const struct replay_out_ev *evs, size_t n,
			const char *trace)
{
	struct replay_buf b = { 0 };
	struct outdir o = { -1, st->outdir };
	char rel[1024];
	size_t i;
	int ret = 0;

	if (mkdir_p(st->outdir) ||
	    (o.fd = open(st->outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		fprintf(stderr, PROG ": %s: %s\n", st->outdir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n && !ret; i++) {
		/* event names come from the recording: bounded by the buffer */
		if ((size_t)snprintf(rel, sizeof(rel) - 8, "events/%s/%s", evs[i].system,
				     evs[i].name) >= sizeof(rel) - 8) {
			fprintf(stderr, PROG ": event name too long: %s/%s\n",
				evs[i].system, evs[i].name);
			ret = -1;
			break;
		}
		if (mkdirat_p(&o, rel)) {
			ret = -1;
			break;
		}
		strcat(rel, "/hist");
		if (print_event(evs[i].ev, 0, &b) ||
		    write_file(&o, rel, b.s ? b.s : "", b.len))
			ret = -1;
		strcpy(strrchr(rel, '/'), "/trigger");
		if (!ret && (print_event(evs[i].ev, 1, &b) ||
			     write_file(&o, rel, b.s ? b.s : "", b.len)))
			ret = -1;
	}
	if (!ret)
		ret = write_file(&o, "error_log", st->errlog.s ? st->errlog.s : "",
				 st->errlog.len);
	if (!ret && st->synth.n) {
		replay_buf_reset(&b);
		if (hist_synth_print(replay_ctx(r), 0, replay_buf_write, &b) ||
		    write_file(&o, "synthetic_events", b.s ? b.s : "", b.len))
			ret = -1;
	}
	if (!ret && st->json) {
		const char *name = st->json == 2 ? "metrics" : "hist.json";
		FILE *f = out_open(&o, name);

		if (!f) {
			ret = -1;
		} else {
			if (st->json == 2)
				ret = replay_openmetrics(f, evs, n, replay_tracedat(r));
			else
				ret = write_json(st, r, f, evs, n, trace);
			if (fclose(f) && !ret) {
				out_error(&o, name);
				ret = -1;
			}
		}
	}
	close(o.fd);
	replay_buf_free(&b);
	return ret;
}

static int print_stdout(struct state *st, struct replay *r,
			const struct replay_out_ev *evs, size_t n,
			const char *trace)
{
	struct replay_buf b = { 0 };
	size_t i;
	int ret = 0;

	if (st->json == 2) {
		ret = replay_openmetrics(stdout, evs, n, replay_tracedat(r));
	} else if (st->json) {
		ret = write_json(st, r, stdout, evs, n, trace);
	} else {
		for (i = 0; i < n && !ret; i++) {
			if (print_event(evs[i].ev, 0, &b))
				ret = -1;
			else if (b.len && fwrite(b.s, 1, b.len, stdout) != b.len)
				ret = -1;
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": standard output: %s\n", strerror(errno));
		ret = -1;
	}
	replay_buf_free(&b);
	return ret;
}

/* "# lost: CPU 0 15458, total 15458" when the recording lost events. */
/* A raw time stamp as trace-cmd report prints it: @SECONDS.MICROS. */
static void shown_ts(struct replay *r, uint64_t raw, char *buf, size_t len)
{
	uint64_t t = raw + (uint64_t)hist_tracedat_ts_offset(replay_tracedat(r));

	snprintf(buf, len, "@%llu.%06llu", (unsigned long long)(t / 1000000000),
		 (unsigned long long)(t % 1000000000 / 1000));
}

/* --pid that passes no record: a pid absent from the recording would
 * otherwise print empty tables without a word. */
static void warn_empty_gate(struct replay *r, const struct replay_opts *ro)
{
	if (ro->pid_gate && !replay_nr_records(r))
		fprintf(stderr, PROG ": warning: --pid %d passes no record: neither it nor "
			"a task forked from it has an event in the recording\n",
			(int)ro->pid_gate);
}

/* --from/--to that select no record at all: say where the records are,
 * rather than print empty tables without a word. */
static void warn_empty_span(struct replay *r, const struct replay_opts *ro)
{
	uint64_t first, last;
	char a[40], b[40];

	if (!ro->from && !ro->from_abs && !ro->to && !ro->to_abs)
		return;
	if (replay_span(r, &first, &last) || !first)
		return;
	shown_ts(r, first, a, sizeof(a));
	if (!replay_nr_records(r)) {
		fprintf(stderr, PROG ": warning: --to ends before the first record (%s): "
			"no record replayed\n", a);
		return;
	}
	shown_ts(r, last, b, sizeof(b));
	fprintf(stderr, PROG ": warning: --from/--to select no record; the "
		"records read run from %s to %s (0 .. %llu.%06llu s)\n", a, b,
		(unsigned long long)((last - first) / 1000000000),
		(unsigned long long)((last - first) % 1000000000 / 1000));
}

/*
 * --cpu naming CPUs the recording does not have: an error when none of
 * the list is there (every table would be empty), else a warning.
 * 0, or -1 after the message.
 */
static int check_cpus(struct replay *r, const struct replay_opts *ro, const char *arg)
{
	uint32_t nr = hist_tracedat_nr_cpus(replay_tracedat(r)), cpu, in = 0, out = 0;
	char have[40];

	for (cpu = 0; cpu < ro->nr_cpu_set; cpu++) {
		if (!ro->cpu_set[cpu])
			continue;
		if (cpu < nr)
			in++;
		else
			out++;
	}
	if (!out)
		return 0;
	if (nr > 1)
		snprintf(have, sizeof(have), "CPUs 0-%u", nr - 1);
	else
		snprintf(have, sizeof(have), nr ? "CPU 0 only" : "no CPU data");
	fprintf(stderr, PROG ": %s--cpu %s: the recording has %s%s\n", in ? "warning: " : "",
		arg, have, in ? "; the others have no records" : "");
	return in ? 0 : -1;
}

static void report_lost(struct replay *r)
{
	struct hist_tracedat *td = replay_tracedat(r);
	uint32_t cpu, nr = hist_tracedat_nr_cpus(td);
	uint64_t total = 0, places = 0;

	for (cpu = 0; cpu < nr; cpu++) {
		total += hist_tracedat_lost(td, cpu);
		places += hist_tracedat_lost_unknown(td, cpu);
	}
	if (!total && !places)
		return;
	fputs("# lost:", stderr);
	for (cpu = 0; cpu < nr; cpu++) {
		uint64_t l = hist_tracedat_lost(td, cpu),
			 u = hist_tracedat_lost_unknown(td, cpu);

		if (!l && !u)
			continue;
		fprintf(stderr, " CPU %u %llu", cpu, (unsigned long long)l);
		if (u)
			fprintf(stderr, " (+ %llu unknown)", (unsigned long long)u);
		fputc(',', stderr);
	}
	fprintf(stderr, " total %llu", (unsigned long long)total);
	if (places)
		fprintf(stderr, " and %llu places that lost an unknown number",
			(unsigned long long)places);
	fputs(" events\n", stderr);
}

/*
 * A map that filled up dropped hits: say how many and what size= would
 * have held them.  Each dropped hit may be a new key, so entries + dropped
 * keys always fit (the kernel rounds size= up to a power of two).
 */
static void warn_dropped(const struct replay_opts *ro,
			 const struct replay_out_ev *evs, size_t n)
{
	uint32_t max_bits = ro->max_map_bits ? ro->max_map_bits : 17;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned k, nh = hist_event_nr_hists(evs[i].ev);

		for (k = 0; k < nh; k++) {
			hist_reader *rd = hist_reader_create(evs[i].ev, k, NULL);
			const struct hist_read_info *inf;
			uint64_t need;
			uint32_t bits = 7;

			if (!rd)
				continue;
			inf = hist_reader_info(rd);
			if (!inf->dropped) {
				hist_reader_destroy(rd);
				continue;
			}
			need = inf->entries + inf->dropped;
			while (bits < 40 && (UINT64_C(1) << bits) < need)
				bits++;
			fprintf(stderr, PROG ": warning: %s/%s: '%s': the map is full: "
				"%llu hits dropped (%llu entries)", evs[i].system,
				evs[i].name, inf->trigger,
				(unsigned long long)inf->dropped,
				(unsigned long long)inf->entries);
			if (bits > 24)
				fputs("; more keys than hist-replay's largest map "
				      "(--map-bits 24)\n", stderr);
			else if (bits > max_bits)
				fprintf(stderr, "; size=%llu with --map-bits %u "
					"holds them\n",
					(unsigned long long)(UINT64_C(1) << bits), bits);
			else
				fprintf(stderr, "; size=%llu holds them\n",
					(unsigned long long)(UINT64_C(1) << bits));
			hist_reader_destroy(rd);
		}
	}
}

static int cmp_fe(const void *a, const void *b)
{
	const struct hist_ftrace_event *x = *(const struct hist_ftrace_event *const *)a;
	const struct hist_ftrace_event *y = *(const struct hist_ftrace_event *const *)b;
	int c = strcmp(x->desc.system, y->desc.system);

	return c ? c : strcmp(x->desc.name, y->desc.name);
}

/*
 * An event with triggers but no records in the buffer replayed may have
 * them in another (trace-cmd record -B): say where, instead of a silent
 * "Hits: 0".  Only then are the other buffers walked.
 */
static void hint_other_buffers(struct replay *r, const char *trace,
			       const struct replay_out_ev *evs, size_t n, int32_t pid_gate)
{
	struct hist_tracedat *td = replay_tracedat(r), *other;
	const struct hist_ftrace_event **zero;
	struct hist_ftrace_record rec;
	char err[512];
	size_t i, nz = 0;
	uint32_t b, nb = hist_tracedat_nr_buffers(td);
	uint64_t *cnt;
	int ret, *elsewhere;

	zero = calloc(n ? n : 1, sizeof(*zero));
	cnt = calloc(n ? n : 1, sizeof(*cnt));
	elsewhere = calloc(n ? n : 1, sizeof(*elsewhere));
	if (!zero || !cnt || !elsewhere)
		die_oom();
	for (i = 0; i < n; i++) {
		const struct hist_ftrace_event *fe =
			hist_tracedat_find_event(td, evs[i].system, evs[i].name);

		if (fe && !replay_records_of(r, fe->desc.id))
			zero[nz++] = fe;
	}
	other = nz && nb > 1 ? hist_tracedat_open(trace, err, sizeof(err)) : NULL;
	for (b = 0; other && b < nb; b++) {
		const char *name = hist_tracedat_buffer_name(other, b);

		if (!strcmp(name, replay_instance(r)) ||
		    hist_tracedat_select_buffer(other, name))
			continue;
		memset(cnt, 0, nz * sizeof(*cnt));
		while ((ret = hist_tracedat_next(other, &rec)) != 0)
			for (i = 0; ret > 0 && i < nz; i++)
				if (rec.type == zero[i]->desc.id)
					cnt[i]++;
		for (i = 0; i < nz; i++)
			if (cnt[i]) {
				elsewhere[i] = 1;
				fprintf(stderr, PROG ": note: %s:%s has no records in the %s%s%s "
					"buffer; %s%s%s has %llu (--instance %s)\n",
					zero[i]->desc.system, zero[i]->desc.name,
					replay_instance(r)[0] ? "'" : "",
					replay_instance(r)[0] ? replay_instance(r) : "top",
					replay_instance(r)[0] ? "'" : "",
					name[0] ? "instance '" : "the top buffer", name,
					name[0] ? "'" : "", (unsigned long long)cnt[i],
					name[0] ? name : "top");
			}
	}
	/* the format is in the file, the records are not: a table of zeros
	 * that says why (a buffer that could not be scanned says nothing) */
	for (i = 0; i < nz && (nb < 2 || other); i++) {
		if (elsewhere[i])
			continue;
		if (pid_gate)	/* the recording may have them: not for the pid */
			fprintf(stderr, PROG ": note: %s:%s has no records that --pid %d "
				"passes\n", zero[i]->desc.system, zero[i]->desc.name,
				(int)pid_gate);
		else
			fprintf(stderr, PROG ": note: %s:%s has no records in the recording "
				"(it was not enabled, or never hit; --list shows the events "
				"with records)\n", zero[i]->desc.system, zero[i]->desc.name);
	}
	hist_tracedat_close(other);
	free(zero);
	free(cnt);
	free(elsewhere);
}

/* --list, one buffer: its events with records, and their fields. */
static int list_buffer(struct hist_tracedat *td, const char *name,
		       uint64_t *seen)
{
	uint32_t nr = hist_tracedat_nr_events(td), i, k, nev = 0;
	const struct hist_ftrace_event **evs = calloc(nr ? nr : 1, sizeof(*evs));
	uint64_t *counts = calloc(65536, sizeof(*counts)), records = 0, other = 0;
	struct hist_ftrace_record rec;
	int ret, damaged = 0;

	if (!evs || !counts)
		die_oom();
	if (hist_tracedat_select_buffer(td, name)) {
		printf("buffer %s%s%s: cannot be read: %s\n", name[0] ? "'" : "",
		       name[0] ? name : "'' (top)", name[0] ? "'" : "", hist_tracedat_error(td));
		free(evs);
		free(counts);
		return EXIT_DAMAGED;	/* the others were listed */
	}
	while ((ret = hist_tracedat_next(td, &rec)) != 0) {
		if (ret < 0) {
			if (!damaged++)
				fprintf(stderr, PROG ": warning: %s\n", hist_tracedat_error(td));
			if (damaged >= 1000)
				break;
			continue;
		}
		records++;
		counts[rec.type]++;
	}
	for (i = 0; i < nr; i++) {
		const struct hist_ftrace_event *fe = hist_tracedat_event(td, i);

		if (fe && fe->desc.id < 65536 && counts[fe->desc.id] &&
		    hist_tracedat_event_by_id(td, fe->desc.id) == fe)
			evs[nev++] = fe;
	}
	qsort(evs, nev, sizeof(*evs), cmp_fe);
	for (i = 0; i < nev; i++)
		other += counts[evs[i]->desc.id];
	printf("buffer %s%s%s: %u CPUs, clock %s, %llu records\n", name[0] ? "'" : "",
	       name[0] ? name : "'' (top)", name[0] ? "'" : "", hist_tracedat_nr_cpus(td),
	       hist_tracedat_clock(td)[0] ? hist_tracedat_clock(td) : "unknown",
	       (unsigned long long)records);
	for (i = 0; i < nev; i++) {
		const struct hist_event_desc *d = &evs[i]->desc;

		seen[d->id / 64] |= UINT64_C(1) << (d->id % 64);
		printf("  %s:%s  %llu records (id %u)\n", d->system, d->name,
		       (unsigned long long)counts[d->id], d->id);
		for (k = 0; k < d->nr_fields; k++) {
			const struct hist_field_desc *f = &d->fields[k];

			printf("    %-28s %-24s offset %u, size %u%s\n", f->name, f->type,
			       f->offset, f->size, f->is_signed ? ", signed" : "");
		}
	}
	if (records > other)
		printf("  (%llu records of events the file has no format for)\n",
		       (unsigned long long)(records - other));
	free(evs);
	free(counts);
	return damaged ? EXIT_DAMAGED : 0;
}

/* --list: every buffer (or only INSTANCE), its events and fields. */
static int list_recording(const char *trace, const char *instance)
{
	char err[512];
	struct hist_tracedat *td = hist_tracedat_open(trace, err, sizeof(err));
	uint64_t *seen = calloc(65536 / 64, sizeof(*seen));
	uint32_t i, n, unseen = 0;
	int status = 0, rc;

	if (!seen)
		die_oom();
	if (!td) {
		fprintf(stderr, PROG ": %s: %s\n", trace, err);
		free(seen);
		return 2;
	}
	n = hist_tracedat_nr_buffers(td);
	if (instance && !(instance = replay_buffer_named(td, instance, err, sizeof(err)))) {
		fprintf(stderr, PROG ": %s: %s\n", trace, err);
		hist_tracedat_close(td);
		free(seen);
		return 2;
	}
	for (i = 0; i < n; i++) {
		const char *name = hist_tracedat_buffer_name(td, i);

		if (instance && strcmp(instance, name))
			continue;
		rc = list_buffer(td, name, seen);
		if (rc > status)
			status = rc;
	}
	for (i = 0; i < hist_tracedat_nr_events(td); i++) {
		const struct hist_ftrace_event *fe = hist_tracedat_event(td, i);

		if (fe && (fe->desc.id >= 65536 ||
			   !(seen[fe->desc.id / 64] & (UINT64_C(1) << (fe->desc.id % 64)))))
			unseen++;
	}
	printf("# %u more event formats in the file have no records%s\n", unseen,
	       instance ? " in this buffer" : "");
	if (fflush(stdout) || ferror(stdout))
		status = 2;
	hist_tracedat_close(td);
	free(seen);
	return status;
}

/*
 * '-': standard input into an anonymous file, so the recording can be
 * mapped and read twice (the task-name pass) like a file on disk.
 * The copy is in memory, so what is not a recording is refused at its
 * first bytes (`- < /dev/zero` filled memory without end), and a
 * terminal is refused before it waits for typing.
 * Returns its /proc path in BUF, or NULL with a message.
 */
static const char *stdin_file(char *buf, size_t len)
{
	char chunk[1 << 16];
	ssize_t got;
	size_t total = 0;
	int fd;

	if (isatty(0)) {
		fprintf(stderr, PROG ": standard input is a terminal: '-' reads a recording "
			"piped in (trace-cmd record -o - ... | " PROG " ... -)\n");
		return NULL;
	}
	fd = (int)syscall(SYS_memfd_create, "hist-replay-stdin", 0);
	if (fd < 0) {
		fprintf(stderr, PROG ": standard input: cannot make a file for it: %s\n",
			strerror(errno));
		return NULL;
	}
	/* the first 10 bytes whole before the magic is judged */
	while (total < 10 && (got = read(0, chunk + total, 10 - total)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		total += (size_t)got;
	}
	if (total >= 10 && !hist_tracedat_is_recording(chunk, total)) {
		fprintf(stderr, PROG ": standard input: not a trace.dat or perf.data "
			"recording (bad magic); nothing replayed\n");
		close(fd);
		return NULL;
	}
	if (total && write(fd, chunk, total) != (ssize_t)total)
		goto fail;
	while (total >= 10 && (got = read(0, chunk, sizeof(chunk))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || write(fd, chunk, (size_t)got) != got)
			goto fail;
		total += (size_t)got;
	}
	if (!total) {
		fprintf(stderr, PROG ": standard input is empty: no recording to read "
			"(did the recorder fail?)\n");
		close(fd);
		return NULL;
	}
	/* the descriptor stays open for the life of the process */
	snprintf(buf, len, "/proc/self/fd/%d", fd);
	return buf;
fail:
	fprintf(stderr, PROG ": standard input: %s\n", strerror(errno));
	close(fd);
	return NULL;
}

static struct replay_out_ev *collect_events(struct replay *r, size_t *nr)
{
	size_t n = replay_nr_events(r), i, k;
	struct replay_out_ev *evs = calloc(n ? n : 1, sizeof(*evs));

	if (!evs)
		die_oom();
	for (i = 0, k = 0; i < n; i++) {
		evs[k].ev = replay_event(r, i, &evs[k].system, &evs[k].name);
		/* a synthetic event removed by a later write has no files */
		if (evs[k].ev)
			k++;
	}
	/* the order of `cat events/ * / * /hist`: by system, then event */
	qsort(evs, k, sizeof(*evs), cmp_ev);
	*nr = k;
	return evs;
}

/* --interval: one window's tables, before the engine clears them. */
static void on_window(void *arg, uint64_t index, uint64_t start, uint64_t end)
{
	struct state *st = arg;
	struct replay *r = st->r;
	uint64_t t0 = replay_first_ts(r), a = start - t0, b = end - t0;
	struct replay_opts none;
	size_t n;
	struct replay_out_ev *evs = collect_events(r, &n);

	memset(&none, 0, sizeof(none));
	none.max_map_bits = st->max_map_bits;
	warn_dropped(&none, evs, n);
	if (st->json) {
		st->window = 1;
		st->win_index = index;
		st->win_start = start;
		st->win_end = end;
		/* met in this window or before: the run ends with exit 3 */
		st->damaged = replay_error(r)[0] != '\0';
	} else {
		printf("# window %llu: %llu.%06llu .. %llu.%06llu s after the first record\n",
		       (unsigned long long)index, (unsigned long long)(a / 1000000000),
		       (unsigned long long)(a % 1000000000 / 1000),
		       (unsigned long long)(b / 1000000000),
		       (unsigned long long)(b % 1000000000 / 1000));
	}
	if (print_stdout(st, r, evs, n, st->trace))
		st->out_failed = 1;
	if (!st->json)
		putchar('\n');
	free(evs);
}

int main(int argc, char **argv)
{
	struct state st;
	struct replay_opts ro;
	struct replay *r = NULL;
	struct replay_out_ev *evs = NULL;
	char err[1024];
	const char *trace, *path, *listen_spec = NULL, *cpu_arg = NULL;
	char stdin_path[64];
	size_t i, n;
	int c, status = 2, rc, list = 0;

#ifdef __GLIBC__
	/*
	 * A hist's tables (about 130 KiB at size=2048) are touched only where
	 * entries land.  glibc serves them from mmap, untouched pages free,
	 * until a large free raises its threshold; from then on they come
	 * from the heap, zeroed by calloc, and every hist costs its whole
	 * tables: 1,000 triggers on one event took 53 MB, 2,000 took 276 MB
	 * and 8,000 1.09 GB.  With a fixed threshold: 103 MB and 403 MB.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	memset(&st, 0, sizeof(st));
	memset(&ro, 0, sizeof(ro));
	ro.kernel = REPLAY_KERNEL_AUTO;
	while ((c = getopt_long(argc, argv, "t:T:s:S:o:h", long_opts,
				NULL)) != -1) {
		const char *text;
		size_t tlen;

		switch (c) {
		case 't':
			if (split_target(optarg, &text, &tlen)) {
				fprintf(stderr, PROG ": -t wants 'SYSTEM/EVENT "
					"COMMAND', got '%s'\n", optarg);
				goto out;
			}
			cmds_add(&st.trig, optarg, tlen, text, "-t");
			break;
		case 'T':
			if (load_lines(optarg, 1, &st.trig))
				goto out;
			break;
		case 's':
			cmds_add(&st.synth, "synthetic_events", 16, optarg, "-s");
			break;
		case 'S':
			if (load_lines(optarg, 0, &st.synth))
				goto out;
			break;
		case 'o':
			/* an unset "$OUT" must not mean the root directory */
			if (!*optarg) {
				fprintf(stderr, PROG ": -o wants a directory, got an "
					"empty string\n");
				goto out;
			}
			if (strlen(optarg) >= PATH_MAX) {
				fprintf(stderr, PROG ": -o: directory name too long "
					"(%zu bytes, the limit is %d)\n", strlen(optarg),
					PATH_MAX - 1);
				goto out;
			}
			st.outdir = optarg;
			break;
		case OPT_AT_MARKER:
			if (add_marker(&st.markers, &st.nr_markers, &st.markers_cap,
				       optarg))
				goto out;
			break;
		case OPT_MARKER_SYNC:
			ro.marker_sync = 1;
			break;
		case OPT_MAP_BITS: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (!*optarg || *end || v < 1 || v > 24) {
				fprintf(stderr, PROG ": --map-bits wants 1..24, "
					"got '%s'\n", optarg);
				goto out;
			}
			ro.max_map_bits = (uint32_t)v;
			break;
		}
		case OPT_SUMS:
			if (!strcmp(optarg, "auto")) {
				ro.sums = HIST_SUMS_AUTO;
			} else if (!strcmp(optarg, "per-cpu")) {
				ro.sums = HIST_SUMS_PER_CPU;
			} else if (!strcmp(optarg, "shared")) {
				ro.sums = HIST_SUMS_SHARED;
			} else {
				fprintf(stderr, PROG ": --sums wants auto, per-cpu or shared, "
					"got '%s'\n", optarg);
				goto out;
			}
			break;
		case OPT_KERNEL:
			if (hist_kernel_parse(optarg, &ro.kernel)) {
				fprintf(stderr, PROG ": --kernel wants 6.1, 6.12, latest "
					"or a version X.Y, got '%s'\n", optarg);
				goto out;
			}
			break;
		case OPT_JSON:
			st.json = 1;
			break;
		case OPT_INSTANCE:
			ro.instance = optarg;
			break;
		case OPT_LIST:
			list = 1;
			break;
		case OPT_CPU:
			if (parse_cpus(optarg, &st.cpu_set, &ro.nr_cpu_set))
				goto out;
			ro.cpu_set = st.cpu_set;
			cpu_arg = optarg;
			break;
		case OPT_FROM:
			if (parse_seconds("--from", optarg, &ro.from, &ro.from_abs, 1))
				goto out;
			break;
		case OPT_TO:
			if (parse_seconds("--to", optarg, &ro.to, &ro.to_abs, 1))
				goto out;
			break;
		case OPT_INTERVAL:
			if (parse_seconds("--interval", optarg, &ro.interval, &c, 0))
				goto out;
			if (!ro.interval) {
				fprintf(stderr, PROG ": --interval wants more than 0 s\n");
				goto out;
			}
			break;
		case OPT_OPENMETRICS:
			st.json = 2;	/* the other structured output */
			if (replay_openmetrics_format(optarg))
				goto out;
			break;
		case OPT_QUANTILES:
			if (replay_parse_quantiles(optarg))
				goto out;
			break;
		case OPT_LISTEN:
			listen_spec = optarg;
			break;
		case OPT_KALLSYMS:
			ro.kallsyms = optarg;
			break;
		case OPT_PID: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v <= 0 || v > INT32_MAX) {
				fprintf(stderr, PROG ": --pid wants a pid, got '%s'\n", optarg);
				goto out;
			}
			ro.pid_gate = (int32_t)v;
			break;
		}
		case 'h':
			fputs(usage_text, stdout);
			status = 0;
			goto out;
		case OPT_VERSION:
			printf(PROG " (libhist) %d.%d.%d\n", LIBHIST_VERSION_MAJOR,
			       LIBHIST_VERSION_MINOR, LIBHIST_VERSION_PATCH);
			status = 0;
			goto out;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	trace = optind == argc - 1 ? argv[optind] : NULL;
	/* none named: where trace-cmd record and perf record write by
	 * default, as trace-cmd report and perf script read */
	if (optind == argc && (list || st.trig.n || st.nr_markers))
		trace = access("trace.dat", F_OK) == 0 ? "trace.dat" :
			access("perf.data", F_OK) == 0 ? "perf.data" : NULL;
	if (!trace) {
		fprintf(stderr, PROG ": %s\n", optind < argc ? "only one TRACE.dat, please" :
			"missing TRACE.dat (and no ./trace.dat or ./perf.data here)");
		fputs(usage_text, stderr);
		goto out;
	}
	/* both relative or both absolute: comparable before any record */
	if ((ro.from || ro.from_abs) && (ro.to || ro.to_abs) && ro.from_abs == ro.to_abs &&
	    ro.to <= ro.from) {
		fprintf(stderr, PROG ": --to must come after --from\n");
		goto out;
	}
	ro.progress = isatty(2);
	ro.warn = 1;
	st.trace = trace;
	st.max_map_bits = ro.max_map_bits;
	if (ro.interval && st.outdir) {
		fprintf(stderr, PROG ": --interval prints to standard output; "
			"it does not go with -o\n");
		goto out;
	}
	/* an exposition is one scrape: counters that restart every window,
	 * expositions one after the other, are neither OpenMetrics nor
	 * what a scraper can take apart */
	if (ro.interval && listen_spec) {
		fprintf(stderr, PROG ": --listen serves the tables of the whole replay; "
			"it does not go with --interval\n");
		goto out;
	}
	if (ro.interval && st.json == 2) {
		fprintf(stderr, PROG ": --openmetrics is one scrape; for a table per "
			"--interval window use --json (a document per window per line)\n");
		goto out;
	}
	if (!strcmp(trace, "-")) {
		path = stdin_file(stdin_path, sizeof(stdin_path));
		if (!path)
			goto out;
		ro.name = "standard input";
	} else {
		path = trace;
	}
	if (list) {
		status = list_recording(path, ro.instance);
		goto out;
	}

	r = replay_open(path, &ro, err, sizeof(err));
	if (!r) {
		fprintf(stderr, PROG ": %s: %s\n", trace, err);
		goto out;
	}
	/* after the open: a recording that cannot be read says so first */
	if (!st.trig.n && !st.nr_markers) {
		fprintf(stderr, PROG ": no trigger to replay (-t, -T or --at-marker); "
			"--list shows the recording's events and fields\n");
		goto out;
	}
	if (cpu_arg && check_cpus(r, &ro, cpu_arg))
		goto out;
	replay_set_write_cb(r, on_marker_write, &st);
	st.r = r;
	if (ro.interval)
		replay_set_window_cb(r, on_window, &st);

	for (i = 0; i < st.synth.n; i++) {
		struct cmd *cm = &st.synth.v[i];

		rc = replay_write(r, cm->target, cm->text);
		report(&st, cm->where, NULL, cm->target, cm->text, rc,
		       replay_last_errlog(r), replay_last_msg(r));
	}
	for (i = 0; i < st.trig.n; i++) {
		struct cmd *cm = &st.trig.v[i];

		rc = replay_write(r, cm->target, cm->text);
		report(&st, cm->where, NULL, cm->target, cm->text, rc,
		       replay_last_errlog(r), replay_last_msg(r));
	}
	for (i = 0; i < st.nr_markers; i++)
		if (replay_at_marker(r, st.markers[i].text, st.markers[i].target,
				     st.markers[i].cmd))
			die_oom();

	status = st.failed ? 1 : 0;
	if (replay_run(r)) {
		fprintf(stderr, PROG ": warning: %s; the histograms cover the "
			"records before the damage\n", replay_error(r));
		status = EXIT_DAMAGED;
		st.damaged = 1;
	}
	report_lost(r);
	warn_empty_gate(r, &ro);
	warn_empty_span(r, &ro);
	if (ro.interval) {
		/* every window, the last included, went out already */
		if (st.out_failed || fflush(stdout) || ferror(stdout))
			status = 2;
		goto out;
	}
	evs = collect_events(r, &n);
	warn_dropped(&ro, evs, n);
	hint_other_buffers(r, path, evs, n, ro.pid_gate);
	if (st.outdir)
		rc = write_outdir(&st, r, evs, n, trace);
	else
		rc = print_stdout(&st, r, evs, n, trace);
	if (rc)
		status = 2;
	if (!rc && listen_spec && replay_listen(listen_spec, evs, n, replay_tracedat(r)))
		status = 2;
out:
	free(evs);
	replay_close(r);
	free_state(&st);
	return status;
}
