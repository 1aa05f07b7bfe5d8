/* SPDX-License-Identifier: MIT */
/*
 * Quantiles of a histogram's numeric key (hist_reader_quantile).
 *
 * Every hit of an entry had the entry's key, so a key column weighed by
 * hitcount is the distribution of the hits; weighed by a value column it
 * is the distribution of that value's sum ("half the bytes were
 * requested in calls of at most N bytes").  The Q-quantile is the nearest
 * rank: the smallest key x with at least ceil(Q * total) of the weight at
 * or below x.  A plain number key is the field itself, so its quantile is
 * exact; a .log2 or .buckets key kept only the bucket, so the answer is
 * the bucket, whose bounds hold the exact quantile of the hits.
 */
#include "map/map.h"
#include "output/quantile.h"

/* ceil(log2 v) = E covers (2^(E-1), 2^E]; E = 0 covers 0 and 1, and
 * E = 64 the values past 2^63 (ev_log2() in expr.c). */
bool hist__key_bounds(uint32_t kind, uint64_t value, uint64_t width,
		      uint64_t *lo, uint64_t *hi)
{
	switch (kind) {
	case HIST_KEY_NUMBER:
	case HIST_KEY_HEX:
		*lo = *hi = value;
		return true;
	case HIST_KEY_LOG2:
		if (value == 0) {
			*lo = 0;
			*hi = 1;
		} else if (value >= 64) {
			*lo = (1ull << 63) + 1;
			*hi = UINT64_MAX;
		} else {
			*lo = (1ull << (value - 1)) + 1;
			*hi = 1ull << value;
		}
		return true;
	case HIST_KEY_BUCKET:
		*lo = value;
		*hi = width ? value + (width - 1) : value;
		if (*hi < value)
			*hi = UINT64_MAX;
		return true;
	default:
		return false;
	}
}

static int cmp_u(const void *a, const void *b, void *arg)
{
	const struct hist__qpt *x = a, *y = b;

	(void)arg;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_s(const void *a, const void *b, void *arg)
{
	const struct hist__qpt *x = a, *y = b;

	(void)arg;
	return (int64_t)x->lo < (int64_t)y->lo ? -1 : (int64_t)x->lo > (int64_t)y->lo;
}

/* Column of NAME: the key (*key) and the weighing value (*val).  A key
 * is weighed by hitcount, a value weighs the first numeric key. */
static int resolve(const struct hist_read_info *info, const char *name,
		   uint32_t *key, uint32_t *val)
{
	uint64_t lo, hi;
	uint32_t i;

	*key = *val = UINT32_MAX;
	for (i = 0; i < info->nr_key_fields; i++)
		if (!strcmp(info->key_fields[i].name, name))
			*key = i;
	for (i = 0; i < info->nr_val_fields; i++)
		if (!strcmp(info->val_fields[i].name,
			    *key != UINT32_MAX ? "hitcount" : name))
			*val = i;
	if (*key == UINT32_MAX) {
		for (i = 0; i < info->nr_key_fields; i++)
			if (hist__key_bounds(info->key_fields[i].kind, 0, 1, &lo, &hi))
				break;
		*key = i < info->nr_key_fields ? i : UINT32_MAX;
	}
	if (*key == UINT32_MAX || *val == UINT32_MAX ||
	    !hist__key_bounds(info->key_fields[*key].kind, 0, 1, &lo, &hi))
		return -HIST_EINVAL;
	return 0;
}

int hist__qdist_collect(hist_reader *r, const char *name, struct hist__qdist *d)
{
	const struct hist_read_info *info = hist_reader_info(r);
	const struct hist_read_entry *e;
	struct hist__qpt **order = NULL, *sorted = NULL;
	uint32_t key, val;
	size_t cap = 0, i;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = resolve(info, name, &key, &val);
	if (ret)
		return ret;
	d->is_signed = info->key_fields[key].is_signed;
	hist_reader_rewind(r);
	while ((e = hist_reader_next(r))) {
		struct hist__qpt *p;

		if (hist__grow(&d->pts, &cap, d->n + 1, sizeof(*d->pts), 64))
			goto nomem;
		p = &d->pts[d->n];
		hist__key_bounds(e->keys[key].kind, e->keys[key].value,
				 info->key_fields[key].width, &p->lo, &p->hi);
		p->weight = e->vals[val].value;
		d->total += p->weight;
		d->n++;
	}
	hist_reader_rewind(r);
	if (d->n < 2)
		return 0;
	order = hist__zalloc(d->n * sizeof(*order));
	sorted = hist__zalloc(d->n * sizeof(*sorted));
	if (!order || !sorted)
		goto nomem;
	for (i = 0; i < d->n; i++)
		order[i] = &d->pts[i];
	if (hist__sort((void **)order, d->n, d->is_signed ? cmp_s : cmp_u, NULL))
		goto nomem;
	for (i = 0; i < d->n; i++)
		sorted[i] = *order[i];
	hist__free(order);
	hist__free(d->pts);
	d->pts = sorted;
	return 0;
nomem:
	hist_reader_rewind(r);
	hist__free(order);
	hist__free(sorted);
	hist__qdist_free(d);
	return -HIST_ENOMEM;
}

int hist__qdist_at(const struct hist__qdist *d, double q, uint64_t *lo,
		   uint64_t *hi)
{
	double want;
	uint64_t rank, sum = 0;
	size_t i;

	if (!(q >= 0.0 && q <= 1.0))	/* NaN too */
		return -HIST_EINVAL;
	if (!d->total)
		return -HIST_ENOENT;
	want = q * (double)d->total;
	rank = (uint64_t)want;
	if ((double)rank < want)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > d->total)
		rank = d->total;
	for (i = 0; i < d->n; i++) {
		sum += d->pts[i].weight;
		if (sum >= rank)
			break;
	}
	*lo = d->pts[i].lo;
	*hi = d->pts[i].hi;
	return 0;
}

void hist__qdist_free(struct hist__qdist *d)
{
	hist__free(d->pts);
	memset(d, 0, sizeof(*d));
}

int hist_reader_quantile(hist_reader *r, const char *name, double q,
			 uint64_t *lo, uint64_t *hi)
{
	struct hist__qdist d;
	int ret;

	if (!r || !name || !lo || !hi)
		return -HIST_EINVAL;
	if (!(q >= 0.0 && q <= 1.0))
		return -HIST_EINVAL;
	ret = hist__qdist_collect(r, name, &d);
	if (!ret)
		ret = hist__qdist_at(&d, q, lo, hi);
	hist__qdist_free(&d);
	return ret;
}
