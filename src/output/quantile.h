/* SPDX-License-Identifier: MIT */
/*
 * Quantiles of a histogram's numeric key (hist_reader_quantile), shared by
 * the JSON and OpenMetrics writers: the key's distribution is collected
 * once from a reader and then asked for any number of quantiles.
 */
#ifndef HIST_QUANTILE_H
#define HIST_QUANTILE_H

#include "libhist.h"
#include "common/platform.h"

/* One entry of the distribution: the key's bucket and its weight. */
struct hist__qpt {
	uint64_t lo, hi;	/* the values the entry stands for */
	uint64_t weight;	/* hits (or the sum of the weighing value) */
};

struct hist__qdist {
	struct hist__qpt *pts;	/* sorted by lo */
	size_t n;
	uint64_t total;		/* sum of the weights */
	uint32_t is_signed;	/* lo and hi order as int64_t */
};

/* The values a key of kind KIND with VALUE (and bucket WIDTH) stands for:
 * [lo, hi], lo == hi for plain numbers.  Returns false for kinds that are
 * not numbers (strings, names, stacks). */
bool hist__key_bounds(uint32_t kind, uint64_t value, uint64_t width,
		      uint64_t *lo, uint64_t *hi) HIST__INTERNAL;

/* Collect the distribution of R's column NAME (see hist_reader_quantile);
 * rewinds R before and after.  0 or -HIST_EINVAL / -HIST_ENOMEM. */
int hist__qdist_collect(hist_reader *r, const char *name,
			struct hist__qdist *d) HIST__INTERNAL;
/* The Q-quantile's bucket.  0, -HIST_EINVAL (Q outside [0, 1]) or
 * -HIST_ENOENT (no weight at all). */
int hist__qdist_at(const struct hist__qdist *d, double q, uint64_t *lo,
		   uint64_t *hi) HIST__INTERNAL;
void hist__qdist_free(struct hist__qdist *d) HIST__INTERNAL;

#endif
