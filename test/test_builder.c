/* SPDX-License-Identifier: MIT */
/*
 * The programmatic builder (hist_builder_*).  Each case builds a trigger
 * by calls on one context and writes the equivalent text on another; both
 * get the same records, and the trigger files, the hist files and the
 * error_log must be byte for byte the same.  Then the builder's own
 * checks: arguments, limits, the order of filter pieces, and the
 * pause/cont/clear/remove commands reaching the trigger the text made.
 */
#include <stdlib.h>

#include "harness.h"
#include "libhist.h"
#include "test_events.h"

static int find_event(void *data, const char *sys, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	if (strcmp(sys, "sched") ||
	    (strcmp(name, "sched_switch") && strcmp(name, "sched_waking")))
		return -HIST_ENOENT;
	out->fields = switch_fields;
	out->nr_fields = sizeof(switch_fields) / sizeof(switch_fields[0]);
	out->id = name[6] == 's' ? 1 : 2;
	return 0;
}

static int host_sym(void *data, uint64_t addr, int with_offset, char *buf,
		    size_t len)
{
	(void)data;
	return with_offset ? snprintf(buf, len, "f%llu+0x0/0x10", (unsigned long long)addr)
			   : snprintf(buf, len, "f%llu", (unsigned long long)addr);
}

static const struct hist_host host = { .find_event = find_event, .sym = host_sym };

struct pair {
	hist_ctx *ctx[2];		/* 0: text, 1: builder */
	hist_event *sw[2], *wk[2];
};

static void pair_init(struct pair *p)
{
	int i, err;

	for (i = 0; i < 2; i++) {
		p->ctx[i] = hist_ctx_create(&host, NULL, &err);
		p->sw[i] = hist_event_lookup(p->ctx[i], "sched", "sched_switch");
		p->wk[i] = hist_event_lookup(p->ctx[i], "sched", "sched_waking");
	}
}

static void pair_fini(struct pair *p)
{
	hist_ctx_destroy(p->ctx[0]);
	hist_ctx_destroy(p->ctx[1]);
}

/* A sched_switch-shaped record; WAKING: only pid/comm matter. */
static void feed(struct pair *p, int waking, const char *comm, int32_t pid,
		 int32_t prio, int64_t state, uint64_t ts)
{
	unsigned char r[64];
	struct hist_hit h;
	int i;

	memset(r, 0, sizeof(r));
	memcpy(r + 4, &pid, 4);
	strncpy((char *)r + 8, comm, 15);
	memcpy(r + 24, &pid, 4);
	memcpy(r + 28, &prio, 4);
	memcpy(r + 32, &state, 8);
	strncpy((char *)r + 40, comm, 15);
	memcpy(r + 56, &pid, 4);
	memcpy(r + 60, &prio, 4);
	memset(&h, 0, sizeof(h));
	h.ts = ts;
	h.pid = -1;
	for (i = 0; i < 2; i++)
		hist_event_hit(waking ? p->wk[i] : p->sw[i], r, sizeof(r), &h);
}

static void feed_some(struct pair *p)
{
	static const char *const comms[] = { "sh", "cat", "bash", "sshd", "kworker/0:1" };
	uint64_t ts = 1000000;
	int k;

	for (k = 0; k < 60; k++) {
		const char *c = comms[k % 5];
		int32_t pid = 100 + (k % 7);

		feed(p, 1, c, pid, 120, 0, ts);
		ts += 1000 + (uint64_t)(k * 37 % 900) * 1000;
		feed(p, 0, c, pid, 100 + k % 40, k % 3, ts);
		ts += 5000;
	}
}

/* The trigger files, hist files and error_logs of both sides agree. */
static void expect_same(struct pair *p, const char *what)
{
	static struct buf a, b;
	hist_event *evs[2][2] = { { p->sw[0], p->wk[0] }, { p->sw[1], p->wk[1] } };
	int e, kind;

	for (e = 0; e < 2; e++) {
		for (kind = 0; kind < 3; kind++) {
			a.n = b.n = 0;
			a.s[0] = b.s[0] = 0;
			if (kind == 0) {
				hist_event_print_triggers(evs[0][e], buf_write, &a);
				hist_event_print_triggers(evs[1][e], buf_write, &b);
			} else if (kind == 1) {
				hist_event_print_hist(evs[0][e], buf_write, &a);
				hist_event_print_hist(evs[1][e], buf_write, &b);
			} else {
				hist_ctx_print_error_log(p->ctx[0], buf_write, &a);
				hist_ctx_print_error_log(p->ctx[1], buf_write, &b);
			}
			if (strcmp(a.s, b.s))
				printf("# %s: %s of %s differs\n", what,
				       kind == 0 ? "trigger" : kind == 1 ? "hist" : "error_log",
				       e ? "sched_waking" : "sched_switch");
			T_STREQ(b.s, a.s);
		}
	}
}

static void test_keys_values_sort_filter(void)
{
	struct pair p;
	hist_builder *b;
	int err;
	const char *text = "hist:keys=prev_comm,next_pid.hex:vals=hitcount,prev_prio.percent:"
			   "sort=hitcount.descending,prev_comm:size=256 if prev_pid > 100 && "
			   "!(next_comm ~ \"ss*\" || prev_prio >= 130)";

	pair_init(&p);
	T_EQ(hist_trigger_parse(p.sw[0], text, NULL), 0);
	b = hist_builder_create(p.sw[1], &err);
	T_ASSERT(b && !err);
	T_EQ(hist_builder_add_key(b, "prev_comm", HIST_MOD_NONE, 0), 0);
	T_EQ(hist_builder_add_key(b, "next_pid", HIST_MOD_HEX, 0), 0);
	T_EQ(hist_builder_add_value(b, "hitcount", HIST_MOD_NONE), 0);
	T_EQ(hist_builder_add_value(b, "prev_prio", HIST_MOD_PERCENT), 0);
	T_EQ(hist_builder_add_sort_key(b, "hitcount", 1), 0);
	T_EQ(hist_builder_add_sort_key(b, "prev_comm", 0), 0);
	T_EQ(hist_builder_set_size(b, 256), 0);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_COMPARE, "prev_pid", ">", "100"), 0);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_AND, NULL, NULL, NULL), 0);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_NOT, NULL, NULL, NULL), 0);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_OPEN, NULL, NULL, NULL), 0);
	/* unfinished: no text yet */
	T_ASSERT(hist_builder_text(b, HIST_CMD_START, &err) == NULL);
	T_EQ(err, -HIST_EINVAL);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_COMPARE, "next_comm", "~", "\"ss*\""), 0);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_OR, NULL, NULL, NULL), 0);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_COMPARE, "prev_prio", ">=", "130"), 0);
	T_ASSERT(hist_builder_text(b, HIST_CMD_START, &err) == NULL);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_CLOSE, NULL, NULL, NULL), 0);
	T_STREQ(hist_builder_text(b, HIST_CMD_START, &err), text);
	T_EQ(err, 0);
	T_EQ(hist_builder_command(b, HIST_CMD_START, NULL), 0);
	feed_some(&p);
	expect_same(&p, "keys/values/sort/filter");

	/* the builder's pause, cont, clear and remove reach the trigger */
	T_STREQ(hist_builder_text(b, HIST_CMD_PAUSE, NULL),
		"hist:keys=prev_comm,next_pid.hex:vals=hitcount,prev_prio.percent:"
		"sort=hitcount.descending,prev_comm:size=256:pause if prev_pid > 100 && "
		"!(next_comm ~ \"ss*\" || prev_prio >= 130)");
	T_EQ(hist_builder_command(b, HIST_CMD_PAUSE, NULL), 0);
	T_EQ(hist_trigger_parse(p.sw[0], "hist:keys=prev_comm,next_pid.hex:vals=hitcount,"
				"prev_prio.percent:sort=hitcount.descending,prev_comm:"
				"size=256:pause if prev_pid > 100 && !(next_comm ~ \"ss*\" "
				"|| prev_prio >= 130)", NULL), 0);
	feed_some(&p);		/* not counted while paused */
	expect_same(&p, "paused");
	T_EQ(hist_builder_command(b, HIST_CMD_CONT, NULL), 0);
	T_EQ(hist_builder_command(b, HIST_CMD_CLEAR, NULL), 0);
	T_EQ(hist_trigger_parse(p.sw[0], "hist:keys=prev_comm,next_pid.hex:vals=hitcount,"
				"prev_prio.percent:sort=hitcount.descending,prev_comm:"
				"size=256:clear if prev_pid > 100 && !(next_comm ~ \"ss*\" "
				"|| prev_prio >= 130)", NULL), 0);
	T_EQ(hist_trigger_parse(p.sw[0], "hist:keys=prev_comm,next_pid.hex:vals=hitcount,"
				"prev_prio.percent:sort=hitcount.descending,prev_comm:"
				"size=256:cont if prev_pid > 100 && !(next_comm ~ \"ss*\" "
				"|| prev_prio >= 130)", NULL), 0);
	feed_some(&p);
	expect_same(&p, "cleared");
	T_EQ(hist_builder_command(b, HIST_CMD_REMOVE, NULL), 0);
	T_EQ(hist_event_nr_hists(p.sw[1]), 0);
	hist_builder_destroy(b);
	pair_fini(&p);
}

static void test_modifiers_and_attrs(void)
{
	struct pair p;
	hist_builder *b;
	const char *t1 = "hist:name=shared:keys=prev_state.buckets=2,next_prio.log2,"
			 "common_pid.sym-offset:vals=prev_prio.graph:sort=next_prio";
	const char *t2 = "hist:keys=common_pid.execname:vals=prev_prio,next_prio:"
			 "sort=next_prio.descending:nohitcount";

	pair_init(&p);
	T_EQ(hist_trigger_parse(p.sw[0], t1, NULL), 0);
	T_EQ(hist_trigger_parse(p.sw[0], t2, NULL), 0);
	b = hist_builder_create(p.sw[1], NULL);
	T_EQ(hist_builder_set_name(b, "shared"), 0);
	T_EQ(hist_builder_add_key(b, "prev_state", HIST_MOD_BUCKETS, 2), 0);
	T_EQ(hist_builder_add_key(b, "next_prio", HIST_MOD_LOG2, 0), 0);
	T_EQ(hist_builder_add_key(b, "common_pid", HIST_MOD_SYM_OFFSET, 0), 0);
	T_EQ(hist_builder_add_value(b, "prev_prio", HIST_MOD_GRAPH), 0);
	T_EQ(hist_builder_add_sort_key(b, "next_prio", 0), 0);
	T_STREQ(hist_builder_text(b, HIST_CMD_START, NULL), t1);
	T_EQ(hist_builder_command(b, HIST_CMD_START, NULL), 0);
	hist_builder_destroy(b);
	b = hist_builder_create(p.sw[1], NULL);
	T_EQ(hist_builder_add_key(b, "common_pid", HIST_MOD_EXECNAME, 0), 0);
	T_EQ(hist_builder_add_value(b, "prev_prio", HIST_MOD_NONE), 0);
	T_EQ(hist_builder_add_value(b, "next_prio", HIST_MOD_NONE), 0);
	T_EQ(hist_builder_add_sort_key(b, "next_prio", 1), 0);
	T_EQ(hist_builder_set_nohitcount(b, 1), 0);
	T_STREQ(hist_builder_text(b, HIST_CMD_START, NULL), t2);
	T_EQ(hist_builder_command(b, HIST_CMD_START, NULL), 0);
	hist_builder_destroy(b);
	feed_some(&p);
	expect_same(&p, "modifiers");
	pair_fini(&p);
}

/* The kernel's wakeup-latency recipe: variables, onmatch() generating a
 * synthetic event, onmax().save() and onchange().snapshot(). */
static void test_inter_event(void)
{
	static const char *const params[] = { "$lat", "next_pid", "next_comm" };
	static const char *const saved[] = { "next_comm", "prev_pid" };
	struct pair p;
	hist_builder *b;
	hist_event *lat[2];
	int i;

	pair_init(&p);
	for (i = 0; i < 2; i++) {
		T_EQ(hist_synth_parse(p.ctx[i], "wakeup_latency u64 lat; pid_t pid; "
				      "char comm[16]", 0, NULL), 0);
		lat[i] = hist_event_lookup(p.ctx[i], "synthetic", "wakeup_latency");
	}
	T_EQ(hist_trigger_parse(p.wk[0], "hist:keys=next_pid:ts0=common_timestamp.usecs:"
				"clock=mono", NULL), 0);
	T_EQ(hist_trigger_parse(p.sw[0], "hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:"
				"clock=mono:onmatch(sched.sched_waking).trace(wakeup_latency,"
				"$lat,next_pid,next_comm):onmax($lat).save(next_comm,prev_pid):"
				"onchange($lat).snapshot()", NULL), 0);
	T_EQ(hist_trigger_parse(lat[0], "hist:keys=pid,lat:sort=lat", NULL), 0);

	b = hist_builder_create(p.wk[1], NULL);
	T_EQ(hist_builder_add_key(b, "next_pid", HIST_MOD_NONE, 0), 0);
	T_EQ(hist_builder_add_var(b, "ts0", "common_timestamp.usecs"), 0);
	T_EQ(hist_builder_set_clock(b, "mono"), 0);
	T_EQ(hist_builder_command(b, HIST_CMD_START, NULL), 0);
	hist_builder_destroy(b);
	b = hist_builder_create(p.sw[1], NULL);
	T_EQ(hist_builder_add_key(b, "next_pid", HIST_MOD_NONE, 0), 0);
	T_EQ(hist_builder_add_var(b, "lat", "common_timestamp.usecs-$ts0"), 0);
	T_EQ(hist_builder_set_clock(b, "mono"), 0);
	T_EQ(hist_builder_add_action(b, HIST_ONMATCH, "sched.sched_waking",
				     HIST_ACTION_TRACE, "wakeup_latency", params, 3), 0);
	T_EQ(hist_builder_add_action(b, HIST_ONMAX, "lat", HIST_ACTION_SAVE, NULL,
				     saved, 2), 0);
	T_EQ(hist_builder_add_action(b, HIST_ONCHANGE, "$lat", HIST_ACTION_SNAPSHOT,
				     NULL, NULL, 0), 0);
	T_STREQ(hist_builder_text(b, HIST_CMD_START, NULL),
		"hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:clock=mono:"
		"onmatch(sched.sched_waking).trace(wakeup_latency,$lat,next_pid,next_comm):"
		"onmax($lat).save(next_comm,prev_pid):onchange($lat).snapshot()");
	T_EQ(hist_builder_command(b, HIST_CMD_START, NULL), 0);
	hist_builder_destroy(b);
	b = hist_builder_create(lat[1], NULL);
	T_EQ(hist_builder_add_key(b, "pid", HIST_MOD_NONE, 0), 0);
	T_EQ(hist_builder_add_key(b, "lat", HIST_MOD_NONE, 0), 0);
	T_EQ(hist_builder_add_sort_key(b, "lat", 0), 0);
	T_EQ(hist_builder_command(b, HIST_CMD_START, NULL), 0);
	hist_builder_destroy(b);

	feed_some(&p);
	expect_same(&p, "inter-event");
	{
		static struct buf x, y;

		x.n = y.n = 0;
		hist_event_print_hist(lat[0], buf_write, &x);
		hist_event_print_hist(lat[1], buf_write, &y);
		T_STREQ(y.s, x.s);
		T_ASSERT(strstr(x.s, "Hits: 60") != NULL);	/* every switch matched */
	}
	/* the other action spelling: .wakeup_latency(...) */
	b = hist_builder_create(p.sw[1], NULL);
	T_EQ(hist_builder_add_key(b, "prev_pid", HIST_MOD_NONE, 0), 0);
	T_EQ(hist_builder_add_action(b, HIST_ONMATCH, "sched.sched_waking",
				     HIST_ACTION_SYNTH, "wakeup_latency", params, 3), 0);
	T_STREQ(hist_builder_text(b, HIST_CMD_START, NULL),
		"hist:keys=prev_pid:onmatch(sched.sched_waking).wakeup_latency($lat,"
		"next_pid,next_comm)");
	hist_builder_destroy(b);
	pair_fini(&p);
}

/* A command the grammar rejects logs the same error_log entry, caret and
 * all, whether built or written. */
static void test_same_errors(void)
{
	struct pair p;
	hist_builder *b;
	struct hist_error e0, e1;

	pair_init(&p);
	T_EQ(hist_trigger_parse(p.sw[0], "hist:keys=prev_comm:vals=no_such_field", &e0),
	     -HIST_EINVAL);
	b = hist_builder_create(p.sw[1], NULL);
	T_EQ(hist_builder_add_key(b, "prev_comm", HIST_MOD_NONE, 0), 0);
	T_EQ(hist_builder_add_value(b, "no_such_field", HIST_MOD_NONE), 0);
	T_EQ(hist_builder_command(b, HIST_CMD_START, &e1), -HIST_EINVAL);
	T_EQ(e1.code, e0.code);
	T_EQ(e1.msg, e0.msg);
	T_EQ(e1.pos, e0.pos);
	expect_same(&p, "errors");
	hist_builder_destroy(b);
	pair_fini(&p);
}

static void test_argument_checks(void)
{
	struct pair p;
	hist_builder *b;
	static const char *const bad_param[] = { "a,b" };
	static const char *const one[] = { "x" };
	struct hist_error e;
	char big[2500];
	int err;

	pair_init(&p);
	T_ASSERT(hist_builder_create(NULL, &err) == NULL);
	T_EQ(err, -HIST_EINVAL);
	b = hist_builder_create(p.sw[1], NULL);
	/* no key yet */
	T_ASSERT(hist_builder_text(b, HIST_CMD_START, &err) == NULL);
	T_EQ(err, -HIST_EINVAL);
	T_EQ(hist_builder_command(b, HIST_CMD_START, &e), -HIST_EINVAL);
	T_EQ(e.code, -HIST_EINVAL);
	/* text that would change the command's structure */
	T_EQ(hist_builder_add_key(b, "a:b", HIST_MOD_NONE, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_key(b, "a,b", HIST_MOD_NONE, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_key(b, "a b", HIST_MOD_NONE, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_key(b, "", HIST_MOD_NONE, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_key(b, NULL, HIST_MOD_NONE, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_var(b, "t s", "common_timestamp"), -HIST_EINVAL);
	T_EQ(hist_builder_add_var(b, "ts", "a=b"), -HIST_EINVAL);
	T_EQ(hist_builder_add_sort_key(b, "x.descending", 0), -HIST_EINVAL);
	T_EQ(hist_builder_set_name(b, "a:b"), -HIST_EINVAL);
	T_EQ(hist_builder_set_size(b, 0), -HIST_EINVAL);
	/* modifiers a key or a value cannot carry */
	T_EQ(hist_builder_add_key(b, "prev_prio", HIST_MOD_PERCENT, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_key(b, "prev_prio", HIST_MOD_BUCKETS, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_key(b, "prev_prio", (enum hist_mod)99, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_value(b, "prev_prio", HIST_MOD_LOG2), -HIST_EINVAL);
	T_EQ(hist_builder_add_value(b, "prev_prio", HIST_MOD_SYM), -HIST_EINVAL);
	/* limits: 3 keys, 2 values, 2 sort keys */
	T_EQ(hist_builder_add_key(b, "prev_pid", HIST_MOD_NONE, 0), 0);
	T_EQ(hist_builder_add_key(b, "next_pid", HIST_MOD_NONE, 0), 0);
	T_EQ(hist_builder_add_key(b, "prev_prio", HIST_MOD_NONE, 0), 0);
	T_EQ(hist_builder_add_key(b, "next_prio", HIST_MOD_NONE, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_value(b, "prev_state", HIST_MOD_NONE), 0);
	T_EQ(hist_builder_add_value(b, "next_prio", HIST_MOD_NONE), 0);
	T_EQ(hist_builder_add_value(b, "prev_prio", HIST_MOD_NONE), -HIST_EINVAL);
	T_EQ(hist_builder_add_value(b, "hitcount", HIST_MOD_NONE), 0);	/* not a third */
	T_EQ(hist_builder_add_value(b, "hitcount", HIST_MOD_NONE), -HIST_EINVAL);
	T_EQ(hist_builder_add_sort_key(b, "prev_pid", 0), 0);
	T_EQ(hist_builder_add_sort_key(b, "next_pid", 0), 0);
	T_EQ(hist_builder_add_sort_key(b, "hitcount", 0), -HIST_EINVAL);
	/* filter pieces in an order that is not a filter */
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_AND, NULL, NULL, NULL), -HIST_EINVAL);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_CLOSE, NULL, NULL, NULL), -HIST_EINVAL);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_COMPARE, "prev_pid", "=>", "1"),
	     -HIST_EINVAL);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_COMPARE, "prev_pid", "==", ""),
	     -HIST_EINVAL);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_COMPARE, "prev_pid", "==", "1\n"),
	     -HIST_EINVAL);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_COMPARE, "prev_pid", "==", "1"), 0);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_COMPARE, "prev_pid", "==", "1"),
	     -HIST_EINVAL);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_NOT, NULL, NULL, NULL), -HIST_EINVAL);
	T_EQ(hist_builder_append_filter(b, HIST_FILTER_CLOSE, NULL, NULL, NULL), -HIST_EINVAL);
	T_EQ(hist_builder_append_filter(b, (enum hist_filter_part)42, NULL, NULL, NULL),
	     -HIST_EINVAL);
	/* actions */
	T_EQ(hist_builder_add_action(b, HIST_ONMATCH, "sched", HIST_ACTION_TRACE, "x",
				     NULL, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_action(b, HIST_ONMATCH, "a.b.c", HIST_ACTION_TRACE, "x",
				     NULL, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_action(b, HIST_ONMATCH, "sched.sched_waking",
				     HIST_ACTION_SAVE, NULL, one, 1), -HIST_EINVAL);
	T_EQ(hist_builder_add_action(b, HIST_ONMAX, "lat", HIST_ACTION_SAVE, NULL,
				     NULL, 0), -HIST_EINVAL);
	T_EQ(hist_builder_add_action(b, HIST_ONMAX, "lat", HIST_ACTION_SNAPSHOT, NULL,
				     one, 1), -HIST_EINVAL);
	T_EQ(hist_builder_add_action(b, HIST_ONMAX, "lat", HIST_ACTION_TRACE, NULL,
				     one, 1), -HIST_EINVAL);
	T_EQ(hist_builder_add_action(b, HIST_ONCHANGE, "lat", HIST_ACTION_SAVE, NULL,
				     bad_param, 1), -HIST_EINVAL);
	T_EQ(hist_builder_add_action(b, (enum hist_handler)7, "lat", HIST_ACTION_SAVE,
				     NULL, one, 1), -HIST_EINVAL);
	/* nothing of the rejected calls made it into the command */
	T_STREQ(hist_builder_text(b, HIST_CMD_REMOVE, NULL),
		"!hist:keys=prev_pid,next_pid,prev_prio:vals=prev_state,next_prio,hitcount:"
		"sort=prev_pid,next_pid if prev_pid == 1");
	/* longer than a trigger write */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	T_EQ(hist_builder_add_var(b, "v", big), 0);
	T_ASSERT(hist_builder_text(b, HIST_CMD_START, &err) != NULL);
	T_EQ(hist_builder_add_var(b, "w", big), 0);
	T_ASSERT(hist_builder_text(b, HIST_CMD_START, &err) == NULL);
	T_EQ(err, -HIST_E2BIG);
	hist_builder_destroy(b);
	hist_builder_destroy(NULL);
	pair_fini(&p);
}

int main(void)
{
	T_RUN(test_keys_values_sort_filter);
	T_RUN(test_modifiers_and_attrs);
	T_RUN(test_inter_event);
	T_RUN(test_same_errors);
	T_RUN(test_argument_checks);
	return T_DONE();
}
