/* SPDX-License-Identifier: MIT */
/*
 * The hit variants: hist_event_hit() of a hist that is alone on its event
 * and a plain aggregation (no time stamps, variables, references or
 * actions), specialised for what its fields and its map look like, so
 * that a hit tests none of it.  Every variant is one cell of the table
 * at the end of this file, named by its dimensions (struct hist__variant
 * in trigger.h):
 *
 *   family   simple (a key of one integer field, 8 bytes), filtered (the
 *            same with a filter of integer fields only), comm (the same
 *            with .execname: a new key saves the task's comm), wide (a
 *            key of several integer fields and/or fixed char arrays, up
 *            to HIST__WIDE_WORDS words);
 *   key      how the key is read: an integer of any size, u64, s32; or
 *            integer parts, one string, any mix (wide, with key_words);
 *   vals     how the values are read (u64 or any size), and how many
 *            columns there are with the hitcount (nr_vals, 1 to 3);
 *   look     how the first try finds the key: probes from its home,
 *            the start slot only (first32) or the start line's two slots
 *            (line32) of a map of 32-byte slots, or a map of shared sums.
 *
 * hist__variant_choose() picks a cell when a trigger list is published;
 * nothing else does.  A hist with no cell, or not alone on its event,
 * takes the general hit (hist.c: hist__hist_hit()), and a lone simple
 * hist with no cell (a filter on strings, .execname with a filter) takes
 * the simple path here (hist__hist_hit_simple()).  Each cell's output equals the
 * general path's on the same records (test/test_variants.c runs them
 * all); hist_debug names the cell a trigger uses.
 */
#include "core/rd.h"
#include "filter/filter.h"
#include "common/fmt.h"

/* ---- 8-byte keys: the simple and filtered variants -------------------- */

_Static_assert(HIST__VALS_MAX == 3, "a simple hit reads at most two values");

/*
 * The key K and values V[1..NV) of a simple hit, from a record that holds
 * them all (its length at least H->rd_end), read as KEY and VAL say.
 */
static HIST__ALWAYS_INLINE void simple_read(const struct hist__hist *h, const uint8_t *data,
					    const uint32_t nv, const enum rd_kind key,
					    const enum rd_kind val, uint64_t *k, uint64_t *v)
{
	/* Unrolled (at most two values), so V can live in registers. */
	*k = rd_field_in(&h->rd_key, data, key);
	if (nv > 1)
		v[1] = rd_field_in(&h->rd_vals[1], data, val);
	if (nv > 2)
		v[2] = rd_field_in(&h->rd_vals[2], data, val);
}

/*
 * The sums an owned SLOT adds K's hit to, for a key found near its home
 * (hist__map_find_owned()), else NULL having done nothing, *ABSENT set
 * when K is not in the map.
 */
static HIST__ALWAYS_INLINE uint64_t *simple_find(struct hist__hist *h, uint64_t k, uint32_t slot,
						 bool *absent)
{
	/* An owned slot is below the context's nr_cpus, the maps' too.
	 * Acquire: pairs with the release in hist__hist_clear().
	 * Relaxed: HOME, a mode word (hist__map_not_home()). */
	return hist__map_find_owned(hist__load_acquire(&h->map), k, slot,
				    hist__load_relaxed(&h->cpus[slot].home), absent);
}

/* The hit's unlocked adds to SUMS, which SLOT owns. */
static HIST__ALWAYS_INLINE void simple_add(uint64_t *sums, const uint32_t nv, const uint64_t *v)
{
	hist__add_local(&sums[0], 1);
	if (nv > 1)
		hist__add_local(&sums[1], v[1]);
	if (nv > 2)
		hist__add_local(&sums[2], v[2]);
}

/* simple_add() of a hit that counts only if PASS (a constant true
 * where there is no filter): adds 0 otherwise, with no branch. */
static HIST__ALWAYS_INLINE void simple_add_if(uint64_t *sums, const uint32_t nv,
					      const uint64_t *v, bool pass)
{
	uint64_t mask = 0 - (uint64_t)pass;

	hist__add_local(&sums[0], (uint64_t)pass);
	if (nv > 1)
		hist__add_local(&sums[1], v[1] & mask);
	if (nv > 2)
		hist__add_local(&sums[2], v[2] & mask);
}

/* A drop, counted, when the first try found the key ABSENT from H's
 * map and the map is full. */
static HIST__ALWAYS_INLINE bool drop_absent(struct hist__hist *h, uint32_t slot, bool absent)
{
	/* acquire: pairs with the release in hist__hist_clear() */
	return absent && hist__map_drop_absent(hist__load_acquire(&h->map), slot);
}

/* hist_insert() after the drop test: the full insert and adds,
 * inlined into the variants' own insert halves. */
static HIST__ALWAYS_INLINE void insert(struct hist__hist *h, const void *key, uint64_t v1,
				       uint64_t v2, uint32_t slot, struct hist__rec *r,
				       const uint32_t nv)
{
	/* acquire: pairs with the release in hist__hist_clear() */
	struct hist_map *map = hist__load_acquire(&h->map);
	struct hist__elt_init_arg ia = { h, r };
	struct hist_map_elt *e;
	uint64_t *sums;
	bool local;
	/* Not hist__map_insert_sums(): the caller's inline probes have just
	 * failed for most of the keys that come here. */
	e = hist__map_insert_slow(map, key, slot, &ia);
	if (!e)
		return;
	local = hist__map_slot_local(map, slot);
	sums = hist__map_sums_of(map, e, slot);
	hist__map_sums_add(sums, 0, 1, local);
	if (nv > 1)
		hist__map_sums_add(sums, 1, v1, local);
	if (nv > 2)
		hist__map_sums_add(sums, 2, v2, local);
}

/*
 * The full insert of a plain hist's hit whose key (KEY, the map's key
 * size) and values V1, V2 were read already, through SLOT: a drop when
 * the first try found the key ABSENT and the map is full, else
 * hist__map_insert_slow() and the adds.  R: the record, for the comm of
 * .execname (NULL when the hist saves none).  The wide variants' insert
 * half, out of line.
 */
static HIST__NOINLINE void hist_insert(struct hist__hist *h, const void *key, uint64_t v1,
				       uint64_t v2, uint32_t slot, bool absent,
				       struct hist__rec *r)
{
	slot = hist__slot_settle(h->cpus, h->nr_cpus, slot);
	if (!drop_absent(h, slot, absent))
		insert(h, key, v1, v2, slot, r, h->nr_vals);
}

/*
 * A simple hit with NV values through SLOT (owned, or HIST__SLOT_SHARED)
 * by the map's full insert: a new key, a long probe chain, a shared
 * slot, a short record, or a drop.  KEY and VAL as in hit_simple_fast().
 */
static HIST__ALWAYS_INLINE void hit_simple_insert(struct hist__hist *h, const uint8_t *data,
						  size_t len, const struct hist_hit *hit,
						  uint32_t slot, const uint32_t nv,
						  const enum rd_kind key, const enum rd_kind val)
{
	uint64_t k, v[HIST__VALS_MAX] = { 0 };
	struct hist__rec r;
	uint32_t i;

	if (hist__likely(len >= h->rd_end)) {
		simple_read(h, data, nv, key, val, &k, v);
	} else {
		k = rd_field(&h->rd_key, data, len);
		for (i = 1; i < nv; i++)
			v[i] = rd_field(&h->rd_vals[i], data, len);
	}
	/* the record, for the comm of .execname */
	if (h->needs_comm)
		hist__rec_init(&r, h->ev, data, len, hit);
	insert(h, &k, v[1], v[2], slot, h->needs_comm ? &r : NULL, nv);
}

/*
 * The first try of a simple hit on a map of shared sums: K's sums found
 * within the inline probes and the hit's values V added to them
 * (atomically: every thread adds to them), else false having done
 * nothing, with *ABSENT as hist__map_find_shared() sets it.
 */
static HIST__ALWAYS_INLINE bool shared_hit(struct hist__hist *h, uint64_t k, const uint32_t nv,
					   const uint64_t *v, bool *absent)
{
	/* Acquire: pairs with the release in hist__hist_clear(). */
	uint64_t *sums = hist__map_find_shared(hist__load_acquire(&h->map), k, absent);

	if (hist__unlikely(!sums))
		return false;
	shared_add(sums, nv, v[1], v[2]);
	return true;
}

/*
 * The first try of a simple hit with NV values through SLOT: a key found
 * near its home: one length check, the reads, up to eight probes, plain
 * adds to the element's inline sums or this slot's copy (with shared
 * sums: atomic adds to the element's, through any slot).  False (nothing
 * done) otherwise.
 */
static HIST__ALWAYS_INLINE bool hit_simple_fast(struct hist__hist *h, const uint8_t *data,
						size_t len, uint32_t slot, const uint32_t nv)
{
	uint64_t k, v[HIST__VALS_MAX] = { 0 }, *sums;
	bool absent = false;

	/* a shared slot adds atomically: the full path, unless every
	 * thread does (shared sums) */
	if (hist__unlikely(len < h->rd_end) ||
	    hist__unlikely(slot == HIST__SLOT_SHARED && !h->shared_sums))
		return false;
	simple_read(h, data, nv, RD_ANY, RD_ANY, &k, v);
	if (h->shared_sums)
		return shared_hit(h, k, nv, v, &absent);
	sums = simple_find(h, k, slot, NULL);
	if (hist__unlikely(!sums))
		return false;
	simple_add(sums, nv, v);
	return true;
}

/* The whole update of a simple hist through SLOT. */
static void hit_simple(struct hist__hist *h, const uint8_t *data, size_t len,
		       const struct hist_hit *hit, uint32_t slot)
{
	if (!hit_simple_fast(h, data, len, slot, h->nr_vals))
		hit_simple_insert(h, data, len, hit, slot, h->nr_vals, RD_ANY, RD_ANY);
}

/*
 * hist__triggers_run() and hist__hist_hit() for the list { T }, T simple:
 * the same pause and filter checks, the same key and sums, without the
 * general machinery (no ts, key builder, references, variables, actions).
 */
void hist__hist_hit_simple(struct hist__trigger *t, const void *rec, size_t len,
			   const struct hist_hit *hit, uint32_t slot)
{
	/* relaxed: trigger.h rule 4 */
	const struct hist_filter *filter = hist__load_relaxed(&t->hit_filter);

	if (!rec)
		len = 0;
	/* relaxed: as in hist__triggers_run() */
	if (hist__load_relaxed(&t->paused))
		return;
	if (filter && !hist__filter_match_data(filter, t->hist->ev, rec, len, hit))
		return;
	hit_simple(t->hist, rec, len, hit, slot);
}

/*
 * hist_event_hit() of a simple hist alone on TL's event, for NV values
 * read as KEY and VAL say: one variant per combination, picked when the
 * trigger list is published (hist__variant_choose()), so the hit tests no field
 * size.  FILTERED: the trigger has a filter of integer fields only,
 * evaluated from the record first.  LOOK: FIRST32, the map's slots are
 * 32 bytes (hist__map_slots32()), and only the look at the key's start
 * slot is inline, or LINE32, at the two slots of its first line
 * (hist__map_line2()); the rest of its chain goes to hit_rest_NV(), so
 * that the inline path saves one register at most.  What the inline path
 * leaves over goes to out-of-line halves entered by tail calls: SHORT,
 * the whole hit of a record too short for the fields, and hit_ins_NV(),
 * the insert of the key and values already read (a new key, a long
 * probe chain, a shared slot), told when the first try found the key
 * absent (a drop, if the map is full).  The fields are read before the
 * slot's owner is checked, so that from then on the inline path keeps
 * only what the insert half takes (the hist, the key, the values, the
 * slot): fewer saved registers.
 */
/* The insert half of the variants with NV values: the key K taken by
 * value, the values in registers. */
#define HIT_INS(NV)                                                                   \
	static HIST__NOINLINE void hit_ins_##NV(struct hist__hist *h, uint64_t k,     \
						uint64_t v1, uint64_t v2, uint32_t slot, \
						bool absent)                          \
	{                                                                             \
		slot = hist__slot_settle(h->cpus, h->nr_cpus, slot);                  \
		if (!drop_absent(h, slot, absent))                                    \
			insert(h, &k, v1, v2, slot, NULL, NV);                        \
	}
HIT_INS(1)
HIT_INS(2)
HIT_INS(3)
/* The insert half for a hit through the slot of CPU that the calling
 * thread does not own (another thread's, or one to claim). */
#define HIT_UNOWNED(NV)                                                               \
	static HIST__NOINLINE void hit_unowned_##NV(struct hist__hist *h, uint64_t k, \
						    uint64_t v1, uint64_t v2, uint32_t cpu) \
	{                                                                             \
		hit_ins_##NV(h, k, v1, v2, hist__slot_peek(h->cpus, h->nr_cpus, cpu),  \
			     false);                                                  \
	}
HIT_UNOWNED(1)
HIT_UNOWNED(2)
static void (*const hit_unowned[2])(struct hist__hist *h, uint64_t k, uint64_t v1, uint64_t v2,
				    uint32_t cpu) = { hit_unowned_1, hit_unowned_2 };
static void (*const hit_ins[HIST__VALS_MAX])(struct hist__hist *h, uint64_t k, uint64_t v1,
					     uint64_t v2, uint32_t slot, bool absent) = {
	hit_ins_1, hit_ins_2, hit_ins_3
};

/*
 * The rest of a hit of the FIRST32 and LINE32 variants whose key was not
 * found by their first look: the whole first try again, then the insert
 * half.
 */
#define HIT_REST(NV)                                                                  \
	static HIST__NOINLINE void hit_rest_##NV(struct hist__hist *h, uint64_t k,    \
						 uint64_t v1, uint32_t slot)          \
	{                                                                             \
		uint64_t v_[HIST__VALS_MAX] = { 0, v1, 0 }, *sums_;                   \
		bool absent_ = false;                                                 \
                                                                                      \
		sums_ = simple_find(h, k, slot, &absent_);                            \
		if (!sums_) {                                                         \
			hit_ins_##NV(h, k, v1, 0, slot, absent_);                     \
			return;                                                       \
		}                                                                     \
		simple_add(sums_, NV, v_);                                            \
	}
HIT_REST(1)
HIT_REST(2)
static void (*const hit_rest[2])(struct hist__hist *h, uint64_t k, uint64_t v1,
				 uint32_t slot) = { hit_rest_1, hit_rest_2 };

/* How the variants look for a key before the out-of-line halves. */
enum look {
	LOOK_PROBES,	/* hist__map_find_owned() through simple_find() */
	LOOK_FIRST32,	/* hist__map_first_owned32() */
	LOOK_LINE32,	/* hist__map_first_line32() */
	LOOK_SHARED,	/* hist__map_find_shared(): shared sums, atomic adds */
};

static HIST__ALWAYS_INLINE void hit_variant(const struct hist__tlist *tl, const uint8_t *rec,
					    size_t len, const struct hist_hit *hit,
					    const uint32_t nv, const enum rd_kind key,
					    const enum rd_kind val, const bool filtered,
					    const bool comm, const enum look look,
					    void (*short_rec)(struct hist__hist *h,
							      const uint8_t *rec, size_t len,
							      const struct hist_hit *hit))
{
	struct hist__hist *h = tl->fast->hist;
	uint64_t k, v[HIST__VALS_MAX] = { 0 }, *sums;
	bool absent = false, pass = true;
	uint32_t slot;

	/* relaxed: as in hist__triggers_run() */
	if (hist__unlikely(hist__load_relaxed(&tl->fast->paused)))
		return;
	/* rec is not NULL here (hist_event_hit()), the filter plain */
	if (filtered)
		pass = hist__filter_match_plain(tl->fast->filter, rec, len);
	if (hist__unlikely(len < h->rd_end)) {
		if (pass)
			short_rec(h, rec, len, hit);
		return;
	}
	simple_read(h, rec, nv, key, val, &k, v);
	if (look == LOOK_SHARED) {
		if ((!filtered || pass) && hist__unlikely(!shared_hit(h, k, nv, v, &absent))) {
			if (comm)
				short_rec(h, rec, len, hit);
			else	/* a slot not owned yet is claimed by the insert half */
				hit_ins[nv - 1](h, k, v[1], v[2],
						hist__slot_peek(h->cpus, h->nr_cpus, hit->cpu),
						absent);
		}
		return;
	}
	if (look != LOOK_PROBES) {
		/* a cpu past the slots (folded onto one) goes out of line
		 * too: a hit of the common case computes no remainder */
		slot = hit->cpu;
		if (hist__likely(slot < h->nr_cpus) &&
		    hist__likely(hist__slot_mine(&h->cpus[slot]))) {
			const struct hist__cpu *c = &h->cpus[slot];

			/* Acquire: pairs with the release in hist__hist_clear().
			 * Relaxed: HOME, a mode word (hist__map_not_home()). */
			struct hist_map *map = hist__load_acquire(&h->map);
			uint32_t home = hist__load_relaxed(&c->home);

			sums = look == LOOK_LINE32
				       ? hist__map_first_line32(map, k, slot, home, nv, &absent)
				       : hist__map_first_owned32(map, k, slot, home, nv, &absent);
			if (hist__likely(sums != NULL)) {
				/*
				 * A record the filter rejects got here too, and
				 * adds 0: whether a filter passes is a coin toss
				 * for the branch predictor on many workloads,
				 * and a mispredicted branch costs more than a
				 * lookup in a table in cache (the filter row:
				 * 11.7 -> 7.7 ns per event).
				 */
				simple_add_if(sums, nv, v, pass);
				return;
			}
			if (filtered && !pass)
				return;
			if (comm)
				short_rec(h, rec, len, hit);
			else if (absent)
				hit_ins[nv - 1](h, k, v[1], v[2], slot, true);
			else
				hit_rest[nv - 1](h, k, v[1], slot);
			return;
		}
		if (filtered && !pass)
			return;
		/* another thread's slot, one not owned yet (claimed by the
		 * insert half), or a cpu past the slots */
		if (comm)
			short_rec(h, rec, len, hit);
		else
			hit_unowned[nv - 1](h, k, v[1], v[2], hit->cpu);
		return;
	}
	if (filtered && !pass)
		return;
	/* a slot not owned yet is claimed by the insert half */
	slot = hist__slot_peek(h->cpus, h->nr_cpus, hit->cpu);
	if (hist__unlikely(slot >= HIST__SLOT_FREE) ||
	    hist__unlikely(!(sums = simple_find(h, k, slot, &absent)))) {
		if (comm)
			short_rec(h, rec, len, hit);
		else
			hit_ins[nv - 1](h, k, v[1], v[2], slot, absent);
		return;
	}
	simple_add(sums, nv, v);
}

/* The short half (a record too short for the fields) of every variant
 * for keys and values read as K and V, with NV values. */
#define SIMPLE_SHORT(K, V, NV)                                                        \
	static HIST__NOINLINE void hit_##K##_##V##_##NV##_short(                      \
		struct hist__hist *h, const uint8_t *rec, size_t len,                 \
		const struct hist_hit *hit)                                           \
	{                                                                             \
		uint32_t slot_ = hist__slot_own(h->cpus, h->nr_cpus, hit->cpu);       \
                                                                                      \
		hit_simple_insert(h, rec, len, hit, slot_, NV, RD_##K, RD_##V);       \
	}
/* The variant that probes from the key's home: a map of per-cpu sums
 * whose slots are larger than 32 bytes (three values). */
#define SIMPLE_HIT(K, V, NV)                                                          \
	static void hit_##K##_##V##_##NV(const struct hist__tlist *tl, const uint8_t *rec, \
					 size_t len, const struct hist_hit *hit)      \
	{                                                                             \
		hit_variant(tl, rec, len, hit, NV, RD_##K, RD_##V, false, false, LOOK_PROBES, \
			    hit_##K##_##V##_##NV##_short);                            \
	}
/* The same for a map of 32-byte slots (hist__map_slots32()) with LOOK
 * (SUFFIX _32: FIRST32, _L2: LINE32), or of shared sums (_SH). */
#define SIMPLE_HIT32(K, V, NV, LOOK, SUFFIX)                                          \
	static void hit_##K##_##V##_##NV##SUFFIX(const struct hist__tlist *tl,        \
						 const uint8_t *rec, size_t len,      \
						 const struct hist_hit *hit)          \
	{                                                                             \
		hit_variant(tl, rec, len, hit, NV, RD_##K, RD_##V, false, false, LOOK,       \
			    hit_##K##_##V##_##NV##_short);                            \
	}
/* nr_vals 1 reads no value: one value kind.  A map of per-cpu sums has
 * 32-byte slots for one or two columns (the key, the element's header and
 * the home slot's sums fill them) and larger ones for three, which never
 * fit beside the key: PROBES only for three, FIRST32 and LINE32 for one
 * and two (test_variants takes every cell). */
#define SIMPLE_HITS_1(K)                                                              \
	SIMPLE_SHORT(K, U64, 1) SIMPLE_HIT32(K, U64, 1, LOOK_FIRST32, _32)            \
	SIMPLE_HIT32(K, U64, 1, LOOK_LINE32, _L2) SIMPLE_HIT32(K, U64, 1, LOOK_SHARED, _SH)
#define SIMPLE_HITS_23(K, V)                                                          \
	SIMPLE_SHORT(K, V, 2) SIMPLE_SHORT(K, V, 3) SIMPLE_HIT(K, V, 3)               \
	SIMPLE_HIT32(K, V, 2, LOOK_FIRST32, _32) SIMPLE_HIT32(K, V, 2, LOOK_LINE32, _L2) \
	SIMPLE_HIT32(K, V, 2, LOOK_SHARED, _SH) SIMPLE_HIT32(K, V, 3, LOOK_SHARED, _SH)
SIMPLE_HITS_1(ANY)
SIMPLE_HITS_1(U64)
SIMPLE_HITS_1(S32)
SIMPLE_HITS_23(ANY, ANY)
SIMPLE_HITS_23(ANY, U64)
SIMPLE_HITS_23(U64, ANY)
SIMPLE_HITS_23(U64, U64)
SIMPLE_HITS_23(S32, ANY)
SIMPLE_HITS_23(S32, U64)

/* A variant of FAMILY (filtered, comm) with NV values, any field sizes,
 * sharing the halves of the unfiltered ANY variants (VK: their value
 * kind). */
#define ANY_HIT(FAMILY, FILTERED, COMM, NV, VK, LOOK, SUFFIX)                         \
	static void hit_##FAMILY##_##NV##SUFFIX(const struct hist__tlist *tl,         \
						const uint8_t *rec, size_t len,       \
						const struct hist_hit *hit)           \
	{                                                                             \
		hit_variant(tl, rec, len, hit, NV, RD_ANY, RD_ANY, FILTERED, COMM,    \
			    LOOK, hit_ANY_##VK##_##NV##_short);                          \
	}

/* The filtered variants: one per number of values, any field sizes (a
 * filter's own reads cost more than the sizes' tests). */
#define FILTERED_HIT(NV, VK, LOOK, SUFFIX) ANY_HIT(filtered, true, false, NV, VK, LOOK, SUFFIX)
FILTERED_HIT(3, ANY, LOOK_PROBES, )
FILTERED_HIT(1, U64, LOOK_FIRST32, _32)
FILTERED_HIT(2, ANY, LOOK_FIRST32, _32)
FILTERED_HIT(1, U64, LOOK_LINE32, _L2)
FILTERED_HIT(2, ANY, LOOK_LINE32, _L2)
FILTERED_HIT(1, U64, LOOK_SHARED, _SH)
FILTERED_HIT(2, ANY, LOOK_SHARED, _SH)
FILTERED_HIT(3, ANY, LOOK_SHARED, _SH)

/*
 * The comm variants: a key with .execname (the comm of the task is saved
 * when its entry is created, hist.c: elt_init()).  A key found by the
 * first look is added to as by the simple variants; every other hit goes
 * to the short half, whose full insert has the record to take the comm
 * from (hit_ins_NV() has only the key).  The comm makes an element
 * larger than a 32-byte slot: per-cpu sums are found by probes.
 * .execname on common_pid is the usual per-task count of a system-wide
 * event (issue 16: `keys=common_pid.execname` took the simple path, 12 ns
 * per event more than `keys=common_pid` in hist-live's bench).
 */
#define COMM_HIT(NV, VK, LOOK, SUFFIX) ANY_HIT(comm, false, true, NV, VK, LOOK, SUFFIX)
COMM_HIT(1, U64, LOOK_PROBES, )
COMM_HIT(2, ANY, LOOK_PROBES, )
COMM_HIT(3, ANY, LOOK_PROBES, )
COMM_HIT(1, U64, LOOK_SHARED, _SH)
COMM_HIT(2, ANY, LOOK_SHARED, _SH)
COMM_HIT(3, ANY, LOOK_SHARED, _SH)
/* ---- wider keys: the wide variants ------------------------------------ */

/* The bytes of a word W, in memory order, before its first NUL (*NUL
 * set), or all of them (*NUL false).  Little-endian: the low bytes come
 * first; other byte orders go byte by byte. */
static HIST__ALWAYS_INLINE uint64_t before_nul(uint64_t w, bool *nul)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* The lowest flagged byte is the first zero byte (a borrow can only
	 * flag bytes above a real zero). */
	uint64_t z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;

	*nul = z != 0;
	/* z = 0: (0 >> 7) - 1 keeps every byte; no branch */
	return w & (((z & -z) >> 7) - 1);
#else
	unsigned char b[8];
	unsigned i;

	memcpy(b, &w, 8);
	for (i = 0; i < 8 && b[i]; i++)
		;
	*nul = i < 8;
	memset(b + i, 0, 8 - i);
	memcpy(&w, b, 8);
	return w;
#endif
}

/* The first N (1..7) bytes of W in memory order, the rest zero. */
static HIST__ALWAYS_INLINE uint64_t first_bytes(uint64_t w, uint32_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return w & ~(UINT64_MAX >> 8 * n);
#else
	return w & ((1ull << 8 * n) - 1);
#endif
}

/*
 * A string part of WORDS words of a key, at KEY, from the char array at
 * SRC kept to MAX bytes (at most 8 * WORDS): every word of the part
 * written, those past the text zero, so no pre-zeroed buffer is needed.
 * The record holds every word read.  With WORDS a constant no loop is
 * left after unrolling.  No branch depends on the text: which word
 * holds the NUL differs from record to record (comm), and a branch on it
 * was mispredicted often enough to cost more than reading every word
 * and masking those after the NUL (LIVE).
 */
static HIST__ALWAYS_INLINE void put_str_words(uint64_t *key, const uint8_t *src, uint32_t max,
					      const uint32_t words)
{
	uint64_t live = UINT64_MAX;
	uint32_t i;

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 4
#endif
	for (i = 0; i < words; i++) {
		uint64_t w = 0;
		bool nul;

		if (8 * i < max) {
			memcpy(&w, src + 8 * i, 8);
			if (max - 8 * i < 8)
				w = first_bytes(w, max - 8 * i);
			w = before_nul(w, &nul) & live;
			live &= (uint64_t)nul - 1;
		}
		key[i] = w;
	}
}

/* The shapes of wide keys a variant is specialised for. */
enum wide_kind {
	WIDE_INTS,	/* integer parts only: one word each, in order */
	WIDE_STR,	/* one string part */
	WIDE_PARTS,	/* anything else wide_dims() takes */
};

/*
 * The key of a record that holds every part (its length at least
 * H->rd_end), in KEY: WORDS words (H->key_words where the variant knows
 * it as a constant, else 0) of a key of shape KIND.
 */
static HIST__ALWAYS_INLINE void wide_key(const struct hist__hist *h, const uint8_t *rec,
					 uint64_t *key, const enum wide_kind kind,
					 const uint32_t words)
{
	uint32_t i;

	if (kind == WIDE_INTS) {
		for (i = 0; i < words; i++)
			key[i] = rd_field_in(&h->kparts[i].rd, rec, RD_ANY);
		return;
	}
	if (kind == WIDE_STR && words) {
		put_str_words(key, rec + h->kparts[0].rd.off, h->kparts[0].str_max, words);
		return;
	}
	/* The parts tile the key in whole words (their sizes are rounded up
	 * to 8, and a string's STR_MAX reaches into its last word), so
	 * writing each part writes every word of the key. */
	for (i = 0; i < h->nr_keys; i++) {
		const struct hist__kpart *p = &h->kparts[i];

		if (p->str_max)
			put_str_words(key + p->key_off / 8, rec + p->rd.off, p->str_max,
				      (p->str_max + 7) / 8);
		else
			key[p->key_off / 8] = rd_field_in(&p->rd, rec, RD_ANY);
	}
}

/*
 * hist_event_hit() of TL's lone wide-key hist: NV values, a key of shape
 * KIND and WORDS words (0: H->key_words, not a constant), SHARED: its map
 * keeps shared sums (atomic adds, no slot owner needed).  A record too
 * short for the readers takes the general path, which reads each field
 * with its bounds (a missing field reads as 0 or "").
 */
static HIST__ALWAYS_INLINE void hit_wide(const struct hist__tlist *tl, const uint8_t *rec,
					 size_t len, const struct hist_hit *hit,
					 const uint32_t nv, const enum wide_kind kind,
					 const uint32_t words, const bool shared)
{
	struct hist__hist *h = tl->fast->hist;
	uint64_t key[HIST__WIDE_WORDS], v1 = 0, v2 = 0, *sums;
	const struct hist__cpu *c;
	bool absent = false;
	uint32_t slot;

	/* relaxed: as in hist__triggers_run() */
	if (hist__unlikely(hist__load_relaxed(&tl->fast->paused)))
		return;
	if (hist__unlikely(len < h->rd_end)) {
		hist__tlist_hit_any(tl, rec, len, hit);
		return;
	}
	wide_key(h, rec, key, kind, words);
	if (nv > 1)
		v1 = rd_field_in(&h->rd_vals[1], rec, RD_ANY);
	if (nv > 2)
		v2 = rd_field_in(&h->rd_vals[2], rec, RD_ANY);
	if (shared) {
		/* acquire: pairs with the release in hist__hist_clear() */
		sums = hist__map_find_shared_words(hist__load_acquire(&h->map), key,
						   words ? words : h->key_words, &absent);
		if (hist__unlikely(!sums)) {
			hist_insert(h, key, v1, v2,
					  hist__slot_peek(h->cpus, h->nr_cpus, hit->cpu), absent,
					  NULL);
			return;
		}
		shared_add(sums, nv, v1, v2);
		return;
	}
	slot = hist__slot_index(h->nr_cpus, hit->cpu);
	c = &h->cpus[slot];
	/* acquire: pairs with the release in hist__hist_clear();
	 * relaxed: HOME, a mode word (hist__map_not_home()) */
	if (hist__unlikely(!hist__slot_mine(c)) ||
	    hist__unlikely(!(sums = hist__map_find_owned_words(hist__load_acquire(&h->map), key,
								words ? words : h->key_words,
								slot, hist__load_relaxed(&c->home),
								&absent)))) {
		/* what the inline probes left over (a new key, a long
		 * chain, a shared cpu slot or one not owned yet, an element
		 * to mark CROSSED); no record: .execname hists take the
		 * general path */
		hist_insert(h, key, v1, v2, hist__slot_peek(h->cpus, h->nr_cpus, hit->cpu),
				  absent, NULL);
		return;
	}
	hist__add_local(&sums[0], 1);
	if (nv > 1)
		hist__add_local(&sums[1], v1);
	if (nv > 2)
		hist__add_local(&sums[2], v2);
}

/*
 * One variant per number of values, key shape and size, and layout of
 * the sums (suffix _SH: shared): integer keys of 2 and 3 fields, one
 * string of 2, 3 or 4 words (up to 31 bytes) get their loops unrolled;
 * the rest share the general ones.
 */
#define WIDE_HIT(NV, K, W, SH, SUFFIX)                                                   \
	static void hit_wide_##NV##_##K##_##W##SUFFIX(const struct hist__tlist *tl,      \
						      const uint8_t *rec, size_t len,    \
						      const struct hist_hit *hit)        \
	{                                                                                \
		hit_wide(tl, rec, len, hit, NV, WIDE_##K, W, SH);                        \
	}
#define WIDE_HITS(K, W)                                                                  \
	WIDE_HIT(1, K, W, false, ) WIDE_HIT(2, K, W, false, ) WIDE_HIT(3, K, W, false, ) \
	WIDE_HIT(1, K, W, true, _SH) WIDE_HIT(2, K, W, true, _SH) WIDE_HIT(3, K, W, true, _SH)
WIDE_HITS(INTS, 2)
WIDE_HITS(INTS, 3)
WIDE_HITS(STR, 2)
WIDE_HITS(STR, 3)
WIDE_HITS(STR, 4)
WIDE_HITS(PARTS, 0)

/* Fill P for key field F (at its key offset); false if F is neither a
 * plain integer field nor a fixed char array. */
static bool set_kpart(struct hist__kpart *p, const struct hist__field *f, uint64_t *end)
{
	uint32_t off, size;

	p->key_off = f->key_offset;
	p->str_max = 0;
	if (set_rd(&p->rd, f)) {
		*end = max_u64(*end, p->rd.end);
		return true;
	}
	if (!hist__field_plain_str(f, &off, &size) || !size)
		return false;
	/* build_key() keeps at most key_size - 1 bytes of the text, and
	 * reads it within the array */
	p->str_max = size < f->key_size ? size : f->key_size - 1;
	p->rd.off = off;
	/* whole words are read: the record must hold them and the array */
	*end = max_u64(*end, (uint64_t)off + max_u64(size, (p->str_max + 7) & ~7u));
	return true;
}

/* ---- the table ------------------------------------------------------ */

/* The cells of a dimension, as hist_debug prints them. */
static const char *const family_names[] = {
	[HIST__VF_SIMPLE] = "simple",
	[HIST__VF_FILTERED] = "filtered",
	[HIST__VF_WIDE] = "wide",
	[HIST__VF_COMM] = "comm",
};
static const char *const key_names[] = {
	[HIST__VK_ANY] = "int",	  [HIST__VK_U64] = "u64",   [HIST__VK_S32] = "s32",
	[HIST__VK_INTS] = "ints", [HIST__VK_STR] = "str",   [HIST__VK_PARTS] = "parts",
};
static const char *const look_names[] = {
	[HIST__VL_PROBES] = "probes",
	[HIST__VL_FIRST32] = "first32",
	[HIST__VL_LINE32] = "line32",
	[HIST__VL_SHARED] = "shared",
};

#define S(K, V, NV, LOOK, FN)                                                          \
	{ FN, HIST__VF_SIMPLE, HIST__VK_##K, 0, HIST__VV_##V, NV, HIST__VL_##LOOK }
/* every look of a simple key K with one value column (hitcount) */
#define S_1(K)                                                                        \
	S(K, U64, 1, FIRST32, hit_##K##_U64_1_32), S(K, U64, 1, LINE32, hit_##K##_U64_1_L2), \
	S(K, U64, 1, SHARED, hit_##K##_U64_1_SH)
/* ... and with two or three */
#define S_23(K, V)                                                                    \
	S(K, V, 3, PROBES, hit_##K##_##V##_3), S(K, V, 2, FIRST32, hit_##K##_##V##_2_32),  \
	S(K, V, 2, LINE32, hit_##K##_##V##_2_L2), S(K, V, 2, SHARED, hit_##K##_##V##_2_SH), \
	S(K, V, 3, SHARED, hit_##K##_##V##_3_SH)
#define F(NV, LOOK, FN)                                                                \
	{ FN, HIST__VF_FILTERED, HIST__VK_ANY, 0, HIST__VV_ANY, NV, HIST__VL_##LOOK }
#define C(NV, LOOK, FN)                                                                \
	{ FN, HIST__VF_COMM, HIST__VK_ANY, 0, HIST__VV_ANY, NV, HIST__VL_##LOOK }
#define W(K, WORDS, NV, LOOK, FN)                                                      \
	{ FN, HIST__VF_WIDE, HIST__VK_##K, WORDS, HIST__VV_ANY, NV, HIST__VL_##LOOK }
/* every number of values and layout of the sums of a wide key */
#define W_ALL(K, WORDS)                                                                \
	W(K, WORDS, 1, PROBES, hit_wide_1_##K##_##WORDS),                              \
	W(K, WORDS, 2, PROBES, hit_wide_2_##K##_##WORDS),                              \
	W(K, WORDS, 3, PROBES, hit_wide_3_##K##_##WORDS),                              \
	W(K, WORDS, 1, SHARED, hit_wide_1_##K##_##WORDS##_SH),                         \
	W(K, WORDS, 2, SHARED, hit_wide_2_##K##_##WORDS##_SH),                         \
	W(K, WORDS, 3, SHARED, hit_wide_3_##K##_##WORDS##_SH)

/*
 * Every hit variant, by its dimensions (struct hist__variant): the one
 * list that hist__variant_choose() searches, hist_debug names and
 * test_variants runs cell by cell against the general path.
 */
static const struct hist__variant variants[] = {
	S_1(ANY), S_1(U64), S_1(S32),
	S_23(ANY, ANY), S_23(ANY, U64), S_23(U64, ANY), S_23(U64, U64), S_23(S32, ANY),
	S_23(S32, U64),
	F(3, PROBES, hit_filtered_3), F(1, FIRST32, hit_filtered_1_32),
	F(2, FIRST32, hit_filtered_2_32), F(1, LINE32, hit_filtered_1_L2),
	F(2, LINE32, hit_filtered_2_L2), F(1, SHARED, hit_filtered_1_SH),
	F(2, SHARED, hit_filtered_2_SH), F(3, SHARED, hit_filtered_3_SH),
	C(1, PROBES, hit_comm_1), C(2, PROBES, hit_comm_2), C(3, PROBES, hit_comm_3),
	C(1, SHARED, hit_comm_1_SH), C(2, SHARED, hit_comm_2_SH), C(3, SHARED, hit_comm_3_SH),
	W_ALL(INTS, 2), W_ALL(INTS, 3), W_ALL(STR, 2), W_ALL(STR, 3), W_ALL(STR, 4),
	W_ALL(PARTS, 0),
};
#undef S
#undef S_1
#undef S_23
#undef F
#undef C
#undef W
#undef W_ALL

const struct hist__variant *hist__variant_at(uint32_t i)
{
	return i < HIST__ARRAY_SIZE(variants) ? &variants[i] : NULL;
}

void hist__variant_name(struct hist__sb *sb, const struct hist__variant *v)
{
	if (!v) {
		hist__sb_puts(sb, "general");
		return;
	}
	hist__sb_puts(sb, family_names[v->family]);
	hist__sb_puts(sb, " key=");
	hist__sb_puts(sb, key_names[v->key]);
	if (v->key_words) {
		hist__sb_putc(sb, '/');
		hist__sb_u64(sb, v->key_words, 0, ' ');
	}
	hist__sb_puts(sb, " vals=");
	hist__sb_puts(sb, v->vals == HIST__VV_U64 ? "u64" : "int");
	hist__sb_putc(sb, 'x');
	hist__sb_u64(sb, v->nr_vals, 0, ' ');
	hist__sb_puts(sb, " look=");
	hist__sb_puts(sb, look_names[v->look]);
}

/* The cell with the dimensions of WANT (its fn aside), or NULL. */
static const struct hist__variant *find(const struct hist__variant *want)
{
	uint32_t i;

	for (i = 0; i < HIST__ARRAY_SIZE(variants); i++) {
		const struct hist__variant *v = &variants[i];

		if (v->family == want->family && v->key == want->key &&
		    v->key_words == want->key_words && v->vals == want->vals &&
		    v->nr_vals == want->nr_vals && v->look == want->look)
			return v;
	}
	return NULL;
}

/* How simple_read() reads field RD: u64, s32 or anything. */
static enum hist__vkey simple_key_of(const struct hist__rd *rd)
{
	if (rd->size == 8)
		return HIST__VK_U64;
	if (rd->size == 4 && rd->is_signed)
		return HIST__VK_S32;
	return HIST__VK_ANY;
}

/*
 * Whether H is a plain aggregation with one integer field key (.execname
 * allowed) and values that are integer fields: fills H's record readers,
 * and, in *WANT, the dimensions of a simple cell.
 */
static bool simple_dims(struct hist__hist *h, struct hist__variant *want)
{
	uint32_t i;

	if (!h->single_int_key || !plain_aggregation(h) || !set_rd(&h->rd_key, h->keys[0]))
		return false;
	h->rd_end = h->rd_key.end;
	if (!set_val_rds(h, &h->rd_end))
		return false;
	want->family = HIST__VF_SIMPLE;
	want->key = simple_key_of(&h->rd_key);
	want->vals = HIST__VV_U64;
	for (i = 1; i < h->nr_vals; i++)
		if (simple_key_of(&h->rd_vals[i]) != HIST__VK_U64)
			want->vals = HIST__VV_ANY;
	want->nr_vals = (uint8_t)h->nr_vals;
	/* The map is made at setup and a clear makes the next one alike. */
	want->look = h->shared_sums		    ? HIST__VL_SHARED
		     : hist__map_line2(h->map)	    ? HIST__VL_LINE32
		     : hist__map_slots32(h->map) ? HIST__VL_FIRST32
						    : HIST__VL_PROBES;
	return true;
}

/*
 * Whether H, alone and unfiltered on its event, can take a wide-key
 * variant: keys that are plain integer fields or fixed char arrays of
 * the record, at most HIST__WIDE_WORDS words in all, values as the simple
 * variants take them, nothing else.  Fills H's readers and, in *WANT, the
 * dimensions of a wide cell.
 */
static bool wide_dims(struct hist__hist *h, struct hist__variant *want)
{
	uint32_t i, strs = 0;
	uint64_t end = 0;

	if (h->single_int_key || !plain_aggregation(h) || h->needs_comm ||
	    h->key_size <= 8 || h->key_size > HIST__WIDE_WORDS * 8 || h->key_size % 8)
		return false;
	for (i = 0; i < h->nr_keys; i++)
		if (!set_kpart(&h->kparts[i], h->keys[i], &end))
			return false;
	if (!set_val_rds(h, &end))
		return false;
	h->rd_end = end;
	h->key_words = h->key_size / 8;
	for (i = 0; i < h->nr_keys; i++)
		strs += h->kparts[i].str_max != 0;
	want->family = HIST__VF_WIDE;
	want->vals = HIST__VV_ANY;
	want->nr_vals = (uint8_t)h->nr_vals;
	want->look = h->shared_sums ? HIST__VL_SHARED : HIST__VL_PROBES;
	/* integer parts take 8 bytes each, in key order: 2 and 3 of them,
	 * and one string of 2 to 4 words, get their loops unrolled */
	if (!strs && h->key_words <= 3) {
		want->key = HIST__VK_INTS;
		want->key_words = (uint8_t)h->key_words;
	} else if (strs == 1 && h->nr_keys == 1 && h->key_words <= 4) {
		want->key = HIST__VK_STR;
		want->key_words = (uint8_t)h->key_words;
	} else {
		want->key = HIST__VK_PARTS;
		want->key_words = 0;
	}
	return true;
}

const struct hist__variant *hist__variant_choose(struct hist__trigger *t, bool *simple)
{
	struct hist__hist *h = t->hist;
	/* a filter the host applied is no filter for the hit */
	const struct hist_filter *filter = t->hit_filter;
	struct hist__variant want;
	const struct hist__variant *v = NULL;

	memset(&want, 0, sizeof(want));
	*simple = simple_dims(h, &want);
	if (*simple) {
		/* Filters that read more than integer fields are left to the
		 * general simple path, and so are filters with .execname (no
		 * cell has both). */
		if (filter || h->needs_comm) {
			want.family = filter ? HIST__VF_FILTERED : HIST__VF_COMM;
			want.key = HIST__VK_ANY;
			want.vals = HIST__VV_ANY;
		}
		if (!(filter && h->needs_comm) && (!filter || hist__filter_plain(filter)))
			v = find(&want);
	} else if (!filter && wide_dims(h, &want)) {
		v = find(&want);
	}
	if (*simple || v) {
		h->cpus = h->ev->ctx->cpus;
		h->nr_cpus = h->ev->ctx->opts.nr_cpus;
	}
	return v;
}
