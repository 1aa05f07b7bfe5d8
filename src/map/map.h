/* SPDX-License-Identifier: MIT */
/*
 * tracing_map: a lock-free, insert-only hash map of fixed-size elements,
 * the kernel's tracing_map semantics with a cache-friendlier layout.
 *
 * The map knows nothing of events: an element is a KEY (key_size bytes,
 * compared with memcmp) followed by a zeroed PAYLOAD (payload_size bytes)
 * whose first nr_sums u64 words are sums updated with hist__map_sum_add().
 * Capacity is 2^bits elements; a full map counts a drop per rejected new
 * key and keeps every element it already has.  Elements are never removed
 * one by one; hist__map_clear() empties the whole map.
 *
 * See map.c for the concurrency contract.
 */
#ifndef HIST_MAP_H
#define HIST_MAP_H

#include "platform.h"

struct hist_map;
struct hist_map_elt; /* opaque: use the accessors below */

struct hist_map_params {
	uint32_t bits;		/* capacity 2^bits elements (7..24) */
	uint32_t key_size;	/* bytes, > 0, multiple of 8 */
	uint32_t payload_size;	/* bytes, multiple of 8 (may be 0) */
	uint32_t nr_sums;	/* leading u64 sums in the payload */
	uint32_t nr_cpus;	/* hit/drop counters are kept per cpu slot */
	/* Called once by the thread that creates an element, before it is
	 * published: fill the payload (beyond the zeroed sums). */
	void (*elt_init)(void *payload, void *init_arg);
	/* Test hook: a hash function to force collisions (NULL: default). */
	uint32_t (*hash)(const void *key, uint32_t len);
};

/* Context: control thread; allocates everything up front. */
struct hist_map *hist__map_create(const struct hist_map_params *p) HIST__INTERNAL;
void hist__map_destroy(struct hist_map *m) HIST__INTERNAL;

/*
 * Find KEY or claim a new element for it.  Counts one hit (per-cpu counter
 * CPU) when an element is returned, one drop when the map is full.
 * INIT_ARG is handed to elt_init if this call creates the element.
 * Context: any thread, lock-free, no allocation.
 */
struct hist_map_elt *hist__map_insert(struct hist_map *m, const void *key,
				      uint32_t cpu, void *init_arg) HIST__INTERNAL;

/* Find KEY without creating or counting.  Context: any thread. */
struct hist_map_elt *hist__map_lookup(struct hist_map *m, const void *key) HIST__INTERNAL;

static inline void *hist__map_elt_key(struct hist_map_elt *e);
static inline void *hist__map_elt_payload(struct hist_map_elt *e);

/* Atomically add V to sum I of E.  Context: any thread. */
static inline void hist__map_sum_add(struct hist_map_elt *e, uint32_t i, uint64_t v);
/* Read sum I (relaxed; exact once writers are quiescent). */
static inline uint64_t hist__map_sum_read(struct hist_map_elt *e, uint32_t i);

/* Totals over all cpu slots.  Context: any thread. */
uint64_t hist__map_hits(const struct hist_map *m) HIST__INTERNAL;
uint64_t hist__map_drops(const struct hist_map *m) HIST__INTERNAL;
/* Number of published elements (what `Entries:` prints). */
uint32_t hist__map_entries(const struct hist_map *m) HIST__INTERNAL;
uint32_t hist__map_capacity(const struct hist_map *m) HIST__INTERNAL;
uint32_t hist__map_key_size(const struct hist_map *m) HIST__INTERNAL;

/*
 * Fill OUT (room for MAX) with the published elements, in slot order;
 * returns how many.  Context: any thread, concurrently with inserts (an
 * element published during the walk may or may not be included).
 */
uint32_t hist__map_collect(struct hist_map *m, struct hist_map_elt **out,
			   uint32_t max) HIST__INTERNAL;

/*
 * Empty the map: no elements, hits and drops zero.
 * Context: control thread, with no insert in flight on this map.
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
 * calls except among ties).  Allocates 32 bytes per item of scratch;
 * returns 0 or -HIST_ENOMEM (ITEMS is then still a permutation of the
 * input).  Context: any thread; allocates.
 */
int hist__sort_keyed(void **items, size_t n, uint64_t (*prefix)(const void *item, void *arg),
		     int (*cmp)(const void *a, const void *b, void *arg),
		     void *arg) HIST__INTERNAL;

#include "map/map_inline.h"

#endif
