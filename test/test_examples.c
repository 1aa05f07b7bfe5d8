/* SPDX-License-Identifier: MIT */
/*
 * The example hosts, run for real.
 *
 * hist-live on this machine's kernel: context switches per task while a
 * workload of known name runs (it must show up), wakeup latency through a
 * synthetic event (every latency must be a real one: the CPUs' records are
 * merged in time order), JSON output, and --top, after which every tracefs
 * file it touched must read as before.  Needs root and tracefs: without
 * them (a CI container) these tests say SKIP and why.
 *
 * libhist-malloc.so preloaded into a workload with known allocations: the
 * size histogram counts them exactly, the synthetic latency event fires
 * once per malloc, onmax().save() keeps the maximum, JSON parses, and the
 * preload survives ordinary programs.  Not under sanitizers (an
 * instrumented preload cannot go into an uninstrumented program).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static char tmp[256], build[512], tracefs[512];
static int tracefs_mounted_by_us;	/* t_tracefs_find() */

#include "test_shell.h"

static int have_python(void)
{
	return system("python3 -c 'import json' >/dev/null 2>&1") == 0;
}

/* The next line of a tool's own ("# sched/sched_switch ...", not the
 * hist file's "# event histogram", "# trigger info", "#") after P. */
static const char *next_section(const char *p)
{
	while ((p = strstr(p + 1, "\n# "))) {
		if (strncmp(p, "\n# event histogram", strlen("\n# event histogram")) &&
		    strncmp(p, "\n# trigger info", strlen("\n# trigger info")))
			return p;
	}
	return NULL;
}

/* The number after LABEL in the section of TEXT that starts at HEADER
 * ("# sched/sched_switch", a key "{ size: ~ 2^6  }"; NULL: the start),
 * or -1. */
static long long number_after(const char *text, const char *header, const char *label)
{
	const char *p = header ? strstr(text, header) : text;
	const char *end = p ? next_section(p) : NULL;
	const char *q;

	if (!p)
		return -1;
	q = strstr(p, label);
	if (!q || (end && q > end))
		return -1;
	return strtoll(q + strlen(label), NULL, 10);
}

/* ---- hist-live ------------------------------------------------------------ */

/* Can hist-live run here?  Finds (or mounts) tracefs for the state checks;
 * 0 with a reason printed if not. */
static int live_possible(void)
{
	tracefs_mounted_by_us = t_tracefs_find(tracefs, sizeof(tracefs), tmp, "hist-live");
	return t_tracefs_need(tracefs, "events/sched/sched_switch/format", R_OK, "hist-live");
}

/* Run hist-live with ARGS (bounded); 0, or SKIP (3: no tracing here). */
static int run_live(const char *args)
{
	int st = sh(1, "timeout -s INT 60 %s/hist-live -q --tracefs %s %s > %s/live.out",
		    build, tracefs, args, tmp);

	if (st == 3)
		printf("# SKIP hist-live cannot trace here (exit 3)\n");
	return st;
}

/* Instances hist-live.PID whose process is gone: what a run left behind.
 * (Instances are kernel-wide, so a concurrent run's live ones are not
 * counted, and one still there 3 s later is: test_live kills a hist-live
 * with SIGKILL on purpose, and its next run removes that one at once.) */
static int leftover_instances(void)
{
	return sh(0, "dead() { for d in %s/instances/hist-live.*; do [ -d \"$d\" ] || "
		  "continue; kill -0 \"${d##*.}\" 2>/dev/null || echo \"$d\"; done; }; "
		  "a=$(dead); [ -n \"$a\" ] || exit 1; sleep 3; b=$(dead | tr '\\n' ' '); "
		  "for d in $a; do case \" $b \" in *\" $d \"*) exit 0;; esac; done; exit 1",
		  tracefs) == 0;
}

static void test_live_switch_counts(void)
{
	char *out;
	long long n;
	int st;

	if (!tracefs[0])
		return;
	/* a workload whose name we know: the shell running this script is
	 * "hlwork", and it sleeps (switches out) 100 times */
	T_EQ(sh(1, "printf '#!/bin/sh\\ni=0\\nwhile [ $i -lt 100 ]; do sleep 0.01; "
		"i=$((i+1)); done\\n' > %s/hlwork && chmod +x %s/hlwork", tmp, tmp), 0);
	st = sh(1, "timeout -s INT 60 %s/hist-live -q --tracefs %s -d 30 "
		"-t 'sched/sched_switch hist:keys=prev_comm:sort=hitcount.descending' "
		"-- %s/hlwork > %s/live.out", build, tracefs, tmp, tmp);
	if (st == 3) {
		printf("# SKIP hist-live cannot trace here (exit 3)\n");
		return;
	}
	T_EQ(st, 0);
	out = t_readf("%s/live.out", tmp);
	T_ASSERT(out && strstr(out, "# trigger info: hist:keys=prev_comm:vals=hitcount:"
			       "sort=hitcount.descending:size=2048 [active]"));
	n = out ? number_after(out, "{ prev_comm: hlwork ", "hitcount:") : -1;
	if (n < 100)
		printf("# hlwork switched out %lld times\n", n);
	T_ASSERT(n >= 100);
	T_ASSERT(out && number_after(out, "{ prev_comm: sleep ", "hitcount:") >= 50);
	T_ASSERT(out && number_after(out, NULL, "    Hits: ") > 200);
	free(out);
	T_EQ(leftover_instances(), 0);
}

static void test_live_wakeup_latency(void)
{
	char *out, *p;
	long long hits;
	int st;

	if (!tracefs[0])
		return;
	st = run_live("-d 2 -s 'wakeup_latency u64 lat; pid_t pid; char comm[16]' "
		      "-t 'sched/sched_waking hist:keys=pid:ts0=common_timestamp.usecs' "
		      "-t 'sched/sched_switch hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:"
		      "onmatch(sched.sched_waking).wakeup_latency($lat,next_pid,next_comm)' "
		      "-t 'synthetic/wakeup_latency hist:keys=lat.log2:sort=lat' "
		      "-t 'synthetic/wakeup_latency hist:keys=comm:l=lat:sort=hitcount.descending:"
		      "onmax($l).save(pid)' "
		      "-- sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 0.05; done'");
	if (st == 3)
		return;
	T_EQ(st, 0);
	out = t_readf("%s/live.out", tmp);
	T_ASSERT(out != NULL);
	if (!out)
		return;
	hits = number_after(out, "# synthetic/wakeup_latency", "    Hits: ");
	T_ASSERT(hits > 0);
	/* a latency is never "negative" (a 2^64 bucket): every wakeup was
	 * fed before the switch it caused */
	for (p = strstr(out, "lat: ~ 2^"); p; p = strstr(p + 1, "lat: ~ 2^"))
		T_ASSERT(atoi(p + 9) < 40);
	T_ASSERT(strstr(out, "\tmax: ") != NULL);
	T_ASSERT(strstr(out, "pid: ") != NULL);
	free(out);
	T_EQ(leftover_instances(), 0);
}

static void test_live_json(void)
{
	char cmd[600];
	int st;

	if (!tracefs[0])
		return;
	/* .percent on a value: latest has it, 6.12 and later reject it */
	st = run_live("-d 1 --json --kernel latest "
		      "-t 'sched/sched_switch hist:keys=common_pid.execname,"
		      "prev_state:vals=hitcount,prev_prio.percent' "
		      "-t 'sched/sched_switch hist:keys=next_prio.log2'");
	if (st == 3)
		return;
	T_EQ(st, 0);
	if (!have_python()) {
		printf("# SKIP JSON parser check: python3 is not installed\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "python3 test/json_check.py --live "
		 "--expect-event sched/sched_switch %s/live.out", tmp);
	T_EQ(sh(1, "%s", cmd), 0);
}

/* What --top may change, read back as comparable text. */
static void top_state(char *buf, size_t len)
{
	static const char *const files[] = {
		"tracing_on", "trace_clock", "buffer_size_kb", "set_event",
		"events/sched/sched_switch/enable", "events/sched/sched_waking/enable",
	};
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char p[700], *s, *x;

		snprintf(p, sizeof(p), "%s/%s", tracefs, files[i]);
		s = t_readf("%s", p);
		/* "7 (expanded: 1408)": the size the buffer gets once used,
		 * which any use of tracing makes the size it has.  Once
		 * allocated it reads as whole ring-buffer pages (4080 data
		 * bytes each): 1408 reads back as 1410. */
		x = s ? strstr(s, "(expanded: ") : NULL;
		if (x) {
			unsigned long kb = strtoul(x + 11, NULL, 10);
			unsigned long pages = (kb * 1024 + 4079) / 4080;

			n += (size_t)snprintf(buf + n, len - n, "%s=%lu\n", files[i],
					      pages * 4080 / 1024);
		} else {
			n += (size_t)snprintf(buf + n, len - n, "%s=%s", files[i],
					      s ? s : "?");
		}
		free(s);
	}
}

static void test_live_top_restores(void)
{
	char before[4096], after[4096];
	int st;

	if (!tracefs[0])
		return;
	top_state(before, sizeof(before));
	st = run_live("--top -b 1111 -d 1 -t 'sched/sched_switch hist:keys=prev_pid:"
		      "t=common_timestamp:clock=mono' "
		      "-t 'sched/sched_waking hist:keys=pid'");
	if (st == 3)
		return;
	T_EQ(st, 0);
	top_state(after, sizeof(after));
	T_STREQ(after, before);
	T_ASSERT(strstr(before, "tracing_on=") != NULL);
}

static void test_live_usage(void)
{
	/* no tracing needed: bad usage is refused before tracefs is touched */
	T_EQ(sh(0, "%s/hist-live", build), 2);
	T_EQ(sh(0, "%s/hist-live -t nocommand", build), 2);
	T_EQ(sh(0, "%s/hist-live -i 0 -t 'a/b hist:keys=x'", build), 2);
	T_EQ(sh(1, "%s/hist-live --help | grep -q -- --trigger", build), 0);
	T_EQ(sh(1, "%s/hist-live --version | grep -q libhist", build), 0);
	if (tracefs[0]) {
		/* an event the kernel does not have: rejected, exit 2 since no
		 * trigger is left to run */
		T_EQ(sh(0, "%s/hist-live -q --tracefs %s -d 1 -t 'nosys/noevent "
			"hist:keys=x'", build, tracefs), 2);
		T_EQ(leftover_instances(), 0);
	}
}

/* ---- libhist-malloc.so --------------------------------------------------- */

static int preload_possible(void)
{
	const char *san = getenv("HIST_SAN");

	if (san && *san) {
		printf("# SKIP libhist-malloc.so: sanitizer build (%s)\n", san);
		return 0;
	}
	return 1;
}

/* The one output file the preload wrote for the demo. */
static char *malloc_output(void)
{
	char *name, *text;

	if (sh(1, "ls %s/m.*.txt | head -1", tmp))
		return NULL;
	name = t_readf("%s/out", tmp);
	if (!name)
		return NULL;
	name[strcspn(name, "\n")] = 0;
	text = t_readf("%s", name);
	free(name);
	return text;
}

static void test_malloc_demo(void)
{
	char *out, *p;
	long long exits, lat_hits, maxes = 0;

	if (!preload_possible())
		return;
	T_EQ(sh(1, "rm -f %s/m.*.txt; LD_PRELOAD=%s/examples/malloc-trace/libhist-malloc.so "
		"HIST_MALLOC_OUT=%s/m.%%p.txt %s/examples/malloc-trace/malloc-demo "
		"| grep -q '4 threads done'", tmp, build, tmp, build), 0);
	out = malloc_output();
	T_ASSERT(out != NULL);
	if (!out)
		return;
	/* exactly the demo's allocations in their size classes (and maybe
	 * a few of the C library's own) */
	T_ASSERT(number_after(out, "{ size: ~ 2^6  }", "hitcount:") >= 8000);
	T_ASSERT(number_after(out, "{ size: ~ 2^6  }", "hitcount:") < 8100);
	T_ASSERT(number_after(out, "{ size: ~ 2^12 }", "hitcount:") >= 800);
	T_ASSERT(number_after(out, "{ size: ~ 2^20 }", "hitcount:") >= 80);
	/* one synthetic event per malloc that returned */
	exits = number_after(out, "# malloc/malloc_exit", "    Hits: ");
	lat_hits = number_after(out, "# synthetic/malloc_latency", "    Hits: ");
	T_ASSERT(exits >= 8880);
	T_EQ(lat_hits, exits);
	/* onmax($l).save(lat,tid): four threads share each size class, so
	 * a save may come from an earlier max that raced with the last one,
	 * but never from a latency above the max */
	for (p = strstr(out, "\tmax: "); p; p = strstr(p + 1, "\tmax: ")) {
		long long max = strtoll(p + 6, NULL, 10);
		const char *lat = strstr(p, "lat: ");

		T_ASSERT(lat && strtoll(lat + 5, NULL, 10) <= max);
		T_ASSERT(lat && strtoll(lat + 5, NULL, 10) > 0);
		T_ASSERT(strstr(p, "tid: ") != NULL);
		maxes++;
	}
	T_ASSERT(maxes >= 3);
	free(out);
}

static void test_malloc_json_and_triggers(void)
{
	char *out;

	if (!preload_possible())
		return;
	T_EQ(sh(1, "rm -f %s/m.*.txt; LD_PRELOAD=%s/examples/malloc-trace/libhist-malloc.so "
		"HIST_MALLOC_JSON=1 HIST_MALLOC_OUT=%s/m.%%p.txt "
		"%s/examples/malloc-trace/malloc-demo", tmp, build, tmp, build), 0);
	if (have_python())
		T_EQ(sh(1, "python3 test/json_check.py --malloc --expect-event "
			"synthetic/malloc_latency --expect-event malloc/free $(ls %s/m.*.txt)",
			tmp), 0);
	else
		printf("# SKIP JSON parser check: python3 is not installed\n");
	/* the user's own triggers instead of the defaults */
	T_EQ(sh(1, "printf '# frees per thread name\\nmalloc/free hist:keys=common_pid.execname\\n'"
		" > %s/trig && rm -f %s/m.*.txt && "
		"LD_PRELOAD=%s/examples/malloc-trace/libhist-malloc.so "
		"HIST_MALLOC_TRIGGERS=%s/trig "
		"HIST_MALLOC_OUT=%s/m.%%p.txt %s/examples/malloc-trace/malloc-demo",
		tmp, tmp, build, tmp, tmp, build), 0);
	out = malloc_output();
	T_ASSERT(out && strstr(out, "hist:keys=common_pid.execname:vals=hitcount"));
	T_ASSERT(out && strstr(out, "malloc-demo"));
	T_ASSERT(out && !strstr(out, "synthetic"));
	free(out);
	/* ordinary programs keep working with it */
	T_EQ(sh(1, "LD_PRELOAD=%s/examples/malloc-trace/libhist-malloc.so "
		"HIST_MALLOC_OUT=%s/ls.%%p.txt sh -c 'ls / | sort > /dev/null'", build, tmp), 0);
	T_EQ(sh(1, "cat %s/ls.*.txt | grep -q 'Hits: '", tmp), 0);
}

int main(int argc, char **argv)
{
	(void)argc;
	t_build_dir(build, sizeof(build), argv[0]);
	if (t_scratch(tmp, sizeof(tmp), "test_examples"))
		return 1;
	live_possible();
	T_RUN(test_live_usage);
	T_RUN(test_live_switch_counts);
	T_RUN(test_live_wakeup_latency);
	T_RUN(test_live_json);
	T_RUN(test_live_top_restores);
	T_RUN(test_malloc_demo);
	T_RUN(test_malloc_json_and_triggers);
	t_tracefs_release(tracefs, tracefs_mounted_by_us);
	t_scratch_remove(tmp);
	return T_DONE();
}
