/* SPDX-License-Identifier: MIT */
/*
 * Contender "ck_ht": Concurrency Kit's hash table (Debian libck-dev).
 * ck_ht is single-writer, many-reader: lookups are lock-free
 * (ck_ht_get_spmc); on a miss the thread takes a mutex, looks again and
 * ck_ht_put_spmc()s a preallocated element.  Sums are atomic adds on the
 * element.  u64 keys use CK_HT_MODE_DIRECT (key -> element pointer);
 * string and compound keys CK_HT_MODE_BYTESTRING, the key bytes living in
 * the element.  The table is created with 2 x capacity slots so it never
 * grows while timed.  Hash callback: the same MurmurHash3 finaliser the
 * other non-kernel contenders use.
 */
#include <pthread.h>
#include <stdlib.h>
#include <ck_ht.h>

#include "bench.h"

struct ck_elt {
	uint64_t sum[2];
	uint64_t key[BENCH_KEY_WORDS_MAX];
	uint64_t pad[3];
};

struct ckmap {
	ck_ht_t ht;
	pthread_mutex_t lock;
	struct ck_elt *pool;
	uint32_t capacity, words;
	uint64_t next;				/* under the lock */
	uint64_t drops __attribute__((aligned(64)));	/* atomic */
};

static void *ck_m_malloc(size_t n)
{
	return malloc(n);
}

static void *ck_m_realloc(void *p, size_t o, size_t n, bool d)
{
	(void)o;
	(void)d;
	return realloc(p, n);
}

static void ck_m_free(void *p, size_t n, bool d)
{
	(void)n;
	(void)d;
	free(p);
}

static struct ck_malloc ck_alloc = { ck_m_malloc, ck_m_realloc, ck_m_free };

static void ck_hash_cb(ck_ht_hash_t *h, const void *key, size_t len, uint64_t seed)
{
	uint64_t w[BENCH_KEY_WORDS_MAX] = { 0 };

	memcpy(w, key, len < sizeof(w) ? len : sizeof(w));
	h->value = bench_hash_words(w, (uint32_t)((len + 7) / 8)) ^ seed;
}

static void *ck_create(const struct bench_cfg *cfg, const char **why)
{
	struct ckmap *m = bench_zalloc(sizeof(*m));
	unsigned mode = cfg->w->key == BK_U64 ? CK_HT_MODE_DIRECT : CK_HT_MODE_BYTESTRING;

	if (!ck_ht_init(&m->ht, mode, ck_hash_cb, &ck_alloc,
			(CK_HT_TYPE)2 * cfg->capacity, 0)) {
		*why = "ck_ht_init failed";
		bench_free(m);
		return NULL;
	}
	pthread_mutex_init(&m->lock, NULL);
	m->capacity = cfg->capacity;
	m->words = bench_key_words(cfg->w->key);
	m->pool = bench_zalloc(sizeof(*m->pool) * m->capacity);
	return m;
}

static void *ck_thread_init(void *map, int tid)
{
	(void)tid;
	return map;
}

static inline struct ck_elt *ck_get(struct ckmap *m, const uint64_t *key,
				    uint32_t words, ck_ht_hash_t *h,
				    ck_ht_entry_t *ent)
{
	if (words == 1) {
		ck_ht_entry_key_set_direct(ent, (uintptr_t)key[0]);
		if (ck_ht_get_spmc(&m->ht, *h, ent))
			return (struct ck_elt *)ck_ht_entry_value_direct(ent);
	} else {
		ck_ht_entry_key_set(ent, key, (uint16_t)(words * 8));
		if (ck_ht_get_spmc(&m->ht, *h, ent))
			return ck_ht_entry_value(ent);
	}
	return NULL;
}

static inline void ck_insert(struct ckmap *m, const uint64_t *key, uint32_t words,
			     uint64_t val)
{
	ck_ht_hash_t h;
	ck_ht_entry_t ent;
	struct ck_elt *e;

	if (words == 1)
		ck_ht_hash_direct(&h, &m->ht, (uintptr_t)key[0]);
	else
		ck_ht_hash(&h, &m->ht, key, (uint16_t)(words * 8));
	e = ck_get(m, key, words, &h, &ent);
	if (!e) {
		pthread_mutex_lock(&m->lock);
		e = ck_get(m, key, words, &h, &ent);
		if (!e) {
			if (m->next >= m->capacity) {
				pthread_mutex_unlock(&m->lock);
				/* Relaxed: a statistic. */
				__atomic_fetch_add(&m->drops, 1, __ATOMIC_RELAXED);
				return;
			}
			e = &m->pool[m->next++];
			memcpy(e->key, key, words * 8);
			if (words == 1)
				ck_ht_entry_set_direct(&ent, h, (uintptr_t)key[0],
						       (uintptr_t)e);
			else
				ck_ht_entry_set(&ent, h, e->key, (uint16_t)(words * 8), e);
			if (!ck_ht_put_spmc(&m->ht, h, &ent))
				bench_die("ck_ht_put_spmc failed");
		}
		pthread_mutex_unlock(&m->lock);
	}
	/* Relaxed: sums order nothing. */
	__atomic_fetch_add(&e->sum[0], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&e->sum[1], val, __ATOMIC_RELAXED);
}

#define CK_BODY(h, r, K)						\
	do {								\
		uint64_t k_[BENCH_KEY_WORDS_MAX];			\
									\
		bench_key_read(K, r, k_);				\
		ck_insert((h), k_, bench_key_words(K), (r)->val);	\
	} while (0)

BENCH_HIT_VARIANTS(ck_hit, CK_BODY)

static int ck_read_out(void *map, struct bench_readout *o, const char **why)
{
	struct ckmap *m = map;
	ck_ht_iterator_t it = CK_HT_ITERATOR_INITIALIZER;
	ck_ht_entry_t *ent;

	while (ck_ht_next(&m->ht, &it, &ent)) {
		struct ck_elt *e = m->words == 1 ?
			(struct ck_elt *)ck_ht_entry_value_direct(ent) :
			ck_ht_entry_value(ent);

		if (m->words == 1 && e->key[0] != (uint64_t)ck_ht_entry_key_direct(ent)) {
			*why = "ck_ht: element and table key differ";
			return -1;
		}
		o->entries++;
		o->hits += e->sum[0];
		o->sum += e->sum[1];
	}
	if (o->entries != ck_ht_count(&m->ht)) {
		*why = "ck_ht: iteration and ck_ht_count() differ";
		return -1;
	}
	o->drops = m->drops;
	o->total_hits = o->hits;
	return 0;
}

static void ck_destroy(void *map)
{
	struct ckmap *m = map;

	ck_ht_destroy(&m->ht);
	pthread_mutex_destroy(&m->lock);
	bench_free(m->pool);
	bench_free(m);
}

const struct bench_contender bench_ck = {
	.name = "ck_ht",
	.supports = bench_supports_plain,
	.create = ck_create,
	.thread_init = ck_thread_init,
	.hit_fn = ck_hit_pick,
	.read_out = ck_read_out,
	.destroy = ck_destroy,
};
