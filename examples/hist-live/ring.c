/* SPDX-License-Identifier: MIT */
/*
 * The kernel's per-CPU ring buffers, read through
 * per_cpu/cpuN/trace_pipe_raw: each read returns one sub-buffer (page) of
 * binary records, including a partly filled one, and consumes it.
 *
 * Inter-event triggers need the events of all CPUs in time order (a
 * wakeup on CPU 0 before the switch on CPU 1 it caused).  A drain reads
 * the CPUs one after the other, so a CPU read early may still receive
 * events older than the newest ones of a CPU read late.  Each drain
 * therefore first writes a line to the instance's trace_marker: its
 * record's time stamp T is "now" in the trace clock, and every event
 * stamped before T was in its buffer when the CPUs were read.  Records up
 * to T are merged by time stamp and fed; newer ones wait, copied, for the
 * next drain.  The last drain (tracing off) feeds everything.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"

/* pages read per CPU per drain: bounds the memory of one drain */
#define DRAIN_PAGES 256

/* A record waiting for its turn: its bytes are in the CPU's data. */
struct pend {
	uint64_t ts;
	uint32_t off, len;
	uint16_t type;
};

struct cpu_buf {
	int fd;
	uint32_t cpu;
	struct pend *v;		/* waiting records, oldest first */
	size_t head, n, cap;
	uint8_t *data;
	size_t data_len, data_cap;
};

struct live_ring {
	struct hist_ftrace_page_fmt fmt;
	uint8_t *page;		/* one read */
	struct cpu_buf *cpus;
	uint32_t nr_cpus;
	int marker_fd;		/* trace_marker, or -1 */
	uint32_t print_id;	/* ftrace:print, the marker's record type */
	char token[64];		/* our marker text */
	uint64_t lost, records;
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

struct live_ring *ring_open(struct live_tfs *t, char *err, size_t errlen)
{
	struct live_ring *r = calloc(1, sizeof(*r));
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;

	if (!r)
		goto nomem;
	r->marker_fd = -1;
	if (page_fmt(t, &r->fmt, err, errlen))
		goto fail;
	r->page = malloc(r->fmt.page_size);
	if (!r->page)
		goto nomem;
	tfs_path(t, "per_cpu", dir, sizeof(dir));
	dp = opendir(dir);
	if (!dp) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	while ((d = readdir(dp))) {
		char p[PATH_MAX];
		struct cpu_buf *v;
		unsigned cpu;
		int fd;

		if (sscanf(d->d_name, "cpu%u", &cpu) != 1 ||
		    live_fmt(p, sizeof(p), "%s/%s/trace_pipe_raw", dir, d->d_name))
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
		v[r->nr_cpus].cpu = cpu;
		r->nr_cpus++;
	}
	closedir(dp);
	if (!r->nr_cpus) {
		snprintf(err, errlen, "%s: no readable cpu*/trace_pipe_raw", dir);
		goto fail;
	}
	qsort(r->cpus, r->nr_cpus, sizeof(*r->cpus), cmp_cpu);
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
		free(r->cpus[i].v);
		free(r->cpus[i].data);
	}
	if (r->marker_fd >= 0)
		close(r->marker_fd);
	free(r->cpus);
	free(r->page);
	free(r);
}

static int queue(struct cpu_buf *c, const struct hist_ftrace_record *rec)
{
	struct pend *p;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;

		p = realloc(c->v, cap * sizeof(*p));
		if (!p)
			return -1;
		c->v = p;
		c->cap = cap;
	}
	if (c->data_len + rec->len > c->data_cap) {
		size_t cap = c->data_cap ? 2 * c->data_cap : 65536;
		uint8_t *d;

		while (cap < c->data_len + rec->len)
			cap *= 2;
		d = realloc(c->data, cap);
		if (!d)
			return -1;
		c->data = d;
		c->data_cap = cap;
	}
	p = &c->v[c->n++];
	p->ts = rec->ts;
	p->off = (uint32_t)c->data_len;
	p->len = rec->len;
	p->type = rec->type;
	memcpy(c->data + c->data_len, rec->data, rec->len);
	c->data_len += rec->len;
	return 0;
}

static int is_marker(const struct live_ring *r, const struct hist_ftrace_record *rec)
{
	size_t n = strlen(r->token);

	return r->marker_fd >= 0 && rec->type == r->print_id && rec->len >= 16 + n &&
	       !memcmp(rec->data + 16, r->token, n);
}

/* Queue the records C's buffer holds (at most DRAIN_PAGES pages);
 * *SYNC gets the time stamp of our marker if it is among them. */
static int read_cpu(struct live_ring *r, struct cpu_buf *c, uint64_t *sync)
{
	uint32_t pages;

	for (pages = 0; pages < DRAIN_PAGES; pages++) {
		struct hist_ftrace_page_iter it;
		struct hist_ftrace_record rec;
		ssize_t k = read(c->fd, r->page, r->fmt.page_size);
		int ret;

		if (k < 0 && errno == EINTR) {
			pages--;
			continue;
		}
		if (k < 0 && errno == EAGAIN)
			break;
		if (k < 0) {
			fprintf(stderr, PROG ": cpu%u/trace_pipe_raw: %s\n", c->cpu,
				strerror(errno));
			return -1;
		}
		if (k == 0)
			break;
		if ((size_t)k < r->fmt.page_size)
			memset(r->page + k, 0, r->fmt.page_size - (size_t)k);
		if (hist_ftrace_page_init(&it, &r->fmt, r->page, r->fmt.page_size,
					  c->cpu)) {
			fprintf(stderr, PROG ": cpu%u: a bad page header\n", c->cpu);
			continue;
		}
		if (it.missed)
			r->lost += it.lost ? it.lost : 1;
		while ((ret = hist_ftrace_page_next(&it, &rec)) > 0) {
			if (is_marker(r, &rec)) {
				*sync = rec.ts;
				continue;
			}
			if (queue(c, &rec)) {
				fprintf(stderr, PROG ": out of memory\n");
				return -1;
			}
		}
		if (ret < 0)
			fprintf(stderr, PROG ": cpu%u: a corrupt record ends its "
				"page\n", c->cpu);
	}
	return 0;
}

/* Drop the fed records of C, keep the waiting ones at the front. */
static void compact(struct cpu_buf *c)
{
	size_t i, off = 0;

	if (c->head == c->n) {
		c->head = c->n = c->data_len = 0;
		return;
	}
	for (i = c->head; i < c->n; i++) {
		struct pend *p = &c->v[i - c->head];

		*p = c->v[i];
		memmove(c->data + off, c->data + p->off, p->len);
		p->off = (uint32_t)off;
		off += p->len;
	}
	c->n -= c->head;
	c->head = 0;
	c->data_len = off;
}

long ring_drain(struct live_ring *r, int final,
		void (*feed)(void *arg, const struct hist_ftrace_record *rec),
		void *arg)
{
	uint64_t limit = UINT64_MAX, sync = 0;
	long n = 0;
	uint32_t i;

	/* "now", as a record on the trace clock */
	if (!final && r->marker_fd >= 0 &&
	    write(r->marker_fd, r->token, strlen(r->token)) < 0) {
		close(r->marker_fd);
		r->marker_fd = -1;
	}
	for (i = 0; i < r->nr_cpus; i++)
		if (read_cpu(r, &r->cpus[i], &sync))
			return -1;
	if (!final && sync)
		limit = sync;
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
		feed(arg, &rec);
		n++;
	}
	for (i = 0; i < r->nr_cpus; i++)
		compact(&r->cpus[i]);
	r->records += (uint64_t)n;
	return n;
}

uint64_t ring_lost(const struct live_ring *r)
{
	return r->lost;
}

uint64_t ring_records(const struct live_ring *r)
{
	return r->records;
}
