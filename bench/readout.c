/* SPDX-License-Identifier: MIT */
/*
 * Read-out of a histogram with 1M entries.
 *
 * 1. The map level, what a `hist` read does before it formats anything:
 *    snapshot (hist__map_collect, the per-cpu copies of each hitcount
 *    added up once into a row) and sort in the printer's default order
 *    (hitcount ascending, ties by the key bytes), two ways:
 *      - hist__sort with a comparator, as src/output/output.c sorts;
 *      - hist__sort_keyed on one radix key (hitcount, then the top bits
 *        of the key bytes), the comparator only among equal keys: the
 *        same order.
 *    Both orders are checked against each other, element by element.
 * 2. The public path: hist_event_print_hist() of a parsed trigger with the
 *    same 1M entries (snapshot, sort, formatting), into memory.  The text
 *    is parsed back and its totals verified.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "libhist.h"
#include "map/map.h"

#include "bench.h"

#define READOUT_ROUNDS 5

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double med(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_dbl);
	return v[n / 2];
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * A snapshot row: the element and its hitcount, added up over the cpu
 * copies once (a sort must not add them up again per comparison).
 */
struct row {
	struct hist_map_elt *elt;
	uint64_t hitcount;
	uint64_t tie;		/* first 8 key bytes, big-endian: memcmp order */
};

/* output.c's default order: hitcount, then the raw key bytes. */
static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct row *x = a, *y = b;

	(void)arg;
	if (x->hitcount != y->hitcount)
		return x->hitcount < y->hitcount ? -1 : 1;
	return memcmp(hist__map_elt_key(x->elt), hist__map_elt_key(y->elt), 8);
}

/*
 * The same order as one radix key: the hitcount in the high bits, as many
 * of the tie-break bits as fit below it.  Rows whose prefixes are equal go
 * through cmp_rows(), so the order is exactly the comparator's.
 */
struct combined {
	uint32_t shift;		/* bits of the tie-break kept */
};

static uint64_t prefix_combined(const void *item, void *arg)
{
	const struct row *r = item;
	const struct combined *c = arg;

	if (c->shift == 0)
		return r->hitcount;
	return r->hitcount << c->shift | r->tie >> (64 - c->shift);
}

static uint32_t snapshot(struct hist_map *m, struct hist_map_elt **elts, uint64_t *sums,
			 struct row *rows, void **ptrs, uint32_t cap, struct combined *c)
{
	uint32_t n = hist__map_snapshot(m, elts, sums, 1, cap), i, bits;
	uint64_t max = 0, k;

	for (i = 0; i < n; i++) {
		rows[i].elt = elts[i];
		rows[i].hitcount = sums[i];
		memcpy(&k, hist__map_elt_key(elts[i]), 8);
		rows[i].tie = __builtin_bswap64(k);
		if (rows[i].hitcount > max)
			max = rows[i].hitcount;
		ptrs[i] = &rows[i];
	}
	bits = max ? 64 - (uint32_t)__builtin_clzll(max) : 0;
	/* 40 tie-break bits make equal prefixes rare among 1M rows. */
	c->shift = 64 - bits < 40 ? 64 - bits : 40;
	return n;
}

struct membuf {
	char *p;
	size_t len, cap;
};

static int mb_write(void *arg, const char *buf, size_t len)
{
	struct membuf *b = arg;

	if (b->len + len + 1 > b->cap)
		return -HIST_ENOMEM;
	memcpy(b->p + b->len, buf, len);
	b->len += len;
	b->p[b->len] = 0;
	return 0;
}

static const struct hist_field_desc ro_fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	{ "key", "u64", 8, 8, 0, HIST_FIELD_INT },
	{ "val", "u64", 32, 8, 0, HIST_FIELD_INT },
};

int bench_readout_section(uint32_t nkeys)
{
	struct hist_map_params p = { .bits = 20, .key_size = 8, .payload_size = 0,
				     .nr_sums = 2, .nr_cpus = 2, .pcpu_sums = true };
	struct hist_ctx_opts opts = { .max_map_bits = 20, .nr_cpus = 2 };
	struct hist_event_desc desc = { .system = "bench", .name = "rec",
					.fields = ro_fields,
					.nr_fields = sizeof(ro_fields) / sizeof(ro_fields[0]) };
	double t_collect[READOUT_ROUNDS], t_cmp[READOUT_ROUNDS], t_keyed[READOUT_ROUNDS];
	double t_print[READOUT_ROUNDS];
	struct hist_map_elt **elts;
	uint64_t *sums;
	struct row *rows;
	void **a, **b;
	struct combined comb;
	struct hist_map *m;
	struct hist_hit hit = { .pid = -1, .comm = "hist-bench" };
	struct bench_readout o;
	struct membuf mb = { 0 };
	struct brec rec;
	hist_ctx *ctx;
	hist_event *ev;
	uint64_t seed = 42, total = 0, key, vsum = 0;
	uint32_t i, n = 0, cap = 1u << p.bits;
	const char *why = "";
	int r, err;

	/* 1M distinct keys once, then 1M more hits on random ones. */
	m = hist__map_create(&p);
	ctx = hist_ctx_create(NULL, &opts, &err);
	if (!m || !ctx || hist_event_define(ctx, &desc, &ev) ||
	    hist_trigger_parse(ev, "hist:keys=key:vals=hitcount,val:size=1048576", NULL))
		bench_die("readout: setup failed");
	memset(&rec, 0, sizeof(rec));
	rec.common_pid = 1;
	for (i = 0; i < 2 * nkeys; i++) {
		uint64_t id = i < nkeys ? i : splitmix(&seed) % nkeys;
		struct hist_map_elt *e;

		key = splitmix(&(uint64_t){ id + 1 });
		rec.key = key;
		rec.val = id & 1023;
		e = hist__map_insert_cpu(m, &key, 0, NULL);
		if (!e)
			bench_die("readout: map full");
		hist__map_sum_add_cpu(m, e, 0, 0, 1);
		hist__map_sum_add_cpu(m, e, 0, 1, rec.val);
		hist_event_hit(ev, &rec, sizeof(rec), &hit);
		total++;
		vsum += rec.val;
	}
	a = malloc(sizeof(*a) * cap);
	b = malloc(sizeof(*b) * cap);
	elts = malloc(sizeof(*elts) * cap);
	rows = malloc(sizeof(*rows) * cap);
	sums = malloc(sizeof(*sums) * cap);
	mb.cap = (size_t)nkeys * 128 + (1u << 20);
	mb.p = malloc(mb.cap);
	if (!a || !b || !elts || !rows || !sums || !mb.p)
		bench_die("out of memory");

	for (r = 0; r < READOUT_ROUNDS; r++) {
		double t0 = ms_now(), t1, t2, t3, t4;

		n = snapshot(m, elts, sums, rows, a, cap, &comb);
		t1 = ms_now();
		if (hist__sort(a, n, cmp_rows, NULL))
			bench_die("readout: hist__sort failed");
		t2 = ms_now();
		snapshot(m, elts, sums, rows, b, cap, &comb);
		t3 = ms_now();
		if (hist__sort_keyed(b, n, prefix_combined, cmp_rows, &comb))
			bench_die("readout: hist__sort_keyed failed");
		t4 = ms_now();
		t_collect[r] = t1 - t0;
		t_cmp[r] = t2 - t1;
		t_keyed[r] = (t3 - t2) + (t4 - t3);
		for (i = 0; i < n && n == nkeys; i++)
			if (((struct row *)a[i])->elt != ((struct row *)b[i])->elt)
				break;
		if (n != nkeys || i != n)
			bench_die("readout: %u entries, or the two sorts disagree at %u", n, i);

		mb.len = 0;
		t0 = ms_now();
		if (hist_event_print_hist(ev, mb_write, &mb))
			bench_die("readout: hist_event_print_hist failed");
		t_print[r] = ms_now() - t0;
		memset(&o, 0, sizeof(o));
		if (bench_parse_hist(mb.p, "val", &o, &why))
			bench_die("readout: %s", why);
		if (o.entries != nkeys || o.hits != total || o.total_hits != total ||
		    o.sum != vsum || o.drops)
			bench_die("readout: printed hist has %llu entries, %llu hits, sum %llu",
				  (unsigned long long)o.entries, (unsigned long long)o.hits,
				  (unsigned long long)o.sum);
	}
	printf("\nread-out of a histogram with %u entries (%llu hits), median of %d, "
	       "verified:\n\n", n, (unsigned long long)total, READOUT_ROUNDS);
	printf("| step | ms |\n|---|---:|\n");
	printf("| snapshot (collect, cpu copies added up) | %.1f |\n",
	       med(t_collect, READOUT_ROUNDS));
	printf("| sort, comparator (hist__sort) | %.1f |\n", med(t_cmp, READOUT_ROUNDS));
	printf("| **snapshot + sort, comparator** | %.1f |\n",
	       med(t_collect, READOUT_ROUNDS) + med(t_cmp, READOUT_ROUNDS));
	printf("| **snapshot + sort, radix (hist__sort_keyed)** | %.1f |\n",
	       med(t_keyed, READOUT_ROUNDS));
	printf("| hist_event_print_hist (snapshot + sort + %zu MB of text) | %.1f |\n",
	       mb.len >> 20, med(t_print, READOUT_ROUNDS));
	fflush(stdout);
	free(a);
	free(b);
	free(elts);
	free(rows);
	free(sums);
	free(mb.p);
	hist__map_destroy(m);
	hist_ctx_destroy(ctx);
	return 0;
}
