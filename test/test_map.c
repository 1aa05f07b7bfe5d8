/* SPDX-License-Identifier: MIT */
/*
 * tracing_map tests: basic insert/lookup, key sizes, sums, elt_init,
 * forced collisions, capacity and drops, clear, collect, the stable sort,
 * per-cpu sums, and multi-thread stress with a concurrent reader.
 */
/* HIST_TEST_TSAN */
#include "harness.h"
#include "map/map.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define T_SANITIZED 1
#endif
#endif
#ifndef T_SANITIZED
#define T_SANITIZED 0
#endif
/* Stress iterations are scaled down under sanitizers, which run ~10x slower. */
#define T_SCALE(n) (T_SANITIZED ? (n) / 10 : (n))

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct hist_map *make_map(uint32_t bits, uint32_t key_size, uint32_t payload_size,
				 uint32_t nr_sums)
{
	struct hist_map_params p = {
		.bits = bits,
		.key_size = key_size,
		.payload_size = payload_size,
		.nr_sums = nr_sums,
		.nr_cpus = 2,
	};

	return hist__map_create(&p);
}

static uint64_t elt_u64(struct hist_map_elt *e, uint32_t word, int key)
{
	uint64_t v;

	memcpy(&v, (char *)(key ? hist__map_elt_key(e) : hist__map_elt_payload(e)) + 8 * word,
	       sizeof(v));
	return v;
}

static void test_create_params(void)
{
	struct hist_map_params p = { .bits = 7, .key_size = 8, .payload_size = 16, .nr_sums = 2 };
	struct hist_map *m;

	m = hist__map_create(&p);
	T_ASSERT(m != NULL);
	T_EQ(hist__map_capacity(m), 128);
	T_EQ(hist__map_key_size(m), 8);
	T_EQ(hist__map_entries(m), 0);
	hist__map_destroy(m);

	p.bits = 6;
	T_ASSERT(hist__map_create(&p) == NULL);
	p.bits = 25;
	T_ASSERT(hist__map_create(&p) == NULL);
	p.bits = 7;
	p.key_size = 12;
	T_ASSERT(hist__map_create(&p) == NULL);
	p.key_size = 0;
	T_ASSERT(hist__map_create(&p) == NULL);
	p.key_size = 8;
	p.nr_sums = 65;
	T_ASSERT(hist__map_create(&p) == NULL);
	p.nr_sums = 0;
	p.payload_size = 0;
	m = hist__map_create(&p);
	T_ASSERT(m != NULL);
	hist__map_destroy(m);
	hist__map_destroy(NULL);
}

static void test_basic(void)
{
	struct hist_map *m = make_map(7, 8, 16, 2);
	struct hist_map_elt *e, *e2;
	uint64_t k;

	for (k = 1; k <= 50; k++) {
		e = hist__map_insert(m, &k, (uint32_t)k, NULL);
		T_ASSERT(e != NULL);
		if (!e)
			continue;
		T_EQU(elt_u64(e, 0, 1), k);
		T_EQU(hist__map_sum_read(m, e, 0), 0);
		T_EQU(hist__map_sum_read(m, e, 1), 0);
		T_ASSERT(hist__map_lookup(m, &k) == e);
	}
	T_EQ(hist__map_entries(m), 50);
	for (k = 1; k <= 50; k++) {
		e = hist__map_lookup(m, &k);
		e2 = hist__map_insert(m, &k, 0, NULL);
		T_ASSERT(e != NULL && e == e2);
	}
	T_EQ(hist__map_entries(m), 50);
	T_EQU(hist__map_hits(m), 100);
	T_EQU(hist__map_drops(m), 0);
	k = 0;
	T_ASSERT(hist__map_lookup(m, &k) == NULL);
	k = 51;
	T_ASSERT(hist__map_lookup(m, &k) == NULL);
	/* Lookups count nothing. */
	T_EQU(hist__map_hits(m), 100);
	/* Key 0 is an ordinary key. */
	k = 0;
	e = hist__map_insert(m, &k, 0, NULL);
	T_ASSERT(e != NULL && hist__map_lookup(m, &k) == e);
	hist__map_destroy(m);
}

static void fill_key(unsigned char *buf, uint32_t size, uint32_t i)
{
	uint32_t j;

	memset(buf, 0, size);
	/* Keys differ in the first word, the last byte, or both. */
	memcpy(buf, &i, sizeof(i));
	for (j = 8; j < size; j++)
		buf[j] = (unsigned char)(i * 7 + j);
	buf[size - 1] = (unsigned char)(i >> 8);
}

static void test_key_sizes(void)
{
	static const uint32_t sizes[] = { 8, 16, 24, 264 };
	unsigned char key[264];
	uint32_t s, i;

	for (s = 0; s < HIST__ARRAY_SIZE(sizes); s++) {
		uint32_t size = sizes[s];
		struct hist_map *m = make_map(9, size, 8, 1);
		struct hist_map_elt *elts[400];

		T_ASSERT(m != NULL);
		if (!m)
			continue;
		for (i = 0; i < 400; i++) {
			fill_key(key, size, i);
			elts[i] = hist__map_insert(m, key, 0, NULL);
			T_ASSERT(elts[i] != NULL);
			if (elts[i])
				hist__map_sum_add(m, elts[i], 0, i + 1);
		}
		T_EQ(hist__map_entries(m), 400);
		for (i = 0; i < 400; i++) {
			struct hist_map_elt *e;

			fill_key(key, size, i);
			e = hist__map_lookup(m, key);
			T_ASSERT(e == elts[i]);
			if (!e)
				continue;
			T_ASSERT(memcmp(hist__map_elt_key(e), key, size) == 0);
			T_EQU(hist__map_sum_read(m, e, 0), i + 1);
			T_ASSERT(((uintptr_t)hist__map_elt_payload(e) & 7) == 0);
		}
		/* A key differing only in its last byte is a different key. */
		fill_key(key, size, 3);
		key[size - 1] ^= 0x80;
		T_ASSERT(hist__map_lookup(m, key) == NULL);
		hist__map_destroy(m);
	}
}

static void test_sums(void)
{
	struct hist_map *m = make_map(7, 8, 32, 3);
	struct hist_map_elt *e;
	uint64_t k = 77, i;

	e = hist__map_insert(m, &k, 0, NULL);
	T_ASSERT(e != NULL);
	for (i = 0; i < 1000; i++) {
		hist__map_sum_add(m, e, 0, 1);
		hist__map_sum_add(m, e, 1, i);
		hist__map_sum_add(m, e, 2, UINT64_MAX); /* wraps like the kernel's u64 */
	}
	T_EQU(hist__map_sum_read(m, e, 0), 1000);
	T_EQU(hist__map_sum_read(m, e, 1), 999 * 1000 / 2);
	T_EQU(hist__map_sum_read(m, e, 2), (uint64_t)0 - 1000);
	/* The payload after the sums is the caller's and still zero. */
	T_EQU(elt_u64(e, 0, 0), 0);
	T_EQU(elt_u64(e, 3, 0), 0);
	T_ASSERT((uint64_t *)hist__map_elt_payload(e) ==
		 (uint64_t *)hist__map_elt_key(e) + 1 + 3);
	hist__map_destroy(m);
}

struct init_count {
	uint32_t calls;
	uint64_t key;
};

static void count_init(void *payload, void *arg)
{
	struct init_count *c = arg;
	uint64_t v = c->key * 3 + 1;
	uint64_t zero[2] = { 0, 0 };

	c->calls++;
	/* The payload is zeroed before elt_init sees it. */
	if (memcmp(payload, zero, sizeof(zero)) == 0)
		memcpy((char *)payload + 8, &v, sizeof(v));
}

static void test_elt_init_once(void)
{
	struct hist_map_params p = { .bits = 7, .key_size = 8, .payload_size = 16, .nr_sums = 1,
				     .nr_cpus = 1, .elt_init = count_init };
	struct hist_map *m = hist__map_create(&p);
	struct init_count c = { 0, 0 };
	uint64_t k;
	int round;

	for (round = 0; round < 3; round++) {
		for (k = 1; k <= 60; k++) {
			struct hist_map_elt *e;

			c.key = k;
			e = hist__map_insert(m, &k, 0, &c);
			T_ASSERT(e != NULL);
			if (e)
				T_EQU(elt_u64(e, 1, 0), k * 3 + 1);
		}
	}
	T_EQ(c.calls, 60);
	/* Drops do not initialise anything. */
	for (k = 1000; k < 1100; k++)
		hist__map_insert(m, &k, 0, &c);
	T_EQ(c.calls, 128);
	hist__map_destroy(m);
}

static uint32_t hash_const(const void *key, uint32_t len)
{
	(void)key;
	(void)len;
	return 0x12345678u;
}

static uint32_t hash_zero(const void *key, uint32_t len)
{
	(void)key;
	(void)len;
	return 0;
}

static uint32_t hash_two(const void *key, uint32_t len)
{
	uint64_t k;

	(void)len;
	memcpy(&k, key, sizeof(k));
	return (k & 1) ? 0xffffffffu : 0xfffffffeu;
}

static void test_collisions(void)
{
	uint32_t (*hooks[])(const void *, uint32_t) = { hash_const, hash_zero, hash_two };
	uint32_t h;

	for (h = 0; h < HIST__ARRAY_SIZE(hooks); h++) {
		struct hist_map_params p = { .bits = 7, .key_size = 16, .payload_size = 8,
					     .nr_sums = 1, .nr_cpus = 1, .hash = hooks[h] };
		struct hist_map *m = hist__map_create(&p);
		struct hist_map_elt *out[256];
		uint64_t key[2], i, n, seen = 0;

		for (i = 0; i < 128 * 3; i++) {
			struct hist_map_elt *e;

			key[0] = i % 128;
			key[1] = ~key[0];
			e = hist__map_insert(m, key, 0, NULL);
			T_ASSERT(e != NULL);
			if (e)
				hist__map_sum_add(m, e, 0, 1);
		}
		T_EQ(hist__map_entries(m), 128);
		for (i = 0; i < 128; i++) {
			struct hist_map_elt *e;

			key[0] = i;
			key[1] = ~i;
			e = hist__map_lookup(m, key);
			T_ASSERT(e != NULL);
			if (e) {
				T_EQU(hist__map_sum_read(m, e, 0), 3);
				T_EQU(elt_u64(e, 0, 1), i);
			}
		}
		key[0] = 500;
		T_ASSERT(hist__map_lookup(m, key) == NULL);
		T_ASSERT(hist__map_insert(m, key, 0, NULL) == NULL);
		n = hist__map_collect(m, out, 256);
		T_EQ(n, 128);
		for (i = 0; i < n; i++)
			seen |= 1ull << (elt_u64(out[i], 0, 1) & 63);
		T_EQU(seen, UINT64_MAX);
		T_EQU(hist__map_hits(m), 128 * 3);
		T_EQU(hist__map_drops(m), 1);
		hist__map_destroy(m);
	}
}

static void test_capacity(void)
{
	struct hist_map *m = make_map(7, 8, 8, 1);
	uint64_t k, inserts = 0, ok = 0;

	for (k = 0; k < 128; k++, inserts++)
		ok += hist__map_insert(m, &k, 0, NULL) != NULL;
	T_EQU(ok, 128);
	T_EQ(hist__map_entries(m), 128);
	for (k = 1000; k < 1300; k++, inserts++)
		T_ASSERT(hist__map_insert(m, &k, (uint32_t)k, NULL) == NULL);
	T_EQU(hist__map_drops(m), 300);
	for (k = 0; k < 128; k++, inserts++) {
		struct hist_map_elt *e = hist__map_insert(m, &k, 1, NULL);

		T_ASSERT(e != NULL);
		if (e)
			hist__map_sum_add(m, e, 0, 1);
	}
	for (k = 1000; k < 1300; k++)
		T_ASSERT(hist__map_lookup(m, &k) == NULL);
	T_EQ(hist__map_entries(m), 128);
	T_EQU(hist__map_hits(m), 256);
	T_EQU(hist__map_hits(m) + hist__map_drops(m), inserts);
	hist__map_destroy(m);
}

static void test_clear(void)
{
	struct hist_map_params p = { .bits = 7, .key_size = 8, .payload_size = 16, .nr_sums = 1,
				     .nr_cpus = 4, .elt_init = count_init };
	struct hist_map *m = hist__map_create(&p);
	struct hist_map_elt *out[256];
	struct init_count c = { 0, 0 };
	uint64_t k;

	for (k = 0; k < 200; k++) {
		struct hist_map_elt *e;

		c.key = k;
		e = hist__map_insert(m, &k, (uint32_t)k, &c);
		if (e)
			hist__map_sum_add(m, e, 0, 5);
	}
	T_EQ(hist__map_entries(m), 128);
	T_EQU(hist__map_drops(m), 72);
	hist__map_clear(m);
	T_EQ(hist__map_entries(m), 0);
	T_EQU(hist__map_hits(m), 0);
	T_EQU(hist__map_drops(m), 0);
	T_EQ(hist__map_collect(m, out, 256), 0);
	for (k = 0; k < 200; k++)
		T_ASSERT(hist__map_lookup(m, &k) == NULL);
	/* Refills from scratch: zero sums, elt_init again, full capacity. */
	for (k = 100; k < 228; k++) {
		struct hist_map_elt *e;

		c.key = k;
		e = hist__map_insert(m, &k, 0, &c);
		T_ASSERT(e != NULL);
		if (e) {
			T_EQU(hist__map_sum_read(m, e, 0), 0);
			T_EQU(elt_u64(e, 1, 0), k * 3 + 1);
		}
	}
	T_EQ(c.calls, 256);
	T_EQ(hist__map_entries(m), 128);
	T_EQU(hist__map_drops(m), 0);
	hist__map_destroy(m);
}

static void test_collect(void)
{
	struct hist_map *m = make_map(10, 8, 0, 0);
	struct hist_map_elt **out = calloc(4096, sizeof(*out));
	unsigned char *seen = calloc(5000, 1);
	uint64_t k;
	uint32_t n, i, dup = 0, stray = 0;

	T_EQ(hist__map_collect(m, out, 4096), 0);
	for (k = 0; k < 5000; k += 7)
		hist__map_insert(m, &k, 0, NULL);
	n = hist__map_collect(m, out, 4096);
	T_EQ(n, 715);
	T_EQ(n, hist__map_entries(m));
	for (i = 0; i < n; i++) {
		uint64_t key = elt_u64(out[i], 0, 1);

		if (key >= 5000 || key % 7) {
			stray++;
			continue;
		}
		dup += seen[key];
		seen[key] = 1;
	}
	T_EQ(stray, 0);
	T_EQ(dup, 0);
	/* In slot order, so a bounded collect is a prefix of the full one. */
	T_EQ(hist__map_collect(m, out + 2048, 100), 100);
	T_ASSERT(memcmp(out, out + 2048, 100 * sizeof(*out)) == 0);
	free(seen);
	free(out);
	hist__map_destroy(m);
}

struct sort_item {
	uint32_t key;
	uint32_t seq;
};

static int cmp_item(const void *a, const void *b, void *arg)
{
	const struct sort_item *x = a, *y = b;
	int *calls = arg;

	(*calls)++;
	return (x->key > y->key) - (x->key < y->key);
}

static void check_sort(size_t n, uint32_t key_range, int mode)
{
	struct sort_item *it = calloc(n ? n : 1, sizeof(*it));
	void **p = calloc(n ? n : 1, sizeof(*p));
	uint64_t seed = n * 31 + key_range;
	size_t i, bad = 0;
	int calls = 0;

	for (i = 0; i < n; i++) {
		if (mode == 0)
			it[i].key = (uint32_t)(splitmix(&seed) % key_range);
		else if (mode == 1)
			it[i].key = (uint32_t)i;
		else
			it[i].key = (uint32_t)(n - i);
		it[i].seq = (uint32_t)i;
		p[i] = &it[i];
	}
	T_EQ(hist__sort(p, n, cmp_item, &calls), 0);
	for (i = 1; i < n; i++) {
		const struct sort_item *x = p[i - 1], *y = p[i];

		if (x->key > y->key || (x->key == y->key && x->seq >= y->seq))
			bad++;
	}
	T_EQ(bad, 0);
	/* A permutation: every item exactly once (seq marks visited). */
	for (i = 0; i < n; i++)
		((struct sort_item *)p[i])->seq = UINT32_MAX;
	for (i = 0; i < n; i++)
		bad += it[i].seq != UINT32_MAX;
	T_EQ(bad, 0);
	if (mode == 1 && n > 1)
		T_ASSERT((size_t)calls < 2 * n);
	free(p);
	free(it);
}

static uint64_t prefix_full(const void *a, void *arg)
{
	(void)arg;
	return ((const struct sort_item *)a)->key;
}

static uint64_t prefix_coarse(const void *a, void *arg)
{
	(void)arg;
	return ((const struct sort_item *)a)->key >> 3;
}

/* All 64 bits vary: with an index of 17+ bits the sort must drop some
 * low bits (CMP given) or take its pair records (no CMP). */
static uint64_t prefix_wide(const void *a, void *arg)
{
	uint32_t k = ((const struct sort_item *)a)->key;

	(void)arg;
	return (uint64_t)k << 32 | (uint32_t)(k * 0x9e3779b9u);
}

static uint64_t prefix_none(const void *a, void *arg)
{
	(void)a;
	(void)arg;
	return 42;
}

/* hist__sort_keyed must give exactly hist__sort's (stable) order. */
static void check_sort_keyed(size_t n, uint32_t key_range)
{
	/* Exact prefixes order everything alone, so they also run without
	 * CMP (ties keep the input order). */
	static const struct {
		uint64_t (*fn)(const void *, void *);
		bool exact;
	} prefixes[] = { { prefix_full, true }, { prefix_wide, true },
			 { prefix_coarse, false }, { prefix_none, false } };
	struct sort_item *it = calloc(n ? n : 1, sizeof(*it));
	void **want = calloc(n ? n : 1, sizeof(*want));
	void **got = calloc(n ? n : 1, sizeof(*got));
	uint64_t seed = n * 7 + key_range;
	size_t i, v;
	int calls = 0;

	for (i = 0; i < n; i++) {
		it[i].key = (uint32_t)(splitmix(&seed) % key_range);
		if (i % 5 == 0)
			it[i].key |= 0x80000000u; /* exercise the top digit */
		it[i].seq = (uint32_t)i;
		want[i] = &it[i];
	}
	T_EQ(hist__sort(want, n, cmp_item, &calls), 0);
	for (v = 0; v < 2 * HIST__ARRAY_SIZE(prefixes); v++) {
		bool with_cmp = v % 2;

		if (!with_cmp && !prefixes[v / 2].exact)
			continue;
		for (i = 0; i < n; i++)
			got[i] = &it[i];
		T_EQ(hist__sort_keyed(got, n, prefixes[v / 2].fn, with_cmp ? cmp_item : NULL,
				      &calls), 0);
		T_ASSERT(n == 0 || memcmp(got, want, n * sizeof(*got)) == 0);
	}
	free(got);
	free(want);
	free(it);
}

static void test_sort(void)
{
	static const size_t sizes[] = { 0, 1, 2, 5, 23, 24, 25, 48, 49, 100, 1000, 4097 };
	size_t i;

	for (i = 0; i < HIST__ARRAY_SIZE(sizes); i++) {
		check_sort(sizes[i], 3, 0);
		check_sort(sizes[i], 1000000, 0);
		check_sort(sizes[i], 0, 1);
		check_sort(sizes[i], 0, 2);
	}
	check_sort(100000, 1u << 30, 0);
	check_sort(100000, 10, 0);
}

static void test_sort_keyed(void)
{
	static const size_t sizes[] = { 0, 1, 2, 5, 24, 25, 1000, 4097 };
	size_t i;

	for (i = 0; i < HIST__ARRAY_SIZE(sizes); i++) {
		check_sort_keyed(sizes[i], 3);
		check_sort_keyed(sizes[i], 100);
		check_sort_keyed(sizes[i], 1u << 30);
	}
	check_sort_keyed(100000, 1u << 30);
	check_sort_keyed(100000, 1000);
}

/* Snapshot + sort of a 1M-entry map by key: the output path's cost. */
static int cmp_elt_key(const void *a, const void *b, void *arg)
{
	uint64_t x = elt_u64((struct hist_map_elt *)a, 0, 1);
	uint64_t y = elt_u64((struct hist_map_elt *)b, 0, 1);

	(void)arg;
	return (x > y) - (x < y);
}

static uint64_t prefix_elt_key(const void *a, void *arg)
{
	(void)arg;
	return elt_u64((struct hist_map_elt *)a, 0, 1);
}

static uint32_t count_unsorted(struct hist_map_elt **out, uint32_t n)
{
	uint64_t k, prev = 0;
	uint32_t i, bad = 0;

	for (i = 0; i < n; i++) {
		k = elt_u64(out[i], 0, 1);
		bad += i && k <= prev;
		prev = k;
	}
	return bad;
}

static void test_snapshot_sort_1m(void)
{
	const uint32_t n = T_SANITIZED ? 100000 : 1000000;
	struct hist_map *m = make_map(T_SANITIZED ? 17 : 20, 8, 16, 2);
	struct hist_map_elt **out = calloc(1u << 20, sizeof(*out));
	uint64_t seed = 1, k;
	double t0, t1, t2, t3, t4, t5;
	uint32_t i, got;

	t0 = now_ms();
	for (i = 0; i < n; i++) {
		k = splitmix(&seed);
		hist__map_sum_add(m, hist__map_insert(m, &k, 0, NULL), 0, 1);
	}
	t1 = now_ms();
	got = hist__map_collect(m, out, 1u << 20);
	t2 = now_ms();
	T_EQ(hist__sort_keyed((void **)out, got, prefix_elt_key, cmp_elt_key, NULL), 0);
	t3 = now_ms();
	T_EQ(got, n);
	T_EQ(count_unsorted(out, got), 0);

	got = hist__map_collect(m, out, 1u << 20);
	t4 = now_ms();
	T_EQ(hist__sort((void **)out, got, cmp_elt_key, NULL), 0);
	t5 = now_ms();
	T_EQ(count_unsorted(out, got), 0);
	printf("# %u entries: insert %.1f ms, collect %.1f ms, sort_keyed %.1f ms, "
	       "sort %.1f ms\n", n, t1 - t0, t2 - t1, t3 - t2, t5 - t4);
	free(out);
	hist__map_destroy(m);
}

/*
 * Stress: NR_THREADS inserters over an overlapping key set, plus one reader
 * that checks every element it can see while the inserts run.
 */
#define NR_THREADS 4
#define NR_KEYS 1000

struct stress {
	struct hist_map *m;
	pthread_barrier_t start;
	uint32_t iters;
	uint32_t nr_keys;
	int done;
	/* per thread: successful inserts per key, and the total */
	uint32_t ok[NR_THREADS][NR_KEYS + 1];
	uint64_t ok_total[NR_THREADS];
	/* reader results */
	uint64_t reader_seen, reader_bad, reader_dup;
};

struct stress_arg {
	struct stress *s;
	uint32_t tid;
};

static uint64_t tag_of(uint64_t key)
{
	return key * 0x2545f4914f6cdd1dull + 17;
}

/* Payload word 2 is a function of the key: a torn publish would break it. */
static void stress_init(void *payload, void *arg)
{
	uint64_t key = *(const uint64_t *)arg, v = tag_of(key);

	memcpy((char *)payload + 16, &v, sizeof(v));
}

static void *stress_writer(void *p)
{
	struct stress_arg *a = p;
	struct stress *s = a->s;
	uint64_t seed = a->tid + 1;
	uint32_t i;

	pthread_barrier_wait(&s->start);
	for (i = 0; i < s->iters; i++) {
		uint64_t key = 1 + splitmix(&seed) % s->nr_keys;
		struct hist_map_elt *e = hist__map_insert(s->m, &key, a->tid, &key);

		if (!e)
			continue;
		hist__map_sum_add(s->m, e, 0, 1);
		hist__map_sum_add(s->m, e, 1, key);
		s->ok[a->tid][key]++;
		s->ok_total[a->tid]++;
	}
	return NULL;
}

static int elt_consistent(struct stress *s, struct hist_map_elt *e)
{
	uint64_t key = elt_u64(e, 0, 1);

	return key >= 1 && key <= s->nr_keys && elt_u64(e, 2, 0) == tag_of(key);
}

static void *stress_reader(void *p)
{
	struct stress *s = p;
	struct hist_map_elt **out = calloc(hist__map_capacity(s->m), sizeof(*out));
	unsigned char *seen = calloc(s->nr_keys + 1, 1);
	uint64_t seed = 99;

	pthread_barrier_wait(&s->start);
	while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
		uint32_t n = hist__map_collect(s->m, out, hist__map_capacity(s->m)), i;
		uint64_t key;
		struct hist_map_elt *e;

		memset(seen, 0, s->nr_keys + 1);
		for (i = 0; i < n; i++) {
			s->reader_seen++;
			if (!elt_consistent(s, out[i])) {
				s->reader_bad++;
				continue;
			}
			key = elt_u64(out[i], 0, 1);
			s->reader_dup += seen[key];
			seen[key] = 1;
		}
		for (i = 0; i < 64; i++) {
			key = 1 + splitmix(&seed) % s->nr_keys;
			e = hist__map_lookup(s->m, &key);
			if (!e)
				continue;
			s->reader_seen++;
			if (!elt_consistent(s, e) || elt_u64(e, 0, 1) != key)
				s->reader_bad++;
		}
	}
	free(seen);
	free(out);
	return NULL;
}

/* Runs one stress round and checks the final state; returns drops seen. */
static uint64_t stress_round(struct stress *s, int with_reader)
{
	pthread_t th[NR_THREADS], rd;
	struct stress_arg args[NR_THREADS];
	struct hist_map_elt **out;
	uint64_t hits = 0, present = 0, bad_sum = 0, dup = 0, total = 0;
	unsigned char *seen;
	uint32_t t, i, n, k;

	memset(s->ok, 0, sizeof(s->ok));
	memset(s->ok_total, 0, sizeof(s->ok_total));
	s->done = 0;
	s->reader_seen = s->reader_bad = s->reader_dup = 0;
	pthread_barrier_init(&s->start, NULL, NR_THREADS + (with_reader ? 1 : 0));
	if (with_reader)
		pthread_create(&rd, NULL, stress_reader, s);
	for (t = 0; t < NR_THREADS; t++) {
		args[t].s = s;
		args[t].tid = t;
		pthread_create(&th[t], NULL, stress_writer, &args[t]);
	}
	for (t = 0; t < NR_THREADS; t++)
		pthread_join(th[t], NULL);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	if (with_reader) {
		pthread_join(rd, NULL);
		T_EQU(s->reader_bad, 0);
		T_EQU(s->reader_dup, 0);
	}
	pthread_barrier_destroy(&s->start);

	out = calloc(hist__map_capacity(s->m), sizeof(*out));
	seen = calloc(s->nr_keys + 1, 1);
	n = hist__map_collect(s->m, out, hist__map_capacity(s->m));
	for (i = 0; i < n; i++) {
		uint64_t want = 0, key = elt_u64(out[i], 0, 1);

		if (!elt_consistent(s, out[i])) {
			bad_sum++;
			continue;
		}
		dup += seen[key];
		seen[key] = 1;
		/* Every element stays reachable: no hole cuts its probe chain. */
		bad_sum += hist__map_lookup(s->m, &key) != out[i];
		for (t = 0; t < NR_THREADS; t++)
			want += s->ok[t][key];
		bad_sum += hist__map_sum_read(s->m, out[i], 0) != want;
		bad_sum += hist__map_sum_read(s->m, out[i], 1) != want * key;
	}
	for (k = 1; k <= s->nr_keys; k++) {
		uint64_t want = 0;

		for (t = 0; t < NR_THREADS; t++)
			want += s->ok[t][k];
		present += want > 0;
		/* A key that got hits must be in the map, and only those. */
		bad_sum += (want > 0) != (seen[k] != 0);
	}
	for (t = 0; t < NR_THREADS; t++)
		hits += s->ok_total[t];
	total = (uint64_t)NR_THREADS * s->iters;
	T_EQU(dup, 0);
	T_EQU(bad_sum, 0);
	T_EQU(n, present);
	T_EQU(hist__map_entries(s->m), n);
	T_EQU(hist__map_hits(s->m), hits);
	T_EQU(hist__map_hits(s->m) + hist__map_drops(s->m), total);
	free(seen);
	free(out);
	return hist__map_drops(s->m);
}

static struct stress *stress_new(uint32_t bits, uint32_t nr_keys, uint32_t iters,
				 uint32_t (*hash)(const void *, uint32_t))
{
	struct hist_map_params p = { .bits = bits, .key_size = 8, .payload_size = 24,
				     .nr_sums = 2, .nr_cpus = 3, .elt_init = stress_init,
				     .hash = hash };
	struct stress *s = calloc(1, sizeof(*s));

	s->m = hist__map_create(&p);
	s->nr_keys = nr_keys;
	s->iters = iters;
	return s;
}

static void stress_free(struct stress *s)
{
	hist__map_destroy(s->m);
	free(s);
}

static void test_stress(void)
{
	struct stress *s = stress_new(11, NR_KEYS, T_SCALE(200000), NULL);
	uint64_t drops = stress_round(s, 1);

	/*
	 * All 1000 keys fit: a drop is only the bounded wait giving up on a
	 * claimant preempted mid-claim (more threads than cpus), by design.
	 */
	if (drops)
		printf("# stress: %llu drops from the bounded wait\n", (unsigned long long)drops);
	T_EQ(hist__map_entries(s->m), NR_KEYS);
	stress_free(s);
}

/* Many short rounds: maximise the races on claiming the same new key. */
static void test_stress_new_keys(void)
{
	struct stress *s = stress_new(11, NR_KEYS, 2000, NULL);
	int round, rounds = T_SCALE(100);

	for (round = 0; round < rounds; round++) {
		hist__map_clear(s->m);
		stress_round(s, round % 4 == 0);
	}
	stress_free(s);
}

/* Every key in one probe chain: the BUSY-wait path on every claim. */
static void test_stress_collisions(void)
{
	struct stress *s = stress_new(7, 100, T_SCALE(20000), hash_const);
	int round;

	for (round = 0; round < 5; round++) {
		hist__map_clear(s->m);
		stress_round(s, 1);
	}
	T_EQ(hist__map_entries(s->m), 100);
	stress_free(s);
}

/* One probe chain, distinct tags: claims race for the same EMPTY slots. */
static uint32_t hash_one_chain(const void *key, uint32_t len)
{
	uint64_t k;

	(void)len;
	memcpy(&k, key, sizeof(k));
	return 0x80000000u | (uint32_t)(k & 0x3fffffu);
}

/*
 * Filling a small map from one probe chain, many times: the claims that
 * lose the capacity race sit in that chain, and every element after them
 * must still be found.
 */
static void test_stress_fill_race(void)
{
	struct stress *s = stress_new(7, NR_KEYS, 400, hash_one_chain);
	int round, rounds = T_SCALE(300);

	for (round = 0; round < rounds; round++) {
		hist__map_clear(s->m);
		stress_round(s, 0);
		T_EQ(hist__map_entries(s->m), 128);
	}
	stress_free(s);
}

/* More keys than capacity, concurrently: exactly capacity elements. */
static void test_stress_capacity(void)
{
	struct stress *s = stress_new(7, NR_KEYS, T_SCALE(50000), NULL);
	int round;

	for (round = 0; round < 5; round++) {
		hist__map_clear(s->m);
		stress_round(s, 1);
		T_EQ(hist__map_entries(s->m), 128);
		T_ASSERT(hist__map_drops(s->m) > 0);
	}
	stress_free(s);
}

/* ---- per-cpu sums ---------------------------------------------------- */

static struct hist_map *make_pcpu(uint32_t bits, uint32_t key_size, uint32_t payload,
				  uint32_t nr_sums, uint32_t nr_cpus)
{
	struct hist_map_params p = { .bits = bits, .key_size = key_size,
				     .payload_size = payload, .nr_sums = nr_sums,
				     .nr_cpus = nr_cpus, .pcpu_sums = true };

	return hist__map_create(&p);
}

static void test_pcpu_basic(void)
{
	struct hist_map *m = make_pcpu(7, 8, 8, 2, 3);
	struct hist_map_elt *e, *out[256];
	uint64_t k, *s;
	uint32_t slot, n, i;

	T_ASSERT(m != NULL);
	if (!m)
		return;
	/* Every key through every slot and the shared path: one element. */
	for (k = 1; k <= 100; k++) {
		for (slot = 0; slot < 3; slot++) {
			e = hist__map_insert_cpu(m, &k, slot, NULL);
			T_ASSERT(e != NULL);
			if (!e)
				continue;
			hist__map_sum_add_cpu(m, e, slot, 0, 1);
			hist__map_sum_add_cpu(m, e, slot, 1, k * (slot + 1));
		}
		e = hist__map_insert_sums(m, &k, HIST__MAP_SHARED, NULL, &s);
		T_ASSERT(e != NULL && s == hist__map_sums_of(m, e, HIST__MAP_SHARED));
		T_ASSERT(!hist__map_slot_local(m, HIST__MAP_SHARED));
		if (e) {
			hist__map_sums_add(s, 0, 1, false);
			hist__map_sums_add(s, 1, k * 10, false);
		}
		/* The legacy insert counts on the shared block. */
		T_ASSERT(hist__map_insert(m, &k, 1, NULL) == e);
	}
	T_EQ(hist__map_entries(m), 100);
	T_EQU(hist__map_hits(m), 500);
	n = hist__map_collect(m, out, 256);
	T_EQ(n, 100);
	for (i = 0; i < n; i++) {
		uint64_t key = elt_u64(out[i], 0, 1);

		T_EQU(hist__map_sum(m, out[i], 0), 4);
		T_EQU(hist__map_sum(m, out[i], 1), key * 16);
		/* The payload is the caller's alone: no sums in it. */
		T_EQU(elt_u64(out[i], 0, 0), 0);
	}
	/* A slot beyond nr_cpus is the shared one; drops count where made. */
	for (k = 1000; k < 1100; k++)
		T_ASSERT(hist__map_insert_cpu(m, &k, k % 5, NULL) != NULL || k >= 1028);
	T_EQ(hist__map_entries(m), 128);
	T_EQU(hist__map_drops(m), 72);
	hist__map_clear(m);
	T_EQ(hist__map_entries(m), 0);
	T_EQU(hist__map_hits(m), 0);
	T_EQU(hist__map_drops(m), 0);
	k = 5;
	e = hist__map_insert_cpu(m, &k, 2, NULL);
	T_ASSERT(e != NULL);
	if (e) {
		T_EQU(hist__map_sum(m, e, 0), 0);
		T_EQU(hist__map_sum(m, e, 1), 0);
	}
	hist__map_destroy(m);

	/* Without pcpu_sums the *_cpu calls are the atomic payload ones. */
	m = make_map(7, 8, 16, 2);
	k = 9;
	e = hist__map_insert_cpu(m, &k, 1, NULL);
	T_ASSERT(e != NULL && !hist__map_slot_local(m, 1));
	if (e) {
		hist__map_sum_add_cpu(m, e, 1, 1, 7);
		T_EQU(hist__map_sum_read(m, e, 1), 7);
		T_EQU(hist__map_sum(m, e, 1), 7);
	}
	hist__map_destroy(m);
}

/* The first try, when whether the key is absent does not matter. */
static uint64_t *find_owned(struct hist_map *m, uint64_t k, uint32_t slot)
{
	bool absent = false;

	return hist__map_find_owned(m, k, slot, hist__map_home_state(slot), &absent);
}

/*
 * The first try says when a key is not in the map (its probe met an
 * empty slot), and only then; such a key is a drop without a second
 * probe once the map is full (hist__map_drop_absent()), and only then.
 */
static void test_first_try_absent(void)
{
	struct hist_map_params p = { .bits = 7, .key_size = 8, .nr_sums = 2, .nr_cpus = 2,
				     .pcpu_sums = true, .hits_sum0 = true };
	struct hist_map *m = hist__map_create(&p);
	uint64_t k, *s;
	uint32_t in = 0, absent_seen = 0;
	bool absent;

	T_ASSERT(m != NULL);
	if (!m)
		return;
	absent = false;
	T_ASSERT(hist__map_find_owned(m, 1, 0, hist__map_home_state(0), &absent) == NULL &&
		 absent);
	/* not full: the full insert takes the key */
	T_ASSERT(!hist__map_drop_absent(m, 0));
	T_EQU(hist__map_drops(m), 0);
	for (k = 1; k <= 128; k++)
		if (hist__map_insert_sums(m, &k, (uint32_t)(k & 1), NULL, &s))
			in++;
	T_EQ(in, 128);
	T_EQ(hist__map_entries(m), 128);
	/* every key present: found, or left to the full insert (further
	 * than the inline probes, or to be marked CROSSED), never absent */
	for (k = 1; k <= 128; k++) {
		absent = false;
		s = hist__map_find_owned(m, k, (uint32_t)(k & 1),
					 hist__map_home_state((uint32_t)(k & 1)), &absent);
		T_ASSERT(!absent);
	}
	/* new keys on the full map: absent where the probe met an empty
	 * slot, and then a drop on the caller's slot */
	for (k = 1000; k < 1200; k++) {
		absent = false;
		s = hist__map_find_owned(m, k, 1, hist__map_home_state(1), &absent);
		T_ASSERT(s == NULL);
		if (!absent)
			continue;
		absent_seen++;
		T_ASSERT(hist__map_drop_absent(m, 1));
	}
	T_ASSERT(absent_seen > 100);
	T_EQU(hist__map_drops(m), absent_seen);
	T_EQ(hist__map_entries(m), 128);
	hist__map_destroy(m);
}

/* The first look of the hit path for M (hist__map_line2() says which). */
static uint64_t *first_look(struct hist_map *m, uint64_t k, uint32_t slot, uint32_t home,
			    bool *absent)
{
	if (hist__map_line2(m))
		return hist__map_first_line32(m, k, slot, home, 2, absent);
	return hist__map_first_owned32(m, k, slot, home, 2, absent);
}

/*
 * The first look alone, in a table in cache (hist__map_first_line32())
 * and in one past 8 MiB (hist__map_first_owned32()): the inline sums of a
 * key its slot created, at its start slot; nothing for a key that shares
 * that slot and tag but not the key, for another slot's element or a
 * CROSSED one; "absent" only when the start slot is empty.  In a table
 * in cache, chains start at a line's first slot and the second is looked
 * at too.  And the maps each may be used on.
 */
static void test_first_owned32(void)
{
	uint32_t bits;

	for (bits = 7; bits <= 18; bits += 11) {
		struct hist_map_params p = { .bits = bits, .key_size = 8, .nr_sums = 2,
					     .nr_cpus = 2, .pcpu_sums = true, .hits_sum0 = true };
		struct hist_map *m = hist__map_create(&p), *o;
		uint64_t a = 5, b, c, ha, *s = NULL, *sb = NULL;
		struct hist_map_elt *e, *eb = NULL;
		bool absent, line2 = bits == 7;

		T_ASSERT(m != NULL && hist__map_slots32(m));
		if (!m)
			return;
		T_ASSERT(hist__map_line2(m) == line2);
		/* a key with A's start slot and tag: below 2^32 the hash is
		 * the key times a constant, so keys 2^16 apart share the tag */
		ha = hist__map_hash8(a);
		for (b = a + (1u << 16); b < (1ull << 32); b += 1u << 16)
			if (hist__map_start(m, hist__map_hash8(b)) == hist__map_start(m, ha))
				break;
		T_ASSERT(b < (1ull << 32) &&
			 (hist__map_hash8(b) & HIST__MAP_TAG) == (ha & HIST__MAP_TAG));
		absent = false;
		T_ASSERT(first_look(m, a, 0, hist__map_home_state(0), &absent) == NULL && absent);
		e = hist__map_insert_sums(m, &a, 0, NULL, &s);
		T_ASSERT(e != NULL && s == e->data + 1);
		if (!e)
			goto out;
		T_ASSERT(!line2 || hist__map_start(m, ha) % 2 == 0);
		absent = true;
		T_ASSERT(first_look(m, a, 0, hist__map_home_state(0), &absent) == s);
		/* the same start slot and tag, another key: looked for further on */
		T_ASSERT(first_look(m, b, 0, hist__map_home_state(0), &absent) == NULL && !absent);
		if (line2) {
			/* B at the line's second slot: found by the first look,
			 * inline, and A still is */
			eb = hist__map_insert_sums(m, &b, 0, NULL, &sb);
			T_ASSERT(eb != NULL && (char *)eb == (char *)e + 32 && sb == eb->data + 1);
			T_ASSERT(first_look(m, b, 0, hist__map_home_state(0), &absent) == sb);
			T_ASSERT(first_look(m, a, 0, hist__map_home_state(0), &absent) == s);
			/* a third key of that line: not there, but its chain
			 * goes on past the line, so not known to be absent */
			for (c = b + (1u << 16); c < (1ull << 32); c += 1u << 16)
				if (hist__map_start(m, hist__map_hash8(c)) == hist__map_start(m, ha))
					break;
			T_ASSERT(c < (1ull << 32));
			absent = true;
			T_ASSERT(first_look(m, c, 0, hist__map_home_state(0), &absent) == NULL &&
				 !absent);
		}
		/* another slot's element: its copy is the full path's business */
		absent = true;
		T_ASSERT(first_look(m, a, 1, hist__map_home_state(1), &absent) == NULL && !absent);
		/* CROSSED: the home slot leaves its inline sums too; each
		 * slot's first look finds its copy once the full path has
		 * used it */
		T_ASSERT(hist__map_insert_sums(m, &a, 1, NULL, &s) == e && s != e->data + 1);
		T_ASSERT(first_look(m, a, 1, hist__map_home_state(1), &absent) == s);
		absent = true;
		T_ASSERT(first_look(m, a, 0, hist__map_home_state(0), &absent) == NULL && !absent);
		T_ASSERT(hist__map_insert_sums(m, &a, 0, NULL, &s) == e && s != e->data + 1);
		T_ASSERT(first_look(m, a, 0, hist__map_home_state(0), &absent) == s);
		if (line2 && eb) {
			/* the line's other element was marked CROSSED with A:
			 * slot 0's copy (in use already), at the second slot */
			T_ASSERT(eb->state & HIST__MAP_CROSSED);
			T_ASSERT(hist__map_insert_sums(m, &b, 0, NULL, &sb) == eb &&
				 sb != eb->data + 1);
			T_ASSERT(first_look(m, b, 0, hist__map_home_state(0), &absent) == sb);
		} else {
			/* and not for the tag twin */
			T_ASSERT(first_look(m, b, 1, hist__map_home_state(1), &absent) == NULL &&
				 !absent);
		}
		/* key 0, at its start slot with the line's other one empty:
		 * found, though that slot's key word (zero) matches it too */
		T_ASSERT(hist__map_start(m, hist__map_hash8(0)) != hist__map_start(m, ha));
		e = hist__map_insert_sums(m, &(uint64_t){ 0 }, 0, NULL, &s);
		T_ASSERT(e != NULL && s == e->data + 1);
		absent = true;
		T_ASSERT(first_look(m, 0, 0, hist__map_home_state(0), &absent) == s && absent);
		/* maps whose slots are not 32 bytes of key and inline sums */
		p.nr_sums = 3;
		o = hist__map_create(&p);
		T_ASSERT(o && !hist__map_slots32(o) && !hist__map_line2(o));
		hist__map_destroy(o);
		p.nr_sums = 2;
		p.key_size = 16;
		o = hist__map_create(&p);
		T_ASSERT(o && !hist__map_slots32(o) && !hist__map_line2(o));
		hist__map_destroy(o);
		p.key_size = 8;
		p.hits_sum0 = false;
		o = hist__map_create(&p);
		T_ASSERT(o && !hist__map_slots32(o) && !hist__map_line2(o));
		hist__map_destroy(o);
out:
		hist__map_destroy(m);
	}
}

/*
 * The MULTI word (two threads own slots): once it holds
 * HIST__MAP_NOT_HOME, no hit adds to an element's inline sums, its home
 * slot's included: the first probe finds nothing for it, the full path
 * and the first try use the slot's copy, wide keys too.  What was added
 * inline before stays, and every total is exact.
 */
static void test_multi_mode(void)
{
	uint32_t multi = 0, ks;

	for (ks = 8; ks <= 16; ks += 8) {
		struct hist_map_params p = { .bits = 7, .key_size = ks, .nr_sums = 2,
					     .nr_cpus = 2, .pcpu_sums = true, .hits_sum0 = true,
					     .multi = &multi };
		struct hist_map *m = hist__map_create(&p);
		uint64_t key[2] = { 9, 10 }, *s = NULL, *home, *again;
		struct hist_map_elt *e;
		bool absent = false;
		uint32_t i;

		multi = 0;
		T_ASSERT(m != NULL);
		if (!m)
			continue;
		e = hist__map_insert_sums(m, key, 0, NULL, &home);
		T_ASSERT(e != NULL && home == e->data + ks / 8);
		if (!e) {
			hist__map_destroy(m);
			continue;
		}
		hist__map_sums_add(home, 0, 1, true);
		hist__map_sums_add(home, 1, 3, true);
		multi = HIST__MAP_NOT_HOME;
		if (ks == 8)
			T_ASSERT(first_look(m, key[0], 0,
					    hist__map_home_state(0) | HIST__MAP_NOT_HOME,
					    &absent) == NULL && !absent);
		/* the full path: the home slot's copy, the element CROSSED */
		T_ASSERT(hist__map_insert_sums(m, key, 0, NULL, &s) == e && s != home);
		T_ASSERT(e->state & HIST__MAP_CROSSED);
		for (i = 0; i < 5; i++) {
			hist__map_sums_add(s, 0, 1, true);
			hist__map_sums_add(s, 1, 3, true);
		}
		again = ks == 8 ? hist__map_find_owned(m, key[0], 0,
						       hist__map_home_state(0) |
							       HIST__MAP_NOT_HOME,
						       &absent)
				: hist__map_find_owned_words(m, key, 2, 0,
							     hist__map_home_state(0) |
								     HIST__MAP_NOT_HOME,
							     &absent);
		T_ASSERT(again == s);
		if (ks == 8)
			T_ASSERT(first_look(m, key[0], 0,
					    hist__map_home_state(0) | HIST__MAP_NOT_HOME,
					    &absent) == s);
		T_EQU(hist__map_sum(m, e, 0), 6);
		T_EQU(hist__map_sum(m, e, 1), 18);
		/* a key created in this mode: never added to inline */
		key[0] = 11;
		e = hist__map_insert_sums(m, key, 1, NULL, &s);
		T_ASSERT(e != NULL && s != e->data + ks / 8);
		hist__map_destroy(m);
	}
}

/*
 * A claim in progress by the caller's own exclusive slot (its hit, that
 * a signal handler interrupted): an insert of the same tag through that
 * slot drops at once instead of waiting for a claimant that cannot run,
 * and leaves the claim alone; the shared path and other slots keep
 * waiting (contract 6).  The claim is made by hand here: the state a
 * hit interrupted between its CAS and its publish leaves.
 */
static void test_own_claim_no_wait(void)
{
	struct hist_map_params p = { .bits = 7, .key_size = 8, .nr_sums = 2, .nr_cpus = 2,
				     .pcpu_sums = true, .hits_sum0 = true };
	struct hist_map *m = hist__map_create(&p);
	uint64_t k = 77, h, *s = NULL;
	struct hist_map_elt *e;
	uint32_t busy;

	T_ASSERT(m != NULL);
	if (!m)
		return;
	h = hist__map_hash8(k);
	e = (struct hist_map_elt *)(m->slots + (size_t)((uint32_t)(h >> 32) >> m->shift) *
					       m->stride);
	busy = HIST__MAP_BUSY | hist__map_home_bits(m, 1) | ((uint32_t)h & HIST__MAP_TAG);
	e->state = busy;
	T_ASSERT(hist__map_insert_sums(m, &k, 1, NULL, &s) == NULL);
	T_EQU(hist__map_drops(m), 1);
	T_EQU(e->state, busy);
	hist__map_destroy(m);
}

/*
 * The sums SLOT adds to for K (element E): not the inline ones HOME, and
 * the same whether found by the first try or the full insert.  The first
 * try makes no call, so it gives up (NULL) where the element must first
 * be marked CROSSED or the copy marked used; the full insert does that,
 * and from then on the first try finds the copy.
 */
static uint64_t *copy_of(struct hist_map *m, struct hist_map_elt *e, uint64_t k,
			 uint32_t slot, const uint64_t *home)
{
	uint64_t *first = find_owned(m, k, slot), *s = NULL;

	T_ASSERT(first != home);
	T_ASSERT(hist__map_insert_sums(m, &k, slot, NULL, &s) == e);
	T_ASSERT(s != NULL && s != home && (!first || first == s));
	T_ASSERT(s == find_owned(m, k, slot));
	return s;
}

/*
 * The home slot's inline sums: a key's creator adds inline until another
 * slot hits it (CROSSED); from then on every slot, the home one included,
 * adds to its copy, and the totals stay exact.  With hits_sum0 the hit
 * total is the sum 0 of all elements.
 */
static void test_pcpu_home(void)
{
	/* 32-byte slots: header, key, two sums */
	struct hist_map_params p = { .bits = 7, .key_size = 8, .nr_sums = 2, .nr_cpus = 2,
				     .pcpu_sums = true, .hits_sum0 = true };
	struct hist_map *m = hist__map_create(&p);
	struct hist_map_elt *e;
	uint64_t k = 42, *home, *s;
	uint32_t i;

	T_ASSERT(m != NULL);
	if (!m)
		return;
	/* Not there yet: the first try does nothing. */
	T_ASSERT(find_owned(m, k, 0) == NULL);
	e = hist__map_insert_sums(m, &k, 0, NULL, &s);
	T_ASSERT(e != NULL);
	if (!e)
		goto out;
	hist__map_sums_add(s, 0, 1, true);
	hist__map_sums_add(s, 1, 5, true);
	/* Slot 0 created it: its first try finds the inline sums, right
	 * after the key. */
	home = find_owned(m, k, 0);
	T_ASSERT(home == s && s == e->data + 1);
	for (i = 0; i < 3; i++) {
		hist__map_sums_add(home, 0, 1, true);
		hist__map_sums_add(home, 1, 5, true);
	}
	/* Slot 1 hits it: its own copy, and the element is CROSSED. */
	s = copy_of(m, e, k, 1, home);
	T_ASSERT(hist__map_sum(m, e, 0) == 4);	/* nothing counted by the lookups */
	hist__map_sums_add(s, 0, 1, true);
	hist__map_sums_add(s, 1, 7, true);
	/* Now slot 0 leaves the inline sums alone too: the line is read-only. */
	s = copy_of(m, e, k, 0, home);
	hist__map_sums_add(s, 0, 1, true);
	hist__map_sums_add(s, 1, 11, true);
	/* The shared path: the shared copy. */
	T_ASSERT(hist__map_insert_sums(m, &k, HIST__MAP_SHARED, NULL, &s) == e);
	hist__map_sums_add(s, 0, 1, false);
	hist__map_sums_add(s, 1, 13, false);
	/* A CROSSED element is still found by lookups. */
	T_ASSERT(hist__map_lookup(m, &k) == e);
	T_EQU(hist__map_sum(m, e, 0), 7);
	T_EQU(hist__map_sum(m, e, 1), 20 + 7 + 11 + 13);
	/* Another key, created by the shared path: its inline sums take the
	 * shared callers' atomic adds. */
	k = 43;
	e = hist__map_insert_sums(m, &k, HIST__MAP_SHARED, NULL, &s);
	T_ASSERT(e != NULL && s == e->data + 1);
	if (e)
		hist__map_sums_add(s, 0, 1, false);
	T_EQU(hist__map_hits(m), 8);
	hist__map_clear(m);
	T_EQU(hist__map_hits(m), 0);
	/* Keys created by two slots: where two of them share a cache line,
	 * neither owner writes the line (each adds to its copy); elsewhere
	 * the creator adds inline.  Nothing is lost either way. */
	{
		struct hist_map_elt *out[128];
		uint32_t n, shared = 0, alone = 0;

		for (k = 1; k <= 100; k++) {
			e = hist__map_insert_sums(m, &k, k & 1, NULL, &s);
			if (e)
				hist__map_sums_add(s, 0, 1, true);
		}
		n = hist__map_collect(m, out, 128);
		T_EQ(n, 100);
		for (i = 0; i < n; i++) {
			struct hist_map_elt *nb = (struct hist_map_elt *)((uintptr_t)out[i] ^ 32);
			uint64_t key = *(uint64_t *)hist__map_elt_key(out[i]);
			bool other = (nb->state & HIST__MAP_FLAGS) == HIST__MAP_READY &&
				     (*(uint64_t *)hist__map_elt_key(nb) & 1) != (key & 1);

			/* The first try gives up where the element must be
			 * marked CROSSED first; the full insert does it. */
			s = find_owned(m, key, key & 1);
			T_ASSERT(s != NULL || other);
			if (!s)
				T_ASSERT(hist__map_insert_sums(m, &key, key & 1, NULL, &s) ==
					 out[i]);
			T_ASSERT(s != NULL && (s == out[i]->data + 1) == !other);
			if (s)
				hist__map_sums_add(s, 0, 1, true);
			shared += other;
			alone += !other;
		}
		/* Both cases occurred (fixed keys, fixed hash). */
		T_ASSERT(shared > 0 && alone > 0);
		for (i = 0; i < n; i++)
			T_EQU(hist__map_sum(m, out[i], 0), 2);
		T_EQU(hist__map_hits(m), 200);
		hist__map_clear(m);
	}
	T_EQU(hist__map_hits(m), 0);
	T_ASSERT(hist__map_lookup(m, &k) == NULL);
out:
	hist__map_destroy(m);
}

/* Key sizes other than 8 take the out-of-line path; sums stay per cpu. */
static void test_pcpu_keys(void)
{
	struct hist_map *m = make_pcpu(9, 24, 0, 1, 2);
	unsigned char key[24];
	uint32_t i;

	for (i = 0; i < 1000; i++) {
		struct hist_map_elt *e;

		fill_key(key, 24, i % 300);
		e = hist__map_insert_cpu(m, key, i & 1, NULL);
		T_ASSERT(e != NULL);
		if (e)
			hist__map_sum_add_cpu(m, e, i & 1, 0, 1);
	}
	T_EQ(hist__map_entries(m), 300);
	for (i = 0; i < 300; i++) {
		struct hist_map_elt *e;

		fill_key(key, 24, i);
		e = hist__map_lookup(m, key);
		T_ASSERT(e != NULL);
		if (e)
			T_EQU(hist__map_sum(m, e, 0), i < 100 ? 4 : 3);
	}
	hist__map_destroy(m);
}

/*
 * Keys of 16 and 24 bytes with two sums on a map of several cpu slots:
 * slots of one cache line each, the home slot's sums inline (so a hit
 * from the creator's slot touches one line), the other slots' in their
 * copies, and the home's own copy once the element is CROSSED.
 */
static void test_pcpu_wide_home(void)
{
	uint32_t ks;

	for (ks = 16; ks <= 24; ks += 8) {
		struct hist_map *m = make_pcpu(7, ks, 0, 2, 2);
		uint64_t key[3] = { 1, 2, 3 }, *s = NULL, *home;
		struct hist_map_elt *e;
		bool absent = false;

		T_ASSERT(m != NULL);
		if (!m)
			continue;
		T_EQ(m->stride, 64);
		T_ASSERT(m->inline_home && m->nb_xor == 0);
		e = hist__map_insert_sums(m, key, 0, NULL, &s);
		T_ASSERT(e != NULL && s == e->data + ks / 8);
		if (!e) {
			hist__map_destroy(m);
			continue;
		}
		hist__map_sums_add(s, 0, 1, true);
		hist__map_sums_add(s, 1, 10, true);
		home = hist__map_find_owned_words(m, key, ks / 8, 0, hist__map_home_state(0), &absent);
		T_ASSERT(home == s && !absent);
		/* another slot: nothing until the full path marks it CROSSED */
		T_ASSERT(hist__map_find_owned_words(m, key, ks / 8, 1, hist__map_home_state(1), &absent) == NULL);
		T_ASSERT(hist__map_insert_sums(m, key, 1, NULL, &s) == e && s != home);
		hist__map_sums_add(s, 0, 1, true);
		hist__map_sums_add(s, 1, 20, true);
		T_ASSERT(hist__map_find_owned_words(m, key, ks / 8, 1, hist__map_home_state(1), &absent) == s);
		/* and the home slot leaves its inline sums for its copy */
		T_ASSERT(hist__map_insert_sums(m, key, 0, NULL, &s) == e && s != home);
		hist__map_sums_add(s, 0, 1, true);
		hist__map_sums_add(s, 1, 40, true);
		T_ASSERT(hist__map_find_owned_words(m, key, ks / 8, 0, hist__map_home_state(0), &absent) == s);
		T_EQU(hist__map_sum(m, e, 0), 3);
		T_EQU(hist__map_sum(m, e, 1), 70);
		hist__map_destroy(m);
	}
}

/*
 * Threads owning a slot each (plain adds) and threads on the shared path
 * (atomic adds), on the same keys, with a reader: exact totals at rest.
 */
#define PCPU_OWNERS 2
#define PCPU_SHARED 2

struct pcpu_stress {
	struct hist_map *m;
	pthread_barrier_t start;
	uint32_t iters;
	int done;
	uint64_t want[PCPU_OWNERS + PCPU_SHARED][64];
};

struct pcpu_arg {
	struct pcpu_stress *s;
	uint32_t tid;
};

static void *pcpu_writer(void *p)
{
	struct pcpu_arg *a = p;
	struct pcpu_stress *s = a->s;
	uint32_t slot = a->tid < PCPU_OWNERS ? a->tid : HIST__MAP_SHARED, i;
	uint64_t seed = a->tid + 11;

	pthread_barrier_wait(&s->start);
	for (i = 0; i < s->iters; i++) {
		uint64_t key = splitmix(&seed) % 64, kw[2] = { key, ~key }, *sums;
		struct hist_map_elt *e = hist__map_insert_sums(s->m, kw, slot, NULL, &sums);

		if (!e)
			continue;
		hist__map_sums_add(sums, 0, 1, hist__map_slot_local(s->m, slot));
		hist__map_sums_add(sums, 1, key + 1, hist__map_slot_local(s->m, slot));
		s->want[a->tid][key]++;
	}
	return NULL;
}

static void *pcpu_reader(void *p)
{
	struct pcpu_stress *s = p;
	uint64_t last = 0;

	pthread_barrier_wait(&s->start);
	while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
		uint64_t kw[2] = { 7, ~7ull }, hits;
		struct hist_map_elt *e = hist__map_lookup(s->m, kw);

		/* Sums only grow while the writers run. */
		if (e) {
			hits = hist__map_sum(s->m, e, 0);
			T_ASSERT(hits >= last);
			last = hits;
		}
	}
	return NULL;
}

static void pcpu_stress(uint32_t key_size)
{
	struct pcpu_stress *s = calloc(1, sizeof(*s));
	struct pcpu_arg args[PCPU_OWNERS + PCPU_SHARED];
	pthread_t th[PCPU_OWNERS + PCPU_SHARED], rd;
	uint64_t key, total = 0, bad = 0;
	uint32_t t;

	s->m = make_pcpu(8, key_size, 0, 2, PCPU_OWNERS);
	s->iters = T_SCALE(200000);
	pthread_barrier_init(&s->start, NULL, PCPU_OWNERS + PCPU_SHARED + 1);
	pthread_create(&rd, NULL, pcpu_reader, s);
	for (t = 0; t < PCPU_OWNERS + PCPU_SHARED; t++) {
		args[t].s = s;
		args[t].tid = t;
		pthread_create(&th[t], NULL, pcpu_writer, &args[t]);
	}
	for (t = 0; t < PCPU_OWNERS + PCPU_SHARED; t++)
		pthread_join(th[t], NULL);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	pthread_join(rd, NULL);
	for (key = 0; key < 64; key++) {
		uint64_t kw[2] = { key, ~key }, want = 0;
		struct hist_map_elt *e = hist__map_lookup(s->m, kw);

		for (t = 0; t < PCPU_OWNERS + PCPU_SHARED; t++)
			want += s->want[t][key];
		total += want;
		if (!e) {
			bad += want != 0;
			continue;
		}
		bad += hist__map_sum(s->m, e, 0) != want;
		bad += hist__map_sum(s->m, e, 1) != want * (key + 1);
	}
	T_EQU(bad, 0);
	T_EQU(hist__map_hits(s->m), total);
	T_EQU(total, (uint64_t)(PCPU_OWNERS + PCPU_SHARED) * s->iters);
	pthread_barrier_destroy(&s->start);
	hist__map_destroy(s->m);
	free(s);
}

/* 8-byte keys (32-byte slots, two to a line) and 16-byte keys (a line
 * each); the writers' keys are {key, ~key}, of which an 8-byte map uses
 * the first word. */
static void test_pcpu_stress(void)
{
	pcpu_stress(8);
	pcpu_stress(16);
}

int main(void)
{
	T_RUN(test_create_params);
	T_RUN(test_basic);
	T_RUN(test_key_sizes);
	T_RUN(test_sums);
	T_RUN(test_elt_init_once);
	T_RUN(test_collisions);
	T_RUN(test_capacity);
	T_RUN(test_clear);
	T_RUN(test_collect);
	T_RUN(test_sort);
	T_RUN(test_sort_keyed);
	T_RUN(test_snapshot_sort_1m);
	T_RUN(test_pcpu_basic);
	T_RUN(test_pcpu_home);
	T_RUN(test_first_try_absent);
	T_RUN(test_first_owned32);
	T_RUN(test_multi_mode);
	T_RUN(test_own_claim_no_wait);
	T_RUN(test_pcpu_keys);
	T_RUN(test_pcpu_wide_home);
	T_RUN(test_pcpu_stress);
	T_RUN(test_stress);
	T_RUN(test_stress_new_keys);
	T_RUN(test_stress_collisions);
	T_RUN(test_stress_capacity);
	T_RUN(test_stress_fill_race);
	return T_DONE();
}
