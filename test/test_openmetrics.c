/* SPDX-License-Identifier: MIT */
/*
 * OpenMetrics (hist_event_print_openmetrics) and quantiles
 * (hist_reader_quantile, the summaries and JSON "quantiles").
 *
 * Every document a test writes is checked by two real parsers when they
 * are installed: promtool (Prometheus's linter, the text format that
 * HIST_PRINT_PROMETHEUS_TEXT writes) and prometheus_client's strict
 * OpenMetrics parser (test/om_check.py: families, suffixes, _count iff
 * _sum, bucket order, duplicate samples, # EOF); a missing one prints a
 * SKIP line and the content checks still run.  The numbers are checked
 * against the generated data itself: the cumulative buckets and counts
 * against a histogram computed here from the raw values, quantiles
 * against the exact nearest-rank quantile of the sorted raw values.  The
 * last test runs hist-replay --openmetrics over every kernel conformance
 * case (real recordings, every kind of trigger) through both checkers.
 */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "libhist.h"
#include "test_events.h"
#include "util.h"

static char tmp[256];
#include "test_shell.h"

static int have_promtool, have_omcheck;
static const char *py = "python3";

/* ---- fixtures ------------------------------------------------------------ */

static hist_event *setup(hist_ctx **ctx, const char *const *triggers)
{
	struct hist_error herr;
	hist_event *ev;
	int err;

	*ctx = hist_ctx_create(&kv_host, NULL, &err);
	if (!*ctx)
		return NULL;
	ev = hist_event_lookup(*ctx, "t", "kv");
	for (; ev && *triggers; triggers++) {
		if (hist_trigger_parse(ev, *triggers, &herr)) {
			T_FAILF("trigger rejected: %s", *triggers);
			return NULL;
		}
	}
	return ev;
}

static void hit(hist_event *ev, uint64_t key, uint64_t val, const char *name)
{
	struct kv_rec r = { .type = 1, .pid = 7, .key = key, .val = val };
	struct hist_hit h = { .cpu = 0, .pid = -1 };

	memcpy(r.name, name, strnlen(name, sizeof(r.name)));
	hist_event_hit(ev, &r, sizeof(r), &h);
}

/* ---- the checkers -------------------------------------------------------- */

/* Write S to <tmp>/NAME; returns the path (static). */
static const char *save(const char *name, const char *s)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	f = fopen(path, "w");
	if (!f)
		return path;
	fputs(s, f);
	fclose(f);
	return path;
}

/* OpenMetrics text S must pass the strict parser. */
static void check_om(const char *s)
{
	const char *p = save("om.txt", s);

	if (have_omcheck && sh(1, "%s test/om_check.py %s", py, p))
		T_FAILF("OpenMetrics parser rejected the document (%s)", p);
}

/* Prometheus text S must pass promtool. */
static void check_prom(const char *s)
{
	const char *p = save("prom.txt", s);

	if (have_promtool && sh(1, "promtool check metrics < %s", p))
		T_FAILF("promtool rejected the document (%s)", p);
}

/* Print EV both ways and check both; the OpenMetrics text is returned. */
static char *print_both(hist_event *ev, const struct hist_print_opts *opts)
{
	struct hist_print_opts o = opts ? *opts : (struct hist_print_opts){ 0 };
	struct t_text om = { 0 }, prom = { 0 };

	T_EQ(hist_event_print_openmetrics(ev, t_text_write, &om, &o), 0);
	o.flags |= HIST_PRINT_PROMETHEUS_TEXT;
	T_EQ(hist_event_print_openmetrics(ev, t_text_write, &prom, &o), 0);
	T_ASSERT(om.s && prom.s);
	if (!om.s || !prom.s)
		return om.s;
	check_om(om.s);
	check_prom(prom.s);
	free(prom.s);
	return om.s;
}

static bool has_line(const char *doc, const char *line)
{
	size_t n = strlen(line);
	const char *p = doc;

	while ((p = strstr(p, line))) {
		if ((p == doc || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

#define T_LINE(doc, ...)                                                       \
	do {                                                                   \
		char t__l[1024];                                               \
		snprintf(t__l, sizeof(t__l), __VA_ARGS__);                     \
		if (!has_line(doc, t__l))                                      \
			T_FAILF("missing line: %s", t__l);                     \
	} while (0)

/* ---- distributions ------------------------------------------------------- */

enum dist { UNIFORM, EXPONENTIAL, BIMODAL, ZIPF, NR_DISTS };
static const char *const dist_names[] = { "uniform", "exponential", "bimodal", "zipf" };

static uint64_t draw(enum dist d, uint64_t *seed)
{
	double u = (double)(t_xorshift(seed) >> 11) / 9007199254740992.0;

	switch (d) {
	case UNIFORM:
		return t_xorshift(seed) % 5000;
	case EXPONENTIAL:	/* geometric in steps of 300 */
		return (uint64_t)__builtin_ctzll(t_xorshift(seed) | 1ull << 40) * 300 +
		       t_xorshift(seed) % 300;
	case BIMODAL:
		return (t_xorshift(seed) & 1) ? 100 + t_xorshift(seed) % 50 :
						  90000 + t_xorshift(seed) % 9000;
	default:	/* zipf-like: heavy tail over many decades */
		return (uint64_t)(1.0 / (u * u + 1e-9));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank quantile of the sorted V (N values). */
static uint64_t exact_q(const uint64_t *v, size_t n, double q)
{
	double want = q * (double)n;
	uint64_t rank = (uint64_t)want;

	if ((double)rank < want)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

static uint64_t log2_le(uint64_t v)
{
	unsigned e = 0;

	if (v <= 1)
		return 1;
	v--;
	while (v) {
		e++;
		v >>= 1;
	}
	return e >= 64 ? UINT64_MAX : 1ull << e;
}

static const double qs[] = { 0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1 };

/* ---- tests --------------------------------------------------------------- */

#define N_HITS 20000

/*
 * keys=key.log2:vals=key: the histogram's cumulative buckets, +Inf,
 * _count and _sum equal those computed from the raw values.
 */
static void test_log2_histogram(void)
{
	static uint64_t raw[N_HITS];
	uint64_t seed = 42, sum = 0, cum = 0;
	hist_ctx *ctx;
	hist_event *ev = setup(&ctx, (const char *[]){ "hist:keys=key.log2:vals=key", NULL });
	char *doc;
	size_t i;

	T_ASSERT(ev);
	if (!ev)
		return;
	for (i = 0; i < N_HITS; i++) {
		raw[i] = draw(EXPONENTIAL, &seed);
		sum += raw[i];
		hit(ev, raw[i], 0, "x");
	}
	qsort(raw, N_HITS, sizeof(raw[0]), cmp_u64);
	doc = print_both(ev, NULL);
	if (!doc)
		goto out;
	for (i = 0; i < N_HITS; i++) {
		cum++;
		if (i + 1 == N_HITS || log2_le(raw[i + 1]) != log2_le(raw[i]))
			T_LINE(doc, "hist_t_kv_key_log2_bucket{le=\"%llu\"} %llu",
			       (unsigned long long)log2_le(raw[i]), (unsigned long long)cum);
	}
	T_LINE(doc, "hist_t_kv_key_log2_bucket{le=\"+Inf\"} %d", N_HITS);
	T_LINE(doc, "hist_t_kv_key_log2_count %d", N_HITS);
	T_LINE(doc, "hist_t_kv_key_log2_sum %llu", (unsigned long long)sum);
	T_LINE(doc, "# TYPE hist_t_kv_key_log2 histogram");
	T_LINE(doc, "hist_t_kv_hits_total %d", N_HITS);
	T_LINE(doc, "hist_t_kv_dropped_total 0");
	T_LINE(doc, "# EOF");
	T_ASSERT(strlen(doc) > 6 && !strcmp(doc + strlen(doc) - 6, "# EOF\n"));
	free(doc);
out:
	hist_ctx_destroy(ctx);
}

/*
 * keys=name,key.buckets=1000: one histogram per name, each with its own
 * counts; a histogram without a value to sum has neither _sum nor _count
 * (OpenMetrics ties them), the +Inf bucket holds the count.
 */
static void test_buckets_per_label(void)
{
	static const char *const names[] = { "alpha", "beta", "gamma" };
	unsigned counts[3][100] = { { 0 } }, total[3] = { 0 };
	uint64_t seed = 7;
	hist_ctx *ctx;
	hist_event *ev = setup(&ctx, (const char *[]){
		"hist:keys=name,key.buckets=1000:sort=name,key", NULL });
	char *doc;
	unsigned i, j;

	T_ASSERT(ev);
	if (!ev)
		return;
	for (i = 0; i < N_HITS; i++) {
		unsigned n = (unsigned)(t_xorshift(&seed) % 3);
		uint64_t v = draw(UNIFORM, &seed) * (n + 1) * 3;	/* < 60000 */

		counts[n][v / 1000]++;
		total[n]++;
		hit(ev, v, 0, names[n]);
	}
	doc = print_both(ev, NULL);
	if (!doc)
		goto out;
	for (i = 0; i < 3; i++) {
		unsigned cum = 0;

		for (j = 0; j < 100; j++) {
			cum += counts[i][j];
			if (counts[i][j])
				T_LINE(doc, "hist_t_kv_key_buckets_bucket{name=\"%s\",le=\"%u\"} %u",
				       names[i], j * 1000 + 999, cum);
		}
		T_LINE(doc, "hist_t_kv_key_buckets_bucket{name=\"%s\",le=\"+Inf\"} %u",
		       names[i], total[i]);
	}
	T_ASSERT(!strstr(doc, "_count"));
	T_ASSERT(!strstr(doc, "_sum"));
	free(doc);
out:
	hist_ctx_destroy(ctx);
}

/*
 * Counters of every column with the keys as labels; label values escaped
 * one to one: '"' as \", the backslash, control bytes and bytes that are
 * not UTF-8 as the text \xHH, valid UTF-8 kept.
 */
static void test_counters_and_escaping(void)
{
	static const char *const names[] = {
		"plain", "q\"uote", "back\\slash", "new\nline", "bad\xff\xfe", "caf\xc3\xa9",
		"x\\x5c",
	};
	static const char *const escaped[] = {
		"plain", "q\\\"uote", "back\\\\x5cslash", "new\\\\x0aline",
		"bad\\\\xff\\\\xfe", "caf\xc3\xa9", "x\\\\x5cx5c",
	};
	hist_ctx *ctx;
	hist_event *ev = setup(&ctx, (const char *[]){ "hist:keys=name,key:vals=val", NULL });
	char *doc;
	unsigned i;

	T_ASSERT(ev);
	if (!ev)
		return;
	for (i = 0; i < 7; i++) {
		hit(ev, i, 10 * i, names[i]);
		hit(ev, i, 1, names[i]);
	}
	doc = print_both(ev, NULL);
	if (!doc)
		goto out;
	for (i = 0; i < 7; i++) {
		T_LINE(doc, "hist_t_kv_hitcount_total{name=\"%s\",key=\"%u\"} 2", escaped[i], i);
		T_LINE(doc, "hist_t_kv_val_total{name=\"%s\",key=\"%u\"} %u", escaped[i], i,
		       10 * i + 1);
	}
	T_LINE(doc, "# TYPE hist_t_kv_hitcount counter");
	T_LINE(doc, "# TYPE hist_t_kv_val counter");
	T_LINE(doc, "# TYPE hist_t_kv_trigger info");
	T_LINE(doc, "hist_t_kv_trigger_info{trigger=\"hist:keys=name,key:vals=hitcount,val:sort=hitcount:size=2048\"} 1");
	T_LINE(doc, "hist_t_kv_entries 7");
	free(doc);
out:
	hist_ctx_destroy(ctx);
}

/* Two triggers on one event: the second is B_hist1_*; the prefix option;
 * the host's losses; HIST_PRINT_NO_EOF and the separate end. */
static void test_names_prefix_losses(void)
{
	struct hist_print_opts o = { .prefix = "my-app.x", .flags = HIST_PRINT_HOST_LOST,
				     .host_lost = 17 };
	struct t_text t = { 0 };
	hist_ctx *ctx;
	hist_event *ev = setup(&ctx, (const char *[]){ "hist:keys=key", "hist:keys=key.hex:vals=val",
						       NULL });
	char *doc;

	T_ASSERT(ev);
	if (!ev)
		return;
	hit(ev, 255, 3, "a");
	doc = print_both(ev, &o);
	if (!doc)
		goto out;
	T_LINE(doc, "my_app_x_t_kv_hitcount_total{key=\"255\"} 1");
	T_LINE(doc, "my_app_x_t_kv_hist1_hitcount_total{key=\"0xff\"} 1");
	T_LINE(doc, "my_app_x_t_kv_hist1_val_total{key=\"0xff\"} 3");
	T_LINE(doc, "my_app_x_host_lost_total 17");
	free(doc);
	o.flags = HIST_PRINT_NO_EOF;
	T_EQ(hist_event_print_openmetrics(ev, t_text_write, &t, &o), 0);
	T_ASSERT(t.s && !strstr(t.s, "# EOF") && !strstr(t.s, "host_lost"));
	o.flags = HIST_PRINT_HOST_LOST;
	T_EQ(hist_print_openmetrics_eof(t_text_write, &t, &o), 0);
	T_ASSERT(t.s && strstr(t.s, "my_app_x_host_lost_total 17\n# EOF\n"));
	if (t.s)
		check_om(t.s);
	free(t.s);
	T_EQ(hist_event_print_openmetrics(NULL, t_text_write, &t, NULL), -HIST_EINVAL);
out:
	hist_ctx_destroy(ctx);
}

/*
 * hist_reader_quantile against the exact nearest-rank quantiles of the
 * raw values: equal for a plain key, the bucket holding it for .log2 and
 * .buckets keys, for four distributions.
 */
static void test_quantiles_exact(void)
{
	static uint64_t raw[N_HITS];
	static const char *const trig[] = { "hist:keys=key:size=32768", "hist:keys=key.log2",
					    "hist:keys=key.buckets=250", NULL };
	unsigned d, t, i;

	for (d = 0; d < NR_DISTS; d++) {
		uint64_t seed = 1000 + d;
		hist_ctx *ctx;
		hist_event *ev = setup(&ctx, trig);

		T_ASSERT(ev);
		if (!ev)
			return;
		for (i = 0; i < N_HITS; i++) {
			raw[i] = draw((enum dist)d, &seed);
			hit(ev, raw[i], 0, "x");
		}
		qsort(raw, N_HITS, sizeof(raw[0]), cmp_u64);
		for (t = 0; t < 3; t++) {
			int err;
			hist_reader *r = hist_reader_create(ev, t, &err);

			T_ASSERT(r);
			if (!r)
				continue;
			T_EQU(hist_reader_info(r)->dropped, 0);
			for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
				uint64_t lo = 1, hi = 0, x = exact_q(raw, N_HITS, qs[i]);

				T_EQ(hist_reader_quantile(r, "key", qs[i], &lo, &hi), 0);
				if (t == 0 && (lo != x || hi != x))
					T_FAILF("%s q=%g: got %llu..%llu, exact %llu",
						dist_names[d], qs[i], (unsigned long long)lo,
						(unsigned long long)hi, (unsigned long long)x);
				if (t == 1 && (hi != log2_le(x) || lo > x || hi < x))
					T_FAILF("%s log2 q=%g: got %llu..%llu, exact %llu",
						dist_names[d], qs[i], (unsigned long long)lo,
						(unsigned long long)hi, (unsigned long long)x);
				if (t == 2 && (lo != x / 250 * 250 || hi != lo + 249))
					T_FAILF("%s buckets q=%g: got %llu..%llu, exact %llu",
						dist_names[d], qs[i], (unsigned long long)lo,
						(unsigned long long)hi, (unsigned long long)x);
			}
			hist_reader_destroy(r);
		}
		hist_ctx_destroy(ctx);
	}
}

/* A value column weighs the key by its sums: the quantile of the value's
 * mass, checked against the raw values expanded by their weights. */
static void test_quantiles_weighted(void)
{
	uint64_t seed = 99, keys[2000], w[2000], total = 0, lo, hi;
	hist_ctx *ctx;
	hist_event *ev = setup(&ctx, (const char *[]){ "hist:keys=key:vals=val", NULL });
	hist_reader *r;
	unsigned i, j;
	int err;

	T_ASSERT(ev);
	if (!ev)
		return;
	for (i = 0; i < 2000; i++) {
		keys[i] = draw(EXPONENTIAL, &seed);
		w[i] = t_xorshift(&seed) % 100;
		total += w[i];
		hit(ev, keys[i], w[i], "x");
	}
	r = hist_reader_create(ev, 0, &err);
	T_ASSERT(r);
	if (!r)
		goto out;
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double want = qs[i] * (double)total;
		uint64_t rank = (uint64_t)want, best = UINT64_MAX;

		if ((double)rank < want)
			rank++;
		if (rank < 1)
			rank = 1;
		/* the smallest key whose weight at or below reaches RANK */
		for (j = 0; j < 2000; j++) {
			uint64_t below = 0;
			unsigned k;

			for (k = 0; k < 2000; k++)
				if (keys[k] <= keys[j])
					below += w[k];
			if (below >= rank && keys[j] < best)
				best = keys[j];
		}
		T_EQ(hist_reader_quantile(r, "val", qs[i], &lo, &hi), 0);
		T_EQU(lo, best);
		T_EQU(hi, best);
	}
	hist_reader_destroy(r);
out:
	hist_ctx_destroy(ctx);
}

static void test_quantile_errors(void)
{
	hist_ctx *ctx;
	hist_event *ev = setup(&ctx, (const char *[]){ "hist:keys=name:vals=val",
						       "hist:keys=key", "hist:keys=key:vals=val:nohitcount",
						       NULL });
	hist_reader *r;
	uint64_t lo, hi;
	int err;

	T_ASSERT(ev);
	if (!ev)
		return;
	r = hist_reader_create(ev, 1, &err);
	T_EQ(hist_reader_quantile(r, "key", 0.5, &lo, &hi), -HIST_ENOENT);	/* no hits */
	hist_reader_destroy(r);
	hit(ev, 5, 1, "a");
	r = hist_reader_create(ev, 0, &err);
	T_EQ(hist_reader_quantile(r, "name", 0.5, &lo, &hi), -HIST_EINVAL);	/* a string */
	T_EQ(hist_reader_quantile(r, "val", 0.5, &lo, &hi), -HIST_EINVAL);	/* no number key */
	hist_reader_destroy(r);
	r = hist_reader_create(ev, 1, &err);
	T_EQ(hist_reader_quantile(r, "nope", 0.5, &lo, &hi), -HIST_EINVAL);
	T_EQ(hist_reader_quantile(r, "key", 1.5, &lo, &hi), -HIST_EINVAL);
	T_EQ(hist_reader_quantile(r, "key", -0.1, &lo, &hi), -HIST_EINVAL);
	T_EQ(hist_reader_quantile(r, "key", NAN, &lo, &hi), -HIST_EINVAL);
	T_EQ(hist_reader_quantile(r, "key", 0.5, &lo, &hi), 0);
	T_EQU(lo, 5);
	/* the reader still walks from its first entry afterwards */
	T_ASSERT(hist_reader_next(r) && !hist_reader_next(r));
	hist_reader_destroy(r);
	r = hist_reader_create(ev, 2, &err);
	T_EQ(hist_reader_quantile(r, "key", 0.5, &lo, &hi), -HIST_EINVAL);	/* nohitcount */
	T_EQ(hist_reader_quantile(r, "val", 0.5, &lo, &hi), 0);		/* weighed by val */
	hist_reader_destroy(r);
	hist_ctx_destroy(ctx);
}

/* Summaries and JSON "quantiles" carry what hist_reader_quantile says. */
static void test_summary_and_json(void)
{
	static const double q3[] = { 0.5, 0.9, 0.99 };
	struct hist_print_opts o = { .quantiles = q3, .nr_quantiles = 3 };
	uint64_t seed = 5, lo, hi;
	struct t_text js = { 0 };
	hist_ctx *ctx;
	hist_event *ev = setup(&ctx, (const char *[]){ "hist:keys=key.log2:vals=key", NULL });
	hist_reader *r;
	char *doc;
	unsigned i;
	int err;

	T_ASSERT(ev);
	if (!ev)
		return;
	for (i = 0; i < 5000; i++)
		hit(ev, draw(ZIPF, &seed), 0, "x");
	doc = print_both(ev, &o);
	T_EQ(hist_event_print_json_opts(ev, t_text_write, &js, &o), 0);
	r = hist_reader_create(ev, 0, &err);
	for (i = 0; doc && r && i < 3; i++) {
		T_EQ(hist_reader_quantile(r, "key", q3[i], &lo, &hi), 0);
		T_LINE(doc, "hist_t_kv_key_quantiles{quantile=\"%g\"} %llu", q3[i],
		       (unsigned long long)hi);
		if (js.s && !strstr(js.s, "\"lo\": ")) /* format checked by python below */
			T_FAILF("no quantiles in the JSON");
	}
	T_LINE(doc ? doc : "", "# TYPE hist_t_kv_key_quantiles summary");
	T_LINE(doc ? doc : "", "hist_t_kv_key_quantiles_count 5000");
	if (js.s) {
		const char *p = save("q.json", js.s);

		T_EQ(sh(1, "%s -c 'import json,sys; d=json.load(open(\"%s\")); "
			"q=d[0][\"quantiles\"]; assert len(q)==3 and q[2][\"q\"]==0.99 "
			"and q[0][\"lo\"]<=q[0][\"hi\"], q'", py, p), 0);
	}
	hist_reader_destroy(r);
	free(doc);
	free(js.s);
	hist_ctx_destroy(ctx);
}

/* ---- allocation failures ------------------------------------------------- */

/* Every allocation of the writer failing in turn: -HIST_ENOMEM, nothing
 * leaked, and once none fails the same document as without faults. */
static void test_enomem(void)
{
	static const double q1[] = { 0.5 };
	struct hist_print_opts o = { .quantiles = q1, .nr_quantiles = 1 };
	struct t_text ref = { 0 };
	hist_ctx *ctx;
	hist_event *ev;
	long n;
	unsigned i;

	hist_set_allocator(&t_fail_alloc);
	ev = setup(&ctx, (const char *[]){ "hist:keys=name,key.log2:vals=key", NULL });
	T_ASSERT(ev);
	if (!ev)
		goto out;
	for (i = 0; i < 300; i++)
		hit(ev, i * 37, 0, i & 1 ? "odd" : "even");
	T_EQ(hist_event_print_openmetrics(ev, t_text_write, &ref, &o), 0);
	for (n = 0;; n++) {
		struct t_text t = { 0 };
		long live = t_fa_live;
		int ret;

		t_fa_count = 0;
		t_fa_fail_at = n;
		ret = hist_event_print_openmetrics(ev, t_text_write, &t, &o);
		t_fa_fail_at = -1;
		T_EQ(t_fa_live, live);
		if (!ret) {
			T_ASSERT(n > 0 && t.s && ref.s && !strcmp(t.s, ref.s));
			free(t.s);
			break;
		}
		T_EQ(ret, -HIST_ENOMEM);
		free(t.s);
		if (n > 10000) {
			T_FAILF("never succeeds");
			break;
		}
	}
	free(ref.s);
	hist_ctx_destroy(ctx);
out:
	hist_set_allocator(NULL);
}

/* ---- every conformance case through hist-replay --------------------------- */

static int has_file(const char *dir, const char *name)
{
	char p[1200];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, R_OK) == 0;
}

/*
 * The real recordings of test/conformance/cases with their triggers
 * (every key kind, values, .percent/.graph, actions, named tables,
 * paused triggers): hist-replay --openmetrics and --openmetrics=text must
 * pass both checkers, and the hitcounts must add up to the same total in
 * both formats.
 */
static void test_replay_cases(void)
{
	const char *base = "test/conformance/cases";
	struct dirent *de;
	DIR *d = opendir(base);
	unsigned done = 0;

	T_ASSERT(d);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char dir[512], synth[600] = "";
		int rc;

		if (de->d_name[0] != 'g')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, de->d_name);
		if (!has_file(dir, "trace.dat") || !has_file(dir, "triggers"))
			continue;
		if (has_file(dir, "synthetic_events"))
			snprintf(synth, sizeof(synth), "-S %s/synthetic_events", dir);
		rc = sh(0, "hist-replay --quantiles 0.5,0.99 %s -T %s/triggers "
			"--openmetrics %s/trace.dat > %s/case.om", synth, dir, dir, tmp);
		if (rc > 1) {
			T_FAILF("%s: hist-replay --openmetrics exit %d", de->d_name, rc);
			continue;
		}
		sh(0, "hist-replay --quantiles 0.5,0.99 %s -T %s/triggers "
		   "--openmetrics=text %s/trace.dat > %s/case.prom", synth, dir, dir, tmp);
		if (have_omcheck && sh(1, "%s test/om_check.py %s/case.om", py, tmp))
			T_FAILF("%s: OpenMetrics parser rejected it", de->d_name);
		if (have_promtool && sh(1, "promtool check metrics < %s/case.prom", tmp))
			T_FAILF("%s: promtool rejected it", de->d_name);
		if (sh(1, "test \"$(grep -E '^[a-z_0-9]+hitcount_total' %s/case.om | "
		       "awk '{s+=$NF} END {print s+0}')\" = \"$(grep -E "
		       "'^[a-z_0-9]+hitcount_total' %s/case.prom | awk '{s+=$NF} END "
		       "{print s+0}')\"", tmp, tmp))
			T_FAILF("%s: the formats disagree", de->d_name);
		done++;
	}
	closedir(d);
	printf("# %u conformance cases exported and checked\n", done);
	T_ASSERT(done > 40);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The number after "NAME " in FILE, or -1. */
static long long metric_in(const char *file, const char *name)
{
	char *doc = t_readf("%s/%s", tmp, file), *p;
	long long v = -1;

	/* the sample line: NAME at the start of a line */
	for (p = doc; p && (p = strstr(p, name)); p++)
		if ((p == doc || p[-1] == '\n') && p[strlen(name)] == ' ') {
			v = strtoll(p + strlen(name) + 1, NULL, 10);
			break;
		}
	free(doc);
	return v;
}

/*
 * hist-live --listen on the live kernel: two scrapes a second apart
 * (OpenMetrics and the text format) pass both checkers, the counts grow
 * between them (each scrape drains the buffers first), hostile requests
 * (garbage, a wrong method and path, an oversized header) get an error
 * answer or a closed connection and the server still serves, and the
 * final print counts at least what the last scrape saw.  SKIP without
 * tracefs or libmicrohttpd.
 */
static void test_live_listen(void)
{
	/* each with the status line it must get ("": closed unanswered) */
	static const char *const hostile[][2] = {
		{ "BAD\r\n\r\n", "" },
		{ "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
		  "HTTP/1.1 405" },
		{ "GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 404" },
		{ "GET /metrics?x=%00%ff HTTP/1.1\r\nHost: x\r\nAccept: \xff\xfe\r\n\r\n",
		  "HTTP/1.1 200" },
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
		  "HTTP/1.1 400" },
		{ "GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\nHost: x\r\n\r\nzz\r\n",
		  "HTTP/1.1 400" },
	};
	const char *who = "hist-live --listen";
	char tracefs[512], err[600], resp[4096], *big, *fin;
	int mounted;
	long pid, port;
	long long a, b, hits = -1;

	mounted = t_tracefs_find(tracefs, sizeof(tracefs), tmp, who);
	if (mounted < 0 || !t_tracefs_need(tracefs, "instances", W_OK, who) ||
	    !t_tracefs_need(tracefs, "events/raw_syscalls/sys_enter/format", R_OK, who))
		goto out;
	if (sh(0, "hist-live --listen 127.0.0.1:x 2>&1 | grep -q libmicrohttpd") == 0) {
		printf("# SKIP hist-live built without libmicrohttpd\n");
		goto out;
	}
	/* under make check-asan the server runs instrumented too */
	if (getenv("HIST_SAN") && strstr(getenv("HIST_SAN"), "address"))
		T_EQ(sh(1, "grep -qa __asan_init \"$(command -v hist-live)\""), 0);
	snprintf(err, sizeof(err), "%s/err.txt", tmp);
	pid = t_spawn("hist-live -q --tracefs %s --listen 127.0.0.1:0 "
		      "-t 'sched/sched_switch hist:keys=prev_pid.log2' "
		      "-t 'raw_syscalls/sys_enter hist:keys=id.syscall' > %s/final.txt 2> %s",
		      tracefs, tmp, err);
	T_ASSERT(pid > 0);
	/* ASan builds start slowly */
	port = pid > 0 ? t_wait_number(err, "on port ", 20000) : -1;
	T_ASSERT(port > 0);
	if (port > 0) {
		T_EQ(sh(1, "curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' "
			"http://127.0.0.1:%ld/metrics > %s/s1.om", port, tmp), 0);
		for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
			double t0 = now_s();
			long n = t_tcp_exchange((unsigned)port, hostile[i][0], strlen(hostile[i][0]),
						resp, sizeof(resp), 5000);

			T_ASSERT(n >= 0);
			if (n < 0 || strncmp(resp, hostile[i][1], strlen(hostile[i][1])) ||
			    (!hostile[i][1][0] && n))
				T_FAILF("hostile request %zu: got '%.40s', want '%s'", i, resp,
					hostile[i][1]);
			/* answered and closed at once, not at the 10 s timeout */
			if (now_s() - t0 > 3)
				T_FAILF("hostile request %zu: %.1f s to close", i, now_s() - t0);
		}
		/* 100 KiB of header: more than a connection may hold */
		big = malloc(100 << 10);
		if (big) {
			memset(big, 'a', 100 << 10);
			memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
			memcpy(big + (100 << 10) - 4, "\r\n\r\n", 4);
			T_ASSERT(t_tcp_exchange((unsigned)port, big, 100 << 10, resp, sizeof(resp),
						5000) >= 0);
			if (resp[0] && strncmp(resp, "HTTP/1.1 4", 10))
				T_FAILF("oversized header: got '%.40s'", resp);
			free(big);
		}
		sleep(1);
		T_EQ(sh(1, "curl -sf http://127.0.0.1:%ld/metrics > %s/s2.prom", port, tmp), 0);
	}
	/* SIGINT: the final print, and exit 0 */
	if (pid > 0)
		kill((pid_t)pid, SIGINT);
	T_EQ(pid > 0 ? t_wait_gone(pid, 60000) : -1, 0);
	if (have_omcheck)
		T_EQ(sh(1, "%s test/om_check.py %s/s1.om", py, tmp), 0);
	if (have_promtool)
		T_EQ(sh(1, "promtool check metrics < %s/s2.prom", tmp), 0);
	a = metric_in("s1.om", "hist_raw_syscalls_sys_enter_hits_total");
	b = metric_in("s2.prom", "hist_raw_syscalls_sys_enter_hits_total");
	fin = t_readf("%s/final.txt", tmp);
	if (fin && strstr(fin, "raw_syscalls") && strstr(strstr(fin, "raw_syscalls"), "Hits: "))
		hits = strtoll(strstr(strstr(fin, "raw_syscalls"), "Hits: ") + 6, NULL, 10);
	free(fin);
	printf("# live scrapes: %lld then %lld hits, final %lld\n", a, b, hits);
	T_ASSERT(a > 0 && b > a && hits >= b);
out:
	t_tracefs_release(tracefs, mounted);
}

int main(int argc, char **argv)
{
	(void)argc;
	t_tools_on_path(argv[0]);
	if (t_scratch(tmp, sizeof(tmp), "test_openmetrics"))
		return 1;
	if (access("/usr/bin/python3", X_OK) == 0)
		py = "/usr/bin/python3";	/* Debian's, with its packages */
	have_promtool = !sh(0, "command -v promtool");
	have_omcheck = sh(0, "%s test/om_check.py /dev/null", py) != 77;
	if (!have_promtool)
		printf("# SKIP promtool checks: promtool missing (Debian: prometheus)\n");
	if (!have_omcheck)
		printf("# SKIP OpenMetrics parser checks: python3-prometheus-client missing\n");
	T_RUN(test_log2_histogram);
	T_RUN(test_buckets_per_label);
	T_RUN(test_counters_and_escaping);
	T_RUN(test_names_prefix_losses);
	T_RUN(test_quantiles_exact);
	T_RUN(test_quantiles_weighted);
	T_RUN(test_quantile_errors);
	T_RUN(test_summary_and_json);
	T_RUN(test_enomem);
	T_RUN(test_replay_cases);
	T_RUN(test_live_listen);
	t_scratch_remove(tmp);
	return T_DONE();
}
