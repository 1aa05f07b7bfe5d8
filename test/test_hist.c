/* SPDX-License-Identifier: MIT */
/*
 * The core engine through the public API, with an in-memory host: grammar,
 * every modifier's printed form, sorting, filters, removal, named sharing,
 * pause/cont/clear, map-full drops, the trigger file, and bad commands with
 * their exact error_log text and caret (the caret is written inline below
 * each command, as in the kernel's selftests).
 */
#include "harness.h"
#include "libhist.h"
#include "test_events.h"

#include <stdlib.h>

/* ---- an in-memory host: sched_switch and kmalloc as on Linux 6.1 ---- */


static int find_event(void *data, const char *sys, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	if (!strcmp(sys, "sched") && !strcmp(name, "sched_switch")) {
		out->fields = switch_fields;
		out->nr_fields = sizeof(switch_fields) / sizeof(switch_fields[0]);
		out->id = 319;
		return 0;
	}
	if (!strcmp(sys, "sched") && !strcmp(name, "sched_waking")) {
		out->fields = switch_fields;
		out->nr_fields = 8;
		out->id = 320;
		return 0;
	}
	if (!strcmp(sys, "kmem") && !strcmp(name, "kmalloc")) {
		out->fields = kmalloc_fields;
		out->nr_fields = sizeof(kmalloc_fields) / sizeof(kmalloc_fields[0]);
		out->id = 552;
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

static int host_sym(void *data, uint64_t addr, int with_offset, char *buf,
		    size_t len)
{
	(void)data;
	if (addr < 0xffffffff81000000ull)
		return -1;
	if (with_offset)
		return snprintf(buf, len, "func_%llx+0x%llx/0x100",
				(unsigned long long)(addr & ~0xffull),
				(unsigned long long)(addr & 0xff));
	return snprintf(buf, len, "func_%llx", (unsigned long long)(addr & ~0xffull));
}

static const char *host_syscall(void *data, uint64_t nr)
{
	(void)data;
	return nr == 0 ? "sys_read" : nr == 1 ? "sys_write" : NULL;
}

static uint64_t host_clock(void *data)
{
	(void)data;
	return 6487656000ull; /* error_log shows [    6.487656] */
}

/* effects of the generic triggers, as the host sees them */
static struct {
	int traceon, traceoff, snapshot, stacktrace, enable, disable;
} fx;

static void host_traceon(void *data, int on)
{
	(void)data;
	if (on)
		fx.traceon++;
	else
		fx.traceoff++;
}

static void host_snapshot(void *data, hist_event *ev, const struct hist_hit *hit)
{
	(void)data;
	(void)ev;
	(void)hit;
	fx.snapshot++;
}

static void host_stacktrace(void *data, hist_event *ev, const struct hist_hit *hit)
{
	(void)data;
	(void)ev;
	(void)hit;
	fx.stacktrace++;
}

static void host_enable(void *data, hist_event *target, int enable)
{
	(void)data;
	(void)target;
	if (enable)
		fx.enable++;
	else
		fx.disable++;
}

static const struct hist_host test_host = {
	.find_event = find_event,
	.comm = host_comm,
	.sym = host_sym,
	.syscall_name = host_syscall,
	.clock = host_clock,
	.traceon = host_traceon,
	.snapshot = host_snapshot,
	.stacktrace_trigger = host_stacktrace,
	.enable_event = host_enable,
};

/* ---- records -------------------------------------------------------- */

struct sw {
	int pid;
	const char *prev_comm;
	int prev_pid, prev_prio;
	long prev_state;
	const char *next_comm;
	int next_pid, next_prio;
};

static void sw_rec(uint8_t *r, const struct sw *s)
{
	memset(r, 0, 64);
	memcpy(r + 4, &s->pid, 4);
	strncpy((char *)r + 8, s->prev_comm, 16);
	memcpy(r + 24, &s->prev_pid, 4);
	memcpy(r + 28, &s->prev_prio, 4);
	memcpy(r + 32, &s->prev_state, 8);
	strncpy((char *)r + 40, s->next_comm, 16);
	memcpy(r + 56, &s->next_pid, 4);
	memcpy(r + 60, &s->next_prio, 4);
}

static void hit_switch(hist_event *ev, const struct sw *s, uint64_t ts, uint32_t cpu)
{
	uint8_t r[64];
	struct hist_hit h = { .ts = ts, .cpu = cpu, .pid = -1 };

	sw_rec(r, s);
	hist_event_hit(ev, r, sizeof(r), &h);
}

static void hit_kmalloc(hist_event *ev, int pid, uint64_t site, uint64_t req,
			uint64_t alloc, const char *fname)
{
	uint8_t r[160];
	struct hist_hit h = { .ts = 1000, .cpu = 0, .pid = -1 };
	uint32_t loc;
	size_t n = strlen(fname) + 1;

	memset(r, 0, sizeof(r));
	memcpy(r + 4, &pid, 4);
	memcpy(r + 8, &site, 8);
	memcpy(r + 24, &req, 8);
	memcpy(r + 32, &alloc, 8);
	loc = (uint32_t)(n << 16) | 104;
	memcpy(r + 52, &loc, 4);
	memcpy(r + 104, fname, n);
	hist_event_hit(ev, r, 104 + n, &h);
}

/* ---- output capture --------------------------------------------------- */


static const char *hist_text(hist_event *ev)
{
	static struct buf b;

	b.n = 0;
	b.s[0] = 0;
	hist_event_print_hist(ev, buf_write, &b);
	return b.s;
}

static const char *trigger_text(hist_event *ev)
{
	static struct buf b;

	b.n = 0;
	b.s[0] = 0;
	hist_event_print_triggers(ev, buf_write, &b);
	return b.s;
}

static const char *errlog_text(hist_ctx *ctx)
{
	static struct buf b;

	b.n = 0;
	b.s[0] = 0;
	hist_ctx_print_error_log(ctx, buf_write, &b);
	return b.s;
}

static hist_ctx *new_ctx(void)
{
	int err;
	hist_ctx *ctx = hist_ctx_create(&test_host, NULL, &err);

	if (!ctx) {
		printf("# hist_ctx_create failed: %d\n", err);
		exit(1);
	}
	return ctx;
}

static const struct sw S1 = { 10, "bash", 10, 120, 1, "swapper/0", 0, 120 };
static const struct sw S2 = { 11, "sshd", 11, 120, 0, "bash", 10, 120 };
static const struct sw S3 = { 0, "swapper/0", 0, 120, 0, "sshd", 11, 120 };

/* ---- tests ------------------------------------------------------------ */

static void test_basic_counts(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "sched", "sched_switch");

	T_ASSERT(!hist_event_active(ev));
	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid", NULL), 0);
	T_ASSERT(hist_event_active(ev));
	hit_switch(ev, &S1, 1, 0);
	hit_switch(ev, &S1, 2, 0);
	hit_switch(ev, &S2, 3, 1);
	T_STREQ(hist_text(ev),
		"# event histogram\n"
		"#\n"
		"# trigger info: hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 [active]\n"
		"#\n"
		"\n"
		"{ prev_pid:         11 } hitcount:          1\n"
		"{ prev_pid:         10 } hitcount:          2\n"
		"\n"
		"Totals:\n"
		"    Hits: 3\n"
		"    Entries: 2\n"
		"    Dropped: 0\n");
	hist_ctx_destroy(ctx);
}

static void test_vals_and_sort(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "kmem", "kmalloc");

	T_EQ(hist_trigger_parse(ev, "hist:key=call_site.sym:values=bytes_req,bytes_alloc:sort=bytes_alloc.descending:size=256",
				NULL), 0);
	hit_kmalloc(ev, 1, 0xffffffff811e3a25ull, 64, 64, "a");
	hit_kmalloc(ev, 1, 0xffffffff811e3a25ull, 256, 448, "a");
	hit_kmalloc(ev, 1, 0xffffffffa0a1b2c3ull, 100, 128, "a");
	T_STREQ(hist_text(ev),
		"# event histogram\n#\n"
		"# trigger info: hist:keys=call_site.sym:vals=hitcount,bytes_req,bytes_alloc:sort=bytes_alloc.descending:size=256 [active]\n"
		"#\n\n"
		"{ call_site: [ffffffff811e3a25] func_ffffffff811e3a00                         } hitcount:          2  bytes_req:        320  bytes_alloc:        512\n"
		"{ call_site: [ffffffffa0a1b2c3] func_ffffffffa0a1b200                         } hitcount:          1  bytes_req:        100  bytes_alloc:        128\n"
		"\nTotals:\n    Hits: 3\n    Entries: 2\n    Dropped: 0\n");
	hist_ctx_destroy(ctx);
}

static void test_modifier_forms(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "kmem", "kmalloc");
	const char *t;

	T_EQ(hist_trigger_parse(ev, "hist:keys=bytes_req.log2", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=bytes_req.buckets=32", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=common_pid.execname", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=bytes_alloc.hex:vals=bytes_req.hex", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=call_site.sym-offset", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=filename", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=node.syscall", NULL), 0);
	hit_kmalloc(ev, 2942, 0xffffffff81000010ull, 5, 0x70, "/bin/sh");
	hit_kmalloc(ev, 2942, 0x1234, 70, 0x70, "/bin/sh");
	t = hist_text(ev);
	T_ASSERT(strstr(t, "{ bytes_req: ~ 2^3  } hitcount:          1\n") != NULL);
	T_ASSERT(strstr(t, "{ bytes_req: ~ 2^7  } hitcount:          1\n") != NULL);
	T_ASSERT(strstr(t, "{ bytes_req: ~ 64-95 } hitcount:          1\n") != NULL);
	T_ASSERT(strstr(t, "{ bytes_req: ~ 0-31 } hitcount:          1\n") != NULL);
	T_ASSERT(strstr(t, "{ common_pid: task2942        [      2942] } hitcount:          2\n") != NULL);
	T_ASSERT(strstr(t, "{ bytes_alloc: 70 } hitcount:          2  bytes_req:         4b\n") != NULL);
	T_ASSERT(strstr(t, "{ call_site: [ffffffff81000010] func_ffffffff81000000+0x10/0x100") != NULL);
	{
		/* an unknown address prints as 0x%lx, padded to 55 */
		char want[128];

		snprintf(want, sizeof(want), "{ call_site: [1234] %-55s } hitcount", "0x1234");
		T_ASSERT(strstr(t, want) != NULL);
	}
	T_ASSERT(strstr(t, "{ filename: /bin/sh                                            } hitcount:          2\n") != NULL);
	T_ASSERT(strstr(t, "{ node: sys_read                      [  0] } hitcount:          2\n") != NULL);
	t = trigger_text(ev);
	T_ASSERT(strstr(t, "hist:keys=bytes_req.buckets=32:vals=hitcount:sort=hitcount:size=2048 [active]\n") != NULL);
	T_ASSERT(strstr(t, "hist:keys=call_site.sym-offset:vals=hitcount:sort=hitcount:size=2048 [active]\n") != NULL);
	T_ASSERT(strstr(t, "hist:keys=bytes_alloc.hex:vals=hitcount,bytes_req.hex:sort=hitcount:size=2048 [active]\n") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_percent_graph(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "kmem", "kmalloc");
	const char *t;

	T_EQ(hist_trigger_parse(ev, "hist:keys=common_pid:vals=hitcount,bytes_req.percent,bytes_alloc.graph", NULL), 0);
	hit_kmalloc(ev, 1, 0, 5, 5, "x");
	hit_kmalloc(ev, 2, 0, 10, 10, "x");
	hit_kmalloc(ev, 3, 0, 20, 20, "x");
	hit_kmalloc(ev, 3, 0, 0, 0, "x");
	t = hist_text(ev);
	T_ASSERT(strstr(t, "{ common_pid:          1 } hitcount:          1  bytes_req (%):  14.28  bytes_alloc: #####               \n") != NULL);
	T_ASSERT(strstr(t, "{ common_pid:          3 } hitcount:          2  bytes_req (%):  57.14  bytes_alloc: ####################\n") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_two_sort_keys_and_strings(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "sched", "sched_switch");
	const char *t;

	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_comm,next_pid:sort=prev_comm.descending,next_pid", NULL), 0);
	hit_switch(ev, &S1, 1, 0);
	hit_switch(ev, &S2, 1, 0);
	hit_switch(ev, &S3, 1, 0);
	t = hist_text(ev);
	T_ASSERT(strstr(t, "sort=prev_comm.descending,next_pid:size=2048") != NULL);
	T_ASSERT(strstr(t, "{ prev_comm: swapper/0                                         , next_pid:         11 } hitcount:          1\n"
			   "{ prev_comm: sshd                                              , next_pid:         10 } hitcount:          1\n"
			   "{ prev_comm: bash                                              , next_pid:          0 } hitcount:          1\n") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_filter_and_multi(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "sched", "sched_switch");
	const char *t;

	T_EQ(hist_trigger_parse(ev, "hist:keys=next_pid if prev_comm == \"bash\" || prev_pid > 10", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=next_comm:vals=next_prio", NULL), 0);
	hit_switch(ev, &S1, 1, 0);
	hit_switch(ev, &S2, 1, 0);
	hit_switch(ev, &S3, 1, 0);
	t = hist_text(ev);
	T_ASSERT(strstr(t, "hist:keys=next_pid:vals=hitcount:sort=hitcount:size=2048 if prev_comm == \"bash\" || prev_pid > 10 [active]\n") != NULL);
	T_ASSERT(strstr(t, "    Hits: 2\n") != NULL);
	T_ASSERT(strstr(t, "\n\n\n# event histogram\n") != NULL);
	T_ASSERT(strstr(t, "    Hits: 3\n") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_remove_pause_cont_clear(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "sched", "sched_switch");

	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:size=100", NULL), 0);
	T_ASSERT(strstr(trigger_text(ev), ":size=128 [active]\n") != NULL);
	hit_switch(ev, &S1, 1, 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:pause", NULL), 0);
	T_ASSERT(strstr(trigger_text(ev), ":size=128 [paused]\n") != NULL);
	hit_switch(ev, &S1, 1, 0);
	T_ASSERT(strstr(hist_text(ev), "    Hits: 1\n") != NULL);
	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:continue", NULL), 0);
	hit_switch(ev, &S1, 1, 0);
	T_ASSERT(strstr(hist_text(ev), "    Hits: 2\n") != NULL);
	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:clear", NULL), 0);
	T_ASSERT(strstr(hist_text(ev), "    Hits: 0\n    Entries: 0\n") != NULL);
	/* identity ignores size= */
	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:size=4096", NULL), -HIST_EEXIST);
	T_EQ(hist_trigger_parse(ev, "!hist:keys=next_pid", NULL), 0);
	T_ASSERT(hist_event_active(ev));
	T_EQ(hist_trigger_parse(ev, "!hist:keys=prev_pid", NULL), 0);
	T_ASSERT(!hist_event_active(ev));
	T_STREQ(hist_text(ev), "");
	T_STREQ(trigger_text(ev), "# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n");
	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:cont", NULL), -HIST_ENOENT);
	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:pause", NULL), 0);
	T_ASSERT(strstr(trigger_text(ev), " [paused]\n") != NULL);
	hist_ctx_destroy(ctx);
}

/* A trigger with a stack-trace or string variable is removed by its own
 * text (cases-6.12/b80: the kernel's !hist of the same text removes it). */
static void test_remove_stacktrace_var(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "sched", "sched_switch");

	T_EQ(hist_trigger_parse(ev, "hist:keys=next_pid:st=stacktrace", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:st2=common_stacktrace", NULL), 0);
	hit_switch(ev, &S1, 1, 0);
	T_EQ(hist_trigger_parse(ev, "!hist:keys=next_pid:st=stacktrace", NULL), 0);
	T_ASSERT(strstr(trigger_text(ev), "st=stacktrace") == NULL);
	T_EQ(hist_trigger_parse(ev, "!hist:keys=prev_pid:st2=common_stacktrace", NULL), 0);
	T_ASSERT(!hist_event_active(ev));
	/* string variables live in the element the same way */
	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:c=next_comm", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "!hist:keys=prev_pid:c=next_comm", NULL), 0);
	T_ASSERT(!hist_event_active(ev));
	hist_ctx_destroy(ctx);
}

static void test_named_sharing(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *a = hist_event_lookup(ctx, "sched", "sched_switch");
	hist_event *b = hist_event_lookup(ctx, "sched", "sched_waking");
	const char *t;

	T_EQ(hist_trigger_parse(a, "hist:name=shared:keys=prev_pid", NULL), 0);
	T_EQ(hist_trigger_parse(b, "hist:name=shared:keys=prev_pid", NULL), 0);
	T_EQ(hist_trigger_parse(b, "hist:name=shared:keys=prev_prio", NULL), -HIST_EINVAL);
	hit_switch(a, &S1, 1, 0);
	hit_switch(b, &S1, 1, 0);
	t = hist_text(b);
	T_ASSERT(strstr(t, "hist:name=shared:keys=prev_pid:vals=hitcount") != NULL);
	T_ASSERT(strstr(t, "{ prev_pid:         10 } hitcount:          2\n") != NULL);
	T_EQ(hist_trigger_parse(a, "!hist:name=shared:keys=prev_pid", NULL), 0);
	hit_switch(b, &S1, 1, 0);
	T_ASSERT(strstr(hist_text(b), "{ prev_pid:         10 } hitcount:          3\n") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_map_full_drops(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "sched", "sched_switch");
	struct sw s = S1;
	int i;

	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:size=128", NULL), 0);
	for (i = 0; i < 300; i++) {
		s.prev_pid = i;
		hit_switch(ev, &s, 1, (uint32_t)i % 4);
	}
	s.prev_pid = 5;
	hit_switch(ev, &s, 1, 0);
	T_ASSERT(strstr(hist_text(ev), "    Hits: 129\n    Entries: 128\n    Dropped: 172\n") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_expressions_and_vars(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "sched", "sched_switch");
	hist_event *w = hist_event_lookup(ctx, "sched", "sched_waking");
	const char *t;

	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:a=16-8-4-2,b=64/8/4/2,c=4*3/2*2,d=4+3*2-2,e=10/3,f=1000/7,g=-(5)", NULL), 0);
	t = trigger_text(ev);
	T_ASSERT(strstr(t, "a=2,b=1,c=12,d=8,e=4,f=143,g=-(5)") != NULL);
	T_EQ(hist_trigger_parse(w, "hist:keys=prev_pid:ts0=common_timestamp.usecs", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=next_pid:lat=common_timestamp.usecs-$ts0", NULL), 0);
	/* referenced: cannot go */
	T_EQ(hist_trigger_parse(w, "!hist:keys=prev_pid:ts0=common_timestamp.usecs", NULL), -HIST_EBUSY);
	{
		struct sw a = S1, b = S2;

		a.prev_pid = 42; /* waking: key prev_pid 42 at 10.4 us */
		hit_switch(w, &a, 10400, 0);
		b.next_pid = 42; /* switch to 42 at 25.6 us: lat 26-10 = 16 */
		hit_switch(ev, &b, 25600, 0);
		hit_switch(ev, &b, 26600, 0); /* consumed: not counted */
	}
	t = hist_text(ev);
	T_ASSERT(strstr(t, "lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global [active]\n") != NULL);
	T_ASSERT(strstr(t, "{ next_pid:         42 } hitcount:          1\n") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_generic_triggers(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "sched", "sched_switch");

	T_EQ(hist_trigger_parse(ev, "traceoff:5 if prev_pid == -12345", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "traceon", NULL), -HIST_EEXIST);
	T_EQ(hist_trigger_parse(ev, "stacktrace:0x10 if prev_pid == 1", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "enable_event:sched:sched_waking:3 if prev_pid == 1", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "disable_event:sched:sched_waking", NULL), -HIST_EEXIST);
	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid", NULL), 0);
	T_STREQ(trigger_text(ev),
		"enable_event:sched:sched_waking:count=3 if prev_pid == 1\n"
		"stacktrace:count=16 if prev_pid == 1\n"
		"traceoff:count=5 if prev_pid == -12345\n"
		"hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 [active]\n");
	T_EQ(hist_trigger_parse(ev, "!traceon", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "!traceon", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "traceoff:abc", NULL), -HIST_EINVAL);
	T_EQ(hist_trigger_parse(ev, "traceoff if", NULL), -HIST_EINVAL);
	T_EQ(hist_trigger_parse(ev, "histo:keys=prev_pid", NULL), -HIST_EINVAL);
	T_EQ(hist_trigger_parse(ev, "hist", NULL), -HIST_EINVAL);
	T_EQ(hist_trigger_parse(ev, "", NULL), 0);
	hist_ctx_destroy(ctx);
}

/* Counts: traceon/traceoff and enable/disable_event pay only for a real
 * change of state; snapshot and stacktrace pay on every firing. */
static void test_trigger_effects(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "sched", "sched_switch");
	hist_event *w = hist_event_lookup(ctx, "sched", "sched_waking");
	int i;

	memset(&fx, 0, sizeof(fx));
	T_EQ(hist_trigger_parse(ev, "traceoff:2", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "snapshot:3 if prev_pid == 10", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "stacktrace", NULL), 0);
	T_EQ(hist_trigger_parse(w, "traceon", NULL), 0);
	T_EQ(hist_trigger_parse(w, "disable_event:sched:sched_switch:1", NULL), 0);
	for (i = 0; i < 5; i++)
		hit_switch(ev, &S1, 1, 0);
	/* tracing went off once; the count only dropped once */
	T_EQ(fx.traceoff, 1);
	T_ASSERT(strstr(trigger_text(ev), "traceoff:count=1\n") != NULL);
	T_EQ(fx.snapshot, 3);
	T_ASSERT(strstr(trigger_text(ev), "snapshot:count=0 if prev_pid == 10\n") != NULL);
	T_EQ(fx.stacktrace, 5);
	hit_switch(w, &S1, 1, 0);
	T_EQ(fx.traceon, 1);
	T_EQ(fx.disable, 1);
	hit_switch(w, &S1, 1, 0);
	T_EQ(fx.traceon, 1);
	T_EQ(fx.disable, 1);
	hit_switch(ev, &S1, 1, 0); /* tracing is on again: off, count 0 */
	T_EQ(fx.traceoff, 2);
	hit_switch(w, &S1, 1, 0);
	hit_switch(ev, &S1, 1, 0); /* count used up */
	T_EQ(fx.traceoff, 2);
	T_EQ(fx.traceon, 2);
	hist_ctx_destroy(ctx);
}

static void test_enable_disable_hist(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "sched", "sched_switch");
	hist_event *w = hist_event_lookup(ctx, "sched", "sched_waking");

	T_EQ(hist_trigger_parse(ev, "hist:keys=prev_pid:pause", NULL), 0);
	T_EQ(hist_trigger_parse(w, "enable_hist:sched:sched_switch:1", NULL), 0);
	hit_switch(ev, &S1, 1, 0);
	hit_switch(w, &S1, 1, 0);
	hit_switch(ev, &S1, 1, 0);
	T_ASSERT(strstr(hist_text(ev), "    Hits: 1\n") != NULL);
	T_ASSERT(strstr(trigger_text(w), "enable_hist:sched:sched_switch:count=0\n") != NULL);
	hist_ctx_destroy(ctx);
}

/* A bad command, its errno, and the exact error_log block after it. */
struct bad {
	const char *event; /* "sched/sched_switch" or "kmem/kmalloc" */
	const char *cmd;
	int code;
	const char *log; /* without the "[ts] " prefix; "" = no entry */
};

static const struct bad bad_cmds[] = {
	{ "kmem/kmalloc", "hist:keys=nosuch", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Couldn't find field\n"
	  "  Command: hist:keys=nosuch\n"
	  "                     ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:vals=nosuch", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Couldn't find field\n"
	  "  Command: hist:keys=common_pid:vals=nosuch\n"
	  "                                     ^\n" },
	{ "kmem/kmalloc", "hist:keys=bytes_req.execname", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Invalid field modifier\n"
	  "  Command: hist:keys=bytes_req.execname\n"
	  "                               ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid.junk", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Invalid field modifier\n"
	  "  Command: hist:keys=common_pid.junk\n"
	  "                                ^\n" },
	{ "kmem/kmalloc", "hist:keys=", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Empty assignment\n"
	  "  Command: hist:keys=\n"
	  "                ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:sort=", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Empty assignment\n"
	  "  Command: hist:keys=common_pid:sort=\n"
	  "                                ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:sort=common_pid,", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Empty sort field\n"
	  "  Command: hist:keys=common_pid:sort=common_pid,\n"
	  "                                ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:sort=common_pid.junk", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Invalid sort modifier\n"
	  "  Command: hist:keys=common_pid:sort=common_pid.junk\n"
	  "                                                ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:sort=common_pid,junk", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Sort field must be a key or a val\n"
	  "  Command: hist:keys=common_pid:sort=common_pid,junk\n"
	  "                                                ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:vals=bytes_req:sort=common_pid,bytes_req,hitcount", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Too many sort fields (Max = 2)\n"
	  "  Command: hist:keys=common_pid:vals=bytes_req:sort=common_pid,bytes_req,hitcount\n"
	  "                                               ^\n" },
	/* names are checked left to right: "a" fails before the count */
	{ "kmem/kmalloc", "hist:keys=common_pid:vals=bytes_req:sort=a,b,c", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Sort field must be a key or a val\n"
	  "  Command: hist:keys=common_pid:vals=bytes_req:sort=a,b,c\n"
	  "                                 ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=32+10*3/20-4", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Too many subexpressions (3 max)\n"
	  "  Command: hist:keys=common_pid:x=32+10*3/20-4\n"
	  "                                     ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=1+2+3+4+5", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Too many subexpressions (3 max)\n"
	  "  Command: hist:keys=common_pid:x=1+2+3+4+5\n"
	  "                                  ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=-(1)+2", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Unary minus not supported in sub-expressions\n"
	  "  Command: hist:keys=common_pid:x=-(1)+2\n"
	  "                                    ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=3/0", -HIST_EDOM,
	  "hist:kmem:kmalloc: error: Division by zero\n"
	  "  Command: hist:keys=common_pid:x=3/0\n"
	  "                                    ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=common_timestamp.usecs-10", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Timestamp units in expression don't match\n"
	  "  Command: hist:keys=common_pid:x=common_timestamp.usecs-10\n"
	  "           ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=filename+1", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: String type can not be an operand in expression\n"
	  "  Command: hist:keys=common_pid:x=filename+1\n"
	  "                                  ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=0x1g", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Expecting numeric literal\n"
	  "  Command: hist:keys=common_pid:x=0x1g\n"
	  "                                  ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=1,y", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Malformed assignment\n"
	  "  Command: hist:keys=common_pid:x=1,y\n"
	  "                  ^\n" }, /* the first 'y' is in "keys" (b26) */
	{ "kmem/kmalloc", "hist:keys=common_pid:x=", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Empty assignment\n"
	  "  Command: hist:keys=common_pid:x=\n"
	  "                                ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=1,x=2", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Variable already defined\n"
	  "  Command: hist:keys=common_pid:x=1,x=2\n"
	  "                                ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:lat=common_timestamp-$nosuch", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Couldn't find variable\n"
	  "  Command: hist:keys=common_pid:lat=common_timestamp-$nosuch\n"
	  "                                                      ^\n"
	  "hist:kmem:kmalloc: error: Couldn't find field\n"
	  "  Command: hist:keys=common_pid:lat=common_timestamp-$nosuch\n"
	  "                                                     ^\n" },
	{ "kmem/kmalloc", "hist:keys=bytes_req.buckets=0", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Invalid field modifier\n"
	  "  Command: hist:keys=bytes_req.buckets=0\n"
	  "                                       ^\n" },
	{ "kmem/kmalloc", "hist:keys=bytes_req.percent", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Invalid field modifier\n"
	  "  Command: hist:keys=bytes_req.percent\n"
	  "                               ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:v=bytes_req.graph", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Invalid field modifier\n"
	  "  Command: hist:keys=common_pid:v=bytes_req.graph\n"
	  "                                            ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:vals=bytes_req.log2", -HIST_EINVAL,
	  "hist:kmem:kmalloc: error: Invalid field modifier\n"
	  "  Command: hist:keys=common_pid:vals=bytes_req.log2\n"
	  "                                     ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:nohitcount", -HIST_ENOENT,
	  "hist:kmem:kmalloc: error: Non-hitcount value is required for 'nohitcount'\n"
	  "  Command: hist:keys=common_pid:nohitcount\n"
	  "           ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid:clear", -HIST_ENOENT,
	  "hist:kmem:kmalloc: error: Can't clear or continue a nonexistent hist trigger\n"
	  "  Command: hist:keys=common_pid:clear\n"
	  "           ^\n" },
	/* silent failures: EINVAL and no error_log entry */
	{ "kmem/kmalloc", "hist:vals=bytes_req", -HIST_EINVAL, "" },
	{ "kmem/kmalloc", "hist:keys=common_pid,node,bytes_req,ptr", -HIST_EINVAL, "" },
	{ "kmem/kmalloc", "hist:keys=common_pid:vals=bytes_req,bytes_alloc,ptr", -HIST_EINVAL, "" },
	{ "kmem/kmalloc", "hist:keys=common_pid:size=0", -HIST_EINVAL, "" },
	{ "kmem/kmalloc", "hist:keys=common_pid:size=262144", -HIST_EINVAL, "" },
	{ "kmem/kmalloc", "hist:keys=common_pid:junk", -HIST_EINVAL, "" },
	{ "kmem/kmalloc", "hist:keys=common_pid if", -HIST_EINVAL, "" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=-5", -HIST_EINVAL, "" },
	{ "kmem/kmalloc", "hist:keys=common_pid:x=node+", -HIST_EINVAL, "" },
	{ "kmem/kmalloc", "hist:keys=args", -HIST_ENOMEM, "" },
	{ "kmem/kmalloc", "hist:keys=filename,filename", -HIST_EINVAL, "" },
	/* trigger filter errors: logged as the event filter's since 6.12
	 * (the default, latest; 6.1 logs nothing: test_kversion) */
	{ "kmem/kmalloc", "hist:keys=common_pid if nosuch == 1", -HIST_EINVAL,
	  "event filter parse error: error: Field not found\n"
	  "  Command: nosuch == 1\n"
	  "                  ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid if filename == \"x", -HIST_ESRCH,
	  "event filter parse error: error: Missing matching quote\n"
	  "  Command: filename == \"x\n"
	  "                       ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid if (node == 1", -HIST_ENOENT,
	  "event filter parse error: error: Too many '('\n"
	  "  Command: (node == 1\n"
	  "           ^\n" },
	{ "kmem/kmalloc", "hist:keys=common_pid if node == 1)", -HIST_EPERM,
	  "event filter parse error: error: Too few '('\n"
	  "  Command: node == 1)\n"
	  "                    ^\n" },
};

static void test_bad_commands(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cmds) / sizeof(bad_cmds[0]); i++) {
		const struct bad *b = &bad_cmds[i];
		hist_ctx *ctx = new_ctx();
		char sys[32];
		const char *slash = strchr(b->event, '/');
		hist_event *ev;
		struct hist_error err;
		const char *log;
		int ret;

		memcpy(sys, b->event, (size_t)(slash - b->event));
		sys[slash - b->event] = 0;
		ev = hist_event_lookup(ctx, sys, slash + 1);
		ret = hist_trigger_parse(ev, b->cmd, &err);
		if (ret != b->code)
			T_FAILF("%s: returned %d, expected %d", b->cmd, ret, b->code);
		T_EQ(err.code, ret);
		log = errlog_text(ctx);
		/* strip the "[    6.487656] " stamps */
		{
			static char stripped[8192];
			const char *p = log;
			size_t n = 0;

			while (*p) {
				if (*p == '[' && (p == log || p[-1] == '\n')) {
					const char *q = strstr(p, "] ");

					T_ASSERT(q && !strncmp(p, "[    6.487656] ", 15));
					p = q + 2;
					continue;
				}
				stripped[n++] = *p++;
			}
			stripped[n] = 0;
			if (strcmp(stripped, b->log))
				T_FAILF("%s: error_log\n%s\nexpected\n%s", b->cmd,
					stripped, b->log);
		}
		T_ASSERT(!hist_event_active(ev));
		hist_ctx_destroy(ctx);
	}
}

static void test_errlog_ring(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "kmem", "kmalloc");
	int i;
	const char *log, *p;
	int n = 0;

	for (i = 0; i < 10; i++)
		hist_trigger_parse(ev, "hist:keys=nosuch", NULL);
	log = errlog_text(ctx);
	for (p = log; (p = strstr(p, "error: ")) != NULL; p++)
		n++;
	T_EQ(n, 8);
	hist_ctx_clear_error_log(ctx);
	T_STREQ(errlog_text(ctx), "");
	hist_ctx_destroy(ctx);
}

static void test_truncated_records(void)
{
	hist_ctx *ctx = new_ctx();
	hist_event *ev = hist_event_lookup(ctx, "kmem", "kmalloc");
	uint8_t r[160];
	struct hist_hit h = { .ts = 1, .cpu = 0, .pid = 7 };
	uint32_t loc = (200u << 16) | 150; /* beyond the record */
	size_t n;

	T_EQ(hist_trigger_parse(ev, "hist:keys=filename,common_pid:vals=bytes_req", NULL), 0);
	memset(r, 0xff, sizeof(r));
	memcpy(r + 52, &loc, 4);
	for (n = 0; n <= sizeof(r); n += 7)
		hist_event_hit(ev, r, n, &h);
	hist_event_hit(ev, NULL, 0, NULL);
	T_ASSERT(strstr(hist_text(ev), "Hits: 24\n") != NULL);
	T_ASSERT(strstr(hist_text(ev), "{ filename:                                                   , common_pid:          0 }") != NULL);
	hist_ctx_destroy(ctx);
}

int main(void)
{
	T_RUN(test_basic_counts);
	T_RUN(test_vals_and_sort);
	T_RUN(test_modifier_forms);
	T_RUN(test_percent_graph);
	T_RUN(test_two_sort_keys_and_strings);
	T_RUN(test_filter_and_multi);
	T_RUN(test_remove_pause_cont_clear);
	T_RUN(test_remove_stacktrace_var);
	T_RUN(test_named_sharing);
	T_RUN(test_map_full_drops);
	T_RUN(test_expressions_and_vars);
	T_RUN(test_generic_triggers);
	T_RUN(test_trigger_effects);
	T_RUN(test_enable_disable_hist);
	T_RUN(test_bad_commands);
	T_RUN(test_errlog_ring);
	T_RUN(test_truncated_records);
	return T_DONE();
}
