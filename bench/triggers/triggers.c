/* SPDX-License-Identifier: MIT */
/*
 * hist-bench-triggers: the cost of many hist triggers on one event.
 *
 * For N in 1k, 2k, 4k, 8k (or the sizes given), a fresh context gets N
 * distinct hist triggers on one event through hist_trigger_parse(), then
 * one record is hit through all of them, then every trigger is removed
 * with its `!hist:...` command.  Printed per N: the time to add them
 * (total and per trigger), the resident memory they added (per trigger,
 * from /proc/self/statm, after the allocator has been asked to trim),
 * and the time to remove them.  Linear growth shows as flat per-trigger
 * columns.  Every run is checked: each add must succeed, a second add of
 * a sample of them must fail with -HIST_EEXIST, each removal must take
 * exactly one trigger away (the trigger file is counted at the end).
 *
 * Shapes (-s): "filter" (the same keys, a different `if a == I`),
 * "bucket" (keys=a.buckets=I+1), "var" (a variable named after I: the
 * unique-name check is part of each add), "named" (name=gI: each add
 * looks its name up among the context's named groups).
 *
 *   build/bench/hist-bench-triggers                 # 1k 2k 4k 8k, every shape
 *   build/bench/hist-bench-triggers -s filter 9000  # one shape, one size
 *   build/bench/hist-bench-triggers -S              # host synchronize(): frees
 *                                                   # at once, as hist-replay
 */
#include "libhist.h"

#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct hist_field_desc fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	{ "pid", "pid_t", 8, 4, 1, HIST_FIELD_INT },
	{ "a", "u64", 16, 8, 0, HIST_FIELD_INT },
	{ "b", "u64", 24, 8, 0, HIST_FIELD_INT },
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long rss_bytes(void)
{
	long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = 0;
	fclose(f);
	return res * sysconf(_SC_PAGESIZE);
}

static void sync_noop(void *data)
{
	(void)data;
}

static void command(char *buf, size_t n, const char *shape, unsigned i, bool remove)
{
	const char *bang = remove ? "!" : "";

	if (!strcmp(shape, "bucket"))
		snprintf(buf, n, "%shist:keys=a.buckets=%u:vals=hitcount", bang, i + 1);
	else if (!strcmp(shape, "var"))
		snprintf(buf, n, "%shist:keys=pid:v%u=b", bang, i);
	else if (!strcmp(shape, "named"))
		snprintf(buf, n, "%shist:keys=pid:vals=b:name=g%u", bang, i);
	else
		snprintf(buf, n, "%shist:keys=pid:vals=hitcount,b if a == %u", bang, i);
}

static size_t count_lines(const char *buf, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += buf[i] == '\n';
	return c;
}

static int count_write(void *arg, const char *buf, size_t n)
{
	*(size_t *)arg += count_lines(buf, n);
	return 0;
}

static int run(const char *shape, unsigned n, bool sync)
{
	struct hist_host host = { 0 };
	struct hist_event_desc d = {
		.system = "bench", .name = "ev", .fields = fields,
		.nr_fields = sizeof(fields) / sizeof(fields[0]),
	};
	uint8_t rec[32] = { 0 };
	struct hist_hit hit = { .pid = 1, .comm = "bench" };
	size_t lines = 0;
	hist_ctx *ctx;
	hist_event *ev;
	char cmd[128];
	double t0, t_add, t_hit, t_rm;
	long rss0, rss1;
	unsigned i;
	int ret;

	if (sync)
		host.synchronize = sync_noop;
	ctx = hist_ctx_create(&host, NULL, NULL);
	if (!ctx || hist_event_define(ctx, &d, &ev)) {
		fprintf(stderr, "context or event: failed\n");
		return 1;
	}
	malloc_trim(0);
	rss0 = rss_bytes();
	t0 = now();
	for (i = 0; i < n; i++) {
		command(cmd, sizeof(cmd), shape, i, false);
		ret = hist_trigger_parse(ev, cmd, NULL);
		if (ret) {
			fprintf(stderr, "%s: add %u: %d\n", shape, i, ret);
			return 1;
		}
	}
	t_add = now() - t0;
	malloc_trim(0);
	rss1 = rss_bytes();
	/* a sample of duplicates: each must be refused (a variable's
	 * name is taken before the trigger is compared: "Variable already
	 * defined", EINVAL, as in the kernel) */
	for (i = 0; i < n; i += n / 16 + 1) {
		command(cmd, sizeof(cmd), shape, i, false);
		if (hist_trigger_parse(ev, cmd, NULL) !=
		    (strcmp(shape, "var") ? -HIST_EEXIST : -HIST_EINVAL)) {
			fprintf(stderr, "%s: duplicate %u accepted\n", shape, i);
			return 1;
		}
	}
	t0 = now();
	hist_event_hit(ev, rec, sizeof(rec), &hit);
	t_hit = now() - t0;
	t0 = now();
	for (i = 0; i < n; i++) {
		/* remove from the middle out: not only the head or the tail */
		unsigned j = (i * 7919u) % n;

		command(cmd, sizeof(cmd), shape, j, true);
		if (hist_trigger_parse(ev, cmd, NULL)) {
			fprintf(stderr, "%s: remove %u failed\n", shape, j);
			return 1;
		}
	}
	t_rm = now() - t0;
	hist_event_print_triggers(ev, count_write, &lines);
	if (lines != 2) {	/* the "# Available triggers" header only */
		fprintf(stderr, "%s: %zu lines left after removing all\n", shape, lines);
		return 1;
	}
	printf("%-7s %6u  %9.3f  %9.2f  %9.1f  %8.3f  %9.3f  %9.2f\n", shape, n, t_add,
	       t_add / n * 1e6, (double)(rss1 - rss0) / n / 1024.0, t_hit * 1e3, t_rm,
	       t_rm / n * 1e6);
	fflush(stdout);
	hist_ctx_destroy(ctx);
	return 0;
}

/* RUN in a child process: each size starts from a fresh heap (glibc's
 * malloc moves its mmap threshold after a large free, which would change
 * what a later size's tables cost in resident memory). */
static int run_child(const char *shape, unsigned n, bool sync)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();

	if (pid < 0)
		return run(shape, n, sync);
	if (pid == 0)
		_exit(run(shape, n, sync));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	static const char *const shapes[] = { "filter", "bucket", "var", "named" };
	static const unsigned sizes[] = { 1000, 2000, 4000, 8000 };
	const char *shape = NULL;
	bool sync = false;
	unsigned k, j;
	int opt, fails = 0;

	while ((opt = getopt(argc, argv, "s:S")) != -1) {
		if (opt == 's' && (!strcmp(optarg, shapes[0]) || !strcmp(optarg, shapes[1]) ||
				   !strcmp(optarg, shapes[2]) || !strcmp(optarg, shapes[3]))) {
			shape = optarg;
		} else if (opt == 'S') {
			sync = true;
		} else {
			goto usage;
		}
	}
	/* a size that is not a number would be a run of 0 triggers */
	for (j = (unsigned)optind; j < (unsigned)argc; j++)
		if (strspn(argv[j], "0123456789") != strlen(argv[j]) ||
		    strtoul(argv[j], NULL, 10) - 1 >= 1000000000ul)
			goto usage;
	printf("# hist triggers on one event%s\n",
	       sync ? " (host synchronize: retired memory freed at once)" : "");
	printf("%-7s %6s  %9s  %9s  %9s  %8s  %9s  %9s\n", "shape", "N", "add s",
	       "us/add", "KiB/trig", "hit ms", "remove s", "us/remove");
	for (k = 0; k < 4; k++) {
		if (shape && strcmp(shape, shapes[k]))
			continue;
		if (optind < argc) {
			for (j = (unsigned)optind; j < (unsigned)argc; j++)
				fails += run_child(shapes[k], (unsigned)strtoul(argv[j], NULL, 10),
					     sync);
		} else {
			for (j = 0; j < 4; j++)
				fails += run_child(shapes[k], sizes[j], sync);
		}
	}
	return fails ? 1 : 0;
usage:
	fprintf(stderr, "usage: %s [-S] [-s filter|bucket|var|named] [N...] (N from 1 to 10^9)\n",
		argv[0]);
	return 2;
}
