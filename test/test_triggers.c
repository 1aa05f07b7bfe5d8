/* SPDX-License-Identifier: MIT */
/*
 * Many triggers on one event (issue 21): the event's index (core/index.c)
 * must keep every answer the linear walks gave.  Thousands of distinct
 * hist triggers are added; each duplicate is still refused, `!hist:`
 * removes exactly the trigger it names from anywhere in the list, a hit
 * runs every trigger left and none removed (through the tombstones of the
 * shared array and its compaction), variables are found by name among
 * thousands, a referenced hist cannot be removed.  Correctness only: the
 * timing is bench/triggers' job.  Each test runs with and without the
 * host's synchronize() (freed at once / at hist_ctx_reclaim()), so the
 * sanitizer builds see any use of a retired array or trigger.  The named
 * groups (name=) of a context are found by hash: the names their lookups
 * compare are counted, and must stay linear in the number of lookups.
 */
#include "harness.h"
#include "test_events.h"
#include "libhist.h"
#include "util.h"
#include "core/ctx.h"
#include "core/trigger.h"

#include <stdbool.h>
#include <stdlib.h>

static const struct hist_field_desc fields[] = {
	T_COMMON_FIELDS,
	{ "pid", "pid_t", 8, 4, 1, HIST_FIELD_INT },
	{ "a", "u64", 16, 8, 0, HIST_FIELD_INT },
	{ "b", "u64", 24, 8, 0, HIST_FIELD_INT },
};

static int syncs;

static void sync_count(void *data)
{
	(void)data;
	syncs++;
}

static hist_ctx *ctx;
static hist_event *ev;

static void setup(bool sync)
{
	struct hist_host host = { 0 };
	struct hist_event_desc d = {
		.system = "many", .name = "ev", .fields = fields,
		.nr_fields = sizeof(fields) / sizeof(fields[0]),
	};

	if (sync)
		host.synchronize = sync_count;
	ctx = hist_ctx_create(&host, NULL, NULL);
	T_ASSERT(ctx != NULL);
	T_EQ(hist_event_define(ctx, &d, &ev), 0);
}

static void teardown(void)
{
	hist_ctx_destroy(ctx);
	ctx = NULL;
	ev = NULL;
}

/* Three shapes of distinct triggers: keys, filters, keys and sort. */
static void cmd_of(char *buf, size_t n, unsigned i, bool remove)
{
	const char *bang = remove ? "!" : "";

	switch (i % 3) {
	case 0:
		snprintf(buf, n, "%shist:keys=a.buckets=%u", bang, i + 1);
		break;
	case 1:
		snprintf(buf, n, "%shist:keys=pid:vals=hitcount,b if a == %u", bang, i);
		break;
	default:
		snprintf(buf, n, "%shist:keys=pid,a.buckets=%u:vals=b:sort=b", bang, i + 1);
		break;
	}
}

static int cmd(unsigned i, bool remove)
{
	char buf[128];

	cmd_of(buf, sizeof(buf), i, remove);
	return hist_trigger_parse(ev, buf, NULL);
}

static size_t count_str(const char *s, const char *what)
{
	size_t c = 0;

	while (s && (s = strstr(s, what)) != NULL) {
		c++;
		s += strlen(what);
	}
	return c;
}

/* Hit one record (a = A) and count the hists whose total is 1 (HIT1), 0
 * (HIT0) and 2 (returned). */
static size_t hit_and_count(uint64_t a, size_t *hit1, size_t *hit0)
{
	size_t hit2;
	uint8_t rec[32] = { 0 };
	struct hist_hit hit = { .pid = 1, .comm = "t" };
	struct t_text t = { 0 };

	memcpy(rec + 16, &a, 8);
	rec[24] = 1;
	hist_event_hit(ev, rec, sizeof(rec), &hit);
	T_EQ(hist_event_print_hist(ev, t_text_write, &t), 0);
	*hit1 = count_str(t.s, "    Hits: 1\n");
	*hit0 = count_str(t.s, "    Hits: 0\n");
	hit2 = count_str(t.s, "    Hits: 2\n");
	free(t.s);
	return hit2;
}

static size_t trigger_lines(void)
{
	struct t_text t = { 0 };
	size_t n;

	T_EQ(hist_event_print_triggers(ev, t_text_write, &t), 0);
	n = count_str(t.s, "\n");
	if (t.s && !strncmp(t.s, "# Available", 11))
		n = 0;
	free(t.s);
	return n;
}

#define N 3000

static bool is_removed(unsigned i)
{
	return i % 4 == 1 || (i >= 1000 && i < 1100);
}

static void many(bool sync)
{
	size_t hit1, hit0, want1 = 0, want0 = 0, live = 0;
	unsigned i, j;

	setup(sync);
	for (i = 0; i < N; i++)
		T_EQ(cmd(i, false), 0);
	T_EQU(trigger_lines(), N);
	/* every one of them again: refused, whatever its place */
	for (i = 0; i < N; i++)
		T_EQ(cmd(i, false), -HIST_EEXIST);
	/* remove a quarter spread out and a block, in a scrambled order */
	for (i = 0; i < N; i++) {
		j = (i * 7919u) % N;
		if (is_removed(j))
			T_EQ(cmd(j, true), 0);
	}
	for (i = 0; i < N; i++)
		live += !is_removed(i);
	T_EQU(trigger_lines(), live);
	/* a removed one can be added again (at the tail), the others not */
	for (i = 0; i < N; i += 97)
		T_EQ(cmd(i, false), is_removed(i) ? 0 : -HIST_EEXIST);
	for (i = 0; i < N; i += 97)
		if (is_removed(i))
			T_EQ(cmd(i, true), 0);
	T_EQU(trigger_lines(), live);
	/* removing what is not there removes nothing */
	T_EQ(cmd(1, true), 0);
	T_EQU(trigger_lines(), live);
	/* one hit: every live trigger runs (the filters pass for a == 7
	 * only), no removed one; pause and cont find a trigger by identity */
	T_EQ(hist_trigger_parse(ev, "hist:keys=a.buckets=13:pause", NULL), 0);
	for (i = 0; i < N; i++) {
		if (is_removed(i))
			continue;
		if (i == 12 || (i % 3 == 1 && i != 7))
			want0++;
		else
			want1++;
	}
	hit_and_count(7, &hit1, &hit0);
	T_EQU(hit1, want1);
	T_EQU(hit0, want0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=a.buckets=13:cont", NULL), 0);
	teardown();
}

static void test_many_triggers(void)
{
	many(false);
}

static void test_many_triggers_sync(void)
{
	syncs = 0;
	many(true);
	T_ASSERT(syncs > 0);
}

/* Remove all but a few: the shared array compacts, the lone survivor
 * gets its hit variant back, a generic trigger at the head is run. */
static void test_compaction(void)
{
	size_t hit1, hit0;
	unsigned i;

	setup(false);
	for (i = 0; i < 300; i++)
		T_EQ(cmd(i * 3, false), 0);
	for (i = 0; i < 300; i++)
		if (i % 50)
			T_EQ(cmd(i * 3, true), 0);
	T_EQU(trigger_lines(), 6);
	hit_and_count(0, &hit1, &hit0);
	T_EQU(hit1, 6);
	T_EQU(hit0, 0);
	T_EQ(hist_trigger_parse(ev, "traceoff", NULL), 0);
	T_EQU(trigger_lines(), 7);
	for (i = 50; i < 300; i += 50)
		T_EQ(cmd(i * 3, true), 0);
	T_EQ(hist_trigger_parse(ev, "!traceoff", NULL), 0);
	T_EQU(trigger_lines(), 1);
	/* the survivor (keys=a.buckets=1), hit twice */
	T_EQU(hit_and_count(0, &hit1, &hit0), 1);
	T_EQU(hit1 + hit0, 0);
	T_EQ(cmd(0, true), 0);
	T_EQU(trigger_lines(), 0);
	T_EQ(cmd(0, false), 0);
	T_EQU(trigger_lines(), 1);
	teardown();
}

/* Variables among thousands: names stay unique per event, a reference
 * finds its hist, a referenced hist is not removed. */
static void test_many_vars(void)
{
	char buf[128];
	unsigned i;

	setup(true);
	for (i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "hist:keys=pid:v%u=b", i);
		T_EQ(hist_trigger_parse(ev, buf, NULL), 0);
	}
	/* "Variable already defined": the name is taken on this event */
	T_EQ(hist_trigger_parse(ev, "hist:keys=a:v1234=b", NULL), -HIST_EINVAL);
	T_EQ(hist_trigger_parse(ev, "hist:keys=pid:w=$v1234", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "!hist:keys=pid:v1234=b", NULL), -HIST_EBUSY);
	T_EQ(hist_trigger_parse(ev, "!hist:keys=pid:v1233=b", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "!hist:keys=pid:w=$v1234", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "!hist:keys=pid:v1234=b", NULL), 0);
	/* the names are free again */
	T_EQ(hist_trigger_parse(ev, "hist:keys=a:v1234=b", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=a:v1233=b", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=pid:w=$nosuch", NULL), -HIST_EINVAL);
	T_EQU(trigger_lines(), 2000);
	teardown();
}

#define NAMED 2000

static int named_cmd(hist_event *e, const char *what, unsigned i, const char *bang)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%shist:keys=pid:vals=b:%s:name=g%u", bang, what, i);
	return hist_trigger_parse(e, buf, NULL);
}

/* Thousands of named groups: each add looks its name up once (a miss
 * creates the group, a hit joins it); the names compared stay within a
 * few per lookup, and the table within a few buckets per group, where
 * the kernel's list (and libhist's before) compared N^2 / 2 names. */
static void test_many_named(void)
{
	struct hist_event_desc d = {
		.system = "many", .name = "ev2", .fields = fields,
		.nr_fields = sizeof(fields) / sizeof(fields[0]),
	};
	hist_event *ev2;
	uint64_t lookups = 0;
	size_t hit1, hit0, joined = 0;
	unsigned i;

	setup(true);
	T_EQ(hist_event_define(ctx, &d, &ev2), 0);
	for (i = 0; i < NAMED; i++, lookups++)
		T_EQ(named_cmd(ev, "size=256", i, ""), 0);
	T_EQU(ctx->nr_named, NAMED);
	T_ASSERT(ctx->named_mask + 1 <= 2 * NAMED);
	/* the same name on another event joins the group: one table */
	for (i = 0; i < NAMED; i += 7, lookups++, joined++)
		T_EQ(named_cmd(ev2, "size=256", i, ""), 0);
	T_EQU(ctx->nr_named, NAMED);
	/* ... if its shape matches the group's */
	T_EQ(hist_trigger_parse(ev2, "hist:keys=a:vals=b:name=g5", NULL), -HIST_EINVAL);
	lookups++;
	T_ASSERT(ctx->named_cmps <= 3 * lookups);
	{
		uint8_t rec[32] = { 0 };
		struct hist_hit hit = { .pid = 1, .comm = "t" };

		/* ev's hists show ev2's hit in the joined groups only */
		hist_event_hit(ev2, rec, sizeof(rec), &hit);
		T_EQU(hit_and_count(0, &hit1, &hit0), joined);
		T_EQU(hit1, NAMED - joined);
		T_EQU(hit0, 0);
	}
	/* a group lives while it has a member; the table with the groups */
	for (i = 0; i < NAMED; i++)
		T_EQ(named_cmd(ev, "size=256", i, "!"), 0);
	T_EQU(ctx->nr_named, joined);
	T_EQ(named_cmd(ev, "size=256", 7, ""), 0);	/* joins ev2's g7 */
	T_EQ(named_cmd(ev, "size=256", 8, ""), 0);	/* a new g8 */
	T_EQU(hit_and_count(0, &hit1, &hit0), 0);
	T_EQU(hit1, 1);					/* g8 */
	{
		struct t_text t = { 0 };

		/* g7 kept ev2's hit and ev's first: 2 + this one */
		T_EQ(hist_event_print_hist(ev, t_text_write, &t), 0);
		T_EQU(count_str(t.s, "    Hits: 3\n"), 1);
		free(t.s);
	}
	T_EQ(named_cmd(ev, "size=256", 7, "!"), 0);
	T_EQ(named_cmd(ev, "size=256", 8, "!"), 0);
	for (i = 0; i < NAMED; i += 7)
		T_EQ(named_cmd(ev2, "size=256", i, "!"), 0);
	T_EQU(ctx->nr_named, 0);
	T_ASSERT(ctx->named_tab == NULL);
	teardown();
}

/* The trigger line of EV's hist RANK as a reader gives it; NULL if none. */
static char *reader_line(unsigned rank)
{
	int err = 0;
	hist_reader *r = hist_reader_create(ev, rank, &err);
	char *s = r ? strdup(hist_reader_info(r)->trigger) : NULL;

	hist_reader_destroy(r);
	return s;
}

/*
 * Reading every hist of an event, in order (the hist file's sections, JSON,
 * OpenMetrics, hist-replay's checks), walks the list once: 8,000 hists on
 * one event took 62% of a replay in hist_reader_create()'s walk from the
 * head for each.  The readers still find each hist where the trigger file
 * lists it, after removals, past generic triggers, and out of order.
 */
static void test_many_readers(void)
{
	struct t_text t = { 0 };
	unsigned i, n = 0;
	uint64_t steps;
	char *line, *p;

	setup(false);
	T_EQ(hist_trigger_parse(ev, "traceoff", NULL), 0);
	for (i = 0; i < N; i++) {
		T_EQ(cmd(i, false), 0);
		if (i % 500 == 7)
			T_EQ(hist_trigger_parse(ev, i % 1000 == 7 ? "snapshot" : "stacktrace",
						NULL), i < 1000 ? 0 : -HIST_EEXIST);
	}
	for (i = 0; i < N; i += 5)
		T_EQ(cmd(i, true), 0);
	T_EQU(hist_event_nr_hists(ev), N - (N + 4) / 5);
	T_EQ(hist_event_print_triggers(ev, t_text_write, &t), 0);
	steps = ctx->nth_steps;
	/* each hist's line, in the trigger file's order (generic ones are
	 * not hists) */
	for (p = t.s; p && *p; p = strchr(p, '\n') + 1) {
		size_t len = strcspn(p, "\n");

		if (strncmp(p, "hist:", 5))
			continue;
		line = reader_line(n++);
		T_ASSERT(line && !strncmp(p, line, strlen(line)) &&
			 len == strlen(line) + strlen(" [active]"));
		free(line);
	}
	T_EQU(n, hist_event_nr_hists(ev));
	T_ASSERT(reader_line(n) == NULL);
	printf("# %u hists read in order: %llu list steps\n", n,
	       (unsigned long long)(ctx->nth_steps - steps));
	T_ASSERT(ctx->nth_steps - steps <= 3 * (uint64_t)hist__tlist_len(ev));
	/* backwards still finds each (a walk from the head each time) */
	for (i = n; i-- > n - 3;) {
		char *fwd = reader_line(i);

		T_ASSERT(fwd != NULL);
		free(fwd);
	}
	/* an edit forgets the place: the first hist is removed, the next
	 * one is hist 0 now */
	line = reader_line(1);
	T_EQ(cmd(1, true), 0);
	p = reader_line(0);
	T_ASSERT(line && p && !strcmp(line, p));
	free(line);
	free(p);
	free(t.s);
	teardown();
}

int main(void)
{
	T_RUN(test_many_triggers);
	T_RUN(test_many_triggers_sync);
	T_RUN(test_compaction);
	T_RUN(test_many_vars);
	T_RUN(test_many_named);
	T_RUN(test_many_readers);
	return T_DONE();
}
