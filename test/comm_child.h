/* SPDX-License-Identifier: MIT */
/*
 * A workload whose task names change under the tracer's feet, for
 * test_live and test_histfs: the test binary run as
 *
 *   TEST --comm-child TAG N EXEC
 *
 * makes N getppid(2) calls under each of four names, then execs EXEC (a
 * copy of the test binary named TAG "x") with "--comm-exec N", which
 * makes N more under that name, and exits before the tracer reads them:
 *
 *   TAG "a"   prctl(PR_SET_NAME)
 *   TAG "b"   a write to /proc/self/comm
 *   TAG "t"   a new thread (it starts as TAG "b") names itself by prctl
 *   TAG "x"   after exec (the kernel names it after EXEC's file)
 *
 * comm_child_check() checks a tracer's counts.
 * The kernel's `comm` is the name at each call; a tracer that reads the
 * names later (from /proc, or saved_cmdlines) gets them wrong.  Each
 * change is made on the last CPU and the calls after it on CPU 0: a
 * reader that feeds CPU 0's records before the last CPU's (not in time
 * order) counts them under the old name.
 */
#ifndef TEST_COMM_CHILD_H
#define TEST_COMM_CHILD_H

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define COMM_GETPPID_ID 110	/* x86_64 */

static long comm_child_n;

/* Move the calling thread to CPU 0 (LAST: the last CPU); no-op on one. */
static void comm_child_pin(int last)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (n < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(last ? (int)n - 1 : 0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void comm_child_calls(long n)
{
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static void *comm_child_thread(void *tag)
{
	char name[16];

	snprintf(name, sizeof(name), "%st", (const char *)tag);
	comm_child_pin(1);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	comm_child_pin(0);
	comm_child_calls(comm_child_n);
	return NULL;
}

/* Returns -1 if ARGV is not a --comm-child or --comm-exec call, else
 * does it (and does not return, or returns the exit status). */
static int comm_child_main(int argc, char **argv)
{
	char name[16];
	pthread_t th;
	FILE *f;

	if (argc == 3 && !strcmp(argv[1], "--comm-exec")) {
		comm_child_pin(0);
		comm_child_calls(atol(argv[2]));
		/* not exit(): LeakSanitizer's check at exit calls getppid(2)
		 * itself (its tracer thread watches for its parent), which the
		 * "x" trigger would count */
		fflush(NULL);
		_exit(0);
	}
	if (argc != 5 || strcmp(argv[1], "--comm-child"))
		return -1;
	comm_child_n = atol(argv[3]);
	snprintf(name, sizeof(name), "%sa", argv[2]);
	comm_child_pin(1);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	comm_child_pin(0);
	comm_child_calls(comm_child_n);
	snprintf(name, sizeof(name), "%sb", argv[2]);
	comm_child_pin(1);
	f = fopen("/proc/self/comm", "w");
	if (!f || fputs(name, f) < 0 || fclose(f))
		return 3;
	comm_child_pin(0);
	comm_child_calls(comm_child_n);
	if (pthread_create(&th, NULL, comm_child_thread, argv[2]) || pthread_join(th, NULL))
		return 4;
	comm_child_pin(1);	/* the exec's rename on the last CPU */
	execl(argv[4], argv[4], "--comm-exec", argv[3], (char *)NULL);
	return 5;
}

/* The hits of the histogram whose trigger info names PART in TEXT, or
 * -1 (the next "    Hits: " after it). */
static long long comm_child_hits(const char *text, const char *part)
{
	const char *p = text ? strstr(text, part) : NULL;

	p = p ? strstr(p, "    Hits: ") : NULL;
	return p ? strtoll(p + 10, NULL, 10) : -1;
}

/*
 * Check the hist text OUT of the four triggers `if comm == "TAGa"` (b, t,
 * COMM == x) and `task_rename ... if newcomm ~ "TAG*"` after a
 * --comm-child run of N calls a name: exact when nothing was LOST, else
 * none counted twice and the losses cover the rest (LOST < 0: not known).
 * Needs harness.h.
 */
static void comm_child_check(const char *out, const char *tag, long n, long long lost)
{
	static const char phases[] = "abtx";
	long long h, sum = 0;
	char part[64];
	int i;

	T_ASSERT(out != NULL);
	for (i = 0; i < 4; i++) {
		snprintf(part, sizeof(part), "== \"%s%c\"", tag, phases[i]);
		h = comm_child_hits(out, part);
		printf("# %s%c: %lld of %ld calls\n", tag, phases[i], h, n);
		if (lost == 0)
			T_EQ(h, n);
		else
			T_ASSERT(h >= 0 && h <= n);
		sum += h;
	}
	printf("# lost %lld\n", lost);
	T_ASSERT(lost < 0 || sum + lost >= 4 * n);
	/* a, b, t and x: each rename once, not once more as a tracking
	 * record */
	if (lost == 0)
		T_EQ(comm_child_hits(out, "newcomm ~"), 4);
}

#endif
