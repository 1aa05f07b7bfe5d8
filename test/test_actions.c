/* SPDX-License-Identifier: MIT */
/*
 * Inter-event histograms through the public API: variables and their
 * rules, references, expressions, field variables, synthetic events,
 * onmatch/onmax/onchange with trace/save/snapshot, the wakeup-latency chain
 * end to end, hist_debug, and bad inter-event commands with their exact
 * error_log text and caret.
 */
#include "harness.h"
#include "libhist.h"
#include "test_events.h"

#include <stdlib.h>


static int find_event(void *data, const char *sys, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	if (strcmp(sys, "sched"))
		return -HIST_ENOENT;
	if (!strcmp(name, "sched_switch")) {
		out->fields = switch_fields;
		out->nr_fields = sizeof(switch_fields) / sizeof(switch_fields[0]);
		return 0;
	}
	if (!strcmp(name, "sched_waking") || !strcmp(name, "sched_wakeup")) {
		out->fields = waking_fields;
		out->nr_fields = sizeof(waking_fields) / sizeof(waking_fields[0]);
		return 0;
	}
	return -HIST_ENOENT;
}

static uint64_t host_clock(void *data)
{
	(void)data;
	return 7000000000ull;
}

/* generated synthetic records */
static struct {
	int n;
	uint8_t rec[8][512];
	size_t len[8];
} synth_seen;

static void host_synth(void *data, hist_event *ev, const void *rec, size_t len,
		       const struct hist_hit *hit)
{
	(void)data;
	(void)ev;
	(void)hit;
	if (synth_seen.n < 8 && len <= 512) {
		memcpy(synth_seen.rec[synth_seen.n], rec, len);
		synth_seen.len[synth_seen.n++] = len;
	}
}

static int snapshots;

static void host_snapshot(void *data, hist_event *ev, const struct hist_hit *hit)
{
	(void)data;
	(void)ev;
	(void)hit;
	snapshots++;
}

static const struct hist_host test_host = {
	.find_event = find_event,
	.clock = host_clock,
	.synth_event = host_synth,
	.snapshot = host_snapshot,
};


typedef int (*printer)(hist_event *, hist_write_fn, void *);

static const char *print_ev(hist_event *ev, printer p)
{
	static struct buf b;

	b.n = 0;
	b.s[0] = 0;
	p(ev, buf_write, &b);
	return b.s;
}

static const char *errlog(hist_ctx *ctx)
{
	static struct buf b;
	static char out[65536];
	const char *p;
	size_t n = 0;

	b.n = 0;
	b.s[0] = 0;
	hist_ctx_print_error_log(ctx, buf_write, &b);
	for (p = b.s; *p;) {
		if (*p == '[' && (p == b.s || p[-1] == '\n')) {
			p = strstr(p, "] ") + 2;
			continue;
		}
		out[n++] = *p++;
	}
	out[n] = 0;
	return out;
}

static hist_ctx *new_ctx(void)
{
	int err;
	hist_ctx *ctx = hist_ctx_create(&test_host, NULL, &err);

	if (!ctx)
		exit(1);
	memset(&synth_seen, 0, sizeof(synth_seen));
	snapshots = 0;
	return ctx;
}

static hist_event *ev_of(hist_ctx *ctx, const char *name)
{
	return hist_event_lookup(ctx, "sched", name);
}

static void waking(hist_event *ev, int pid, int prio, const char *comm, uint64_t ts)
{
	uint8_t r[36];
	struct hist_hit h = { .ts = ts, .cpu = 0, .pid = -1 };

	memset(r, 0, sizeof(r));
	strncpy((char *)r + 8, comm, 16);
	memcpy(r + 24, &pid, 4);
	memcpy(r + 28, &prio, 4);
	hist_event_hit(ev, r, sizeof(r), &h);
}

static void sswitch(hist_event *ev, int prev_pid, const char *prev_comm, int next_pid,
		    const char *next_comm, int next_prio, uint64_t ts)
{
	uint8_t r[64];
	struct hist_hit h = { .ts = ts, .cpu = 1, .pid = -1 };
	int prio = 120;

	memset(r, 0, sizeof(r));
	memcpy(r + 4, &prev_pid, 4);
	strncpy((char *)r + 8, prev_comm, 16);
	memcpy(r + 24, &prev_pid, 4);
	memcpy(r + 28, &prio, 4);
	strncpy((char *)r + 40, next_comm, 16);
	memcpy(r + 56, &next_pid, 4);
	memcpy(r + 60, &next_prio, 4);
	hist_event_hit(ev, r, sizeof(r), &h);
}

/* The wakeup-latency chain of the kernel's documentation: three triggers
 * and a synthetic event with its own histogram. */
static void test_wakeup_latency_chain(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *wk = ev_of(ctx, "sched_waking"), *sw = ev_of(ctx, "sched_switch");
	hist_event *lat;
	const char *t;

	T_EQ(hist_synth_parse(ctx, "wakeup_latency u64 lat; pid_t pid; int prio; char comm[16]", 0, NULL), 0);
	lat = hist_event_lookup(ctx, "synthetic", "wakeup_latency");
	T_ASSERT(lat != NULL);
	T_EQ(hist_trigger_parse(wk, "hist:keys=pid:ts0=common_timestamp.usecs:p0=prio", NULL), 0);
	T_EQ(hist_trigger_parse(sw, "hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:"
				    "onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,$p0,next_comm)",
				NULL), 0);
	T_EQ(hist_trigger_parse(lat, "hist:keys=pid,lat:sort=pid,lat", NULL), 0);
	/* the synthetic event is busy now */
	T_EQ(hist_synth_parse(ctx, "!wakeup_latency", 0, NULL), -HIST_EBUSY);

	waking(wk, 100, 120, "sleep", 1000000);		/* 1000 us */
	waking(wk, 200, 110, "cat", 2000000);		/* 2000 us */
	sswitch(sw, 0, "swapper", 100, "sleep", 120, 1250400);	/* +250 us */
	sswitch(sw, 0, "swapper", 100, "sleep", 120, 1300000);	/* consumed: nothing */
	sswitch(sw, 0, "swapper", 300, "bash", 120, 1400000);	/* no waking */
	sswitch(sw, 0, "swapper", 200, "cat", 110, 2000700);	/* +1 us (rounded) */
	waking(wk, 100, 120, "sleep", 3000000);
	sswitch(sw, 0, "swapper", 100, "sleep", 120, 3000100);	/* +0 us */

	T_EQ(synth_seen.n, 3);
	{
		uint64_t v;
		int32_t pid;

		/* layout: 8-byte header, u64 lat, pid in an 8-byte slot, prio,
		 * then the 16-char comm in a 256-byte slot */
		memcpy(&v, synth_seen.rec[0] + 8, 8);
		T_EQU(v, 250);
		memcpy(&pid, synth_seen.rec[0] + 16, 4);
		T_EQ(pid, 100);
		memcpy(&pid, synth_seen.rec[0] + 24, 4);
		T_EQ(pid, 120);
		T_STREQ((const char *)synth_seen.rec[0] + 32, "sleep");
		memcpy(&v, synth_seen.rec[1] + 8, 8);
		T_EQU(v, 1);
	}
	t = print_ev(lat, hist_event_print_hist);
	T_STREQ(t, "# event histogram\n#\n"
		   "# trigger info: hist:keys=pid,lat:vals=hitcount:sort=pid,lat:size=2048 [active]\n"
		   "#\n\n"
		   "{ pid:        100, lat:          0 } hitcount:          1\n"
		   "{ pid:        100, lat:        250 } hitcount:          1\n"
		   "{ pid:        200, lat:          1 } hitcount:          1\n"
		   "\nTotals:\n    Hits: 3\n    Entries: 3\n    Dropped: 0\n");
	t = print_ev(sw, hist_event_print_triggers);
	T_STREQ(t, "hist:keys=next_pid:vals=hitcount:wakeup_lat=common_timestamp.usecs-$ts0:sort=hitcount:"
		   "size=2048:clock=global:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,$p0,next_comm) [active]\n");
	/* the switch histogram counts only events whose $ts0 resolved */
	T_ASSERT(strstr(print_ev(sw, hist_event_print_hist), "    Hits: 3\n    Entries: 2\n") != NULL);
	/* removal order: the referencing trigger first */
	T_EQ(hist_trigger_parse(wk, "!hist:keys=pid:ts0=common_timestamp.usecs:p0=prio", NULL), -HIST_EBUSY);
	T_EQ(hist_trigger_parse(sw, "!hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:"
				    "onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,$p0,next_comm)",
				NULL), 0);
	T_EQ(hist_trigger_parse(wk, "!hist:keys=pid:ts0=common_timestamp.usecs:p0=prio", NULL), 0);
	T_EQ(hist_trigger_parse(lat, "!hist:keys=pid,lat:sort=pid,lat", NULL), 0);
	T_EQ(hist_synth_parse(ctx, "!wakeup_latency", 0, NULL), 0);
	hist_ctx_destroy(ctx);
}

static void test_onmax_save(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *wk = ev_of(ctx, "sched_waking"), *sw = ev_of(ctx, "sched_switch");
	const char *t;

	T_EQ(hist_trigger_parse(wk, "hist:keys=pid:ts0=common_timestamp.usecs", NULL), 0);
	T_EQ(hist_trigger_parse(sw, "hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:"
				    "onmax($lat).save(next_comm,prev_pid,prev_comm)", NULL), 0);
	waking(wk, 7, 120, "a", 1000000);
	sswitch(sw, 1, "idle1", 7, "worker", 120, 1500000);	/* 500 us: max */
	waking(wk, 7, 120, "a", 2000000);
	sswitch(sw, 2, "idle2", 7, "worker", 120, 2100000);	/* 100 us */
	waking(wk, 7, 120, "a", 3000000);
	sswitch(sw, 3, "idle3", 7, "worker2", 120, 3900000);	/* 900 us: max */
	t = print_ev(sw, hist_event_print_hist);
	T_ASSERT(strstr(t, "{ next_pid:          7 } hitcount:          3\n"
			   "\tmax:        900  next_comm: worker2                           prev_pid:          3"
			   "  prev_comm: idle3                           \n") != NULL);
	T_ASSERT(strstr(t, ":onmax($lat).save(next_comm,prev_pid,prev_comm) [active]") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_onchange_snapshot(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *wk = ev_of(ctx, "sched_waking");
	const char *t;

	T_EQ(hist_trigger_parse(wk, "hist:keys=comm:newprio=prio:onchange($newprio).save(comm,prio):"
				    "onchange($newprio).snapshot()", NULL), 0);
	waking(wk, 1, 120, "x", 1);
	waking(wk, 1, 120, "x", 2);
	waking(wk, 1, 100, "x", 3);
	T_EQ(snapshots, 2);
	t = print_ev(wk, hist_event_print_hist);
	T_ASSERT(strstr(t, "\tchanged:        100  comm: x                                 prio:        100\n") != NULL);
	T_ASSERT(strstr(t, "\nSnapshot taken (see tracing/snapshot).  Details:\n"
			   "\ttriggering value { onchange($newprio) }:        100"
			   "\ttriggered by event with key: { comm: x") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_onmax_trace(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *wk = ev_of(ctx, "sched_waking");

	T_EQ(hist_synth_parse(ctx, "max_prio int prio; pid_t pid", 0, NULL), 0);
	T_EQ(hist_trigger_parse(wk, "hist:keys=comm:pr=prio:onmax($pr).trace(max_prio,$pr,pid)", NULL), 0);
	waking(wk, 1, 100, "x", 1);
	waking(wk, 2, 90, "x", 2);
	waking(wk, 3, 110, "x", 3);
	T_EQ(synth_seen.n, 2);
	hist_ctx_destroy(ctx);
}

static void test_variable_rules(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *wk = ev_of(ctx, "sched_waking"), *sw = ev_of(ctx, "sched_switch");
	const char *t;

	/* constants fold; aliases and qualified refs print as written */
	T_EQ(hist_trigger_parse(wk, "hist:keys=pid:ts0=common_timestamp:a=10/3,b=1+2*3", NULL), 0);
	T_ASSERT(strstr(print_ev(wk, hist_event_print_triggers),
			"ts0=common_timestamp,a=4,b=7:sort=") != NULL);
	T_EQ(hist_trigger_parse(sw, "hist:keys=next_pid:t=sched.sched_waking.$ts0:d=common_timestamp-sched.sched_waking.$ts0", NULL), 0);
	t = print_ev(sw, hist_event_print_triggers);
	/* 6.1 and 6.12 spell a qualified reference $sys.event.var, and a
	 * second reference to a variable as the first (k10) */
	T_ASSERT(strstr(t, "t=sched.sched_waking.$ts0") == NULL);
	T_ASSERT(strstr(t, "t=$sched.sched_waking.ts0,d=common_timestamp-$sched.sched_waking.ts0") != NULL);
	/* a plain alias does not consume; the expression does */
	waking(wk, 5, 1, "a", 1000);
	sswitch(sw, 0, "i", 5, "a", 1, 5000);
	sswitch(sw, 0, "i", 5, "a", 1, 6000);
	T_ASSERT(strstr(print_ev(sw, hist_event_print_hist), "{ next_pid:          5 } hitcount:          1\n") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_field_var_hist_on_other_event(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *wk = ev_of(ctx, "sched_waking"), *sw = ev_of(ctx, "sched_switch");
	const char *t;

	T_EQ(hist_synth_parse(ctx, "wl u64 lat; int prio", 0, NULL), 0);
	T_EQ(hist_trigger_parse(wk, "hist:keys=pid:ts0=common_timestamp if comm==\"x\"", NULL), 0);
	T_EQ(hist_trigger_parse(sw, "hist:keys=next_pid:l=common_timestamp-$ts0:"
				    "onmatch(sched.sched_waking).wl($l,sched.sched_waking.prio)", NULL), 0);
	t = print_ev(wk, hist_event_print_triggers);
	T_ASSERT(strstr(t, "hist:keys=pid:vals=hitcount:synthetic_prio=prio:sort=hitcount:size=2048 if comm==\"x\" [active]\n") != NULL);
	waking(wk, 9, 77, "x", 100);
	sswitch(sw, 0, "i", 9, "x", 1, 150);
	T_EQ(synth_seen.n, 1);
	{
		int32_t prio;

		memcpy(&prio, synth_seen.rec[0] + 16, 4);
		T_EQ(prio, 77);
	}
	/* removing the owner removes the hidden histogram too */
	T_EQ(hist_trigger_parse(sw, "!hist:keys=next_pid:l=common_timestamp-$ts0:"
				    "onmatch(sched.sched_waking).wl($l,sched.sched_waking.prio)", NULL), 0);
	T_ASSERT(strstr(print_ev(wk, hist_event_print_triggers), "synthetic_prio") == NULL);
	hist_ctx_destroy(ctx);
}

static void test_hist_debug(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *wk = ev_of(ctx, "sched_waking");
	const char *t;

	T_EQ(hist_trigger_parse(wk, "hist:keys=pid:waking_pid=pid:ts0=common_timestamp.usecs", NULL), 0);
	t = print_ev(wk, hist_event_print_hist_debug);
	T_ASSERT(strstr(t, "  n_vals: 3\n  n_keys: 1\n  n_fields: 4\n") != NULL);
	T_ASSERT(strstr(t, "    hist_data->fields[1]:\n      flags:\n        HIST_FIELD_FL_VAR\n"
			   "      ftrace_event_field name: pid\n      var.name: waking_pid\n"
			   "      var.idx (into tracing_map_elt.vars[]): 0\n      type: pid_t\n"
			   "      size: 4\n      is_signed: 1\n") != NULL);
	T_ASSERT(strstr(t, "  key fields:\n\n    hist_data->fields[3]:\n      flags:\n        HIST_FIELD_FL_KEY\n"
			   "      ftrace_event_field name: pid\n      type: pid_t\n      size: 8\n") != NULL);
	hist_ctx_destroy(ctx);
}

struct bad {
	const char *event;
	const char *setup[4];
	const char *cmd;
	int code;
	const char *log;
};

static const struct bad bad[] = {
#include "actions_bad.inc"
};

static void test_bad_inter_event(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad *b = &bad[i];
		hist_ctx *ctx = new_ctx();
		hist_event *ev = ev_of(ctx, strchr(b->event, '/') + 1);
		int k, ret;

		T_EQ(hist_synth_parse(ctx, "wakeup_latency u64 lat; pid_t pid", 0, NULL), 0);
		for (k = 0; b->setup[k]; k++) {
			const char *tab = strchr(b->setup[k], '\t');
			char name[64];

			memcpy(name, b->setup[k] + 6, (size_t)(tab - b->setup[k] - 6));
			name[tab - b->setup[k] - 6] = 0;
			if (hist_trigger_parse(ev_of(ctx, name), tab + 1, NULL))
				T_FAILF("setup failed: %s", b->setup[k]);
		}
		hist_ctx_clear_error_log(ctx);
		ret = hist_trigger_parse(ev, b->cmd, NULL);
		if (ret != b->code)
			T_FAILF("%s: returned %d, expected %d", b->cmd, ret, b->code);
		if (strcmp(errlog(ctx), b->log))
			T_FAILF("%s:\n%s\nexpected\n%s", b->cmd, errlog(ctx), b->log);
		hist_ctx_destroy(ctx);
	}
	T_ASSERT(i >= 30);
}

int main(void)
{
	T_RUN(test_wakeup_latency_chain);
	T_RUN(test_onmax_save);
	T_RUN(test_onchange_snapshot);
	T_RUN(test_onmax_trace);
	T_RUN(test_variable_rules);
	T_RUN(test_field_var_hist_on_other_event);
	T_RUN(test_hist_debug);
	T_RUN(test_bad_inter_event);
	return T_DONE();
}
