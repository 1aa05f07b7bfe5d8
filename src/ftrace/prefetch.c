/* SPDX-License-Identifier: MIT */
/*
 * Background decompression of zstd page chunks.
 *
 * zstd costs about 30 ns per record on these traces, four times the page
 * walk and merge, so on a machine with a spare core one worker thread
 * decompresses ahead while the caller walks and aggregates.  The reader
 * never waits for the worker: when its next chunk is not ready it
 * decompresses that chunk itself, so a busy or descheduled worker costs
 * at most some duplicated work, never a stall.
 *
 * Data structures: per compressed stream, a ring of K slots (K chunk
 * buffers) that only the worker writes.  `produced` counts the chunks
 * settled (published by the worker, or claimed by the reader), `taken` the
 * chunks the reader has moved to; taken <= produced.  The reader uses chunk
 * taken-1 (its pending record) and may still have handed out a record of
 * chunk taken-2, so the worker keeps off those two slots.
 *
 * Concurrency contract:
 *  1. One reader thread (the caller of hist_tracedat_next()/rewind/close)
 *     and one worker.  Ring counters, `filling`, `helping`, the
 *     generation, `stop` and `worker_waits` are read and written under
 *     `lock` only.
 *  2. The worker picks chunk p = produced of a ring with p + 2 < taken + K,
 *     fills slot p % K with no lock held, then, under the lock, publishes
 *     it (produced = p + 1) only if produced is still p and the generation
 *     has not changed; otherwise the work is dropped.  The unlock/lock
 *     pair orders the slot contents before the reader's use of them.
 *  3. The reader reads slot t % K only after seeing produced > t, until it
 *     has taken two more chunks.  A chunk that is not ready it claims
 *     (produced = taken + 1 under the lock) and decompresses into its own
 *     buffers, never into a slot, so it can never meet the worker in one.
 *     A slot the worker is still filling is next read for a chunk the
 *     worker publishes after it, as the worker works one chunk at a time.
 *     Exception: when the chunk not ready is the one the worker is filling
 *     (`filling`, set under the lock while it works), the reader does not
 *     decompress it a second time (when zstd is the bottleneck the reader
 *     keeps catching up with the worker, and duplicates had doubled the
 *     work).  It fills, as the worker would (rule 2), a slot of another
 *     ring (`helping`, which the worker's pick skips, as the reader's skips
 *     `filling`), and looks again; with nothing to fill it waits on
 *     `ready`.  The wait is bounded (PREFETCH_WAIT_NS), after which the
 *     reader claims the chunk as above, so a descheduled worker still
 *     costs no more than a stall of that bound.
 *  4. Rewind bumps the generation and restarts the rings at chunk 0; the
 *     chunk the worker may be filling is dropped by rule 2.  Close sets
 *     `stop` and joins the worker.
 *  5. The worker sleeps only when every ring is full or done, on `room`,
 *     which the reader signals whenever it takes a chunk or rewinds.  The
 *     worker broadcasts `ready` whenever it settles a chunk.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "ftrace_int.h"

/* How long the reader waits for the chunk the worker is filling. */
#define PREFETCH_WAIT_NS 10000000L

struct slot {
	uint8_t *buf;
	size_t cap;
	size_t len;
	uint64_t off;		/* file offset of the chunk header */
	uint64_t next;		/* file offset of the following chunk */
	int err;
	char msg[200];
};

struct ring {
	struct slot *slot;	/* K of them */
	uint32_t produced, taken;
	uint64_t next_pos;	/* header of chunk `produced` */
};

struct hist__prefetch {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t room;	/* reader -> worker: a slot, a rewind, stop */
	pthread_cond_t ready;	/* worker -> reader: a chunk settled */
	struct ring *filling;	/* the worker's ring and chunk while it works */
	uint32_t filling_chunk;
	struct ring *helping;	/* the ring the reader fills a slot of */
	int stop;
	int worker_waits;
	uint32_t gen;
	uint32_t k;
	ZSTD_DCtx *dctx;
	struct hist_tracedat *td;
	struct ring *rings;	/* one per stream, used for compressed ones */
};

/* The ring to fill next (the emptiest), or NULL; not one being filled. */
static struct ring *pick(struct hist__prefetch *pf, uint32_t *idx)
{
	struct hist_tracedat *td = pf->td;
	struct ring *best = NULL;
	uint32_t i, best_ahead = UINT32_MAX;

	for (i = 0; i < td->nr_streams; i++) {
		struct ring *r = &pf->rings[i];

		if (!td->streams[i].compressed || r->produced >= td->streams[i].nr_chunks)
			continue;
		if (r == pf->filling || r == pf->helping)
			continue;
		if (r->produced + 2 >= r->taken + pf->k)
			continue;	/* full */
		if (r->produced - r->taken < best_ahead) {
			best = r;
			best_ahead = r->produced - r->taken;
			*idx = i;
		}
	}
	return best;
}

/*
 * Fill the slot of chunk `produced` of R (stream IDX) with DCTX and publish
 * it (rule 2).  Called with the lock held, which is dropped meanwhile; the
 * caller has marked R as its own (`filling` or `helping`) so that no other
 * filler picks it.
 */
static void fill(struct hist__prefetch *pf, struct ring *r, uint32_t idx, void *dctx)
{
	struct hist_tracedat *td = pf->td;
	uint32_t chunk = r->produced, gen = pf->gen;
	struct slot *sl = &r->slot[chunk % pf->k];

	sl->off = r->next_pos;
	pthread_mutex_unlock(&pf->lock);

	sl->next = sl->off + 8 + hist__get32(td->map + sl->off, td->big_endian);
	sl->err = hist__chunk_inflate(td, dctx, td->streams[idx].cpu, chunk, sl->off,
				      &sl->buf, &sl->cap, &sl->len, sl->msg, sizeof(sl->msg));

	pthread_mutex_lock(&pf->lock);
	if (gen == pf->gen && r->produced == chunk) {
		r->produced = chunk + 1;
		r->next_pos = sl->next;
	}
}

static void *worker(void *arg)
{
	struct hist__prefetch *pf = arg;

	pthread_mutex_lock(&pf->lock);
	while (!pf->stop) {
		uint32_t idx = 0;
		struct ring *r = pick(pf, &idx);

		if (!r) {
			pf->worker_waits = 1;
			pthread_cond_wait(&pf->room, &pf->lock);
			pf->worker_waits = 0;
			continue;
		}
		pf->filling = r;
		pf->filling_chunk = r->produced;
		fill(pf, r, idx, pf->dctx);
		pf->filling = NULL;
		pthread_cond_broadcast(&pf->ready);
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

static void free_rings(struct hist__prefetch *pf, uint32_t n)
{
	uint32_t i, j;

	for (i = 0; i < n; i++) {
		if (!pf->rings[i].slot)
			continue;
		for (j = 0; j < pf->k; j++)
			free(pf->rings[i].slot[j].buf);
		free(pf->rings[i].slot);
	}
	free(pf->rings);
}

/* `ready`, whose timed waits count on the monotonic clock. */
static int ready_init(pthread_cond_t *c)
{
	pthread_condattr_t a;
	int err;

	if (pthread_condattr_init(&a))
		return -1;
	err = pthread_condattr_setclock(&a, CLOCK_MONOTONIC) || pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
	return err ? -1 : 0;
}

int hist__prefetch_start(struct hist_tracedat *td)
{
	struct hist__prefetch *pf;
	uint32_t i, nr = 0;

	for (i = 0; i < td->nr_streams; i++)
		nr += td->streams[i].compressed && td->streams[i].nr_chunks > 0;
	if (!nr)
		return -HIST_ENOENT;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return -HIST_ENOMEM;
	pf->td = td;
	/* Up to 8 chunks (~320 KB) a CPU; at least 3: two held, one filling. */
	pf->k = 64 / nr;
	pf->k = pf->k < 3 ? 3 : pf->k > 8 ? 8 : pf->k;
	pf->rings = calloc(td->nr_streams, sizeof(*pf->rings));
	pf->dctx = ZSTD_createDCtx();
	if (!pf->rings || !pf->dctx)
		goto fail;
	for (i = 0; i < td->nr_streams; i++) {
		if (!td->streams[i].compressed)
			continue;
		pf->rings[i].slot = calloc(pf->k, sizeof(struct slot));
		if (!pf->rings[i].slot)
			goto fail;
		pf->rings[i].next_pos = td->streams[i].off;
	}
	if (pthread_mutex_init(&pf->lock, NULL))
		goto fail;
	if (pthread_cond_init(&pf->room, NULL)) {
		pthread_mutex_destroy(&pf->lock);
		goto fail;
	}
	if (ready_init(&pf->ready)) {
		pthread_cond_destroy(&pf->room);
		pthread_mutex_destroy(&pf->lock);
		goto fail;
	}
	if (pthread_create(&pf->thread, NULL, worker, pf)) {
		pthread_cond_destroy(&pf->ready);
		pthread_cond_destroy(&pf->room);
		pthread_mutex_destroy(&pf->lock);
		goto fail;
	}
	td->pf = pf;
	return 0;
fail:
	if (pf->rings)
		free_rings(pf, td->nr_streams);
	if (pf->dctx)
		ZSTD_freeDCtx(pf->dctx);
	free(pf);
	return -HIST_ENOMEM;
}

int hist__prefetch_take(struct hist_tracedat *td, struct hist__stream *s)
{
	struct hist__prefetch *pf = td->pf;
	struct ring *r = &pf->rings[s - td->streams];
	struct slot *sl = NULL;

	pthread_mutex_lock(&pf->lock);
	if (r->produced == r->taken && pf->filling == r && pf->filling_chunk == r->taken) {
		struct timespec until;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += PREFETCH_WAIT_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (r->produced == r->taken && pf->filling == r &&
		       pf->filling_chunk == r->taken) {
			uint32_t idx = 0;
			struct ring *h = pick(pf, &idx);

			/* Rather than idle, fill a slot the worker would
			 * have filled later (then look again). */
			if (h) {
				pf->helping = h;
				fill(pf, h, idx, td->zstd);
				pf->helping = NULL;
				continue;
			}
			if (pthread_cond_timedwait(&pf->ready, &pf->lock, &until))
				break;
		}
	}
	if (r->produced > r->taken) {
		sl = &r->slot[r->taken % pf->k];
	} else {
		/* Not ready: claim it; the worker drops its copy, if any. */
		r->produced = r->taken + 1;
		r->next_pos = s->chunk_pos + 8 +
			      hist__get32(td->map + s->chunk_pos, td->big_endian);
	}
	r->taken++;
	if (pf->worker_waits)
		pthread_cond_signal(&pf->room);
	pthread_mutex_unlock(&pf->lock);

	if (!sl)
		return hist__stream_load(td, s);
	s->chunk++;
	s->chunk_pos = sl->next;
	s->buf_off = sl->off;
	s->page_pos = 0;
	s->cur = -1;
	if (sl->err) {
		snprintf(td->err, sizeof(td->err), "%s", sl->msg);
		s->buf = NULL;
		s->buf_len = 0;
		return sl->err;
	}
	s->buf = sl->buf;
	s->buf_len = sl->len;
	return 0;
}

void hist__prefetch_reset(struct hist_tracedat *td)
{
	struct hist__prefetch *pf = td->pf;
	uint32_t i;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->gen++;
	for (i = 0; i < td->nr_streams; i++) {
		pf->rings[i].produced = 0;
		pf->rings[i].taken = 0;
		pf->rings[i].next_pos = td->streams[i].off;
	}
	pthread_cond_signal(&pf->room);
	pthread_mutex_unlock(&pf->lock);
}

void hist__prefetch_stop(struct hist_tracedat *td)
{
	struct hist__prefetch *pf = td->pf;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = 1;
	pthread_cond_signal(&pf->room);
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->thread, NULL);
	pthread_cond_destroy(&pf->ready);
	pthread_cond_destroy(&pf->room);
	pthread_mutex_destroy(&pf->lock);
	free_rings(pf, td->nr_streams);
	ZSTD_freeDCtx(pf->dctx);
	free(pf);
	td->pf = NULL;
}
