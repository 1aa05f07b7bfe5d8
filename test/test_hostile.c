/* SPDX-License-Identifier: MIT */
/*
 * The tools against hostile and careless input: files that change or
 * never end, odd paths, damaged recordings, long lines.  Each test here
 * failed on the tree before its fix (issue 21); the tools must answer
 * with a clear message and an exit status, never a signal, a hang, a
 * write outside the asked directory or a silent loss.
 *
 * Also the test runner itself: `make check`'s last line is the sum of
 * every program's "N passed, N failed" and its status fails with any.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "hist_ftrace.h"
#include "libhist.h"
#include "util.h"

static char tmp[256], build[512], replay[2048], cwd[1024];

#include "test_shell.h"

/* A sanitizer build (make check-asan/-tsan; not make coverage, whose
 * --coverage preload runs and is measured). */
static int under_sanitizer(void)
{
	const char *s = getenv("HIST_SAN");

	return s && strstr(s, "sanitize");
}

/* The output of the last sh() */
static char *out_text(void)
{
	return t_readf("%s/out", tmp);
}

static int out_has(const char *needle)
{
	char *s = out_text();
	int r = s && strstr(s, needle);

	if (!r)
		printf("#   output lacks '%s':\n#   %.600s\n", needle, s ? s : "(none)");
	free(s);
	return r;
}

static void write_text(const char *name, const char *text)
{
	char p[300];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp, name);
	f = fopen(p, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/*
 * test/run-tests.sh: three programs (one passing, one with failures, one
 * that dies before its summary line) give one overall line and a failing
 * status; all passing give the sum and success.
 */
static void test_runner_sums(void)
{
	write_text("t_a", "#!/bin/sh\necho 'ok 1 - a'\necho '3 passed, 0 failed'\n");
	write_text("t_b", "#!/bin/sh\necho 'not ok 1 - b'\necho '4 passed, 2 failed'\nexit 1\n");
	write_text("t_c", "#!/bin/sh\necho 'ok 1 - c'\nkill -SEGV $$\n");
	T_EQ(sh(0, "chmod +x %s/t_a %s/t_b %s/t_c", tmp, tmp, tmp), 0);
	T_ASSERT(sh(0, "sh test/run-tests.sh %s %s/t_a %s/t_b %s/t_c", build, tmp,
		    tmp, tmp) != 0);
	T_ASSERT(out_has("\n7 passed, 3 failed\n"));
	T_ASSERT(out_has("broken test programs: t_c"));
	T_EQ(sh(1, "sh test/run-tests.sh %s %s/t_a %s/t_a | tail -n 1 | "
		"grep -qx '6 passed, 0 failed'", build, tmp, tmp), 0);
	T_EQ(sh(1, "sh test/run-tests.sh %s %s/t_a %s/t_a", build, tmp, tmp), 0);
}


static int copy_file(const char *from, const char *to)
{
	return sh(1, "cp '%s' '%s'", from, to);
}

/*
 * A trace.dat cut short while it is being read (mapped): the reader says
 * so through hist_tracedat_next()'s error, the process gets no SIGBUS.
 * Run in a child so that a signal is a failed test, not a dead program.
 * PREFETCH: the zstd file with the worker thread that reads the mapping.
 */
static int shrink_child(const char *src, int prefetch)
{
	char path[300], err[320];
	struct hist_tracedat *td;
	struct hist_ftrace_record rec;
	uint64_t nr = 0, sum = 0;
	int r, saw_err = 0;

	snprintf(path, sizeof(path), "%s/shrink.dat", tmp);
	if (copy_file(src, path))
		return 10;
	td = hist_tracedat_open(path, err, sizeof(err));
	if (!td)
		return 11;
	hist_tracedat_set_prefetch(td, prefetch);
	while ((r = hist_tracedat_next(td, &rec)) != 0) {
		uint32_t i;

		if (r < 0) {
			if (strstr(hist_tracedat_error(td), "changed while") ||
			    strstr(hist_tracedat_error(td), "shrank"))
				saw_err = 1;
			else
				printf("#   other error: %s\n", hist_tracedat_error(td));
			continue;
		}
		for (i = 0; i < rec.len; i++)
			sum += rec.data[i];
		if (++nr == 100 && truncate(path, 64 << 10))
			return 12;
	}
	hist_tracedat_close(td);
	printf("#   %llu records before the end (sum %llu)\n",
	       (unsigned long long)nr, (unsigned long long)sum);
	fflush(stdout);	/* the caller _exit()s */
	return saw_err ? 0 : 13;
}

static void check_shrink(const char *src, int prefetch)
{
	pid_t pid;
	int st = 0;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(shrink_child(src, prefetch));
	T_ASSERT(pid > 0);
	T_ASSERT(waitpid(pid, &st, 0) == pid);
	if (WIFSIGNALED(st))
		printf("#   %s: killed by signal %d\n", src, WTERMSIG(st));
	T_ASSERT(WIFEXITED(st));
	T_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0);
}

static void test_shrinking_file(void)
{
	check_shrink("test/data/mem.v7-none.dat", 0);
	check_shrink("test/data/sched.v6.dat", 0);
	check_shrink("test/data/sched.v7-zstd.dat", 1);
	check_shrink("test/data/sched.v7-zstd.dat", 0);
}

/*
 * The tool: a trace cut while hist-replay reads it ends with status 0
 * (cut after the tool was done with it), 3 (damage) or 2 (cut before it
 * was opened) and a message, never a
 * signal.  Timing varies, so the cut comes at several moments.
 */
static void test_shrinking_file_tool(void)
{
	char path[300];
	int i, rc;

	snprintf(path, sizeof(path), "%s/shrink2.dat", tmp);
	for (i = 0; i < 6; i++) {
		T_EQ(copy_file("test/data/mem.v7-none.dat", path), 0);
		rc = sh(0, "(sleep 0.0%d; truncate -s 65536 %s) & "
			"%s -t 'kmem/kmalloc hist:keys=common_cpu' %s; rc=$?; wait; exit $rc",
			i * 2, path, replay, path);
		if (rc != 0 && rc != 2 && rc != 3)
			printf("#   cut after %d ms: exit %d\n", i * 20, rc);
		/* 2: cut before the tool opened it (nothing to read) */
		T_ASSERT(rc == 0 || rc == 2 || rc == 3);
		/* damage: the cut seen while reading, or as a cut section
		 * (a tool that starts slower meets the cut there) */
		if (rc == 3) {
			char *o = out_text();

			/* either message: no "output lacks" line for the other */
			T_ASSERT(o && (strstr(o, "changed while being read") ||
				       strstr(o, "truncated section")));
			free(o);
		}
		if (rc == 2)
			T_ASSERT(out_has(path));
	}
}

/* -o '' (an unset "$OUT") must not mean the root directory. */
static void test_empty_outdir(void)
{
	T_EQ(sh(0, "cd %s && %s -o '' -t 'sched/sched_switch hist:keys=common_cpu' "
		"%s/test/data/sched.v7-zstd.dat", tmp, replay, cwd), 2);
	T_ASSERT(out_has("-o"));
	T_ASSERT(out_has("empty"));
}

/*
 * An -o of 4,079 bytes: every file lands under it, none in a folder made
 * from a path cut at 4,095 bytes.
 */
static void test_long_outdir(void)
{
	char dir[4200], cmd[300];
	size_t n;

	n = (size_t)snprintf(dir, sizeof(dir), "%s/long", tmp);
	while (n + 200 < 4079) {
		dir[n++] = '/';
		memset(dir + n, 'd', 199);
		n += 199;
	}
	dir[n++] = '/';
	memset(dir + n, 'e', 4079 - n);
	n = 4079;
	dir[n] = 0;
	T_EQ(sh(1, "%s -o %s -t 'sched/sched_switch hist:keys=common_cpu' "
		"test/data/sched.v7-zstd.dat", replay, dir), 0);
	T_EQ(sh(1, "cd %s && find . | LC_ALL=C sort | tr '\\n' ' '", dir), 0);
	T_ASSERT(out_has(". ./error_log ./events ./events/sched "
			 "./events/sched/sched_switch ./events/sched/sched_switch/hist "
			 "./events/sched/sched_switch/trigger "));
	/* nothing beside the one chain of folders */
	snprintf(cmd, sizeof(cmd), "cd %s/long && find . -type f | wc -l", tmp);
	T_EQ(sh(1, "%s", cmd), 0);
	T_ASSERT(out_has("3\n"));
	/* one byte more than a path can hold: refused before anything is made */
	T_EQ(sh(0, "%s -o %s/%04100d -t 'sched/sched_switch hist:keys=common_cpu' "
		"test/data/sched.v7-zstd.dat", replay, tmp, 0), 2);
	T_ASSERT(out_has("too long"));
}

/* The u32 chunk count of each CPU of a v7 zstd file: the first record of a
 * CPU tells its first chunk's offset, the count sits right before it. */
static int chunk_count_offsets(const char *path, uint64_t off[2])
{
	char err[320];
	struct hist_tracedat *td = hist_tracedat_open(path, err, sizeof(err));
	struct hist_ftrace_record rec;

	if (!td)
		return -1;
	off[0] = off[1] = UINT64_MAX;
	while (hist_tracedat_next(td, &rec) > 0)
		if (rec.cpu < 2 && rec.file_offset < off[rec.cpu])
			off[rec.cpu] = rec.file_offset;
	hist_tracedat_close(td);
	if (off[0] == UINT64_MAX || off[1] == UINT64_MAX)
		return -1;
	off[0] -= 4;
	off[1] -= 4;
	return 0;
}

static int patch_u32(const char *path, uint64_t off, uint32_t v, uint32_t *old)
{
	int fd = open(path, O_RDWR);
	int ok = fd >= 0 && pread(fd, old, 4, (off_t)off) == 4 &&
		 pwrite(fd, &v, 4, (off_t)off) == 4;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/*
 * A damaged per-CPU chunk count (0, a third, more than there are): the
 * tool says so and exits 3 (damage); the chunks themselves still end where the
 * CPU's section ends, so every record is replayed anyway.
 */
static void test_damaged_chunk_count(void)
{
	const char *cmd = "sched/sched_switch hist:keys=common_cpu";
	char path[300], good[64];
	uint64_t off[2];
	uint32_t nr = 0, old, bad[3];
	int i;
	char *o, *h;

	snprintf(path, sizeof(path), "%s/chunks.dat", tmp);
	T_EQ(copy_file("test/data/sched.v7-zstd.dat", path), 0);
	T_EQ(chunk_count_offsets(path, off), 0);
	T_EQ(sh(1, "%s -t '%s' %s", replay, cmd, path), 0);
	o = out_text();
	h = o ? strstr(o, "Hits: ") : NULL;
	snprintf(good, sizeof(good), "%.40s", h ? h : "?");
	free(o);
	T_EQ(patch_u32(path, off[0], 0, &nr), 0);
	T_EQ(patch_u32(path, off[0], nr, &old), 0);
	printf("#   CPU 0: %u chunks, count at offset %llu\n", nr,
	       (unsigned long long)off[0]);
	T_ASSERT(nr > 3);
	bad[0] = 0;
	bad[1] = nr / 3;
	bad[2] = nr + 7;
	for (i = 0; i < 3; i++) {
		T_EQ(patch_u32(path, off[0], bad[i], &old), 0);
		T_EQ(sh(0, "%s -t '%s' %s", replay, cmd, path), 3);
		T_ASSERT(out_has("chunk count"));
		T_ASSERT(out_has(good));
		T_EQ(patch_u32(path, off[0], nr, &old), 0);
	}
}

/*
 * The file offset of the first option of a v7 trace.dat (after the first
 * options section's 16-byte head) and of the DONE option's u64 that
 * chains the next options section; 0 and 0 if not found.
 */
static void v7_options(const char *path, uint64_t *first, uint64_t *done)
{
	FILE *f = fopen(path, "rb");
	uint8_t b[1 << 12];
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0, p = 10;
	uint64_t off = 0;

	*first = *done = 0;
	/* version, endianness and long size, page size, compression, its version */
	p += strnlen((char *)b + p, n - p) + 1 + 2 + 4;
	p += strnlen((char *)b + p, n - p) + 1;
	p += strnlen((char *)b + p, n - p) + 1;
	if (f && p + 8 <= n) {
		memcpy(&off, b + p, 8);
		*first = off + 16;
		while (!fseek(f, (long)*first, SEEK_SET) && fread(b, 1, sizeof(b), f) > 0) {
			for (p = 0; p + 6 <= sizeof(b);) {
				uint16_t id;
				uint32_t sz;

				memcpy(&id, b + p, 2);
				memcpy(&sz, b + p + 2, 4);
				if (id == 0) {
					*done = *first + p + 6;
					break;
				}
				p += 6 + sz;
			}
			break;
		}
	}
	if (f)
		fclose(f);
}

/*
 * A v7 trace.dat whose options chain is damaged (the DONE option that
 * leads to the options naming the ring buffer, or the first option's id)
 * read as a valid trace without records: "no records", exit 0.  Now it
 * is damage: the buffer is found by its layout when the rest allows
 * (exit 3, every record), else a clear error (exit 2).
 */
static void test_damaged_options(void)
{
	const char *cmd = "sched/sched_switch hist:keys=common_cpu";
	char path[300];
	uint64_t first, done;
	uint32_t old;

	snprintf(path, sizeof(path), "%s/options.dat", tmp);
	T_EQ(copy_file("test/data/sched.v7-zstd.dat", path), 0);
	v7_options(path, &first, &done);
	T_ASSERT(first > 0 && done > first);
	if (!first || done <= first)
		return;
	T_EQ(patch_u32(path, done, 0, &old), 0);
	T_EQ(sh(0, "%s -t '%s' %s", replay, cmd, path), 3);
	T_ASSERT(out_has("the options are damaged"));
	T_ASSERT(out_has("    Hits: 27501\n"));
	T_EQ(patch_u32(path, done, old, &old), 0);
	T_EQ(patch_u32(path, first, 0, &old), 0);
	T_EQ(sh(0, "%s -t '%s' %s", replay, cmd, path), 2);
	T_ASSERT(out_has("the options are damaged, and its records cannot be found"));
}

/* -T of a device or FIFO: bounded, with a message that names it. */
static void test_trigger_file_devices(void)
{
	T_EQ(sh(0, "timeout 20 %s -T /dev/zero test/data/sched.v7-zstd.dat", replay), 2);
	T_ASSERT(out_has("/dev/zero"));
	T_EQ(sh(0, "timeout 20 %s -S /dev/zero test/data/sched.v7-zstd.dat", replay), 2);
	T_ASSERT(out_has("/dev/zero"));
	/* endless text without a NUL: refused at the bound */
	T_EQ(sh(0, "yes 'sched/sched_switch\thist:keys=common_cpu' | timeout 60 %s -T /dev/stdin "
		"test/data/sched.v7-zstd.dat", replay), 2);
	T_ASSERT(out_has("longer than"));
	/* a FIFO of triggers works (process substitution is one) */
	T_EQ(sh(1, "printf 'sched/sched_switch\\thist:keys=common_cpu\\n' | %s -T /dev/stdin "
		"test/data/sched.v7-zstd.dat", replay), 0);
	T_ASSERT(out_has("Hits: "));
	/* as the trace: named for what it is, not "empty file" */
	T_EQ(sh(0, "mkfifo %s/fifo", tmp), 0);
	T_EQ(sh(0, "timeout 20 %s -t 'sched/sched_switch hist:keys=common_cpu' %s/fifo",
		replay, tmp), 2);
	T_ASSERT(out_has("FIFO"));
	T_EQ(sh(0, "timeout 20 %s -t 'sched/sched_switch hist:keys=common_cpu' /dev/zero",
		replay), 2);
	T_ASSERT(out_has("character device"));
	T_EQ(sh(0, "timeout 20 %s -t 'sched/sched_switch hist:keys=common_cpu' %s",
		replay, tmp), 2);
	T_ASSERT(out_has("directory"));
}

/*
 * '-' copies standard input to memory: what is not a recording is refused
 * at its first bytes, not read to its end (`- < /dev/zero` filled memory
 * without bound).  The writer here never ends by itself (a byte every
 * 0.1 s until the reader is gone): only a tool that judged the head ends
 * before the timeout.
 */
static void test_stdin_not_recording(void)
{
	T_EQ(sh(0, "(printf 'GET / HTTP/1.0\\r\\n\\r\\n'; while printf x; do sleep 0.1; done) "
		"| timeout 20 %s -t 'sched/sched_switch hist:keys=common_cpu' -", replay), 2);
	T_ASSERT(out_has("standard input: not a trace.dat or perf.data recording"));
	/* a recording through the pipe still replays whole, both kinds */
	T_EQ(sh(1, "cat test/data/sched.v6.dat | %s -t 'sched/sched_switch "
		"hist:keys=common_cpu' -", replay), 0);
	T_ASSERT(out_has("Hits: 27501"));
	T_EQ(sh(1, "cat test/data/perf/syscalls.pipe.perf.data | %s -t 'raw_syscalls/sys_enter "
		"hist:keys=common_cpu' -", replay), 0);
	T_ASSERT(out_has("Hits: 789"));
}

/* --json keeps valid UTF-8 as it is (a path with an e acute), escapes
 * only bytes that are not UTF-8. */
static void test_json_utf8(void)
{
	char *o;

	T_EQ(sh(1, "cp test/data/sched.v7-zstd.dat %s/caf\xc3\xa9.dat && "
		"cp test/data/sched.v7-zstd.dat %s/bad\xff.dat", tmp, tmp), 0);
	T_EQ(sh(1, "%s --json -t 'sched/sched_switch hist:keys=common_cpu' %s/caf\xc3\xa9.dat",
		replay, tmp), 0);
	T_ASSERT(out_has("caf\xc3\xa9.dat\""));
	T_EQ(sh(1, "%s --json -t 'sched/sched_switch hist:keys=common_cpu' %s/bad\xff.dat",
		replay, tmp), 0);
	T_ASSERT(out_has("bad\\u00ff.dat\""));
	o = out_text();
	T_ASSERT(o && !strchr(o, '\xff'));
	free(o);
	/* hist-merge writes a name it read back as hist-replay wrote it */
	T_EQ(sh(1, "%s --json -t 'sched/sched_switch hist:keys=common_cpu' %s/caf\xc3\xa9.dat | "
		"sed 's/\"sched_switch\"/\"sw\\\\u00ff\"/' > %s/ff.json && "
		"%s/hist-merge --json %s/ff.json", replay, tmp, tmp, build, tmp), 0);
	T_ASSERT(out_has("\"event\": \"sw\\u00ff\""));
	o = out_text();
	T_ASSERT(o && !strchr(o, '\xff'));
	free(o);
}

/* A 10 MB command is not echoed whole into the message. */
static void test_long_command_echo(void)
{
	char path[300];
	size_t len = 0;
	char *o;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/long.trig", tmp);
	f = fopen(path, "w");
	T_ASSERT(f);
	if (!f)
		return;
	fputs("sched/sched_switch\thist:keys=common_cpu", f);
	for (i = 0; i < 1000000; i++)
		fputs(":vals=x", f);
	fputs("\nsched/sched_switch\thist:keys=common_cpu:vals=", f);
	for (i = 0; i < 1000; i++)
		fputs("xx", f);
	fputs("\n", f);
	fclose(f);
	T_EQ(sh(0, "%s -T %s test/data/sched.v7-zstd.dat", replay, path), 1);
	T_EQ(sh(0, "%s -T %s test/data/sched.v7-zstd.dat 2>&1 >/dev/null | wc -c",
		replay, path), 0);
	o = out_text();
	T_ASSERT(o && strtoul(o, NULL, 10) < 16384);
	if (o)
		len = strtoul(o, NULL, 10);
	printf("#   stderr: %zu bytes\n", len);
	free(o);
	T_EQ(sh(0, "%s -T %s test/data/sched.v7-zstd.dat", replay, path), 1);
	T_ASSERT(out_has("bytes)"));
}

/*
 * --listen against a slow client: four connections from one address that
 * each send a byte a second and never end their request.  libmicrohttpd's
 * timeout counts idleness, so they held the address's four connections
 * for ever and every scrape from it (Prometheus on the same host) was
 * refused; the tools now end a request not in after 10 s.
 */
static void test_listen_slow_clients(void)
{
	char err[300], resp[256];
	struct sockaddr_in a;
	int fd[4], i, ok = 0;
	long pid, port;
	time_t t0;

	if (sh(0, "%s --listen 127.0.0.1:x /dev/null 2>&1 | grep -q libmicrohttpd", replay) == 0) {
		printf("# SKIP --listen: no libmicrohttpd\n");
		return;
	}
	snprintf(err, sizeof(err), "%s/listen.err", tmp);
	pid = t_spawn("%s --listen 127.0.0.1:0 -t 'sched/sched_switch hist:keys=common_cpu' "
		      "%s/test/data/sched.v7-zstd.dat > /dev/null 2> %s", replay, cwd, err);
	T_ASSERT(pid > 0);
	port = pid > 0 ? t_wait_number(err, "on port ", 20000) : -1;
	T_ASSERT(port > 0);
	if (port <= 0)
		goto out;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < 4; i++) {
		fd[i] = socket(AF_INET, SOCK_STREAM, 0);
		T_ASSERT(fd[i] >= 0 && !connect(fd[i], (struct sockaddr *)&a, sizeof(a)));
		T_ASSERT(write(fd[i], "GET /metrics HTTP/1.1\r\n", 23) == 23);
	}
	/* trickle for up to 20 s; a scrape gets through once they are cut */
	for (t0 = time(NULL); time(NULL) - t0 < 20 && !ok;) {
		sleep(1);
		/* a failed send is a cut: what the server should do */
		for (i = 0; i < 4; i++)
			(void)!send(fd[i], "X", 1, MSG_NOSIGNAL);
		static const char get[] = "GET /metrics HTTP/1.0\r\n\r\n";

		if (t_tcp_exchange((unsigned)port, get, sizeof(get) - 1, resp,
				   sizeof(resp), 3000) > 0 &&
		    !strncmp(resp, "HTTP/1.1 200", 12))
			ok = 1;
	}
	printf("#   a scrape answered after %ld s of slow clients\n", (long)(time(NULL) - t0));
	T_ASSERT(ok);
	/* at 10 s, not at once: a request may take its time */
	T_ASSERT(time(NULL) - t0 >= 8);
	for (i = 0; i < 4; i++)
		close(fd[i]);
out:
	if (pid > 0) {
		kill((pid_t)pid, SIGTERM);
		t_wait_gone(pid, 5000);
	}
}

/* ---- limits the kernel has ---------------------------------------------- */

static const struct hist_field_desc lim_fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	{ "pid", "pid_t", 8, 4, 1, HIST_FIELD_INT },
};

static int lim_find_event(void *data, const char *sys, const char *name,
			  struct hist_event_desc *out)
{
	(void)data;
	if (strcmp(sys, "lim") || strcmp(name, "ev"))
		return -HIST_ENOENT;
	out->fields = lim_fields;
	out->nr_fields = sizeof(lim_fields) / sizeof(lim_fields[0]);
	return 0;
}

static int log_write(void *arg, const char *buf, size_t len)
{
	char *log = arg;
	size_t l = strlen(log);

	snprintf(log + l, 256 - l, "%.*s", (int)len, buf);
	return 0;
}

/* "pid == 1" padded with spaces inside to LEN bytes */
static char *padded_filter(size_t len)
{
	char *f = malloc(len + 1);

	memcpy(f, "pid ==", 6);
	memset(f + 6, ' ', len - 7);
	f[len - 1] = '1';
	f[len] = 0;
	return f;
}

/*
 * The event filter file: the kernel refuses a write of PAGE_SIZE (4096)
 * bytes or more with EINVAL before parsing (event_filter_write() in
 * kernel/trace/trace_events.c), so a 2 MB filter of a million nested
 * parentheses is refused at once, not parsed.
 */
static void test_filter_length(void)
{
	struct hist_host host = { .find_event = lim_find_event };
	hist_ctx *ctx = hist_ctx_create(&host, NULL, NULL);
	hist_event *ev = ctx ? hist_event_lookup(ctx, "lim", "ev") : NULL;
	struct hist_error err;
	char *f, log[256];
	size_t i, n = 2000000;

	T_ASSERT(ev);
	if (!ev)
		return;
	f = padded_filter(4095);
	T_EQ(hist_event_set_filter(ev, f, &err), 0);
	free(f);
	f = padded_filter(4096);
	T_EQ(hist_event_set_filter(ev, f, &err), -HIST_EINVAL);
	T_EQ(err.code, -HIST_EINVAL);
	free(f);
	f = malloc(n + 16);
	for (i = 0; i < n / 2; i++)
		f[i] = '(';
	memcpy(f + i, "pid == 1", 8);
	for (i += 8; i < n + 8; i++)
		f[i] = ')';
	f[i] = 0;
	T_EQ(hist_event_set_filter(ev, f, &err), -HIST_EINVAL);
	free(f);
	/* refused without an error_log entry, as the kernel does */
	log[0] = 0;
	hist_ctx_print_error_log(ctx, log_write, log);
	T_STREQ(log, "");
	hist_ctx_destroy(ctx);
	/* the tool says why, since the kernel logs nothing */
	f = padded_filter(5000);
	write_text("longfilter.trig", "/events/sched/sched_switch/filter\t");
	{
		char p[300];
		FILE *fp;

		snprintf(p, sizeof(p), "%s/longfilter.trig", tmp);
		fp = fopen(p, "a");
		if (fp) {
			fprintf(fp, "%s\n", f);
			fclose(fp);
		}
	}
	free(f);
	T_EQ(sh(0, "%s -T %s/longfilter.trig test/data/sched.v7-zstd.dat", replay, tmp), 1);
	T_ASSERT(out_has("4096 bytes or more"));
}

/* The peak resident memory (KiB) of the shell command CMD and its
 * children, measured in a child of ours so earlier tests do not count;
 * -1 if it could not be run. */
static long peak_rss_kb(const char *cmd)
{
	int fd[2], st = 0;
	long kb = -1;
	pid_t pid;

	if (pipe(fd))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rusage ru;
		int rc = system(cmd);

		close(fd[0]);
		if (rc == 0 && !getrusage(RUSAGE_CHILDREN, &ru) &&
		    write(fd[1], &ru.ru_maxrss, sizeof(ru.ru_maxrss)) < 0)
			_exit(2);
		_exit(rc != 0);
	}
	close(fd[1]);
	if (pid > 0 && read(fd[0], &kb, sizeof(kb)) != sizeof(kb))
		kb = -1;
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	return kb;
}

/*
 * 2,000 hist triggers on one event: memory grows by what each hist's
 * tables touch, not by their whole size (276 MB before hist-replay fixed
 * glibc's mmap threshold, about 100 MB since: 50 KiB a hist, where the
 * kernel preallocates every element of each map).
 */
static void test_many_triggers_memory(void)
{
	char cmd[2500], path[300];
	long kb;
	FILE *f;
	int i;

	if (under_sanitizer()) {
		printf("# SKIP memory figures under sanitizers\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/many.trig", tmp);
	f = fopen(path, "w");
	T_ASSERT(f);
	if (!f)
		return;
	for (i = 0; i < 2000; i++)
		fprintf(f, "sched/sched_switch\thist:keys=common_cpu if prev_pid != %d\n", i);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s --from 100000 -T %s test/data/sched.v7-zstd.dat "
		 ">/dev/null 2>&1", replay, path);
	kb = peak_rss_kb(cmd);
	printf("#   2000 hists: %ld KiB resident at most\n", kb);
	T_ASSERT(kb > 0 && kb < 160 * 1024);
}

/* ---- the malloc tracer's trigger file ----------------------------------- */

/* Run malloc-demo under the tracer with triggers file NAME (in tmp). */
static int mtrace_run(const char *name)
{
	return sh(0, "HIST_MALLOC_TRIGGERS=%s/%s LD_PRELOAD=%s/examples/malloc-trace/"
		  "libhist-malloc.so %s/examples/malloc-trace/malloc-demo", tmp, name,
		  build, build);
}

static const char good_trigger[] = "malloc/malloc_exit hist:keys=size.log2:vals=hitcount\n";
/* a row of good_trigger's histogram (the file replaces the default
 * triggers, so it shows the line applied); its count is not checked: a
 * coverage build's runtime allocates too */
#define GOOD_ROW "{ size: ~ 2^12 } hitcount: "

/*
 * Past 64 KiB, long lines, a NUL, a directory, an unknown event: each is
 * named with FILE:LINE and its command, and the good lines still apply.
 */
static void test_malloc_trigger_file(void)
{
	char p[300];
	FILE *f;
	int i;

	if (under_sanitizer()) {
		printf("# SKIP the preload under sanitizers\n");
		return;
	}
	/* 100 KB of comments, then the trigger */
	snprintf(p, sizeof(p), "%s/m_big", tmp);
	f = fopen(p, "w");
	T_ASSERT(f);
	if (!f)
		return;
	for (i = 0; i < 2000; i++)
		fprintf(f, "# %048d\n", i);
	fputs(good_trigger, f);
	fclose(f);
	T_EQ(mtrace_run("m_big"), 0);
	T_ASSERT(out_has(GOOD_ROW));

	/* a 5,000-byte line, an unknown event, a NUL, then the trigger */
	T_EQ(sh(1, "(printf 'malloc/malloc_exit hist:keys=size'; printf '%%5000s' ''; "
		"printf ':vals=hitcount\\nmalloc/nosuch hist:keys=x\\n"
		"malloc/free hist:keys=ptr\\000x\\n%s') > %s/m_bad",
		good_trigger, tmp), 0);
	T_EQ(mtrace_run("m_bad"), 0);
	T_ASSERT(out_has("m_bad:1: malloc/malloc_exit: 'hist:keys=size"));
	T_ASSERT(out_has("bytes): a command of 4096 bytes or more is refused"));
	T_ASSERT(out_has("m_bad:2: malloc/nosuch: 'hist:keys=x': no such event"));
	T_ASSERT(out_has("m_bad:3: a NUL byte in the line: skipped"));
	T_ASSERT(out_has(GOOD_ROW));

	/* a directory is not an empty file */
	T_EQ(sh(0, "mkdir -p %s/m_dir", tmp), 0);
	T_EQ(mtrace_run("m_dir"), 0);
	T_ASSERT(out_has("m_dir: is a directory"));

	/* a FIFO nobody writes to: the program runs (the variable reaches
	 * every child, and a blocking open would stop each in our
	 * constructor), with the reason; a device is no file of commands */
	T_EQ(sh(0, "rm -f %s/m_fifo && mkfifo %s/m_fifo", tmp, tmp), 0);
	T_EQ(sh(0, "timeout 20 env HIST_MALLOC_TRIGGERS=%s/m_fifo LD_PRELOAD=%s/examples/"
		"malloc-trace/libhist-malloc.so %s/examples/malloc-trace/malloc-demo",
		tmp, build, build), 0);
	T_ASSERT(out_has("m_fifo: a pipe with nothing in it (no writer); no triggers"));
	T_EQ(sh(0, "timeout 20 env HIST_MALLOC_TRIGGERS=/dev/zero LD_PRELOAD=%s/examples/"
		"malloc-trace/libhist-malloc.so %s/examples/malloc-trace/malloc-demo",
		build, build), 0);
	T_ASSERT(out_has("/dev/zero: is a device, not a file of commands; no triggers"));
	/* an empty file is said, not a run without histograms and a word */
	T_EQ(sh(0, ": > %s/m_empty", tmp), 0);
	T_EQ(mtrace_run("m_empty"), 0);
	T_ASSERT(out_has("m_empty: is empty; no triggers"));

	/* 17 MiB is past the bound, though under the buffer's next doubling */
	T_EQ(sh(0, "yes '# a comment' | head -c 17M > %s/m_huge", tmp), 0);
	T_EQ(mtrace_run("m_huge"), 0);
	T_ASSERT(out_has("m_huge: longer than 16 MiB: not a file of commands; no triggers"));
	T_EQ(sh(0, "rm -f %s/m_huge", tmp), 0);
}

/* A program that closes standard error before it exits (ls does, at
 * exit) still gets the histograms there. */
static void test_malloc_closed_stderr(void)
{
	if (under_sanitizer()) {
		printf("# SKIP the preload under sanitizers\n");
		return;
	}
	T_EQ(sh(1, "LD_PRELOAD=%s/examples/malloc-trace/libhist-malloc.so ls / >/dev/null",
		build), 0);
	T_ASSERT(out_has("# libhist-malloc: ls"));
	T_ASSERT(out_has("Totals:"));
}

/* An output file that cannot be made is said, and the histograms come on
 * standard error, not lost without a word. */
static void test_malloc_bad_out(void)
{
	if (under_sanitizer()) {
		printf("# SKIP the preload under sanitizers\n");
		return;
	}
	T_EQ(sh(1, "HIST_MALLOC_OUT=%s/nosuch/m.%%p.txt LD_PRELOAD=%s/examples/malloc-trace/"
		"libhist-malloc.so %s/examples/malloc-trace/malloc-demo", tmp, build, build), 0);
	T_ASSERT(out_has("libhist-malloc: HIST_MALLOC_OUT: "));
	T_ASSERT(out_has("/nosuch/m."));
	T_ASSERT(out_has(": No such file or directory; the histograms are here instead"));
	T_ASSERT(out_has("# malloc/malloc_exit"));
}

/* HIST_MALLOC_JSON of a program whose name the kernel cut inside a UTF-8
 * character (a comm keeps 15 bytes) is still UTF-8, the cut byte as
 * \u00XX, as libhist writes its own strings. */
static void test_malloc_json_comm(void)
{
#define E8 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"	/* 16 bytes */
	if (under_sanitizer()) {
		printf("# SKIP the preload under sanitizers\n");
		return;
	}
	T_EQ(sh(1, "cp %s/examples/malloc-trace/malloc-demo %s/" E8 " && HIST_MALLOC_JSON=1 "
		"HIST_MALLOC_OUT=%s/mj.json LD_PRELOAD=%s/examples/malloc-trace/libhist-malloc.so "
		"%s/" E8 " && cat %s/mj.json", build, tmp, tmp, build, tmp, tmp), 0);
	T_ASSERT(out_has("\"program\": \"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
			 "\xc3\xa9\\u00c3\""));
	if (system("python3 -c 'import json' >/dev/null 2>&1") == 0)
		T_EQ(sh(1, "python3 -c 'import json, sys; "
			"json.loads(open(sys.argv[1], \"rb\").read().decode(\"utf-8\"))' "
			"%s/mj.json", tmp), 0);
#undef E8
}

int main(int argc, char **argv)
{
	(void)argc;
	/* absolute: some tests run the tool from another directory */
	t_build_dir(build, sizeof(build), argv[0]);
	if (t_scratch(tmp, sizeof(tmp), "test_hostile")) {
		printf("not ok 1 - mkdtemp: %s\n0 passed, 1 failed\n", strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (!getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, ".");
	snprintf(replay, sizeof(replay), "%s/hist-replay", build);
	T_RUN(test_runner_sums);
	T_RUN(test_shrinking_file);
	T_RUN(test_shrinking_file_tool);
	T_RUN(test_empty_outdir);
	T_RUN(test_long_outdir);
	T_RUN(test_damaged_chunk_count);
	T_RUN(test_damaged_options);
	T_RUN(test_trigger_file_devices);
	T_RUN(test_stdin_not_recording);
	T_RUN(test_json_utf8);
	T_RUN(test_listen_slow_clients);
	T_RUN(test_long_command_echo);
	T_RUN(test_filter_length);
	T_RUN(test_many_triggers_memory);
	T_RUN(test_malloc_trigger_file);
	T_RUN(test_malloc_closed_stderr);
	T_RUN(test_malloc_bad_out);
	T_RUN(test_malloc_json_comm);
	t_scratch_remove(tmp);
	return T_DONE();
}
