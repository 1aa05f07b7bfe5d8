/* SPDX-License-Identifier: MIT */
/*
 * hist-replay as a user sees it (run as a subprocess: exit status,
 * stderr, the -o layout, --at-marker, --json, damaged input), the replay
 * engine's task-name history, and a self-test of the conformance
 * comparator (the rule must accept tied entries in any order and reject
 * every real difference).
 *
 * Run from the repository root (make check does); the tool is looked up
 * next to this program: BUILD/test/test_replay -> BUILD/hist-replay.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "conf.h"
#include "util.h"

#define CASES "test/conformance/cases"

static char tool[4096];
static char tmpdir[256];

struct run {
	int status;	/* exit status, or 128 + signal */
	char *out, *err;
};

static struct run run_tool_in(const char *const *argv, const char *in);

/* Run in this directory instead of the test's (NULL: the test's). */
static const char *run_cwd;

/* Run the tool with ARGV (NULL-terminated, argv[0] ignored). */
static struct run run_tool(const char *const *argv)
{
	return run_tool_in(argv, NULL);
}

/* The same with standard input from the file IN (NULL: inherited). */
static struct run run_tool_in(const char *const *argv, const char *in)
{
	struct run r = { -1, NULL, NULL };
	char out[512], err[512];
	const char *av[64];
	pid_t pid;
	int st, i;

	snprintf(out, sizeof(out), "%s/stdout", tmpdir);
	snprintf(err, sizeof(err), "%s/stderr", tmpdir);
	av[0] = tool;
	for (i = 1; argv[i] && i < 63; i++)
		av[i] = argv[i];
	av[i] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr) ||
		    (in && !freopen(in, "r", stdin)))
			_exit(126);
		if (run_cwd) {
			char abs[4096];

			if (!realpath(tool, abs) || chdir(run_cwd))
				_exit(126);
			execv(abs, (char *const *)av);
			_exit(127);
		}
		execv(tool, (char *const *)av);
		_exit(127);
	}
	if (pid < 0)
		return r;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	/* never NULL: a file the child did not get to write reads as empty */
	r.out = t_readf("%s", out);
	r.err = t_readf("%s", err);
	if (!r.out)
		r.out = calloc(1, 1);
	if (!r.err)
		r.err = calloc(1, 1);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

static int file_has(const char *path, const char *needle)
{
	char *s = conf_read_file(path, NULL);
	int ok = s && strstr(s, needle);

	free(s);
	return ok;
}

/* ---- the tool ---------------------------------------------------------- */

static void test_bad_trigger_keeps_going(void)
{
	const char *av[] = { "", "-t", "sched/sched_switch hist:keys=nosuchfield",
			     "-t", "raw_syscalls/sys_enter hist:keys=common_pid",
			     CASES "/g02-execname-sort-desc/trace.dat", NULL };
	struct run r = run_tool(av);

	T_EQ(r.status, 1);
	T_ASSERT(r.err && strstr(r.err, "hist:sched:sched_switch: error: "
				 "Couldn't find field"));
	T_ASSERT(r.err && strstr(r.err, "  Command: hist:keys=nosuchfield"));
	/* the other trigger still ran over the whole recording */
	T_ASSERT(r.out && strstr(r.out, "    Hits: 733\n"));
	run_free(&r);
}

static void test_output_dir(void)
{
	char dir[512], p[600];
	const char *av[] = { "", "-o", dir, "-t",
			     "raw_syscalls/sys_enter hist:keys=common_pid",
			     "-t", "sched/sched_switch hist:keys=bogus",
			     CASES "/g02-execname-sort-desc/trace.dat", NULL };
	struct run r;

	snprintf(dir, sizeof(dir), "%s/out/nested", tmpdir);
	r = run_tool(av);
	T_EQ(r.status, 1);
	T_STREQ(r.out, "");
	snprintf(p, sizeof(p), "%s/events/raw_syscalls/sys_enter/hist", dir);
	T_ASSERT(file_has(p, "# event histogram\n"));
	T_ASSERT(file_has(p, "    Hits: 733\n"));
	snprintf(p, sizeof(p), "%s/events/raw_syscalls/sys_enter/trigger", dir);
	T_ASSERT(file_has(p, "hist:keys=common_pid:vals=hitcount:sort=hitcount:"
			  "size=2048 [active]\n"));
	/* the rejected trigger's event: no hist, no triggers */
	snprintf(p, sizeof(p), "%s/events/sched/sched_switch/trigger", dir);
	T_ASSERT(file_has(p, "# Available triggers:"));
	snprintf(p, sizeof(p), "%s/error_log", dir);
	T_ASSERT(file_has(p, "error: Couldn't find field"));
	run_free(&r);
}

static void test_trigger_file(void)
{
	char tf[512];
	FILE *f;
	const char *av[] = { "", "-T", tf,
			     CASES "/g46-kprobe-event-hist/trace.dat", NULL };
	struct run r;

	snprintf(tf, sizeof(tf), "%s/triggers", tmpdir);
	f = fopen(tf, "w");
	T_ASSERT(f != NULL);
	if (!f)
		return;
	fputs("# a comment\n\n"
	      "kprobe_events\tp:oracle/filp_open do_filp_open dfd=%di:s32\n"
	      "oracle/filp_open\thist:keys=common_pid:vals=hitcount:"
	      "sort=common_pid\n", f);
	fclose(f);
	r = run_tool(av);
	T_EQ(r.status, 0);
	T_STREQ(r.err, "");
	T_ASSERT(r.out && strstr(r.out, "# trigger info: hist:keys=common_pid:"
				 "vals=hitcount:sort=common_pid:size=2048 "
				 "[active]"));
	run_free(&r);
}

static unsigned long long hits_of(const char *out)
{
	const char *p = out ? strstr(out, "Hits: ") : NULL;

	return p ? strtoull(p + 6, NULL, 10) : ~0ull;
}

static void test_at_marker(void)
{
	const char *trig = "sched/sched_switch hist:keys=prev_pid:vals=hitcount:"
			   "sort=prev_pid";
	const char *mark = "oracle: before clear\tsched/sched_switch\t"
			   "hist:keys=prev_pid:vals=hitcount:sort=prev_pid:clear";
	const char *plain[] = { "", "-t", trig, CASES "/g27-clear/trace.dat",
				NULL };
	const char *at[] = { "", "-t", trig, "--at-marker", mark,
			     CASES "/g27-clear/trace.dat", NULL };
	const char *sync[] = { "", "-t", trig, "--at-marker", mark,
			       "--marker-sync", CASES "/g27-clear/trace.dat",
			       NULL };
	const char *bad[] = { "", "--at-marker", "no tabs here",
			      CASES "/g27-clear/trace.dat", NULL };
	struct run a = run_tool(plain), b = run_tool(at), c = run_tool(sync),
		   d = run_tool(bad);

	T_EQ(a.status, 0);
	T_EQ(b.status, 0);
	T_EQ(c.status, 0);
	T_ASSERT(hits_of(b.out) < hits_of(a.out));
	/* the kernel's Hits: the clear landed after the writer slept */
	T_EQU(hits_of(c.out), 43);
	T_EQU(hits_of(b.out), 47);
	T_EQ(d.status, 2);
	T_ASSERT(d.err && strstr(d.err, "--at-marker"));
	run_free(&a);
	run_free(&b);
	run_free(&c);
	run_free(&d);
}

static void test_synthetic_copies_skipped(void)
{
	const char *tr = CASES "/g33-onmatch-trace/trace.dat";
	const char *recorded[] = { "", "-t", "synthetic/wakeup_latency "
				   "hist:keys=pid", tr, NULL };
	const char *defined[] = { "", "-s", "wakeup_latency u64 lat; pid_t pid; "
				  "char comm[16]", "-t", "synthetic/wakeup_latency"
				  " hist:keys=pid", tr, NULL };
	struct run a = run_tool(recorded), b = run_tool(defined);

	/* without -s the recorded synthetic events are ordinary records */
	T_EQ(a.status, 0);
	T_EQU(hits_of(a.out), 8);
	/* with -s libhist raises them itself: the recorded copies go */
	T_EQ(b.status, 0);
	T_EQU(hits_of(b.out), 0);
	run_free(&a);
	run_free(&b);
}

/* A minimal JSON syntax check: value at *P, advancing it. */
static int json_value(const char **p, int depth);

static void json_ws(const char **p)
{
	while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r')
		(*p)++;
}

static int json_string(const char **p)
{
	if (**p != '"')
		return 0;
	for ((*p)++; **p && **p != '"'; (*p)++) {
		if ((unsigned char)**p < 0x20)
			return 0;
		if (**p == '\\') {
			(*p)++;
			if (!strchr("\"\\/bfnrtu", **p) || !**p)
				return 0;
		}
	}
	if (**p != '"')
		return 0;
	(*p)++;
	return 1;
}

static int json_value(const char **p, int depth)
{
	json_ws(p);
	if (depth > 64)
		return 0;
	if (**p == '{' || **p == '[') {
		char close = **p == '{' ? '}' : ']';
		int obj = **p == '{';

		(*p)++;
		json_ws(p);
		if (**p == close) {
			(*p)++;
			return 1;
		}
		for (;;) {
			json_ws(p);
			if (obj) {
				if (!json_string(p))
					return 0;
				json_ws(p);
				if (**p != ':')
					return 0;
				(*p)++;
			}
			if (!json_value(p, depth + 1))
				return 0;
			json_ws(p);
			if (**p == ',') {
				(*p)++;
				continue;
			}
			if (**p != close)
				return 0;
			(*p)++;
			return 1;
		}
	}
	if (**p == '"')
		return json_string(p);
	if (!strncmp(*p, "true", 4) || !strncmp(*p, "null", 4)) {
		*p += 4;
		return 1;
	}
	if (!strncmp(*p, "false", 5)) {
		*p += 5;
		return 1;
	}
	if (**p == '-' || (**p >= '0' && **p <= '9')) {
		char *end;

		strtod(*p, &end);
		if (end == *p)
			return 0;
		*p = end;
		return 1;
	}
	return 0;
}

static int json_valid(const char *s)
{
	const char *p = s;

	if (!s || !json_value(&p, 0))
		return 0;
	json_ws(&p);
	return *p == 0;
}

static void test_json(void)
{
	const char *av[] = { "", "--json", "-t",
			     "raw_syscalls/sys_enter hist:keys=common_pid.execname,"
			     "id.syscall:vals=hitcount:sort=hitcount.descending",
			     "-t", "sched/sched_process_exec hist:keys=stacktrace",
			     CASES "/g18-stacktrace-key/trace.dat", NULL };
	const char *av2[] = { "", "--json", "-t",
			      "raw_syscalls/sys_enter hist:keys=common_pid.execname",
			      "-t", "sched/sched_switch hist:keys=prev_comm:"
			      "vals=hitcount,prev_prio.percent",
			      CASES "/g02-execname-sort-desc/trace.dat", NULL };
	struct run r = run_tool(av), r2 = run_tool(av2);

	T_EQ(r.status, 0);
	T_ASSERT(json_valid(r.out));
	T_ASSERT(r.out && strstr(r.out, "\"frames\": ["));
	T_EQ(r2.status, 0);
	T_ASSERT(json_valid(r2.out));
	T_ASSERT(r2.out && strstr(r2.out, "\"name\": \"prev_prio (%)\""));
	T_ASSERT(r2.out && strstr(r2.out, "{ \"name\": \"common_pid\", "
				  "\"value\": 124, \"text\": \"sh [ 124]\" }"));
	T_ASSERT(r2.out && strstr(r2.out, "\"totals\": { \"hits\": 733, "
				  "\"entries\": 19, \"dropped\": 0 }"));
	if (!json_valid(r.out))
		printf("# %s\n", r.out ? r.out : "(null)");
	run_free(&r);
	run_free(&r2);
}

static void test_usage_errors(void)
{
	const char *none[] = { "", NULL };
	const char *badopt[] = { "", "--frobnicate", "x.dat", NULL };
	const char *badt[] = { "", "-t", "no-command", "x.dat", NULL };
	const char *help[] = { "", "--help", NULL };
	const char *ver[] = { "", "--version", NULL };
	const char *missing[] = { "", "-T", "/nonexistent/triggers", "x.dat",
				  NULL };
	struct run a = run_tool(none), b = run_tool(badopt), c = run_tool(badt),
		   d = run_tool(help), e = run_tool(ver), f = run_tool(missing);

	T_EQ(a.status, 2);
	T_ASSERT(a.err && strstr(a.err, "missing TRACE.dat"));
	T_EQ(b.status, 2);
	T_EQ(c.status, 2);
	T_ASSERT(c.err && strstr(c.err, "-t wants"));
	T_EQ(d.status, 0);
	T_ASSERT(d.out && strstr(d.out, "--at-marker"));
	T_EQ(e.status, 0);
	T_ASSERT(e.out && strstr(e.out, "hist-replay (libhist) "));
	T_EQ(f.status, 2);
	T_ASSERT(f.err && strstr(f.err, "/nonexistent/triggers"));
	run_free(&a);
	run_free(&b);
	run_free(&c);
	run_free(&d);
	run_free(&e);
	run_free(&f);
}

static void write_bytes(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(buf, 1, len, f);
		fclose(f);
	}
}

static void test_damaged_input(void)
{
	size_t len = 0, cuts[] = { 0, 7, 100, 3000, 20000, 60000, 80000 }, i;
	char *src = conf_read_file(CASES "/g02-execname-sort-desc/trace.dat",
				   &len);
	char path[512];
	const char *av[] = { "", "-t", "raw_syscalls/sys_enter hist:keys=common_pid",
			     path, NULL };
	const char *nofile[] = { "", "/nonexistent/trace.dat", NULL };
	struct run r;

	T_ASSERT(src != NULL);
	if (!src)
		return;
	snprintf(path, sizeof(path), "%s/damaged.dat", tmpdir);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		if (cuts[i] >= len)
			continue;
		/* truncated: a clear message, exit 2 (unreadable) or 3 (the
		 * records before the cut replayed), never a crash */
		write_bytes(path, src, cuts[i]);
		r = run_tool(av);
		if (r.status != 2 && r.status != 3)
			printf("#   cut at %zu: status %d\n", cuts[i], r.status);
		T_ASSERT(r.status == 2 || r.status == 3);
		T_ASSERT(r.err && strstr(r.err, "damaged.dat"));
		run_free(&r);
	}
	/* corrupted bytes in the middle */
	for (i = 1; i < 8; i++) {
		size_t at = len * i / 8, k;
		char *copy = malloc(len);

		if (!copy)
			break;
		memcpy(copy, src, len);
		for (k = 0; k < 64 && at + k < len; k++)
			copy[at + k] = (char)(0xa5 ^ k);
		write_bytes(path, copy, len);
		free(copy);
		r = run_tool(av);
		/* whatever the reader makes of it: no crash, no hang */
		T_ASSERT(r.status >= 0 && r.status <= 3);
		if (r.status >= 2)
			T_ASSERT(r.err && strstr(r.err, "damaged.dat"));
		run_free(&r);
	}
	r = run_tool(nofile);
	T_EQ(r.status, 2);
	T_ASSERT(r.err && strstr(r.err, "/nonexistent/trace.dat"));
	run_free(&r);
	free(src);
}


/* ---- honest output: losses, damage, full maps, refused commands --------- */

#define DATA "test/data/"

static unsigned long long num_after(const char *s, const char *key)
{
	const char *p = s ? strstr(s, key) : NULL;

	return p ? strtoull(p + strlen(key), NULL, 10) : ~0ull;
}

/* Sum of "[N EVENTS DROPPED]" in `trace-cmd report`, or -1 without it. */
static long long trace_cmd_dropped(const char *path)
{
	char cmd[600], line[4096];
	long long sum = 0;
	FILE *f;

	if (system("command -v trace-cmd >/dev/null 2>&1"))
		return -1;
	snprintf(cmd, sizeof(cmd), "trace-cmd report '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, " EVENTS DROPPED]");
		const char *b = p ? p : NULL;

		if (!b)
			continue;
		while (b > line && b[-1] >= '0' && b[-1] <= '9')
			b--;
		sum += strtoll(b, NULL, 10);
	}
	return pclose(f) == 0 ? sum : -1;
}

static void test_lost(void)
{
	const char *av[] = { "", "-t", "raw_syscalls/sys_enter hist:keys=common_pid",
			     DATA "lost.v7-zstd.dat", NULL };
	const char *js[] = { "", "--json", "-t", "raw_syscalls/sys_enter hist:keys=common_pid",
			     DATA "lost.v7-zstd.dat", NULL };
	const char *none[] = { "", "-t", "sched/sched_switch hist:keys=prev_pid",
			       DATA "sched.v7-zstd.dat", NULL };
	long long want = trace_cmd_dropped(DATA "lost.v7-zstd.dat");
	struct run a = run_tool(av), b = run_tool(js), c = run_tool(none);
	char line[128];

	if (want < 0) {
		printf("# trace-cmd not usable: checking the recorder's own count\n");
		want = 15458;	/* record-lost.log: "CPU 0: 15458 events lost" */
	}
	T_EQ(a.status, 0);
	snprintf(line, sizeof(line), "# lost: CPU 0 %lld, total %lld events\n", want, want);
	T_ASSERT(a.err && strstr(a.err, line));
	if (!a.err || !strstr(a.err, line))
		printf("# stderr: %s# want: %s", a.err ? a.err : "", line);
	T_EQ(b.status, 0);
	T_ASSERT(json_valid(b.out));
	T_EQU(num_after(b.out, "\"lost\": { \"total\": "), (unsigned long long)want);
	T_ASSERT(b.out && strstr(b.out, "{ \"cpu\": 1, \"events\": 0, \"unknown\": 0 }"));
	/* nothing lost: no line */
	T_EQ(c.status, 0);
	T_ASSERT(c.err && !strstr(c.err, "# lost"));
	run_free(&a);
	run_free(&b);
	run_free(&c);
}

/*
 * Records of sched_switch that lie wholly before CUT in PATH (read whole),
 * found by walking the uncut file: plain data by page, zstd by chunk.
 */
static uint64_t switches_before(const char *path, uint64_t cut)
{
	char err[512];
	struct hist_tracedat *td = hist_tracedat_open(path, err, sizeof(err));
	const struct hist_ftrace_event *sw;
	struct hist_ftrace_record rec;
	size_t len = 0;
	uint8_t *file = (uint8_t *)conf_read_file(path, &len);
	uint64_t n = 0, ps;
	int zstd;

	if (!td || !file) {
		T_FAILF("%s: %s", path, err);
		hist_tracedat_close(td);
		free(file);
		return 0;
	}
	sw = hist_tracedat_find_event(td, "sched", "sched_switch");
	ps = hist_tracedat_page_fmt(td)->page_size;
	zstd = hist_tracedat_version(td) == 7;
	while (sw && hist_tracedat_next(td, &rec) > 0) {
		uint64_t end;

		if (rec.type != sw->desc.id)
			continue;
		if (zstd)	/* file_offset: the chunk header (clen, ulen) */
			end = rec.file_offset + 8 +
			      (file[rec.file_offset] | (uint32_t)file[rec.file_offset + 1] << 8 |
			       (uint32_t)file[rec.file_offset + 2] << 16 |
			       (uint32_t)file[rec.file_offset + 3] << 24);
		else
			end = rec.file_offset / ps * ps + ps;
		if (end <= cut)
			n++;
	}
	hist_tracedat_close(td);
	free(file);
	return n;
}

static void check_cut(const char *src, size_t cut, const char *want_err)
{
	size_t len = 0;
	char *buf = conf_read_file(src, &len), path[512];
	const char *av[] = { "", "-t", "sched:sched_switch hist:keys=prev_pid", path, NULL };
	const char *js[] = { "", "--json", "-t", "sched:sched_switch hist:keys=prev_pid",
			     path, NULL };
	const char *jw[] = { "", "--json", "--interval", "2", "-t",
			     "sched:sched_switch hist:keys=prev_pid", path, NULL };
	struct run r, j, w;
	const char *last;
	uint64_t want;

	T_ASSERT(buf && cut < len);
	if (!buf || cut >= len) {
		free(buf);
		return;
	}
	snprintf(path, sizeof(path), "%s/cut.dat", tmpdir);
	write_bytes(path, buf, cut);
	free(buf);
	want = switches_before(src, cut);
	r = run_tool(av);
	j = run_tool(js);
	/* the documented status of its own, a warning that says where, and
	 * the histogram of every record before the damage */
	T_EQ(r.status, 3);
	T_ASSERT(r.err && strstr(r.err, "hist-replay: warning: ") && strstr(r.err, want_err) &&
		 strstr(r.err, "the histograms cover the records before the damage"));
	if (!r.err || !strstr(r.err, want_err))
		printf("# stderr: %s", r.err ? r.err : "");
	T_ASSERT(want > 1000);
	T_EQU(hits_of(r.out), (unsigned long long)want);
	T_EQ(j.status, 3);
	T_ASSERT(json_valid(j.out));
	T_ASSERT(j.out && strstr(j.out, "\"damage\": \"") && strstr(j.out, want_err));
	/* windows: the last line (the window the walk ends in) says it */
	w = run_tool(jw);
	T_EQ(w.status, 3);
	last = NULL;
	if (w.out && strlen(w.out) > 1) {
		last = w.out + strlen(w.out) - 1;	/* its newline */
		while (last > w.out && last[-1] != '\n')
			last--;
	}
	T_ASSERT(last && json_valid(last));
	T_ASSERT(last && strstr(last, "\"damage\": \"") && strstr(last, want_err));
	run_free(&r);
	run_free(&j);
	run_free(&w);
}

static void test_truncated(void)
{
	struct stat st;

	/* sched.v6.dat with its last 100 KB cut: CPU 1's data ends early */
	if (stat(DATA "sched.v6.dat", &st) == 0)
		check_cut(DATA "sched.v6.dat", (size_t)st.st_size - 100000,
			  "truncated CPU 1 data at offset 6893568 (1970176 bytes, 1870176 in the file)");
	/* v7 zstd: the cut takes the trailing options and part of CPU 1's
	 * chunks (CPU 1 data starts at 1228800, options at 1510497) */
	check_cut(DATA "sched.v7-zstd.dat", 1400000, "truncated CPU 1 data: chunk ");
	/* a cut before any record: no histogram entries, still status 3 */
	check_cut(DATA "sched.v7-zstd.dat", 1510500, "truncated section header at offset 1510497");
}

static void test_map_full(void)
{
	const char *small[] = { "", "-t", "sched/sched_switch hist:keys=prev_pid:size=128",
				DATA "sched.v7-zstd.dat", NULL };
	char trig[128], bits[8];
	const char *big[] = { "", "-t", trig, DATA "sched.v7-zstd.dat", NULL };
	const char *toobig[] = { "", "-t", "sched/sched_switch hist:keys=prev_pid:size=262144",
				 DATA "sched.v7-zstd.dat", NULL };
	const char *allowed[] = { "", "--map-bits", bits, "-t",
				  "sched/sched_switch hist:keys=prev_pid:size=262144",
				  DATA "sched.v7-zstd.dat", NULL };
	struct run a = run_tool(small), b, c, d;
	unsigned long long dropped = num_after(a.out, "Dropped: "), size;
	const char *p;

	T_EQ(a.status, 0);
	T_ASSERT(dropped > 0 && dropped != ~0ull);
	p = a.err ? strstr(a.err, "the map is full: ") : NULL;
	T_ASSERT(p != NULL);
	T_EQU(num_after(p, "the map is full: "), dropped);
	size = num_after(p, "size=");
	T_ASSERT(size >= 256 && size <= 131072);
	snprintf(trig, sizeof(trig), "sched/sched_switch hist:keys=prev_pid:size=%llu", size);
	/* the size the warning names holds every key */
	b = run_tool(big);
	T_EQ(b.status, 0);
	T_EQU(num_after(b.out, "Dropped: "), 0);
	T_ASSERT(b.err && !strstr(b.err, "map is full"));
	/* too large: the hint names the --map-bits that allows it, which does */
	c = run_tool(toobig);
	T_EQ(c.status, 1);
	p = c.err ? strstr(c.err, "--map-bits ") : NULL;
	T_ASSERT(p != NULL);
	snprintf(bits, sizeof(bits), "%llu", p ? num_after(p, "--map-bits ") : 0ull);
	T_STREQ(bits, "18");
	d = run_tool(allowed);
	T_EQ(d.status, 0);
	T_EQU(hits_of(d.out), hits_of(b.out));
	run_free(&a);
	run_free(&b);
	run_free(&c);
	run_free(&d);
}

/*
 * Refusals the kernel logs nothing for (a bad filter, a bad size=:
 * b83-size-range): the tool's message has the reason and a caret under
 * the command, and the error_log stays the kernel's (empty).
 */
static void test_hint_carets(void)
{
	const char *av[] = { "", "-t", "sched/sched_switch hist:keys=prev_pid if prev_pidx == 3",
			     "-t", "sched/sched_switch hist:keys=next_pid if next_pid >",
			     "-t", "sched/sched_switch hist:keys=prev_pid:size=64",
			     "-t", "sched/sched_switch hist:size=abc:keys=next_pid",
			     "-t", "sched/sched_switch hist:keys=prev_pid:size=99999999999999999999",
			     "-t", "sched/sched_switch hist:keys=next_pid:size=0 if next_pid >",
			     "-t", "sched/sched_switch hist:keys=prev_pid:size=+0x80",
			     DATA "sched.v7-zstd.dat", NULL };
	static const char *const want[] = {
		"'hist:keys=prev_pid if prev_pidx == 3': Invalid argument: bad filter: "
		"Field not found\n"
		"  Command: hist:keys=prev_pid if prev_pidx == 3\n"
		"                                           ^\n",
		"bad filter: Invalid value (did you forget quotes)?\n"
		"  Command: hist:keys=next_pid if next_pid >\n"
		"                                           ^\n",
		"'hist:keys=prev_pid:size=64': Invalid argument: size=64: a map has "
		"128 to 131072 entries (2^7 to 2^17)\n"
		"  Command: hist:keys=prev_pid:size=64\n"
		"                                   ^\n",
		"Invalid argument: size=abc: not a number (decimal, 0x hex or 0 octal)\n"
		"  Command: hist:size=abc:keys=next_pid\n"
		"                     ^\n",
		"Numerical result out of range: size=99999999999999999999: past the largest number",
		/* size= is read before the filter: it is the reason */
		"size=0 if next_pid >': Invalid argument: size=0: a map has",
	};
	struct run r = run_tool(av);
	size_t i;

	T_EQ(r.status, 1);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		T_ASSERT(r.err && strstr(r.err, want[i]));
	/* and the spellings kstrtoul takes are taken */
	T_ASSERT(r.err && !strstr(r.err, "0x80"));
	T_ASSERT(r.out && strstr(r.out, "keys=prev_pid:vals=hitcount:sort=hitcount:size=128 "));
	T_ASSERT(r.err && !strstr(r.err, "error_log"));
	if (r.err && !strstr(r.err, "size=64: a map"))
		printf("# %s", r.err);
	run_free(&r);
}

static void test_colon_spelling(void)
{
	const char *slash[] = { "", "-t", "sched/sched_switch hist:keys=prev_pid",
				DATA "sched.v7-zstd.dat", NULL };
	const char *colon[] = { "", "-t", "sched:sched_switch hist:keys=prev_pid",
				DATA "sched.v7-zstd.dat", NULL };
	struct run a = run_tool(slash), b = run_tool(colon);

	T_EQ(a.status, 0);
	T_EQ(b.status, 0);
	T_ASSERT(hits_of(a.out) == 27501);
	T_STREQ(b.out, a.out);
	run_free(&a);
	run_free(&b);
}


/* ---- every buffer of a trace.dat ---------------------------------------- */

static unsigned long long buffer_count(const char *file, const char *buffer,
				       const char *event)
{
	return conf_buffer_count(DATA "buffers.event-counts.txt", file, buffer, event);
}

static void test_instance_default(void)
{
	/* top buffer empty, one instance with records: that one, with a note */
	const char *av[] = { "", "-t", "sched:sched_switch hist:keys=prev_pid",
			     DATA "instance-only.v7-zstd.dat", NULL };
	const char *js[] = { "", "--json", "-t", "sched:sched_switch hist:keys=prev_pid",
			     DATA "instance-only.v7-zstd.dat", NULL };
	const char *top[] = { "", "--instance", "", "-t", "sched:sched_switch hist:keys=prev_pid",
			      DATA "instance-only.v7-zstd.dat", NULL };
	struct run a = run_tool(av), b = run_tool(js), c = run_tool(top);
	unsigned long long want = buffer_count("instance-only.v7-zstd.dat", "h17a", "sched_switch");

	T_ASSERT(want != ~0ull && want > 1000);
	T_EQ(a.status, 0);
	T_ASSERT(a.err && strstr(a.err, "note: the top buffer has no records: replaying "
				 "instance 'h17a'"));
	T_EQU(hits_of(a.out), want);
	T_EQ(b.status, 0);
	T_ASSERT(json_valid(b.out) && strstr(b.out, "\"instance\": \"h17a\""));
	/* asked for: the top buffer, empty, and no note */
	T_EQ(c.status, 0);
	T_EQU(hits_of(c.out), 0);
	T_ASSERT(c.err && !strstr(c.err, "replaying instance"));
	run_free(&a);
	run_free(&b);
	run_free(&c);
}

static void test_instance_pick(void)
{
	const char *f = DATA "multi-buffer.v7-zstd.dat";
	const char *deflt[] = { "", "-t", "sched:sched_switch hist:keys=prev_pid", f, NULL };
	const char *inst[] = { "", "--instance", "h17b", "-t", "sched:sched_switch hist:keys=prev_pid",
			       "-t", "sched/sched_process_exit hist:keys=pid", f, NULL };
	const char *top[] = { "", "--instance", "top", "-t", "sched:sched_waking hist:keys=pid",
			      "-t", "sched:sched_switch hist:keys=prev_pid", f, NULL };
	const char *bad[] = { "", "--instance", "nope", "-t", "sched:sched_switch hist:keys=prev_pid",
			      f, NULL };
	struct run a = run_tool(deflt), b = run_tool(inst), c = run_tool(top), d = run_tool(bad);
	unsigned long long sw = buffer_count("multi-buffer.v7-zstd.dat", "h17b", "sched_switch");
	unsigned long long ex = buffer_count("multi-buffer.v7-zstd.dat", "h17b", "sched_process_exit");
	unsigned long long wk = buffer_count("multi-buffer.v7-zstd.dat", "-", "sched_waking");
	char note[256];
	const char *p;

	/* the top buffer has records (not of sched_switch): it is replayed,
	 * and the note says where sched_switch's records are */
	T_EQ(a.status, 0);
	T_EQU(hits_of(a.out), 0);
	snprintf(note, sizeof(note), "note: sched:sched_switch has no records in the top "
		 "buffer; instance 'h17b' has %llu (--instance h17b)", sw);
	T_ASSERT(a.err && strstr(a.err, note));
	/* --instance: the kernel's triggers are per instance */
	T_EQ(b.status, 0);
	T_EQU(hits_of(b.out), ex);	/* sched_process_exit sorts first */
	p = b.out ? strstr(b.out, "hist:keys=prev_pid") : NULL;
	T_ASSERT(p != NULL);
	T_EQU(hits_of(p), sw);
	T_EQ(c.status, 0);
	p = c.out ? strstr(c.out, "hist:keys=pid") : NULL;
	T_EQU(hits_of(p), wk);
	snprintf(note, sizeof(note), "note: sched:sched_switch has no records in the top "
		 "buffer; instance 'h17b' has %llu", sw);
	T_ASSERT(c.err && strstr(c.err, note));
	T_EQ(d.status, 2);
	T_ASSERT(d.err && strstr(d.err, "no buffer 'nope' in the recording; it has: \"\" (top), h17b"));
	run_free(&a);
	run_free(&b);
	run_free(&c);
	run_free(&d);
}

/* trace.dat v6: instances are BUFFER options pointing at CPU tables */
static void test_v6_instances(void)
{
	char path[512], want[256];
	size_t len;
	char *file = conf_read_zst(DATA "multi-buffer.v6.dat.zst", &len);
	const char *list[] = { "", "--list", path, NULL };
	const char *inst[] = { "", "--instance", "h17v6a", "-t", "sched:sched_switch hist:keys=prev_pid",
			       "-t", "sched/sched_process_exit hist:keys=pid", path, NULL };
	const char *deflt[] = { "", "-t", "sched:sched_wakeup hist:keys=pid", path, NULL };
	const char *other[] = { "", "--instance", "h17v6b", "-t", "sched:sched_wakeup hist:keys=pid",
				"-", NULL };
	char bad[512], *q;
	const char *bad_list[] = { "", "--list", bad, NULL };
	const char *bad_inst[] = { "", "--instance", "h17v6a", "-t",
				   "sched:sched_switch hist:keys=prev_pid", bad, NULL };
	const char *no_inst[] = { "", "--list", "--instance", "nope", path, NULL };
	const char *top_inst[] = { "", "--list", "--instance", "top", path, NULL };
	int k = 0;
	struct run a, b, c, d, e;
	unsigned long long sw = buffer_count("multi-buffer.v6.dat", "h17v6a", "sched_switch"),
			   ex = buffer_count("multi-buffer.v6.dat", "h17v6a", "sched_process_exit"),
			   wk = buffer_count("multi-buffer.v6.dat", "-", "sched_waking"),
			   wu = buffer_count("multi-buffer.v6.dat", "-", "sched_wakeup"),
			   wb = buffer_count("multi-buffer.v6.dat", "h17v6b", "sched_wakeup");
	const char *p;

	T_ASSERT(file != NULL);
	snprintf(path, sizeof(path), "%s/multi-buffer.v6.dat", tmpdir);
	write_bytes(path, file ? file : "", file ? len : 0);
	/* the same with h17v6a's CPU table damaged (the third "flyrecord":
	 * the top one, h17v6b's, h17v6a's) */
	snprintf(bad, sizeof(bad), "%s/bad-instance.v6.dat", tmpdir);
	for (q = file, k = 0; file && (q = memmem(q, len - (size_t)(q - file), "flyrecord", 10));
	     q++)
		if (++k == 3) {
			*q = 'X';
			write_bytes(bad, file, len);
			break;
		}
	T_EQ(k, 3);
	free(file);
	a = run_tool(list);
	b = run_tool(inst);
	c = run_tool(deflt);
	d = run_tool_in(other, path);	/* and from standard input */
	T_EQ(a.status, 0);
	snprintf(want, sizeof(want), "buffer '' (top): 2 CPUs, clock local, %llu records\n", wk + wu);
	T_ASSERT(a.out && strstr(a.out, want));
	snprintf(want, sizeof(want), "buffer 'h17v6a': 2 CPUs, clock local, %llu records\n"
		 "  sched:sched_process_exit  %llu records (id ", sw + ex, ex);
	T_ASSERT(a.out && strstr(a.out, want));
	snprintf(want, sizeof(want), "buffer 'h17v6b': 2 CPUs, clock local, %llu records\n", wb);
	T_ASSERT(a.out && strstr(a.out, want));
	T_EQ(b.status, 0);
	T_EQU(hits_of(b.out), ex);	/* sched_process_exit sorts first */
	p = b.out ? strstr(b.out, "hist:keys=prev_pid") : NULL;
	T_EQU(hits_of(p), sw);
	/* the top buffer by default: its own sched_wakeup, not h17v6b's */
	T_EQ(c.status, 0);
	T_EQU(hits_of(c.out), wu);
	T_EQ(d.status, 0);
	T_EQU(hits_of(d.out), wb);
	if (d.status)
		printf("# %s", d.err ? d.err : "");
	/* a buffer that cannot be read: listed as such (exit 3, the
	 * others listed), and named with its damage when asked for */
	e = run_tool(bad_list);
	T_EQ(e.status, 3);
	T_ASSERT(e.out && strstr(e.out, "buffer 'h17v6a': cannot be read: trace.dat: buffer "
				 "'h17v6a': missing 'flyrecord' at offset "));
	snprintf(want, sizeof(want), "buffer 'h17v6b': 2 CPUs, clock local, %llu records\n", wb);
	T_ASSERT(e.out && strstr(e.out, want));
	run_free(&e);
	e = run_tool(bad_inst);
	T_EQ(e.status, 2);
	T_ASSERT(e.err && strstr(e.err, "buffer 'h17v6a': missing 'flyrecord' at offset ") &&
		 !strstr(e.err, "no buffer"));
	run_free(&e);
	e = run_tool(no_inst);
	T_EQ(e.status, 2);
	T_ASSERT(e.err && strstr(e.err, "no buffer 'nope' in the recording; it has: \"\" (top), "
				 "h17v6b, h17v6a"));
	run_free(&e);
	e = run_tool(top_inst);
	T_EQ(e.status, 0);
	T_ASSERT(e.out && strstr(e.out, "buffer '' (top): ") && !strstr(e.out, "h17v6"));
	run_free(&e);
	run_free(&a);
	run_free(&b);
	run_free(&c);
	run_free(&d);
}

static void test_list(void)
{
	const char *av[] = { "", "--list", DATA "multi-buffer.v7-zstd.dat", NULL };
	const char *one[] = { "", "--list", "--instance", "h17b", DATA "multi-buffer.v7-zstd.dat",
			      NULL };
	struct run a = run_tool(av), b = run_tool(one);
	unsigned long long wk = buffer_count("multi-buffer.v7-zstd.dat", "-", "sched_waking"),
			   wu = buffer_count("multi-buffer.v7-zstd.dat", "-", "sched_wakeup"),
			   sw = buffer_count("multi-buffer.v7-zstd.dat", "h17b", "sched_switch"),
			   ex = buffer_count("multi-buffer.v7-zstd.dat", "h17b", "sched_process_exit");
	char want[256];
	const char *h;

	T_EQ(a.status, 0);
	snprintf(want, sizeof(want), "buffer '' (top): 2 CPUs, clock local, %llu records\n"
		 "  sched:sched_wakeup  %llu records (id ", wk + wu, wu);
	T_ASSERT(a.out && strstr(a.out, want));
	snprintf(want, sizeof(want), "buffer 'h17b': 2 CPUs, clock local, %llu records\n"
		 "  sched:sched_process_exit  %llu records (id ", sw + ex, ex);
	h = a.out ? strstr(a.out, want) : NULL;
	T_ASSERT(h != NULL);
	snprintf(want, sizeof(want), "  sched:sched_switch  %llu records (id ", sw);
	T_ASSERT(h && strstr(h, want));
	/* each event's fields, with the format file's types */
	T_ASSERT(h && strstr(h, "\n    prev_comm                    char[16]"
			     "                 offset 8, size 16\n"));
	T_ASSERT(a.out && strstr(a.out, "    target_cpu                   int      "));
	T_EQ(b.status, 0);
	T_ASSERT(b.out && !strstr(b.out, "(top)") && strstr(b.out, "buffer 'h17b'"));
	if (!h)
		printf("# %s", a.out ? a.out : "");
	run_free(&a);
	run_free(&b);
}


/* ---- windows: CPUs, a time span, intervals, standard input -------------- */

/* sched_switch records of the sched recording on CPU (-1: any) with
 * FROM <= ts - first < TO (ns), by the reader's own walk; *FIRST: the
 * first record's time stamp as trace-cmd report shows it. */
static uint64_t switches_in(int cpu, uint64_t from, uint64_t to, uint64_t *first)
{
	char err[512];
	struct hist_tracedat *td = hist_tracedat_open(DATA "sched.v7-zstd.dat", err, sizeof(err));
	const struct hist_ftrace_event *sw;
	struct hist_ftrace_record rec;
	uint64_t n = 0, t0 = 0;
	int seen = 0;

	T_ASSERT(td != NULL);
	if (!td)
		return 0;
	sw = hist_tracedat_find_event(td, "sched", "sched_switch");
	while (sw && hist_tracedat_next(td, &rec) > 0) {
		if (!seen++)
			t0 = rec.ts;
		if (rec.type == sw->desc.id && (cpu < 0 || rec.cpu == (uint32_t)cpu) &&
		    rec.ts - t0 >= from && rec.ts - t0 < to)
			n++;
	}
	if (first)
		*first = t0 + (uint64_t)hist_tracedat_ts_offset(td);
	hist_tracedat_close(td);
	return n;
}

static void test_cpu_and_span(void)
{
	const char *f = DATA "sched.v7-zstd.dat", *trig = "sched:sched_switch hist:keys=common_cpu";
	char from_abs[64];
	const char *cpu[] = { "", "--cpu", "1", "-t", trig, f, NULL };
	const char *cpus[] = { "", "--cpu", "0-1,7", "-t", trig, f, NULL };
	const char *span[] = { "", "--from", "2.5", "--to", "5", "-t", trig, f, NULL };
	const char *abs[] = { "", "--from", from_abs, "--to", "5", "-t", trig, f, NULL };
	const char *bad1[] = { "", "--cpu", "1-", "-t", trig, f, NULL };
	const char *bad2[] = { "", "--from", "soon", "-t", trig, f, NULL };
	struct run a = run_tool(cpu), b = run_tool(cpus), c = run_tool(span), e = run_tool(bad1),
		   g = run_tool(bad2), d;
	uint64_t first = 0, on1 = switches_in(1, 0, UINT64_MAX, &first),
		 all = switches_in(-1, 0, UINT64_MAX, NULL),
		 mid = switches_in(-1, 2500000000ull, 5000000000ull, NULL);

	T_ASSERT(on1 > 1000 && on1 < all && mid > 1000 && mid < all);
	T_EQ(a.status, 0);
	T_EQU(hits_of(a.out), on1);
	T_ASSERT(a.out && !strstr(a.out, "common_cpu:          0"));
	T_EQ(b.status, 0);
	T_EQU(hits_of(b.out), all);
	T_EQ(c.status, 0);
	T_EQU(hits_of(c.out), mid);
	/* the same start as a time stamp (trace-cmd report's column) */
	first += 2500000000ull;
	snprintf(from_abs, sizeof(from_abs), "@%llu.%09llu", (unsigned long long)(first / 1000000000),
		 (unsigned long long)(first % 1000000000));
	d = run_tool(abs);
	T_EQ(d.status, 0);
	T_STREQ(d.out, c.out);
	T_EQ(e.status, 2);
	T_ASSERT(e.err && strstr(e.err, "--cpu wants a list"));
	T_EQ(g.status, 2);
	T_ASSERT(g.err && strstr(g.err, "--from wants seconds"));
	run_free(&a);
	run_free(&b);
	run_free(&c);
	run_free(&d);
	run_free(&e);
	run_free(&g);
}

/* "{ common_cpu:          C } hitcount:  N" summed over the text */
static unsigned long long cpu_hits(const char *out, int cpu)
{
	char key[64];
	const char *p = out;
	unsigned long long n = 0;

	snprintf(key, sizeof(key), "{ common_cpu: %10d } hitcount: ", cpu);
	while (p && (p = strstr(p, key))) {
		p += strlen(key);
		n += strtoull(p, NULL, 10);
	}
	return n;
}

static void test_interval(void)
{
	const char *f = DATA "sched.v7-zstd.dat";
	const char *trig = "sched:sched_switch hist:keys=common_cpu if prev_pid > 0";
	const char *whole[] = { "", "-t", trig, f, NULL };
	const char *win[] = { "", "--interval", "1.5", "-t", trig, f, NULL };
	const char *js[] = { "", "--json", "--interval", "4", "-t", trig, f, NULL };
	const char *bad[] = { "", "--interval", "2", "-o", "/nonexistent/x", "-t", trig, f, NULL };
	const char *om[] = { "", "--openmetrics", "--interval", "2", "-t", trig, f, NULL };
	const char *li[] = { "", "--listen", "127.0.0.1:0", "--interval", "2", "-t", trig, f, NULL };
	struct run a = run_tool(whole), b = run_tool(win), c = run_tool(js), d = run_tool(bad),
		   e = run_tool(om), g = run_tool(li);
	unsigned long long sum = 0, nwin = 0, k;
	const char *p;

	T_EQ(a.status, 0);
	T_EQ(b.status, 0);
	/* one table per 1.5 s window, and they add up to the whole */
	for (p = b.out; p && (p = strstr(p, "    Hits: ")); p += 10)
		sum += strtoull(p + 10, NULL, 10);
	for (p = b.out; p && (p = strstr(p, "# window ")); p += 9)
		nwin++;
	T_EQU(nwin, 7);		/* the recording spans 10.04 s */
	T_ASSERT(b.out && strstr(b.out, "# window 0: 0.000000 .. 1.500000 s after the first record\n"
				 "# event histogram\n"));
	T_ASSERT(b.out && strstr(b.out, "# window 6: 9.000000 .. 10.040864 s after the first record\n"));
	T_EQU(sum, hits_of(a.out));
	for (k = 0; k < 2; k++)
		T_EQU(cpu_hits(b.out, (int)k), cpu_hits(a.out, (int)k));
	T_ASSERT(cpu_hits(a.out, 0) > 1000);
	/* JSON: a document per window, one per line (NDJSON), parsed line
	 * by line; their totals add up to the whole run's */
	T_EQ(c.status, 0);
	nwin = 0;
	sum = 0;
	for (p = c.out; p && *p; nwin++) {
		const char *nl = strchr(p, '\n'), *h;
		char *line = nl ? strndup(p, (size_t)(nl - p)) : NULL, want[64];

		T_ASSERT(line != NULL);	/* every document ends its line */
		if (!line)
			break;
		T_ASSERT(json_valid(line));
		snprintf(want, sizeof(want), "\"window\": { \"index\": %llu, ", nwin);
		T_ASSERT(strstr(line, want) != NULL);
		h = strstr(line, "\"totals\": { \"hits\": ");
		T_ASSERT(h != NULL);
		if (h)
			sum += strtoull(h + 19, NULL, 10);
		free(line);
		p = nl + 1;
	}
	T_EQU(nwin, 3);
	T_EQU(sum, hits_of(a.out));
	T_EQ(d.status, 2);
	T_ASSERT(d.err && strstr(d.err, "does not go with -o"));
	T_EQ(e.status, 2);
	T_ASSERT(e.err && strstr(e.err, "--openmetrics is one scrape; for a table per "
				 "--interval window use --json"));
	T_ASSERT(e.out && !e.out[0]);
	/* it would serve nothing: the windows' tables are gone */
	T_EQ(g.status, 2);
	T_ASSERT(g.err && strstr(g.err, "--listen serves the tables of the whole replay; "
				 "it does not go with --interval"));
	run_free(&e);
	run_free(&g);
	run_free(&a);
	run_free(&b);
	run_free(&c);
	run_free(&d);
}

/* What a user gets wrong is said, never answered with empty tables. */
static void test_no_silent_zero(void)
{
	const char *f = DATA "sched.v7-zstd.dat", *trig = "sched:sched_switch hist:keys=prev_pid";
	const char *none[] = { "", f, NULL };
	const char *cpu_out[] = { "", "--cpu", "5-7", "-t", trig, f, NULL };
	const char *cpu_some[] = { "", "--cpu", "1,5", "-t", trig, f, NULL };
	const char *cpu_one[] = { "", "--cpu", "1", "-t", trig, f, NULL };
	const char *past[] = { "", "--from", "1000", "-t", trig, f, NULL };
	const char *before[] = { "", "--to", "@1", "-t", trig, f, NULL };
	const char *order[] = { "", "--from", "2", "--to", "1", "-t", trig, f, NULL };
	const char *inside[] = { "", "--from", "1", "--to", "2", "-t", trig, f, NULL };
	const char *in[] = { "", "-t", trig, "-", NULL };
	const char *nosuch[] = { "", "-t", "kmem:kmalloc hist:keys=call_site", f, NULL };
	/* its format is in the file, no record of it is */
	const char *noneat[] = { "", "-t", "ftrace:print hist:keys=ip", f, NULL };
	struct run r;

	r = run_tool(none);
	T_EQ(r.status, 2);
	T_ASSERT(r.err && strstr(r.err, "no trigger to replay (-t, -T or --at-marker); "
				 "--list shows the recording's events and fields"));
	run_free(&r);
	r = run_tool(cpu_out);
	T_EQ(r.status, 2);
	T_ASSERT(r.err && strstr(r.err, "hist-replay: --cpu 5-7: the recording has CPUs 0-1\n"));
	T_ASSERT(r.out && !r.out[0]);
	run_free(&r);
	r = run_tool(cpu_some);
	T_EQ(r.status, 0);
	T_ASSERT(r.err && strstr(r.err, "warning: --cpu 1,5: the recording has CPUs 0-1; "
				 "the others have no records"));
	{
		struct run one = run_tool(cpu_one);

		T_EQ(one.status, 0);
		T_ASSERT(hits_of(one.out) > 1000);
		T_EQU(hits_of(r.out), hits_of(one.out));
		run_free(&one);
	}
	run_free(&r);
	r = run_tool(past);
	T_EQ(r.status, 0);
	T_EQU(hits_of(r.out), 0);
	/* the recording spans 10.04 s (test_interval) */
	T_ASSERT(r.err && strstr(r.err, "warning: --from/--to select no record; the records "
				 "read run from @") && strstr(r.err, "(0 .. 10.040864 s)"));
	run_free(&r);
	r = run_tool(before);
	T_EQ(r.status, 0);
	T_ASSERT(r.err && strstr(r.err, "warning: --to ends before the first record (@"));
	run_free(&r);
	r = run_tool(order);
	T_EQ(r.status, 2);
	T_ASSERT(r.err && strstr(r.err, "--to must come after --from"));
	run_free(&r);
	r = run_tool(inside);
	T_EQ(r.status, 0);
	T_ASSERT(hits_of(r.out) > 0);
	T_ASSERT(r.err && !strstr(r.err, "warning"));
	run_free(&r);
	r = run_tool_in(in, "/dev/null");
	T_EQ(r.status, 2);
	T_ASSERT(r.err && strstr(r.err, "standard input is empty"));
	T_ASSERT(r.err && !strstr(r.err, "/proc/self"));
	run_free(&r);
	r = run_tool(noneat);
	T_EQ(r.status, 0);
	T_EQU(hits_of(r.out), 0);
	T_ASSERT(r.err && strstr(r.err, "hist-replay: note: ftrace:print has no records in the "
				 "recording (it was not enabled, or never hit; --list shows the "
				 "events with records)\n"));
	run_free(&r);
	r = run_tool(nosuch);
	T_EQ(r.status, 1);
	T_ASSERT(r.err && strstr(r.err, "no event kmem/kmalloc in the recording "
				 "(--list shows its events)"));
	run_free(&r);
}

/* No file named: ./trace.dat, else ./perf.data, as trace-cmd report and
 * perf script read them */
static void test_default_file(void)
{
	char dir[600], p[700];
	const char *trig[] = { "", "-t", "sched:sched_switch hist:keys=prev_pid", NULL };
	const char *list[] = { "", "--list", NULL };
	size_t len = 0;
	char *dat = conf_read_file(DATA "sched.v7-zstd.dat", &len);
	char *perf = NULL;
	size_t plen = 0;
	struct run r;

	snprintf(dir, sizeof(dir), "%s/cwd", tmpdir);
	T_ASSERT(mkdir(dir, 0700) == 0 || errno == EEXIST);
	run_cwd = dir;
	r = run_tool(trig);
	T_EQ(r.status, 2);
	T_ASSERT(r.err && strstr(r.err, "missing TRACE.dat (and no ./trace.dat or ./perf.data "
				 "here)"));
	run_free(&r);
	perf = conf_read_file(DATA "perf/sched.perf.data", &plen);
	T_ASSERT(perf != NULL);
	snprintf(p, sizeof(p), "%s/perf.data", dir);
	write_bytes(p, perf ? perf : "", plen);
	r = run_tool(list);
	T_EQ(r.status, 0);
	T_ASSERT(r.out && strstr(r.out, "clock perf"));
	run_free(&r);
	/* trace.dat first */
	snprintf(p, sizeof(p), "%s/trace.dat", dir);
	write_bytes(p, dat ? dat : "", len);
	r = run_tool(trig);
	T_EQ(r.status, 0);
	T_EQU(hits_of(r.out), 27501);	/* test_colon_spelling */
	run_free(&r);
	run_cwd = NULL;
	free(dat);
	free(perf);
}

static void test_stdin(void)
{
	const char *file[] = { "", "--json", "-t", "sched:sched_switch hist:keys=prev_pid",
			       DATA "sched.v6.dat", NULL };
	const char *in[] = { "", "--json", "-t", "sched:sched_switch hist:keys=prev_pid", "-", NULL };
	const char *ex[] = { "", "-t", "sched/sched_process_exec hist:keys=common_pid.execname",
			     "-", NULL };
	const char *exf[] = { "", "-t", "sched/sched_process_exec hist:keys=common_pid.execname",
			      DATA "sched.v6.dat", NULL };
	struct run a = run_tool(file), b = run_tool_in(in, DATA "sched.v6.dat"),
		   c = run_tool_in(ex, DATA "sched.v6.dat"), d = run_tool(exf);
	const char *pa = a.out ? strstr(a.out, "\"instance\"") : NULL;
	const char *pb = b.out ? strstr(b.out, "\"instance\"") : NULL;

	T_EQ(a.status, 0);
	T_EQ(b.status, 0);
	/* the same document but for "trace" */
	T_ASSERT(pa && pb && !strcmp(pa, pb));
	T_ASSERT(b.out && strstr(b.out, "\"trace\": \"-\""));
	/* the task-name pass reads standard input's copy too */
	T_EQ(c.status, 0);
	T_STREQ(c.out, d.out);
	T_ASSERT(c.out && strstr(c.out, "Hits: 1014"));
	run_free(&a);
	run_free(&b);
	run_free(&c);
	run_free(&d);
}

/* ---- the engine: task names --------------------------------------------- */

static void test_comm_history(void)
{
	char err[512], comm[16];
	struct replay *r = replay_open(CASES "/g02-execname-sort-desc/trace.dat",
				       NULL, err, sizeof(err));
	struct hist_tracedat *td;
	struct hist_ftrace_record rec;
	const struct hist_ftrace_event *rename;
	uint64_t idx = 0, first = 0, renamed[2] = { 0, 0 };
	int nr = 0;

	T_ASSERT(r != NULL);
	if (!r) {
		printf("# %s\n", err);
		return;
	}
	/* find pid 157's records: its first, and its two renames
	 * (sh -> exe at exec, exe -> sleep by busybox) */
	td = hist_tracedat_open(CASES "/g02-execname-sort-desc/trace.dat", err,
				sizeof(err));
	T_ASSERT(td != NULL);
	if (!td) {
		replay_close(r);
		return;
	}
	rename = hist_tracedat_find_event(td, "task", "task_rename");
	T_ASSERT(rename != NULL);
	while (rename && hist_tracedat_next(td, &rec) > 0) {
		int32_t pid;

		idx++;
		memcpy(&pid, rec.data + 4, 4);
		if (pid != 157)
			continue;
		if (!first)
			first = idx;
		if (rec.type == rename->desc.id && nr < 2)
			renamed[nr++] = idx;
	}
	hist_tracedat_close(td);
	T_EQ(nr, 2);
	/* before exec the task was still the shell's child: "sh" */
	replay_comm_at(r, 157, first, comm);
	T_STREQ(comm, "sh");
	/* task_rename fires before the name changes */
	replay_comm_at(r, 157, renamed[0], comm);
	T_STREQ(comm, "sh");
	replay_comm_at(r, 157, renamed[0] + 1, comm);
	T_STREQ(comm, "exe");
	replay_comm_at(r, 157, renamed[1] + 1, comm);
	T_STREQ(comm, "sleep");
	/* and the history may be asked out of order */
	replay_comm_at(r, 157, first, comm);
	T_STREQ(comm, "sh");
	replay_comm_at(r, 0, first, comm);
	T_STREQ(comm, "<idle>");
	/* a pid never seen: saved_cmdlines, else <...> */
	replay_comm_at(r, 999999, first, comm);
	T_STREQ(comm, "<...>");
	replay_close(r);
}

/*
 * A recording without task_rename cannot say when a name changed: the
 * tool says so when a trigger asks for names and some task changed its
 * name (g01: busybox's children), and not when the renames are recorded
 * (g02) or no trigger asks.
 */
static void test_comm_warning(void)
{
	const char *g01[] = { "", "-t",
			      "raw_syscalls/sys_enter hist:keys=common_pid.execname",
			      CASES "/g01-pid-counts/trace.dat", NULL };
	const char *g02[] = { "", "-t",
			      "raw_syscalls/sys_enter hist:keys=common_pid.execname",
			      CASES "/g02-execname-sort-desc/trace.dat", NULL };
	const char *nocomm[] = { "", "-t",
				 "raw_syscalls/sys_enter hist:keys=common_pid",
				 CASES "/g01-pid-counts/trace.dat", NULL };
	const char *warning = "task names change in the recording, which has "
			      "no task:task_rename records";
	struct run r = run_tool(g01);

	T_EQ(r.status, 0);
	T_ASSERT(r.err && strstr(r.err, warning));
	run_free(&r);
	r = run_tool(g02);
	T_EQ(r.status, 0);
	T_ASSERT(r.err && !strstr(r.err, warning));
	run_free(&r);
	r = run_tool(nocomm);
	T_EQ(r.status, 0);
	T_ASSERT(r.err && !strstr(r.err, warning));
	run_free(&r);
}

static void test_write_targets(void)
{
	char err[512];
	struct replay *r = replay_open(CASES "/g02-execname-sort-desc/trace.dat",
				       NULL, err, sizeof(err));

	T_ASSERT(r != NULL);
	if (!r)
		return;
	T_EQ(replay_write(r, "sched/no_such_event", "hist:keys=pid"),
	     -HIST_ENOENT);
	T_ASSERT(replay_last_msg(r) != NULL);
	T_EQ(replay_write(r, "/events/sched/sched_switch/filter",
			  "prev_pid > 0"), 0);
	T_EQ(replay_write(r, "/events/sched/sched_switch/trigger",
			  "hist:keys=prev_pid"), 0);
	T_EQ(replay_write(r, "kprobe_events", "p:myprobe do_sys_open"), 0);
	T_EQ(replay_write(r, "nonsense", "x"), -HIST_ENOENT);
	T_EQ(replay_setting(r, "trace_clock", "mono\n"), 0);
	T_EQ(replay_setting(r, "trace_clock", "sundial"), -HIST_EINVAL);
	T_EQ(replay_run(r), 0);
	T_EQ(replay_nr_events(r), 1);
	replay_close(r);
}

/* ---- the comparator ----------------------------------------------------- */

static int for_each_hist(void (*fn)(const char *text, void *arg), void *arg)
{
	DIR *d = opendir(CASES), *hd;
	struct dirent *de, *he;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char p[1024];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), CASES "/%s/expected/hist", de->d_name);
		hd = opendir(p);
		if (!hd)
			continue;
		while ((he = readdir(hd))) {
			char f[2048], *text, **sec;
			size_t ns, i;

			if (he->d_name[0] == '.')
				continue;
			snprintf(f, sizeof(f), "%s/%s", p, he->d_name);
			text = conf_read_file(f, NULL);
			if (!text)
				continue;
			ns = conf_split_sections(text, &sec);
			for (i = 0; i < ns; i++) {
				fn(sec[i], arg);
				n++;
			}
			conf_free_strv(sec, ns);
			free(text);
		}
		closedir(hd);
	}
	closedir(d);
	return n;
}

struct mut_stats {
	int how, applied, wrong;
};

static void mut_one(const char *sec, void *arg)
{
	struct mut_stats *st = arg;
	struct replay_buf d = { 0 };
	char *m;
	int rc;

	if (st->how < 0) {
		/* every kernel hist equals itself */
		if (conf_compare_section(sec, sec, 0, &d))
			st->wrong++;
		st->applied++;
		replay_buf_free(&d);
		return;
	}
	m = conf_mutate(sec, st->how);
	if (!m)
		return;
	st->applied++;
	rc = conf_compare_section(sec, m, 0, &d);
	if (rc != (st->how != CONF_MUT_SHUFFLE_TIES)) {
		st->wrong++;
		if (st->wrong < 3)
			printf("#   mutation %d judged %s:\n%s\n", st->how,
			       rc ? "different" : "equal", m);
	}
	replay_buf_free(&d);
	free(m);
}

static void check_mutation(int how, int min_applied)
{
	struct mut_stats st = { how, 0, 0 };
	int n = for_each_hist(mut_one, &st);

	T_ASSERT(n >= 100);
	T_ASSERT(st.applied >= min_applied);
	T_EQ(st.wrong, 0);
}

static void test_compare_self(void) { check_mutation(-1, 100); }
static void test_compare_ties(void) { check_mutation(CONF_MUT_SHUFFLE_TIES, 50); }
static void test_compare_swap(void) { check_mutation(CONF_MUT_SWAP_UNTIED, 50); }
static void test_compare_drop(void) { check_mutation(CONF_MUT_DROP_ENTRY, 100); }
static void test_compare_hitcount(void) { check_mutation(CONF_MUT_HITCOUNT, 100); }
static void test_compare_hits(void) { check_mutation(CONF_MUT_HITS, 100); }

static void test_errlog_norm(void)
{
	char *s = conf_errlog_norm("[    6.487656] hist:a:b: error: X\n"
				   "  Command: hist:keys=[x]\n"
				   "           ^\n"
				   "[12345.000001] synthetic_events: error: Y\n");

	T_STREQ(s, "hist:a:b: error: X\n  Command: hist:keys=[x]\n"
		   "           ^\nsynthetic_events: error: Y\n");
	free(s);
}

int main(int argc, char **argv)
{
	char build[3900];

	(void)argc;
	t_build_dir(build, sizeof(build), argv[0]);
	snprintf(tool, sizeof(tool), "%s/hist-replay", build);
	if (t_scratch(tmpdir, sizeof(tmpdir), "test_replay")) {
		printf("not ok 1 - mkdtemp: %s\n0 passed, 1 failed\n",
		       strerror(errno));
		return 1;
	}
	if (access(tool, X_OK)) {
		printf("not ok 1 - %s: %s\n0 passed, 1 failed\n", tool,
		       strerror(errno));
		return 1;
	}
	T_RUN(test_bad_trigger_keeps_going);
	T_RUN(test_output_dir);
	T_RUN(test_trigger_file);
	T_RUN(test_at_marker);
	T_RUN(test_synthetic_copies_skipped);
	T_RUN(test_json);
	T_RUN(test_usage_errors);
	T_RUN(test_damaged_input);
	T_RUN(test_lost);
	T_RUN(test_truncated);
	T_RUN(test_map_full);
	T_RUN(test_hint_carets);
	T_RUN(test_colon_spelling);
	T_RUN(test_instance_default);
	T_RUN(test_instance_pick);
	T_RUN(test_list);
	T_RUN(test_v6_instances);
	T_RUN(test_cpu_and_span);
	T_RUN(test_interval);
	T_RUN(test_stdin);
	T_RUN(test_default_file);
	T_RUN(test_no_silent_zero);
	T_RUN(test_comm_history);
	T_RUN(test_comm_warning);
	T_RUN(test_write_targets);
	T_RUN(test_compare_self);
	T_RUN(test_compare_ties);
	T_RUN(test_compare_swap);
	T_RUN(test_compare_drop);
	T_RUN(test_compare_hitcount);
	T_RUN(test_compare_hits);
	T_RUN(test_errlog_norm);
	t_scratch_remove(tmpdir);
	return T_DONE();
}
