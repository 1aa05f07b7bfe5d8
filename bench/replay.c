/* SPDX-License-Identifier: MIT */
/*
 * Replay of a real recording: hist-replay with one keys=common_pid hist
 * on raw_syscalls/sys_enter, beside what users do today for the same
 * count, `trace-cmd report | awk`.  Both read and decode the whole file;
 * events/s counts every record in it.  The per-pid counts of the two
 * must be identical, or the row fails.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

#define REPLAY_ROUNDS 3
#define PIDS_MAX 65536

/* size=: the recording has more than the default 2048 pids. */
static const char trigger[] = "raw_syscalls/sys_enter hist:keys=common_pid:size=16384";

/* Counts sys_enter per pid and every event line of `trace-cmd report`. */
static const char awk_prog[] =
	"/^ *.*-[0-9]+ +\\[[0-9]+\\] +[0-9]+\\.[0-9]+: / { ev++; "
	"  if ($0 ~ / sys_enter: /) { match($0, /-[0-9]+ +\\[/); "
	"    pid = substr($0, RSTART + 1, RLENGTH - 1); sub(/ .*/, \"\", pid); c[pid]++ } } "
	"END { for (p in c) print p, c[p]; print \"EVENTS\", ev }";

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run ARGV with stdout to OUT; returns the wall time, < 0 on failure. */
static double timed_run(char *const argv[], const char *out)
{
	posix_spawn_file_actions_t fa;
	double t0 = s_now();
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return s_now() - t0;
}

/* The largest *.dat one directory below ROOT. */
static bool largest_dat(const char *root, char *out, size_t len)
{
	DIR *d = opendir(root), *sub;
	struct dirent *de, *fe;
	off_t best = -1;
	char path[1024];
	struct stat st;

	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
		sub = opendir(path);
		if (!sub)
			continue;
		while ((fe = readdir(sub))) {
			size_t l = strlen(fe->d_name);
			char f[2048];

			if (l < 4 || strcmp(fe->d_name + l - 4, ".dat"))
				continue;
			snprintf(f, sizeof(f), "%s/%s", path, fe->d_name);
			if (!stat(f, &st) && st.st_size > best && strlen(f) < len) {
				best = st.st_size;
				memcpy(out, f, strlen(f) + 1);
			}
		}
		closedir(sub);
	}
	closedir(d);
	return best >= 0;
}

/* Per-pid counts: "{ common_pid: N } hitcount: C" lines, or "N C" lines. */
static int read_counts(const char *path, bool hist, uint64_t *cnt, uint64_t *events,
		       uint64_t *total)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	memset(cnt, 0, sizeof(*cnt) * PIDS_MAX);
	*total = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long pid, c;

		if (hist) {
			if (sscanf(line, "{ common_pid: %llu } hitcount: %llu", &pid, &c) != 2)
				continue;
		} else if (!strncmp(line, "EVENTS ", 7)) {
			*events = strtoull(line + 7, NULL, 10);
			continue;
		} else if (sscanf(line, "%llu %llu", &pid, &c) != 2) {
			continue;
		}
		if (pid >= PIDS_MAX)
			continue;
		cnt[pid] += c;
		*total += c;
		n++;
	}
	fclose(f);
	return n;
}

int bench_replay_section(const char *self)
{
	char trace[1024], replay[1024], selfdir[1024], out[64], cmd[4096];
	const char *env = getenv("BENCH_TRACE");
	uint64_t *c_hist = calloc(PIDS_MAX, sizeof(uint64_t));
	uint64_t *c_awk = calloc(PIDS_MAX, sizeof(uint64_t));
	uint64_t events = 0, tot_hist = 0, tot_awk = 0, dummy;
	double t[REPLAY_ROUNDS], t_awk, t_replay;
	int r, i;

	printf("\nreplay of a real recording, one `%s`:\n\n", trigger);
	if (!c_hist || !c_awk)
		bench_die("out of memory");
	if (env && *env)
		snprintf(trace, sizeof(trace), "%s", env);
	else if (!largest_dat("../shared/data", trace, sizeof(trace))) {
		printf("skipped: no ../shared/data/*/*.dat (set BENCH_TRACE)\n");
		return 0;
	}
	snprintf(selfdir, sizeof(selfdir), "%s", self);
	snprintf(replay, sizeof(replay), "%s/../hist-replay", dirname(selfdir));
	if (access(replay, X_OK)) {
		printf("skipped: %s not built (make build/hist-replay)\n", replay);
		return 0;
	}
	snprintf(out, sizeof(out), "/tmp/hist-bench-replay.%d", (int)getpid());

	fprintf(stderr, "[replay] trace-cmd report | awk over %s...\n", trace);
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i '%s' 2>/dev/null | awk '%s'",
		 trace, awk_prog);
	{
		char *argv[] = { "sh", "-c", cmd, NULL };

		t_awk = timed_run(argv, out);
	}
	if (t_awk < 0 || read_counts(out, false, c_awk, &events, &tot_awk) <= 0 || !events) {
		printf("trace-cmd report | awk: failed (is trace-cmd installed?)\n");
		t_awk = -1;
	}
	for (r = 0; r < REPLAY_ROUNDS; r++) {
		char *argv[] = { replay, "-t", (char *)trigger, trace, NULL };

		fprintf(stderr, "[replay] hist-replay round %d\n", r + 1);
		t[r] = timed_run(argv, out);
		if (t[r] < 0)
			bench_die("replay: %s failed on %s", replay, trace);
	}
	for (r = 1; r < REPLAY_ROUNDS; r++)
		for (i = r; i > 0 && t[i] < t[i - 1]; i--) {
			double x = t[i];

			t[i] = t[i - 1];
			t[i - 1] = x;
		}
	t_replay = t[REPLAY_ROUNDS / 2];
	if (read_counts(out, true, c_hist, &dummy, &tot_hist) <= 0)
		bench_die("replay: no hist entries in the hist-replay output");
	unlink(out);
	if (t_awk >= 0 && (tot_hist != tot_awk ||
			   memcmp(c_hist, c_awk, sizeof(uint64_t) * PIDS_MAX)))
		bench_die("replay: hist-replay counts %llu sys_enter, trace-cmd|awk %llu, "
			  "or the per-pid counts differ", (unsigned long long)tot_hist,
			  (unsigned long long)tot_awk);
	{
		struct stat st;

		printf("%s (%.1f MB)%s\n\n", trace,
		       stat(trace, &st) ? 0.0 : (double)st.st_size / 1e6,
		       t_awk >= 0 ? "; per-pid counts of both identical" : "");
	}
	printf("| pipeline | s | events/s | x awk |\n|---|---:|---:|---:|\n");
	if (t_awk >= 0) {
		printf("| trace-cmd report \\| awk | %.2f | %.2fM | 1 |\n", t_awk,
		       events / t_awk / 1e6);
		printf("| hist-replay (median of %d) | %.3f | %.2fM | %.1f |\n", REPLAY_ROUNDS,
		       t_replay, events / t_replay / 1e6, t_awk / t_replay);
	} else {
		printf("| hist-replay (median of %d) | %.3f | ? | ? |\n", REPLAY_ROUNDS,
		       t_replay);
	}
	printf("\n%llu events in the recording, %llu sys_enter\n",
	       (unsigned long long)events, (unsigned long long)tot_hist);
	fflush(stdout);
	free(c_hist);
	free(c_awk);
	return 0;
}
