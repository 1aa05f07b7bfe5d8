/* SPDX-License-Identifier: MIT */
/*
 * The libhist side of histfs: one context per trace instance the user
 * sees (the top level, instances/NAME), each with a private kernel
 * instance (instances/histfs.PID[.N]) in which the events its triggers
 * need are enabled, so that their records reach us without touching the
 * user's buffers.  Records are read from that instance's per-CPU ring
 * buffers with hist-live's ring.c: before every read of a hist file and
 * by the drain thread of fs.c.
 *
 * The top-level private instance sets copy_trace_marker: a write to the
 * top-level trace_marker is then also an ftrace:print record of ours,
 * as the kernel's hist triggers on ftrace/print see it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "histfs.h"
#include "writes.h"

int hfs_buf_write(void *arg, const char *s, size_t n)
{
	struct hfs_buf *b = arg;

	if (b->oom)
		return -HIST_ENOMEM;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return -HIST_ENOMEM;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

int hfs_buf_printf(struct hfs_buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -HIST_EINVAL;
	return hfs_buf_write(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

void hfs_buf_free(struct hfs_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* error_log stamps: the kernel stamps its entries with local_clock(),
 * which CLOCK_MONOTONIC follows, so both logs merge in time order. */
static uint64_t mono_ns(void *data)
{
	struct timespec ts;

	(void)data;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* libhist asks for an event's format: remember that it knows it. */
static int find_event(void *data, const char *system, const char *name,
		      struct hist_event_desc *out)
{
	struct hfs_ctx *c = data;
	int ret = c->orig.find_event(c->orig.data, system, name, out);
	char *key, **v;

	if (ret || asprintf(&key, "%s/%s", system, name) < 0)
		return ret;
	v = realloc(c->known, (c->nr_known + 1) * sizeof(*v));
	if (!v) {
		free(key);
		return ret;
	}
	c->known = v;
	c->known[c->nr_known++] = key;
	return ret;
}

static int cmp_cmdline(const void *a, const void *b)
{
	const struct hfs_cmdline *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* saved_cmdlines: "PID COMM" lines, the comms the kernel saw when it
 * recorded the tasks' events. */
static void load_cmdlines(struct hfs_ctx *c)
{
	char *text = tfs_read(&c->tfs, "saved_cmdlines", 0, NULL), *line, *save = NULL;

	c->nr_cmdlines = 0;
	c->cmdlines_stale = 0;
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct hfs_cmdline *v;
		int pid, n = 0;

		if (sscanf(line, "%d %n", &pid, &n) != 1 || !n)
			continue;
		if (c->nr_cmdlines == c->cap_cmdlines) {
			size_t cap = c->cap_cmdlines ? 2 * c->cap_cmdlines : 256;

			v = realloc(c->cmdlines, cap * sizeof(*v));
			if (!v)
				break;
			c->cmdlines = v;
			c->cap_cmdlines = cap;
		}
		v = &c->cmdlines[c->nr_cmdlines++];
		v->pid = pid;
		snprintf(v->comm, sizeof(v->comm), "%s", line + n);
	}
	free(text);
	/* looked up for every record a comm filter or .execname key sees:
	 * a scan of a few thousand lines was 83% of histfs's time under a
	 * flood (perf, bench/soak.sh) */
	qsort(c->cmdlines, c->nr_cmdlines, sizeof(*c->cmdlines), cmp_cmdline);
}

/*
 * The comm of a task at the record being fed: the name hist-live's
 * tracker (comms.c) followed through the instance's task_newtask and
 * task_rename records.  For a task it never saw, the kernel's
 * saved_cmdlines (what a recording's reader such as hist-replay uses:
 * the comm when the task's events were recorded, also for tasks that
 * have exited since), else /proc/PID/comm (hist-live's host); for one it
 * is unsure of (the kernel lost records since), the host's rule.
 */
static int comm_cb(void *data, int32_t pid, char out[16])
{
	struct hfs_ctx *c = data;
	const struct hfs_cmdline key = { .pid = pid }, *f;
	int sure = comms_lookup(host_comms(c->host), pid, out);

	if (sure == 0)
		return 0;
	if (sure > 0)
		return c->orig.comm(c->orig.data, pid, out);
	if (c->cmdlines_stale)
		load_cmdlines(c);
	f = c->nr_cmdlines ? bsearch(&key, c->cmdlines, c->nr_cmdlines, sizeof(key), cmp_cmdline)
			   : NULL;
	if (f) {
		memcpy(out, f->comm, 16);
		return 0;
	}
	return c->orig.comm(c->orig.data, pid, out);
}

static int sym_cb(void *data, uint64_t addr, int off, char *buf, size_t len)
{
	struct hfs_ctx *c = data;

	return c->orig.sym(c->orig.data, addr, off, buf, len);
}

static const char *syscall_cb(void *data, uint64_t nr)
{
	struct hfs_ctx *c = data;

	return c->orig.syscall_name(c->orig.data, nr);
}

/* clock= of a trigger: the clock of our instance's buffers */
static int set_clock_cb(void *data, const char *name)
{
	struct hfs_ctx *c = data;
	/* a write resets the buffers even to the same clock: only on a
	 * change (remember=1 skips equal values; the undo is harmless,
	 * the instance goes away) */
	int ret = tfs_write(&c->tfs, "trace_clock", name, 1);

	return ret ? ret : c->orig.set_clock(c->orig.data, name);
}

void hctx_marker(struct hfs_ctx *c, int32_t tid, int32_t pid, int strip_nl)
{
	const uint32_t n = sizeof(c->mq) / sizeof(c->mq[0]);

	if (c->mq_len == n) {	/* records lost: forget the oldest */
		c->mq_head = (c->mq_head + 1) % n;
		c->mq_len--;
	}
	c->mq[(c->mq_head + c->mq_len++) % n] = (struct hfs_marker){ tid, pid, strip_nl };
}

void hctx_marker_undo(struct hfs_ctx *c)
{
	if (c->mq_len)
		c->mq_len--;
}

/* common_pid of a record (the common fields: type u16, flags u8,
 * preempt_count u8, pid s32) */
#define COMMON_PID_OFF 4

/*
 * Whether to skip record REC of a bounded drain.  A drain that began at
 * time T must feed everything recorded before T: what the kernel still
 * holds of it is at most one buffer's worth per CPU (older records were
 * read already or overwritten, counted by the kernel), so the first
 * BUF_BYTES of each CPU are always fed.  Past that, records are newer
 * than T; once the drain has run its grace they are skipped, so that a
 * writer faster than libhist cannot hold hfs.lock for a drain without
 * end.  Skipped records are counted (SKIPPED) and reported as lost.
 */
static int behind(struct hfs_ctx *c, const struct hist_ftrace_record *rec)
{
	uint64_t grace;

	if (!c->bounded) {
		if (!atomic_load_explicit(&hfs.waiting, memory_order_relaxed))
			return 0;
		c->bounded = 1;	/* a background drain: a user waits */
		c->bound_start = mono_ns(NULL);
		memset(c->cpu_bytes, 0, c->nr_cpu_bytes * sizeof(*c->cpu_bytes));
	}
	if (rec->cpu < c->nr_cpu_bytes) {
		c->cpu_bytes[rec->cpu] += rec->len + 8;	/* + its header, at most */
		if (c->cpu_bytes[rec->cpu] <= c->buf_bytes)
			return 0;
	}
	if (c->late)
		return 1;
	grace = c->background ? 0 : HFS_DRAIN_GRACE_MS * 1000000ull;
	if ((c->checks++ & 63) == 0 && mono_ns(NULL) - c->bound_start >= grace)
		c->late = 1;
	return c->late;
}

static void feed_one(struct hfs_ctx *c, const struct hist_ftrace_record *rec)
{
	hist_event *ev = host_event_by_id(c->host, rec->type);
	const void *data = rec->data;
	uint8_t copy[4096];
	struct hist_hit hit;
	int32_t pid;

	if (!ev)
		return;
	if (behind(c, rec)) {
		c->skipped++;
		/* keep the writers' queue in step with the records */
		if (c->mq_len && rec->type == c->print_id && rec->len >= COMMON_PID_OFF + 4) {
			memcpy(&pid, (const uint8_t *)rec->data + COMMON_PID_OFF, 4);
			if (pid == c->mq[c->mq_head].tid) {
				c->mq_head = (c->mq_head + 1) % (sizeof(c->mq) / sizeof(c->mq[0]));
				c->mq_len--;
			}
		}
		return;
	}
	/* a marker line histfs wrote for a writer: the writer's record
	 * (writes are serialised, so records come in the queue's order) */
	if (c->mq_len && rec->type == c->print_id && rec->len <= sizeof(copy) &&
	    rec->len >= COMMON_PID_OFF + 4) {
		memcpy(&pid, (const uint8_t *)rec->data + COMMON_PID_OFF, 4);
		if (pid == c->mq[c->mq_head].tid) {
			memcpy(copy, rec->data, rec->len);
			memcpy(copy + COMMON_PID_OFF, &c->mq[c->mq_head].pid, 4);
			if (c->mq[c->mq_head].strip_nl) {
				/* the text ends at the first NUL after buf
				 * (offset 16: ip precedes it); drop its '\n' */
				uint8_t *nul = memchr(copy + 16, 0, rec->len > 16 ? rec->len - 16 : 0);

				if (nul && nul > copy + 16 && nul[-1] == '\n')
					nul[-1] = 0;
			}
			c->mq_head = (c->mq_head + 1) % (sizeof(c->mq) / sizeof(c->mq[0]));
			c->mq_len--;
			data = copy;
		}
	}
	memset(&hit, 0, sizeof(hit));
	hit.ts = rec->ts;
	hit.cpu = rec->cpu;
	hit.pid = -1;
	hist_event_hit(ev, data, rec->len, &hit);
}

static void feed(void *arg, const struct hist_ftrace_record *rec)
{
	struct hfs_ctx *c = arg;
	struct live_comms *names = host_comms(c->host);

	feed_one(c, rec);
	/* a name change applies to the records after it, also when this
	 * one was skipped (a trigger on the event got it first, under the
	 * old name, as the kernel's) */
	if (comms_type(names, rec->type))
		comms_record(names, rec);
}

/*
 * histfs's threads are kept out of every instance's recording, as
 * hist-live keeps itself: a drain's reads of the buffers are system
 * calls that it would then read back, and so on.  With a trigger on
 * raw_syscalls/sys_enter keyed by common_pid.execname, histfs's drain
 * thread came first (154,312 hits, four times dd's 38,627: records
 * that filled the buffer beside the workload's); a FUSE thread that
 * drained for a hist read still had 17,031.
 *
 * The kernel matches these pids per thread.  Every thread of the
 * process is listed when the instance is made; options/event-fork then
 * has the kernel list the threads that listed ones start and drop
 * those that exit (so no tid of ours, reused by another program after
 * we are done with it, hides that program).  A thread that is not
 * listed yet when it first drains (one started by a thread we did not
 * start) is added then.
 *
 * The list is only ever added to.  A write with O_TRUNC empties it
 * first, and the kernel then registers its pid filter anew: on this
 * machine's 6.18 kernel, the records of other tasks on the writer's
 * CPU were dropped for a while after each such write (1 to 3 of 200
 * exits of short processes with one rewrite every 0.5 ms, 0 of 800 with
 * adding writes), and histfs, which rewrote the list whenever a FUSE
 * worker first drained, lost a chain's first exit in 1 test run of 2.
 */
static int listed(const char *list, long tid)
{
	char *end;

	while (list && *list) {
		if (strtol(list, &end, 10) == tid)
			return 1;
		if (end == list)
			return 0;
		list = end + strspn(end, " \n");
	}
	return 0;
}

static void list_threads(struct hfs_ctx *c)
{
	char add[512], *have;
	struct dirent *d;
	size_t n = 0;
	DIR *dir;

	if (!c->tfs.instance)
		return;
	have = tfs_read(&c->tfs, "set_event_notrace_pid", 1, NULL);
	dir = opendir("/proc/self/task");
	while (dir && (d = readdir(dir))) {
		long tid = strtol(d->d_name, NULL, 10);

		if (tid <= 0 || listed(have, tid))
			continue;
		if (n + 24 >= sizeof(add)) {
			tfs_append(&c->tfs, "set_event_notrace_pid", add);
			n = 0;
		}
		n += (size_t)snprintf(add + n, sizeof(add) - n, "%ld ", tid);
	}
	if (dir)
		closedir(dir);
	free(have);
	if (n)
		tfs_append(&c->tfs, "set_event_notrace_pid", add);
}

/* The first drain of each thread: see that it is listed everywhere. */
static void note_self(void)
{
	static _Thread_local int noted;
	struct hfs_ctx *c;

	if (noted)
		return;
	noted = 1;
	for (c = hfs.ctxs; c; c = c->next)
		list_threads(c);
}

/*
 * Whether a drain reads no more of CPU now (ring_set_stop()).  A drain
 * owes its reader what was recorded before it began: on a CPU past the
 * drain's marker (PAST_SYNC) nothing more is, and where the marker was
 * overwritten by a flood, nothing past two buffers' worth of pages
 * either (a buffer holds at most one).  Reading on would only copy
 * records, under hfs.lock, that wait in memory for the next drain: that
 * was what kept trigger writes waiting seconds in the soak (bench/README)
 * and made histfs's resident memory grow by about 200 MB.  The drain
 * thread also stops as soon as a user waits for the lock; what it leaves
 * unread stays in the kernel's buffer (overwritten, it is counted lost).
 */
static int stop_reading(void *arg, uint32_t cpu, int past_sync)
{
	struct hfs_ctx *c = arg;

	if (past_sync)
		return 1;
	if (c->background && atomic_load_explicit(&hfs.waiting, memory_order_relaxed))
		return 1;
	return cpu < c->nr_cpu_bytes && ++c->cpu_pages[cpu] > 2 * c->buf_pages;
}

static void drain(struct hfs_ctx *c, int background)
{
	if (!c || !c->ring)
		return;
	note_self();
	c->cmdlines_stale = 1;	/* reread once this drain needs it */
	c->background = background;
	c->bounded = !background;
	c->late = 0;
	c->checks = 0;
	c->bound_start = mono_ns(NULL);
	memset(c->cpu_bytes, 0, c->nr_cpu_bytes * sizeof(*c->cpu_bytes));
	memset(c->cpu_pages, 0, c->nr_cpu_bytes * sizeof(*c->cpu_pages));
	ring_drain(c->ring, 0, feed, c);
	comms_drained(host_comms(c->host), ring_lost(c->ring));
	/* no hit is in flight outside hfs.lock: free what removed triggers
	 * left (histfs gives libhist no synchronize callback) */
	hist_ctx_reclaim(c->ctx);
}

void hctx_drain(struct hfs_ctx *c)
{
	drain(c, 0);
}

void hctx_drain_background(struct hfs_ctx *c)
{
	drain(c, 1);
}

static void ctx_free(struct hfs_ctx *c)
{
	size_t i;

	if (!c)
		return;
	ring_close(c->ring);
	tfs_close(&c->tfs);
	hist_ctx_destroy(c->ctx);
	host_free(c->host);
	for (i = 0; i < c->nr_enabled; i++)
		free(c->enabled[i]);
	free(c->enabled);
	for (i = 0; i < c->nr_known; i++)
		free(c->known[i]);
	free(c->known);
	free(c->cmdlines);
	free(c->cpu_bytes);
	free(c->cpu_pages);
	free(c->name);
	free(c);
}

/* Our private instance: like tfs_open() of hist-live, but named for
 * histfs and numbered, one per user-visible instance. */
static int make_instance(struct hfs_ctx *c)
{
	struct live_tfs *t = &c->tfs;

	memset(t, 0, sizeof(*t));
	snprintf(t->root, sizeof(t->root), "%s", hfs.root);
	if (c->name ? live_fmt(t->inst, sizeof(t->inst), "%s/instances/" HFS_PROG ".%d.%u",
			       hfs.root, (int)getpid(), ++hfs.next_inst)
		    : live_fmt(t->inst, sizeof(t->inst), "%s/instances/" HFS_PROG ".%d",
			       hfs.root, (int)getpid()))
		return -ENAMETOOLONG;
	if (mkdir(t->inst, 0750))
		return -errno;
	t->instance = 1;
	/* the hist triggers' default clock, set before anything is recorded */
	tfs_write(t, "trace_clock", "global", 0);
	if (!c->name)	/* top-level trace_marker writes reach us too */
		tfs_write(t, "options/copy_trace_marker", "1", 0);
	/* listed before any event is on: no record of ours is made;
	 * event-fork keeps the list current from there */
	list_threads(c);
	tfs_write(t, "options/event-fork", "1", 0);
	return 0;
}

struct hfs_ctx *hctx_get(const char *name, int create, int *err)
{
	struct hfs_ctx *c;
	struct hist_host host;
	struct hist_ctx_opts opts;
	char msg[512];
	int ret;

	for (c = hfs.ctxs; c; c = c->next)
		if ((!name && !c->name) || (name && c->name && !strcmp(name, c->name)))
			return c;
	if (!create) {
		*err = -ENOENT;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || (name && !(c->name = strdup(name)))) {
		free(c);
		*err = -ENOMEM;
		return NULL;
	}
	ret = make_instance(c);
	if (ret) {
		fprintf(stderr, HFS_PROG ": cannot create a trace instance: %s\n",
			strerror(-ret));
		goto fail;
	}
	c->ring = ring_open(&c->tfs, msg, sizeof(msg));
	if (!c->ring) {
		fprintf(stderr, HFS_PROG ": %s\n", msg);
		ret = -EIO;
		goto fail;
	}
	ring_set_stop(c->ring, stop_reading, c);
	c->host = host_create(&c->tfs);
	if (!c->host) {
		ret = -ENOMEM;
		goto fail;
	}
	host_fill(c->host, &c->orig);
	host = c->orig;
	host.data = c;
	host.find_event = find_event;
	host.comm = comm_cb;
	host.sym = sym_cb;
	host.syscall_name = syscall_cb;
	host.set_clock = set_clock_cb;
	host.clock = mono_ns;
	memset(&opts, 0, sizeof(opts));
	opts.nr_cpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	{
		/* one CPU's buffer: "1408" or "7 (expanded: 1408)" */
		char *kb = tfs_read(&c->tfs, "buffer_size_kb", 0, NULL);
		const char *e = kb ? strstr(kb, "expanded:") : NULL;
		unsigned long v = kb ? strtoul(e ? e + 9 : kb, NULL, 10) : 0;

		free(kb);
		c->buf_bytes = (v ? v : 1408) * 1024ull;
		c->nr_cpu_bytes = opts.nr_cpus;
		c->cpu_bytes = calloc(opts.nr_cpus ? opts.nr_cpus : 1, sizeof(*c->cpu_bytes));
		c->cpu_pages = calloc(opts.nr_cpus ? opts.nr_cpus : 1, sizeof(*c->cpu_pages));
		c->buf_pages = (uint32_t)(c->buf_bytes / 4096);
		if (!c->cpu_bytes || !c->cpu_pages) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	opts.kernel = hfs.kernel;
	c->ctx = hist_ctx_create(&host, &opts, &ret);
	if (!c->ctx)
		goto fail;
	/* task names as at each record (comms.c): recording on, the
	 * tracking events on, the seed, and only then any trigger's event
	 * (hctx_rebind()); without them, names come as comm_cb() says */
	tfs_write(&c->tfs, "tracing_on", "1", 0);
	ret = comms_start(host_comms(c->host), &c->tfs, 0);
	if (ret)
		fprintf(stderr, HFS_PROG ": cannot record task name changes (%s); names "
			"are read from saved_cmdlines and /proc when the records are\n",
			strerror(-ret));
	{
		char *id = tfs_read(&c->tfs, "events/ftrace/print/id", 0, NULL);

		c->print_id = id ? (uint32_t)strtoul(id, NULL, 10) : UINT32_MAX;
		free(id);
	}
	c->next = hfs.ctxs;
	hfs.ctxs = c;
	return c;
fail:
	ctx_free(c);
	*err = ret < 0 ? ret : -EIO;
	return NULL;
}

void hctx_drop(const char *name)
{
	struct hfs_ctx **pp, *c;

	for (pp = &hfs.ctxs; (c = *pp); pp = &c->next) {
		if ((!name && !c->name) || (name && c->name && !strcmp(name, c->name))) {
			*pp = c->next;
			ctx_free(c);
			return;
		}
	}
}

void hctx_drop_all(void)
{
	while (hfs.ctxs) {
		struct hfs_ctx *c = hfs.ctxs;

		hfs.ctxs = c->next;
		ctx_free(c);
	}
}

hist_event *hctx_known_event(struct hfs_ctx *c, const char *sys, const char *name)
{
	size_t i, n = strlen(sys);

	if (!c)
		return NULL;
	if (!strcmp(sys, "synthetic"))
		return hist_event_lookup(c->ctx, sys, name);
	/* only events libhist has read the format of: reading every trigger
	 * file must not make libhist parse every format */
	for (i = 0; i < c->nr_known; i++)
		if (!strncmp(c->known[i], sys, n) && c->known[i][n] == '/' &&
		    !strcmp(c->known[i] + n + 1, name))
			return hist_event_lookup(c->ctx, sys, name);
	return NULL;
}

static int is_enabled(struct hfs_ctx *c, const char *key, size_t *at)
{
	size_t i;

	for (i = 0; i < c->nr_enabled; i++)
		if (!strcmp(c->enabled[i], key)) {
			*at = i;
			return 1;
		}
	return 0;
}

/*
 * The kernel's event filter for KEY ("SYS/EVENT") in our instance: the
 * disjunction of the filters of its triggers (as hist-live gives them),
 * so that the kernel records nothing no trigger could count, or NULL
 * when one trigger has none (it wants every record).  Not for ftrace:
 * a trace_marker record of ours carries histfs's pid until feed() gives
 * it the writer's, and a filter would judge the wrong one.
 */
static char *kernel_filter(struct hfs_ctx *c, const char *key)
{
	char sys[256], *name, *line, *save = NULL, *s = NULL;
	struct hfs_buf b = { 0 };
	size_t n = 0, len;
	hist_event *ev;

	snprintf(sys, sizeof(sys), "%s", key);
	name = strchr(sys, '/');
	if (!name || !strcmp(sys, "ftrace") || !strncmp(key, "ftrace/", 7))
		return NULL;
	*name++ = 0;
	ev = hist_event_lookup(c->ctx, sys, name);
	if (!ev || hist_event_print_triggers(ev, hfs_buf_write, &b) || !b.p || b.p[0] == '#') {
		hfs_buf_free(&b);
		return NULL;
	}
	for (line = strtok_r(b.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *f = tfs_cmd_filter(line, &len);

		if (!f)
			goto none;
		len = strlen(f);
		if (!strncmp(line, "hist", 4) && len > 9 &&
		    (!strcmp(f + len - 9, " [active]") || !strcmp(f + len - 9, " [paused]")))
			len -= 9;
		if (!len || tfs_filter_or(&s, &n, f, len))
			goto none;
	}
	hfs_buf_free(&b);
	return s;
none:
	free(s);
	hfs_buf_free(&b);
	return NULL;
}

/* Is KEY ("SYS/EVENT") one of the tracker's events (comms.c)? */
static int is_tracking(struct hfs_ctx *c, const char *key)
{
	char sys[256], *name;

	snprintf(sys, sizeof(sys), "%s", key);
	name = strchr(sys, '/');
	if (!name)
		return 0;
	*name++ = 0;
	return comms_event(host_comms(c->host), sys, name);
}

/* Give the kernel KEY's filter (or none); a filter it refuses leaves
 * none, not the old one, which could drop records a trigger now wants. */
static void set_kernel_filter(struct hfs_ctx *c, const char *key)
{
	char rel[600], *f;

	if (!strncmp(key, "ftrace/", 7))
		return;
	snprintf(rel, sizeof(rel), "events/%s/filter", key);
	/* the tracker needs every record of its events */
	if (is_tracking(c, key)) {
		tfs_write(&c->tfs, rel, "0", 0);
		return;
	}
	f = kernel_filter(c, key);
	if (!f || tfs_write(&c->tfs, rel, f, 0))
		tfs_write(&c->tfs, rel, "0", 0);
	free(f);
}

int hctx_rebind(struct hfs_ctx *c)
{
	size_t i, j, n, at;
	char **want;
	char rel[600];
	int ret = 0;

	/* feed what was recorded under the old triggers first */
	hctx_drain(c);
	n = host_bind(c->host, c->ctx);
	want = calloc(n + 1, sizeof(*want));
	if (!want)
		return -ENOMEM;
	for (i = j = 0; i < n; i++) {
		const char *sys, *name;

		host_bound(c->host, i, &sys, &name);
		if (!strcmp(sys, "synthetic"))
			continue;	/* generated by libhist itself */
		if (asprintf(&want[j], "%s/%s", sys, name) < 0) {
			ret = -ENOMEM;
			break;
		}
		j++;
	}
	n = j;
	/* disable what is no longer wanted */
	for (i = 0; i < c->nr_enabled;) {
		for (j = 0; j < n && strcmp(want[j], c->enabled[i]); j++)
			;
		if (j < n) {
			i++;
			continue;
		}
		snprintf(rel, sizeof(rel), "events/%s/enable", c->enabled[i]);
		/* the tracker's events stay on when their triggers go */
		if (!is_tracking(c, c->enabled[i]))
			tfs_write(&c->tfs, rel, "0", 0);
		if (strncmp(c->enabled[i], "ftrace/", 7)) {
			snprintf(rel, sizeof(rel), "events/%s/filter", c->enabled[i]);
			tfs_write(&c->tfs, rel, "0", 0);
		}
		free(c->enabled[i]);
		c->enabled[i] = c->enabled[--c->nr_enabled];
	}
	for (j = 0; j < n; j++) {
		char **v;
		int r;

		/* before the enable: no record the filter would drop */
		set_kernel_filter(c, want[j]);
		if (is_enabled(c, want[j], &at))
			continue;
		snprintf(rel, sizeof(rel), "events/%s/enable", want[j]);
		r = tfs_write(&c->tfs, rel, "1", 0);
		/* ftrace/print and the other ftrace events have no enable:
		 * they are always recorded */
		if (r == -ENOENT && !strncmp(want[j], "ftrace/", 7))
			r = 0;
		if (r) {
			fprintf(stderr, HFS_PROG ": %s: %s\n", rel, strerror(-r));
			ret = r;
			continue;
		}
		v = realloc(c->enabled, (c->nr_enabled + 1) * sizeof(*v));
		if (!v) {
			ret = -ENOMEM;
			break;
		}
		c->enabled = v;
		c->enabled[c->nr_enabled++] = want[j];
		want[j] = NULL;
	}
	for (j = 0; j < n; j++)
		free(want[j]);
	free(want);
	hist_ctx_reclaim(c->ctx);	/* as after a drain */
	return ret;
}

char **hctx_synth_names(struct hfs_ctx *c)
{
	struct hfs_buf b = { 0 };
	char **v = NULL, *line, *save = NULL;
	size_t n = 0;

	if (c && hist_synth_print(c->ctx, 0, hfs_buf_write, &b) == 0 && b.p) {
		for (line = strtok_r(b.p, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			size_t k = strcspn(line, " \t");
			char **nv = realloc(v, (n + 2) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
			v[n] = strndup(line, k);
			if (v[n])
				n++;
			v[n] = NULL;
		}
	}
	hfs_buf_free(&b);
	if (!v)
		v = calloc(1, sizeof(*v));
	return v;
}

void hctx_free_names(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* ---- error_log ------------------------------------------------------ */

struct errent {
	double ts;
	const char *p;
	size_t len;
	int seq;
};

/* Split TEXT into entries: each starts with a "[ seconds]" line. */
static size_t split_entries(const char *text, size_t len, struct errent *v,
			    size_t max, int *seq)
{
	size_t n = 0, i = 0;

	while (i < len) {
		const char *s = text + i;
		const char *e = s;

		/* an entry: its first line and the lines up to the next '[' */
		do {
			const char *nl = memchr(e, '\n', (size_t)(text + len - e));

			e = nl ? nl + 1 : text + len;
		} while (e < text + len && *e != '[');
		if (*s == '[' && n < max) {
			v[n].ts = strtod(s + 1, NULL);
			v[n].p = s;
			v[n].len = (size_t)(e - s);
			v[n].seq = (*seq)++;
			n++;
		}
		i = (size_t)(e - text);
	}
	return n;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct errent *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq - y->seq;
}

#define ERRLOG_MAX 8	/* the kernel's entries per trace instance */

int hctx_error_log(struct hfs_ctx *c, const char *ktext, int top, struct hfs_buf *out)
{
	struct hfs_buf lib = { 0 };
	struct errent v[6 * ERRLOG_MAX];
	size_t n, i;
	int seq = 0, ret = 0;

	if (c)
		ret = hist_ctx_print_error_log(c->ctx, hfs_buf_write, &lib);
	n = split_entries(ktext, strlen(ktext), v, 2 * ERRLOG_MAX, &seq);
	if (lib.p)
		n += split_entries(lib.p, lib.len, v + n, 2 * ERRLOG_MAX, &seq);
	for (i = 0; top && i < hfs.nr_synth_errs; i++)
		n += split_entries(hfs.synth_errs[i], strlen(hfs.synth_errs[i]), v + n, 1, &seq);
	qsort(v, n, sizeof(*v), cmp_ent);
	for (i = n > ERRLOG_MAX ? n - ERRLOG_MAX : 0; i < n && !ret; i++)
		ret = hfs_buf_write(out, v[i].p, v[i].len);
	hfs_buf_free(&lib);
	return ret;
}

/* ---- the hist files' ERROR lines of Linux 4.17 to 5.1 ---------------- */

/*
 * Before error_log (5.2), a failed hist command left one error text that
 * every event's hist file printed at its end, with the command's text
 * after "hist:"; the next hist command cleared it, and so did success.
 * libhist logs the message of a newer kernel: that is the text shown.
 */
int hctx_old_errors(void)
{
	return hfs.kernel != HIST_KERNEL_LATEST && hfs.kernel < HIST_KERNEL(5, 2) &&
	       hfs.kernel >= HIST_KERNEL(4, 17);
}

void hctx_old_err_start(const char *cmd)
{
	const char *colon;

	if (!hctx_old_errors())
		return;
	free(hfs.old_err);
	free(hfs.old_cmd);
	hfs.old_err = NULL;
	colon = strchr(cmd, ':');
	hfs.old_cmd = strdup(colon ? colon + 1 : "");
}

void hctx_old_err_end(int ret, const struct hist_error *err)
{
	if (!hctx_old_errors() || !ret || err->msg < 0)
		return;
	hfs.old_err = strdup(hist_error_text(err->msg));
}

int hctx_old_err_print(struct hfs_buf *out)
{
	if (!hctx_old_errors() || !hfs.old_err)
		return 0;
	return hfs_buf_printf(out, "\nERROR: %s\n  Last command: %s\n", hfs.old_err,
			      hfs.old_cmd ? hfs.old_cmd : "");
}

/* ---- synthetic event definitions of Linux 5.10 and 5.11 ---------------- */

int hctx_old_synth(const char *cmd)
{
	static const char *const msgs[] = { "", HFS_OLD_SYNTH_ERRORS };
	const unsigned max = sizeof(hfs.synth_errs) / sizeof(hfs.synth_errs[0]);
	char echo[256], *e;
	unsigned pos;
	uint64_t usec;
	int ret;

	if (hfs.kernel == HIST_KERNEL_LATEST || hfs.kernel < HIST_KERNEL(5, 10) ||
	    hfs.kernel >= HIST_KERNEL(5, 12))
		return 0;
	ret = hfs_synth_check_5_10(cmd, echo, sizeof(echo), &pos);
	if (ret <= 0)
		return ret;
	/* the kernel's entry: "[time] loc: error: text", the command, a
	 * caret under POS (11 blanks: "  Command: ") */
	usec = mono_ns(NULL) / 1000;
	if (asprintf(&e, "[%5llu.%06llu] synthetic_events: error: %s\n  Command: %s\n%*s^\n",
		     (unsigned long long)(usec / 1000000), (unsigned long long)(usec % 1000000),
		     msgs[ret], echo, (int)(11 + pos), "") < 0)
		return -EINVAL;
	if (hfs.nr_synth_errs == max) {
		free(hfs.synth_errs[0]);
		memmove(hfs.synth_errs, hfs.synth_errs + 1, (max - 1) * sizeof(hfs.synth_errs[0]));
		hfs.nr_synth_errs--;
	}
	hfs.synth_errs[hfs.nr_synth_errs++] = e;
	return -EINVAL;
}

void hctx_old_synth_clear(void)
{
	while (hfs.nr_synth_errs)
		free(hfs.synth_errs[--hfs.nr_synth_errs]);
}

/* ---- README ----------------------------------------------------------- */

/*
 * What a kernel with hist triggers adds to README, in histfs's own words:
 * tools look for the syntax lines (libtracefs, the selftests' requires:
 * lines), so each feature libhist implements is named by its syntax.
 * Left out on purpose: the stack-trace synthetic field (a synthetic event
 * histfs generates never reaches the kernel's `trace` buffer, where the
 * tools look for it).
 */
static const char readme_hist[] =
	"  synthetic_events\t- Define synthetic events made of fields of other events\n"
	"\t  Format: <name> <field>[; <field>] ...\n"
	"\t  A field: <type> <name>, as in a C struct; char arrays and\n"
	"\t  dynamic strings: 'char name[N]', or 'char name[]' >> synthetic_events\n"
	"\t  Remove one with '!<name>', all with a truncating write.\n"
	"\t  (histfs: the events live in libhist; their records feed hist\n"
	"\t  triggers, they do not reach the kernel's trace buffer)\n"
	"  dynamic_events\t- also takes synthetic events:\n"
	"\t  s:[synthetic/]<event> <field>[;<field>] ...\n"
	"\t  -:[synthetic/]<event>\n"
	"      hist trigger\t- events/<system>/<event>/trigger accepts:\n"
	"\t    Format: hist:keys=<field1[,field2,...]>\n"
	"\t            [:<var1>=<field|var_ref|numeric_literal>[,<var2>=...]]\n"
	"\t            [:values=<field1[,field2,...]>]\n"
	"\t            [:sort=<field1[,field2,...]>]\n"
	"\t            [:size=#entries]\n"
	"\t            [:pause][:continue][:clear]\n"
	"\t            [:name=histname1]\n"
	"\t            [:nohitcount]\n"
	"\t            [:<handler>.<action>]\n"
	"\t            [if <filter>]\n"
	"\t    Values and variables may be expressions: + - * / of fields,\n"
	"\t    variables ($name) and numbers.\n"
	"\t    The hist file of the event shows the histogram; 'cat' first\n"
	"\t    reads what the kernel has recorded.\n"
	"\t    Key and value modifiers (.name):\n"
	"\t      .hex .sym .sym-offset .execname .syscall .log2 .usecs\n"
	"\t      .buckets=<size> .percent .graph .stacktrace\n"
	"\t    Special fields: common_timestamp, common_cpu, common_comm,\n"
	"\t    common_stacktrace\n"
	"\t    Commands on an existing hist (same keys): :pause :cont :clear;\n"
	"\t    '!hist:...' removes it; a truncating write removes all.\n"
	"\t    enable_hist:<system>:<event> and disable_hist:<system>:<event>\n"
	"\t    pause or continue the hists of another event.\n"
	"\t    Handlers (inter-event):\n"
	"\t      onmatch(<system>.<event>)\t- when the same key was seen there\n"
	"\t      onmax(var)\t\t\t- when var exceeds its maximum\n"
	"\t      onchange(var)\t\t- when var changes\n"
	"\t    Actions:\n"
	"\t      trace(<synthetic_event>,param list)\t- generate a synthetic event\n"
	"\t      <synthetic_event>(param list)\t\t- the same, older form\n"
	"\t      save(field,...)\t\t\t\t- keep fields of the max/change\n"
	"\t      snapshot()\t\t\t\t- keep the hist's max/change entry\n";

const char *hctx_readme_hist(void)
{
	return readme_hist;
}
