/* SPDX-License-Identifier: MIT */
/*
 * histfs, mounted for real: in a private mount namespace, on a scratch
 * mount point, over a tracefs mounted for the test.
 *
 *   - pass-through files read as the real ones; the added files exist
 *   - the hist sequences of the kernel documentation give the same text
 *     as hist-replay over a trace-cmd recording of the same run
 *   - the kernel's recorded bad commands (test/conformance/cases/b*)
 *     give the kernel's errno and error_log entry through the mount
 *   - instances/NAME: own triggers, rmdir removes our private instance
 *   - the kernel's permissions for a user other than root
 *   - synthetic events and an onmatch() chain, dynamic_events
 *   - a libtracefs program (tracefs_hist_*, tracefs_synth_*) unchanged;
 *     trace-cmd stat lists the triggers
 *   - non-hist triggers: the kernel's errno and file, byte for byte
 *   - trace_marker writes count for the writer
 *   - concurrent writers and readers of trigger and hist files
 *   - poll on a hist file waits for a hit, as the kernel's; a real file's
 *     poll is the kernel's (trace_pipe waits for a record)
 *   - --kernel 5.1: a hist command's error at the end of the hist files
 *   - unmount and SIGTERM leave no private instance behind
 *
 * Needs root, /dev/fuse, tracefs and a build with histfs (libfuse3-dev);
 * otherwise SKIP and why.
 *
 * HIST_TEST_TSAN: make check-tsan runs it against a TSan build of
 * histfs (FUSE's threads, the drain thread); a report fails it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "comm_child.h"
#include "util.h"

static char tmp[256], bindir[512], histfs[600], real[600], mnt[600];
static pid_t histfs_pid;
static int skip;

#include "test_shell.h"

static char *mslurp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *mslurp(const char *fmt, ...)
{
	char rel[512], p[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(p, sizeof(p), "%s/%s", mnt, rel);
	return t_readf("%s", p);
}

/* MNT/REL reads WANT */
#define mfile_is(rel, want)                                                    \
	do {                                                                   \
		char *mf_ = mslurp("%s", rel);                                 \
                                                                               \
		T_STREQ(mf_, want);                                            \
		free(mf_);                                                     \
	} while (0)

/* write(2) of TEXT to MNT/REL, opened for append or truncation; 0 or
 * the errno of the open or the write. */
static int mwrite(const char *rel, const char *text, int append)
{
	char p[1200];
	int fd, e = 0;

	snprintf(p, sizeof(p), "%s/%s", mnt, rel);
	fd = open(p, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		e = errno;
	close(fd);
	return e;
}

/* instances/histfs.PID[.N] of the histfs we started (PID: another
 * histfs on the machine has its own) */
static pid_t last_pid;

static int private_instances(void)
{
	return sh(0, "ls %s/instances | grep -q '^histfs\\.%d\\(\\.\\|$\\)'", real,
		  (int)last_pid) == 0;
}

/* --kernel VERSION for the next start_histfs(), or NULL */
static const char *kernel_opt;

static int start_histfs(void)
{
	int i;

	histfs_pid = fork();
	last_pid = histfs_pid;
	if (histfs_pid == 0) {
		char out[600];

		snprintf(out, sizeof(out), "%s/histfs.err", tmp);
		if (!freopen(out, "a", stderr))
			_exit(127);
		/* a killed test must not leave its histfs running (and its
		 * instance recording): SIGTERM, which removes the instance */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (kernel_opt)
			execl(histfs, "histfs", "-f", "--kernel", kernel_opt, "--tracefs", real,
			      mnt, (char *)NULL);
		else
			execl(histfs, "histfs", "-f", "--tracefs", real, mnt, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 50; i++) {
		if (sh(0, "grep -q ' %s fuse' /proc/mounts", mnt) == 0)
			return 0;
		usleep(100000);
	}
	return -1;
}

static int stop_histfs(void)
{
	int st = -1;

	if (umount(mnt))
		printf("# umount %s: %s\n", mnt, strerror(errno));
	waitpid(histfs_pid, &st, 0);
	histfs_pid = 0;
	return st;
}

/* root, FUSE, tracefs, a histfs binary: set up the namespace and mount */
static void setup(void)
{
	if (geteuid()) {
		printf("# SKIP histfs: not root\n");
		skip = 1;
		return;
	}
	if (access("/dev/fuse", R_OK | W_OK)) {
		printf("# SKIP histfs: no /dev/fuse\n");
		skip = 1;
		return;
	}
	if (access(histfs, X_OK)) {
		printf("# SKIP histfs: %s not built (libfuse3-dev missing)\n", histfs);
		skip = 1;
		return;
	}
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("# SKIP histfs: no private mount namespace: %s\n", strerror(errno));
		skip = 1;
		return;
	}
	snprintf(real, sizeof(real), "%s/real", tmp);
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	if (mkdir(real, 0700) || mkdir(mnt, 0700) ||
	    mount("nodev", real, "tracefs", 0, NULL)) {
		printf("# SKIP histfs: cannot mount tracefs: %s\n", strerror(errno));
		skip = 1;
		return;
	}
	if (start_histfs()) {
		printf("# SKIP histfs: the mount did not appear\n");
		sh(1, "cat %s/histfs.err", tmp);
		skip = 1;
	}
}

/* ---- pass-through and the added files ------------------------------- */

/* open(2) of PATH for writing, then write(2): 0 or the errno (-1 when
 * the open failed) */
static int write_errno(const char *path)
{
	int fd = open(path, O_WRONLY), e = 0;

	if (fd < 0)
		return -1;
	if (write(fd, "x", 1) < 0)
		e = errno;
	close(fd);
	return e;
}

static void test_passthrough(void)
{
	char *a, *b, *readme, *trig, *ls, inst[100];
	char p[700];

	if (skip)
		return;
	snprintf(p, sizeof(p), "%s/available_events", real);
	a = t_readf("%s", p);
	b = mslurp("available_events");
	T_ASSERT(a && b && strlen(a) > 100);
	T_STREQ(b, a);
	free(a);
	free(b);
	readme = mslurp("README");
	T_ASSERT(readme && strstr(readme, "tracing mini-HOWTO"));
	T_ASSERT(readme && strstr(readme, "hist:keys=<field1[,field2,...]>"));
	T_ASSERT(readme && strstr(readme, "onchange(var)"));
	free(readme);
	trig = mslurp("events/sched/sched_process_fork/trigger");
	T_ASSERT(trig && !strncmp(trig, "# Available triggers:\n", 22));
	T_ASSERT(trig && strstr(trig, " hist\n") && strstr(trig, "enable_event"));
	free(trig);
	/* the hist files are listed next to the real ones */
	T_EQ(sh(1, "ls %s/events/sched/sched_switch > %s/ls", mnt, tmp), 0);
	snprintf(p, sizeof(p), "%s/ls", tmp);
	ls = t_readf("%s", p);
	T_ASSERT(ls && strstr(ls, "hist\n") && strstr(ls, "hist_debug\n") &&
		 strstr(ls, "format\n") && strstr(ls, "trigger\n"));
	free(ls);
	T_EQ(sh(0, "test -e %s/events/sched/no_such_event/hist", mnt), 1);
	/* a write to a read-only file of the kernel (format) or of ours
	 * (hist, hist_debug): root opens it, the write fails with EINVAL */
	snprintf(p, sizeof(p), "%s/events/sched/sched_switch/format", real);
	T_EQ(write_errno(p), EINVAL);
	snprintf(p, sizeof(p), "%s/events/sched/sched_switch/format", mnt);
	T_EQ(write_errno(p), EINVAL);
	snprintf(p, sizeof(p), "%s/events/sched/sched_switch/hist", mnt);
	T_EQ(write_errno(p), EINVAL);
	snprintf(p, sizeof(p), "%s/events/sched/sched_switch/hist_debug", mnt);
	T_EQ(write_errno(p), EINVAL);
	/* writes pass through: tracing_on, of an instance of ours (the top
	 * level's is every other test's on the machine: trace_marker writes
	 * fail with EBADF while it is off) */
	snprintf(inst, sizeof(inst), "instances/histfs_pt.%d", (int)getpid());
	T_EQ(sh(1, "mkdir %s/%s", mnt, inst), 0);
	snprintf(p, sizeof(p), "%s/tracing_on", inst);
	T_EQ(mwrite(p, "0\n", 0), 0);
	a = t_readf("%s/%s/tracing_on", real, inst);
	T_STREQ(a, "0\n");
	free(a);
	T_EQ(sh(1, "rmdir %s/%s", mnt, inst), 0);
	/* our private instance is hidden */
	T_EQ(sh(0, "ls %s/instances | grep -q '^histfs\\.%d'", mnt, (int)last_pid), 1);
}

/* ---- the documentation's sequences against hist-replay ------------------ */

/*
 * Hist triggers in the style of histogram.rst (keys, values, sort,
 * modifiers of direction, filters on strings and globs) against the
 * same run recorded by the kernel and replayed by hist-replay.  The
 * workload: hwPID (a copy of sh) forks children that run copies of true
 * and ls (htPID, hlPID), so its forks, execs and exits are exactly known
 * and no other process matches the filters.
 */
static void test_doc_vs_replay(void)
{
	/* the workload's names carry our pid: other runs of this test may
	 * share the kernel (comm holds 15 characters) */
	static const char *const fmt[][2] = {
		{ "sched/sched_process_fork",
		  "hist:keys=parent_comm:vals=hitcount if parent_comm == \"hw%d\"" },
		{ "sched/sched_process_fork",
		  "hist:keys=child_pid,child_comm:vals=hitcount:sort=child_pid.descending "
		  "if parent_comm == \"hw%d\"" },
		{ "sched/sched_process_exec",
		  "hist:keys=filename:vals=hitcount:sort=hitcount.descending,filename "
		  "if filename ~ \"*h[tlw]%d\"" },
		{ "sched/sched_process_exit",
		  "hist:keys=comm:vals=prio:sort=comm if comm ~ \"h[tlw]%d\"" },
	};
	struct {
		const char *event;
		char cmd[300];
	} trig[4];
	char cmds[4096] = "", p[1200], *want, *got;
	size_t i, n = 4;
	int st, id = (int)getpid() % 1000000;

	for (i = 0; i < n; i++) {
		trig[i].event = fmt[i][0];
		snprintf(trig[i].cmd, sizeof(trig[i].cmd), fmt[i][1], id);
	}
	if (skip)
		return;
	if (sh(0, "command -v trace-cmd")) {
		printf("# SKIP doc sequences: trace-cmd is not installed\n");
		return;
	}
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "events/%s/trigger", trig[i].event);
		T_EQ(mwrite(p, trig[i].cmd, 1), 0);
		snprintf(cmds + strlen(cmds), sizeof(cmds) - strlen(cmds), " -t '%s %s'",
			 trig[i].event, trig[i].cmd);
	}
	/* the same run, recorded by the kernel in an instance of its own
	 * and saved by trace-cmd (trace-cmd record needs function tracing,
	 * which some kernels forbid; extract does not) */
	T_EQ(sh(1, "cd %s && cp /bin/sh hw%d && cp /bin/true ht%d && "
		   "cp /bin/ls hl%d && I=%s/instances/histfs_rec.%d && mkdir $I && "
		   "for e in fork exec exit; do "
		   "echo 1 > $I/events/sched/sched_process_$e/enable || exit 1; done && "
		   "./hw%d -c 'for i in 1 2 3 4 5 6 7 8; do ./ht%d; "
		   "./hl%d / >/dev/null; done' && echo 0 > $I/tracing_on && "
		   "trace-cmd extract -B histfs_rec.%d -o run.dat; st=$?; rmdir $I; exit $st",
		   tmp, id, id, id, real, id, id, id, id, id), 0);
	st = sh(1, "%s/hist-replay --instance histfs_rec.%d %s %s/run.dat > %s/replay.txt",
		bindir, id, cmds, tmp, tmp);
	T_EQ(st, 0);
	snprintf(p, sizeof(p), "%s/replay.txt", tmp);
	want = t_readf("%s", p);
	for (i = 0; i < n; i++) {
		char *h;

		if (i && !strcmp(trig[i].event, trig[i - 1].event))
			continue;
		h = mslurp("events/%s/hist", trig[i].event);
		T_ASSERT(h && strstr(h, "Hits:"));
		/* hist-replay prints each event's hist file under a header */
		T_ASSERT(want && h && strstr(want, h));
		if (want && h && !strstr(want, h))
			printf("# histfs printed:\n%s\n# hist-replay:\n%s\n", h, want);
		free(h);
	}
	free(want);
	for (i = 0; i < n; i++) {
		char rm[600];

		snprintf(p, sizeof(p), "events/%s/trigger", trig[i].event);
		snprintf(rm, sizeof(rm), "!%s", trig[i].cmd);
		T_EQ(mwrite(p, rm, 1), 0);
	}
	got = mslurp("events/sched/sched_process_fork/hist");
	T_STREQ(got, "");
	free(got);
}

/* ---- the kernel's errors ------------------------------------------------ */

/* Drop the "[  123.456789] " stamps of an error_log text. */
static void unstamp(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (*r == '[' && (r == s || r[-1] == '\n')) {
			char *e = strchr(r, ']');

			if (e) {
				r = e + 1;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = 0;
}

/* Remove the hist triggers of the TARGETS events: the CMDS written, in
 * reverse order, then what the trigger files still list (three rounds:
 * one that others refer to goes once they are gone), then every
 * synthetic event. */
static void reset(char **targets, int n, char **cmds, char **cmd_targets, int nr_cmds)
{
	int round, i;

	/* the commands as written, newest first */
	for (i = nr_cmds; i-- > 0;) {
		char rel[600], rm[4200];

		snprintf(rel, sizeof(rel), "events/%s/trigger", cmd_targets[i]);
		snprintf(rm, sizeof(rm), "!%s", cmds[i]);
		mwrite(rel, rm, 1);
	}

	for (round = 0; round < 3; round++) {
		for (i = 0; i < n; i++) {
			char rel[600], *t = mslurp("events/%s/trigger", targets[i]), *line, *save = NULL;

			snprintf(rel, sizeof(rel), "events/%s/trigger", targets[i]);
			for (line = t ? strtok_r(t, "\n", &save) : NULL; line;
			     line = strtok_r(NULL, "\n", &save)) {
				char rm[4200], *br = strstr(line, " [");

				if (strncmp(line, "hist", 4))
					continue;
				if (br)
					*br = 0;
				snprintf(rm, sizeof(rm), "!%s", line);
				mwrite(rel, rm, 1);
			}
			free(t);
		}
	}
	/* every trigger goes by its own text (b80: stack-trace variables) */
	for (i = 0; i < n; i++) {
		char *t = mslurp("events/%s/trigger", targets[i]);

		if (t && !strncmp(t, "hist", 4))
			printf("# left on %s: %s", targets[i], t);
		T_ASSERT(!t || strncmp(t, "hist", 4));
		free(t);
	}
	mwrite("synthetic_events", "", 0);
}

/*
 * The error_log the recording read after write SEQ (writes.json: the
 * oracle clears the log before each write), unescaped; NULL if none.
 */
static char *json_errlog(const char *json, int seq)
{
	char key[32], *out, *w;
	const char *p;

	snprintf(key, sizeof(key), "\"seq\": %d,", seq);
	p = json ? strstr(json, key) : NULL;
	if (!p)
		return NULL;
	p += strlen(key);
	{
		const char *next = strstr(p, "\"seq\": ");
		const char *e = strstr(p, "\"error_log\": \"");

		if (!e || (next && e > next))
			return NULL;
		p = e + strlen("\"error_log\": \"");
	}
	out = w = malloc(strlen(p) + 1);
	for (; out && *p && *p != '"'; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			*w++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
		} else {
			*w++ = *p;
		}
	}
	if (out)
		*w = 0;
	return out;
}

/* One recorded bad-input case: replay its writes, compare errno and the
 * error_log.  Returns 1 if the case ran. */
static int run_case(const char *dir)
{
	char p[1400], line[4096], *want, *got, *json, *targets[64], *cmds[64], *cmd_targets[64];
	FILE *f;
	int ran = 1, nr_targets = 0, nr_cmds = 0, k;

	snprintf(p, sizeof(p), "%s/expected/writes.tsv", dir);
	f = fopen(p, "r");
	if (!f)
		return 0;
	snprintf(p, sizeof(p), "%s/expected/writes.json", dir);
	json = t_readf("%s", p);
	if (!json)
		ran = 0;
	while (fgets(line, sizeof(line), f)) {
		char *v[5], *s = line;
		int e, want_e = 0;

		line[strcspn(line, "\n")] = 0;
		for (k = 0; k < 5 && s; k++) {
			v[k] = s;
			s = strchr(s, '\t');
			if (s && k < 4)
				*s++ = 0;
		}
		if (k < 5)
			continue;
		if (!strncmp(v[3], "ERR ", 4))
			want_e = atoi(v[3] + 4);
		T_EQ(mwrite("error_log", "", 0), 0);
		if (!strcmp(v[1], "trigger")) {
			int j;

			for (j = 0; j < nr_targets && strcmp(targets[j], v[2]); j++)
				;
			if (j == nr_targets && nr_targets < 64)
				targets[nr_targets++] = strdup(v[2]);
			if (!strncmp(v[4], "hist", 4) && nr_cmds < 64) {
				cmds[nr_cmds] = strdup(v[4]);
				cmd_targets[nr_cmds++] = strdup(v[2]);
			}
			snprintf(p, sizeof(p), "events/%s/trigger", v[2]);
			e = mwrite(p, v[4], 1);
		} else if (!strcmp(v[1], "synth")) {
			e = mwrite("synthetic_events", v[4], 1);
		} else {
			continue;	/* enables, files: the user's buffer */
		}
		if (e != want_e)
			T_FAILF("%s: '%s' gave errno %d, the kernel %d", dir, v[4], e, want_e);
		want = json_errlog(json, atoi(v[0]));
		got = mslurp("error_log");
		if (!got || (want && strcmp((unstamp(want), want), (unstamp(got), got))) ||
		    (!want && *got))
			T_FAILF("%s: '%s': error_log\n--- got:\n%s--- kernel:\n%s", dir, v[4],
				got ? got : "(none)", want ? want : "(none)\n");
		free(want);
		free(got);
	}
	fclose(f);
	free(json);
	reset(targets, nr_targets, cmds, cmd_targets, nr_cmds);
	for (k = 0; k < nr_targets; k++)
		free(targets[k]);
	for (k = 0; k < nr_cmds; k++) {
		free(cmds[k]);
		free(cmd_targets[k]);
	}
	return ran;
}

static void test_kernel_errors(void)
{
	char dir[600], p[900];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	if (skip)
		return;
	/* the set of the newest kernel: libhist speaks its language */
	snprintf(dir, sizeof(dir), "%s/../test/conformance/cases-6.12", bindir);
	dp = opendir(dir);
	if (!dp) {
		dp = opendir("test/conformance/cases-6.12");
		snprintf(dir, sizeof(dir), "test/conformance/cases-6.12");
	}
	T_ASSERT(dp != NULL);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		char pat[300];

		if (d->d_name[0] != 'b')
			continue;
		/* the kernel differs from libhist there, on purpose */
		snprintf(pat, sizeof(pat), "^cases-6.12/%s/", d->d_name);
		if (!sh(0, "grep -q '%s' %s/../kernel-xfail.txt", pat, dir))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, d->d_name);
		n += run_case(p);
	}
	closedir(dp);
	printf("# %d recorded bad-input cases replayed through the mount\n", n);

	T_ASSERT(n >= 40);
}

/* ---- instances -------------------------------------------------------- */

static void test_instances(void)
{
	char *h, inst[100], p[200];

	if (skip)
		return;
	/* a name of ours: other runs of this test share the kernel */
	snprintf(inst, sizeof(inst), "instances/histfs_t1.%d", (int)getpid());
	snprintf(p, sizeof(p), "%s/events/sched/sched_process_fork/trigger", inst);
	T_EQ(sh(1, "mkdir %s/%s", mnt, inst), 0);
	T_EQ(mwrite(p,
		    "hist:keys=common_pid", 0), 0);
	T_EQ(sh(1, "for i in 1 2 3; do /bin/true; done"), 0);
	h = mslurp("%s/events/sched/sched_process_fork/hist", inst);
	T_ASSERT(h && strstr(h, "common_pid:") && strstr(h, "Hits:"));
	free(h);
	/* hist_debug: the trigger's fields, as the kernel's */
	h = mslurp("%s/events/sched/sched_process_fork/hist_debug", inst);
	T_ASSERT(h && strstr(h, "# trigger info: hist:keys=common_pid:vals=hitcount"));
	T_ASSERT(h && strstr(h, "  n_keys: 1\n") && strstr(h, "HIST_FIELD_FL_HITCOUNT"));
	free(h);
	/* the top level does not see the instance's trigger */
	h = mslurp("events/sched/sched_process_fork/hist");
	T_STREQ(h, "");
	free(h);
	/* its error_log holds its errors, libhist's and the kernel's (a
	 * bad filter of a traceon trigger), in time order; the top level's
	 * has neither */
	snprintf(p, sizeof(p), "%s/error_log", inst);
	T_EQ(mwrite(p, "", 0), 0);
	T_EQ(mwrite("error_log", "", 0), 0);
	snprintf(p, sizeof(p), "%s/events/sched/sched_process_fork/trigger", inst);
	T_EQ(mwrite(p, "hist:keys=no_such_field", 1), EINVAL);
	T_EQ(mwrite(p, "traceon if no_such_field == 1", 1), EINVAL);
	h = mslurp("%s/error_log", inst);
	T_ASSERT(h && strstr(h, "hist:sched:sched_process_fork: error: Couldn't find field\n"
				"  Command: hist:keys=no_such_field\n"));
	T_ASSERT(h && strstr(h, "event filter parse error: error: Field not found\n"));
	T_ASSERT(h && strstr(h, "Couldn't find field") < strstr(h, "Field not found"));
	free(h);
	h = mslurp("error_log");
	T_ASSERT(h && !strstr(h, "no_such_field"));
	free(h);
	/* two private instances now: ours for the top level may exist */
	T_ASSERT(private_instances());
	T_EQ(sh(1, "rmdir %s/%s", mnt, inst), 0);
	T_EQ(sh(0, "test -d %s/%s", real, inst), 1);
	T_EQ(sh(0, "ls %s/instances | grep -q '^histfs\\.%d\\.'", real, (int)last_pid), 1);
}

/* ---- the kernel's own triggers, byte for byte -------------------------- */

/* write(2) of TEXT to PATH (appending or truncating): "ok N" or the errno
 * of the open or the write, into OUT */
static void note_write(const char *path, const char *text, int flags, char *out, size_t n)
{
	int fd = open(path, O_WRONLY | flags), e = 0;
	ssize_t k = -1;

	if (fd < 0) {
		snprintf(out, n, "open: %s", strerror(errno));
		return;
	}
	k = write(fd, text, strlen(text));
	if (k < 0)
		e = errno;
	close(fd);
	if (k < 0)
		snprintf(out, n, "write: %s", strerror(e));
	else
		snprintf(out, n, "ok %zd", k);
}

/*
 * Every trigger that is not a hist command is the kernel's: the same
 * writes to a trigger file of an instance made through the mount and of
 * one made in the real tracefs give the same errno and the same file,
 * but for the hist commands the mount adds to the "# Available
 * triggers:" header.  ftrace/print of an instance fires only on a write
 * to that instance's trace_marker, so no count changes under the test.
 */
static void test_trigger_passthrough(void)
{
	static const struct { const char *text; int flags; } w[] = {
		{ "traceon", O_APPEND }, { "stacktrace:3", O_APPEND },
		{ "traceoff", O_TRUNC },	/* the kernel keeps its triggers */
		{ "traceon:5", O_APPEND },	/* EEXIST */
		{ "bogus", O_APPEND }, { "traceon if nofield == 1", O_APPEND },
		{ "  \n", O_APPEND }, { "traceon\ntraceoff\n", O_APPEND },
		{ "enable_event:sched:sched_switch:2", O_APPEND },
		{ "enable_event:nosys:noev", O_APPEND },
		{ "disable_event:sched:sched_switch", O_APPEND },
		{ "!stacktrace", O_APPEND }, { "!stacktrace", O_APPEND },
		{ "stacktrace if buf ~ \"x*\"", 0 },
		{ "!traceon", O_APPEND }, { "!enable_event:sched:sched_switch", O_APPEND },
		{ "!stacktrace", O_APPEND },
	};
	char inst[2][700], p[1500], got[2][100], *t[2];
	size_t i;
	int j;

	if (skip)
		return;
	snprintf(inst[0], sizeof(inst[0]), "%s/instances/histfs_tm.%d", mnt, (int)getpid());
	snprintf(inst[1], sizeof(inst[1]), "%s/instances/histfs_tr.%d", real, (int)getpid());
	for (j = 0; j < 2; j++)
		T_EQ(mkdir(inst[j], 0750), 0);
	for (i = 0; i <= sizeof(w) / sizeof(w[0]); i++) {
		for (j = 0; j < 2; j++) {
			snprintf(p, sizeof(p), "%s/events/ftrace/print/trigger", inst[j]);
			if (i < sizeof(w) / sizeof(w[0]))
				note_write(p, w[i].text, w[i].flags, got[j], sizeof(got[j]));
			t[j] = t_readf("%s", p);
		}
		if (i < sizeof(w) / sizeof(w[0]) && strcmp(got[0], got[1]))
			T_FAILF("'%s': %s through the mount, %s from tracefs", w[i].text, got[0],
				got[1]);
		if (t[0] && t[1] && t[1][0] == '#') {
			/* the header, with the hist triggers added */
			char want[600];
			size_t n = strcspn(t[1] + 22, "\n") + 22;

			snprintf(want, sizeof(want), "%.*s enable_hist disable_hist hist\n", (int)n,
				 t[1]);
			T_ASSERT(!strncmp(t[1], "# Available triggers:\n# ", 24));
			T_STREQ(t[0], want);
		} else if (!t[0] || !t[1] || strcmp(t[0], t[1])) {
			T_FAILF("after '%s': the mount's trigger file\n%s--- tracefs's\n%s",
				i ? w[i - 1].text : "", t[0] ? t[0] : "(none)\n",
				t[1] ? t[1] : "(none)\n");
		}
		free(t[0]);
		free(t[1]);
	}
	for (j = 0; j < 2; j++)
		T_EQ(rmdir(inst[j]), 0);
}

/* ---- permissions -------------------------------------------------------- */

/* open(2) of PATH for reading as nobody (uid and gid 65534): 0 or errno */
static int open_as_nobody(const char *path)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(100);
		fd = open(path, O_RDONLY);
		_exit(fd < 0 ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/*
 * The kernel's permissions hold for every user, not only for the one
 * who mounted: a file tracefs lets nobody read reads through the mount,
 * one it does not is refused.  (FUSE refuses other users everything
 * unless mounted allow_other; histfs then checks nothing itself, the
 * modes it reports are the real ones.)  For the test the tracefs root
 * and instances/ are made traversable (0711) and a file of an instance
 * of ours readable; tracefs has one superblock, so the modes are
 * restored at once.
 */
static void test_permissions(void)
{
	char inst[100], p[1200];
	struct stat root, insts;
	const char *where[2] = { real, mnt };
	int i;

	if (skip)
		return;
	snprintf(inst, sizeof(inst), "instances/histfs_perm.%d", (int)getpid());
	T_EQ(sh(1, "mkdir %s/%s", mnt, inst), 0);
	snprintf(p, sizeof(p), "%s/instances", real);
	T_EQ(stat(real, &root), 0);
	T_EQ(stat(p, &insts), 0);
	T_EQ(chmod(tmp, 0711), 0);
	T_EQ(sh(1, "chmod 0711 %s %s/instances %s/%s && chmod 0644 %s/%s/tracing_on", mnt, mnt,
		mnt, inst, mnt, inst), 0);
	for (i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s/tracing_on", where[i], inst);
		T_EQ(open_as_nobody(p), 0);
		snprintf(p, sizeof(p), "%s/%s/trace", where[i], inst);
		T_EQ(open_as_nobody(p), EACCES);
		snprintf(p, sizeof(p), "%s/%s/events/sched/sched_switch/trigger", where[i], inst);
		T_EQ(open_as_nobody(p), EACCES);
	}
	snprintf(p, sizeof(p), "%s/%s/events/sched/sched_switch/hist", mnt, inst);
	T_EQ(open_as_nobody(p), EACCES);
	snprintf(p, sizeof(p), "%s/instances", real);
	T_EQ(chmod(p, insts.st_mode & 07777), 0);
	T_EQ(chmod(real, root.st_mode & 07777), 0);
	T_EQ(chmod(tmp, 0700), 0);
	T_EQ(sh(1, "rmdir %s/%s", mnt, inst), 0);
}

/* ---- synthetic events --------------------------------------------------- */

static void test_synthetic(void)
{
	char *s, *h, *fmt, snap[800], rinst[700], up[100];
	int has_snap, fd, i, kup;

	if (skip)
		return;
	T_EQ(mwrite("synthetic_events", "forklat u64 lat; pid_t pid", 0), 0);
	s = mslurp("synthetic_events");
	T_STREQ(s, "forklat\tu64 lat; pid_t pid\n");
	free(s);
	T_EQ(sh(0, "test -d %s/events/synthetic/forklat", mnt), 0);
	T_EQ(mwrite("events/synthetic/forklat/format", "x", 1), EINVAL);
	T_EQ(mwrite("events/synthetic/forklat/hist", "x", 1), EINVAL);
	fmt = mslurp("events/synthetic/forklat/format");
	T_ASSERT(fmt && strstr(fmt, "name: forklat") && strstr(fmt, "field:u64 lat;"));
	/* id: the format's ID */
	s = mslurp("events/synthetic/forklat/id");
	T_ASSERT(s && fmt && strstr(fmt, "\nID: ") && atoi(s) > 0 &&
		 atoi(s) == atoi(strstr(fmt, "\nID: ") + 5));
	free(s);
	free(fmt);
	/* its records never reach the kernel's buffer: enabling it there
	 * is refused, not accepted for a trace that stays empty */
	T_EQ(mwrite("events/synthetic/forklat/enable", "1", 0), EOPNOTSUPP);
	T_EQ(mwrite("events/synthetic/enable", "1", 0), EOPNOTSUPP);
	T_EQ(mwrite("events/synthetic/forklat/enable", "0", 0), 0);
	/* its trigger file lists this kernel's commands (snapshot only with
	 * a snapshot buffer) and the hist ones; those the kernel would run
	 * at the event are refused, an unknown one is the kernel's EINVAL */
	snprintf(snap, sizeof(snap), "%s/snapshot", real);
	has_snap = access(snap, F_OK) == 0;
	s = mslurp("events/synthetic/forklat/trigger");
	T_ASSERT(s && !strncmp(s, "# Available triggers:\n# traceon traceoff ", 41));
	T_ASSERT(s && strstr(s, " enable_event disable_event enable_hist disable_hist hist\n"));
	T_ASSERT(s && !strstr(s, " snapshot ") == !has_snap);
	free(s);
	T_EQ(mwrite("events/synthetic/forklat/trigger", "traceoff", 1), EOPNOTSUPP);
	T_EQ(mwrite("events/synthetic/forklat/trigger", "enable_event:sched:sched_switch", 1),
	     EOPNOTSUPP);
	T_EQ(mwrite("events/synthetic/forklat/trigger", "snapshot", 1),
	     has_snap ? EOPNOTSUPP : EINVAL);
	T_EQ(mwrite("events/synthetic/forklat/trigger", "bogus", 1), EINVAL);
	T_EQ(mwrite("events/synthetic/forklat/trigger", "!traceoff", 1), 0);
	/* its filter file shows what was written, a failed filter with its
	 * error as the kernel's (a real instance's event, the same write) */
	snprintf(rinst, sizeof(rinst), "%s/instances/histfs_sf.%d", real, (int)getpid());
	T_EQ(mkdir(rinst, 0750), 0);
	snprintf(snap, sizeof(snap), "%s/events/sched/sched_switch/filter", rinst);
	fd = open(snap, O_WRONLY | O_TRUNC);
	T_ASSERT(fd >= 0 && write(fd, "bad ==", 6) < 0 && errno == EINVAL);
	if (fd >= 0)
		close(fd);
	T_EQ(mwrite("events/synthetic/forklat/filter", "bad ==", 0), EINVAL);
	s = mslurp("events/synthetic/forklat/filter");
	h = t_readf("%s", snap);
	T_ASSERT(h && strstr(h, "parse_error: Field not found"));
	T_STREQ(s, h);
	free(s);
	free(h);
	T_EQ(rmdir(rinst), 0);
	T_EQ(mwrite("events/synthetic/forklat/filter", "pid > 10", 0), 0);
	mfile_is("events/synthetic/forklat/filter", "pid > 10\n");
	T_EQ(mwrite("events/synthetic/forklat/filter", "0", 0), 0);
	mfile_is("events/synthetic/forklat/filter", "none\n");
	T_EQ(mwrite("events/synthetic/forklat/filter", "pid < 5", 0), 0);
	s = mslurp("events/synthetic/forklat/trigger");
	T_ASSERT(s && s[0] == '#');
	free(s);
	/* fork -> exit of the same pid, through an onmatch() chain */
	T_EQ(mwrite("events/sched/sched_process_fork/trigger",
		    "hist:keys=child_pid:ts0=common_timestamp.usecs", 1), 0);
	T_EQ(mwrite("events/sched/sched_process_exit/trigger",
		    "hist:keys=pid:lat=common_timestamp.usecs-$ts0:"
		    "onmatch(sched.sched_process_fork).forklat($lat,pid)", 1), 0);
	T_EQ(mwrite("events/synthetic/forklat/trigger", "hist:keys=pid:vals=lat", 1), 0);
	/* on a loaded machine a read may skip records (and say so under the
	 * table): then another round; an empty table that says nothing fails */
	for (i = 0; i < 3; i++) {
		T_EQ(sh(1, "for i in 1 2 3 4; do /bin/true; done"), 0);
		h = mslurp("events/synthetic/forklat/hist");
		if (!h || strstr(h, "{ pid:") || (!strstr(h, " events skipped by histfs") &&
						  !strstr(h, " events lost by the kernel")))
			break;
		printf("# forklat, round %d:\n%s", i, h);
		free(h);
	}
	T_ASSERT(h && strstr(h, "{ pid:") && strstr(h, "lat:"));
	if (h && !strstr(h, "{ pid:"))
		printf("# forklat:\n%s", h);
	free(h);
	/* in use: neither removal nor truncation goes through */
	T_EQ(mwrite("synthetic_events", "!forklat", 1), EBUSY);
	T_EQ(mwrite("synthetic_events", "", 0), EBUSY);
	/* dynamic_events lists it with s: next to the kernel's (a uprobe
	 * written there goes to the kernel's file) */
	snprintf(up, sizeof(up), "p:hfs_up%d /bin/true:0x1000", (int)getpid());
	kup = mwrite("dynamic_events", up, 1);
	s = mslurp("dynamic_events");
	T_ASSERT(s && strstr(s, "s:synthetic/forklat\tu64 lat; pid_t pid"));
	if (kup == 0) {
		char want[100];

		snprintf(want, sizeof(want), "p:uprobes/hfs_up%d /bin/true:0x", (int)getpid());
		T_ASSERT(s && strstr(s, want));
		free(s);
		s = t_readf("%s/uprobe_events", real);
		T_ASSERT(s && strstr(s, want));
		snprintf(up, sizeof(up), "-:hfs_up%d", (int)getpid());
		T_EQ(mwrite("dynamic_events", up, 1), 0);
	} else {
		printf("# the kernel took no uprobe (%s): dynamic_events with s: only\n",
		       strerror(kup));
	}
	free(s);
	T_EQ(mwrite("events/synthetic/forklat/trigger", "!hist:keys=pid:vals=lat", 1), 0);
	T_EQ(mwrite("events/sched/sched_process_exit/trigger",
		    "!hist:keys=pid:lat=common_timestamp.usecs-$ts0:"
		    "onmatch(sched.sched_process_fork).forklat($lat,pid)", 1), 0);
	T_EQ(mwrite("events/sched/sched_process_fork/trigger", "", 0), 0);
	T_EQ(mwrite("dynamic_events", "-:forklat", 1), 0);
	T_EQ(sh(0, "test -d %s/events/synthetic/forklat", mnt), 1);
	mfile_is("synthetic_events", "");
	/* an event of the name defined again has a filter of its own */
	T_EQ(mwrite("synthetic_events", "forklat u64 lat", 0), 0);
	mfile_is("events/synthetic/forklat/filter", "none\n");
	T_EQ(mwrite("synthetic_events", "!forklat", 1), 0);
}

/*
 * A hist read feeds everything recorded before it began: a fork->exit
 * chain of a child with a name of its own, read after each child, counts
 * every child so far.  The test forks on CPU 1 and the child exits on
 * CPU 0, so that the fork record, older, ends CPU 1's page.  Two causes
 * of misses, each fixed:
 * - the reader's merge held the newest records back when a quiet CPU's
 *   read ended at the writer's page (3 to 52 of 60 reads here; the
 *   selftests' ping test failed on it; 40 of 40 with one drain a read);
 * - histfs rewrote its set_event_notrace_pid whenever a FUSE thread
 *   first drained, and the kernel then dropped other tasks' records on
 *   that CPU for a while: the first child's exit was never recorded
 *   (every read one short, in 1 run of 2).
 * No read may miss; one that reports records it skipped or lost is not
 * counted.
 */
/* N of the line "# N WHAT" of the hist text H, or 0 */
static long long lost_in(const char *h, const char *what)
{
	const char *l = h ? strstr(h, what) : NULL;

	while (l && l > h && l[-1] >= '0' && l[-1] <= '9')
		l--;
	return l ? strtoll(l, NULL, 10) : 0;
}

static void test_read_sees_all(void)
{
	char name[16], exe[700], cmd[300], rm[301], *h;
	const char *fork_trig = "hist:keys=child_pid:ts0=common_timestamp.usecs";
	int i, bad = 0, lossy = 0, pinned;
	long long losses, prev_losses = 0;
	cpu_set_t all, cpu0, cpu1;

	if (skip)
		return;
	snprintf(name, sizeof(name), "hz%d", (int)getpid() % 100000);
	snprintf(exe, sizeof(exe), "%s/%s", tmp, name);
	T_EQ(sh(1, "cp /bin/true %s", exe), 0);
	T_EQ(mwrite("synthetic_events", "hzlat u64 lat; pid_t pid", 1), 0);
	T_EQ(mwrite("events/sched/sched_process_fork/trigger", fork_trig, 1), 0);
	snprintf(cmd, sizeof(cmd), "hist:keys=pid:lat=common_timestamp.usecs-$ts0:"
		 "onmatch(sched.sched_process_fork).hzlat($lat,pid) if comm == \"%s\"", name);
	T_EQ(mwrite("events/sched/sched_process_exit/trigger", cmd, 1), 0);
	T_EQ(mwrite("events/synthetic/hzlat/trigger", "hist:keys=pid:vals=lat", 1), 0);
	h = mslurp("events/synthetic/hzlat/hist");
	prev_losses = lost_in(h, " events skipped by histfs") +
		      lost_in(h, " events lost by the kernel");
	free(h);
	CPU_ZERO(&cpu1);
	CPU_SET(1, &cpu1);
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	pinned = sched_getaffinity(0, sizeof(all), &all) == 0 && CPU_COUNT(&all) > 1 &&
		 CPU_ISSET(0, &all) && CPU_ISSET(1, &all) &&
		 sched_setaffinity(0, sizeof(cpu1), &cpu1) == 0;
	for (i = 1; i <= 40; i++) {
		pid_t pid = fork();
		const char *n;

		if (pid == 0) {
			if (pinned)
				sched_setaffinity(0, sizeof(cpu0), &cpu0);
			execl(exe, exe, (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		h = mslurp("events/synthetic/hzlat/hist");
		n = h ? strstr(h, "Hits: ") : NULL;
		/* the counts under the table are since the mount: only
		 * losses new in this round excuse a miss */
		losses = lost_in(h, " events skipped by histfs") +
			 lost_in(h, " events lost by the kernel");
		if (losses > prev_losses)
			lossy++;
		else if (!n || atoi(n + 6) != i) {
			bad++;
			printf("# read %d counted %d\n", i, n ? atoi(n + 6) : -1);
		}
		prev_losses = losses;
		free(h);
	}
	if (pinned)
		sched_setaffinity(0, sizeof(all), &all);
	printf("# %d of 40 reads missed the newest child, %d reported losses%s\n", bad, lossy,
	       pinned ? "" : " (not pinned: one CPU)");
	T_EQ(bad, 0);
	T_ASSERT(lossy < 40);
	/* histfs's threads listed, and kept current by the kernel */
	T_EQ(sh(1, "grep -qx 1 %s/instances/histfs.%d/options/event-fork", real,
		(int)last_pid), 0);
	T_EQ(sh(1, "grep -q . %s/instances/histfs.%d/set_event_notrace_pid", real,
		(int)last_pid), 0);
	T_EQ(mwrite("events/synthetic/hzlat/trigger", "!hist:keys=pid:vals=lat", 1), 0);
	snprintf(rm, sizeof(rm), "!%s", cmd);
	T_EQ(mwrite("events/sched/sched_process_exit/trigger", rm, 1), 0);
	snprintf(rm, sizeof(rm), "!%s", fork_trig);
	T_EQ(mwrite("events/sched/sched_process_fork/trigger", rm, 1), 0);
	T_EQ(mwrite("synthetic_events", "!hzlat", 1), 0);
}

/* ---- libtracefs, unchanged ---------------------------------------------- */

/* examples/histfs/check/libtracefs.c, built against Debian's libtracefs */
static void test_libtracefs(void)
{
	if (skip)
		return;
	if (sh(0, "pkg-config --exists libtracefs")) {
		printf("# SKIP libtracefs: pkg-config finds no libtracefs (libtracefs-dev)\n");
		return;
	}
	T_EQ(sh(1, "%s -o %s/libtracefs-check %s/../examples/histfs/check/libtracefs.c "
		   "$(pkg-config --cflags --libs libtracefs)",
		   getenv("HIST_CC") ? getenv("HIST_CC") : "cc", tmp, bindir), 0);
	/* libtracefs 1.6 checks for events/S/E/hist under /sys/kernel/tracing
	 * whatever tracefs_set_tracing_dir() said: the mount goes there, in
	 * a mount namespace of the program's own */
	T_EQ(sh(1, "unshare -m sh -c 'mount --make-rprivate / && "
		   "mount --bind %s /sys/kernel/tracing && "
		   "%s/libtracefs-check /sys/kernel/tracing'", mnt, tmp), 0);
}

/* ---- trace-cmd ---------------------------------------------------------- */

/* trace-cmd (libtracefs) lists an instance's triggers, the kernel's and
 * libhist's, from the trigger files of the mount over /sys/kernel/tracing */
static void test_tracecmd(void)
{
	char inst[100], rel[200], p[700], *out;

	if (skip)
		return;
	if (sh(0, "command -v trace-cmd >/dev/null")) {
		printf("# SKIP trace-cmd: not installed\n");
		return;
	}
	snprintf(inst, sizeof(inst), "histfs_tc.%d", (int)getpid());
	T_EQ(sh(1, "mkdir %s/instances/%s", mnt, inst), 0);
	snprintf(rel, sizeof(rel), "instances/%s/events/sched/sched_process_fork/trigger", inst);
	T_EQ(mwrite(rel, "hist:keys=child_comm", 1), 0);
	T_EQ(mwrite(rel, "traceon", 1), 0);
	T_EQ(sh(1, "unshare -m sh -c 'mount --make-rprivate / && "
		   "mount --bind %s /sys/kernel/tracing && trace-cmd stat -B %s' > %s/stat.txt",
		mnt, inst, tmp), 0);
	snprintf(p, sizeof(p), "%s/stat.txt", tmp);
	out = t_readf("%s", p);
	T_ASSERT(out && strstr(out, "Triggers:\n  sched:sched_process_fork \"traceon:unlimited\n"
				    "hist:keys=child_comm:vals=hitcount:sort=hitcount:size=2048 "
				    "[active]\"\n"));
	if (out && !strstr(out, "hist:keys=child_comm"))
		printf("# trace-cmd stat -B %s:\n%s", inst, out);
	free(out);
	T_EQ(sh(1, "rmdir %s/instances/%s", mnt, inst), 0);
}

/* ---- trace_marker ----------------------------------------------------- */

/* ftrace/print hists count the writer, not histfs's thread */
static void test_marker(void)
{
	char *h, want[80];
	int i;

	if (skip)
		return;
	T_EQ(mwrite("events/ftrace/print/trigger", "hist:keys=common_pid", 0), 0);
	for (i = 0; i < 10; i++)
		T_EQ(mwrite("trace_marker", "histfs test\n", 0), 0);
	h = mslurp("events/ftrace/print/hist");
	snprintf(want, sizeof(want), "{ common_pid: %10d } hitcount:         10\n", (int)getpid());
	T_ASSERT(h && strstr(h, want));
	if (h && !strstr(h, want))
		printf("# want '%s' in:\n%s", want, h);
	free(h);
	T_EQ(mwrite("events/ftrace/print/trigger", "", 0), 0);
}

/* ---- concurrency -------------------------------------------------------- */

struct worker {
	int id, errors;
	atomic_int *stop;
};

static void *writer(void *arg)
{
	struct worker *w = arg;
	static const char *const vals[] = { "bytes_req", "bytes_alloc", "bytes_req,bytes_alloc" };
	char cmd[200], rm[201];

	/* distinct triggers: the kernel's match ignores size= */
	snprintf(cmd, sizeof(cmd), "hist:keys=common_pid:vals=%s:size=%d", vals[w->id],
		 256 << w->id);
	snprintf(rm, sizeof(rm), "!%s", cmd);
	while (!atomic_load(w->stop)) {
		if (mwrite("events/kmem/kmalloc/trigger", cmd, 1))
			w->errors++;
		if (mwrite("events/kmem/kmalloc/trigger", rm, 1))
			w->errors++;
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load(w->stop)) {
		char *h = mslurp("events/kmem/kmalloc/hist");
		char *t = mslurp("events/kmem/kmalloc/trigger");

		if (!h || !t)
			w->errors++;
		/* a printed table always ends with its totals */
		else if (*h && !strstr(h, "Dropped:"))
			w->errors++;
		free(h);
		free(t);
	}
	return NULL;
}

static void test_concurrent(void)
{
	pthread_t th[6];
	struct worker w[6];
	atomic_int stop = 0;
	char *t;
	int i;

	if (skip)
		return;
	for (i = 0; i < 6; i++) {
		w[i].id = i % 3;
		w[i].errors = 0;
		w[i].stop = &stop;
		pthread_create(&th[i], NULL, i < 3 ? writer : reader, &w[i]);
	}
	sleep(3);
	atomic_store(&stop, 1);
	for (i = 0; i < 6; i++) {
		pthread_join(th[i], NULL);
		T_EQ(w[i].errors, 0);
	}
	/* every add was matched by its removal */
	t = mslurp("events/kmem/kmalloc/trigger");
	T_ASSERT(t && !strncmp(t, "# Available triggers:", 21));
	free(t);
}

/* ---- a busy workload: the files still answer ------------------------- */

static double now_s(void);

/*
 * Events that come faster than histfs counts them (a child making
 * system calls without pause, one trigger on every sys_enter) must not
 * hold up the hist files: a trigger added, the hist file read (it drains
 * first) and the trigger removed each answer within BUSY_MAX_S, as the
 * kernel's would at once.  What histfs skips to answer is reported under
 * the table.  A liveness bound, not a benchmark (bench/soak.sh is the
 * long run): the starvation it guards against took 53 to 180 s, an
 * answer takes about 1 s here, and a loaded CI machine must not fail it.
 */
#define BUSY_MAX_S 15.0
/* A sanitizer build of histfs reads pages ten times slower than the
 * kernel writes them: it still runs the workload (races), unbounded. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define BUSY_SAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define BUSY_SAN 1
#endif
#endif
#ifdef BUSY_SAN
#define BUSY_OK(dt) ((void)(dt), 1)
#else
#define BUSY_OK(dt) ((dt) < BUSY_MAX_S)
#endif

/* sys_enter's filter in our private instance */
static char *mslurp_real_filter(void)
{
	char p[1200];

	snprintf(p, sizeof(p), "%s/instances/histfs.%d/events/raw_syscalls/sys_enter/filter",
		 real, (int)last_pid);
	return t_readf("%s", p);
}

static void test_busy(void)
{
	const char *trig = "events/raw_syscalls/sys_enter/trigger";
	char name[16], cmd[200], extra[] = "hist:keys=id,common_pid:size=4096";
	char rm[sizeof(extra) + 1];
	double t0, dt;
	pid_t pid;
	char *h, *s;
	int i;

	if (skip)
		return;
	snprintf(name, sizeof(name), "hb%d", (int)getpid());
	snprintf(rm, sizeof(rm), "!%s", extra);
	/* every process's system calls, and the busy child's by name */
	if (mwrite(trig, "hist:keys=id", 0)) {
		printf("# SKIP busy: no raw_syscalls/sys_enter\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "hist:keys=common_pid.execname if comm == \"%s\"", name);
	T_EQ(mwrite(trig, cmd, 1), 0);
	pid = fork();
	if (pid == 0) {
		/* a spinning child must not outlive a killed test (one spun
		 * for an hour at full speed after its runner was stopped) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0);
		prctl(PR_SET_NAME, name);
		for (;;)
			(void)getppid();
	}
	T_ASSERT(pid > 0);
	sleep(2);	/* a backlog */
	t0 = now_s();
	T_EQ(mwrite(trig, extra, 1), 0);
	dt = now_s() - t0;
	printf("# busy: a trigger added in %.3f s\n", dt);
	T_ASSERT(BUSY_OK(dt));
	t0 = now_s();
	h = mslurp("events/raw_syscalls/sys_enter/hist");
	dt = now_s() - t0;
	printf("# busy: the hist read in %.3f s\n", dt);
	T_ASSERT(BUSY_OK(dt));
	/* the child's calls before the read were counted */
	T_ASSERT(h && strstr(h, name));
	if (h && strstr(h, "\n# "))
		printf("# busy: the hist file ends: %s", strstr(h, "\n# ") + 1);
	/* a synthetic event's hits come from the same records: its hist
	 * file reports their losses too */
	T_EQ(mwrite("synthetic_events", "busysyn u64 x", 1), 0);
	T_EQ(mwrite("events/synthetic/busysyn/trigger", "hist:keys=x", 1), 0);
	s = mslurp("events/synthetic/busysyn/hist");
	for (i = 0; i < 2; i++) {
		const char *what = i ? " events skipped by histfs" : " events lost by the kernel";

		T_ASSERT(!h || !strstr(h, what) || (s && strstr(s, what)));
	}
	if (s && !strstr(s, "\n# "))
		printf("# busy: busysyn's hist:\n%s", s);
	free(s);
	T_EQ(mwrite("events/synthetic/busysyn/trigger", "!hist:keys=x", 1), 0);
	T_EQ(mwrite("synthetic_events", "!busysyn", 1), 0);
	free(h);
	t0 = now_s();
	T_EQ(mwrite(trig, rm, 1), 0);
	dt = now_s() - t0;
	printf("# busy: the trigger removed in %.3f s\n", dt);
	T_ASSERT(BUSY_OK(dt));
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	/* with only the filtered trigger left, the kernel filters for it:
	 * our instance records no event it could not count */
	T_EQ(mwrite(trig, "!hist:keys=id", 1), 0);
	h = mslurp_real_filter();
	snprintf(cmd, sizeof(cmd), "(comm == \"%s\")", name);
	T_ASSERT(h && strstr(h, cmd));
	free(h);
	T_EQ(mwrite(trig, "", 0), 0);
	h = mslurp_real_filter();
	T_ASSERT(h && !strcmp(h, "none\n"));
	free(h);
}

/*
 * histfs's own threads are not recorded (set_event_notrace_pid of its
 * instance, as hist-live does): its drains' reads of the buffers were
 * system calls it read back, and its drain thread came first in a
 * sys_enter histogram by pid.  Each of its threads is looked for by tid
 * (another histfs on the machine may be recorded: it is not ours).
 */
static void test_not_self(void)
{
	const char *trig = "events/raw_syscalls/sys_enter/trigger";
	char path[64], key[32];
	struct dirent *d;
	char *h;
	DIR *dir;
	int i;

	if (skip)
		return;
	if (mwrite(trig, "hist:keys=common_pid", 0)) {
		printf("# SKIP not_self: no raw_syscalls/sys_enter\n");
		return;
	}
	/* the drain thread's loop and two hist reads (a FUSE thread's drains) */
	for (i = 0; i < 5; i++) {
		(void)getppid();
		usleep(100000);
	}
	free(mslurp("events/raw_syscalls/sys_enter/hist"));
	h = mslurp("events/raw_syscalls/sys_enter/hist");
	T_ASSERT(h != NULL);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)last_pid);
	dir = opendir(path);
	T_ASSERT(dir != NULL);
	while (h && dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(key, sizeof(key), "common_pid: %10d }", atoi(d->d_name));
		T_ASSERT(!strstr(h, key));
		if (strstr(h, key))
			printf("# histfs's thread %s recorded:\n%s", d->d_name, h);
	}
	if (dir)
		closedir(dir);
	free(h);
	T_EQ(mwrite(trig, "", 0), 0);
}

/* ---- task names as at each record ----------------------------------- */

/*
 * A child renames itself (prctl, /proc/self/comm), starts a thread that
 * names itself, execs, and has exited before the hist file is read: four
 * triggers with different comm filters on one event count each name's
 * calls exactly (libhist decides, with the names of the instance's
 * task_newtask and task_rename records, not /proc's or saved_cmdlines'
 * after the fact); a trigger on task_rename counts its records once.
 */
static void test_comm_changes(void)
{
	static const char phases[] = "abtx";
	char tag[16], exe[700], cmd[300], n_s[16], inst[64], trig[200], ren[200];
	const long n = 5000;	/* all in the instance's buffer, at 1.4 MB a CPU */
	char *out, *h, *both = NULL;
	long long lost = 0;
	const char *l;
	pid_t pid;
	int i, st = -1;

	if (skip)
		return;
	snprintf(tag, sizeof(tag), "hf%d", (int)getpid() % 100000);
	snprintf(exe, sizeof(exe), "%s/%sx", tmp, tag);
	T_EQ(sh(1, "cp %s/test/test_histfs %s", bindir, exe), 0);
	/* an instance of its own: the top level's losses of other tests
	 * would make the counts inexact */
	snprintf(inst, sizeof(inst), "instances/histfs_c.%d", (int)getpid());
	snprintf(trig, sizeof(trig), "%s/events/raw_syscalls/sys_enter/trigger", inst);
	snprintf(ren, sizeof(ren), "%s/events/task/task_rename/trigger", inst);
	T_EQ(sh(1, "mkdir %s/%s", mnt, inst), 0);
	for (i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), "hist:keys=common_pid if %s == \"%s%c\" && id == %d",
			 i == 3 ? "COMM" : "comm", tag, phases[i], COMM_GETPPID_ID);
		T_EQ(mwrite(trig, cmd, i > 0), 0);
	}
	snprintf(cmd, sizeof(cmd), "hist:keys=newcomm if newcomm ~ \"%s*\"", tag);
	T_EQ(mwrite(ren, cmd, 0), 0);
	snprintf(n_s, sizeof(n_s), "%ld", n);
	pid = fork();
	if (pid == 0) {
		char self[700];

		snprintf(self, sizeof(self), "%s/test/test_histfs", bindir);
		execl(self, self, "--comm-child", tag, n_s, exe, (char *)NULL);
		_exit(127);
	}
	T_ASSERT(pid > 0);
	waitpid(pid, &st, 0);
	T_EQ(st, 0);
	out = mslurp("%s/events/raw_syscalls/sys_enter/hist", inst);
	T_ASSERT(out != NULL);
	l = out ? strstr(out, " events lost by the kernel") : NULL;
	while (l && l > out && l[-1] >= '0' && l[-1] <= '9')
		l--;
	if (l)
		lost = strtoll(l, NULL, 10);
	if (out && strstr(out, "skipped by histfs"))
		lost = -1;	/* not exact */
	h = out ? mslurp("%s/events/task/task_rename/hist", inst) : NULL;
	/* one hist text: the task_rename histogram after the others */
	if (out && h && (both = malloc(strlen(out) + strlen(h) + 1)))
		strcat(strcpy(both, out), h);
	comm_child_check(both, tag, n, lost);
	free(both);
	free(h);
	free(out);
	T_EQ(mwrite(trig, "", 0), 0);
	T_EQ(mwrite(ren, "", 0), 0);
	/* the tracker's event stays on when its trigger goes */
	T_EQ(sh(1, "grep -q 1 %s/instances/histfs.%d.*/events/task/task_rename/enable", real,
		(int)last_pid), 0);
	T_EQ(sh(1, "rmdir %s/%s", mnt, inst), 0);
}

/* ---- the hist files' ERROR lines of 4.17 to 5.1 ---------------------- */

/*
 * Before error_log (5.2) the kernel ended every hist file with the last
 * hist command's error; the next hist command cleared it.  Only with
 * --kernel 4.17 to 5.1: the default mount shows no such line.
 */
static void test_old_errors(void)
{
	const char *dup = "hist:keys=pid:ts0=common_timestamp.usecs";
	char *h;

	if (skip)
		return;
	T_EQ(mwrite("events/sched/sched_wakeup/trigger", dup, 0), 0);
	T_ASSERT(mwrite("events/sched/sched_wakeup/trigger", dup, 1) != 0);
	h = mslurp("events/sched/sched_wakeup/hist");
	T_ASSERT(h && !strstr(h, "ERROR:"));
	free(h);
	mwrite("events/sched/sched_wakeup/trigger", "", 0);

	stop_histfs();
	kernel_opt = "5.1";
	T_EQ(start_histfs(), 0);
	kernel_opt = NULL;
	T_EQ(mwrite("events/sched/sched_wakeup/trigger", dup, 0), 0);
	T_ASSERT(mwrite("events/sched/sched_wakeup/trigger", dup, 1) != 0);
	/* every event's hist file, the one of an event without triggers too */
	h = mslurp("events/sched/sched_wakeup/hist");
	T_ASSERT(h && strstr(h, "\nERROR: Variable already defined\n"
				"  Last command: keys=pid:ts0=common_timestamp.usecs\n"));
	free(h);
	h = mslurp("events/sched/sched_switch/hist");
	T_ASSERT(h && strstr(h, "ERROR: Variable already defined\n"));
	free(h);
	/* the next hist command clears it */
	T_EQ(mwrite("events/sched/sched_switch/trigger", "hist:keys=next_pid", 1), 0);
	h = mslurp("events/sched/sched_wakeup/hist");
	T_ASSERT(h && !strstr(h, "ERROR:"));
	free(h);
	stop_histfs();
	T_EQ(start_histfs(), 0);
}

/* ---- synthetic event definitions of --kernel 5.10 and 5.11 ------------- */

/* The entry error_log ends with: "LOC: error: MSG", the command, the
 * caret under byte POS of it. */
static int errlog_ends(const char *msg, const char *cmd, int pos)
{
	char want[600], *log = mslurp("error_log");
	const char *at;
	int ok;

	snprintf(want, sizeof(want), "] synthetic_events: error: %s\n  Command: %s\n%*s^\n",
		 msg, cmd, 11 + pos, "");
	at = log ? strstr(log, want) : NULL;
	ok = at && !at[strlen(want)];
	if (!ok)
		printf("# error_log: %s# wanted the end: %s", log ? log : "(none)\n", want);
	free(log);
	return ok;
}

static void test_old_synth(void)
{
	/* command, message, caret (the word those kernels' errpos() found) */
	static const struct { const char *cmd, *msg; int pos; } bad[] = {
		{ "lat_ev chr v", "Invalid type", 7 },
		{ "lat_ev unsigned v", "Incomplete type", 7 },
		/* ";;" after an array: the second ';' stays in the type */
		{ "lat_ev char s[];; int v", "Invalid type", 7 },
		{ "lat_ev char s[; int v", "Invalid type", 7 },
		{ "lat_ev char s]; int v", "Illegal name", 12 },
		{ "la;t char s[]", "Illegal name", 0 },
		{ "lat_ev u64 a; int", "Invalid field", 14 },
		{ "lat_ev", "Incomplete command", 0 },
	};
	size_t i;
	char *s;

	if (skip)
		return;
	/* the parser of 5.12 and later (libhist's) takes what 5.11 refused */
	T_EQ(mwrite("synthetic_events", "lat_ev char s[];; int v", 0), 0);
	T_EQ(mwrite("synthetic_events", "", 0), 0);
	stop_histfs();
	kernel_opt = "5.11";
	T_EQ(start_histfs(), 0);
	kernel_opt = NULL;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		T_EQ(mwrite("error_log", "", 0), 0);
		T_EQ(mwrite("synthetic_events", bad[i].cmd, 1), EINVAL);
		T_ASSERT(errlog_ends(bad[i].msg, bad[i].cmd, bad[i].pos));
	}
	/* the same in dynamic_events, echoed without "s:" */
	T_EQ(mwrite("dynamic_events", "s:synthetic/lat_ev chr v", 1), EINVAL);
	T_ASSERT(errlog_ends("Invalid type", "lat_ev chr v", 7));
	/* blanks are echoed as one */
	T_EQ(mwrite("synthetic_events", "lat_ev  u64   a; chr v", 1), EINVAL);
	T_ASSERT(errlog_ends("Invalid type", "lat_ev u64 a; chr v", 14));
	T_EQ(mwrite("error_log", "", 0), 0);
	s = mslurp("error_log");
	T_STREQ(s, "");
	free(s);
	/* accepted definitions reach libhist */
	T_EQ(mwrite("synthetic_events", "lat_ev u64 a u64 b; char s[16]", 1), 0);
	s = mslurp("synthetic_events");
	T_ASSERT(s && !strncmp(s, "lat_ev\t", 7));
	free(s);
	/* an eprobe cannot attach to a synthetic event of histfs */
	T_EQ(mwrite("dynamic_events", "e:ep_lat synthetic/lat_ev x=$a:u64", 1), EOPNOTSUPP);
	T_EQ(mwrite("dynamic_events", "e:ep_lat synthetic.lat_ev x=$a:u64", 1), EOPNOTSUPP);
	T_EQ(mwrite("synthetic_events", "", 0), 0);
	stop_histfs();
	T_EQ(start_histfs(), 0);
}

/* ---- poll on a hist file ---------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * As the kernel's: a poll on a hist file waits until a hist trigger of
 * the event counts a hit after the open (or the last read), then reports
 * POLLIN and POLLPRI.  The hits come from a child with a name of its
 * own that exits only after 700 ms, so nothing else on the machine can
 * wake the poll and a poll that returns early is caught.
 */
static void test_poll(void)
{
	char p[1200], cmd[200], name[16];
	struct pollfd pfd;
	double t0;
	pid_t pid;
	int fd, n, st;

	if (skip)
		return;
	snprintf(name, sizeof(name), "hp%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "hist:keys=comm if comm == \"%s\"", name);
	T_EQ(mwrite("events/sched/sched_process_exit/trigger", cmd, 0), 0);
	snprintf(p, sizeof(p), "%s/events/sched/sched_process_exit/hist", mnt);
	fd = open(p, O_RDONLY);
	T_ASSERT(fd >= 0);
	if (fd < 0)
		return;
	pfd.fd = fd;
	pfd.events = POLLIN | POLLPRI;
	/* no hit yet: a timeout */
	T_EQ(poll(&pfd, 1, 500), 0);
	t0 = now_s();
	pid = fork();
	if (pid == 0) {
		usleep(700000);
		prctl(PR_SET_NAME, name);
		_exit(0);
	}
	n = poll(&pfd, 1, 5000);
	T_EQ(n, 1);
	T_ASSERT(pfd.revents & POLLIN);
	T_ASSERT(pfd.revents & POLLPRI);
	/* it waited for the exit */
	T_ASSERT(now_s() - t0 >= 0.6);
	waitpid(pid, &st, 0);
	/* reading it makes the hit old news */
	{
		char buf[65536];
		ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);

		T_ASSERT(k > 0);
		if (k > 0) {
			buf[k] = 0;
			T_ASSERT(strstr(buf, name) != NULL);
		}
	}
	pfd.revents = 0;
	T_EQ(poll(&pfd, 1, 300), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "!hist:keys=comm if comm == \"%s\"", name);
	T_EQ(mwrite("events/sched/sched_process_exit/trigger", cmd, 1), 0);
}

/*
 * A poll of a real file is the kernel's: trace_pipe of an instance that
 * records nothing waits, and a line written to its trace_marker (through
 * the mount, by a child 400 ms later) wakes it.  histfs once answered
 * every real file ready at once, so a poll loop on trace_pipe spun.
 */
static void test_poll_passthrough(void)
{
	char inst[100], p[1200], buf[4096];
	struct pollfd pfd;
	double t0;
	pid_t pid;
	ssize_t k;
	int fd;

	if (skip)
		return;
	snprintf(inst, sizeof(inst), "instances/histfs_pp.%d", (int)getpid());
	T_EQ(sh(1, "mkdir %s/%s", mnt, inst), 0);
	snprintf(p, sizeof(p), "%s/%s/trace_pipe", mnt, inst);
	fd = open(p, O_RDONLY | O_NONBLOCK);
	T_ASSERT(fd >= 0);
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	T_EQ(poll(&pfd, 1, 300), 0);
	t0 = now_s();
	pid = fork();
	if (pid == 0) {
		char rel[200];

		usleep(400000);
		snprintf(rel, sizeof(rel), "%s/trace_marker", inst);
		_exit(mwrite(rel, "histfs poll\n", 0) ? 1 : 0);
	}
	T_EQ(poll(&pfd, 1, 5000), 1);
	T_ASSERT(pfd.revents & POLLIN);
	T_ASSERT(now_s() - t0 >= 0.3);
	k = read(fd, buf, sizeof(buf) - 1);
	T_ASSERT(k > 0);
	if (k > 0) {
		buf[k] = 0;
		T_ASSERT(strstr(buf, "histfs poll") != NULL);
	}
	if (pid > 0) {
		int st;

		waitpid(pid, &st, 0);
		T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	/* a poll still waiting when the file closes goes with it */
	pfd.revents = 0;
	T_EQ(poll(&pfd, 1, 100), 0);
	close(fd);
	T_EQ(sh(1, "rmdir %s/%s", mnt, inst), 0);
}

/* ---- leaving ---------------------------------------------------------- */

/* A sanitizer build of histfs (make check-asan, check-tsan) reports in
 * histfs.err: any report fails the test. */
static void check_sanitizers(void)
{
	if (skip)
		return;
	if (!sh(0, "grep -qE 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|"
		   "ERROR: LeakSanitizer|runtime error:' %s/histfs.err", tmp)) {
		sh(1, "grep -A30 -E 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|"
		      "ERROR: LeakSanitizer|runtime error:' %s/histfs.err | head -80", tmp);
		T_ASSERT(!"histfs reported a sanitizer error (histfs.err)");
	}
}


static void test_unmount_cleans(void)
{
	char inst[100], rel[200];
	pid_t dead;
	int st;

	if (skip)
		return;
	/* a trigger makes sure a private instance exists, one in a user's
	 * instance another (histfs.PID.N) */
	T_EQ(mwrite("events/sched/sched_switch/trigger", "hist:keys=next_pid", 0), 0);
	snprintf(inst, sizeof(inst), "instances/histfs_um.%d", (int)getpid());
	T_EQ(sh(1, "mkdir %s/%s", mnt, inst), 0);
	snprintf(rel, sizeof(rel), "%s/events/sched/sched_switch/trigger", inst);
	T_EQ(mwrite(rel, "hist:keys=prev_pid", 0), 0);
	T_EQ(sh(0, "ls %s/instances | grep -q '^histfs\\.%d\\.'", real, (int)last_pid), 0);
	T_ASSERT(private_instances());
	st = stop_histfs();
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	T_ASSERT(!private_instances());
	/* the user's instance is the user's, without triggers */
	T_EQ(sh(1, "cat %s/%s/events/sched/sched_switch/trigger | grep -q '^# Available'", real,
		inst), 0);
	T_EQ(sh(1, "rmdir %s/%s", real, inst), 0);
	/* SIGTERM: the same */
	T_EQ(start_histfs(), 0);
	T_EQ(mwrite("events/sched/sched_switch/trigger", "hist:keys=next_pid", 0), 0);
	T_ASSERT(private_instances());
	kill(histfs_pid, SIGTERM);
	waitpid(histfs_pid, &st, 0);
	histfs_pid = 0;
	T_ASSERT(!private_instances());
	umount2(mnt, MNT_DETACH);
	/* SIGKILL: the instance stays, recording, until the next histfs
	 * removes it (it names the dead process on stderr) */
	T_EQ(start_histfs(), 0);
	T_EQ(mwrite("events/sched/sched_switch/trigger", "hist:keys=next_pid", 0), 0);
	T_EQ(sh(0, "mkdir %s/instances/histfs.%d.7", real, (int)histfs_pid), 0);
	kill(histfs_pid, SIGKILL);
	waitpid(histfs_pid, &st, 0);
	umount2(mnt, MNT_DETACH);
	dead = histfs_pid;
	histfs_pid = 0;
	T_ASSERT(private_instances());
	T_EQ(start_histfs(), 0);
	last_pid = dead;
	T_ASSERT(!private_instances());
	T_EQ(sh(0, "grep -q 'removed .*histfs\\.%d\\.7, left by process %d' %s/histfs.err",
		(int)dead, (int)dead, tmp), 0);
	stop_histfs();
}

int main(int argc, char **argv)
{
	char *slash;
	int child = comm_child_main(argc, argv);

	if (child >= 0)
		return child;
	/* BUILD/test/test_histfs: the tools are in BUILD */
	snprintf(bindir, sizeof(bindir), "%s", argv[0]);
	slash = strrchr(bindir, '/');
	if (slash)
		snprintf(slash, sizeof(bindir) - (size_t)(slash - bindir), "/..");
	else
		snprintf(bindir, sizeof(bindir), "..");
	snprintf(histfs, sizeof(histfs), "%s/histfs", bindir);
	if (t_scratch(tmp, sizeof(tmp), "test_histfs"))
		return 1;
	setup();
	T_RUN(test_passthrough);
	T_RUN(test_doc_vs_replay);
	T_RUN(test_kernel_errors);
	T_RUN(test_instances);
	T_RUN(test_trigger_passthrough);
	T_RUN(test_permissions);
	T_RUN(test_synthetic);
	T_RUN(test_read_sees_all);
	T_RUN(test_libtracefs);
	T_RUN(test_tracecmd);
	T_RUN(test_marker);
	T_RUN(test_concurrent);
	T_RUN(test_busy);
	T_RUN(test_not_self);
	T_RUN(test_comm_changes);
	T_RUN(test_poll);
	T_RUN(test_poll_passthrough);
	T_RUN(test_old_errors);
	T_RUN(test_old_synth);
	T_RUN(test_unmount_cleans);
	T_RUN(check_sanitizers);
	if (histfs_pid > 0)
		stop_histfs();
	if (!skip)
		umount2(real, MNT_DETACH);
	if (t__fail)
		printf("# kept %s (histfs.err: histfs's messages)\n", tmp);
	else
		t_scratch_remove(tmp);
	return T_DONE();
}
