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
 * memory order), to take a u64 prefix, then radix-sorts (prefix, item)
 * pairs in two flat arrays; only items whose prefixes tie go through CMP.
 */
#include "libhist.h"
#include "platform.h"
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

#define HIST__RADIX_BITS 8
#define HIST__RADIX_SIZE (1u << HIST__RADIX_BITS)
#define HIST__RADIX_PASSES (64 / HIST__RADIX_BITS)

/* One stable counting-sort pass on digit D; COUNT holds the digit's histogram. */
static void radix_pass(struct hist__sort_pair *dst, const struct hist__sort_pair *src,
		       size_t n, uint32_t d, size_t *count)
{
	uint32_t shift = d * HIST__RADIX_BITS, b;
	size_t i, pos = 0;

	for (b = 0; b < HIST__RADIX_SIZE; b++) {
		size_t c = count[b];

		count[b] = pos;
		pos += c;
	}
	for (i = 0; i < n; i++)
		dst[count[(src[i].key >> shift) & (HIST__RADIX_SIZE - 1)]++] = src[i];
}

/* Orders each run of equal prefixes with CMP; ITEMS already follows PAIRS. */
static int sort_ties(void **items, const struct hist__sort_pair *pairs, size_t n,
		     hist__sort_cmp cmp, void *arg)
{
	size_t lo = 0, hi;
	int ret;

	while (lo < n) {
		for (hi = lo + 1; hi < n && pairs[hi].key == pairs[lo].key; hi++)
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

int hist__sort_keyed(void **items, size_t n, uint64_t (*prefix)(const void *item, void *arg),
		     hist__sort_cmp cmp, void *arg)
{
	struct hist__sort_pair *a, *b, *t, *mem;
	uint64_t k, all_or = 0, all_and = UINT64_MAX, varying;
	size_t *count;
	size_t i;
	uint32_t d;
	int ret = 0;

	if (n < 2)
		return 0;
	if (n > SIZE_MAX / (2 * sizeof(*a)))
		return -HIST_ENOMEM;
	mem = hist__zalloc(2 * n * sizeof(*a));
	count = hist__zalloc(HIST__RADIX_PASSES * HIST__RADIX_SIZE * sizeof(*count));
	if (!mem || !count) {
		ret = -HIST_ENOMEM;
		goto out;
	}
	a = mem;
	b = mem + n;
	for (i = 0; i < n; i++) {
		k = prefix(items[i], arg);
		a[i].key = k;
		a[i].item = items[i];
		all_or |= k;
		all_and &= k;
		for (d = 0; d < HIST__RADIX_PASSES; d++)
			count[d * HIST__RADIX_SIZE + ((k >> (d * HIST__RADIX_BITS)) &
						      (HIST__RADIX_SIZE - 1))]++;
	}
	/* A digit that is the same in every prefix would be a no-op pass. */
	varying = all_or ^ all_and;
	for (d = 0; d < HIST__RADIX_PASSES; d++) {
		if (!((varying >> (d * HIST__RADIX_BITS)) & (HIST__RADIX_SIZE - 1)))
			continue;
		radix_pass(b, a, n, d, count + d * HIST__RADIX_SIZE);
		t = a;
		a = b;
		b = t;
	}
	for (i = 0; i < n; i++)
		items[i] = a[i].item;
	if (cmp)
		ret = sort_ties(items, a, n, cmp, arg);
out:
	hist__free(count);
	hist__free(mem);
	return ret;
}
