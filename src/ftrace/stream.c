/* SPDX-License-Identifier: MIT */
/*
 * The records of a trace.dat: one stream per CPU, merged by time stamp.
 *
 * Each stream walks its CPU's pages: straight out of the mapped file, or
 * zstd chunk by chunk (one chunk of about ten pages decompressed at a
 * time, so a 320 MB trace needs a few 40 KB buffers, not 320 MB).
 *
 * Every stream always holds its next record ("pending"), and the streams
 * with one sit in a binary min-heap keyed by (time stamp, CPU), so the
 * merge costs one comparison per record on a two-CPU trace.  A stream is
 * advanced right after its record is handed out, which is what lets
 * hist_tracedat_peek_cpu() show the CPU's following record (say, the
 * kernel_stack event that trails an event) while the current one is still
 * valid.  That needs two chunk buffers per stream: the returned record may
 * lie in the previous chunk while the pending one lies in the new one
 * (a stream's own cbuf[] pair, or slots of the worker's ring).
 *
 * Errors never stop the walk: a corrupt record ends its page, a chunk that
 * does not decompress is skipped, and the error is reported once, by the
 * call after the last good record; the call after that carries on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "ftrace_int.h"

static inline int before(const struct hist__stream *a, const struct hist__stream *b)
{
	return a->rec.ts < b->rec.ts || (a->rec.ts == b->rec.ts && a->cpu < b->cpu);
}

static void sift_down(struct hist__stream **h, uint32_t n, uint32_t i)
{
	struct hist__stream *s = h[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && before(h[c + 1], h[c]))
			c++;
		if (!before(h[c], s))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = s;
}

static void heap_push(struct hist_tracedat *td, struct hist__stream *s)
{
	struct hist__stream **h = td->heap;
	uint32_t i = td->nr_heap++;

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (!before(s, h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = s;
}

static int page_error(struct hist_tracedat *td, const struct hist__stream *s,
		      const char *what, uint64_t at)
{
	size_t ps = td->pfmt.page_size;

	if (s->compressed)
		return hist__td_err(td, -HIST_EINVAL,
				    "CPU %u: %s at byte %llu of page %zu of the zstd chunk at offset %llu",
				    s->cpu, what, (unsigned long long)at,
				    (s->page_pos - ps) / ps, (unsigned long long)s->buf_off);
	return hist__td_err(td, -HIST_EINVAL, "CPU %u: %s at offset %llu", s->cpu, what,
			    (unsigned long long)(s->page_off + at));
}

/* Enter the next page of the current buffer. */
static int enter_page(struct hist_tracedat *td, struct hist__stream *s)
{
	size_t ps = td->pfmt.page_size;
	const uint8_t *pg = s->buf + s->page_pos;

	s->page_off = s->buf_off + s->page_pos;
	s->page_pos += ps;
	if (hist_ftrace_page_init(&s->it, &td->pfmt, pg, ps, s->cpu))
		return page_error(td, s, "commit beyond the end of the page",
				  td->pfmt.commit_offset);
	if (s->it.missed) {
		if (s->cpu < td->nr_lost) {
			td->lost[s->cpu] += s->it.lost;
			if (!s->it.lost)
				td->lost_unknown[s->cpu]++;
		}
		s->drop_next = s->it.lost ? s->it.lost : UINT64_MAX;
	}
	s->in_page = 1;
	return 0;
}

/* Make S's next record pending: 1, 0 at its end, negative on an error
 * (after which S has moved past the bad data). */
static int advance(struct hist_tracedat *td, struct hist__stream *s)
{
	int r;

	for (;;) {
		if (hist__likely(s->in_page)) {
			r = hist__page_next(&s->it, &s->rec);
			if (hist__likely(r > 0)) {
				s->rec.file_offset = s->compressed ? s->buf_off :
						     s->rec.file_offset + s->page_off;
				s->rec_dropped = s->drop_next;
				s->drop_next = 0;
				return 1;
			}
			s->in_page = 0;
			if (r < 0)
				return page_error(td, s, "corrupt record",
						  (uint64_t)td->pfmt.data_offset + s->it.pos);
			continue;
		}
		if (s->page_pos < s->buf_len) {
			r = enter_page(td, s);
			if (r)
				return r;
			continue;
		}
		if (!s->compressed || s->chunk >= s->nr_chunks) {
			if (hist__unlikely(s->cut[0] && !s->cut_told)) {
				/* once: the next call finds the stream done */
				s->cut_told = 1;
				return hist__td_err(td, -HIST_EINVAL, "%s", s->cut);
			}
			return 0;
		}
		r = td->pf ? hist__prefetch_take(td, s) : hist__stream_load(td, s);
		if (r)
			return r;
	}
}

int hist__streams_start(struct hist_tracedat *td)
{
	uint32_t i;

	/* the records are read again: the pid gate's set grows again */
	if (td->gate)
		hist__gate_reset(td->gate);

	for (i = 0; i < td->nr_streams; i++) {
		struct hist__stream *s = &td->streams[i];

		s->chunk = 0;
		s->chunk_pos = s->off;
		s->in_page = 0;
		s->page_pos = 0;
		s->drop_next = 0;
		s->cut_told = 0;
		s->need = 1;
		s->cur = -1;
		s->held = -1;
		if (s->compressed) {
			s->buf = NULL;
			s->buf_len = 0;
			s->buf_off = s->off;
		} else {
			s->buf = td->map + s->off;
			s->buf_len = (size_t)s->size;
			s->buf_off = s->off;
		}
	}
	hist__prefetch_reset(td);
	td->iterating = 0;
	td->nr_need = td->nr_streams;
	td->nr_heap = 0;
	td->pending_err = 0;
	td->last_dropped = 0;
	td->damage_told = 0;
	td->shrink_told = 0;
	if (td->lost)
		memset(td->lost, 0, td->nr_lost * sizeof(*td->lost));
	if (td->lost_unknown)
		memset(td->lost_unknown, 0, td->nr_lost * sizeof(*td->lost_unknown));
	if (td->perf)
		hist__perf_reset(td);
	return 0;
}

void hist__streams_free(struct hist_tracedat *td)
{
	uint32_t i;

	hist__prefetch_stop(td);
	for (i = 0; i < td->nr_streams; i++) {
		free(td->streams[i].cbuf[0]);
		free(td->streams[i].cbuf[1]);
	}
	free(td->streams);
	free(td->heap);
	free(td->lost);
	free(td->lost_unknown);
	td->lost_unknown = NULL;
	td->streams = NULL;
	td->heap = NULL;
	td->lost = NULL;
	td->nr_streams = td->nr_heap = td->nr_need = 0;
}

/*
 * Below this much zstd data the worker costs more than it saves: on the
 * bundled sched.v7-zstd.dat (484 KB of chunks, 65,059 records) a replay
 * took 8.1 ms of CPU with it and 6.0 without (`perf stat -r 20 -e
 * task-clock build/hist-replay -t 'sched/sched_switch hist:keys=prev_pid'`),
 * the thread start, its ring of buffers and the hand-offs outweighing
 * 3 ms of decompression that a second core could overlap.
 */
#define PREFETCH_MIN_BYTES (UINT64_C(1) << 20)

static int worth_a_worker(const struct hist_tracedat *td)
{
	uint64_t bytes = 0;
	uint32_t i;

	if (td->prefetch == 2)
		return 1;
	for (i = 0; i < td->nr_streams; i++)
		if (td->streams[i].compressed)
			bytes += td->streams[i].size;
	return bytes >= PREFETCH_MIN_BYTES;
}

/* Bring the streams marked "need" into the heap. */
static int refill(struct hist_tracedat *td)
{
	uint32_t i;

	if (!td->iterating) {
		td->iterating = 1;
		/* Without a worker we decompress in line: same records. */
		if (td->prefetch && !td->pf && worth_a_worker(td) &&
		    hist__prefetch_start(td))
			td->prefetch = 0;
	}

	for (i = 0; i < td->nr_streams && td->nr_need; i++) {
		struct hist__stream *s = &td->streams[i];
		int r;

		if (!s->need)
			continue;
		r = advance(td, s);
		if (r < 0)
			return r;	/* still marked: retried next call */
		s->need = 0;
		td->nr_need--;
		if (r > 0)
			heap_push(td, s);
	}
	return 0;
}

/*
 * The file shrank under the mapping (guard.c saw a SIGBUS), or is found
 * shorter than mapped at the end of the walk: one error, then the walk
 * is over, since what follows reads as zeros.  1: not shrunk.
 */
static int shrunk(struct hist_tracedat *td)
{
	uint64_t at = hist__load_relaxed(&td->bus_fault);
	struct stat st;

	if (td->shrink_told)
		return 0;
	if (!at && (td->fd < 0 || fstat(td->fd, &st) || (uint64_t)st.st_size >= td->map_len))
		return 1;
	td->shrink_told = 1;
	td->nr_heap = td->nr_need = 0;
	td->pending_err = 0;
	if (at)
		return hist__td_err(td, -HIST_EINVAL,
				    "the file changed while being read: it shrank below offset %llu "
				    "(%zu bytes when opened); the records from there on are lost",
				    (unsigned long long)(at - 1), td->map_len);
	return hist__td_err(td, -HIST_EINVAL,
			    "the file changed while being read: it shrank to %llu bytes "
			    "(%zu when opened)", (unsigned long long)st.st_size, td->map_len);
}

/* The next record of a trace.dat's merge (hist_tracedat_next()). */
static HIST__ALWAYS_INLINE int td_next(struct hist_tracedat *td, struct hist_ftrace_record *rec)
{
	struct hist__stream *s;
	int r;

	if (hist__unlikely(td->pending_err)) {
		r = td->pending_err;
		td->pending_err = 0;
		return r;
	}
	if (hist__unlikely(td->nr_need)) {
		r = refill(td);
		if (r < 0)
			return r;
	}
	if (!td->nr_heap) {
		r = shrunk(td);
		if (r <= 0)
			return r;
		if (hist__unlikely(td->damage[0] && !td->damage_told)) {
			td->damage_told = 1;
			return hist__td_err(td, -HIST_EINVAL, "%s", td->damage);
		}
		return 0;
	}
	s = td->heap[0];
	*rec = s->rec;
	s->held = s->cur;
	td->last_dropped = s->rec_dropped;
	r = advance(td, s);
	if (hist__likely(r > 0)) {
		sift_down(td->heap, td->nr_heap, 0);
		return 1;
	}
	td->heap[0] = td->heap[--td->nr_heap];
	if (td->nr_heap)
		sift_down(td->heap, td->nr_heap, 0);
	if (r < 0) {
		s->need = 1;
		td->nr_need++;
		td->pending_err = r;
	}
	return 1;
}

/* td_next() through the pid gate: the records it passes. */
static HIST__NOINLINE int td_next_gated(struct hist_tracedat *td, struct hist_ftrace_record *rec)
{
	for (;;) {
		int r = td_next(td, rec);

		if (r <= 0)
			return r;
		r = hist__gate_take(td, rec);
		if (r > 0)
			return 1;
		if (r < 0)
			return hist__td_err(td, r, "out of memory (the set of --pid tasks)");
	}
}

int hist_tracedat_next(struct hist_tracedat *td, struct hist_ftrace_record *rec)
{
	if (hist__unlikely(td->shrink_told))
		return 0;
	if (hist__unlikely(hist__load_relaxed(&td->bus_fault)))
		return shrunk(td);
	if (td->perf)
		return hist__perf_next(td, rec);
	if (hist__unlikely(td->gate != NULL))
		return td_next_gated(td, rec);
	return td_next(td, rec);
}

int hist_tracedat_rewind(struct hist_tracedat *td)
{
	td->err[0] = '\0';
	return hist__streams_start(td);
}

int hist_tracedat_set_prefetch(struct hist_tracedat *td, int on)
{
	if (td->iterating)
		return -HIST_EBUSY;
	if (!on)
		hist__prefetch_stop(td);
	td->prefetch = on < 0 ? 1 : on > 2 ? 2 : on;
	return 0;
}

int hist_tracedat_peek_cpu(const struct hist_tracedat *td, uint32_t cpu,
			   struct hist_ftrace_record *rec)
{
	uint32_t i;

	if (td->perf)
		return hist__perf_peek_cpu(td, cpu, rec);
	for (i = 0; i < td->nr_heap; i++) {
		if (td->heap[i]->cpu == cpu) {
			*rec = td->heap[i]->rec;
			return 1;
		}
	}
	return 0;
}

uint64_t hist_tracedat_lost(const struct hist_tracedat *td, uint32_t cpu)
{
	return cpu < td->nr_lost ? td->lost[cpu] : 0;
}

uint64_t hist_tracedat_lost_unknown(const struct hist_tracedat *td, uint32_t cpu)
{
	return cpu < td->nr_lost ? td->lost_unknown[cpu] : 0;
}

uint64_t hist_tracedat_dropped(const struct hist_tracedat *td)
{
	return td->last_dropped;
}

const char *hist_tracedat_error(const struct hist_tracedat *td)
{
	return td->err;
}
