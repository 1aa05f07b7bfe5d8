/* SPDX-License-Identifier: MIT */
/* The tests' shared helpers: see util.h. */
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"

char *t_readf(const char *fmt, ...)
{
	char path[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return conf_read_file(path, NULL);
}

void t_build_dir(char *out, size_t cap, const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	size_t n = slash ? (size_t)(slash - argv0) : 0;
	char dir[2048], cwd[2048];

	snprintf(dir, sizeof(dir), "%.*s", (int)n, argv0);
	if (n >= 5 && !strcmp(dir + n - 5, "/test"))
		dir[n - 5] = 0;
	else if (!n)
		snprintf(dir, sizeof(dir), "build");
	if (dir[0] != '/' && getcwd(cwd, sizeof(cwd)))
		snprintf(out, cap, "%s/%s", cwd, dir);
	else
		snprintf(out, cap, "%s", dir);
}

void t_tools_on_path(const char *argv0)
{
	char dir[4096], path[8192];
	const char *old = getenv("PATH");

	t_build_dir(dir, sizeof(dir), argv0);
	snprintf(path, sizeof(path), "%s:%s", dir, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
}

int t_scratch(char *dir, size_t cap, const char *name)
{
	snprintf(dir, cap, "/tmp/%s.XXXXXX", name);
	return mkdtemp(dir) ? 0 : -1;
}

void t_scratch_remove(const char *dir)
{
	char cmd[4200];

	/* DIR is what t_scratch() made: no quote in it */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
}

int t_tracefs_find(char *dir, size_t cap, const char *scratch, const char *who)
{
	char dev[256], mnt[512], type[64];
	FILE *f;

	dir[0] = 0;
	if (geteuid() != 0) {
		printf("# SKIP %s: not root (tracefs needs it)\n", who);
		return -1;
	}
	f = fopen("/proc/mounts", "r");
	while (f && fscanf(f, "%255s %511s %63s %*[^\n]", dev, mnt, type) == 3) {
		if (!strcmp(type, "tracefs")) {
			snprintf(dir, cap, "%s", mnt);
			break;
		}
	}
	if (f)
		fclose(f);
	if (dir[0])
		return 0;
	snprintf(dir, cap, "%s/tracefs", scratch);
	mkdir(dir, 0700);
	if (mount("nodev", dir, "tracefs", 0, NULL)) {
		printf("# SKIP %s: no tracefs (mount: %s)\n", who, strerror(errno));
		dir[0] = 0;
		return -1;
	}
	return 1;
}

int t_tracefs_need(char *dir, const char *rel, int mode, const char *who)
{
	char p[4200];

	if (!dir[0])
		return 0;
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	if (access(p, mode)) {
		printf("# SKIP %s: %s: %s\n", who, p, strerror(errno));
		dir[0] = 0;
		return 0;
	}
	return 1;
}

void t_tracefs_release(const char *dir, int mounted)
{
	if (mounted == 1 && dir[0] && umount(dir))
		printf("# could not unmount %s: %s\n", dir, strerror(errno));
}

long t_spawn(const char *fmt, ...)
{
	char cmd[8192], full[8300];
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "exec %s", cmd);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", full, (char *)NULL);
		_exit(127);
	}
	return pid > 0 ? (long)pid : -1;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int t_wait_gone(long pid, int ms)
{
	for (int waited = 0; waited <= ms; waited += 10) {
		int st;
		pid_t r = waitpid((pid_t)pid, &st, WNOHANG);

		if (r == (pid_t)pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		/* not our child (started by a shell): gone once kill(0) says so */
		if (r < 0 && errno == ECHILD && kill((pid_t)pid, 0) && errno == ESRCH)
			return 0;
		sleep_ms(10);
	}
	return -1;
}

long t_wait_number(const char *path, const char *label, int ms)
{
	for (int waited = 0; waited <= ms; waited += 50) {
		char *s = conf_read_file(path, NULL);
		const char *p = s ? strstr(s, label) : NULL;
		char *end;
		long v = -1;

		if (p) {
			v = strtol(p + strlen(label), &end, 10);
			if (end == p + strlen(label))
				v = -1;
		}
		free(s);
		if (v >= 0)
			return v;
		sleep_ms(50);
	}
	return -1;
}

long t_tcp_exchange(unsigned port, const char *req, size_t n, char *resp, size_t cap,
		    int ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	size_t got = 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	/* a server may close before taking it all: that is an answer too */
	for (size_t off = 0; off < n;) {
		ssize_t w = send(fd, req + off, n - off, MSG_NOSIGNAL);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	shutdown(fd, SHUT_WR);
	while (cap && got < cap - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, ms) <= 0)
			break;
		r = recv(fd, resp + got, cap - 1 - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (cap)
		resp[got] = 0;
	close(fd);
	return (long)got;
}

int t_text_write(void *arg, const char *buf, size_t n)
{
	struct t_text *t = arg;

	if (t->n + n + 1 > t->cap) {
		size_t cap = (t->n + n + 1) * 2;
		char *s = realloc(t->s, cap);

		if (!s)
			return -HIST_ENOMEM;
		t->s = s;
		t->cap = cap;
	}
	memcpy(t->s + t->n, buf, n);
	t->n += n;
	t->s[t->n] = 0;
	return 0;
}

long t_fa_count, t_fa_fail_at = -1, t_fa_live;

static void *fa_alloc(void *data, size_t size)
{
	(void)data;
	if (t_fa_count++ == t_fa_fail_at)
		return NULL;
	t_fa_live++;
	return calloc(1, size);
}

static void fa_free(void *data, void *p)
{
	(void)data;
	if (p)
		t_fa_live--;
	free(p);
}

const struct hist_allocator t_fail_alloc = { fa_alloc, fa_free, NULL };
