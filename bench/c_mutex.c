/* SPDX-License-Identifier: MIT */
/*
 * Contenders "mutex" and "floor": open-addressing tables whose slots hold
 * the key and both sums inline ([key words][hits][sum]), linear probing,
 * 2 x capacity slots, MurmurHash3 finaliser.
 *
 * mutex: one table shared by every thread behind one pthread mutex; plain
 *        adds under the lock.  What a C programmer writes first.
 * floor: one private table per thread, no lock, no atomics; the tables
 *        are merged only at read-out (untimed).  It is the cost of the
 *        hot path alone, not a design that can serve concurrent readers or
 *        a global capacity: the lower bound the others are held against.
 *
 * Both admit at most CAPACITY keys per table and count a drop for every
 * event whose new key does not fit (the kernel's full-map rule).  Key
 * word 0 is never 0 in the generated records, so it marks an empty slot.
 */
#include <pthread.h>
#include <stdlib.h>

#include "bench.h"

struct otab {
	uint64_t *slots;	/* nr_slots * (words + 2) u64 */
	uint64_t mask;
	uint32_t words;		/* key words */
	uint32_t capacity;
	uint64_t used;
	uint64_t drops;
};

static void otab_init(struct otab *t, uint32_t capacity, uint32_t words)
{
	uint64_t n = 2ull * capacity;

	t->slots = bench_zalloc(n * (words + 2) * 8);
	t->mask = n - 1;
	t->words = words;
	t->capacity = capacity;
	t->used = 0;
	t->drops = 0;
}

/* Find-or-insert KEY: its slot, or NULL when the table is full. */
static inline uint64_t *otab_slot(struct otab *t, const uint64_t *key, uint32_t words)
{
	uint64_t i = bench_hash_words(key, words) & t->mask;

	for (;;) {
		uint64_t *s = t->slots + i * (words + 2);

		if (bench_key_eq(s, key, words))
			return s;
		if (s[0] == 0) {
			if (t->used >= t->capacity)
				return NULL;
			t->used++;
			memcpy(s, key, words * 8);
			return s;
		}
		i = (i + 1) & t->mask;
	}
}

/* Find-or-insert KEY and add (HITS, SUM).  WORDS is a constant at each use. */
static inline void otab_add(struct otab *t, const uint64_t *key, uint32_t words,
			    uint64_t hits, uint64_t sum)
{
	uint64_t *s = otab_slot(t, key, words);

	if (!s) {
		t->drops += hits;
		return;
	}
	s[words] += hits;
	s[words + 1] += sum;
}

static void otab_read(const struct otab *t, struct bench_readout *o)
{
	uint64_t i;

	for (i = 0; i <= t->mask; i++) {
		const uint64_t *s = t->slots + i * (t->words + 2);

		if (!s[0])
			continue;
		o->entries++;
		o->hits += s[t->words];
		o->sum += s[t->words + 1];
	}
	o->drops += t->drops;
	o->total_hits = o->hits;
}

/* ---- mutex ---------------------------------------------------------- */

struct mtab {
	pthread_mutex_t lock;
	struct otab t;
};

static void *mutex_create(const struct bench_cfg *cfg, const char **why)
{
	struct mtab *m = bench_zalloc(sizeof(*m));

	(void)why;
	pthread_mutex_init(&m->lock, NULL);
	otab_init(&m->t, cfg->capacity, bench_key_words(cfg->w->key));
	return m;
}

static void *mutex_thread_init(void *map, int tid)
{
	(void)tid;
	return map;
}

#define MUTEX_BODY(h, r, K)						\
	do {								\
		struct mtab *m_ = (h);					\
		uint64_t k_[BENCH_KEY_WORDS_MAX];			\
									\
		bench_key_read(K, r, k_);				\
		pthread_mutex_lock(&m_->lock);				\
		otab_add(&m_->t, k_, bench_key_words(K), 1, (r)->val);	\
		pthread_mutex_unlock(&m_->lock);			\
	} while (0)

BENCH_HIT_VARIANTS(mutex_hit, MUTEX_BODY)

static int mutex_read_out(void *map, struct bench_readout *o, const char **why)
{
	struct mtab *m = map;

	(void)why;
	otab_read(&m->t, o);
	return 0;
}

static void mutex_destroy(void *map)
{
	struct mtab *m = map;

	pthread_mutex_destroy(&m->lock);
	bench_free(m->t.slots);
	bench_free(m);
}

const struct bench_contender bench_mutex = {
	.name = "mutex",
	.supports = bench_supports_plain,
	.create = mutex_create,
	.thread_init = mutex_thread_init,
	.hit_fn = mutex_hit_pick,
	.read_out = mutex_read_out,
	.destroy = mutex_destroy,
};

/* ---- floor ---------------------------------------------------------- */

#define FLOOR_THREADS_MAX 64

/*
 * The chain row by hand: per thread, the wake table (key -> time stamp,
 * set flag), the switch table (key -> hitcount, latency) and the
 * synthetic event's table (key -> hitcount, latency sum), the same
 * read-once rule as the hist variables.
 */
struct fchain {
	struct otab t;		/* the synthetic event's: read out */
	struct otab wake;	/* [key][hits][ts0, 0: unset] */
	struct otab sw;		/* [key][hits][lat] */
};

struct ftab {
	uint32_t capacity, words;
	int nthreads;
	bool chain;
	struct otab *t[FLOOR_THREADS_MAX];
};

static void *floor_create(const struct bench_cfg *cfg, const char **why)
{
	struct ftab *m = bench_zalloc(sizeof(*m));

	if (cfg->nthreads > FLOOR_THREADS_MAX) {
		*why = "too many threads";
		bench_free(m);
		return NULL;
	}
	m->capacity = cfg->capacity;
	m->words = bench_key_words(cfg->w->key);
	m->nthreads = cfg->nthreads;
	m->chain = cfg->w->kind == WK_CHAIN;
	return m;
}

/* The private table is made by its own thread: its memory is local. */
static void *floor_thread_init(void *map, int tid)
{
	struct ftab *m = map;
	struct otab *t;

	if (m->chain) {
		struct fchain *c = bench_zalloc(sizeof(*c));

		otab_init(&c->t, m->capacity, 1);
		otab_init(&c->wake, m->capacity, 1);
		otab_init(&c->sw, m->capacity, 1);
		m->t[tid] = &c->t;
		return c;
	}
	t = bench_zalloc(sizeof(*t));
	otab_init(t, m->capacity, m->words);
	m->t[tid] = t;
	return t;
}

static void floor_hit_chain(void *h, const struct brec *r)
{
	struct fchain *c = h;
	uint64_t *s;

	if (r->common_type == BREC_TYPE_WAKE) {
		s = otab_slot(&c->wake, &r->key, 1);
		if (s) {
			s[1]++;
			s[2] = r->ts;
		}
		return;
	}
	s = otab_slot(&c->wake, &r->key, 1);
	if (!s || !s[2])
		return;
	{
		uint64_t lat = r->ts - s[2], *w;

		s[2] = 0;	/* read once */
		w = otab_slot(&c->sw, &r->key, 1);
		if (!w)
			return;
		w[1]++;
		w[2] = lat;
		otab_add(&c->t, &r->key, 1, 1, lat);
	}
}

#define FLOOR_BODY(h, r, K)						\
	do {								\
		uint64_t k_[BENCH_KEY_WORDS_MAX];			\
									\
		bench_key_read(K, r, k_);				\
		otab_add((h), k_, bench_key_words(K), 1, (r)->val);	\
	} while (0)

BENCH_HIT_VARIANTS(floor_hit, FLOOR_BODY)

static int floor_read_out(void *map, struct bench_readout *o, const char **why)
{
	struct ftab *m = map;
	struct otab merged;
	uint64_t drops = 0, j;
	int i;

	(void)why;
	otab_init(&merged, m->capacity * (uint32_t)m->nthreads, m->words);
	for (i = 0; i < m->nthreads; i++) {
		struct otab *t = m->t[i];

		if (!t)
			continue;
		drops += t->drops;
		for (j = 0; j <= t->mask; j++) {
			const uint64_t *s = t->slots + j * (t->words + 2);

			if (s[0])
				otab_add(&merged, s, m->words, s[m->words],
					 s[m->words + 1]);
		}
	}
	otab_read(&merged, o);
	o->drops = drops;
	bench_free(merged.slots);
	return 0;
}

static void floor_destroy(void *map)
{
	struct ftab *m = map;
	int i;

	for (i = 0; i < m->nthreads; i++) {
		if (!m->t[i])
			continue;
		bench_free(m->t[i]->slots);
		if (m->chain) {
			/* t is the first member of its struct fchain */
			struct fchain *c = (struct fchain *)(void *)m->t[i];

			bench_free(c->wake.slots);
			bench_free(c->sw.slots);
		}
		bench_free(m->t[i]);
	}
	bench_free(m);
}

static bool floor_supports(const struct bench_workload *w, const char **why)
{
	(void)w;
	(void)why;
	return true;
}

static bench_hit_fn floor_pick(const struct bench_workload *w)
{
	return w->kind == WK_CHAIN ? floor_hit_chain : floor_hit_pick(w);
}

const struct bench_contender bench_floor = {
	.name = "floor",
	.supports = floor_supports,
	.create = floor_create,
	.thread_init = floor_thread_init,
	.hit_fn = floor_pick,
	.read_out = floor_read_out,
	.destroy = floor_destroy,
};
