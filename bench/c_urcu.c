/* SPDX-License-Identifier: MIT */
/*
 * Contender "urcu": liburcu's lock-free hash table, cds_lfht (Debian
 * liburcu-dev; the default "memb" flavour, with _LGPL_SOURCE so that the
 * read-side lock and unlock are inlined).
 *
 * Per event: rcu_read_lock; cds_lfht_lookup; on a miss take a
 * preallocated element and cds_lfht_add_unique (the loser of an insert
 * race uses the winner's node); atomic adds on the element's sums;
 * rcu_read_unlock.  2^map_bits buckets, no automatic resize, so the
 * timed section never resizes.  Capacity is rationed by an atomic count
 * of elements, like the others: a new key beyond it is a drop.
 */
#define _LGPL_SOURCE
#include <stdlib.h>
#include <urcu.h>
#include <urcu/rculfhash.h>

#include "bench.h"

struct ur_elt {
	struct cds_lfht_node node;
	uint64_t sum[2];
	uint64_t key[BENCH_KEY_WORDS_MAX];
};

struct umap {
	struct cds_lfht *ht;
	struct ur_elt *pool;
	uint64_t pool_n;
	uint32_t capacity, words;
	uint64_t next __attribute__((aligned(64)));	/* pool bump, atomic */
	uint64_t nr_elts;				/* admitted keys, atomic */
	uint64_t drops;					/* atomic */
};

static __thread int ur_registered;

static void ur_register(void)
{
	if (!ur_registered) {
		rcu_register_thread();
		ur_registered = 1;
	}
}

struct ur_key {
	const uint64_t *w;
	uint32_t words;
};

static int ur_match(struct cds_lfht_node *node, const void *arg)
{
	const struct ur_elt *e = caa_container_of(node, struct ur_elt, node);
	const struct ur_key *k = arg;

	return bench_key_eq(e->key, k->w, k->words);
}

static void *ur_create(const struct bench_cfg *cfg, const char **why)
{
	struct umap *m = bench_zalloc(sizeof(*m));
	unsigned long buckets = 1ul << cfg->w->map_bits;

	m->ht = cds_lfht_new(buckets, buckets, buckets, 0, NULL);
	if (!m->ht) {
		*why = "cds_lfht_new failed";
		bench_free(m);
		return NULL;
	}
	m->capacity = cfg->capacity;
	m->words = bench_key_words(cfg->w->key);
	/* Slack for elements taken by the losers of insert races. */
	m->pool_n = cfg->capacity + 4096ull * (uint64_t)cfg->nthreads;
	m->pool = bench_zalloc(sizeof(*m->pool) * m->pool_n);
	return m;
}

static void *ur_thread_init(void *map, int tid)
{
	(void)tid;
	ur_register();
	return map;
}

static void ur_thread_fini(void *map, void *handle)
{
	(void)map;
	(void)handle;
	if (ur_registered) {
		rcu_unregister_thread();
		ur_registered = 0;
	}
}

static inline void ur_insert(struct umap *m, const uint64_t *key, uint32_t words,
			     uint64_t val)
{
	struct ur_key k = { key, words };
	unsigned long hash = (unsigned long)bench_hash_words(key, words);
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	struct ur_elt *e;

	rcu_read_lock();
	cds_lfht_lookup(m->ht, hash, ur_match, &k, &iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node) {
		e = caa_container_of(node, struct ur_elt, node);
	} else {
		/* Relaxed: rations capacity; the table orders the node. */
		uint64_t i = __atomic_fetch_add(&m->next, 1, __ATOMIC_RELAXED);

		if (i >= m->pool_n ||
		    __atomic_fetch_add(&m->nr_elts, 1, __ATOMIC_RELAXED) >= m->capacity) {
			rcu_read_unlock();
			__atomic_fetch_add(&m->drops, 1, __ATOMIC_RELAXED);
			return;
		}
		e = &m->pool[i];
		cds_lfht_node_init(&e->node);
		memcpy(e->key, key, words * 8);
		node = cds_lfht_add_unique(m->ht, hash, ur_match, &k, &e->node);
		if (node != &e->node) {
			/* Lost the race: give the capacity back. */
			__atomic_fetch_sub(&m->nr_elts, 1, __ATOMIC_RELAXED);
			e = caa_container_of(node, struct ur_elt, node);
		}
	}
	/* Relaxed: sums order nothing. */
	__atomic_fetch_add(&e->sum[0], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&e->sum[1], val, __ATOMIC_RELAXED);
	rcu_read_unlock();
}

#define UR_BODY(h, r, K)						\
	do {								\
		uint64_t k_[BENCH_KEY_WORDS_MAX];			\
									\
		bench_key_read(K, r, k_);				\
		ur_insert((h), k_, bench_key_words(K), (r)->val);	\
	} while (0)

BENCH_HIT_VARIANTS(ur_hit, UR_BODY)

static int ur_read_out(void *map, struct bench_readout *o, const char **why)
{
	struct umap *m = map;
	struct cds_lfht_iter iter;
	struct ur_elt *e;

	(void)why;
	ur_register();
	rcu_read_lock();
	cds_lfht_for_each_entry(m->ht, &iter, e, node) {
		o->entries++;
		o->hits += e->sum[0];
		o->sum += e->sum[1];
	}
	rcu_read_unlock();
	o->drops = m->drops;
	o->total_hits = o->hits;
	return 0;
}

static void ur_destroy(void *map)
{
	struct umap *m = map;
	struct cds_lfht_iter iter;
	struct ur_elt *e;

	ur_register();
	rcu_read_lock();
	cds_lfht_for_each_entry(m->ht, &iter, e, node)
		cds_lfht_del(m->ht, &e->node);
	rcu_read_unlock();
	synchronize_rcu();
	if (cds_lfht_destroy(m->ht, NULL))
		bench_die("cds_lfht_destroy failed");
	bench_free(m->pool);
	bench_free(m);
}

const struct bench_contender bench_urcu = {
	.name = "urcu",
	.supports = bench_supports_plain,
	.create = ur_create,
	.thread_init = ur_thread_init,
	.thread_fini = ur_thread_fini,
	.hit_fn = ur_hit_pick,
	.read_out = ur_read_out,
	.destroy = ur_destroy,
};
