/* SPDX-License-Identifier: MIT */
/*
 * Fault injection: an allocator (hist_set_allocator) that fails exactly
 * the Nth allocation, walked over every N of a scenario that creates a
 * context, defines synthetic events (the command grammar and the in-code
 * API), parses triggers of every kind, compiles filters, feeds records,
 * prints every file, removes everything again and destroys the context.
 *
 * For every N:
 *   - a failing call returns a negative errno (constructors NULL) and
 *     leaves no trace: running the same call again, with the allocator
 *     healthy, gives exactly what the fault-free run gave;
 *   - the hist, trigger and synthetic_events files printed at the end are
 *     byte for byte those of the fault-free run;
 *   - after hist_ctx_destroy() every allocation has been freed (counted
 *     here, and checked again by LSan under `make check-asan`);
 *   - hist_event_hit() never allocates.
 * The walk runs twice: without a host synchronize callback (removals are
 * retired until hist_ctx_reclaim/destroy) and with one (freed at once).
 */
#include "harness.h"
#include "libhist.h"
#include "hist_synth.h"
#include "test_events.h"

#include <stdlib.h>

/* ---- the allocator ------------------------------------------------------ */

static struct {
	long count;	/* allocations so far */
	long fail_at;	/* fail this one (1-based); 0: never */
	long live;	/* allocated and not yet freed */
	long failed;
} fa;

static void *fa_alloc(void *data, size_t size)
{
	void *p;

	(void)data;
	if (++fa.count == fa.fail_at) {
		fa.failed++;
		return NULL;
	}
	p = calloc(1, size);
	if (p)
		fa.live++;
	return p;
}

static void fa_free(void *data, void *p)
{
	(void)data;
	fa.live--;
	free(p);
}

static const struct hist_allocator fa_allocator = { fa_alloc, fa_free, NULL };

/* ---- the host ----------------------------------------------------------- */

#define NF(a) (uint32_t)(sizeof(a) / sizeof(a[0]))

static int find_event(void *data, const char *sys, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	if (!strcmp(sys, "sched") && !strcmp(name, "sched_switch")) {
		out->fields = switch_fields;
		out->nr_fields = NF(switch_fields);
		return 0;
	}
	if (!strcmp(sys, "sched") && !strcmp(name, "sched_waking")) {
		out->fields = waking_fields;
		out->nr_fields = NF(waking_fields);
		return 0;
	}
	if (!strcmp(sys, "kmem") && !strcmp(name, "kmalloc")) {
		out->fields = kmalloc_fields;
		out->nr_fields = NF(kmalloc_fields);
		return 0;
	}
	return -HIST_ENOENT;
}

static int host_comm(void *data, int32_t pid, char comm[16])
{
	(void)data;
	snprintf(comm, 16, "task%d", (int)pid);
	return 0;
}

static int host_sym(void *data, uint64_t addr, int with_offset, char *buf, size_t len)
{
	(void)data;
	(void)with_offset;
	return snprintf(buf, len, "fn_%llx", (unsigned long long)(addr & 0xfff));
}

static unsigned host_stack(void *data, const struct hist_hit *hit, uint64_t *ips,
			   unsigned max)
{
	unsigned i;

	(void)data;
	for (i = 0; i < 3 && i < max; i++)
		ips[i] = 0xffffffff81000000ull + 16 * (hit->ts % 4) + i;
	return i;
}

static int synced;

static void host_synchronize(void *data)
{
	(void)data;
	synced++;
}

static void host_synth_event(void *data, hist_event *ev, const void *rec, size_t len,
			     const struct hist_hit *hit)
{
	(void)data;
	(void)ev;
	(void)rec;
	(void)len;
	(void)hit;
}

/* ---- the scenario ------------------------------------------------------- */

struct st {
	hist_ctx *ctx;
	hist_event *sw, *wk, *km, *syn;
	hist_filter *filter;
	int use_sync;
	struct buf out;	/* what the final prints wrote */
};

static int st_ctx(struct st *s)
{
	struct hist_host host = {
		.find_event = find_event,
		.comm = host_comm,
		.sym = host_sym,
		.stacktrace = host_stack,
		.synth_event = host_synth_event,
		.synchronize = s->use_sync ? host_synchronize : NULL,
	};
	int err = 1;

	s->ctx = hist_ctx_create(&host, NULL, &err);
	if (!s->ctx)
		return err < 0 ? err : -1000;
	return 0;
}

static int st_lookup(struct st *s)
{
	if (!s->sw)
		s->sw = hist_event_lookup(s->ctx, "sched", "sched_switch");
	if (!s->wk)
		s->wk = hist_event_lookup(s->ctx, "sched", "sched_waking");
	if (!s->km)
		s->km = hist_event_lookup(s->ctx, "kmem", "kmalloc");
	return s->sw && s->wk && s->km ? 0 : -HIST_ENOMEM;
}

static int st_synth_cmds(struct st *s)
{
	return hist_synth_parse(s->ctx, "wakeup_latency u64 lat; pid_t pid; char comm[16]",
				0, NULL);
}

static int st_synth_dyn(struct st *s)
{
	return hist_synth_parse(s->ctx, "s:synthetic/dyn_ev u64 a; char s[]; unsigned long[] st",
				1, NULL);
}

static int st_synth_api(struct st *s)
{
	static const struct hist_synth_field_desc f[] = {
		{ "u64", "v" }, { "char[]", "name" }, { "pid_t", "pid" },
	};

	return hist_synth_create(s->ctx, "api_ev", f, 3, NULL);
}

static int st_synth_builder(struct st *s)
{
	struct hist_synth_cmd cmd;
	char buf[256];
	int r;

	hist_synth_cmd_init(&cmd, s->ctx, buf, sizeof(buf));
	if ((r = hist_synth_cmd_start(&cmd, "built_ev")) ||
	    (r = hist_synth_cmd_add_field(&cmd, "u32", "x")) ||
	    (r = hist_synth_cmd_add_field_str(&cmd, "char c[8]")))
		return r;
	return hist_synth_cmd_end(&cmd, NULL);
}

static int trig(hist_event *ev, const char *cmd)
{
	return hist_trigger_parse(ev, cmd, NULL);
}

static int st_trig_waking(struct st *s)
{
	return trig(s->wk, "hist:keys=pid:ts0=common_timestamp.usecs:c=comm if comm != \"idle\"");
}

static int st_trig_switch(struct st *s)
{
	return trig(s->sw, "hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:"
			   "onmatch(sched.sched_waking).wakeup_latency($lat,next_pid,next_comm):"
			   "onmax($lat).save(prev_comm,prev_pid)");
}

static int st_trig_synth(struct st *s)
{
	s->syn = hist_event_lookup(s->ctx, "synthetic", "wakeup_latency");
	if (!s->syn)
		return -HIST_ENOMEM;
	return trig(s->syn, "hist:keys=pid,lat.log2:vals=hitcount:sort=pid");
}

static int st_trig_kmalloc(struct st *s)
{
	return trig(s->km, "hist:keys=call_site.sym,bytes_req.buckets=64:"
			   "vals=bytes_alloc,bytes_alloc-bytes_req:"
			   "sort=bytes_alloc.descending:size=256 if bytes_req > 8");
}

static int st_trig_strings(struct st *s)
{
	return trig(s->km, "hist:keys=filename,common_stacktrace:vals=hitcount");
}

static int st_trig_named1(struct st *s)
{
	return trig(s->sw, "hist:name=grp:keys=common_pid");
}

static int st_trig_named2(struct st *s)
{
	return trig(s->wk, "hist:name=grp:keys=common_pid");
}

static int st_trig_onchange(struct st *s)
{
	return trig(s->wk, "hist:keys=comm:p=prio:onchange($p).save(target_cpu):"
			   "onchange($p).snapshot()");
}

static int st_trig_traceoff(struct st *s)
{
	return trig(s->sw, "traceoff:5 if prev_pid == 0");
}

static int st_trig_enable_hist(struct st *s)
{
	return trig(s->sw, "enable_hist:kmem:kmalloc:2");
}

static int st_trig_stacktrace(struct st *s)
{
	return trig(s->wk, "stacktrace if prio < 100");
}

static int st_event_filter(struct st *s)
{
	return hist_event_set_filter(s->km, "bytes_alloc >= 16 && (node == 0 || node == 1)",
				     NULL);
}

static int st_filter_api(struct st *s)
{
	struct hist_error e;

	if (s->filter)
		hist_filter_destroy(s->filter);
	s->filter = hist_filter_compile(s->sw, "prev_comm ~ \"task*\" || next_prio > 10", &e);
	return s->filter ? 0 : e.code;
}

struct rec_switch {
	uint16_t type;
	uint8_t flags, pc;
	int32_t pid;
	char prev_comm[16];
	int32_t prev_pid, prev_prio;
	int64_t prev_state;
	char next_comm[16];
	int32_t next_pid, next_prio;
};

struct rec_waking {
	uint16_t type;
	uint8_t flags, pc;
	int32_t pid;
	char comm[16];
	int32_t wpid, prio, target_cpu;
};

struct rec_kmalloc {
	uint16_t type;
	uint8_t flags, pc;
	int32_t pid;
	uint64_t call_site, ptr, bytes_req, bytes_alloc, gfp;
	int32_t node;
	uint32_t filename;
	char data[16];
};

static int st_hits(struct st *s)
{
	long before = fa.count;
	int i;

	for (i = 0; i < 40; i++) {
		struct hist_hit hit = { .ts = 1000000 + 1000u * (unsigned)i, .cpu = (uint32_t)i % 3,
					.pid = -1 };
		struct rec_waking w;
		struct rec_switch sw;
		struct rec_kmalloc km;

		memset(&w, 0, sizeof(w));
		w.pid = 10 + i % 4;
		snprintf(w.comm, sizeof(w.comm), "w%d", i % 5);
		w.wpid = 100 + i % 6;
		w.prio = 120 - i % 7;
		w.target_cpu = i % 2;
		hist_event_hit(s->wk, &w, sizeof(w), &hit);

		hit.ts += 500;
		memset(&sw, 0, sizeof(sw));
		sw.pid = i % 3;
		snprintf(sw.prev_comm, sizeof(sw.prev_comm), "task%d", i % 3);
		sw.prev_pid = i % 3;
		sw.prev_prio = 100 + i % 9;
		snprintf(sw.next_comm, sizeof(sw.next_comm), "n%d", i % 6);
		sw.next_pid = 100 + i % 6;
		sw.next_prio = 120;
		hist_event_hit(s->sw, &sw, sizeof(sw), &hit);
		if (s->filter)
			hist_filter_match(s->filter, &sw, sizeof(sw), &hit);

		memset(&km, 0, sizeof(km));
		km.pid = 7;
		km.call_site = 0xffffffff81000100ull + (uint64_t)(i % 4) * 0x100;
		km.bytes_req = 8u + 24u * (unsigned)(i % 5);
		km.bytes_alloc = 64;
		km.node = i % 2;
		km.filename = (uint32_t)(6u << 16 | offsetof(struct rec_kmalloc, data));
		snprintf(km.data, sizeof(km.data), "/f%d", i % 3);
		hist_event_hit(s->km, &km, sizeof(km), &hit);
	}
	/* the hot path never allocates */
	return fa.count == before ? 0 : -9999;
}

static int print_event(hist_event *ev, struct buf *t)
{
	int r = hist_event_print_triggers(ev, buf_write, t);

	if (!r && hist_event_active(ev))
		r = hist_event_print_hist(ev, buf_write, t);
	return r;
}

/* Every print, into S->out; a failed print starts over. */
static int st_print(struct st *s)
{
	int r;

	s->out.n = 0;
	s->out.s[0] = 0;
	if ((r = print_event(s->sw, &s->out)) || (r = print_event(s->wk, &s->out)) ||
	    (r = print_event(s->km, &s->out)) || (r = print_event(s->syn, &s->out)) ||
	    (r = hist_synth_print(s->ctx, 0, buf_write, &s->out)) ||
	    (r = hist_synth_print(s->ctx, 1, buf_write, &s->out)) ||
	    (r = hist_synth_print_format(s->ctx, "api_ev", buf_write, &s->out)))
		return r;
	/* (the debug file prints addresses: run, not compared) */
	{
		static struct buf scratch;

		scratch.n = 0;
		r = hist_event_print_hist_debug(s->sw, buf_write, &scratch);
	}
	return r;
}

static int st_clear(struct st *s)
{
	return trig(s->km, "hist:keys=call_site.sym,bytes_req.buckets=64:"
			   "vals=bytes_alloc,bytes_alloc-bytes_req:"
			   "sort=bytes_alloc.descending:size=256:clear if bytes_req > 8");
}

static int st_pause(struct st *s)
{
	/* (a trigger with variables cannot be paused: "Variable already defined") */
	return trig(s->km, "hist:keys=filename,common_stacktrace:vals=hitcount:pause");
}

/* the switch trigger references $ts0 and the synthetic event: it goes first */
static int st_remove_switch(struct st *s)
{
	return trig(s->sw, "!hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:"
			   "onmatch(sched.sched_waking).wakeup_latency($lat,next_pid,next_comm):"
			   "onmax($lat).save(prev_comm,prev_pid)");
}

static int st_remove_waking(struct st *s)
{
	return trig(s->wk, "!hist:keys=pid:ts0=common_timestamp.usecs:c=comm if comm != \"idle\"");
}

static int st_remove_traceoff(struct st *s)
{
	return trig(s->sw, "!traceoff:5 if prev_pid == 0");
}

static int st_remove_named(struct st *s)
{
	return trig(s->sw, "!hist:name=grp:keys=common_pid");
}

static int st_truncate_km(struct st *s)
{
	return hist_trigger_truncate(s->km);
}

static int st_truncate_wk(struct st *s)
{
	return hist_trigger_truncate(s->wk);
}

static int st_truncate_sw(struct st *s)
{
	return hist_trigger_truncate(s->sw);
}

static int st_truncate_syn(struct st *s)
{
	return hist_trigger_truncate(s->syn);
}

static int st_filter_off(struct st *s)
{
	return hist_event_set_filter(s->km, "0", NULL);
}

static int st_synth_remove(struct st *s)
{
	int r = hist_synth_parse(s->ctx, "!wakeup_latency", 0, NULL);

	if (!r)
		s->syn = NULL;
	return r;
}

static int st_synth_delete(struct st *s)
{
	return hist_synth_delete(s->ctx, "api_ev");
}

static int st_synth_remove_dyn(struct st *s)
{
	return hist_synth_parse(s->ctx, "-:synthetic/dyn_ev", 1, NULL);
}

static int st_synth_truncate(struct st *s)
{
	return hist_synth_truncate(s->ctx);
}

/* Retired memory is freed: a hit that still saw it would fail under ASan. */
static int st_reclaim_hits(struct st *s)
{
	hist_ctx_reclaim(s->ctx);
	return st_hits(s);
}

static int st_print_after(struct st *s)
{
	struct buf t;
	int r;

	t.n = 0;
	t.s[0] = 0;
	if ((r = print_event(s->sw, &t)) || (r = print_event(s->km, &t)) ||
	    (r = hist_synth_print(s->ctx, 0, buf_write, &t)))
		return r;
	/* everything is gone: the fault-free run prints this */
	return strstr(t.s, "hist:") || strstr(t.s, "built_ev") ? -5000 : 0;
}

struct step {
	const char *name;
	int (*fn)(struct st *s);
};

static const struct step steps[] = {
	{ "ctx", st_ctx },
	{ "lookup", st_lookup },
	{ "synth_cmds", st_synth_cmds },
	{ "synth_dyn", st_synth_dyn },
	{ "synth_api", st_synth_api },
	{ "synth_builder", st_synth_builder },
	{ "trig_waking", st_trig_waking },
	{ "trig_switch", st_trig_switch },
	{ "trig_synth", st_trig_synth },
	{ "trig_kmalloc", st_trig_kmalloc },
	{ "trig_strings", st_trig_strings },
	{ "trig_named1", st_trig_named1 },
	{ "trig_named2", st_trig_named2 },
	{ "trig_onchange", st_trig_onchange },
	{ "trig_traceoff", st_trig_traceoff },
	{ "trig_enable_hist", st_trig_enable_hist },
	{ "trig_stacktrace", st_trig_stacktrace },
	{ "event_filter", st_event_filter },
	{ "filter_api", st_filter_api },
	{ "hits", st_hits },
	{ "print", st_print },
	{ "clear", st_clear },
	{ "pause", st_pause },
	{ "remove_switch", st_remove_switch },
	{ "remove_waking", st_remove_waking },
	{ "remove_traceoff", st_remove_traceoff },
	{ "remove_named", st_remove_named },
	{ "reclaim_hits", st_reclaim_hits },
	{ "truncate_km", st_truncate_km },
	{ "truncate_wk", st_truncate_wk },
	{ "truncate_sw", st_truncate_sw },
	{ "truncate_syn", st_truncate_syn },
	{ "filter_off", st_filter_off },
	{ "synth_remove", st_synth_remove },
	{ "synth_delete", st_synth_delete },
	{ "synth_remove_dyn", st_synth_remove_dyn },
	{ "synth_truncate", st_synth_truncate },
	{ "reclaim_hits2", st_reclaim_hits },
	{ "print_after", st_print_after },
};

#define NR_STEPS (sizeof(steps) / sizeof(steps[0]))

struct run {
	int rc[NR_STEPS];
	long allocs;
	long live_after;
	int failed_step;	/* step that failed because of the fault, -1: none */
	int fault_step;		/* step in which the fault happened, -1: none */
	int failed_rc;
	int retry_rc;
	char out[65536];
};

static struct run golden;

/*
 * Run the scenario with allocation FAIL_AT failing.  A step that fails
 * while the fault is pending is run again once (the allocator is healthy
 * by then) and must then give the fault-free result.
 */
static void run_scenario(long fail_at, int use_sync, struct run *out)
{
	static struct st s;
	size_t i;

	memset(&s, 0, sizeof(s));
	s.use_sync = use_sync;
	memset(&fa, 0, sizeof(fa));
	fa.fail_at = fail_at;
	out->failed_step = -1;
	out->fault_step = -1;
	hist_set_allocator(&fa_allocator);
	for (i = 0; i < NR_STEPS; i++) {
		long failed_before = fa.failed;
		int r = steps[i].fn(&s);

		if (fa.failed != failed_before)
			out->fault_step = (int)i;
		if (fa.failed != failed_before && r) {
			out->failed_step = (int)i;
			out->failed_rc = r;
			r = steps[i].fn(&s);
			out->retry_rc = r;
		}
		out->rc[i] = r;
		if (steps[i].fn == st_print)
			memcpy(out->out, s.out.s, s.out.n + 1);
	}
	if (s.filter)
		hist_filter_destroy(s.filter);
	hist_ctx_destroy(s.ctx);
	out->allocs = fa.count;
	out->live_after = fa.live;
	hist_set_allocator(NULL);
}

static void walk(int use_sync)
{
	static struct run r;
	long n, silent = 0, odd_rc = 0, bad = 0;
	size_t i;

	run_scenario(0, use_sync, &golden);
	for (i = 0; i < NR_STEPS; i++)
		if (golden.rc[i]) {
			T_FAILF("fault-free run: step %s returned %d", steps[i].name, golden.rc[i]);
			return;
		}
	T_EQ(golden.live_after, 0);
	T_ASSERT(strstr(golden.out, "Hits: 40") != NULL);
	T_ASSERT(golden.allocs > 100);
	for (n = 1; n <= golden.allocs; n++) {
		run_scenario(n, use_sync, &r);
		if (r.failed_step < 0) {
			/* the failed allocation was absorbed: allowed (a printer
			 * falling back, a retire waiting), as long as the
			 * results are the same */
			silent++;
			if (r.fault_step >= 0 && silent <= 3)
				printf("# sync=%d alloc %ld: absorbed in step %s\n", use_sync, n,
				       steps[r.fault_step].name);
		} else if (r.failed_rc != -HIST_ENOMEM) {
			odd_rc++;
			if (odd_rc <= 5)
				printf("# sync=%d alloc %ld: step %s failed with %d, not -ENOMEM\n",
				       use_sync, n, steps[r.failed_step].name, r.failed_rc);
		}
		for (i = 0; i < NR_STEPS; i++) {
			if (r.rc[i] != golden.rc[i] && bad++ < 10)
				T_FAILF("sync=%d alloc %ld (failed in %s): step %s gave %d, fault-free %d",
					use_sync, n,
					r.failed_step >= 0 ? steps[r.failed_step].name : "-",
					steps[i].name, r.rc[i], golden.rc[i]);
		}
		if (strcmp(r.out, golden.out) && bad++ < 10) {
			const char *a = r.out, *b = golden.out, *la = a, *lb = b;

			for (; *a && *a == *b; a++, b++)
				if (*a == '\n') {
					la = a + 1;
					lb = b + 1;
				}
			T_FAILF("sync=%d alloc %ld (failed in %s): printed files differ at\n"
				"  got: %.*s\n  not: %.*s", use_sync, n,
				r.failed_step >= 0 ? steps[r.failed_step].name : "-",
				(int)strcspn(la, "\n"), la, (int)strcspn(lb, "\n"), lb);
		}
		if (r.live_after != 0 && bad++ < 10)
			T_FAILF("sync=%d alloc %ld (failed in %s): %ld allocations leaked",
				use_sync, n,
				r.failed_step >= 0 ? steps[r.failed_step].name : "-", r.live_after);
	}
	printf("# sync=%d: %ld allocations walked, %ld absorbed, %ld failed with another code\n",
	       use_sync, golden.allocs, silent, odd_rc);
}

static void test_walk_retired(void)
{
	walk(0);
}

static void test_walk_synchronize(void)
{
	synced = 0;
	walk(1);
	T_ASSERT(synced > 0);
}

/* hist_ctx_create itself: every allocation it makes. */
static void test_ctx_create(void)
{
	struct hist_host host = { .find_event = find_event };
	long n;

	for (n = 1; n < 100; n++) {
		int err = 0;
		hist_ctx *ctx;

		memset(&fa, 0, sizeof(fa));
		fa.fail_at = n;
		hist_set_allocator(&fa_allocator);
		ctx = hist_ctx_create(&host, NULL, &err);
		if (ctx) {
			/* N is past the last allocation: the walk is done */
			T_ASSERT(fa.failed == 0);
			T_EQ(err, 0);
			hist_ctx_destroy(ctx);
			hist_set_allocator(NULL);
			T_EQ(fa.live, 0);
			break;
		}
		hist_set_allocator(NULL);
		T_EQ(err, -HIST_ENOMEM);
		T_EQ(fa.live, 0);
	}
	T_ASSERT(n > 1 && n < 100);
}

int main(void)
{
	T_RUN(test_ctx_create);
	T_RUN(test_walk_retired);
	T_RUN(test_walk_synchronize);
	return T_DONE();
}
