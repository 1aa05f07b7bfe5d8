/* SPDX-License-Identifier: MIT */
/*
 * Replay of a perf.data: hist-replay with one keys=common_pid hist on
 * raw_syscalls/sys_enter, beside what perf users do today for the same
 * count, `perf script | awk`.  The recording is made here, by perf record
 * (root, perf installed) around a loop of one-byte dd copies, so that a
 * multi-million-event file never sits in the repository; BENCH_PERF_DATA
 * names an existing one instead (its sys_enter samples are counted).
 * The per-pid counts of both must be identical, or the row fails.
 *
 * Times are wall clock and, because the machine may be shared, the CPU
 * time (user + system) of each pipeline, children included; events/s is
 * over the CPU time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

#define PERF_ROUNDS 3
#define PERF_PIDS_MAX (1 << 22)

static const char perf_trigger[] =
	"raw_syscalls/sys_enter hist:keys=common_pid:size=16384";

/*
 * What a perf user writes: `perf script | awk` over the default output,
 * "COMM TID [CPU] TIME: raw_syscalls:sys_enter: NR ..." (a comm may hold
 * spaces, so the TID is found before its "[CPU]"); and the fastest form
 * perf offers, `perf script -F tid,event`: "TID raw_syscalls:sys_enter:".
 */
static const char perf_awk[] =
	"match($0, / [0-9]+ +\\[[0-9]+\\] +[0-9.]+: raw_syscalls:sys_enter:/) { "
	"  s = substr($0, RSTART + 1); split(s, a, \" \"); c[a[1]]++ } "
	"END { for (p in c) print p, c[p] }";
static const char perf_awk_f[] =
	"$2 == \"raw_syscalls:sys_enter:\" { c[$1]++ } "
	"END { for (p in c) print p, c[p] }";

struct run_time {
	double wall, cpu;
};

static double p_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run ARGV, stdout to OUT; wall and CPU time (with the children it
 * waited for).  0, or -1 on failure. */
static int p_run(char *const argv[], const char *out, struct run_time *t)
{
	posix_spawn_file_actions_t fa;
	double t0 = p_now();
	struct rusage ru;
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	t->wall = p_now() - t0;
	t->cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return 0;
}

/* "{ common_pid: N } hitcount: C" (HIST) or "N C" lines into CNT. */
static int p_counts(const char *path, bool hist, uint32_t *cnt, uint64_t *total)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	memset(cnt, 0, sizeof(*cnt) * PERF_PIDS_MAX);
	*total = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long pid, c;

		if (hist ? sscanf(line, "{ common_pid: %llu } hitcount: %llu", &pid, &c) != 2 :
			   sscanf(line, "%llu %llu", &pid, &c) != 2)
			continue;
		if (pid >= PERF_PIDS_MAX)
			continue;
		cnt[pid] += (uint32_t)c;
		*total += c;
		n++;
	}
	fclose(f);
	return n;
}

/* Record DIR/bench.perf.data: about EVENTS sys_enter samples. */
static int p_record(const char *dir, size_t events, char *path, size_t len)
{
	char cmd[2048];

	snprintf(path, len, "%s/bench.perf.data", dir);
	/* the workload's own name filters out the rest of the machine; a
	 * one-byte dd makes two system calls per byte */
	snprintf(cmd, sizeof(cmd),
		 "cp /bin/dd '%s/hbperfwl' && cd '%s' && "
		 "perf record -q -B -N --synth=task -m 8M -a -o '%s' "
		 "-e raw_syscalls:sys_enter --filter 'comm == \"hbperfwl\"' -- "
		 "./hbperfwl if=/dev/zero of=/dev/null bs=1 count=%zu 2>/dev/null >/dev/null",
		 dir, dir, path, events / 2);
	fprintf(stderr, "[perf] perf record of %zu system calls...\n", events);
	return system(cmd) == 0 ? 0 : -1;
}

int bench_perf_section(const char *self)
{
	char dir[] = "/tmp/hist-bench-perf.XXXXXX", data[1024], replay[1024],
	     selfdir[1024], out[1200], cmd[4096];
	const char *env = getenv("BENCH_PERF_DATA");
	size_t events = (size_t)strtoull(getenv("BENCH_PERF_EVENTS") ?
						 getenv("BENCH_PERF_EVENTS") : "3000000", NULL, 0);
	uint32_t *c_hist = calloc(PERF_PIDS_MAX, sizeof(uint32_t));
	uint32_t *c_awk[2] = { calloc(PERF_PIDS_MAX, sizeof(uint32_t)),
			       calloc(PERF_PIDS_MAX, sizeof(uint32_t)) };
	uint64_t tot_hist = 0, tot_awk[2] = { 0, 0 };
	struct run_time t[PERF_ROUNDS], t_awk[2], t_rep;
	int r, i, made = 0, failed = 0;

	printf("\nreplay of a perf.data, one `%s`:\n\n", perf_trigger);
	if (!c_hist || !c_awk[0] || !c_awk[1])
		bench_die("out of memory");
	snprintf(selfdir, sizeof(selfdir), "%s", self);
	snprintf(replay, sizeof(replay), "%s/../hist-replay", dirname(selfdir));
	if (access(replay, X_OK)) {
		printf("skipped: %s not built (make build/hist-replay)\n", replay);
		goto out;
	}
	if (system("perf version >/dev/null 2>&1")) {
		printf("skipped: perf is not installed (apt-get install linux-perf)\n");
		goto out;
	}
	if (!mkdtemp(dir))
		bench_die("mkdtemp: %s", strerror(errno));
	made = 1;
	if (env && *env) {
		snprintf(data, sizeof(data), "%s", env);
	} else if (geteuid() || p_record(dir, events, data, sizeof(data))) {
		printf("skipped: perf record failed (root, and tracepoints?); "
		       "set BENCH_PERF_DATA to a recording\n");
		goto out;
	}
	snprintf(out, sizeof(out), "%s/out", dir);

	for (i = 0; i < 2; i++) {
		char *argv[] = { "sh", "-c", cmd, NULL };

		fprintf(stderr, "[perf] perf script%s | awk over %s...\n",
			i ? " -F tid,event" : "", data);
		snprintf(cmd, sizeof(cmd), "perf script -f -i '%s'%s 2>/dev/null | awk '%s'",
			 data, i ? " -F tid,event" : "", i ? perf_awk_f : perf_awk);
		if (p_run(argv, out, &t_awk[i]) ||
		    p_counts(out, false, c_awk[i], &tot_awk[i]) <= 0) {
			printf("perf script%s | awk: failed\n", i ? " -F tid,event" : "");
			failed = 1;
			goto out;
		}
	}
	for (r = 0; r < PERF_ROUNDS; r++) {
		char *argv[] = { replay, "-t", (char *)perf_trigger, data, NULL };

		fprintf(stderr, "[perf] hist-replay round %d\n", r + 1);
		if (p_run(argv, out, &t[r]))
			bench_die("perf: %s failed on %s", replay, data);
	}
	/* the median by CPU time */
	for (r = 1; r < PERF_ROUNDS; r++)
		for (i = r; i > 0 && t[i].cpu < t[i - 1].cpu; i--) {
			struct run_time x = t[i];

			t[i] = t[i - 1];
			t[i - 1] = x;
		}
	t_rep = t[PERF_ROUNDS / 2];
	if (p_counts(out, true, c_hist, &tot_hist) <= 0)
		bench_die("perf: no hist entries in the hist-replay output");
	for (i = 0; i < 2; i++)
		if (tot_hist != tot_awk[i] ||
		    memcmp(c_hist, c_awk[i], sizeof(uint32_t) * PERF_PIDS_MAX))
			bench_die("perf: hist-replay counts %llu sys_enter, perf script|awk "
				  "%llu, or the per-pid counts differ",
				  (unsigned long long)tot_hist, (unsigned long long)tot_awk[i]);
	{
		struct stat st;

		printf("%s (%.1f MB, %llu sys_enter samples); per-pid counts of both identical\n\n",
		       env && *env ? data : "perf record -a -e raw_syscalls:sys_enter",
		       stat(data, &st) ? 0.0 : (double)st.st_size / 1e6,
		       (unsigned long long)tot_hist);
	}
	printf("| pipeline | wall s | CPU s | events/s (CPU) | x awk (CPU) | x awk (wall) |\n"
	       "|---|---:|---:|---:|---:|---:|\n");
	printf("| perf script \\| awk | %.2f | %.2f | %.2fM | 1 | 1 |\n", t_awk[0].wall,
	       t_awk[0].cpu, tot_awk[0] / t_awk[0].cpu / 1e6);
	printf("| perf script -F tid,event \\| awk | %.2f | %.2f | %.2fM | %.1f | %.1f |\n",
	       t_awk[1].wall, t_awk[1].cpu, tot_awk[1] / t_awk[1].cpu / 1e6,
	       t_awk[0].cpu / t_awk[1].cpu, t_awk[0].wall / t_awk[1].wall);
	printf("| hist-replay (median of %d) | %.3f | %.3f | %.2fM | %.0f | %.0f |\n",
	       PERF_ROUNDS, t_rep.wall, t_rep.cpu, tot_hist / t_rep.cpu / 1e6,
	       t_awk[0].cpu / t_rep.cpu, t_awk[0].wall / t_rep.wall);
	fflush(stdout);
out:
	if (made) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			fprintf(stderr, "[perf] could not remove %s\n", dir);
	}
	free(c_hist);
	free(c_awk[0]);
	free(c_awk[1]);
	return failed;
}
