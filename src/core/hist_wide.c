/* SPDX-License-Identifier: MIT */
/*
 * The hit path of a lone, unfiltered plain hist whose key is wider than
 * 8 bytes: a fixed char array (keys=comm, keys=name), several integer
 * fields (keys=pid,cpu,prio), or both.  The general path builds such a
 * key through each field's evaluator, copies the string after a strnlen
 * and hashes it on the way to the map; here the key's words are built
 * straight from the record by readers fixed at parse time, and the map's
 * first probes run inline.  The key bytes are exactly build_key()'s
 * (hist.c): the same table, the same output.
 */
#include "core/rd.h"

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
	WIDE_ANY,	/* anything else hist__hist_wide() takes */
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
			hist__hist_insert(h, key, v1, v2,
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
		hist__hist_insert(h, key, v1, v2, hist__slot_peek(h->cpus, h->nr_cpus, hit->cpu),
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
WIDE_HITS(ANY, 0)

_Static_assert(HIST__VALS_MAX == 3, "one variant per number of values");
/* [per cpu, shared][nr_vals - 1] */
#define WIDE_ROW(K, W)                                                                   \
	{ { hit_wide_1_##K##_##W, hit_wide_2_##K##_##W, hit_wide_3_##K##_##W },          \
	  { hit_wide_1_##K##_##W##_SH, hit_wide_2_##K##_##W##_SH, hit_wide_3_##K##_##W##_SH } }
static const hist__tlist_hit_fn wide_ints[2][2][HIST__VALS_MAX] = {
	WIDE_ROW(INTS, 2), WIDE_ROW(INTS, 3),
};
static const hist__tlist_hit_fn wide_strs[3][2][HIST__VALS_MAX] = {
	WIDE_ROW(STR, 2), WIDE_ROW(STR, 3), WIDE_ROW(STR, 4),
};
static const hist__tlist_hit_fn wide_any[2][HIST__VALS_MAX] = WIDE_ROW(ANY, 0);

/* The variant for H's key (kparts filled), values and sums. */
static hist__tlist_hit_fn wide_variant(const struct hist__hist *h)
{
	uint32_t i, strs = 0, nv = h->nr_vals - 1, sh = h->shared_sums;

	for (i = 0; i < h->nr_keys; i++)
		strs += h->kparts[i].str_max != 0;
	/* integer parts take 8 bytes each, in key order */
	if (!strs && h->key_words <= 3)
		return wide_ints[h->key_words - 2][sh][nv];
	if (strs == 1 && h->nr_keys == 1 && h->key_words <= 4)
		return wide_strs[h->key_words - 2][sh][nv];
	return wide_any[sh][nv];
}

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

bool hist__hist_wide(struct hist__hist *h)
{
	uint64_t end = 0;
	uint32_t i;

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
	h->hit_fast = wide_variant(h);
	h->cpus = h->ev->ctx->cpus;
	h->nr_cpus = h->ev->ctx->opts.nr_cpus;
	return true;
}
