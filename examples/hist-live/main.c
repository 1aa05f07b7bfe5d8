/* SPDX-License-Identifier: MIT */
/*
 * hist-live: Linux hist triggers on a kernel built without them.
 *
 * The kernel still records events (CONFIG_EVENT_TRACING); hist-live
 * enables the events that the triggers name, reads the raw ring-buffer
 * pages, feeds every record through libhist and prints the `hist` files
 * the kernel would have printed: on exit (SIGINT, SIGTERM, the end of a
 * command, -d) and every -i SECONDS.  What it changed in tracefs is
 * undone on exit (see tracefs.c).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live.h"

/* exit statuses: 3 says "cannot trace here" (no tracefs, no permission) */
enum { EXIT_OK = 0, EXIT_REJECTED = 1, EXIT_USAGE = 2, EXIT_NOTRACE = 3 };

static const char usage_text[] =
	"usage: " PROG " [OPTIONS] [-- COMMAND [ARG...]]\n"
	"\n"
	"Run Linux ftrace hist triggers on the live kernel, even one built\n"
	"without CONFIG_HIST_TRIGGERS: the events the triggers name are\n"
	"enabled in a private trace instance, their records read from the\n"
	"per-CPU ring buffers and aggregated by libhist.  The histograms are\n"
	"printed as `cat events/SYSTEM/EVENT/hist` would print them, on exit\n"
	"(Ctrl-C, the end of COMMAND, -d) and every -i SECONDS.\n"
	"\n"
	"  -t, --trigger 'SYSTEM/EVENT COMMAND'\n"
	"                        a trigger command (repeatable, in order)\n"
	"  -T, --trigger-file FILE\n"
	"                        lines 'SYSTEM/EVENT COMMAND', or\n"
	"                        'synthetic_events DEFINITION'; '#' comments\n"
	"  -s, --synth 'DEFINITION'\n"
	"                        define a synthetic event (repeatable)\n"
	"  -i, --interval SECONDS\n"
	"                        also print every SECONDS\n"
	"  -d, --duration SECONDS\n"
	"                        stop after SECONDS\n"
	"  -o, --output FILE     print to FILE instead of standard output\n"
	"      --json            print JSON (the schema of hist-replay --json)\n"
	"  -b, --buffer-kb N     per-CPU ring buffer size in KiB\n"
	"      --top             use the top-level buffer instead of a private\n"
	"                        instance (the files changed are restored)\n"
	"      --tracefs DIR     tracefs is at DIR (default: the mounted one,\n"
	"                        else it is mounted on /sys/kernel/tracing)\n"
	"      --kernel VERSION  accept, reject, log and print as Linux VERSION\n"
	"                        does: 6.1, 6.12 or latest (default: the\n"
	"                        running kernel's version)\n"
	"  -q, --quiet           no progress messages on standard error\n"
	"  -h, --help            this text\n"
	"      --version         print the version\n"
	"\n"
	"With COMMAND, hist-live runs it once tracing is on and stops when it\n"
	"exits.  Exit status: 0 success; 1 a command was rejected; 2 bad usage\n"
	"or a tracing error; 3 tracing is not available here (no tracefs, not\n"
	"permitted).\n";

enum { OPT_JSON = 256, OPT_TOP, OPT_TRACEFS, OPT_VERSION, OPT_KERNEL };

static const struct option long_opts[] = {
	{ "trigger", required_argument, NULL, 't' },
	{ "trigger-file", required_argument, NULL, 'T' },
	{ "synth", required_argument, NULL, 's' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "buffer-kb", required_argument, NULL, 'b' },
	{ "top", no_argument, NULL, OPT_TOP },
	{ "tracefs", required_argument, NULL, OPT_TRACEFS },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

struct cmd {
	char *target, *text;	/* target "synthetic_events" or SYS/EVENT */
};

struct state {
	struct cmd *cmds;
	size_t nr_cmds;
	double interval, duration;
	const char *output, *tracefs;
	long buffer_kb;
	int json, top, quiet;
	FILE *out;
	hist_ctx *ctx;
	struct live_host *host;
	struct live_tfs tfs;
	struct live_ring *ring;
	pid_t child;
	int rejected;
	double start;
	const char *kernel;	/* --kernel, or NULL: the running kernel's */
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

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
	st->cmds = v;
	st->nr_cmds++;
}

/* "SYSTEM/EVENT COMMAND" (blank or TAB between). */
static int add_trigger(struct state *st, const char *line)
{
	size_t t = strcspn(line, " \t");
	const char *text = line + t;

	while (*text == ' ' || *text == '\t')
		text++;
	if (!t || !*text || (!memchr(line, '/', t) &&
			     strncmp(line, "synthetic_events", t))) {
		fprintf(stderr, PROG ": want 'SYSTEM/EVENT COMMAND', got '%s'\n", line);
		return -1;
	}
	add_cmd(st, line, t, text);
	return 0;
}

static int load_file(struct state *st, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	int ret = 0;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		ret = add_trigger(st, line);
	}
	fclose(f);
	return ret;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v > 0) || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

static int file_write(void *arg, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

static void print_errlog(struct state *st)
{
	hist_ctx_print_error_log(st->ctx, file_write, stderr);
	hist_ctx_clear_error_log(st->ctx);
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
			char *slash;
			hist_event *ev;
			int ret;

			if (synth != !pass)
				continue;
			if (synth) {
				ret = hist_synth_parse(st->ctx, c->text, 0, NULL);
			} else {
				slash = strchr(c->target, '/');
				*slash = 0;
				ev = hist_event_lookup(st->ctx, c->target, slash + 1);
				*slash = '/';
				if (!ev) {
					fprintf(stderr, PROG ": %s: no such event\n",
						c->target);
					st->rejected = 1;
					continue;
				}
				ret = hist_trigger_parse(ev, c->text, NULL);
			}
			if (ret) {
				fprintf(stderr, PROG ": %s: '%s' failed: %s\n",
					c->target, c->text, strerror(-ret));
				print_errlog(st);
				st->rejected = 1;
			}
		}
	}
}

static void feed(void *arg, const struct hist_ftrace_record *rec)
{
	struct state *st = arg;
	hist_event *ev = host_event_by_id(st->host, rec->type);
	struct hist_hit hit;

	if (!ev)
		return;
	memset(&hit, 0, sizeof(hit));
	hit.ts = rec->ts;
	hit.cpu = rec->cpu;
	hit.pid = -1;
	hist_event_hit(ev, rec->data, rec->len, &hit);
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
		char *slash = strchr(st->cmds[i].target, '/');
		hist_event *ev;

		if (!slash)
			continue;
		*slash = 0;
		ev = hist_event_lookup(st->ctx, st->cmds[i].target, slash + 1);
		*slash = '/';
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

static int print_all(struct state *st, int final)
{
	hist_event **evs = calloc(st->nr_cmds, sizeof(*evs));
	size_t i, n;
	int ret = 0;

	if (!evs)
		return -1;
	n = print_list(st, evs);
	if (st->json)
		fprintf(st->out, "{ \"libhist\": \"%s\", \"elapsed\": %.3f, "
			"\"final\": %s, \"records\": %llu, \"lost\": %llu,\n"
			"  \"events\": [", hist_version(), now() - st->start,
			final ? "true" : "false",
			(unsigned long long)ring_records(st->ring),
			(unsigned long long)ring_lost(st->ring));
	for (i = 0; i < n && !ret; i++) {
		const struct hist_event_desc *d = hist_event_desc(evs[i]);

		if (st->json) {
			fprintf(st->out, "%s\n    { \"system\": \"%s\", \"event\": \"%s\",\n"
				"      \"histograms\": ", i ? "," : "", d->system, d->name);
			ret = hist_event_print_json(evs[i], file_write, st->out);
			fputs(" }", st->out);
		} else {
			fprintf(st->out, "%s# %s/%s after %.1f s\n", i ? "\n" : "",
				d->system, d->name, now() - st->start);
			ret = hist_event_print_hist(evs[i], file_write, st->out);
		}
	}
	if (st->json)
		fputs(n ? "\n  ] }\n" : "] }\n", st->out);
	else if (ring_lost(st->ring))
		fprintf(st->out, "\n# %llu events lost by the kernel\n",
			(unsigned long long)ring_lost(st->ring));
	fflush(st->out);
	free(evs);
	return ret || ferror(st->out) ? -1 : 0;
}

/* Turn on the events that have triggers, and tracing. */
static int start_tracing(struct state *st)
{
	char rel[512], num[32];
	size_t i, n = host_bind(st->host, st->ctx);
	const char *clock = host_clock(st->host);
	int ret;

	if (!n) {
		fprintf(stderr, PROG ": no trigger to run\n");
		return -EINVAL;
	}
	if (st->buffer_kb) {
		snprintf(num, sizeof(num), "%ld", st->buffer_kb);
		ret = tfs_write(&st->tfs, "buffer_size_kb", num, 1);
		if (ret) {
			fprintf(stderr, PROG ": buffer_size_kb: %s\n", strerror(-ret));
			return ret;
		}
	}
	if (clock) {
		ret = tfs_write(&st->tfs, "trace_clock", clock, 1);
		if (ret) {
			fprintf(stderr, PROG ": trace_clock %s: %s\n", clock,
				strerror(-ret));
			return ret;
		}
	}
	for (i = 0; i < n; i++) {
		const char *sys, *name;

		host_bound(st->host, i, &sys, &name);
		if (!strcmp(sys, "synthetic"))
			continue;	/* generated by libhist, not the kernel */
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", sys, name);
		ret = tfs_write(&st->tfs, rel, "1", 1);
		if (ret) {
			fprintf(stderr, PROG ": %s: %s\n", rel, strerror(-ret));
			return ret;
		}
		if (!st->quiet)
			fprintf(stderr, PROG ": tracing %s/%s\n", sys, name);
	}
	return tfs_write(&st->tfs, "tracing_on", "1", 1);
}

static pid_t run_command(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, PROG ": %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
	return pid;
}

static int loop(struct state *st, char **argv)
{
	double next = st->interval ? st->start + st->interval : 0;
	int status = 0;

	if (argv && (st->child = run_command(argv)) < 0)
		return -1;
	while (!stop_requested) {
		long n = ring_drain(st->ring, 0, feed, st);
		double t = now();

		if (n < 0)
			return -1;
		if (next && t >= next) {
			if (print_all(st, 0))
				return -1;
			next += st->interval;
		}
		if (st->duration && t - st->start >= st->duration)
			break;
		if (st->child > 0 && waitpid(st->child, &status, WNOHANG) == st->child) {
			st->child = 0;
			if (!st->quiet)
				fprintf(stderr, PROG ": %s exited (%d)\n", argv[0],
					WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			break;
		}
		if (n == 0)
			usleep(50000);
	}
	/* the last records: stop the buffer, then read what is left */
	tfs_write(&st->tfs, "tracing_on", "0", 1);
	return ring_drain(st->ring, 1, feed, st) < 0 ? -1 : 0;
}

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

	while ((c = getopt_long(argc, argv, "+t:T:s:i:d:o:b:qh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 't':
			if (add_trigger(st, optarg))
				return EXIT_USAGE;
			break;
		case 'T':
			if (load_file(st, optarg))
				return EXIT_USAGE;
			break;
		case 's':
			add_cmd(st, "synthetic_events", 16, optarg);
			break;
		case 'i':
		case 'd':
			if (parse_seconds(optarg, c == 'i' ? &st->interval
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
			st->buffer_kb = strtol(optarg, NULL, 10);
			if (st->buffer_kb <= 0) {
				fprintf(stderr, PROG ": -b wants KiB, got '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_JSON:
			st->json = 1;
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
	if (!st->nr_cmds) {
		fprintf(stderr, PROG ": no trigger given (-t, -T)\n");
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct state st;
	struct hist_host host;
	struct hist_ctx_opts opts;
	struct sigaction sa;
	char err[512];
	int ret, status = EXIT_USAGE;
	size_t i;

	memset(&st, 0, sizeof(st));
	st.out = stdout;
	ret = parse_args(&st, argc, argv);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (st.output && !(st.out = fopen(st.output, "w"))) {
		fprintf(stderr, PROG ": %s: %s\n", st.output, strerror(errno));
		return EXIT_USAGE;
	}
	if (tfs_open(&st.tfs, st.tracefs, st.top, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		status = EXIT_NOTRACE;
		goto out_file;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: wake the sleep */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

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
	st.ring = ring_open(&st.tfs, err, sizeof(err));
	if (!st.ring) {
		fprintf(stderr, PROG ": %s\n", err);
		status = EXIT_NOTRACE;
		goto out;
	}
	ret = start_tracing(&st);
	if (ret) {
		status = ret == -EACCES || ret == -EPERM ? EXIT_NOTRACE : EXIT_USAGE;
		goto out;
	}
	st.start = now();
	if (!st.quiet)
		fprintf(stderr, PROG ": running%s\n", optind < argc ? "" :
			st.duration ? "" : "; Ctrl-C to stop");
	if (loop(&st, optind < argc ? argv + optind : NULL) || print_all(&st, 1))
		goto out;
	status = st.rejected ? EXIT_REJECTED : EXIT_OK;
out:
	if (st.child > 0) {
		kill(st.child, SIGTERM);
		waitpid(st.child, NULL, 0);
	}
	ring_close(st.ring);
	tfs_close(&st.tfs);
	hist_ctx_destroy(st.ctx);
	host_free(st.host);
	for (i = 0; i < st.nr_cmds; i++) {
		free(st.cmds[i].target);
		free(st.cmds[i].text);
	}
	free(st.cmds);
out_file:
	if (st.out != stdout)
		fclose(st.out);
	return status;
}
