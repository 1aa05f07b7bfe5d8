/* SPDX-License-Identifier: MIT */
/*
 * The kernel's per-CPU ring buffers, read through
 * per_cpu/cpuN/trace_pipe_raw: each read returns one sub-buffer (page) of
 * binary records, including a partly filled one, and consumes it.
 *
 * Waiting: the descriptors are non-blocking and pollable (ring_pollfds());
 * the kernel wakes a poller of trace_pipe_raw once the CPU's buffer is
 * buffer_percent full (0: as soon as it holds anything), so an idle or
 * quiet system costs the reader nothing between the caller's timers.
 *
 * Order: inter-event triggers need the events of all CPUs in time order
 * (a wakeup on CPU 0 before the switch on CPU 1 it caused).  A drain reads
 * the CPUs one after the other, so a CPU read early may still receive
 * events older than the newest ones of a CPU read late.  In ordered mode
 * each drain therefore first writes a line to the instance's
 * trace_marker: its record's time stamp T is "now" in the trace clock,
 * and every event stamped before T was in its buffer when the CPUs were
 * read.  Records up to T are merged by time stamp and fed; newer ones
 * wait, copied, for the next drain.  The last drain (tracing off) feeds
 * everything.  Unordered mode (plain histograms: counting commutes) feeds
 * each page as it is read, without copies or markers.
 *
 * Stacks: with ring_set_stack_type(), the ftrace:kernel_stack record that
 * options/stacktrace writes right after an event on the same CPU is
 * attached to that event (ring_stack() while it is being fed).
 *
 * Losses: the kernel counts, per CPU, the events it overwrote (overrun),
 * overwrote mid-commit (commit overrun) and refused (dropped events) in
 * per_cpu/cpuN/stats.  Those counters are read at open (the baseline) and
 * after every drain; their growth is what this reader lost, exactly.  The
 * pages' "missed events" flags are the fallback where stats is unreadable.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"

/* pages read per CPU per drain: bounds the memory of one drain */
#define DRAIN_PAGES 256
/* kernel_stack: "int size" entries, then "unsigned long caller[]";
 * the first two frames are the tracing machinery (trace_event_raw_event_*
 * and the tracepoint's caller), which a hist stack key does not show
 * (the same skip as hist-replay's, examples/hist-replay/comm.c) */
#define STACK_SIZE_OFF 8
#define STACK_CALLER_OFF 16
#define STACK_SKIP 2
#define STACK_MAX 64

/* A record waiting for its turn: its bytes are in the CPU's data. */
struct pend {
	uint64_t ts;
	uint32_t off, len;
	uint32_t stack_off, nr_stack;	/* frames (8 bytes each) in data */
	uint16_t type;
};

struct cpu_buf {
	int fd;
	uint32_t cpu;
	struct pend *v;		/* waiting records, oldest first */
	size_t head, n, cap;
	uint8_t *data;
	size_t data_len, data_cap;
	struct ring_loss loss;
	struct ring_loss base;	/* stats at open */
	int have_stats;
	int stats_fd;		/* per_cpu/cpuN/stats, read at offset 0 */
	uint64_t drain_read;	/* records read since the last stats look */
	uint64_t last_ts;	/* of the newest record read */
};

struct live_ring {
	struct hist_ftrace_page_fmt fmt;
	char per_cpu[PATH_MAX];
	uint8_t *page;		/* one read */
	struct cpu_buf *cpus;
	uint32_t nr_cpus;
	int ordered;
	int marker_fd;		/* trace_marker, or -1 */
	uint32_t print_id;	/* ftrace:print, the marker's record type */
	int stack_type;		/* ftrace:kernel_stack, or -1 */
	char token[64];		/* our marker text */
	uint64_t records;
	double burst;		/* worst (read + lost) / read of one drain */
	uint64_t cur_stack[STACK_MAX];	/* the stack of the record being fed */
	uint32_t nr_cur_stack;
	/* ring_set_stop(): asked before each page of a non-final drain */
	int (*stop)(void *arg, uint32_t cpu, int past_sync);
	void *stop_arg;
	uint64_t drains;	/* numbers each drain's marker */
	uint64_t cur_sync;	/* this drain's marker's time stamp, 0: unseen */
};

static int big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

/* The sub-buffer layout: header_page, and the instance's sub-buffer size
 * where the kernel lets it be changed. */
static int page_fmt(struct live_tfs *t, struct hist_ftrace_page_fmt *fmt,
		    char *err, size_t errlen)
{
	char msg[256];
	size_t len;
	char *text = tfs_read(t, "events/header_page", 0, &len);
	int ret;

	if (!text) {
		snprintf(err, errlen, "events/header_page: %s", strerror(errno));
		return -1;
	}
	ret = hist_ftrace_parse_header_page(text, len, fmt, msg, sizeof(msg));
	free(text);
	if (ret) {
		snprintf(err, errlen, "events/header_page: %s", msg);
		return -1;
	}
	fmt->big_endian = big_endian();
	text = tfs_read(t, "buffer_subbuf_size_kb", 1, NULL);
	if (text) {
		unsigned long kb = strtoul(text, NULL, 10);

		if (kb && kb * 1024 > fmt->data_offset)
			fmt->page_size = (uint32_t)(kb * 1024);
		free(text);
	}
	return 0;
}

/* The marker: trace_marker of the instance and the ftrace:print ID. */
static void open_marker(struct live_ring *r, struct live_tfs *t)
{
	char p[PATH_MAX];
	char *id = tfs_read(t, "events/ftrace/print/id", 0, NULL);

	r->marker_fd = -1;
	if (!id)
		return;
	r->print_id = (uint32_t)strtoul(id, NULL, 10);
	free(id);
	snprintf(r->token, sizeof(r->token), PROG ".%d sync", (int)getpid());
	r->marker_fd = open(tfs_path(t, "trace_marker", p, sizeof(p)),
			    O_WRONLY | O_CLOEXEC);
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct cpu_buf *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* "overrun: N" and friends of C's per_cpu/cpuN/stats; 0 or -1.  The
 * file stays open: the kernel writes the text anew for each read at
 * offset 0, and a drain reads it for every CPU (an open and close each
 * time was half of its cost). */
static int read_stats(const struct cpu_buf *c, struct ring_loss *out)
{
	char buf[1024];
	const char *s;
	ssize_t k;

	if (c->stats_fd < 0)
		return -1;
	k = pread(c->stats_fd, buf, sizeof(buf) - 1, 0);
	if (k <= 0)
		return -1;
	buf[k] = 0;
	if (!(s = strstr(buf, "\noverrun: ")) && strncmp(buf, "overrun: ", 9))
		return -1;
	s = s ? s + 10 : buf + 9;
	out->overrun = strtoull(s, NULL, 10);
	s = strstr(buf, "commit overrun: ");
	out->commit_overrun = s ? strtoull(s + 16, NULL, 10) : 0;
	s = strstr(buf, "dropped events: ");
	out->dropped = s ? strtoull(s + 16, NULL, 10) : 0;
	return 0;
}

struct live_ring *ring_open(struct live_tfs *t, char *err, size_t errlen)
{
	struct live_ring *r = calloc(1, sizeof(*r));
	struct dirent *d;
	DIR *dp;
	uint32_t i;

	if (!r)
		goto nomem;
	r->marker_fd = -1;
	r->stack_type = -1;
	r->ordered = 1;
	r->burst = 1;
	if (page_fmt(t, &r->fmt, err, errlen))
		goto fail;
	r->page = malloc(r->fmt.page_size);
	if (!r->page)
		goto nomem;
	tfs_path(t, "per_cpu", r->per_cpu, sizeof(r->per_cpu));
	dp = opendir(r->per_cpu);
	if (!dp) {
		snprintf(err, errlen, "%s: %s", r->per_cpu, strerror(errno));
		goto fail;
	}
	while ((d = readdir(dp))) {
		char p[PATH_MAX];
		struct cpu_buf *v;
		unsigned cpu;
		int fd;

		if (sscanf(d->d_name, "cpu%u", &cpu) != 1 ||
		    live_fmt(p, sizeof(p), "%s/%s/trace_pipe_raw", r->per_cpu,
			     d->d_name))
			continue;
		fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;	/* an offline CPU */
		v = realloc(r->cpus, (r->nr_cpus + 1) * sizeof(*v));
		if (!v) {
			close(fd);
			closedir(dp);
			goto nomem;
		}
		r->cpus = v;
		memset(&v[r->nr_cpus], 0, sizeof(*v));
		v[r->nr_cpus].fd = fd;
		v[r->nr_cpus].stats_fd = -1;
		v[r->nr_cpus].cpu = cpu;
		r->nr_cpus++;
	}
	closedir(dp);
	if (!r->nr_cpus) {
		snprintf(err, errlen, "%s: no readable cpu*/trace_pipe_raw",
			 r->per_cpu);
		goto fail;
	}
	qsort(r->cpus, r->nr_cpus, sizeof(*r->cpus), cmp_cpu);
	for (i = 0; i < r->nr_cpus; i++) {
		struct cpu_buf *c = &r->cpus[i];

		char p[PATH_MAX];

		c->loss.cpu = c->base.cpu = c->cpu;
		c->stats_fd = live_fmt(p, sizeof(p), "%s/cpu%u/stats", r->per_cpu, c->cpu)
				      ? -1
				      : open(p, O_RDONLY | O_CLOEXEC);
		c->have_stats = !read_stats(c, &c->base);
	}
	open_marker(r, t);
	return r;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	ring_close(r);
	return NULL;
}

void ring_close(struct live_ring *r)
{
	uint32_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_cpus; i++) {
		close(r->cpus[i].fd);
		if (r->cpus[i].stats_fd >= 0)
			close(r->cpus[i].stats_fd);
		free(r->cpus[i].v);
		free(r->cpus[i].data);
	}
	if (r->marker_fd >= 0)
		close(r->marker_fd);
	free(r->cpus);
	free(r->page);
	free(r);
}

void ring_set_ordered(struct live_ring *r, int ordered)
{
	r->ordered = ordered;
}

void ring_set_stop(struct live_ring *r, int (*stop)(void *arg, uint32_t cpu, int past_sync),
		   void *arg)
{
	r->stop = stop;
	r->stop_arg = arg;
}

void ring_set_stack_type(struct live_ring *r, int type)
{
	r->stack_type = type;
	if (type >= 0)
		r->ordered = 1;	/* stacks are attached while queueing */
}

const uint64_t *ring_stack(const struct live_ring *r, uint32_t *nr)
{
	*nr = r->nr_cur_stack;
	return r->nr_cur_stack ? r->cur_stack : NULL;
}

size_t ring_pollfds(const struct live_ring *r, struct pollfd *fds, size_t max)
{
	size_t i;

	for (i = 0; i < r->nr_cpus && i < max; i++) {
		fds[i].fd = r->cpus[i].fd;
		fds[i].events = POLLIN;
		fds[i].revents = 0;
	}
	return i;
}

static int reserve(struct cpu_buf *c, size_t bytes)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		struct pend *p = realloc(c->v, cap * sizeof(*p));

		if (!p)
			return -1;
		c->v = p;
		c->cap = cap;
	}
	if (c->data_len + bytes > c->data_cap) {
		size_t cap = c->data_cap ? 2 * c->data_cap : 65536;
		uint8_t *d;

		while (cap < c->data_len + bytes)
			cap *= 2;
		d = realloc(c->data, cap);
		if (!d)
			return -1;
		c->data = d;
		c->data_cap = cap;
	}
	return 0;
}

static int queue(struct cpu_buf *c, const struct hist_ftrace_record *rec)
{
	struct pend *p;

	if (reserve(c, rec->len))
		return -1;
	p = &c->v[c->n++];
	p->ts = rec->ts;
	p->off = (uint32_t)c->data_len;
	p->len = rec->len;
	p->type = rec->type;
	p->stack_off = 0;
	p->nr_stack = 0;
	memcpy(c->data + c->data_len, rec->data, rec->len);
	c->data_len += rec->len;
	return 0;
}

/* REC is the kernel_stack record that follows the last queued record of
 * C (same CPU, written right after it): keep its frames with that one. */
static int attach_stack(struct cpu_buf *c, const struct hist_ftrace_record *rec)
{
	struct pend *p;
	int32_t size;
	uint32_t n, avail, i;

	if (c->n == c->head || rec->len < STACK_CALLER_OFF)
		return 0;	/* its event was fed in an earlier drain */
	p = &c->v[c->n - 1];
	if (p->nr_stack)
		return 0;
	memcpy(&size, rec->data + STACK_SIZE_OFF, sizeof(size));
	avail = (rec->len - STACK_CALLER_OFF) / 8;
	n = size > 0 && (uint32_t)size < avail ? (uint32_t)size : avail;
	if (n <= STACK_SKIP)
		return 0;
	n -= STACK_SKIP;
	if (n > STACK_MAX)
		n = STACK_MAX;
	if (reserve(c, (size_t)n * 8))
		return -1;
	p = &c->v[c->n - 1];	/* reserve() may have moved it */
	for (i = 0; i < n; i++) {
		uint64_t ip;

		memcpy(&ip, rec->data + STACK_CALLER_OFF + (STACK_SKIP + i) * 8, 8);
		if (!ip)
			break;
		memcpy(c->data + c->data_len + (size_t)i * 8, &ip, 8);
	}
	p->stack_off = (uint32_t)c->data_len;
	p->nr_stack = i;
	c->data_len += (size_t)i * 8;
	return 0;
}

/* 1: REC is this drain's marker, 2: an older drain's (a drain that a
 * stop() ended before it read its own), 0: not ours. */
static int is_marker(const struct live_ring *r, const struct hist_ftrace_record *rec)
{
	size_t n = strlen(r->token);
	char num[24];
	size_t k;

	if (r->marker_fd < 0 || rec->type != r->print_id || rec->len < 16 + n ||
	    memcmp(rec->data + 16, r->token, n))
		return 0;
	/* the kernel ends the text with a newline */
	k = strnlen((const char *)rec->data + 16 + n, rec->len - 16 - n);
	snprintf(num, sizeof(num), " %llu\n", (unsigned long long)r->drains);
	return k == strlen(num) && !memcmp(rec->data + 16 + n, num, k) ? 1 : 2;
}

struct feeder {
	void (*feed)(void *arg, const struct hist_ftrace_record *rec);
	void *arg;
	long n;
};

/* Read the records C's buffer holds (at most DRAIN_PAGES pages): queue
 * them (ordered) or feed them (unordered).  *SYNC gets the time stamp of
 * our marker if it is among them.  Returns 1 if the buffer may hold more
 * (the page limit was reached), 2 if the caller's stop() ended the
 * reading, 3 if it was read up to the writer's page after the drain
 * began, 0 if it was read empty, -1 on errors. */
static int read_cpu(struct live_ring *r, struct cpu_buf *c, uint64_t *sync,
		    struct feeder *f, int final)
{
	uint32_t pages;
	int small = 0;	/* the last page read was less than half full */

	for (pages = 0; pages < DRAIN_PAGES; pages++) {
		struct hist_ftrace_page_iter it;
		struct hist_ftrace_record rec;
		ssize_t k;
		int ret;

		/* past the marker, what this CPU holds is newer than the
		 * drain: read now, it would only wait in memory for the
		 * next drain */
		if (!final && r->stop &&
		    r->stop(r->stop_arg, c->cpu, r->cur_sync && c->last_ts > r->cur_sync))
			return 2;
		k = read(c->fd, r->page, r->fmt.page_size);

		if (k < 0 && errno == EINTR) {
			pages--;
			continue;
		}
		if (k < 0 && errno == EAGAIN)
			return 0;
		if (k < 0) {
			fprintf(stderr, PROG ": cpu%u/trace_pipe_raw: %s\n", c->cpu,
				strerror(errno));
			return -1;
		}
		if (k == 0)
			return 0;
		if ((size_t)k < r->fmt.page_size)
			memset(r->page + k, 0, r->fmt.page_size - (size_t)k);
		if (hist_ftrace_page_init(&it, &r->fmt, r->page, r->fmt.page_size,
					  c->cpu)) {
			fprintf(stderr, PROG ": cpu%u: a bad page header\n", c->cpu);
			continue;
		}
		if (it.missed) {
			c->loss.pages += it.lost ? it.lost : 1;
			c->loss.unknown += !it.lost;
		}
		while ((ret = hist_ftrace_page_next(&it, &rec)) > 0) {
			c->drain_read++;
			c->last_ts = rec.ts;
			if (!r->ordered) {
				f->feed(f->arg, &rec);
				f->n++;
				continue;
			}
			/* any marker bounds the merge (an older one, left
			 * unread by a drain a stop() ended, more tightly),
			 * but only this drain's says "now", past which
			 * reading may stop (ring_set_stop()) */
			switch (is_marker(r, &rec)) {
			case 1:
				r->cur_sync = rec.ts;
				/* fall through */
			case 2:
				*sync = rec.ts;
				continue;
			}
			if (rec.type == r->stack_type)
				ret = attach_stack(c, &rec);
			else
				ret = queue(c, &rec);
			if (ret) {
				fprintf(stderr, PROG ": out of memory\n");
				return -1;
			}
		}
		if (ret < 0)
			fprintf(stderr, PROG ": cpu%u: a corrupt record ends its "
				"page\n", c->cpu);
		/*
		 * A page less than half full is either the writer's, copied
		 * record by record with interrupts off against a writer still
		 * filling it, or the rest of a page read in part by an
		 * earlier drain, with full pages behind it.  One more read
		 * tells them apart: empty, the CPU was read to its end; full,
		 * we were behind and read on; small again, it is the
		 * writer's page, and everything it held when this read
		 * began, which is after the drain began, has been read.
		 * Reading on would chase the writer (each read such a copy,
		 * hundreds of ns a record on both sides) until it pauses.
		 * Stopping at the first small page instead left a CPU read
		 * only in part: the merge had to stop at its newest record,
		 * however old, and a quiet CPU held back the newest records
		 * of the others (histfs missed a chain's last exit in 3 of
		 * 40 reads made right after it).
		 */
		if (!final && it.size < r->fmt.page_size / 2) {
			if (small)
				return 3;
			small = 1;
		} else {
			small = 0;
		}
	}
	return 1;
}

/*
 * A burst's copies go back once fed: C's arrays, grown by doubling, are
 * halved while a quarter or less is in use (down to SHRINK_MIN bytes of
 * data).  Kept at their largest, a 10-minute soak's ordered reading had
 * grown hist-live by 8 MB in steps after its first minute.
 */
#define SHRINK_MIN (1u << 20)

static void shrink(struct cpu_buf *c)
{
	while (c->data_cap > SHRINK_MIN && c->data_len <= c->data_cap / 4) {
		uint8_t *d = realloc(c->data, c->data_cap / 2);

		if (!d)
			return;
		c->data = d;
		c->data_cap /= 2;
	}
	while (c->cap * sizeof(*c->v) > SHRINK_MIN && c->n <= c->cap / 4) {
		struct pend *v = realloc(c->v, c->cap / 2 * sizeof(*v));

		if (!v)
			return;
		c->v = v;
		c->cap /= 2;
	}
}

/* Drop the fed records of C, keep the waiting ones at the front. */
static void compact(struct cpu_buf *c)
{
	size_t i, off = 0;

	if (c->head == c->n) {
		c->head = c->n = c->data_len = 0;
		shrink(c);
		return;
	}
	for (i = c->head; i < c->n; i++) {
		struct pend *p = &c->v[i - c->head];

		*p = c->v[i];
		memmove(c->data + off, c->data + p->off, p->len);
		p->off = (uint32_t)off;
		off += p->len;
		if (p->nr_stack) {
			memmove(c->data + off, c->data + p->stack_off,
				(size_t)p->nr_stack * 8);
			p->stack_off = (uint32_t)off;
			off += (size_t)p->nr_stack * 8;
		}
	}
	c->n -= c->head;
	c->head = 0;
	c->data_len = off;
	shrink(c);
}

/* The kernel's counters now: what C lost since open, and how much bigger
 * its buffer would have had to be for this drain. */
static void update_loss(struct live_ring *r, struct cpu_buf *c)
{
	struct ring_loss now;
	uint64_t before = c->loss.lost, got;

	if (c->have_stats && !read_stats(c, &now)) {
		c->loss.overrun = now.overrun - c->base.overrun;
		c->loss.commit_overrun = now.commit_overrun - c->base.commit_overrun;
		c->loss.dropped = now.dropped - c->base.dropped;
		c->loss.lost = c->loss.overrun + c->loss.commit_overrun +
			       c->loss.dropped;
		c->loss.unknown = 0;	/* the counters know */
	}
	/* the pages' flags only say "some", so they bound from below */
	if (c->loss.pages > c->loss.lost)
		c->loss.lost = c->loss.pages;
	got = c->loss.lost - before;
	if (got) {
		double need = (double)(c->drain_read + got) /
			      (double)(c->drain_read ? c->drain_read : 1);

		if (need > r->burst)
			r->burst = need;
	}
	c->drain_read = 0;
}

/* Feed the queued records stamped up to LIMIT, all CPUs merged. */
static long merge(struct live_ring *r, uint64_t limit,
		  void (*feed)(void *arg, const struct hist_ftrace_record *rec),
		  void *arg)
{
	long n = 0;
	uint32_t i;

	for (;;) {
		struct cpu_buf *best = NULL;
		struct hist_ftrace_record rec;
		const struct pend *p;

		/* ties: the lower CPU first */
		for (i = 0; i < r->nr_cpus; i++) {
			struct cpu_buf *c = &r->cpus[i];

			if (c->head < c->n && c->v[c->head].ts <= limit &&
			    (!best || c->v[c->head].ts < best->v[best->head].ts))
				best = c;
		}
		if (!best)
			break;
		p = &best->v[best->head++];
		memset(&rec, 0, sizeof(rec));
		rec.ts = p->ts;
		rec.data = best->data + p->off;
		rec.len = p->len;
		rec.cpu = best->cpu;
		rec.type = p->type;
		r->nr_cur_stack = p->nr_stack;
		if (p->nr_stack)
			memcpy(r->cur_stack, best->data + p->stack_off,
			       (size_t)p->nr_stack * 8);
		feed(arg, &rec);
		n++;
	}
	r->nr_cur_stack = 0;
	for (i = 0; i < r->nr_cpus; i++)
		compact(&r->cpus[i]);
	return n;
}

/* rounds of DRAIN_PAGES per CPU in one drain that is not the last: a
 * writer faster than the reader must not keep it from its timers */
#define DRAIN_ROUNDS 64

long ring_drain(struct live_ring *r, int final,
		void (*feed)(void *arg, const struct hist_ftrace_record *rec),
		void *arg)
{
	uint64_t sync = 0;
	struct feeder f = { feed, arg, 0 };
	uint32_t i, round;
	int more;

	/* "now", as a record on the trace clock */
	r->cur_sync = 0;
	if (r->ordered && !final && r->marker_fd >= 0) {
		char text[sizeof(r->token) + 24];
		int n = snprintf(text, sizeof(text), "%s %llu", r->token,
				 (unsigned long long)++r->drains);

		if (write(r->marker_fd, text, (size_t)n) < 0) {
			close(r->marker_fd);
			r->marker_fd = -1;
		}
	}
	for (round = 0, more = 1; more && (final || round < DRAIN_ROUNDS); round++) {
		uint64_t limit = UINT64_MAX, writer = UINT64_MAX;

		more = 0;
		for (i = 0; i < r->nr_cpus; i++) {
			struct cpu_buf *c = &r->cpus[i];
			int ret = read_cpu(r, c, &sync, &f, final);

			if (ret < 0)
				return -1;
			update_loss(r, c);
			/* a CPU stop() ended is asked again next round */
			more |= ret == 1;
			/* a CPU read only in part may still hold records
			 * older than what the others have now: the merge
			 * stops at its newest record read.  One read up to
			 * its writer's page after the marker holds nothing
			 * older than the marker; it bounds the merge only
			 * if the marker was not seen. */
			if (ret == 3 && writer > c->last_ts)
				writer = c->last_ts;
			else if (ret && ret != 3 && c->last_ts < limit)
				limit = c->last_ts;
		}
		if (!final && sync && sync < limit)
			limit = sync;
		else if (!final && !sync && writer < limit)
			limit = writer;
		if (r->ordered)
			f.n += merge(r, limit, feed, arg);
	}
	r->records += (uint64_t)f.n;
	return f.n;
}

uint64_t ring_lost(const struct live_ring *r)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < r->nr_cpus; i++)
		n += r->cpus[i].loss.lost;
	return n;
}

uint32_t ring_nr_cpus(const struct live_ring *r)
{
	return r->nr_cpus;
}

const struct ring_loss *ring_cpu_loss(const struct live_ring *r, uint32_t i)
{
	return &r->cpus[i].loss;
}

double ring_burst(const struct live_ring *r)
{
	return r->burst;
}

uint64_t ring_records(const struct live_ring *r)
{
	return r->records;
}
