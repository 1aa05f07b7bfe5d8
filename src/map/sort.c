/* SPDX-License-Identifier: MIT */
/*
 * hist__sort: a stable bottom-up merge sort of pointer arrays, and
 * hist__sort_keyed: a stable LSD radix sort on a u64 prefix of each item.
 *
 * CMP receives the pointers themselves (items[i], not &items[i]).  Runs of
 * HIST__SORT_RUN items are first put in order by insertion sort, then
 * merged pairwise, the passes alternating between ITEMS and one scratch
 * array.  Two neighbouring runs that are already in order are copied
 * without merging, so sorted or nearly sorted input (the common case for a
 * snapshot re-sorted on a second key) costs one comparison per run pair.
 *
 * A comparison sort of a million map elements is bound by the comparator:
 * ~20 million indirect calls, each dereferencing two elements scattered
 * over a table larger than the cache.  hist__sort_keyed reads each element
 * once, in the caller's order (slot order for a fresh snapshot, which is
 * memory order), to take a u64 prefix, then radix-sorts words of (prefix
 * bits, item index) in two flat arrays; only items whose prefixes tie go
 * through CMP.
 */
#include "libhist.h"
#include "common/platform.h"
#include "map/map.h"

#define HIST__SORT_RUN 24

typedef int (*hist__sort_cmp)(const void *a, const void *b, void *arg);

/* Stable: an item moves left only past items that compare greater. */
static void insertion_sort(void **a, size_t n, hist__sort_cmp cmp, void *arg)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		void *x = a[i];

		for (j = i; j > 0 && cmp(a[j - 1], x, arg) > 0; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/* Merge SRC[lo, mid) and SRC[mid, hi) into DST[lo, hi); ties take the left. */
static void merge(void **dst, void **src, size_t lo, size_t mid, size_t hi,
		  hist__sort_cmp cmp, void *arg)
{
	size_t i = lo, j = mid, k = lo;

	if (mid >= hi || cmp(src[mid - 1], src[mid], arg) <= 0) {
		memcpy(dst + lo, src + lo, (hi - lo) * sizeof(*dst));
		return;
	}
	/*
	 * Kept as a branch on purpose: the predicted branch lets the cpu run
	 * ahead and overlap the cache misses of the next comparisons, which a
	 * branch-free select would serialise (5x slower on a 1M-entry map).
	 * The exit test in each arm keeps compilers from if-converting it.
	 */
	for (;;) {
		if (cmp(src[j], src[i], arg) < 0) {
			dst[k++] = src[j++];
			if (j == hi)
				break;
		} else {
			dst[k++] = src[i++];
			if (i == mid)
				break;
		}
	}
	if (i < mid)
		memcpy(dst + k, src + i, (mid - i) * sizeof(*dst));
	else
		memcpy(dst + k, src + j, (hi - j) * sizeof(*dst));
}

int hist__sort(void **items, size_t n, hist__sort_cmp cmp, void *arg)
{
	void **tmp, **src, **dst, **t;
	size_t lo, width;

	if (n <= HIST__SORT_RUN) {
		insertion_sort(items, n, cmp, arg);
		return 0;
	}
	if (n > SIZE_MAX / sizeof(*items))
		return -HIST_ENOMEM;
	tmp = hist__zalloc(n * sizeof(*items));
	if (!tmp)
		return -HIST_ENOMEM;

	for (lo = 0; lo < n; lo += HIST__SORT_RUN)
		insertion_sort(items + lo, n - lo < HIST__SORT_RUN ? n - lo : HIST__SORT_RUN,
			       cmp, arg);

	src = items;
	dst = tmp;
	for (width = HIST__SORT_RUN; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			size_t mid = n - lo > width ? lo + width : n;
			size_t hi = n - mid > width ? mid + width : n;

			merge(dst, src, lo, mid, hi, cmp, arg);
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != items)
		memcpy(items, src, n * sizeof(*items));
	hist__free(tmp);
	return 0;
}

struct hist__sort_pair {
	uint64_t key;
	void *item;
};

/*
 * LSD radix sort over the bits that vary among the prefixes only, in as
 * few passes as digits of at most HIST__RADIX_BITS_MAX bits allow: each
 * pass reads and scatters every record once, so passes and record size
 * are the cost.  A 44-bit prefix takes 4 passes of 11 bits rather than
 * 6 of 8; a digit's histogram (2^11 counters, 16 KB) stays in the L1
 * cache.  Where the varying bits and the bits of an item's index fit in
 * 64, the records are single words (prefix bits, then the index): half
 * the bytes of (prefix, pointer) pairs, which are the fallback.
 */
#define HIST__RADIX_BITS_MAX 11

struct radix_plan {
	uint32_t lo;		/* lowest varying prefix bit */
	uint32_t span;		/* bits from LO to the highest varying one */
	uint32_t passes;
	uint32_t bits;		/* per digit */
	uint64_t mask;		/* (1 << bits) - 1 */
};

/* Digits covering the bits that differ between ALL_OR and ALL_AND. */
static struct radix_plan radix_plan(uint64_t all_or, uint64_t all_and)
{
	uint64_t varying = all_or ^ all_and;
	struct radix_plan p = { 0, 0, 0, 0, 0 };

	if (varying) {
		while (!(varying >> p.lo & 1))
			p.lo++;
		for (p.span = 64 - p.lo; !(varying >> (p.lo + p.span - 1) & 1); p.span--)
			;
	}
	p.passes = (p.span + HIST__RADIX_BITS_MAX - 1) / HIST__RADIX_BITS_MAX;
	p.bits = p.passes ? (p.span + p.passes - 1) / p.passes : 0;
	p.mask = p.bits ? (1ull << p.bits) - 1 : 0;
	return p;
}

/* Histogram counts of one digit into the offsets its pass scatters to. */
static void radix_offsets(size_t *count, uint64_t mask)
{
	size_t pos = 0, b;

	for (b = 0; b <= mask; b++) {
		size_t c = count[b];

		count[b] = pos;
		pos += c;
	}
}

/* Stable counting-sort passes of N words on digits from SHIFT up (a
 * record is its key); the result is in A or B, returned. */
static uint64_t *radix_words(uint64_t *a, uint64_t *b, size_t n, uint32_t shift,
			     const struct radix_plan *p, size_t *count)
{
	uint32_t d;
	uint64_t *t;
	size_t i;

	for (i = 0; i < n; i++)
		for (d = 0; d < p->passes; d++)
			count[d * (p->mask + 1) + ((a[i] >> (shift + d * p->bits)) & p->mask)]++;
	for (d = 0; d < p->passes; d++) {
		size_t *c = count + d * (p->mask + 1);
		uint32_t sh = shift + d * p->bits;

		radix_offsets(c, p->mask);
		for (i = 0; i < n; i++)
			b[c[(a[i] >> sh) & p->mask]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	return a;
}

/* The same over (prefix, item) pairs. */
static struct hist__sort_pair *radix_pairs(struct hist__sort_pair *a, struct hist__sort_pair *b,
					   size_t n, const struct radix_plan *p, size_t *count)
{
	struct hist__sort_pair *t;
	uint32_t d;
	size_t i;

	for (i = 0; i < n; i++)
		for (d = 0; d < p->passes; d++)
			count[d * (p->mask + 1) + ((a[i].key >> (p->lo + d * p->bits)) & p->mask)]++;
	for (d = 0; d < p->passes; d++) {
		size_t *c = count + d * (p->mask + 1);
		uint32_t sh = p->lo + d * p->bits;

		radix_offsets(c, p->mask);
		for (i = 0; i < n; i++)
			b[c[(a[i].key >> sh) & p->mask]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	return a;
}

/*
 * Orders each run of equal prefixes with CMP; ITEMS already follows the
 * sorted records, whose prefix I is KEYS[I * STRIDE] >> SHIFT.
 */
static int sort_ties(void **items, const uint64_t *keys, size_t stride, uint32_t shift,
		     size_t n, hist__sort_cmp cmp, void *arg)
{
	size_t lo = 0, hi;
	int ret;

	while (lo < n) {
		uint64_t k = keys[lo * stride] >> shift;

		for (hi = lo + 1; hi < n && keys[hi * stride] >> shift == k; hi++)
			;
		if (hi - lo > 1) {
			ret = hist__sort(items + lo, hi - lo, cmp, arg);
			if (ret)
				return ret;
		}
		lo = hi;
	}
	return 0;
}

/* Bits of an index below N. */
static uint32_t index_bits(size_t n)
{
	uint32_t b = 0;

	while (b < 64 && (n - 1) >> b)
		b++;
	return b;
}

int hist__sort_keyed(void **items, size_t n, uint64_t (*prefix)(const void *item, void *arg),
		     hist__sort_cmp cmp, void *arg)
{
	uint64_t k, all_or = 0, all_and = UINT64_MAX, *w, *keys, mask_i;
	struct hist__sort_pair *pairs = NULL;
	struct radix_plan p;
	size_t *count = NULL, stride = 1, i;
	uint32_t ib = index_bits(n), shift = ib, drop;
	void **orig;
	int ret = 0;

	if (n < 2)
		return 0;
	if (n > SIZE_MAX / (4 * sizeof(*pairs)))
		return -HIST_ENOMEM;
	/* Two arrays of words, then a copy of ITEMS. */
	w = hist__zalloc(3 * n * sizeof(*w));
	if (!w)
		return -HIST_ENOMEM;
	orig = (void **)(w + 2 * n);
	for (i = 0; i < n; i++) {
		k = prefix(items[i], arg);
		w[i] = k;
		orig[i] = items[i];
		all_or |= k;
		all_and &= k;
	}
	p = radix_plan(all_or, all_and);
	/*
	 * Prefix bits and index must share a word: drop the lowest prefix
	 * bits that do not fit.  That keeps the order CMP agrees with (a
	 * smaller truncated prefix is a smaller prefix) and only makes more
	 * ties for CMP; without CMP the ties would lose their order, so
	 * those sorts take pairs.
	 */
	drop = ib + p.span > 64 ? ib + p.span - 64 : 0;
	if (drop && !cmp) {
		pairs = hist__zalloc(2 * n * sizeof(*pairs));
		count = hist__zalloc((size_t)p.passes * (p.mask + 1) * sizeof(*count));
		if (!pairs || !count) {
			ret = -HIST_ENOMEM;
			goto out;
		}
		for (i = 0; i < n; i++)
			pairs[i] = (struct hist__sort_pair){ w[i], orig[i] };
		keys = &radix_pairs(pairs, pairs + n, n, &p, count)->key;
		for (i = 0; i < n; i++)
			items[i] = ((const struct hist__sort_pair *)(void *)(keys + 2 * i))->item;
		goto out;
	}
	if (drop)
		p = radix_plan((all_or >> (p.lo + drop)) << (p.lo + drop),
			       (all_and >> (p.lo + drop)) << (p.lo + drop));
	count = hist__zalloc((size_t)p.passes * (p.mask + 1) * sizeof(*count));
	if (!count) {
		ret = -HIST_ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		w[i] = (p.passes ? w[i] >> p.lo : 0) << ib | i;
	keys = radix_words(w, w + n, n, ib, &p, count);
	mask_i = (1ull << ib) - 1;
	for (i = 0; i < n; i++)
		items[i] = orig[keys[i] & mask_i];
	if (cmp)
		ret = sort_ties(items, keys, stride, shift, n, cmp, arg);
out:
	hist__free(count);
	hist__free(pairs);
	hist__free(w);
	return ret;
}
