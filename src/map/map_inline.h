/* SPDX-License-Identifier: MIT */
/*
 * The element layout and the accessors that the hot path inlines.
 * Included by map.h only; nothing outside src/map/ should rely on the
 * layout beyond these four functions.
 */
#ifndef HIST_MAP_INLINE_H
#define HIST_MAP_INLINE_H

#include "platform.h"

/*
 * One slot of the open-addressing table; a published slot is an element.
 * Slots are stored inline, STRIDE bytes apart, so a hit touches one slot:
 *
 *	+0	u32 state	empty / busy / ready / dead, plus a hash tag
 *	+4	u32 key_size	lets the accessors find the payload
 *	+8	key		key_size bytes (a multiple of 8)
 *	+8+key_size payload	nr_sums u64 sums, then the caller's bytes
 *
 * Everything after the state word is written only by the thread that
 * claimed the slot, before its release store of a READY state; it is
 * read only after an acquire load of that READY state.  The sums are the
 * exception: they are atomic words, updated by anyone who holds the element.
 */
struct hist_map_elt {
	uint32_t state;
	uint32_t key_size;
	uint64_t data[];
};

static inline void *hist__map_elt_key(struct hist_map_elt *e)
{
	return e->data;
}

static inline void *hist__map_elt_payload(struct hist_map_elt *e)
{
	return (char *)e->data + e->key_size;
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

#endif /* HIST_MAP_INLINE_H */
