/* SPDX-License-Identifier: MIT */
/*
 * The map and element layouts, and the accessors and fast paths that the
 * hot path inlines.  Included by map.h only; nothing outside src/map/
 * should rely on the layout beyond the functions declared in map.h.
 */
#ifndef HIST_MAP_INLINE_H
#define HIST_MAP_INLINE_H

#include "platform.h"

/* The hit path is a handful of small functions; have them inlined even
 * where the compiler's size heuristics would keep a copy out of line. */
#if defined(__GNUC__) || defined(__clang__)
#define HIST__MAP_INLINE inline __attribute__((always_inline))
#else
#define HIST__MAP_INLINE inline
#endif

/*
 * One slot of the open-addressing table; a published slot is an element.
 * Slots are stored inline, STRIDE bytes apart, so a hit touches one slot:
 *
 *	+0	u32 state	empty / busy / ready / dead, plus a hash tag
 *	+4	u32 meta	key words (bits 24..31), element index (0..23)
 *	+8	key		key words * 8 bytes
 *	+8+key	payload		nr_sums u64 sums (unless pcpu_sums), then
 *				the caller's bytes
 *
 * Everything after the state word is written only by the thread that
 * claimed the slot, before its release store of a READY state; it is
 * read only after an acquire load of that READY state.  The payload sums
 * are the exception: they are atomic words, updated by anyone who holds
 * the element.  The element index (dense, in claim order) locates the
 * element's per-cpu sums.
 */
struct hist_map_elt {
	uint32_t state;
	uint32_t meta;
	uint64_t data[];
};

#define HIST__MAP_IDX_MASK 0xffffffu
#define HIST__MAP_WORDS_SHIFT 24

/* Per cpu slot, one cache line each; block nr_cpus is the shared one. */
struct hist__map_pcpu {
	uint64_t hits;
	uint64_t drops;
} HIST__ALIGNED(HIST__CACHELINE);

struct hist_map {
	/* Read-only after create; the first line is what every hit reads. */
	char *slots;
	struct hist__map_pcpu *pcpu;
	/* pcpu_sums: nr_cpus + 1 copies of the sums, one per slot and the
	 * shared one last, each capacity * nr_sums words; else NULL */
	uint64_t **sums;
	uint32_t (*hash)(const void *key, uint32_t len);
	uint32_t shift;		/* 32 - (bits + 1): hash high word -> slot */
	uint32_t stride;	/* bytes per slot */
	uint32_t nr_cpus;
	uint32_t nr_sums;
	uint32_t key_size;
	uint32_t fast8;		/* 8-byte key, default hash: inline probe */
	uint32_t mask;		/* nr_slots - 1 */
	uint32_t nr_slots;
	/* Second line: inserts of new keys, reads, control. */
	uint32_t capacity;
	uint32_t payload_size;
	void (*elt_init)(void *payload, void *init_arg);
	/* pcpu_sums: bit S set once slot S counted a hit (its copy is used) */
	uint64_t *used;
	void *slots_raw;
	void *pcpu_raw;
	void *sums_raw;
	void *self_raw;

	/* Written once per new key: kept off the lines above. */
	uint32_t nr_elts HIST__ALIGNED(HIST__CACHELINE);
};

#define HIST__MAP_BUSY 0x40000000u
#define HIST__MAP_READY 0x80000000u
#define HIST__MAP_DEAD (HIST__MAP_BUSY | HIST__MAP_READY)
#define HIST__MAP_FLAGS HIST__MAP_DEAD
#define HIST__MAP_TAG 0x3fffffffu

static inline void *hist__map_elt_key(struct hist_map_elt *e)
{
	return e->data;
}

static inline void *hist__map_elt_payload(struct hist_map_elt *e)
{
	return e->data + (e->meta >> HIST__MAP_WORDS_SHIFT);
}

static inline void hist__map_sum_add(struct hist_map_elt *e, uint32_t i, uint64_t v)
{
	uint64_t *sums = hist__map_elt_payload(e);

	/* Relaxed: a sum orders nothing; readers want exactness only at rest. */
	hist__add_relaxed(&sums[i], v);
}

static inline uint64_t hist__map_sum_read(struct hist_map_elt *e, uint32_t i)
{
	uint64_t *sums = hist__map_elt_payload(e);

	/* Relaxed: pairs with nothing; atomic only so a torn read is impossible. */
	return hist__load_relaxed(&sums[i]);
}

/*
 * The hash of an 8-byte key: fold the halves, multiply by 2^64/phi
 * (Fibonacci hashing).  The high word, which picks the slot, depends on
 * every key bit and spreads arithmetic progressions (pids, aligned
 * addresses, bucketed values) evenly; the low word gives the tag.
 */
static inline uint64_t hist__map_hash8(uint64_t k)
{
	return (k ^ (k >> 32)) * 0x9e3779b97f4a7c15ull;
}

/* A 64-bit finaliser: every input bit flips about half the output bits. */
static inline uint64_t hist__map_mix64(uint64_t x)
{
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ull;
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ull;
	x ^= x >> 32;
	return x;
}

/* Whether SLOT's updates are plain stores (contract 10 in map.c). */
static inline bool hist__map_slot_local(const struct hist_map *m, uint32_t slot)
{
	return slot < m->nr_cpus && m->sums;
}

/* Counter block of SLOT: its own, or the shared one. */
static inline struct hist__map_pcpu *hist__map_pcpu_of(const struct hist_map *m,
						       uint32_t slot)
{
	return &m->pcpu[slot < m->nr_cpus ? slot : m->nr_cpus];
}

void hist__map_mark_used(struct hist_map *m, uint32_t slot) HIST__INTERNAL;

/*
 * Count one hit for SLOT.  An exclusive slot's counter is written by its
 * owner only: a relaxed load and store, no locked instruction.  A slot's
 * first hit marks its sums copy used (readers add only used copies).
 */
static inline void hist__map_count_hit(struct hist_map *m, uint32_t slot)
{
	struct hist__map_pcpu *pc = hist__map_pcpu_of(m, slot);
	uint64_t old;

	if (hist__likely(hist__map_slot_local(m, slot))) {
		/* Relaxed load and store: the owner is the only writer. */
		old = hist__load_relaxed(&pc->hits);
		hist__store_relaxed(&pc->hits, old + 1);
	} else {
		/* Relaxed: a statistic; shared by concurrent callers. */
		old = hist__fetch_add_relaxed(&pc->hits, 1);
	}
	if (hist__unlikely(!old) && m->used)
		hist__map_mark_used(m, slot);
}

/*
 * The sums of E that SLOT adds to: SLOT's copy with pcpu_sums, else the
 * payload's shared words.  Only after an insert through the same SLOT
 * (which marks the copy used); add with hist__map_sums_add().
 */
static inline uint64_t *hist__map_sums_of(struct hist_map *m, struct hist_map_elt *e,
					  uint32_t slot)
{
	if (hist__likely(m->sums != NULL))
		return m->sums[slot < m->nr_cpus ? slot : m->nr_cpus] +
		       (size_t)(e->meta & HIST__MAP_IDX_MASK) * m->nr_sums;
	return (uint64_t *)hist__map_elt_payload(e);
}

/* Probes of the inline path before it hands over to the full one. */
#define HIST__MAP_INLINE_PROBES 4

/*
 * The inline half of hist__map_insert_sums(): finds an 8-byte KEY near its
 * home slot and counts the hit, or returns NULL having done nothing (the
 * key is elsewhere, new, being published, or the map is not fast8); the
 * caller then takes hist__map_insert_sums().  Calls nothing, so a caller
 * can keep its whole fast path free of calls (and of saved registers).
 */
static HIST__MAP_INLINE struct hist_map_elt *
hist__map_find_hit(struct hist_map *m, uint64_t k, uint32_t slot, uint64_t **sums)
{
	uint64_t h;
	uint32_t idx, want, n;

	if (hist__unlikely(!m->fast8))
		return NULL;
	h = hist__map_hash8(k);
	want = HIST__MAP_READY | ((uint32_t)h & HIST__MAP_TAG);
	idx = (uint32_t)(h >> 32) >> m->shift;
	for (n = 0; n < HIST__MAP_INLINE_PROBES; n++) {
		struct hist_map_elt *e =
			(struct hist_map_elt *)(m->slots + (size_t)idx * m->stride);
		/* Acquire: pairs with the READY release before the key compare. */
		uint32_t s = hist__load_acquire(&e->state);

		if (hist__likely(s == want && e->data[0] == k)) {
			*sums = hist__map_sums_of(m, e, slot);
			hist__map_count_hit(m, slot);
			return e;
		}
		/* An empty slot ends the chain: the key is new (or being
		 * claimed); a BUSY slot may be this key being published. */
		if (!s || (s & HIST__MAP_FLAGS) == HIST__MAP_BUSY)
			return NULL;
		idx = (idx + 1) & m->mask;
	}
	return NULL;
}

/*
 * hist__map_insert_cpu() that also returns, in *SUMS, the element's sums
 * for SLOT (hist__map_sums_of()), found before the hit is counted so that
 * the caller's adds follow the map's loads without reloading them.
 */
static HIST__MAP_INLINE struct hist_map_elt *
hist__map_insert_sums(struct hist_map *m, const void *key, uint32_t slot, void *init_arg,
		      uint64_t **sums)
{
	struct hist_map_elt *e;
	uint64_t k;

	memcpy(&k, key, 8);	/* key_size >= 8 */
	e = hist__map_find_hit(m, k, slot, sums);
	if (hist__likely(e != NULL))
		return e;
	e = hist__map_insert_slow(m, key, slot, init_arg);
	if (e)
		*sums = hist__map_sums_of(m, e, slot);
	return e;
}

static inline struct hist_map_elt *hist__map_insert_cpu(struct hist_map *m, const void *key,
							uint32_t slot, void *init_arg)
{
	uint64_t *sums;

	return hist__map_insert_sums(m, key, slot, init_arg, &sums);
}

/* Add V to SUMS[I]; LOCAL from hist__map_slot_local() for the same slot. */
static inline void hist__map_sums_add(uint64_t *sums, uint32_t i, uint64_t v, bool local)
{
	if (hist__likely(local))
		/* Relaxed load and store: the slot's owner is the only writer;
		 * atomic words only so that a concurrent reader sees no tear. */
		hist__store_relaxed(&sums[i], hist__load_relaxed(&sums[i]) + v);
	else
		/* Relaxed: a sum orders nothing. */
		hist__add_relaxed(&sums[i], v);
}

static inline void hist__map_sum_add_cpu(struct hist_map *m, struct hist_map_elt *e,
					 uint32_t slot, uint32_t i, uint64_t v)
{
	hist__map_sums_add(hist__map_sums_of(m, e, slot), i, v, hist__map_slot_local(m, slot));
}

#endif /* HIST_MAP_INLINE_H */
