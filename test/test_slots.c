/* SPDX-License-Identifier: MIT */
/*
 * Cpu slot ownership (core/ctx.h) and the context's MULTI word.
 *
 * The first thread to hit through a cpu slot owns it.  Once a second
 * thread owns a slot, the context's MULTI word holds HIST__MAP_NOT_HOME
 * and so does every slot's HOME, so that the maps' home slots stop adding
 * to their elements' inline sums (map_inline.h, hist__map_not_home()).
 * One thread that hits through several slots (a replay) keeps them.
 * Checked: when the word is set and when not, that two threads claiming
 * their first slots at the same moment always set it, and that every
 * count stays exact across the switch, for the plain hists' variants and
 * for the general path.
 */
/* HIST_TEST_TSAN */
#include "harness.h"
#include "libhist.h"
#include "test_events.h"
#include "core/ctx.h"
#include "map/map.h"

#include <pthread.h>
#include <stdlib.h>

#define NR_CPUS 4
#define KEYS 64

struct fixture {
	hist_ctx *ctx;
	hist_event *ev;
	/* what every key must show: hits and the sum of the values */
	uint64_t hits[KEYS], sum[KEYS];
};

static bool setup(struct fixture *f, const char *cmd)
{
	struct hist_host host = { 0 };	/* the event is defined below */
	struct hist_event_desc d = { .system = "t", .name = "ev", .fields = kv_fields,
				     .nr_fields = sizeof(kv_fields) / sizeof(kv_fields[0]) };

	memset(f, 0, sizeof(*f));
	f->ctx = hist_ctx_create(&host, &(struct hist_ctx_opts){ .nr_cpus = NR_CPUS }, NULL);
	T_ASSERT(f->ctx != NULL);
	if (!f->ctx)
		return false;
	T_EQ(hist_event_define(f->ctx, &d, &f->ev), 0);
	T_EQ(hist_trigger_parse(f->ev, cmd, NULL), 0);
	return f->ev != NULL;
}

/* N hits on CPU, keys i % KEYS, values i + 1; counted in F when COUNT
 * (the threads below count in their own fixture copy, merged after). */
static void hits(struct fixture *f, uint32_t cpu, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct kv_rec r = { .type = 1, .pid = 1, .key = i % KEYS, .val = i + 1 };
		struct hist_hit h = { .cpu = cpu, .pid = -1 };

		hist_event_hit(f->ev, &r, sizeof(r), &h);
		f->hits[i % KEYS]++;
		f->sum[i % KEYS] += i + 1;
	}
}

static uint32_t multi_of(struct fixture *f)
{
	return hist__load_relaxed(HIST__CTX_MULTI(f->ctx));
}

/* Every slot's HOME: its element state, with NOT_HOME when MULTI is. */
static void check_homes(struct fixture *f, uint32_t not_home)
{
	uint32_t i;

	for (i = 0; i < NR_CPUS; i++)
		T_EQU(hist__load_relaxed(&f->ctx->cpus[i].home), hist__map_home_state(i) | not_home);
}

/* The histogram against the counts in F (HITS of them in all). */
static void check_counts(struct fixture *f)
{
	int err = 0;
	hist_reader *rd = hist_reader_create(f->ev, 0, &err);
	const struct hist_read_entry *x;
	uint64_t total = 0, n = 0;
	uint32_t k;

	T_ASSERT(rd != NULL);
	if (!rd)
		return;
	for (k = 0; k < KEYS; k++)
		total += f->hits[k];
	T_EQU(hist_reader_info(rd)->hits, total);
	while ((x = hist_reader_next(rd))) {
		k = (uint32_t)strtoull(x->keys[0].text, NULL, 10);
		T_ASSERT(k < KEYS);
		if (k >= KEYS)
			break;
		T_EQU(x->vals[0].value, f->hits[k]);
		T_EQU(x->vals[1].value, f->sum[k]);
		n++;
	}
	T_EQU(n, KEYS);
	hist_reader_destroy(rd);
}

struct thread_arg {
	struct fixture *f;
	struct fixture mine;	/* the thread's own counts */
	uint32_t cpu, n;
	pthread_barrier_t *start;
};

static void *hitter(void *p)
{
	struct thread_arg *a = p;

	a->mine.ev = a->f->ev;
	if (a->start)
		pthread_barrier_wait(a->start);
	hits(&a->mine, a->cpu, a->n);
	return NULL;
}

static void merge(struct fixture *f, const struct thread_arg *a)
{
	uint32_t k;

	for (k = 0; k < KEYS; k++) {
		f->hits[k] += a->mine.hits[k];
		f->sum[k] += a->mine.sum[k];
	}
}

static void run_thread(struct fixture *f, uint32_t cpu, uint32_t n)
{
	struct thread_arg a = { f, { 0 }, cpu, n, NULL };
	pthread_t t;

	T_EQ(pthread_create(&t, NULL, hitter, &a), 0);
	pthread_join(t, NULL);
	merge(f, &a);
}

/*
 * One thread through three slots: no MULTI, inline sums.  A second
 * thread's first slot: MULTI and every HOME marked.  Then more hits on
 * both sides, the first thread's slots now adding to their copies, and a
 * third thread on a slot the first owns (the shared path).
 */
static void check_switch(const char *cmd)
{
	struct fixture f;

	if (!setup(&f, cmd))
		goto out;
	hits(&f, 0, 1000);
	hits(&f, 1, 1000);
	hits(&f, 2 + NR_CPUS, 1000);	/* folds onto slot 2 */
	T_EQU(multi_of(&f), 0);
	check_homes(&f, 0);
	check_counts(&f);
	run_thread(&f, 3, 1000);
	T_EQU(multi_of(&f), HIST__MAP_NOT_HOME);
	check_homes(&f, HIST__MAP_NOT_HOME);
	hits(&f, 0, 3000);
	hits(&f, 1, 500);
	run_thread(&f, 1, 700);		/* slot 1 is the first thread's */
	check_counts(&f);
out:
	hist_ctx_destroy(f.ctx);
}

static void test_switch_plain(void)
{
	check_switch("hist:keys=key:vals=val");
}

/* A filter with a string term: the general hit path. */
static void test_switch_general(void)
{
	check_switch("hist:keys=key:vals=val if name != \"zz\"");
}

/* Two threads claiming their first slots together: one of them always
 * sees the other's claim (the fence in hist__slot_claim()). */
static void test_claim_race(void)
{
	int round;

	for (round = 0; round < 200; round++) {
		struct fixture f;
		struct thread_arg a[2];
		pthread_barrier_t start;
		pthread_t t[2];
		int i;

		if (!setup(&f, "hist:keys=key:vals=val"))
			break;
		pthread_barrier_init(&start, NULL, 2);
		for (i = 0; i < 2; i++) {
			a[i] = (struct thread_arg){ &f, { 0 }, (uint32_t)i, 2 * KEYS, &start };
			pthread_create(&t[i], NULL, hitter, &a[i]);
		}
		for (i = 0; i < 2; i++) {
			pthread_join(t[i], NULL);
			merge(&f, &a[i]);
		}
		pthread_barrier_destroy(&start);
		T_EQU(multi_of(&f), HIST__MAP_NOT_HOME);
		check_counts(&f);
		hist_ctx_destroy(f.ctx);
	}
}

int main(void)
{
	T_RUN(test_switch_plain);
	T_RUN(test_switch_general);
	T_RUN(test_claim_race);
	return T_DONE();
}
