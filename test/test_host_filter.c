/* SPDX-License-Identifier: MIT */
/*
 * hist_event_set_host_filtered(): a host that applied the triggers'
 * filters itself (hist-live gives them to the kernel as the event filter)
 * tells libhist, and the hits stop evaluating them, on every hit path
 * (a plain filter's variant, the simple path, the general list walk).
 *
 * To see that a filter is skipped, records the filter rejects are fed
 * anyway: with the promise they count, without it they do not.  The
 * trigger text keeps its filter either way.
 */
#include "harness.h"
#include "libhist.h"
#include "test_events.h"

#include <stdlib.h>

/* sched_waking's layout: pid (an int) and comm (char[16]) to filter on */
#define REC_LEN 40

static int find_event(void *data, const char *sys, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	if (strcmp(sys, "t") || (strcmp(name, "a") && strcmp(name, "b")))
		return -HIST_ENOENT;
	out->fields = waking_fields;
	out->nr_fields = sizeof(waking_fields) / sizeof(waking_fields[0]);
	return 0;
}

/* Records with pid 1, 2, 2 and comm "x", "y", "y" (common_pid 7). */
static void feed3(hist_event *ev)
{
	static const int32_t pids[3] = { 1, 2, 2 };
	static const char *const names[3] = { "x", "y", "y" };
	uint8_t rec[REC_LEN];
	int i;

	for (i = 0; i < 3; i++) {
		struct hist_hit h = { .cpu = 0, .pid = -1 };
		int32_t pid = 7;

		memset(rec, 0, sizeof(rec));
		memcpy(rec + 4, &pid, 4);
		memcpy(rec + 8, names[i], strlen(names[i]));
		memcpy(rec + 24, &pids[i], 4);
		hist_event_hit(ev, rec, sizeof(rec), &h);
	}
}

/* What PRINT writes for EV (NULL if it fails). */
static const char *printed(hist_event *ev, int (*print)(hist_event *, hist_write_fn, void *))
{
	static struct buf b;

	b.n = 0;
	b.s[0] = 0;
	return print(ev, buf_write, &b) ? NULL : b.s;
}

/* The sum of every "Hits: N" line of EV's hist file. */
static long hits(hist_event *ev)
{
	const char *p = printed(ev, hist_event_print_hist);
	long n = 0;

	if (!p)
		return -1;
	for (; (p = strstr(p, "    Hits: ")); p += 10)
		n += strtol(p + 10, NULL, 10);
	return n;
}

static int has(hist_event *ev, int (*print)(hist_event *, hist_write_fn, void *),
	       const char *what)
{
	const char *s = printed(ev, print);

	return s && strstr(s, what);
}

static hist_ctx *make_ctx(hist_event **a, hist_event **b)
{
	static const struct hist_host host = { .find_event = find_event };
	struct hist_ctx_opts o = { .nr_cpus = 2 };
	hist_ctx *ctx = hist_ctx_create(&host, &o, NULL);

	*a = ctx ? hist_event_lookup(ctx, "t", "a") : NULL;
	*b = ctx ? hist_event_lookup(ctx, "t", "b") : NULL;
	T_ASSERT(*a && *b);
	return ctx;
}

/* CMD's filter passes one record of three: 1 hit without the promise,
 * 3 with it, 1 again after it is withdrawn. */
static void check_one(const char *cmd, const char *variant)
{
	hist_event *ev, *other;
	hist_ctx *ctx = make_ctx(&ev, &other);

	if (!ev)
		goto out;
	T_EQ(hist_trigger_parse(ev, cmd, NULL), 0);
	feed3(ev);
	T_EQ(hits(ev), 1);
	T_EQ(hist_event_set_host_filtered(ev, 1), 0);
	feed3(ev);
	T_EQ(hits(ev), 4);
	/* the filter is still the trigger's, as the kernel prints it */
	T_ASSERT(has(ev, hist_event_print_triggers, " if "));
	if (variant)
		T_ASSERT(has(ev, hist_event_print_hist_debug, variant));
	/* the other event was not told anything */
	T_EQ(hist_trigger_parse(other, cmd, NULL), 0);
	feed3(other);
	T_EQ(hits(other), 1);
	T_EQ(hist_event_set_host_filtered(ev, 0), 0);
	feed3(ev);
	T_EQ(hits(ev), 5);
out:
	hist_ctx_destroy(ctx);
}

/* A plain (integer) filter: the filtered variant, then the unfiltered
 * one; a string filter: the simple path; .execname: the simple path. */
static void test_lone_trigger(void)
{
	check_one("hist:keys=pid if pid == 1", "hit variant: simple");
	check_one("hist:keys=pid if comm == \"x\"", NULL);
	check_one("hist:keys=common_pid.execname if comm == \"x\"", NULL);
	check_one("hist:keys=pid:vals=prio if pid < 2 && comm ~ \"x*\"", NULL);
}

/* Two triggers on the event (the general walk), one added after the
 * promise: neither filter is evaluated. */
static void test_list(void)
{
	hist_event *ev, *other;
	hist_ctx *ctx = make_ctx(&ev, &other);

	if (!ev)
		goto out;
	T_EQ(hist_trigger_parse(ev, "hist:keys=pid if pid == 1", NULL), 0);
	T_EQ(hist_event_set_host_filtered(ev, 1), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=comm if pid == 1", NULL), 0);
	T_ASSERT(has(ev, hist_event_print_hist_debug, "hit variant: general"));
	feed3(ev);
	T_EQ(hits(ev), 6);
	T_EQ(hist_event_set_host_filtered(ev, 0), 0);
	feed3(ev);
	T_EQ(hits(ev), 8);
out:
	hist_ctx_destroy(ctx);
}

/* Set before any trigger, and on an event without triggers. */
static void test_before_triggers(void)
{
	hist_event *ev, *other;
	hist_ctx *ctx = make_ctx(&ev, &other);

	if (!ev)
		goto out;
	T_EQ(hist_event_set_host_filtered(ev, 1), 0);
	feed3(ev);
	T_EQ(hist_trigger_parse(ev, "hist:keys=pid if pid == 2", NULL), 0);
	feed3(ev);
	T_EQ(hits(ev), 3);
	T_EQ(hist_trigger_parse(ev, "!hist:keys=pid if pid == 2", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=pid if pid == 2", NULL), 0);
	feed3(ev);
	T_EQ(hits(ev), 3);
out:
	hist_ctx_destroy(ctx);
}

int main(void)
{
	T_RUN(test_lone_trigger);
	T_RUN(test_list);
	T_RUN(test_before_triggers);
	return T_DONE();
}
