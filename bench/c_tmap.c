/* SPDX-License-Identifier: MIT */
/*
 * Contender "tmap": a map built the way the kernel's tracing_map is
 * described in its documentation and in the hist-trigger design notes
 * (written here from that description, no kernel code):
 *
 *   - a slot array of 2 x capacity entries { u32 hash; element pointer },
 *     claimed by a CAS of the 32-bit hash from 0, linear probing;
 *   - elements preallocated and handed out by an atomic bump index;
 *   - the element holds the key and the u64 sums, added atomically;
 *   - a jhash-style (lookup3) hash of the key, 0 remapped to 1;
 *   - a global atomic hit counter bumped on every event, and a drop
 *     counter when the element pool is empty.
 *
 * The key lives inline in the element (the kernel allocates it apart),
 * which only makes this contender faster than the real thing.
 */
#include <stdlib.h>

#include "bench.h"

struct tm_elt {
	uint64_t sum[2];	/* hitcount, val: atomic adds */
	uint64_t key[BENCH_KEY_WORDS_MAX];
	uint64_t pad;
};

struct tm_slot {
	uint32_t hash;		/* 0: free */
	uint32_t pad;
	struct tm_elt *elt;	/* NULL until its claimant publishes it */
};

struct tmap {
	struct tm_slot *slots;
	struct tm_elt *elts;
	uint32_t bits;		/* 2^bits slots */
	uint32_t capacity;
	uint32_t words;
	/* Written by inserts and by every event: lines of their own. */
	uint32_t next_elt __attribute__((aligned(64)));
	uint64_t drops;
	uint64_t hits __attribute__((aligned(64)));
};

static inline uint32_t rol32(uint32_t x, unsigned k)
{
	return x << k | x >> (32 - k);
}

/* Bob Jenkins' lookup3 (public domain): mix and final over u32 words. */
static inline uint32_t lookup3_words(const uint32_t *k, uint32_t n)
{
	uint32_t a, b, c;

	a = b = c = 0xdeadbeefu + (n << 2);
	while (n > 3) {
		a += k[0];
		b += k[1];
		c += k[2];
		a -= c; a ^= rol32(c, 4); c += b;
		b -= a; b ^= rol32(a, 6); a += c;
		c -= b; c ^= rol32(b, 8); b += a;
		a -= c; a ^= rol32(c, 16); c += b;
		b -= a; b ^= rol32(a, 19); a += c;
		c -= b; c ^= rol32(b, 4); b += a;
		n -= 3;
		k += 3;
	}
	switch (n) {
	case 3:
		c += k[2];
		/* fall through */
	case 2:
		b += k[1];
		/* fall through */
	case 1:
		a += k[0];
		c ^= b; c -= rol32(b, 14);
		a ^= c; a -= rol32(c, 11);
		b ^= a; b -= rol32(a, 25);
		c ^= b; c -= rol32(b, 16);
		a ^= c; a -= rol32(c, 4);
		b ^= a; b -= rol32(a, 14);
		c ^= b; c -= rol32(b, 24);
		break;
	}
	return c;
}

static void *tm_create(const struct bench_cfg *cfg, const char **why)
{
	struct tmap *m = bench_zalloc(sizeof(*m));

	(void)why;
	m->capacity = cfg->capacity;
	m->bits = cfg->w->map_bits + 1;
	m->words = bench_key_words(cfg->w->key);
	m->slots = bench_zalloc(sizeof(*m->slots) << m->bits);
	m->elts = bench_zalloc(sizeof(*m->elts) * m->capacity);
	return m;
}

static void *tm_thread_init(void *map, int tid)
{
	(void)tid;
	return map;
}

static inline void tm_insert(struct tmap *m, const uint64_t *key, uint32_t words,
			     uint64_t val)
{
	uint32_t hash = lookup3_words((const uint32_t *)key, words * 2);
	uint32_t mask = (1u << m->bits) - 1;
	uint32_t idx = hash >> (32 - m->bits);
	uint32_t n = 0, spins = 0;
	struct tm_elt *e;

	if (!hash)
		hash = 1;
	while (n <= mask) {
		struct tm_slot *s = &m->slots[idx];
		/* Acquire: pairs with the release of elt / of a given-back slot. */
		uint32_t test = __atomic_load_n(&s->hash, __ATOMIC_ACQUIRE);

		if (test == hash) {
			e = __atomic_load_n(&s->elt, __ATOMIC_ACQUIRE);
			if (!e) {
				/* Being inserted: look at this slot again
				 * (bounded, like the kernel's dup_try). */
				if (++spins > (1u << 24))
					goto drop;
				continue;
			}
			if (bench_key_eq(e->key, key, words))
				goto found;
		} else if (!test) {
			/* Acq_rel: claims the slot; on failure re-examine it. */
			if (!__atomic_compare_exchange_n(&s->hash, &test, hash, false,
							 __ATOMIC_ACQ_REL,
							 __ATOMIC_ACQUIRE))
				continue;
			/* Relaxed: only rations the element pool. */
			uint32_t i = __atomic_fetch_add(&m->next_elt, 1, __ATOMIC_RELAXED);

			if (i >= m->capacity) {
				/* Pool empty: give the slot back, as the kernel does. */
				__atomic_store_n(&s->hash, 0, __ATOMIC_RELEASE);
				goto drop;
			}
			e = &m->elts[i];
			memcpy(e->key, key, words * 8);
			/* Release: publishes the key before the pointer. */
			__atomic_store_n(&s->elt, e, __ATOMIC_RELEASE);
			goto found;
		}
		idx = (idx + 1) & mask;
		n++;
	}
drop:
	__atomic_fetch_add(&m->drops, 1, __ATOMIC_RELAXED);
	return;
found:
	/* Relaxed: statistics and sums order nothing. */
	__atomic_fetch_add(&m->hits, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&e->sum[0], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&e->sum[1], val, __ATOMIC_RELAXED);
}

#define TM_BODY(h, r, K)						\
	do {								\
		uint64_t k_[BENCH_KEY_WORDS_MAX];			\
									\
		bench_key_read(K, r, k_);				\
		tm_insert((h), k_, bench_key_words(K), (r)->val);	\
	} while (0)

BENCH_HIT_VARIANTS(tm_hit, TM_BODY)

static int tm_read_out(void *map, struct bench_readout *o, const char **why)
{
	struct tmap *m = map;
	uint32_t n = m->next_elt < m->capacity ? m->next_elt : m->capacity, i;

	(void)why;
	for (i = 0; i < n; i++) {
		o->hits += m->elts[i].sum[0];
		o->sum += m->elts[i].sum[1];
	}
	o->entries = n;
	o->drops = m->drops;
	o->total_hits = m->hits;
	return 0;
}

static void tm_destroy(void *map)
{
	struct tmap *m = map;

	bench_free(m->slots);
	bench_free(m->elts);
	bench_free(m);
}

const struct bench_contender bench_tmap = {
	.name = "tmap",
	.supports = bench_supports_plain,
	.create = tm_create,
	.thread_init = tm_thread_init,
	.hit_fn = tm_hit_pick,
	.read_out = tm_read_out,
	.destroy = tm_destroy,
};
