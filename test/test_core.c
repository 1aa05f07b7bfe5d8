/* SPDX-License-Identifier: MIT */
/*
 * The core's control and hit edges that the other programs do not take:
 * event definition arguments, generic triggers on a host without their
 * callbacks (the count is still taken, the state still changes), a hit
 * without hit metadata.
 */
#include "harness.h"
#include "libhist.h"
#include "test_events.h"
#include "util.h"

#include <stdlib.h>

static hist_ctx *ctx;
static hist_event *ev, *ev2;

static void setup(const struct hist_host *host)
{
	struct hist_event_desc d = { .system = "t", .name = "kv", .fields = kv_fields,
				     .nr_fields = 7 };
	struct hist_event_desc d2 = { .system = "t", .name = "other", .fields = kv_fields,
				      .nr_fields = 7 };

	ctx = hist_ctx_create(host, NULL, NULL);
	T_ASSERT(ctx != NULL);
	T_EQ(hist_event_define(ctx, &d, &ev), 0);
	T_EQ(hist_event_define(ctx, &d2, &ev2), 0);
}

static char *triggers_text(hist_event *e)
{
	struct t_text t = { 0 };

	T_EQ(hist_event_print_triggers(e, t_text_write, &t), 0);
	return t.s;
}

/* A description without a system or a name is refused; a second event of
 * the same name too, and the first one stays the one found. */
static void test_define_args(void)
{
	struct hist_host host = { 0 };
	struct hist_event_desc d = { .system = "t", .name = "kv", .fields = kv_fields,
				     .nr_fields = 7 };
	hist_event *e = NULL;

	setup(&host);
	T_EQ(hist_event_define(ctx, NULL, &e), -HIST_EINVAL);
	d.system = NULL;
	T_EQ(hist_event_define(ctx, &d, &e), -HIST_EINVAL);
	d.system = "t";
	d.name = NULL;
	T_EQ(hist_event_define(ctx, &d, &e), -HIST_EINVAL);
	d.name = "kv";
	T_EQ(hist_event_define(ctx, &d, &e), -HIST_EEXIST);
	T_ASSERT(e == NULL);
	T_ASSERT(hist_event_lookup(ctx, "t", "kv") == ev);
	hist_ctx_destroy(ctx);
}

/* Counted generic triggers on a host that has none of their callbacks:
 * each hit takes one unit until the count is used up (the trigger file
 * shows what is left, as the kernel's does), and the states they set
 * (tracing off, the target's soft disable) change all the same.  The hits
 * carry no struct hist_hit (NULL: pid from the record, no time). */
static void test_generic_without_callbacks(void)
{
	struct hist_host host = { 0 };
	struct kv_rec rec = { .pid = 7, .key = 1, .val = 2 };
	char *s;
	int i;

	setup(&host);
	T_EQ(hist_trigger_parse(ev, "snapshot:2", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "stacktrace:1", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "traceoff:1", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "disable_event:t:other:1", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=common_pid", NULL), 0);
	T_EQ(hist_trigger_parse(ev2, "hist:keys=key", NULL), 0);
	for (i = 0; i < 3; i++)
		hist_event_hit(ev, &rec, sizeof(rec), NULL);
	s = triggers_text(ev);
	T_ASSERT(s && strstr(s, "snapshot:count=0") != NULL);
	T_ASSERT(s && strstr(s, "stacktrace:count=0") != NULL);
	T_ASSERT(s && strstr(s, "traceoff:count=0") != NULL);
	T_ASSERT(s && strstr(s, "disable_event:t:other:count=0") != NULL);
	if (s && !strstr(s, "snapshot:count=0"))
		printf("%s", s);
	free(s);
	/* the hist took all three, keyed by the record's common_pid */
	{
		struct t_text t = { 0 };

		T_EQ(hist_event_print_hist(ev, t_text_write, &t), 0);
		T_ASSERT(t.s && strstr(t.s, "common_pid:          7") != NULL);
		T_ASSERT(t.s && strstr(t.s, "hitcount:          3") != NULL);
		if (t.s && !strstr(t.s, "hitcount:          3"))
			printf("%s", t.s);
		free(t.s);
	}
	/* the states changed: the opposite triggers find something to
	 * undo, so they take their count (a trigger whose state is already
	 * set does not) */
	T_EQ(hist_trigger_parse(ev, "traceon:1", NULL), -HIST_EEXIST);	/* one of a kind */
	T_EQ(hist_trigger_parse(ev2, "traceon:1", NULL), 0);
	T_EQ(hist_trigger_parse(ev2, "enable_event:t:other:1", NULL), 0);
	hist_event_hit(ev2, &rec, sizeof(rec), NULL);
	s = triggers_text(ev2);
	T_ASSERT(s && strstr(s, "traceon:count=0") != NULL);
	T_ASSERT(s && strstr(s, "enable_event:t:other:count=0") != NULL);
	free(s);
	hist_ctx_destroy(ctx);
}

/* A trigger joins a named group only with the group's shape (the
 * kernel's hist_trigger_match() with the filter ignored): each way of
 * differing is refused with the kernel's message, and a different filter
 * alone still joins (the group's one table then counts both events). */
static void test_named_shape(void)
{
	static const char *const differ[] = {
		"hist:keys=key:vals=val:sort=val:name=g",			/* keys */
		"hist:keys=key,common_pid:vals=hitcount:sort=hitcount:name=g",	/* vals */
		"hist:keys=common_pid,key:vals=val:sort=val:name=g",		/* order */
		"hist:keys=key.hex,common_pid:vals=val:sort=val:name=g",	/* .hex */
		"hist:keys=key.buckets=10,common_pid:vals=val:sort=val:name=g",	/* width */
		"hist:keys=key.log2,common_pid:vals=val:sort=val:name=g",	/* .log2 */
		"hist:keys=val,common_pid:vals=key:sort=key:name=g",		/* fields */
		"hist:keys=key,common_pid:vals=val.hex:sort=val:name=g",	/* a val's */
		"hist:keys=key,common_pid:vals=val:sort=val.descending:name=g",
		"hist:keys=key,common_pid:vals=val:sort=key:name=g",		/* sort */
		"hist:keys=key,common_pid:vals=val:sort=val,key:name=g",	/* 2 sorts */
		"hist:keys=key,common_pid:vals=val:sort=val:nohitcount:name=g",
		"hist:keys=key,common_pid:vals=val:sort=val:x=val:name=g",	/* a var */
	};
	struct hist_host host = { 0 };
	struct kv_rec rec = { .pid = 7, .key = 1, .val = 5 };
	struct hist_error err;
	struct t_text t = { 0 };
	unsigned i;

	setup(&host);
	T_EQ(hist_trigger_parse(ev, "hist:keys=key,common_pid:vals=val:sort=val:name=g",
				NULL), 0);
	for (i = 0; i < sizeof(differ) / sizeof(differ[0]); i++) {
		memset(&err, 0, sizeof(err));
		if (hist_trigger_parse(ev2, differ[i], &err) != -HIST_EINVAL ||
		    err.msg != HIST_ERR_NAMED_MISMATCH) {
			printf("# joined or other error (%d): %s\n", err.msg, differ[i]);
			T_ASSERT(0);
		}
	}
	T_EQ(hist_event_nr_hists(ev2), 0);
	T_EQ(hist_trigger_parse(ev2, "hist:keys=key,common_pid:vals=val:sort=val:name=g "
				"if val > 3", NULL), 0);
	hist_event_hit(ev, &rec, sizeof(rec), NULL);
	hist_event_hit(ev2, &rec, sizeof(rec), NULL);
	rec.val = 1;	/* ev2's filter drops it */
	hist_event_hit(ev2, &rec, sizeof(rec), NULL);
	T_EQ(hist_event_print_hist(ev, t_text_write, &t), 0);
	T_ASSERT(t.s && strstr(t.s, "hitcount:          2  val:         10") != NULL);
	if (t.s && !strstr(t.s, "hitcount:          2  val:         10"))
		printf("%s", t.s);
	free(t.s);
	hist_ctx_destroy(ctx);
}

static uint64_t fixed_clock(void *data)
{
	(void)data;
	return 7654321;
}

/* The variable of the first entry of EV's INDEX-th hist. */
static uint64_t first_var(hist_event *e, unsigned index)
{
	hist_reader *r = hist_reader_create(e, index, NULL);
	const struct hist_read_entry *x = r ? hist_reader_next(r) : NULL;
	uint64_t v = x && x->nr_vars ? x->vars[0].value : UINT64_MAX;

	hist_reader_destroy(r);
	return v;
}

/* A hit without a time stamp takes the host's clock for common_timestamp;
 * .usecs divides (rounding) only on a clock counted in ns, not on the
 * counter clock. */
static void test_timestamp_from_host_clock(void)
{
	struct hist_host host = { .clock = fixed_clock };
	struct kv_rec rec = { .pid = 7, .key = 1, .val = 2 };

	setup(&host);
	T_EQ(hist_trigger_parse(ev, "hist:keys=key:t=common_timestamp.usecs", NULL), 0);
	T_EQ(hist_trigger_parse(ev2, "hist:keys=key:t=common_timestamp.usecs:clock=counter",
				NULL), 0);
	hist_event_hit(ev, &rec, sizeof(rec), NULL);
	hist_event_hit(ev2, &rec, sizeof(rec), NULL);
	T_EQU(first_var(ev, 0), 7654);
	T_EQU(first_var(ev2, 0), 7654321);
	hist_ctx_destroy(ctx);
}

int main(void)
{
	T_RUN(test_define_args);
	T_RUN(test_generic_without_callbacks);
	T_RUN(test_named_shape);
	T_RUN(test_timestamp_from_host_clock);
	return T_DONE();
}
