/* SPDX-License-Identifier: MIT */
/*
 * The two layouts of a hist's sums (hist_ctx_opts.sums).
 *
 * HIST_SUMS_PER_CPU: every cpu slot adds to its own copy of the sums;
 * HIST_SUMS_SHARED: each entry keeps one set, next to its key, and every
 * hit adds to it atomically (the kernel's layout); HIST_SUMS_AUTO: per
 * cpu up to the kernel's largest size=, shared past it.  Checked: the
 * counts stay exact with several threads hitting the same keys through
 * their own slots and through a slot another thread owns, in both layouts
 * and for the hists the inlined variants take as well as for the general
 * path; the map memory per entry that each layout costs, measured through
 * the allocation hook: 64 bytes for an 8-byte key and two values with
 * shared sums, whatever nr_cpus, 64 plus 16 per copy per cpu; which one
 * AUTO picks on each side of 2^17 entries, across a clear too; and that
 * an unknown value is refused.
 */
/* HIST_TEST_TSAN */
#include "harness.h"
#include "libhist.h"
#include "test_events.h"

#include <pthread.h>
#include <stdlib.h>

#define NR_CPUS 4
#define KEYS 64
#define THREADS 3
#define HITS 20000

static const char *const cmds[] = {
	"hist:keys=key:vals=val",		/* the 8-byte-key variants */
	"hist:keys=key,common_pid:vals=val",	/* the wide-key variants */
	"hist:keys=key:vals=val if val > 2",	/* a filtered variant */
	/* a string in the filter: the simple path, not a variant */
	"hist:keys=key:vals=val if val > 2 && name != \"zz\"",
	"hist:keys=key:vals=val:v=val",		/* the general path */
};

static hist_event *setup(hist_ctx **ctx, uint32_t sums, const char *cmd)
{
	struct hist_host host = { 0 };
	struct hist_event_desc d = { .system = "t", .name = "ev", .fields = kv_fields,
				     .nr_fields = sizeof(kv_fields) / sizeof(kv_fields[0]) };
	struct hist_ctx_opts o = { .nr_cpus = NR_CPUS, .sums = sums, .max_map_bits = 20 };
	hist_event *ev = NULL;

	*ctx = hist_ctx_create(&host, &o, NULL);
	T_ASSERT(*ctx != NULL);
	if (!*ctx)
		return NULL;
	T_EQ(hist_event_define(*ctx, &d, &ev), 0);
	if (ev)
		T_EQ(hist_trigger_parse(ev, cmd, NULL), 0);
	return ev;
}

struct hitter {
	hist_event *ev;
	uint32_t cpu;
	pthread_barrier_t *start;
};

/* HITS hits on the thread's cpu: key i % KEYS, value i % 5 + 1. */
static void *hit_loop(void *p)
{
	struct hitter *a = p;
	uint32_t i;

	pthread_barrier_wait(a->start);
	for (i = 0; i < HITS; i++) {
		struct kv_rec r = { .type = 1, .pid = 7, .key = i % KEYS, .val = i % 5 + 1 };
		struct hist_hit h = { .cpu = a->cpu, .pid = -1 };

		hist_event_hit(a->ev, &r, sizeof(r), &h);
	}
	return NULL;
}

/* What every key shows after THREADS threads of hit_loop(), for a
 * filter that keeps values above MIN. */
static void check_counts(hist_event *ev, uint64_t min)
{
	const struct hist_read_entry *x;
	hist_reader *rd;
	uint64_t total = 0;
	uint32_t i, n = 0;
	int err = 0;

	rd = hist_reader_create(ev, 0, &err);
	T_ASSERT(rd != NULL);
	if (!rd)
		return;
	while ((x = hist_reader_next(rd))) {
		uint64_t k = strtoull(x->keys[0].text, NULL, 10), h = 0, s = 0;

		/* one thread's hits and sum for key K */
		for (i = (uint32_t)k; i < HITS; i += KEYS) {
			if (i % 5 + 1 <= min)
				continue;
			h++;
			s += i % 5 + 1;
		}
		T_EQU(x->vals[0].value, THREADS * h);
		T_EQU(x->vals[1].value, THREADS * s);
		total += x->vals[0].value;
		n++;
	}
	T_EQU(n, KEYS);
	T_EQU(hist_reader_info(rd)->hits, total);
	hist_reader_destroy(rd);
}

/*
 * THREADS threads at once on the same keys: two through slots of their
 * own, the third through the first one's slot (not its owner: the
 * shared path).
 */
static void run_threads(hist_event *ev)
{
	static const uint32_t cpus[THREADS] = { 0, 1, 0 };
	struct hitter a[THREADS];
	pthread_t t[THREADS];
	pthread_barrier_t start;
	uint32_t i;

	pthread_barrier_init(&start, NULL, THREADS);
	for (i = 0; i < THREADS; i++) {
		a[i] = (struct hitter){ ev, cpus[i], &start };
		T_EQ(pthread_create(&t[i], NULL, hit_loop, &a[i]), 0);
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
}

static void check_threads(uint32_t sums, const char *cmd)
{
	hist_ctx *ctx;
	hist_event *ev = setup(&ctx, sums, cmd);

	if (ev) {
		run_threads(ev);
		check_counts(ev, strstr(cmd, " if ") ? 2 : 0);
	}
	hist_ctx_destroy(ctx);
}

static void test_threads_per_cpu(void)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		check_threads(HIST_SUMS_PER_CPU, cmds[i]);
}

static void test_threads_shared(void)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		check_threads(HIST_SUMS_SHARED, cmds[i]);
}

static void test_bad_mode(void)
{
	struct hist_ctx_opts o = { .sums = HIST_SUMS_SHARED + 1 };
	int err = 0;

	T_ASSERT(hist_ctx_create(NULL, &o, &err) == NULL);
	T_EQ(err, -HIST_EINVAL);
}

/* ---- memory per entry ----------------------------------------------- */

/* An allocation hook that keeps the bytes in use: each block carries
 * its size in a header. */
static size_t in_use;

static void *count_alloc(void *data, size_t size)
{
	size_t *p = calloc(1, size + 16);

	(void)data;
	if (!p)
		return NULL;
	*p = size;
	in_use += size;
	return (char *)p + 16;
}

static void count_free(void *data, void *ptr)
{
	size_t *p = (size_t *)((char *)ptr - 16);

	(void)data;
	in_use -= *p;
	free(p);
}

/* Bytes that parsing CMD into a fresh context allocates. */
static size_t trigger_bytes(uint32_t sums, uint32_t nr_cpus, const char *cmd)
{
	struct hist_allocator al = { count_alloc, count_free, NULL };
	struct hist_host host = { 0 };
	struct hist_event_desc d = { .system = "t", .name = "ev", .fields = kv_fields,
				     .nr_fields = sizeof(kv_fields) / sizeof(kv_fields[0]) };
	struct hist_ctx_opts o = { .nr_cpus = nr_cpus, .sums = sums, .max_map_bits = 20 };
	hist_event *ev = NULL;
	hist_ctx *ctx;
	size_t before, bytes = 0;

	hist_set_allocator(&al);
	ctx = hist_ctx_create(&host, &o, NULL);
	T_ASSERT(ctx != NULL);
	if (ctx && hist_event_define(ctx, &d, &ev) == 0) {
		before = in_use;
		T_EQ(hist_trigger_parse(ev, cmd, NULL), 0);
		bytes = in_use - before;
	}
	hist_ctx_destroy(ctx);
	T_EQU(in_use, 0);
	hist_set_allocator(NULL);
	return bytes;
}

/*
 * HIST_SUMS_AUTO past 2^17 entries: shared sums, kept by a clear made
 * through a member of the map's named group that asked for a smaller
 * size (the members' hit variants were chosen for the map's layout).
 */
static void test_auto_clear_group(void)
{
	struct hist_allocator al = { count_alloc, count_free, NULL };
	struct hist_event_desc d2 = { .system = "t", .name = "ev2", .fields = kv_fields,
				      .nr_fields = sizeof(kv_fields) / sizeof(kv_fields[0]) };
	hist_ctx *ctx;
	hist_event *ev, *ev2 = NULL;
	size_t before;

	hist_set_allocator(&al);
	ev = setup(&ctx, HIST_SUMS_AUTO, "hist:name=g:keys=key:vals=val:size=262144");
	if (!ev || hist_event_define(ctx, &d2, &ev2) || !ev2)
		goto out;
	T_EQ(hist_trigger_parse(ev2, "hist:name=g:keys=key:vals=val", NULL), 0);
	run_threads(ev2);
	before = in_use;
	T_EQ(hist_trigger_parse(ev2, "hist:name=g:keys=key:vals=val:clear", NULL), 0);
	/* the fresh map: 2^18 entries of 64 bytes, no copies (the old one
	 * waits for hist_ctx_reclaim()) */
	T_ASSERT(in_use - before >= 262144 * 64);
	T_ASSERT(in_use - before < 262144 * (64 + 16));
	run_threads(ev2);
	check_counts(ev2, 0);
out:
	hist_ctx_destroy(ctx);
	T_EQU(in_use, 0);
	hist_set_allocator(NULL);
}

/* The bytes one more entry of capacity costs between maps of SMALL and
 * 4 * SMALL entries: their difference, so the trigger's fixed cost
 * cancels out. */
static size_t per_entry(uint32_t sums, uint32_t nr_cpus, uint32_t small)
{
	char cmd[64];
	size_t a, b;

	snprintf(cmd, sizeof(cmd), "hist:keys=key:vals=val:size=%u", small);
	a = trigger_bytes(sums, nr_cpus, cmd);
	snprintf(cmd, sizeof(cmd), "hist:keys=key:vals=val:size=%u", 4 * small);
	b = trigger_bytes(sums, nr_cpus, cmd);
	return (b - a) / (3 * (size_t)small);
}

static void test_memory_per_entry(void)
{
	uint32_t cpus;

	for (cpus = 1; cpus <= 64; cpus *= 4) {
		/* two 32-byte slots per entry: key, state, hitcount, val */
		T_EQU(per_entry(HIST_SUMS_SHARED, cpus, 2048), 64);
		/* and 16 bytes in each of nr_cpus + 1 copies */
		T_EQU(per_entry(HIST_SUMS_PER_CPU, cpus, 2048), 64 + 16 * (cpus + 1));
		/* the default: per cpu in the kernel's sizes... */
		T_EQU(per_entry(HIST_SUMS_AUTO, cpus, 2048), 64 + 16 * (cpus + 1));
	}
	/* ...shared past them (2^18 and 2^20 entries) */
	T_EQU(per_entry(HIST_SUMS_AUTO, 16, 262144), 64);
	T_EQU(per_entry(HIST_SUMS_PER_CPU, 1, 262144), 64 + 16 * 2);
}

int main(void)
{
	T_RUN(test_threads_per_cpu);
	T_RUN(test_threads_shared);
	T_RUN(test_auto_clear_group);
	T_RUN(test_bad_mode);
	T_RUN(test_memory_per_entry);
	return T_DONE();
}
