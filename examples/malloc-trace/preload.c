/* SPDX-License-Identifier: MIT */
/*
 * libhist-malloc.so: a userspace tracer built on libhist.  Preload it into
 * any program (glibc) and it prints, when the program exits, hist-trigger
 * histograms of the program's malloc() and free() calls:
 *
 *   LD_PRELOAD=build/examples/malloc-trace/libhist-malloc.so ls -R /usr
 *
 * The program's allocator calls become events that this library defines
 * itself through the schema callbacks (no kernel involved):
 *
 *   malloc:malloc_entry  size                 before the allocation
 *   malloc:malloc_exit   size, ptr            after it
 *   malloc:free          ptr
 *
 * and the default triggers are the kernel's wakeup-latency recipe applied
 * to malloc: a variable holds the entry time per thread, the exit computes
 * the latency and generates the synthetic event malloc_latency, whose
 * histograms show the latency distribution and, per size class, the
 * slowest call with onmax().save():
 *
 *   synthetic_events  malloc_latency u64 size; u64 lat; int tid
 *   malloc/malloc_entry  hist:keys=common_pid:ts0=common_timestamp
 *   malloc/malloc_exit   hist:keys=common_pid:lat=common_timestamp-$ts0:
 *                        onmatch(malloc.malloc_entry)
 *                        .malloc_latency(size,$lat,common_pid)
 *   synthetic/malloc_latency  hist:keys=lat.log2:sort=lat
 *   synthetic/malloc_latency  hist:keys=size.log2:l=lat:sort=size:
 *                             onmax($l).save(lat,tid)
 *   malloc/malloc_exit   hist:keys=size.log2:vals=hitcount,size:sort=size.descending
 *   malloc/free          hist:keys=common_pid:vals=hitcount
 *
 * Environment:
 *   HIST_MALLOC_TRIGGERS=FILE  use FILE's lines instead of the defaults
 *                              ('TARGET COMMAND', as hist-live -T); a bad
 *                              line is reported with FILE:LINE and its
 *                              command and skipped, the others apply;
 *                              FILE is read whole, up to 16 MiB
 *   HIST_MALLOC_OUT=FILE       print there instead of standard error;
 *                              %p in FILE becomes the process id; a
 *                              FILE that cannot be made is said, and
 *                              the output is on standard error.
 *                              Without it, a program that closed
 *                              standard error before exiting (ls) gets
 *                              the output on the copy of it taken when
 *                              the tracer started
 *   HIST_MALLOC_JSON=1         print JSON (hist_event_print_json)
 *
 * Only the allocator entry points are exported (preload.map); libhist is
 * linked in, and its own memory comes straight from glibc
 * (hist_set_allocator), so the tracer never traces itself.  Timestamps are
 * CLOCK_MONOTONIC nanoseconds; the "cpu" of a hit is the CPU the thread
 * runs on.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <libhist.h>

#include "triggers.h"
#include "../common/json.h"

/* glibc's allocator, under the names it exports for interposers */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

static const char default_triggers[] =
	"synthetic_events malloc_latency u64 size; u64 lat; int tid\n"
	"malloc/malloc_entry hist:keys=common_pid:ts0=common_timestamp\n"
	"malloc/malloc_exit hist:keys=common_pid:lat=common_timestamp-$ts0:"
	"onmatch(malloc.malloc_entry).malloc_latency(size,$lat,common_pid)\n"
	"synthetic/malloc_latency hist:keys=lat.log2:sort=lat\n"
	"synthetic/malloc_latency hist:keys=size.log2:l=lat:sort=size:"
	"onmax($l).save(lat,tid)\n"
	"malloc/malloc_exit hist:keys=size.log2:vals=hitcount,size:sort=size.descending\n"
	"malloc/free hist:keys=common_pid:vals=hitcount\n";

static hist_ctx *ctx;
static hist_event *ev_entry, *ev_exit, *ev_free;
/* 1 once the triggers are in: hooks feed events only then */
static int ready;
static char prog_comm[16];

/* per thread: inside the tracer (no tracing of our own work), the tid;
 * initial-exec: reaching them never allocates */
#define TLS __thread __attribute__((tls_model("initial-exec")))
static TLS int in_tracer;
static TLS int32_t my_tid;
static TLS char my_comm[16];

static void *tracer_alloc(void *data, size_t size)
{
	(void)data;
	return __libc_calloc(1, size);
}

static void tracer_free(void *data, void *p)
{
	(void)data;
	__libc_free(p);
}

__attribute__((constructor)) static void tracer_init(void)
{
	static const struct hist_allocator a = { tracer_alloc, tracer_free, NULL };
	const char *path = getenv("HIST_MALLOC_TRIGGERS");
	struct hist_host host;
	char *text = NULL;
	size_t len = 0;
	int fd, err;
	ssize_t k;

	in_tracer = 1;
	/* a copy of stderr for programs that close it before we print */
	mt_err_copy = fcntl(2, F_DUPFD_CLOEXEC, 10);
	hist_set_allocator(&a);
	memset(&host, 0, sizeof(host));
	host.find_event = mt_find_event;
	ctx = hist_ctx_create(&host, NULL, &err);
	fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		k = read(fd, prog_comm, sizeof(prog_comm) - 1);
		close(fd);
		if (k > 0 && prog_comm[k - 1] == '\n')
			k--;
		prog_comm[k > 0 ? k : 0] = 0;
	}
	if (ctx) {
		ev_entry = hist_event_lookup(ctx, "malloc", "malloc_entry");
		ev_exit = hist_event_lookup(ctx, "malloc", "malloc_exit");
		ev_free = hist_event_lookup(ctx, "malloc", "free");
		if (path) {
			text = mt_read_all(path, &len);
			if (text)
				mt_apply_all(ctx, text, len, path);
		} else {
			/* the defaults, in a copy mt_apply_all() may cut into lines */
			len = sizeof(default_triggers) - 1;
			text = __libc_malloc(len + 1);
			if (text) {
				memcpy(text, default_triggers, len + 1);
				mt_apply_all(ctx, text, len, NULL);
			}
		}
		__libc_free(text);
		/* release: the hooks of other threads see a complete setup */
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	in_tracer = 0;
}

/*
 * HIST_MALLOC_OUT with %p replaced by the pid, or standard error.  A file
 * that cannot be made (or a name past 4 KiB) is said, and the histograms
 * go to standard error: they are never lost without a word.
 */
static int open_output(void)
{
	const char *o = getenv("HIST_MALLOC_OUT"), *why;
	char path[4096];
	size_t n = 0;
	int fd;

	if (!o || !*o)
		return mt_err_fd();
	for (; *o && n + 24 < sizeof(path); o++) {
		if (o[0] == '%' && o[1] == 'p') {
			n += (size_t)snprintf(path + n, sizeof(path) - n, "%d",
					      (int)getpid());
			o++;
		} else {
			path[n++] = *o;
		}
	}
	path[n] = 0;
	if (*o) {
		why = "longer than 4 KiB";
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		why = strerror(errno);
	}
	fd = mt_err_fd();
	mt_say(fd, "libhist-malloc: HIST_MALLOC_OUT: ");
	if (!*o) {
		mt_say(fd, path);
		mt_say(fd, ": ");
	}
	mt_say(fd, why);
	mt_say(fd, "; the histograms are here instead\n");
	return fd;
}

static void print_event(int fd, hist_event *ev, int json, int first)
{
	const struct hist_event_desc *d = hist_event_desc(ev);

	if (json) {
		mt_say(fd, first ? "\n    { \"system\": " : ",\n    { \"system\": ");
		json_write_str(mt_fd_write, &fd, d->system);
		mt_say(fd, ", \"event\": ");
		json_write_str(mt_fd_write, &fd, d->name);
		mt_say(fd, ",\n      \"histograms\": ");
		hist_event_print_json(ev, mt_fd_write, &fd);
		mt_say(fd, " }");
	} else {
		mt_say(fd, "\n# ");
		mt_say(fd, d->system);
		mt_say(fd, "/");
		mt_say(fd, d->name);
		mt_say(fd, "\n");
		hist_event_print_hist(ev, mt_fd_write, &fd);
	}
}

/* At exit: print every event's histograms.  The context stays: threads
 * that still allocate keep feeding it safely. */
__attribute__((destructor)) static void tracer_fini(void)
{
	const char *j = getenv("HIST_MALLOC_JSON");
	int json = j && *j == '1', fd, i, first = 1;
	hist_event *evs[4];

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return;
	in_tracer = 1;
	fd = open_output();
	evs[0] = ev_entry;
	evs[1] = ev_exit;
	evs[2] = ev_free;
	/* the synthetic event of the default triggers, if defined */
	evs[3] = hist_event_lookup(ctx, "synthetic", "malloc_latency");
	if (json) {
		mt_say(fd, "{ \"libhist\": \"");
		mt_say(fd, hist_version());
		mt_say(fd, "\", \"program\": ");
		/* a comm is cut at 15 bytes, maybe inside a UTF-8 character */
		json_write_str(mt_fd_write, &fd, prog_comm);
		mt_say(fd, ",\n  \"events\": [");
	} else {
		mt_say(fd, "# libhist-malloc: ");
		mt_say(fd, prog_comm);
		mt_say(fd, "\n");
	}
	for (i = 0; i < 4; i++) {
		if (!evs[i] || !hist_event_nr_hists(evs[i]))
			continue;
		print_event(fd, evs[i], json, first);
		first = 0;
	}
	if (json)
		mt_say(fd, "\n  ] }\n");
	if (fd != 2 && fd != mt_err_copy)
		close(fd);
	in_tracer = 0;
}

/* ---- the hooks ----------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Start tracing one call: 0 if this call is not traced. */
static int begin(struct hist_hit *hit, struct rec_common *c, uint16_t type)
{
	int cpu;

	if (in_tracer || !__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return 0;
	if (!my_tid) {
		my_tid = (int32_t)syscall(SYS_gettid);
		if (prctl(PR_GET_NAME, my_comm) || !my_comm[0])
			memcpy(my_comm, prog_comm, sizeof(my_comm));
	}
	memset(c, 0, sizeof(*c));
	c->type = type;
	c->pid = my_tid;
	memset(hit, 0, sizeof(*hit));
	cpu = sched_getcpu();
	hit->cpu = cpu >= 0 ? (uint32_t)cpu : 0;
	hit->pid = my_tid;
	hit->comm = my_comm;
	return 1;
}

static void trace_entry(size_t size, struct hist_hit *hit)
{
	struct rec_entry r;

	if (!begin(hit, &r.c, EV_ENTRY))
		return;
	r.size = size;
	hit->ts = now_ns();
	hist_event_hit(ev_entry, &r, sizeof(r), hit);
}

static void trace_exit(size_t size, void *p, struct hist_hit *hit)
{
	struct rec_exit r;

	if (!begin(hit, &r.c, EV_EXIT))
		return;
	r.size = size;
	r.ptr = (uint64_t)(uintptr_t)p;
	hit->ts = now_ns();
	hist_event_hit(ev_exit, &r, sizeof(r), hit);
}

__attribute__((visibility("default"))) void *malloc(size_t size)
{
	struct hist_hit hit;
	void *p;

	trace_entry(size, &hit);
	p = __libc_malloc(size);
	trace_exit(size, p, &hit);
	return p;
}

__attribute__((visibility("default"))) void *calloc(size_t n, size_t size)
{
	struct hist_hit hit;
	size_t total = n * size;
	void *p;

	trace_entry(total, &hit);
	p = __libc_calloc(n, size);
	trace_exit(total, p, &hit);
	return p;
}

__attribute__((visibility("default"))) void *realloc(void *old, size_t size)
{
	return __libc_realloc(old, size);
}

__attribute__((visibility("default"))) void free(void *p)
{
	struct hist_hit hit;
	struct rec_free r;

	if (p && begin(&hit, &r.c, EV_FREE)) {
		r.ptr = (uint64_t)(uintptr_t)p;
		hit.ts = now_ns();
		hist_event_hit(ev_free, &r, sizeof(r), &hit);
	}
	__libc_free(p);
}
