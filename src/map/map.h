/* SPDX-License-Identifier: MIT */
/*
 * tracing_map: a lock-free, insert-only hash map of fixed-size elements,
 * the kernel's tracing_map semantics with a cache-friendlier layout.
 *
 * The map knows nothing of events: an element is a KEY (key_size bytes,
 * compared with memcmp), nr_sums u64 SUMS, and a zeroed PAYLOAD of the
 * caller's (payload_size bytes).
 * Capacity is 2^bits elements; a full map counts a drop per rejected new
 * key and keeps every element it already has.  Elements are never removed
 * one by one; hist__map_clear() empties the whole map.
 *
 * The concurrency contract is numbered at the top of map.c; each
 * prototype below says what its call guarantees its caller ("contract N"
 * names the rule).  In short: inserts, finds, lookups, collects and the
 * counter reads run on any number of threads at once, never lock and
 * never allocate; create, destroy and clear run on the control thread
 * with none of those in flight.
 *
 * Layers (README "Architecture"): common < [map] schema < filter expr <
 * core < synth < actions < parse output < api < ftrace.  map/ includes no event
 * header: it is built, tested and benchmarked alone.
 */
#ifndef HIST_MAP_H
#define HIST_MAP_H

#include "common/platform.h"

struct hist_map;
struct hist_map_elt; /* opaque: use the accessors below */

struct hist_map_params {
	uint32_t bits;		/* capacity 2^bits elements (7..24) */
	uint32_t key_size;	/* bytes, > 0, multiple of 8, at most 2040 */
	uint32_t payload_size;	/* bytes, multiple of 8 (may be 0) */
	uint32_t nr_sums;	/* u64 sums, in the element, per cpu, or both */
	uint32_t nr_cpus;	/* hit/drop counters are kept per cpu slot */
	/*
	 * Per-cpu sums: no locked instruction and no shared cache line
	 * written per hit.  The slot that creates an element adds to the
	 * sums inline in it; every other cpu slot adds to its own copy, with
	 * unlocked adds; reads add everything up.  Use the *_cpu functions
	 * below; see "Per-cpu sums" in map.c.  Without it, the sums are in
	 * the element alone and every update is an atomic add (the kernel's
	 * layout: no copies, a locked add per sum and hit).
	 */
	bool pcpu_sums;
	/* Sum 0 is a hit count (+1 per insert that returns an element): the
	 * map then keeps no hit counter of its own and hist__map_hits() adds
	 * up sum 0 of every element, so a hit writes no counter line. */
	bool hits_sum0;
	/*
	 * pcpu_sums: a word that its owner sets to HIST__MAP_NOT_HOME (and
	 * never back to 0) once the slots are owned by more than one thread
	 * (NULL: never).  From then on the home slot adds to its copy too,
	 * as every other slot does: no hit writes a table line (see
	 * hist__map_not_home()).
	 */
	const uint32_t *multi;
	/* Called once by the thread that creates an element, before it is
	 * published: fill the payload (beyond the zeroed sums). */
	void (*elt_init)(void *payload, void *init_arg);
	/* Test hook: a hash function to force collisions (NULL: default). */
	uint32_t (*hash)(const void *key, uint32_t len);
};

/*
 * Context: control thread; allocates everything up front.  Other threads
 * see the new map only through the caller's own release store (or thread
 * start) that their acquire pairs with (contract 2).
 */
struct hist_map *hist__map_create(const struct hist_map_params *p) HIST__INTERNAL;
/* Context: control thread, no other call on M in flight nor to come
 * (the caller waits out the hits that could still reach M). */
void hist__map_destroy(struct hist_map *m) HIST__INTERNAL;

/*
 * Find KEY or claim a new element for it.  Counts one hit (per-cpu counter
 * CPU, atomically; with pcpu_sums the shared counter; nothing with
 * hits_sum0) when an element is returned, one drop when the map is full.
 * INIT_ARG is handed to elt_init if this call creates the element.
 * Ordering: acts as an acquire of the element returned: its key and the
 * payload elt_init wrote are visible to the caller, whichever thread
 * created it (contracts 3, 4); its sums are not ordered (contract 7).
 * Context: any thread, lock-free, no allocation; may spin a bounded time
 * on a slot another thread is filling, then counts a drop (contract 6).
 */
struct hist_map_elt *hist__map_insert(struct hist_map *m, const void *key,
				      uint32_t cpu, void *init_arg) HIST__INTERNAL;

/*
 * The SLOT argument of the *_cpu functions: a cpu slot below nr_cpus that
 * the caller's thread owns exclusively (no other thread calls with the
 * same slot; a signal handler on the owner's thread may, like an
 * interrupt on the kernel's per-cpu data), or HIST__MAP_SHARED for a
 * caller that cannot promise that (atomic updates of a shared copy).
 * Without pcpu_sums every update is atomic and SLOT only spreads counters.
 */
#define HIST__MAP_SHARED UINT32_MAX

/*
 * hist__map_insert() for a SLOT as above: the hit or drop is counted in
 * SLOT's counters.  Inline for the common case (8-byte key found at its
 * home slot), the rest out of line.  Ordering and progress as
 * hist__map_insert().  Context: any thread, lock-free; an exclusive SLOT
 * only from its owner thread (contract 10).
 */
static inline struct hist_map_elt *hist__map_insert_cpu(struct hist_map *m, const void *key,
							uint32_t slot, void *init_arg);
/* The same, and *SUMS = hist__map_sums_of(M, element, SLOT) on success. */
static inline struct hist_map_elt *hist__map_insert_sums(struct hist_map *m, const void *key,
							 uint32_t slot, void *init_arg,
							 uint64_t **sums);
/* The inline half of that: KEY found near its home slot (the hit
 * counted, *SUMS set), or NULL with nothing done; see map_inline.h. */
static inline struct hist_map_elt *hist__map_find_hit(struct hist_map *m, const void *key,
						      uint32_t slot, uint64_t **sums);
/* The hit path's first try for a slot's owner; see map_inline.h.  The
 * finds below never wait and never create: an element being created is
 * not found yet.  Ordering: an acquire of the element found (contract 4);
 * sums returned are for relaxed or owner-only adds (contracts 7, 10). */
static inline uint64_t *hist__map_find_owned(struct hist_map *m, uint64_t k, uint32_t slot,
					     uint32_t home, bool *absent);
/* Its counterpart on a map without per-cpu sums: any caller, atomic adds. */
static inline uint64_t *hist__map_find_shared(struct hist_map *m, uint64_t k, bool *absent);
/* The same for a key of WORDS (> 1) words. */
static inline uint64_t *hist__map_find_shared_words(struct hist_map *m, const uint64_t *key,
						    uint32_t words, bool *absent);
/*
 * Whether M is a map of 8-byte keys with the default hash, hits_sum0,
 * per-cpu sums with the home slot's inline, and 32-byte slots.  Such a
 * map takes hist__map_first_line32() if hist__map_line2(), else
 * hist__map_first_owned32().  Fixed at create.
 */
bool hist__map_slots32(const struct hist_map *m) HIST__INTERNAL;
/* Whether M keeps per-cpu sums (hist_map_params.pcpu_sums).  Fixed at create. */
bool hist__map_pcpu_sums(const struct hist_map *m) HIST__INTERNAL;
static inline uint64_t *hist__map_first_owned32(struct hist_map *m, uint64_t k, uint32_t slot,
						 uint32_t home, const uint32_t nr_sums,
						 bool *absent);
/*
 * Whether hist__map_first_line32() may be used on M (instead of
 * hist__map_first_owned32()): hist__map_slots32() and a table that fits a
 * last-level cache.  Fixed at create.
 */
bool hist__map_line2(const struct hist_map *m) HIST__INTERNAL;
static inline uint64_t *hist__map_first_line32(struct hist_map *m, uint64_t k, uint32_t slot,
						uint32_t home, const uint32_t nr_sums,
						bool *absent);
static inline uint32_t hist__map_home_state(uint32_t slot);
/*
 * For a key a first try through owned SLOT found absent: when the map is
 * full, count the drop and return true (no element can be created any
 * more, so the full insert would drop the key too, after probing its
 * chain again); else false: take hist__map_insert_slow().
 * Context: any thread, lock-free.
 */
static inline bool hist__map_drop_absent(struct hist_map *m, uint32_t slot);
/* Count one drop for SLOT (its own counter, or the shared one): relaxed,
 * orders nothing (contract 8). */
void hist__map_count_drop(struct hist_map *m, uint32_t slot) HIST__INTERNAL;
struct hist_map_elt *hist__map_insert_slow(struct hist_map *m, const void *key,
					   uint32_t slot, void *init_arg) HIST__INTERNAL;

/*
 * Add V to sum I of E, in the sums SLOT adds to (E's inline sums when SLOT
 * is its home, else SLOT's copy), after an insert of E through SLOT.
 * A hit adding several sums can take the copy once instead:
 *	uint64_t *s = hist__map_sums_of(m, e, slot);
 *	bool local = hist__map_slot_local(m, slot);
 *	hist__map_sums_add(s, 0, 1, local); hist__map_sums_add(s, 1, v, local);
 * Ordering: none; an owned SLOT's words have one writer thread and take
 * single-instruction adds, HIST__MAP_SHARED's relaxed atomic ones
 * (contracts 7, 10).  Context: as above.
 */
static inline void hist__map_sum_add_cpu(struct hist_map *m, struct hist_map_elt *e,
					 uint32_t slot, uint32_t i, uint64_t v);
static inline uint64_t *hist__map_sums_of(struct hist_map *m, struct hist_map_elt *e,
					  uint32_t slot);
static inline bool hist__map_slot_local(const struct hist_map *m, uint32_t slot);
static inline void hist__map_sums_add(uint64_t *sums, uint32_t i, uint64_t v, bool local);
/* Sum I of E over every copy.  Relaxed loads: no ordering with anything,
 * exact once the writers are quiescent (contracts 7, 10).  Any thread. */
uint64_t hist__map_sum(const struct hist_map *m, struct hist_map_elt *e,
		       uint32_t i) HIST__INTERNAL;

/* Find KEY without creating or counting.  Ordering: an acquire of the
 * element found (contract 4).  Never waits: an element being created is
 * not found (contract 6).  Context: any thread, wait-free (contract 9). */
struct hist_map_elt *hist__map_lookup(struct hist_map *m, const void *key) HIST__INTERNAL;

static inline void *hist__map_elt_key(struct hist_map_elt *e);
static inline void *hist__map_elt_payload(struct hist_map_elt *e);

/* Atomically add V to sum I of E.  Context: any thread.  Not with pcpu_sums. */
static inline void hist__map_sum_add(const struct hist_map *m, struct hist_map_elt *e,
				     uint32_t i, uint64_t v);
/* Read sum I (relaxed; exact once writers are quiescent).  Not with pcpu_sums:
 * use hist__map_sum(). */
static inline uint64_t hist__map_sum_read(const struct hist_map *m, struct hist_map_elt *e,
					  uint32_t i);

/* Totals over all cpu slots: relaxed sums, no ordering, exact once the
 * writers are quiescent (contract 8).  Context: any thread, also during
 * hist__map_clear(). */
uint64_t hist__map_hits(const struct hist_map *m) HIST__INTERNAL;
uint64_t hist__map_drops(const struct hist_map *m) HIST__INTERNAL;
/* Number of published elements (what `Entries:` prints). */
uint32_t hist__map_entries(const struct hist_map *m) HIST__INTERNAL;
uint32_t hist__map_capacity(const struct hist_map *m) HIST__INTERNAL;
uint32_t hist__map_key_size(const struct hist_map *m) HIST__INTERNAL;

/*
 * Fill OUT (room for MAX) with the published elements, in slot order;
 * returns how many.  Ordering: an acquire of each element returned
 * (contract 4).  Context: any thread, wait-free, concurrently with
 * inserts (an element published during the walk may or may not be
 * included).
 */
uint32_t hist__map_collect(struct hist_map *m, struct hist_map_elt **out,
			   uint32_t max) HIST__INTERNAL;

/*
 * hist__map_collect(), and the totals of the first NR sums of every
 * element collected (hist__map_sum()) into SUMS, NR words per element:
 * element OUT[i]'s sum j is SUMS[i * NR + j].  Adds the cpu copies up one
 * copy at a time, which reads far faster than a hist__map_sum() per
 * element and column.  Context: as hist__map_collect().
 */
uint32_t hist__map_snapshot(struct hist_map *m, struct hist_map_elt **out, uint64_t *sums,
			    uint32_t nr, uint32_t max) HIST__INTERNAL;

/*
 * Empty the map: no elements, hits and drops zero, with plain stores.
 * Context: control thread, with no insert, find, lookup or collect in
 * flight on this map (only the counter reads may overlap it); the caller
 * publishes the cleared map to them with its own release (contract 2).
 */
void hist__map_clear(struct hist_map *m) HIST__INTERNAL;

/*
 * Sort N pointers with CMP (ties keep a deterministic order: stable merge
 * sort).  CMP gets the pointers themselves (items[i], not &items[i]).
 * Allocates a scratch array; returns 0 or -HIST_ENOMEM.
 */
int hist__sort(void **items, size_t n,
	       int (*cmp)(const void *a, const void *b, void *arg), void *arg) HIST__INTERNAL;

/*
 * Sort N pointers by PREFIX(item) ascending, then runs of equal prefixes
 * with CMP (NULL: they keep their input order); stable.  CMP must agree
 * with PREFIX (prefix(a) < prefix(b) implies cmp(a, b) < 0): e.g. a u64
 * sum (~sum for descending), a signed key with its sign bit flipped, or
 * the first 8 bytes of a string key read big-endian.  PREFIX is called
 * once per item, in input order, so a fresh snapshot is read sequentially.
 * Much faster than hist__sort on large arrays (radix sort, no comparator
 * calls except among ties).  Allocates 24 bytes per item of scratch
 * (56 when CMP is NULL and the prefixes vary in more bits than 64 less
 * those of an index below N); returns 0 or -HIST_ENOMEM (ITEMS is then
 * still a permutation of the input).  Context: any thread; allocates.
 */
int hist__sort_keyed(void **items, size_t n, uint64_t (*prefix)(const void *item, void *arg),
		     int (*cmp)(const void *a, const void *b, void *arg),
		     void *arg) HIST__INTERNAL;

#include "map/map_inline.h"

#endif
