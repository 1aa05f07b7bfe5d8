/* SPDX-License-Identifier: MIT */
/*
 * The map and element layouts, and the accessors and fast paths that the
 * hot path inlines.  Included by map.h only; nothing outside src/map/
 * should rely on the layout beyond the functions declared in map.h.
 */
#ifndef HIST_MAP_INLINE_H
#define HIST_MAP_INLINE_H

#include "common/platform.h"

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
 *	+0	u32 state	empty / busy / ready / dead, the home cpu slot
 *				and a hash tag (bit layout below)
 *	+4	u32 meta	payload offset in words (bits 24..31),
 *				element index (0..23)
 *	+8	key		key words * 8 bytes
 *	+8+key	sums		nr_sums u64: the home slot's sums (pcpu_sums)
 *				or everybody's atomic sums (no pcpu_sums)
 *	...	payload		the caller's bytes
 *
 * Everything after the state word is written only by the thread that
 * claimed the slot, before its release store of a READY state; it is
 * read only after an acquire load of that READY state.  The sums are the
 * exception: they are atomic words, updated by whoever the sums' owner
 * is (contract 10 in map.c).  The element index (dense, in claim order)
 * locates the element's sums in the per-cpu copies.
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
	/* The params' MULTI word (or ZERO): see hist__map_not_home() */
	const uint32_t *multi;
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
	uint32_t start_mask;	/* see hist__map_start() */
	/* Second line: inserts of new keys, reads, control. */
	uint32_t capacity;
	uint32_t nr_slots;
	struct hist__map_pcpu *pcpu;
	uint32_t zero;		/* what MULTI points to without the params' */
	uint32_t payload_size;
	void (*elt_init)(void *payload, void *init_arg);
	/* pcpu_sums: bit S set once copy S was added to; else NULL */
	uint64_t *used;
	/* Sum 0 counts the hits: no separate hit counter (hist__map_hits()
	 * adds up sum 0 instead). */
	bool hits_sum0;
	/* pcpu_sums with the home slot's sums inline in the element (else
	 * every element is published CROSSED and only the copies are used) */
	bool inline_home;
	/* The other element of a 32-byte slot's cache line is at E ^ NB_XOR
	 * (0: no other slot's owner can share the line; see line_check()) */
	uint32_t nb_xor;
	/* A new element's meta word but its index, and the state bits it is
	 * published with besides READY, HOME and TAG */
	uint32_t meta_words;
	uint32_t publish_bits;
	void *slots_raw;
	void *pcpu_raw;
	void *sums_raw;
	void *self_raw;

	/* Written once per new key: kept off the lines above. */
	uint32_t nr_elts HIST__ALIGNED(HIST__CACHELINE);
};

/*
 * The state word:
 *
 *	31	READY
 *	30	BUSY		(READY and BUSY together: DEAD)
 *	17..29	HOME		the cpu slot whose owner adds to the inline
 *				sums; HIST__MAP_HOME_SHARED for an element
 *				created by a HIST__MAP_SHARED caller
 *	16	CROSSED		a slot other than HOME has hit the element
 *	0..15	TAG		16 bits of the key's hash
 *
 * HOME is written with the claim (BUSY) and kept with READY; it never
 * changes.
 * CROSSED is set by the first hit through another slot, or at creation
 * when the element's cache line holds another owner's element (map.c),
 * and then stays: from then on the home slot adds to its per-cpu copy
 * too, so that the element's line is read-only for everybody and no two
 * cpus write a common line.  The inline sums stay the home slot's alone
 * (frozen once it sees CROSSED); readers add them and the copies.
 */
#define HIST__MAP_BUSY 0x40000000u
#define HIST__MAP_READY 0x80000000u
#define HIST__MAP_DEAD (HIST__MAP_BUSY | HIST__MAP_READY)
#define HIST__MAP_FLAGS HIST__MAP_DEAD
#define HIST__MAP_TAG 0xffffu
#define HIST__MAP_CROSSED 0x10000u
#define HIST__MAP_HOME_SHIFT 17
#define HIST__MAP_HOME_SHARED 0x1fffu
#define HIST__MAP_HOME_MASK (HIST__MAP_HOME_SHARED << HIST__MAP_HOME_SHIFT)
/* What says whose the inline sums are, besides the key's identity. */
#define HIST__MAP_OWNER_BITS (HIST__MAP_HOME_MASK | HIST__MAP_CROSSED)
/* A bit no READY state has: a HOME value with it matches no element
 * (hist__map_not_home()). */
#define HIST__MAP_NOT_HOME HIST__MAP_BUSY

/*
 * The first slot of the probe chain of a key of hash H.  In a table that
 * hist__map_line2() accepts it is even, the first of a cache line's two,
 * so that one look at the line finds a key in either of them
 * (hist__map_first_line32()); elsewhere a chain starts anywhere, which
 * keeps the chains shorter.
 */
#define HIST__MAP_START_LINE2 (~1u)
/* The same with the map's start mask given: a constant where the
 * caller knows which kind of map it has. */
static inline uint32_t hist__map_start_as(const struct hist_map *m, uint64_t h, uint32_t mask)
{
	return ((uint32_t)(h >> 32) >> m->shift) & mask;
}

static inline uint32_t hist__map_start(const struct hist_map *m, uint64_t h)
{
	return hist__map_start_as(m, h, m->start_mask);
}

static inline void *hist__map_elt_key(struct hist_map_elt *e)
{
	return e->data;
}

static inline void *hist__map_elt_payload(struct hist_map_elt *e)
{
	return e->data + (e->meta >> HIST__MAP_WORDS_SHIFT);
}

/* The sums in E, after its key: the home slot's with pcpu_sums, else
 * everybody's. */
static inline uint64_t *hist__map_inline_sums(const struct hist_map *m, struct hist_map_elt *e)
{
	return e->data + (m->key_size >> 3);
}

static inline void hist__map_sum_add(const struct hist_map *m, struct hist_map_elt *e,
				     uint32_t i, uint64_t v)
{
	/* Relaxed: a sum orders nothing; readers want exactness only at rest. */
	hist__add_relaxed(&hist__map_inline_sums(m, e)[i], v);
}

static inline uint64_t hist__map_sum_read(const struct hist_map *m, struct hist_map_elt *e,
					  uint32_t i)
{
	/* Relaxed: pairs with nothing; atomic only so a torn read is impossible. */
	return hist__load_relaxed(&hist__map_inline_sums(m, e)[i]);
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

/* The hash of a key of WORDS 8-byte words (more than one): each word
 * mixed in, then a finaliser. */
static inline uint64_t hist__map_hash_words(const void *key, uint32_t words)
{
	const unsigned char *k = key;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (words * 8u), w;
	uint32_t i;

	/* Unrolled where WORDS is a constant (the wide-key variants). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
	for (i = 0; i < words; i++) {
		memcpy(&w, k + 8 * i, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 29;
	}
	return hist__map_mix64(h);
}

/* Whether SLOT's updates are owner adds, hist__add_local() (contract 10 in map.c). */
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

/* The HOME field an element created through SLOT carries (and that SLOT's
 * hits look for), already shifted into place. */
static inline uint32_t hist__map_home_bits(const struct hist_map *m, uint32_t slot)
{
	return (slot < m->nr_cpus ? slot : HIST__MAP_HOME_SHARED) << HIST__MAP_HOME_SHIFT;
}

/* The state of a READY element created by the owned SLOT (below
 * nr_cpus), not CROSSED, without its tag. */
static inline uint32_t hist__map_home_state(uint32_t slot)
{
	return HIST__MAP_READY | slot << HIST__MAP_HOME_SHIFT;
}

/*
 * HIST__MAP_NOT_HOME once M's cpu slots are owned by more than one
 * thread (the params' MULTI word holds it), else 0.  ORed into the HOME
 * value that a hit compares with an element's state, it makes every
 * element look another slot's (no state has BUSY with READY and a
 * HOME): each hit adds to its slot's copy, and the inline sums stay
 * frozen, their home's alone, added up by readers as before.  Measured
 * on a 2-core machine (bench/README.md, run G): two threads on disjoint
 * keys, whose table lines would each be written by one of them and read
 * by both, ran 15-30% faster with every line read-only, though each hit
 * then writes a second line; one thread runs 10-40% faster with inline
 * sums.
 */
static inline uint32_t hist__map_not_home(const struct hist_map *m)
{
	/* Relaxed: a mode word, set once.  A hit that misses it for a while
	 * adds inline, to words that are still its slot's (contract 10). */
	return hist__load_relaxed(m->multi);
}

void hist__map_mark_used(struct hist_map *m, uint32_t copy) HIST__INTERNAL;

/*
 * SLOT's copy of E's sums, for a hit through a slot that is not E's home.
 * The copy's first use marks it in USED, so that readers add only the
 * copies that were ever written.
 */
static inline uint64_t *hist__map_copy_sums(struct hist_map *m, struct hist_map_elt *e,
					    uint32_t slot)
{
	uint32_t c = slot < m->nr_cpus ? slot : m->nr_cpus;

	/* Relaxed: a flag set once; the bit is only a hint for readers, who
	 * are exact at rest (contract 10). */
	if (hist__unlikely(!(hist__load_relaxed(&m->used[c / 64]) >> (c % 64) & 1)))
		hist__map_mark_used(m, c);
	return m->sums[c] + (size_t)(e->meta & HIST__MAP_IDX_MASK) * m->nr_sums;
}

/* Mark E CROSSED, and the other element of its cache line (see "Per-cpu
 * sums" in map.c), and return SLOT's copy (out of line: rare). */
uint64_t *hist__map_cross(struct hist_map *m, struct hist_map_elt *e,
			  uint32_t slot) HIST__INTERNAL;

/*
 * The sums of E, whose state word is S, that SLOT adds to: the inline
 * ones when SLOT is E's home (or the map has no per-cpu sums), else
 * SLOT's copy.  Add to them with hist__map_sums_add().
 */
static inline uint64_t *hist__map_sums_at(struct hist_map *m, struct hist_map_elt *e,
					  uint32_t s, uint32_t slot)
{
	uint32_t home = hist__map_home_bits(m, slot) | hist__map_not_home(m);

	if (!m->sums || hist__likely((s & HIST__MAP_OWNER_BITS) == home))
		return hist__map_inline_sums(m, e);
	if (!(s & HIST__MAP_CROSSED))
		return hist__map_cross(m, e, slot);
	return hist__map_copy_sums(m, e, slot);
}

/* hist__map_sums_at() out of line, for the probes' less common case. */
uint64_t *hist__map_sums_other(struct hist_map *m, struct hist_map_elt *e, uint32_t s,
			       uint32_t slot) HIST__INTERNAL;

static inline uint64_t *hist__map_sums_of(struct hist_map *m, struct hist_map_elt *e,
					  uint32_t slot)
{
	/* Relaxed: a READY state never changes again. */
	return hist__map_sums_at(m, e, hist__load_relaxed(&e->state), slot);
}

/*
 * Count one hit for SLOT.  An exclusive slot's counter is written by its
 * owner only: a relaxed load and store, no locked instruction.
 */
static inline void hist__map_count_hit(struct hist_map *m, uint32_t slot)
{
	struct hist__map_pcpu *pc = hist__map_pcpu_of(m, slot);

	if (m->hits_sum0)
		return;
	if (hist__likely(hist__map_slot_local(m, slot)))
		/* One instruction: the owner is the only writer (contract 10). */
		hist__add_local(&pc->hits, 1);
	else
		/* Relaxed: a statistic; shared by concurrent callers. */
		hist__add_relaxed(&pc->hits, 1);
}

/*
 * Probes of the inline paths before they hand over to the full one.  In
 * a table half full (a map at capacity) 3-5% of the hits are to keys
 * more than 4 slots from their start, which paid the full insert on
 * every hit with 4 probes (the u2k row: 94 instructions per event with
 * 4, 89 with 8).  A further probe costs only the hits that take it.
 */
#define HIST__MAP_INLINE_PROBES 8

/*
 * SLOT's copy of the sums of E, CROSSED, when SLOT's copy is already
 * marked used, else NULL: hist__map_copy_sums() without its call.
 * NR_SUMS is the map's, a constant where the caller knows it.
 */
static HIST__MAP_INLINE uint64_t *hist__map_copy_if_used_n(struct hist_map *m,
							    struct hist_map_elt *e, uint32_t slot,
							    uint32_t nr_sums)
{
	/* Relaxed: as in hist__map_copy_sums(). */
	if (hist__unlikely(!(hist__load_relaxed(&m->used[slot / 64]) >> (slot % 64) & 1)))
		return NULL;
	return m->sums[slot] + (size_t)(e->meta & HIST__MAP_IDX_MASK) * nr_sums;
}

/* The same for any map: NR_SUMS read from it. */
static HIST__MAP_INLINE uint64_t *hist__map_copy_if_used(struct hist_map *m,
							  struct hist_map_elt *e, uint32_t slot)
{
	return hist__map_copy_if_used_n(m, e, slot, m->nr_sums);
}

/*
 * Look for an 8-byte key K in the first NPROBES slots of its chain, for
 * a hit through SLOT whose elements' state but for the tag is HOME
 * (READY, hist__map_home_bits(), and hist__map_not_home() ORed in):
 * the element with, in *SUMS, the sums SLOT adds to (the inline ones for
 * the element's home, checked first: one compare of the whole state
 * word), or NULL having done nothing when the key is further away, new
 * or being published (an empty or BUSY slot ends the look).
 * LEAF (a constant; SLOT then owned, below nr_cpus, on a pcpu_sums map):
 * make no call, and return NULL, having done nothing, where one would be
 * needed (marking an element CROSSED, a copy's first use), so that the
 * caller's inline path saves no registers for calls it does not make.
 * ABSENT (NULL, or a flag the caller set false): set when an empty slot
 * ended the look, i.e. the key is not in the map.
 * IGNORE (a constant): state bits the home test leaves out; 0, or
 * HIST__MAP_HOME_MASK on a map without per-cpu sums, whose element sums
 * are everybody's whatever its HOME.
 * A home hit is one compare: whether the element's cache line is fit for
 * its inline sums was settled when the elements were created (map.c).
 */
static HIST__MAP_INLINE struct hist_map_elt *
hist__map_probe8(struct hist_map *m, uint64_t k, uint32_t slot, uint32_t home,
		 uint32_t nprobes, uint64_t **sums, const bool leaf, bool *absent,
		 const uint32_t ignore)
{
	uint64_t h = hist__map_hash8(k);
	/* What K's element's state is when SLOT adds to its inline sums */
	uint32_t want_inline = home | ((uint32_t)h & HIST__MAP_TAG);
	/* The state of K's element at home: READY, HOME, the tag */
	uint32_t want = want_inline & ~HIST__MAP_NOT_HOME;
	uint32_t idx = hist__map_start(m, h), n;

	/* Unrolled: the probe count is a constant at every use. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
	for (n = 0; n < nprobes; n++) {
		struct hist_map_elt *e =
			(struct hist_map_elt *)(m->slots + (size_t)idx * m->stride);
		/* Acquire: pairs with the READY release before the key compare. */
		uint32_t s = hist__load_acquire(&e->state);

		if (hist__likely((s & ~ignore) == want_inline && e->data[0] == k)) {
			*sums = e->data + 1;
			return e;
		}
		/* another HOME, or CROSSED: with IGNORE, the test above took
		 * every element of K (a map without copies has no CROSSED) */
		if (!ignore && !((s ^ want) & ~HIST__MAP_OWNER_BITS) && e->data[0] == k) {
			if (!leaf)
				*sums = hist__map_sums_other(m, e, s, slot);
			else if (!(s & HIST__MAP_CROSSED) || !(*sums = hist__map_copy_if_used(m, e, slot)))
				return NULL;
			return e;
		}
		if (!s) {
			if (absent)
				*absent = true;
			return NULL;
		}
		if ((s & HIST__MAP_FLAGS) == HIST__MAP_BUSY)
			return NULL;
		idx = (idx + 1) & m->mask;
	}
	return NULL;
}

/*
 * The element of a key of WORDS 8-byte words (more than one) at KEY
 * among the first HIST__MAP_INLINE_PROBES slots of its chain, its state
 * in *STATE; else NULL, with *ABSENT (if not NULL) set when an empty
 * slot ended the look (the key is not in the map).  A BUSY slot also
 * ends it, and so does a test hook's hash.  Reads only.
 */
static HIST__MAP_INLINE struct hist_map_elt *
hist__map_probe_words(struct hist_map *m, const void *key, uint32_t words, uint32_t *state,
		      bool *absent)
{
	const unsigned char *kb = key;
	uint32_t tag, idx, n, i;
	uint64_t h;

	if (hist__unlikely(m->hash != NULL))
		return NULL;
	h = hist__map_hash_words(key, words);
	tag = HIST__MAP_READY | ((uint32_t)h & HIST__MAP_TAG);
	idx = hist__map_start(m, h);
	for (n = 0; n < HIST__MAP_INLINE_PROBES; n++) {
		struct hist_map_elt *e =
			(struct hist_map_elt *)(m->slots + (size_t)idx * m->stride);
		/* Acquire: pairs with the READY release before the key compare. */
		uint32_t s = hist__load_acquire(&e->state);

		if ((s & ~HIST__MAP_OWNER_BITS) == tag) {
			uint64_t diff = 0, w;

			/* Every word, no branch: the tag has matched, so
			 * the key almost always does too. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
			for (i = 0; i < words; i++) {
				memcpy(&w, kb + 8 * i, 8);
				diff |= e->data[i] ^ w;
			}
			if (!diff) {
				*state = s;
				return e;
			}
		}
		if (!s) {
			if (absent)
				*absent = true;
			return NULL;
		}
		if ((s & HIST__MAP_FLAGS) == HIST__MAP_BUSY)
			return NULL;
		idx = (idx + 1) & m->mask;
	}
	return NULL;
}

/*
 * hist__map_find_hit() for a key of more than 8 bytes (strings, compound
 * keys): hist__map_probe_words(), then the sums SLOT adds to and the hit
 * counted, or NULL having done nothing.
 */
static HIST__MAP_INLINE struct hist_map_elt *
hist__map_find_words(struct hist_map *m, const void *key, uint32_t slot, uint64_t **sums)
{
	uint32_t s;
	struct hist_map_elt *e = hist__map_probe_words(m, key, m->key_size / 8, &s, NULL);

	if (!e)
		return NULL;
	*sums = hist__map_sums_other(m, e, s, slot);
	hist__map_count_hit(m, slot);
	return e;
}

/*
 * The inline half of hist__map_insert_sums(): finds KEY near its home
 * slot and counts the hit, or returns NULL having done nothing (the key
 * is elsewhere, new, being published, or hashed by a test hook); the
 * caller then takes hist__map_insert_slow().
 */
static HIST__MAP_INLINE struct hist_map_elt *
hist__map_find_hit(struct hist_map *m, const void *key, uint32_t slot, uint64_t **sums)
{
	struct hist_map_elt *e;
	uint64_t k;

	if (hist__unlikely(!m->fast8))
		return hist__map_find_words(m, key, slot, sums);
	memcpy(&k, key, 8);
	e = hist__map_probe8(m, k, slot,
			     HIST__MAP_READY | hist__map_home_bits(m, slot) | hist__map_not_home(m),
			     HIST__MAP_INLINE_PROBES, sums, false, NULL, 0);
	if (e)
		hist__map_count_hit(m, slot);
	return e;
}

/*
 * The hit path's first try, for a caller that owns SLOT (below nr_cpus)
 * of a fast8, hits_sum0, pcpu_sums map (nothing to count besides the
 * sums), whose elements' state but for the tag is HOME (as for
 * hist__map_first_owned32()): the sums this slot adds to with
 * hist__add_local() (contract 10)
 * for a key K within HIST__MAP_INLINE_PROBES slots, else NULL having
 * done nothing, with *ABSENT (which the caller set false) set when K is
 * not in the map; hist__map_drop_absent() and hist__map_insert_sums()
 * do the rest.
 */
static HIST__MAP_INLINE uint64_t *hist__map_find_owned(struct hist_map *m, uint64_t k,
							uint32_t slot, uint32_t home, bool *absent)
{
	uint64_t *sums;

	if (!hist__map_probe8(m, k, slot, home, HIST__MAP_INLINE_PROBES, &sums, true, absent, 0))
		return NULL;
	return sums;
}

/*
 * The hit path's first try on a fast8, hits_sum0 map without per-cpu
 * sums: the sums of a key K within HIST__MAP_INLINE_PROBES slots, which
 * every caller adds to with atomic adds, whatever the element's HOME
 * (such a map publishes no CROSSED element: it has no copies); else
 * NULL having done nothing, with *ABSENT (which the caller set false)
 * set when K is not in the map.
 */
static HIST__MAP_INLINE uint64_t *hist__map_find_shared(struct hist_map *m, uint64_t k,
							bool *absent)
{
	uint64_t *sums;

	/* any HOME; LEAF, as the look never needs a copy */
	if (!hist__map_probe8(m, k, HIST__MAP_SHARED, HIST__MAP_READY, HIST__MAP_INLINE_PROBES,
			      &sums, true, absent, HIST__MAP_HOME_MASK))
		return NULL;
	return sums;
}

/*
 * The end of the first looks below: E, whose state is S, is K's element
 * CROSSED (a key of several slots, or any key once the slots have several
 * owner threads): SLOT's copy of its sums, if in use; else NULL.
 * READY, CROSSED, the tag, any HOME: all that differs from WANT (READY,
 * the tag, maybe NOT_HOME) outside HOME and NOT_HOME is CROSSED; a DEAD
 * or BUSY state differs in READY or the tag too.
 */
static HIST__MAP_INLINE uint64_t *hist__map_crossed32(struct hist_map *m, struct hist_map_elt *e,
						       uint32_t s, uint32_t want, uint64_t k,
						       uint32_t slot, const uint32_t nr_sums)
{
	if (((s ^ want) & ~(HIST__MAP_HOME_MASK | HIST__MAP_NOT_HOME)) == HIST__MAP_CROSSED &&
	    e->data[0] == k)
		return hist__map_copy_if_used_n(m, e, slot, nr_sums);
	return NULL;
}

/*
 * The first probe of hist__map_find_owned() alone, for a map that
 * hist__map_slots32() accepts and hist__map_line2() does not (tables
 * past a last-level cache), and a hit through an owned slot whose
 * elements' state is HOME but for the tag (hist__map_home_state(), with
 * hist__map_not_home() ORed in): the inline sums of K's element when it
 * is at its start slot, READY, the slot's own and not CROSSED; else
 * SLOT's copy of them (NR_SUMS, the map's, a constant) when the element
 * there is CROSSED and the copy in use; else NULL having done nothing,
 * with *ABSENT set when the start slot is empty (K is not in the map:
 * hist__map_drop_absent() and hist__map_insert_slow() do the rest) and
 * false when K may be further on (hist__map_find_owned(), which looks
 * again).  In a table at most half full most hits end here, and a
 * caller that inlines only this probe keeps few enough values live to
 * save one register at most: the rest of the chain is out of line.
 */
static HIST__MAP_INLINE uint64_t *hist__map_first_owned32(struct hist_map *m, uint64_t k,
							   uint32_t slot, uint32_t home,
							   const uint32_t nr_sums, bool *absent)
{
	uint64_t h = hist__map_hash8(k);
	uint32_t want = home | ((uint32_t)h & HIST__MAP_TAG);
	/* Not hist__map_line2(): chains start anywhere */
	size_t idx = hist__map_start_as(m, h, ~0u);
	struct hist_map_elt *e = (struct hist_map_elt *)(m->slots + (idx << 5));
	/* Acquire: pairs with the READY release before the key compare. */
	uint32_t s = hist__load_acquire(&e->state);

	if (hist__likely(s == want && e->data[0] == k))
		return e->data + 1;
	*absent = !s;
	return hist__map_crossed32(m, e, s, want, k, slot, nr_sums);
}

/*
 * hist__map_first_owned32() for a map that hist__map_line2() accepts: the
 * same answers for a key in either slot of its chain's first cache line.
 * The chain starts at the line's first slot; the second is picked, with
 * no branch, when its key word is K: a branch there would go the wrong
 * way for every key not at its start slot (13% of the hits at 1K keys,
 * 25% in a table at capacity, each costing more than the look).  The
 * pick makes the adds' address wait for the line, which costs more than
 * it saves when the line comes from memory: hence only tables that fit
 * a last-level cache (hist__map_line2()).
 */
static HIST__MAP_INLINE uint64_t *hist__map_first_line32(struct hist_map *m, uint64_t k,
							  uint32_t slot, uint32_t home,
							  const uint32_t nr_sums, bool *absent)
{
	uint64_t h = hist__map_hash8(k);
	uint32_t want = home | ((uint32_t)h & HIST__MAP_TAG);
	struct hist_map_elt *e0 = (struct hist_map_elt *)(
		m->slots + ((size_t)hist__map_start_as(m, h, HIST__MAP_START_LINE2) << 5));
	struct hist_map_elt *e1 = (struct hist_map_elt *)((char *)e0 + 32);
	/*
	 * Relaxed, and before the state: a guess, which the key compare
	 * after the acquire below confirms, picked without a branch.  Not for
	 * key 0: the key word of an empty or DEAD slot is zero too, and a
	 * hot key 0 with the second slot empty would miss every time; at
	 * the second slot it is found by the rest of the chain instead.
	 */
	struct hist_map_elt *e = (struct hist_map_elt *)hist__opaque(
		(uintptr_t)(hist__load_relaxed(&e1->data[0]) == k ? e1 : e0));
	uint32_t s;

	if (hist__unlikely(k == 0))
		e = e0;
	/* Acquire: pairs with the READY release before the key compare. */
	s = hist__load_acquire(&e->state);

	if (hist__likely(s == want && e->data[0] == k))
		return e->data + 1;
	/* Only the first slot of the chain empty says K is not in the map. */
	*absent = !s && e == e0;
	return hist__map_crossed32(m, e, s, want, k, slot, nr_sums);
}

/*
 * hist__map_find_owned() for a key of WORDS words (the map's key_size / 8,
 * more than one), at KEY: the sums SLOT (owned, below nr_cpus, of a
 * hits_sum0, pcpu_sums map; its elements' state but for the tag is HOME,
 * as for hist__map_first_owned32()) adds to for a key within
 * HIST__MAP_INLINE_PROBES slots, else NULL having done nothing, with
 * *ABSENT set as hist__map_find_owned() says: the home slot's inline
 * sums, or, for another slot or a CROSSED element, hist__map_copy_if_used().
 * (With several cpu slots, maps whose slots exceed a line keep no inline
 * sums: their elements are published CROSSED.)
 */
static HIST__MAP_INLINE uint64_t *hist__map_find_owned_words(struct hist_map *m,
							      const uint64_t *key,
							      uint32_t words, uint32_t slot,
							      uint32_t home, bool *absent)
{
	uint32_t s;
	struct hist_map_elt *e = hist__map_probe_words(m, key, words, &s, absent);

	if (!e)
		return NULL;
	if ((s & ~HIST__MAP_TAG) == home)
		return e->data + words;
	/* Not yet CROSSED: the full insert marks it. */
	if (!(s & HIST__MAP_CROSSED))
		return NULL;
	return hist__map_copy_if_used(m, e, slot);
}

/* The same on a map without per-cpu sums (hist__map_find_shared()): the
 * element's sums, which every caller adds to atomically. */
static HIST__MAP_INLINE uint64_t *hist__map_find_shared_words(struct hist_map *m,
							       const uint64_t *key,
							       uint32_t words, bool *absent)
{
	uint32_t s;
	struct hist_map_elt *e = hist__map_probe_words(m, key, words, &s, absent);

	return e ? e->data + words : NULL;
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
	struct hist_map_elt *e = hist__map_find_hit(m, key, slot, sums);

	if (hist__likely(e != NULL))
		return e;
	e = hist__map_insert_slow(m, key, slot, init_arg);
	if (e)
		*sums = hist__map_sums_of(m, e, slot);
	return e;
}

static HIST__MAP_INLINE struct hist_map_elt *
hist__map_insert_cpu(struct hist_map *m, const void *key, uint32_t slot, void *init_arg)
{
	uint64_t *sums;

	return hist__map_insert_sums(m, key, slot, init_arg, &sums);
}

static inline bool hist__map_drop_absent(struct hist_map *m, uint32_t slot)
{
	/* Relaxed: NR_ELTS never falls on a map in use (contract 5; a clear
	 * swaps in a fresh map), and at or past capacity no claim succeeds,
	 * so the key cannot be published by anyone. */
	if (hist__load_relaxed(&m->nr_elts) < m->capacity)
		return false;
	hist__map_count_drop(m, slot);
	return true;
}

/* Add V to SUMS[I]; LOCAL from hist__map_slot_local() for the same slot. */
static inline void hist__map_sums_add(uint64_t *sums, uint32_t i, uint64_t v, bool local)
{
	if (hist__likely(local))
		/* The slot's owner is the only writer (contract 10). */
		hist__add_local(&sums[i], v);
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
