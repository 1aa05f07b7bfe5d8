/* SPDX-License-Identifier: MIT */
/*
 * A signal handler that hits through the cpu slot its thread is in the
 * middle of using: the case of an interrupt or NMI tracepoint nesting in
 * a tracepoint on the same CPU.  The slot's owner adds to its sums with
 * unlocked single-instruction adds (hist__add_local()), so an add by the
 * handler that lands between two instructions of the interrupted hit
 * must not be lost.
 *
 * The main loop hits key 1 (value 1) on cpu 0, and a new key now and
 * then; a 20 us interval timer's handler hits key 1 (value 1000) on the
 * same cpu, and new keys of its own.  At the end every count must be
 * exact: key 1's hitcount is the number of hits of both, its sum splits
 * into the main loop's and the handler's, every other key has one hit.
 * A read-modify-write of a sum in two instructions loses some of the
 * thousands of handler hits (checked when the test was written, by
 * making hist__add_local() a load and a store).  The tests run again
 * with HIST_SUMS_SHARED, whose adds are atomic and whose inserts must
 * not wait for the claim of their own thread either.
 */
#include "harness.h"
#include "libhist.h"
#include "test_events.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define HANDLER_HITS_MIN 3000	/* the loop runs until the handler has hit this often */
#define MAIN_NEW_EVERY 4096	/* the main loop inserts a new key this often */
#define HANDLER_NEW_EVERY 16	/* the handler inserts a new key this often */
#define MAIN_KEYS_BASE 1000000
#define HANDLER_KEYS_BASE 2000000

static hist_event *g_ev;
static volatile sig_atomic_t g_handler_hits, g_handler_new;

static int find_event(void *data, const char *system, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	(void)system;
	(void)name;
	(void)out;
	return -1;
}

static void hit(uint64_t key, uint64_t val)
{
	struct kv_rec r = { .type = 1, .pid = 1, .key = key, .val = val };
	struct hist_hit h = { .cpu = 0, .pid = -1 };

	hist_event_hit(g_ev, &r, sizeof(r), &h);
}

static void on_alarm(int sig)
{
	(void)sig;
	if (g_handler_hits % HANDLER_NEW_EVERY == 0) {
		hit(HANDLER_KEYS_BASE + (uint64_t)g_handler_new, 1000);
		g_handler_new++;
	}
	hit(1, 1000);
	g_handler_hits++;
}

static void set_timer(long usecs)
{
	struct itimerval it = { { 0, usecs }, { 0, usecs } };

	setitimer(ITIMER_REAL, &it, NULL);
}

/* A context with the event g_ev and the trigger CMD on it, or NULL. */
static uint32_t g_sums;	/* hist_ctx_opts.sums of the test */

static hist_ctx *setup(const char *cmd)
{
	struct hist_host host = { .find_event = find_event };
	struct hist_event_desc d = { .system = "t", .name = "ev", .fields = kv_fields,
				     .nr_fields = sizeof(kv_fields) / sizeof(kv_fields[0]) };
	hist_ctx *ctx;
	int err = 0;

	ctx = hist_ctx_create(&host, &(struct hist_ctx_opts){ .nr_cpus = 2, .sums = g_sums },
			      &err);
	T_ASSERT(ctx != NULL);
	if (!ctx)
		return NULL;
	T_EQ(hist_event_define(ctx, &d, &g_ev), 0);
	T_EQ(hist_trigger_parse(g_ev, cmd, NULL), 0);
	g_handler_hits = 0;
	return ctx;
}

/* HANDLER on SIGALRM every 20 us, until stop_timer(). */
static void start_timer(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	set_timer(20);
}

static void stop_timer(void)
{
	set_timer(0);
	signal(SIGALRM, SIG_IGN);
}

/* Runs the loop and the handler through CMD, then checks every entry. */
static void run(const char *cmd)
{
	const struct hist_read_entry *e;
	hist_reader *rd;
	hist_ctx *ctx = setup(cmd);
	uint64_t main_hits = 0, main_new = 0, key1_hits = 0, key1_sum = 0, others = 0;
	int err = 0;

	if (!ctx)
		return;
	g_handler_new = 0;
	/* Key 1 exists before the handler can hit it.  A handler that
	 * interrupts the very claim of a key and hits that key drops it
	 * (test_map's test_own_claim_no_wait); here every key's claims come
	 * from one side only, so every count below is exact. */
	hit(1, 1);
	main_hits = 1;

	start_timer(on_alarm);
	while (g_handler_hits < HANDLER_HITS_MIN) {
		if (++main_hits % MAIN_NEW_EVERY == 0)
			hit(MAIN_KEYS_BASE + main_new++, 1);
		hit(1, 1);
	}
	stop_timer();

	rd = hist_reader_create(g_ev, 0, &err);
	T_ASSERT(rd != NULL);
	if (!rd) {
		hist_ctx_destroy(ctx);
		return;
	}
	while ((e = hist_reader_next(rd))) {
		uint64_t k = e->keys[0].value;

		if (k == 1) {
			key1_hits = e->vals[0].value;
			key1_sum = e->vals[1].value;
			continue;
		}
		T_ASSERT((k >= MAIN_KEYS_BASE && k < MAIN_KEYS_BASE + main_new) ||
			 (k >= HANDLER_KEYS_BASE && k < HANDLER_KEYS_BASE + (uint64_t)g_handler_new));
		T_EQU(e->vals[0].value, 1);
		T_EQU(e->vals[1].value, k >= HANDLER_KEYS_BASE ? 1000 : 1);
		others++;
	}
	T_EQU(key1_hits, main_hits + (uint64_t)g_handler_hits);
	T_EQU(key1_sum, main_hits + 1000 * (uint64_t)g_handler_hits);
	T_EQU(others, main_new + (uint64_t)g_handler_new);
	T_EQU(hist_reader_info(rd)->hits,
	      main_hits + main_new + (uint64_t)g_handler_hits + (uint64_t)g_handler_new);
	T_EQU(hist_reader_info(rd)->dropped, 0);
	printf("# %s: %llu hits, %d from the handler\n", cmd,
	       (unsigned long long)(main_hits + main_new), (int)g_handler_hits);
	hist_reader_destroy(rd);
	hist_ctx_destroy(ctx);
}

/* ---- a handler hitting the key its thread is claiming ------------------- */

#define CLAIM_KEYS 6000		/* new keys the loop claims, one per hit */
#define CLAIM_BASE 3000000
#define WATCHDOG_NS 20000000000ll	/* a livelock fails the test, not CI */

static volatile uint64_t g_claiming;	/* the key the loop is inserting */
static struct timespec g_start;

static void on_alarm_claim(int sig)
{
	struct timespec now;

	(void)sig;
	/* async-signal-safe: a handler that keeps a claim from finishing
	 * would otherwise spin here forever, one signal after the other */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - g_start.tv_sec) * 1000000000ll + (now.tv_nsec - g_start.tv_nsec) >
	    WATCHDOG_NS) {
		static const char msg[] = "# test_nesting: the handler is livelocked\n";

		(void)!write(1, msg, sizeof(msg) - 1);
		_exit(1);
	}
	hit(g_claiming, 1000);
	g_handler_hits++;
}

/*
 * Every hit of the loop claims a new key, and the handler hits that very
 * key: when the signal lands between the loop's claim and its publish,
 * the handler meets its own thread's claim.  It must not wait for it
 * (the claimant cannot run before the handler returns, and the next
 * signal is already due): the handler's hit is then a drop, and every
 * event is either counted or dropped.
 */
static void test_nested_own_claim(void)
{
	const struct hist_read_info *info;
	hist_reader *rd;
	hist_ctx *ctx = setup("hist:keys=key:vals=hitcount,val:size=8192");
	uint64_t i;
	int err = 0;

	if (!ctx)
		return;
	g_claiming = CLAIM_BASE;
	clock_gettime(CLOCK_MONOTONIC, &g_start);
	start_timer(on_alarm_claim);
	for (i = 0; i < CLAIM_KEYS; i++) {
		g_claiming = CLAIM_BASE + i;
		hit(CLAIM_BASE + i, 1);
	}
	stop_timer();
	rd = hist_reader_create(g_ev, 0, &err);
	T_ASSERT(rd != NULL);
	if (rd) {
		info = hist_reader_info(rd);
		T_EQU(info->hits + info->dropped, CLAIM_KEYS + (uint64_t)g_handler_hits);
		T_EQU(info->entries, CLAIM_KEYS);
		printf("# %d handler hits on the key being claimed, %llu dropped\n",
		       (int)g_handler_hits, (unsigned long long)info->dropped);
		hist_reader_destroy(rd);
	}
	hist_ctx_destroy(ctx);
}

/* The lone simple hist: hist_event_hit()'s own variant. */
static void test_nested_simple(void)
{
	run("hist:keys=key:vals=hitcount,val:size=8192");
}

/* A filter takes the general path (hist__hist_hit()). */
static void test_nested_general(void)
{
	run("hist:keys=key:vals=hitcount,val:size=8192 if val < 5000");
}

static void test_shared_simple(void)
{
	g_sums = HIST_SUMS_SHARED;
	test_nested_simple();
	g_sums = HIST_SUMS_AUTO;
}

static void test_shared_general(void)
{
	g_sums = HIST_SUMS_SHARED;
	test_nested_general();
	g_sums = HIST_SUMS_AUTO;
}

static void test_shared_own_claim(void)
{
	g_sums = HIST_SUMS_SHARED;
	test_nested_own_claim();
	g_sums = HIST_SUMS_AUTO;
}

int main(void)
{
	T_RUN(test_nested_simple);
	T_RUN(test_nested_general);
	T_RUN(test_nested_own_claim);
	T_RUN(test_shared_simple);
	T_RUN(test_shared_general);
	T_RUN(test_shared_own_claim);
	return T_DONE();
}
