/* SPDX-License-Identifier: MIT */
/*
 * hist-live as a production machine runs it, on this machine's kernel:
 *
 *   - invisible to itself: no row of its own, and a 3 s run on a quiet
 *     event costs it (far) less than 5% of a CPU;
 *   - exact about losses: with an 8 KiB buffer and a dd burst, the hits
 *     plus the reported losses are at least the system calls dd made, and
 *     the JSON total is the sum of the per-CPU counts;
 *   - safe when killed: an instance left by kill -9 is removed by the next
 *     run (and by --cleanup); SIGINT, SIGTERM, SIGHUP, SIGQUIT and a closed
 *     pipe all leave nothing behind;
 *   - --follow of a command that forks counts its processes and no other,
 *     and hist-live exits with the command's status;
 *   - --json -i writes one document per line; --delta prints add up to
 *     the events that happened;
 *   - triggers' filters become the kernel's event filter (a disjunction;
 *     libhist does not filter again where the kernel's is exact);
 *     stack keys get stacks.
 *
 * Needs root and tracefs; otherwise every test says SKIP and why.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"
#include "comm_child.h"
#include "../examples/hist-live/live.h"

static char tmp[256], build[512], tracefs[512];
static int tracefs_mounted_by_us;	/* t_tracefs_find() */

#include "test_shell.h"

/* Finds (or mounts) tracefs; 0 with the reason printed if hist-live
 * cannot run here. */
static int live_possible(void)
{
	const char *who = "hist-live";

	tracefs_mounted_by_us = t_tracefs_find(tracefs, sizeof(tracefs), tmp, who);
	return t_tracefs_need(tracefs, "events/raw_syscalls/sys_enter/format", R_OK, who) &&
	       t_tracefs_need(tracefs, "instances", W_OK, who);
}

#define LIVE "timeout -s KILL 120 %s/hist-live -q --tracefs %s "

/* Is an instance of process PID there? */
static int instance_of(long pid)
{
	char p[700];

	snprintf(p, sizeof(p), "%s/instances/hist-live.%ld", tracefs, pid);
	return access(p, F_OK) == 0;
}

/* The number after the first LABEL in TEXT (after FROM if given), or -1. */
static long long num_after(const char *text, const char *from, const char *label)
{
	const char *p = text && from ? strstr(text, from) : text;

	p = p ? strstr(p, label) : NULL;
	return p ? strtoll(p + strlen(label), NULL, 10) : -1;
}

static double child_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Start hist-live in the background, output to <tmp>/OUT; its pid, or -1.
 * Returns once its instance is there (tracing is set up). */
static long start_bg(const char *args, const char *out)
{
	long pid = t_spawn("%s/hist-live -q --tracefs %s %s > %s/%s 2>&1", build, tracefs,
			   args, tmp, out);

	for (int i = 0; i < 200 && pid > 0 && !instance_of(pid); i++)
		usleep(10000);
	usleep(200000);
	return pid;
}

/* Wait for PID to exit; 0 once gone (whatever its status). */
static int wait_gone(long pid)
{
	return t_wait_gone(pid, 5000) < 0 ? -1 : 0;
}

/* ---- invisible to itself -------------------------------------------------- */

static void test_self_exclusion(void)
{
	char row[64], *out;
	double cpu;
	long pid;

	if (!tracefs[0])
		return;
	/* every system call of the machine for 2 s, while it reads them
	 * (other hist-live processes may run: look for this one's pid) */
	pid = start_bg("-d 2 -t 'raw_syscalls/sys_enter hist:keys=common_pid.execname:"
		       "sort=hitcount.descending'", "self.out");
	T_ASSERT(pid > 0);
	T_EQ(wait_gone(pid), 0);
	out = t_readf("%s/self.out", tmp);
	T_ASSERT(out && num_after(out, NULL, "    Hits: ") > 0);
	snprintf(row, sizeof(row), "[%10ld] }", pid);
	T_ASSERT(out && !strstr(out, row));
	if (out && strstr(out, row))
		printf("# its own row: %.100s\n", strstr(out, row) - 30);
	free(out);
	/* idle: an event that does not fire; the CPU of the whole run
	 * (setup included) against 5% of its 3 s */
	cpu = child_cpu();
	T_EQ(sh(1, "%s/hist-live -q --tracefs %s -d 3 -t 'sched/sched_process_exec "
		"hist:keys=common_pid if comm == \"no-such-task\"' > /dev/null", build,
		tracefs), 0);
	cpu = child_cpu() - cpu;
	printf("# idle 3 s run: %.3f s of CPU (%.2f%%)\n", cpu, cpu / 3 * 100);
	T_ASSERT(cpu < 0.15 / 3);
}

/* ---- losses --------------------------------------------------------------- */

/* A copy of dd named COMM (in the scratch directory): other tests, of
 * other checkouts too, run dd at the same time; a name of our own keeps
 * their calls out of the counts.  Its path in PATH_OUT. */
static void own_dd(const char *tag, char comm[16], char *path_out, size_t cap)
{
	snprintf(comm, 16, "%s%d", tag, (int)getpid() % 100000);
	snprintf(path_out, cap, "%s/%s", tmp, comm);
	T_EQ(sh(1, "[ -x %s ] || cp \"$(command -v dd)\" %s", path_out, path_out), 0);
}

/* Hits and the '# lost:' total of a text print; -1 each if absent. */
static void hits_lost(const char *file, long long *hits, long long *lost)
{
	char *out = t_readf("%s/%s", tmp, file);

	*hits = out ? num_after(out, NULL, "    Hits: ") : -1;
	*lost = out ? num_after(out, "\n# lost:", " total ") : -1;
	free(out);
}

static void test_loss_accounting(void)
{
	long long hits, lost, sum = 0, n, made;
	char comm[16], dd[300], cmd[4096];
	const char *p;
	char *out;

	if (!tracefs[0])
		return;
	own_dd("hlls", comm, dd, sizeof(dd));
	/* 100000 reads and 100000 writes of one byte, into 8 KiB per CPU */
	snprintf(cmd, sizeof(cmd), LIVE "-b 8 --json -t 'raw_syscalls/sys_enter hist:"
		 "keys=common_pid.execname if comm == \"%s\"' -- %s if=/dev/zero "
		 "of=/dev/null bs=1 count=100000 > %s/loss.out", build, tracefs, comm, dd,
		 tmp);
	T_EQ(sh(1, "%s", cmd), 0);
	out = t_readf("%s/loss.out", tmp);
	T_ASSERT(out != NULL);
	if (!out)
		return;
	hits = num_after(out, "\"totals\"", "\"hits\": ");
	lost = num_after(out, "\"lost\": ", "\"total\": ");
	for (p = strstr(out, "{ \"cpu\": "); p; p = strstr(p + 1, "{ \"cpu\": ")) {
		n = num_after(p, NULL, "\"events\": ");
		T_ASSERT(n >= 0);
		sum += n;
	}
	printf("# dd: %lld hits + %lld lost\n", hits, lost);
	T_ASSERT(hits > 0);
	/* dd's 200000 calls and its start-up's (a few hundred at most);
	 * the kernel filter keeps every other task out of the buffer */
	T_ASSERT(hits + lost >= 200000 && hits + lost < 201000);
	T_EQ(sum, lost);
	/* no other task: the filter, in the kernel and in libhist */
	T_ASSERT(!strstr(out, "\"text\": \"hist-live\""));
	free(out);

	/*
	 * Exact: dd's calls counted with a buffer that holds them all, then
	 * bursts of dd processes (each gone before its records are read)
	 * into 8 KiB: every call is counted or reported lost, none vanishes
	 * (a soak run once came out 41,002 reads short).
	 */
	snprintf(cmd, sizeof(cmd), LIVE "-b 65536 -t 'raw_syscalls/sys_enter hist:keys="
		 "common_pid if comm == \"%s\"' -- sh -c 'for i in 1 2 3 4; do %s "
		 "if=/dev/zero of=/dev/null bs=1 count=25000 2>/dev/null; done' > %s/ref.txt",
		 build, tracefs, comm, dd, tmp);
	T_EQ(sh(1, "%s", cmd), 0);
	hits_lost("ref.txt", &made, &lost);
	T_ASSERT(made >= 200000 && made < 201000);
	if (lost == 0) {
		snprintf(cmd, sizeof(cmd), "timeout -s KILL 120 %s/hist-live --tracefs %s "
			 "-b 8 -t 'raw_syscalls/sys_enter hist:keys=common_pid if comm == "
			 "\"%s\"' -- sh -c 'for i in 1 2 3 4; do %s if=/dev/zero of=/dev/null "
			 "bs=1 count=25000 2>/dev/null; done' > %s/loss.txt 2> %s/loss.err",
			 build, tracefs, comm, dd, tmp, tmp);
		T_EQ(sh(1, "%s", cmd), 0);
		hits_lost("loss.txt", &hits, &lost);
		printf("# 4 dd: %lld calls; 8 KiB: %lld hits + %lld lost\n", made, hits, lost);
		T_ASSERT(hits > 0 && lost >= 0);
		T_EQ(hits + lost, made);
		out = t_readf("%s/loss.err", tmp);
		if (lost > 0)
			T_ASSERT(out && strstr(out, "would have held the worst burst") &&
				 strstr(out, "-b "));
		free(out);
	} else {
		printf("# the reference run lost %lld events: no exact check\n", lost);
	}
}

/* ---- crash safety ----------------------------------------------------------- */

static void test_kill9_cleanup(void)
{
	long pid, pid2;
	char *out, msg[128];
	int left;

	if (!tracefs[0])
		return;
	pid = start_bg("-t 'sched/sched_switch hist:keys=common_pid'", "k9.out");
	T_ASSERT(pid > 0 && instance_of(pid));
	kill((pid_t)pid, SIGKILL);
	T_EQ(wait_gone(pid), 0);
	/* what a kill -9 leaves (unless a concurrent hist-live, e.g. another
	 * checkout's make check, reaped it already) */
	left = instance_of(pid);
	/* the next run reports and removes it */
	T_EQ(sh(1, "timeout -s KILL 60 %s/hist-live --tracefs %s -d 0.2 -t "
		"'sched/sched_switch hist:keys=common_pid' > /dev/null 2> %s/k9.err",
		build, tracefs, tmp), 0);
	T_ASSERT(!instance_of(pid));
	out = t_readf("%s/k9.err", tmp);
	snprintf(msg, sizeof(msg), "hist-live.%ld, left by process %ld (no longer "
		 "running)", pid, pid);
	if (left && !(out && strstr(out, msg)))
		printf("# the instance went before the next run (another hist-live?)\n");
	free(out);

	/* --cleanup does only that */
	pid2 = start_bg("-t 'sched/sched_switch hist:keys=common_pid'", "k9.out");
	T_ASSERT(pid2 > 0 && instance_of(pid2));
	kill((pid_t)pid2, SIGKILL);
	T_EQ(wait_gone(pid2), 0);
	T_EQ(sh(1, "%s/hist-live --tracefs %s --cleanup 2> %s/k9.err", build, tracefs,
		tmp), 0);
	T_ASSERT(!instance_of(pid2));
}

static void test_signals_restore(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	size_t i;
	char *out;

	if (!tracefs[0])
		return;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		long pid = start_bg("-t 'sched/sched_switch hist:keys=common_pid'",
				    "sig.out");

		T_ASSERT(pid > 0 && instance_of(pid));
		kill((pid_t)pid, sigs[i]);
		T_EQ(wait_gone(pid), 0);
		if (instance_of(pid))
			printf("# signal %d left the instance\n", sigs[i]);
		T_ASSERT(!instance_of(pid));
		out = t_readf("%s/sig.out", tmp);
		/* stop signals print the tables; SIGQUIT only cleans up */
		if (sigs[i] != SIGQUIT)
			T_ASSERT(out && strstr(out, "# lost: "));
		free(out);
	}
	/* a reader that goes away: exit 141 (SIGPIPE), nothing left */
	T_EQ(sh(0, "bash -c '%s/hist-live -q --tracefs %s -i 0.2 -t \"sched/sched_switch "
		"hist:keys=common_pid\" | head -1 > /dev/null; exit ${PIPESTATUS[0]}'",
		build, tracefs), 141);
	/* nothing of these runs left (another checkout's test_live may kill
	 * one on purpose: only a dead one still there 3 s later counts) */
	T_EQ(sh(0, "dead() { for d in %s/instances/hist-live.*; do [ -d \"$d\" ] || "
		"continue; kill -0 \"${d##*.}\" 2>/dev/null || echo \"$d\"; done; }; "
		"a=$(dead); [ -n \"$a\" ] || exit 0; sleep 3; b=$(dead | tr '\\n' ' '); "
		"for d in $a; do case \" $b \" in *\" $d \"*) exit 1;; esac; done; exit 0",
		tracefs), 0);
}

/* ---- following a command ---------------------------------------------------- */

static void test_follow_and_status(void)
{
	char *out;

	if (!tracefs[0])
		return;
	/* the command execs once (sh), then forks five children that exec:
	 * six execs, whatever else the machine runs meanwhile */
	T_EQ(sh(1, LIVE "--follow -t 'sched/sched_process_exec hist:keys=common_pid' "
		"-- sh -c 'for i in 1 2 3 4 5; do /bin/true; done' > %s/follow.out",
		build, tracefs, tmp), 0);
	out = t_readf("%s/follow.out", tmp);
	T_EQ(out ? num_after(out, NULL, "    Hits: ") : -1, 6);
	free(out);
	/* -p: the threads of a running process, and the end when it ends */
	T_EQ(sh(1, "sh -c 'sleep 0.5; i=0; while [ $i -lt 300 ]; do i=$((i+1)); done; "
		"sleep 0.5' & " LIVE "-p $! -t 'raw_syscalls/sys_exit hist:keys=common_pid' "
		"> %s/pid.out", build, tracefs, tmp), 0);
	out = t_readf("%s/pid.out", tmp);
	T_ASSERT(out && num_after(out, NULL, "    Entries: ") == 1);
	free(out);
	/* exit statuses: the command's, or hist-live's own */
	T_EQ(sh(0, LIVE "-t 'sched/sched_process_exit hist:keys=common_pid' -- false "
		"> /dev/null", build, tracefs), 1);
	T_EQ(sh(0, LIVE "-t 'sched/sched_process_exit hist:keys=common_pid' -- sh -c "
		"'exit 7' > /dev/null", build, tracefs), 7);
	T_EQ(sh(0, LIVE "-t 'sched/sched_process_exit hist:keys=common_pid' -- "
		"/no/such/command > /dev/null", build, tracefs), 127);
	T_EQ(sh(0, LIVE "-t 'sched/sched_process_exit hist:keys=common_pid' -- sh -c "
		"'kill -TERM $$' > /dev/null", build, tracefs), 128 + SIGTERM);
	T_EQ(sh(0, "%s/hist-live --follow -t 'a/b hist:keys=x'", build), 2);
	T_EQ(sh(0, "%s/hist-live --delta -t 'a/b hist:keys=x'", build), 2);
	T_EQ(sh(0, "%s/hist-live -p 0 -t 'a/b hist:keys=x'", build), 2);
}

/*
 * sh -c CMD where pidfd_open() fails with ENOSYS, as on a kernel before
 * 5.3 (a seccomp filter, inherited by everything CMD runs).  Its exit
 * status, 128 if killed, -1 if it could not be set up.
 */
static int sh_without_pidfd(const char *cmd)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* -p on a kernel without pidfds: the run still ends with the process
 * (hist-live looks every 200 ms), not at the timeout's kill. */
static void test_pid_without_pidfd(void)
{
	char cmd[4096];
	char *out;

	if (!tracefs[0])
		return;
	snprintf(cmd, sizeof(cmd), "sleep 1 & timeout -s KILL 30 %s/hist-live -q "
		 "--tracefs %s -p $! -t 'sched/sched_switch hist:keys=common_pid' "
		 "> %s/nofd.out 2>&1", build, tracefs, tmp);
	T_EQ(sh_without_pidfd(cmd), 0);
	out = t_readf("%s/nofd.out", tmp);
	/* sleep switched out (and back) at least once */
	T_ASSERT(out && num_after(out, NULL, "    Hits: ") > 0);
	if (!out || num_after(out, NULL, "    Hits: ") <= 0)
		printf("# %s\n", out ? out : "(no output)");
	free(out);
	/* the filter really refuses pidfd_open: a -p process that does not
	 * end keeps hist-live running until -d */
	snprintf(cmd, sizeof(cmd), "sleep 30 & p=$!; timeout -s KILL 30 %s/hist-live "
		 "-q --tracefs %s -d 0.5 -p $p -t 'sched/sched_switch hist:keys="
		 "common_pid' > /dev/null 2>&1; r=$?; kill $p; exit $r", build, tracefs);
	T_EQ(sh_without_pidfd(cmd), 0);
}

/* ---- --top --------------------------------------------------------------------- */

/* Write VAL to tracefs file REL (top level); 0 or -1. */
static int top_write(const char *rel, const char *val)
{
	char p[700];
	FILE *f;
	int ok;

	snprintf(p, sizeof(p), "%s/%s", tracefs, rel);
	f = fopen(p, "w");
	if (!f)
		return -1;
	ok = fputs(val, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/*
 * --top changes the top-level buffer's files and restores each one
 * whole: a pid list of several pids, a filter of several words, the
 * buffer size.
 */
static void test_top_restores(void)
{
	static const char *const files[] = {
		"set_event_notrace_pid", "set_event_pid",
		"events/sched/sched_process_exec/filter", "buffer_size_kb",
		"buffer_percent", "events/sched/sched_process_exec/enable",
	};
	char *before[6], *after;
	size_t i;

	if (!tracefs[0])
		return;
	/* what was there, then a state with more than one word each */
	for (i = 0; i < 6; i++)
		before[i] = t_readf("%s/%s", tracefs, files[i]);
	T_EQ(top_write("set_event_notrace_pid", "1 2"), 0);
	T_EQ(top_write("set_event_pid", "1 2 3"), 0);
	T_EQ(top_write("events/sched/sched_process_exec/filter",
		       "pid == 12345 || pid == 54321"), 0);
	{
		char *want[6];

		for (i = 0; i < 6; i++)
			want[i] = t_readf("%s/%s", tracefs, files[i]);
		T_EQ(sh(1, "sleep 1 & " LIVE "--top -p $! -d 0.3 -t 'sched/"
			"sched_process_exec hist:keys=pid if pid == 1' > /dev/null",
			build, tracefs), 0);
		for (i = 0; i < 6; i++) {
			after = t_readf("%s/%s", tracefs, files[i]);
			T_ASSERT(after && want[i] && !strcmp(after, want[i]));
			if (after && want[i] && strcmp(after, want[i]))
				printf("# %s: '%s' after, '%s' before\n", files[i], after,
				       want[i]);
			free(after);
			free(want[i]);
		}
	}
	/* put back what this test found */
	top_write("set_event_notrace_pid", "");
	top_write("set_event_pid", "");
	top_write("events/sched/sched_process_exec/filter", "0");
	if (before[0] && before[0][0])
		top_write("set_event_notrace_pid", before[0]);
	if (before[1] && before[1][0])
		top_write("set_event_pid", before[1]);
	if (before[2] && strncmp(before[2], "none", 4))
		top_write("events/sched/sched_process_exec/filter", before[2]);
	for (i = 0; i < 6; i++)
		free(before[i]);
}

/* ---- intervals ---------------------------------------------------------------- */

static void test_ndjson_delta(void)
{
	char cmd[1200];
	long long sum = 0, n;
	const char *p;
	int lines = 0;
	char *out;

	if (!tracefs[0])
		return;
	/* 12 execs, 0.1 s apart, against 0.3 s intervals */
	T_EQ(sh(1, LIVE "--follow -i 0.3 --delta --json -t 'sched/sched_process_exec "
		"hist:keys=common_pid' -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11; do "
		"sleep 0.1; done' > %s/nd.out", build, tracefs, tmp), 0);
	out = t_readf("%s/nd.out", tmp);
	T_ASSERT(out != NULL);
	if (!out)
		return;
	for (p = out; *p; p = strchr(p, '\n') + 1) {
		if (!strchr(p, '\n'))
			break;
		lines++;
		n = num_after(p, NULL, "\"hits\": ");
		if (n > 0 && n < 1000000)
			sum += n;
	}
	/* sh, then 11 sleeps */
	T_EQ(sum, 12);
	T_ASSERT(lines >= 3);
	free(out);
	if (system("python3 -c 'import json' >/dev/null 2>&1")) {
		printf("# SKIP NDJSON parser check: python3 is not installed\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json, sys\n"
		 "docs = [json.loads(l) for l in open(sys.argv[1])]\n"
		 "assert len(docs) >= 3 and docs[-1][\"final\"] and not docs[0][\"final\"]\n"
		 "assert all(\"total\" in d[\"lost\"] for d in docs)\n' "
		 "%s/nd.out", tmp);
	T_EQ(sh(1, "%s", cmd), 0);
	/* each line also passes the schema check */
	T_EQ(sh(1, "i=0; while IFS= read -r l; do i=$((i+1)); printf '%%s\\n' \"$l\" > "
		"%s/one.json; python3 test/json_check.py --live %s/one.json || exit 1; "
		"done < %s/nd.out; [ $i -ge 3 ]", tmp, tmp, tmp), 0);
}

/* ---- kernel filters, stacks ------------------------------------------------- */

static void test_kernel_filter(void)
{
	char p[800];
	char *f;
	long pid;

	if (!tracefs[0])
		return;
	pid = start_bg("-t 'raw_syscalls/sys_enter hist:keys=id if comm == \"dd\"' "
		       "-t 'raw_syscalls/sys_enter hist:keys=common_pid if id == 0'",
		       "kf.out");
	snprintf(p, sizeof(p), "%s/instances/hist-live.%ld/events/raw_syscalls/"
		 "sys_enter/filter", tracefs, pid);
	f = t_readf("%s", p);
	T_ASSERT(f && strstr(f, "(comm == \"dd\") || (id == 0)"));
	if (f && !strstr(f, "(comm == \"dd\") || (id == 0)"))
		printf("# filter: %s\n", f);
	free(f);
	kill((pid_t)pid, SIGINT);
	T_EQ(wait_gone(pid), 0);
	/* one trigger without a filter: the kernel must record everything */
	pid = start_bg("-t 'raw_syscalls/sys_enter hist:keys=id if comm == \"dd\"' "
		       "-t 'raw_syscalls/sys_enter hist:keys=common_pid'", "kf.out");
	snprintf(p, sizeof(p), "%s/instances/hist-live.%ld/events/raw_syscalls/"
		 "sys_enter/filter", tracefs, pid);
	f = t_readf("%s", p);
	T_ASSERT(f && !strncmp(f, "none", 4));
	free(f);
	kill((pid_t)pid, SIGINT);
	T_EQ(wait_gone(pid), 0);
}

/* The instance's trace_clock of PID, the one in brackets ("" if unread). */
static void clock_of(long pid, char *out, size_t cap)
{
	char p[800], *f, *a, *b;

	snprintf(p, sizeof(p), "%s/instances/hist-live.%ld/trace_clock", tracefs, pid);
	f = t_readf("%s", p);
	a = f ? strchr(f, '[') : NULL;
	b = a ? strchr(a, ']') : NULL;
	snprintf(out, cap, "%.*s", a && b ? (int)(b - a - 1) : 0, a ? a + 1 : "");
	free(f);
}

/* Start hist-live with ARGS and check the clock its instance got. */
static void check_clock(const char *args, const char *want)
{
	char clock[64];
	long pid = start_bg(args, "clock.out");

	clock_of(pid, clock, sizeof(clock));
	T_STREQ(clock, want);
	kill((pid_t)pid, SIGINT);
	T_EQ(wait_gone(pid), 0);
}

/* Plain counting reads no time stamp: the kernel gets the cheap clock.  A
 * hist that uses common_timestamp keeps the clock it asks for. */
static void test_cheap_clock(void)
{
	if (!tracefs[0])
		return;
	check_clock("-t 'raw_syscalls/sys_enter hist:keys=common_pid.execname "
		    "if comm == \"dd\"'", "uptime");
	check_clock("-t 'raw_syscalls/sys_enter hist:keys=common_pid:clock=mono:"
		    "t0=common_timestamp.usecs'", "mono");
	/* two comm filters: libhist decides on names per record, in time
	 * order across CPUs, which jiffies cannot give */
	check_clock("-t 'raw_syscalls/sys_enter hist:keys=id if comm == \"dd\"' "
		    "-t 'raw_syscalls/sys_enter hist:keys=common_pid if comm == \"sh\"'",
		    "local");
}

/* One filter on the event: the kernel's verdict is final (libhist is told
 * so); two different ones: libhist still tells the triggers apart. */
static void test_exact_kernel_filter(void)
{
	long long h1, h2, lo, hi;
	char comm[16], dd[300], cmd[4096];
	const char *p;
	char *out;

	if (!tracefs[0])
		return;
	own_dd("hlex", comm, dd, sizeof(dd));
	snprintf(cmd, sizeof(cmd), "timeout -s KILL 120 %s/hist-live --tracefs %s -t "
		 "'raw_syscalls/sys_enter hist:keys=common_pid if comm == \"%s\"' -- %s "
		 "if=/dev/zero of=/dev/null bs=1 count=20000 > %s/ex.out 2> %s/ex.err",
		 build, tracefs, comm, dd, tmp, tmp);
	T_EQ(sh(1, "%s", cmd), 0);
	out = t_readf("%s/ex.err", tmp);
	T_ASSERT(out && strstr(out, "(exact: libhist does not filter again)"));
	/* the filter refuses hist-live's own calls: no pid list to check */
	T_ASSERT(out && strstr(out, "the kernel filters refuse its own records"));
	free(out);
	out = t_readf("%s/ex.out", tmp);
	/* dd's 40000 calls and its start-up's, nothing lost at this rate
	 * with the default buffer, or said so */
	h1 = num_after(out, NULL, "    Hits: ");
	lo = num_after(out, "\n# lost:", " total ");
	T_ASSERT(h1 + lo >= 40000 && h1 < 41000);
	free(out);

	/* the reads of dd, and all of its calls: the disjunction is not
	 * exact, so libhist filters each trigger itself */
	snprintf(cmd, sizeof(cmd), "timeout -s KILL 120 %s/hist-live --tracefs %s -t "
		 "'raw_syscalls/sys_enter hist:keys=common_pid if comm == \"%s\"' -t "
		 "'raw_syscalls/sys_enter hist:keys=common_pid if id == 0 && comm == "
		 "\"%s\"' -- %s if=/dev/zero of=/dev/null bs=1 count=20000 > %s/ex.out "
		 "2> %s/ex.err", build, tracefs, comm, comm, dd, tmp, tmp);
	T_EQ(sh(1, "%s", cmd), 0);
	out = t_readf("%s/ex.err", tmp);
	T_ASSERT(out && strstr(out, "kernel filter ") && !strstr(out, "(exact"));
	free(out);
	out = t_readf("%s/ex.out", tmp);
	p = out ? strstr(out, "    Hits: ") : NULL;
	h1 = num_after(p, NULL, "    Hits: ");
	h2 = p ? num_after(p + 1, NULL, "    Hits: ") : -1;
	lo = h1 < h2 ? h1 : h2;
	hi = h1 < h2 ? h2 : h1;
	printf("# all calls %lld, reads %lld\n", hi, lo);
	if (num_after(out, "\n# lost:", " total ") == 0)
		T_ASSERT(lo >= 20000 && lo < 20500 && hi >= 40000 && hi < 41000);
	free(out);
}

/*
 * Where every kernel filter refuses hist-live's own records, it leaves
 * set_event_notrace_pid empty (the kernel would check a pid for every
 * record).  Which filters refuse them (tfs_filter_excludes()), for a
 * task "hist-live" of pid 4242; anything it cannot be sure of passes.
 */
static void test_filter_excludes_self(void)
{
	static const struct {
		const char *filter;
		int comm_field, want;
	} t[] = {
		{ "comm == \"dd\"", 0, 1 },
		{ "comm == dd", 0, 1 },
		{ "  ( comm == 'dd' )  ", 0, 1 },
		{ "COMM == \"dd\"", 1, 1 },
		{ "comm == \"dd\"", 1, 0 },	/* sched_wakeup's comm: another task */
		{ "comm == \"hist-live\"", 0, 0 },
		{ "comm == \"hist\"", 0, 0 },	/* a prefix */
		{ "comm == \"hist-liveX\"", 0, 0 },
		{ "comm == \"dd*\"", 0, 0 },	/* a pattern */
		{ "comm == \"a b\"", 0, 0 },
		{ "comm != \"dd\"", 0, 0 },
		{ "!(comm == \"dd\")", 0, 0 },
		{ "comm ~ \"dd\"", 0, 0 },
		{ "common_pid == 17", 0, 1 },
		{ "common_pid == 4242", 0, 0 },
		{ "common_pid == 0x10", 0, 1 },
		{ "common_pid == 17x", 0, 0 },
		{ "id == 0 && comm == \"dd\"", 0, 1 },
		{ "(id == 0 || id == 1) && (comm == \"dd\")", 0, 1 },
		{ "id == 0 || comm == \"dd\"", 0, 0 },
		{ "(comm == \"dd\") || (comm == \"cat\")", 0, 1 },
		{ "(comm == \"dd\") || (common_pid == 4242)", 0, 0 },
		{ "comm == \"dd\" ||", 0, 0 },
		{ "comm == \"a&&b\" && id == 1", 0, 1 },
		{ "comm == \"x||\" || id == 1", 0, 0 },
		{ "(comm == \"dd\") id", 0, 0 },
		{ "", 0, 0 },
		{ "((((comm == \"dd\"))))", 0, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int got = tfs_filter_excludes(t[i].filter, "hist-live", 4242, t[i].comm_field);

		if (got != t[i].want)
			T_FAILF("tfs_filter_excludes(%s, comm field %d) = %d, not %d",
				t[i].filter, t[i].comm_field, got, t[i].want);
	}
	T_EQ(tfs_filter_excludes(NULL, "hist-live", 4242, 0), 0);
}

/*
 * Task names as the kernel had them at each record: a child renames
 * itself (prctl, /proc/self/comm), starts a thread that names itself,
 * execs, and is gone before hist-live reads its last records.  Four
 * triggers with different comm filters on one event: the kernel's filter
 * is their disjunction, so libhist decides on comm, with the names the
 * tracking records (task_newtask, task_rename) gave, in time order.  A
 * trigger on task_rename, one of the tracking events, counts its records
 * once.
 */
static void test_comm_changes(void)
{
	char tag[16], exe[300], cmd[4096];
	const long n = 20000;
	char *out;

	if (!tracefs[0])
		return;
	snprintf(tag, sizeof(tag), "hc%d", (int)getpid() % 100000);
	snprintf(exe, sizeof(exe), "%s/%sx", tmp, tag);
	T_EQ(sh(1, "cp %s/test/test_live %s", build, exe), 0);
	snprintf(cmd, sizeof(cmd), LIVE "-t 'raw_syscalls/sys_enter hist:keys=common_pid if "
		 "comm == \"%sa\" && id == %d' -t 'raw_syscalls/sys_enter hist:keys=common_pid "
		 "if comm == \"%sb\" && id == %d' -t 'raw_syscalls/sys_enter hist:keys=common_pid "
		 "if comm == \"%st\" && id == %d' -t 'raw_syscalls/sys_enter hist:keys=common_pid "
		 "if COMM == \"%sx\" && id == %d' -t 'task/task_rename hist:keys=newcomm "
		 "if newcomm ~ \"%s*\"' -- %s/test/test_live --comm-child %s %ld %s > %s/comm.out",
		 build, tracefs, tag, COMM_GETPPID_ID, tag, COMM_GETPPID_ID, tag,
		 COMM_GETPPID_ID, tag, COMM_GETPPID_ID, tag, build, tag, n, exe, tmp);
	T_EQ(sh(1, "%s", cmd), 0);
	out = t_readf("%s/comm.out", tmp);
	/* the task_rename records are in the same buffer */
	comm_child_check(out, tag, n, out ? num_after(out, "\n# lost:", " total ") : -1);
	free(out);
}

static void test_stack_keys(void)
{
	char *out;

	if (!tracefs[0])
		return;
	T_EQ(sh(1, LIVE "-d 1 -t 'sched/sched_switch hist:keys=common_stacktrace:"
		"sort=hitcount.descending' > %s/stack.out", build, tracefs, tmp), 0);
	out = t_readf("%s/stack.out", tmp);
	T_ASSERT(out && num_after(out, NULL, "    Entries: ") > 0);
	/* every switch is in __schedule(), and each entry has frames */
	T_ASSERT(out && strstr(out, "{ common_stacktrace:\n         "));
	T_ASSERT(out && strstr(out, "schedule"));
	free(out);
}

/* What the live shim cannot honour is said, not silently dropped. */
static void test_warnings(void)
{
	char *out;

	if (!tracefs[0])
		return;
	T_EQ(sh(1, LIVE "-d 0.2 -t 'sched/sched_switch enable_event:sched:sched_waking' "
		"-t 'sched/sched_switch hist:keys=common_pid' > /dev/null 2> %s/warn.err",
		build, tracefs, tmp), 0);
	out = t_readf("%s/warn.err", tmp);
	T_ASSERT(out && strstr(out, "sched/sched_waking has no trigger here"));
	free(out);
	T_EQ(sh(1, LIVE "-d 0.2 -t 'sched/sched_switch hist:keys=next_pid:p=next_prio:"
		"onmax($p).snapshot()' > /dev/null 2> %s/warn.err", build, tracefs, tmp), 0);
	out = t_readf("%s/warn.err", tmp);
	T_ASSERT(out && strstr(out, "no copy of the trace buffer is kept"));
	free(out);
}

int main(int argc, char **argv)
{
	int child = comm_child_main(argc, argv);

	if (child >= 0)
		return child;
	t_build_dir(build, sizeof(build), argv[0]);
	if (t_scratch(tmp, sizeof(tmp), "test_live"))
		return 1;
	live_possible();
	T_RUN(test_self_exclusion);
	T_RUN(test_loss_accounting);
	T_RUN(test_kill9_cleanup);
	T_RUN(test_signals_restore);
	T_RUN(test_follow_and_status);
	T_RUN(test_pid_without_pidfd);
	T_RUN(test_top_restores);
	T_RUN(test_ndjson_delta);
	T_RUN(test_kernel_filter);
	T_RUN(test_exact_kernel_filter);
	T_RUN(test_filter_excludes_self);
	T_RUN(test_comm_changes);
	T_RUN(test_cheap_clock);
	T_RUN(test_stack_keys);
	T_RUN(test_warnings);
	t_tracefs_release(tracefs, tracefs_mounted_by_us);
	t_scratch_remove(tmp);
	return T_DONE();
}
