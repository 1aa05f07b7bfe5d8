/* SPDX-License-Identifier: MIT */
/*
 * tracefs for hist-live: where it is, our instance, and every file we
 * change written down so it can be put back.
 *
 * By default hist-live traces in a private instance
 * (instances/hist-live.PID): its buffers, event enables and clock are
 * its own, so nothing another tracer set up is touched, and removing the
 * directory undoes it all.  With --top it uses the top-level buffer and
 * restores each file it changed (events' enable, tracing_on,
 * trace_clock, buffer_size_kb) to its old value.
 *
 * A process killed with SIGKILL cannot remove its instance; the pid in
 * the name lets the next run (tfs_reap(), hist-live --cleanup; histfs at
 * its start) tell a left-behind instance from the one of a running one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "live.h"

#define TRACEFS_MAGIC 0x74726163

int live_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int is_tracefs(const char *dir)
{
	struct statfs s;
	char p[PATH_MAX];

	if (statfs(dir, &s) || (unsigned long)s.f_type != TRACEFS_MAGIC)
		return 0;
	/* a tracefs whose events we can see */
	return !live_fmt(p, sizeof(p), "%s/events/header_page", dir) &&
	       access(p, R_OK) == 0;
}

/* The first tracefs in /proc/mounts, or debugfs's tracing/ directory. */
static int find_mount(char *out, size_t len)
{
	FILE *f = fopen("/proc/mounts", "r");
	char dev[256], dir[PATH_MAX], type[64];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "tracefs") && is_tracefs(dir)) {
			snprintf(out, len, "%s", dir);
			found = 1;
		} else if (!strcmp(type, "debugfs")) {
			char t[PATH_MAX];

			if (!live_fmt(t, sizeof(t), "%s/tracing", dir) &&
			    is_tracefs(t)) {
				snprintf(out, len, "%s", t);
				found = 1;
			}
		}
	}
	fclose(f);
	return found;
}

static int remember(struct live_tfs *t, const char *path, const char *old)
{
	struct live_undo *u;

	if (t->nr_undo == t->cap_undo) {
		size_t cap = t->cap_undo ? 2 * t->cap_undo : 16;

		u = realloc(t->undo, cap * sizeof(*u));
		if (!u)
			return -ENOMEM;
		t->undo = u;
		t->cap_undo = cap;
	}
	u = &t->undo[t->nr_undo];
	u->path = strdup(path);
	u->old = strdup(old);
	if (!u->path || !u->old) {
		free(u->path);
		free(u->old);
		return -ENOMEM;
	}
	t->nr_undo++;
	return 0;
}

const char *tfs_path(const struct live_tfs *t, const char *rel, char *buf,
		     size_t len)
{
	if (live_fmt(buf, len, "%s/%s", t->inst, rel))
		buf[0] = 0;	/* opens fail */
	return buf;
}

static char *read_path(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		ssize_t k = read(fd, buf + n, cap - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			free(buf);
			buf = NULL;
			errno = e;
			break;
		}
		if (k == 0)
			break;
		n += (size_t)k;
		if (n == cap) {
			char *nb = realloc(buf, 2 * cap + 1);

			if (!nb) {
				free(buf);
				buf = NULL;
				errno = ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (buf) {
		buf[n] = 0;
		if (len)
			*len = n;
	}
	return buf;
}

char *tfs_read(const struct live_tfs *t, const char *rel, int in_inst,
	       size_t *len)
{
	char p[PATH_MAX];

	if (live_fmt(p, sizeof(p), "%s/%s", in_inst ? t->inst : t->root, rel)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return read_path(p, len);
}

static int write_path_flags(const char *path, const char *val, int flags)
{
	int fd = open(path, O_WRONLY | flags | O_CLOEXEC);
	size_t n = strlen(val);
	ssize_t k;
	int e;

	if (fd < 0)
		return -errno;
	k = write(fd, val, n);
	e = errno;
	close(fd);
	if (k < 0)
		return -e;
	return (size_t)k == n ? 0 : -EIO;
}

static int write_path(const char *path, const char *val)
{
	return write_path_flags(path, val, O_TRUNC);
}

/* What to write back: the file's value, or for a choice file such as
 * trace_clock ("[local] global ...") the bracketed word.  The whole
 * value: a pid list (set_event_pid: one pid a line) or a filter has
 * several words, and each must come back. */
static void current_value(char *s)
{
	char *lb = strchr(s, '['), *rb = lb ? strchr(lb, ']') : NULL;
	size_t n;

	if (lb && rb) {
		memmove(s, lb + 1, (size_t)(rb - lb - 1));
		s[rb - lb - 1] = 0;
		return;
	}
	/* buffer_size_kb before first use: "7 (expanded: 1408)", the
	 * size it will have once used */
	lb = strstr(s, "(expanded: ");
	if (lb) {
		memmove(s, lb + 11, strlen(lb + 11) + 1);
		s[strcspn(s, ")")] = 0;
		return;
	}
	n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = 0;
}

int tfs_write(struct live_tfs *t, const char *rel, const char *val, int remember_it)
{
	char p[PATH_MAX];
	char *old = NULL;
	size_t n;
	int ret;

	tfs_path(t, rel, p, sizeof(p));
	if (remember_it) {
		old = read_path(p, NULL);
		if (!old)
			return -errno;
		current_value(old);
		/* an event's filter file reads "none" when cleared by "0" */
		n = strlen(rel);
		if (n >= 7 && !strcmp(rel + n - 7, "/filter") && !strcmp(old, "none"))
			strcpy(old, "0");
		if (!strcmp(old, val)) {
			free(old);
			return 0;	/* nothing to change, nothing to undo */
		}
	}
	ret = write_path(p, val);
	if (!ret && old)
		ret = remember(t, p, old);
	free(old);
	return ret;
}

int tfs_append(struct live_tfs *t, const char *rel, const char *val)
{
	char p[PATH_MAX];

	return write_path_flags(tfs_path(t, rel, p, sizeof(p)), val, 0);
}

int tfs_open(struct live_tfs *t, const char *dir, int top, char *err,
	     size_t errlen)
{
	static const char def[] = "/sys/kernel/tracing";

	memset(t, 0, sizeof(*t));
	if (dir) {
		if (!is_tracefs(dir)) {
			snprintf(err, errlen, "%s: not a readable tracefs", dir);
			return -1;
		}
		snprintf(t->root, sizeof(t->root), "%s", dir);
	} else if (!find_mount(t->root, sizeof(t->root))) {
		if (mount("nodev", def, "tracefs", 0, NULL)) {
			snprintf(err, errlen, "no tracefs mounted, and mounting one "
				 "on %s failed: %s", def, strerror(errno));
			return -1;
		}
		snprintf(t->root, sizeof(t->root), "%s", def);
		t->mounted = 1;
		if (!is_tracefs(def)) {
			snprintf(err, errlen, "%s: tracefs without events", def);
			tfs_close(t);
			return -1;
		}
	}
	if (top) {
		snprintf(t->inst, sizeof(t->inst), "%s", t->root);
		return 0;
	}
	if (live_fmt(t->inst, sizeof(t->inst), "%s/instances/" PROG ".%d", t->root,
		     (int)getpid()) || mkdir(t->inst, 0750)) {
		snprintf(err, errlen, "cannot create the trace instance %s: %s",
			 t->inst, strerror(errno));
		tfs_close(t);
		return -1;
	}
	t->instance = 1;
	return 0;
}

void tfs_close(struct live_tfs *t)
{
	char p[PATH_MAX];
	int i;

	while (t->nr_undo) {
		struct live_undo *u = &t->undo[--t->nr_undo];
		size_t n = strlen(t->inst);
		int ret;

		/* our own instance's files go with it: putting its sub-buffer
		 * size back reallocated every page of the buffer just before
		 * the rmdir freed them, half of hist-live's CPU at exit */
		if (t->instance && !strncmp(u->path, t->inst, n) && u->path[n] == '/') {
			free(u->path);
			free(u->old);
			continue;
		}
		ret = write_path(u->path, u->old);
		if (ret)
			fprintf(stderr, PROG ": could not restore %s to '%s': %s\n",
				u->path, u->old, strerror(-ret));
		free(u->path);
		free(u->old);
	}
	free(t->undo);
	t->undo = NULL;
	t->cap_undo = 0;
	if (t->instance) {
		/* should the rmdir fail, a left-behind instance records
		 * nothing (write_path's errors do not matter here) */
		live_fmt(p, sizeof(p), "%s/tracing_on", t->inst);
		write_path(p, "0");
		live_fmt(p, sizeof(p), "%s/events/enable", t->inst);
		write_path(p, "0");
		/* the kernel refuses while a file of it is open: retry */
		for (i = 0; i < 50 && rmdir(t->inst) && errno == EBUSY; i++)
			usleep(20000);
		if (access(t->inst, F_OK) == 0)
			fprintf(stderr, PROG ": could not remove %s: %s\n", t->inst,
				strerror(errno));
		t->instance = 0;
	}
	if (t->mounted) {
		if (umount(t->root))
			fprintf(stderr, PROG ": could not unmount %s: %s\n", t->root,
				strerror(errno));
		t->mounted = 0;
	}
}

/* When process PID started, in seconds since the epoch; 0 if unknown. */
static double proc_start(int pid)
{
	char p[64], buf[1024], *s;
	unsigned long long ticks = 0, btime = 0;
	FILE *f;
	size_t n;
	int i;

	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	f = fopen(p, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* field 22, counted after the ")" that ends the command name */
	s = strrchr(buf, ')');
	for (i = 2; s && i < 22; i++)
		s = strchr(s + 1, ' ');
	if (!s)
		return 0;
	ticks = strtoull(s + 1, NULL, 10);
	f = fopen("/proc/stat", "r");
	while (f && fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	if (f)
		fclose(f);
	return btime ? (double)btime + (double)ticks / (double)sysconf(_SC_CLK_TCK) : 0;
}

/* Is the process that made instance DIR (named TOOL.PID[.N]) gone? */
static int instance_stale(const char *dir, int pid)
{
	struct stat st;
	double started;

	if (pid <= 0)
		return 0;
	if (kill(pid, 0) && errno == ESRCH)
		return 1;
	if (pid == (int)getpid() || stat(dir, &st))
		return 0;
	/* the pid was reused if its process started after the instance
	 * was made (a second of slack: btime is whole seconds) */
	started = proc_start(pid);
	return started > (double)st.st_ctim.tv_sec + 1.0;
}

int tfs_reap(const char *root, const char *tool, int quiet)
{
	char dir[PATH_MAX], p[PATH_MAX];
	size_t plen = strlen(tool);
	struct dirent *d;
	int n = 0, failed = 0;
	DIR *dp;

	if (live_fmt(dir, sizeof(dir), "%s/instances", root) || !(dp = opendir(dir)))
		return 0;	/* a kernel without instances */
	while ((d = readdir(dp))) {
		char *end;
		long pid;
		int i;

		/* TOOL.PID, or TOOL.PID.N (histfs: one per user instance) */
		if (strncmp(d->d_name, tool, plen) || d->d_name[plen] != '.')
			continue;
		pid = strtol(d->d_name + plen + 1, &end, 10);
		if (*end == '.' && end[1] >= '0' && end[1] <= '9')
			(void)strtoul(end + 1, &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX ||
		    live_fmt(p, sizeof(p), "%s/%s", dir, d->d_name) ||
		    !instance_stale(p, (int)pid))
			continue;
		for (i = 0; i < 50 && rmdir(p) && errno == EBUSY; i++)
			usleep(20000);
		if (access(p, F_OK) == 0) {
			fprintf(stderr, "%s: could not remove %s, left by "
				"process %ld: %s\n", tool, p, pid, strerror(errno));
			failed = 1;
			continue;
		}
		n++;
		if (!quiet)
			fprintf(stderr, "%s: removed %s, left by process %ld "
				"(no longer running)\n", tool, p, pid);
	}
	closedir(dp);
	return failed ? -1 : n;
}

const char *tfs_cmd_filter(const char *text, size_t *len)
{
	const char *p;

	*len = strcspn(text, " \t");
	p = text + *len;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "if", 2) || (p[2] != ' ' && p[2] != '\t'))
		return NULL;
	p += 2;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p ? p : NULL;
}

int tfs_filter_or(char **s, size_t *n, const char *f, size_t flen)
{
	char *v = realloc(*s, *n + flen + 7);

	if (!v) {
		free(*s);
		*s = NULL;
		return -1;
	}
	*s = v;
	*n += (size_t)sprintf(v + *n, "%s(%.*s)", *n ? " || " : "", (int)flen, f);
	return 0;
}

/* ---- Does a kernel filter pass a task's records? -------------------------- */

/* Where in S[0..N) a top-level OP ("&&", "||") starts, or with OP NULL
 * the ')' that closes S[0] == '(': quoted text is skipped.  N if none. */
static size_t scan(const char *s, size_t n, const char *op)
{
	size_t i, depth = 0;
	char q = 0;

	for (i = 0; i < n; i++) {
		if (q) {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			else if (s[i] == q)
				q = 0;
		} else if (s[i] == '"' || s[i] == '\'') {
			q = s[i];
		} else if (s[i] == '(') {
			depth++;
		} else if (s[i] == ')') {
			depth -= depth > 0;
			if (!op && !depth)
				return i;
		} else if (op && !depth && i + 1 < n && s[i] == op[0] && s[i + 1] == op[1]) {
			return i;
		}
	}
	return n;
}

/* S[0..*N) without blanks around it, and without the parentheses of a
 * parenthesised whole. */
static const char *trim(const char *s, size_t *n)
{
	for (;;) {
		while (*n && (*s == ' ' || *s == '\t' || *s == '\n')) {
			s++;
			(*n)--;
		}
		while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t' || s[*n - 1] == '\n'))
			(*n)--;
		if (*n < 2 || s[0] != '(' || scan(s, *n, NULL) != *n - 1)
			return s;
		s++;
		*n -= 2;
	}
}

/* FIELD == VALUE, nothing else: 1 and the two parts, or 0. */
static int equality(const char *s, size_t n, const char **f, size_t *fl,
		    const char **v, size_t *vl)
{
	size_t i = 0;

	while (i < n && (s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
			 (s[i] >= 'A' && s[i] <= 'Z') || (i && s[i] >= '0' && s[i] <= '9')))
		i++;
	*f = s;
	*fl = i;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (!*fl || i + 2 > n || s[i] != '=' || s[i + 1] != '=')
		return 0;
	for (i += 2; i < n && (s[i] == ' ' || s[i] == '\t'); i++)
		;
	*v = s + i;
	*vl = n - i;
	if (*vl >= 2 && (**v == '"' || **v == '\'')) {
		if ((*v)[*vl - 1] != **v || memchr(*v + 1, '\\', *vl - 2) ||
		    memchr(*v + 1, **v, *vl - 2))
			return 0;
		(*v)++;
		*vl -= 2;
	}
	return *vl > 0 && !memchr(*v, ' ', *vl) && !memchr(*v, '\t', *vl);
}

static int atom_excludes(const char *s, size_t n, const char *comm, int32_t pid,
			 int comm_field)
{
	const char *f, *v;
	size_t fl, vl, cl = strlen(comm);
	char num[24], *end;
	long long x;

	if (!equality(s, n, &f, &fl, &v, &vl))
		return 0;
	if (fl == 10 && !memcmp(f, "common_pid", 10)) {
		if (vl >= sizeof(num))
			return 0;
		memcpy(num, v, vl);
		num[vl] = 0;
		x = strtoll(num, &end, 0);
		return !*end && x != pid;
	}
	/* "comm" is the running task's name unless the event has a field
	 * of that name (sched_wakeup's is the woken task's); a pattern may
	 * match anything */
	if (!((fl == 4 && !memcmp(f, "COMM", 4)) ||
	      (fl == 4 && !memcmp(f, "comm", 4) && !comm_field)) ||
	    memchr(v, '*', vl) || memchr(v, '?', vl) || memchr(v, '[', vl))
		return 0;
	/* neither a prefix of the other: no length rule can make them equal */
	return memcmp(v, comm, vl < cl ? vl : cl) != 0;
}

/* S[0..N) is false for every record of the task: recursion only into
 * parentheses, each level split on "||" (every part must exclude) and
 * then on "&&" (one part suffices). */
static int excludes(const char *s, size_t n, const char *comm, int32_t pid, int comm_field)
{
	size_t k;

	s = trim(s, &n);
	if (!n)
		return 0;
	if ((k = scan(s, n, "||")) < n) {
		while (n) {
			k = scan(s, n, "||");
			if (!excludes(s, k, comm, pid, comm_field))
				return 0;
			if (k == n)
				return 1;
			s += k + 2;
			n -= k + 2;
		}
		return 0;	/* a trailing "||" */
	}
	if ((k = scan(s, n, "&&")) < n) {
		while (n) {
			k = scan(s, n, "&&");
			if (excludes(s, k, comm, pid, comm_field))
				return 1;
			if (k == n)
				return 0;
			s += k + 2;
			n -= k + 2;
		}
		return 0;
	}
	if (s[0] == '(')	/* "(a) b" and other odd shapes */
		return 0;
	return atom_excludes(s, n, comm, pid, comm_field);
}

int tfs_filter_excludes(const char *filter, const char *comm, int32_t pid, int comm_field)
{
	return filter && excludes(filter, strlen(filter), comm, pid, comm_field);
}
