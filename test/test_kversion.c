/* SPDX-License-Identifier: MIT */
/*
 * Kernel versions (hist_ctx_opts.kernel, src/common/kversion.c): every
 * row of the version table under 6.1, 6.12 and latest, with the results
 * and error_log entries the recorded cases show (each row names its
 * case), the versions in between (nearest recorded one below), and
 * hist_kernel_parse().  The conformance runner checks the same rows on
 * the whole recordings; this test pins each one to a command.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "test_events.h"

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
		out->fields = waking_fields;
		out->nr_fields = sizeof(waking_fields) / sizeof(waking_fields[0]);
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

static const struct hist_host host = { .find_event = find_event };

#define K61 HIST_KERNEL(6, 1)
#define K612 HIST_KERNEL(6, 12)

/* What one version does with a command: its result and error_log. */
struct want {
	int ret;
	const char *msg;	/* error_log message, NULL: nothing logged */
	int pos;		/* caret index into the command */
};

struct row {
	const char *kcase;	/* the case (cases/ and cases-6.12/) */
	const char *event;
	const char *cmd;	/* written to the trigger file */
	struct want w61, w612, latest;
};

#define OK { 0, NULL, 0 }
#define LOG(msg, pos) { -HIST_EINVAL, msg, pos }
#define SILENT { -HIST_EINVAL, NULL, 0 }

static const struct row rows[] = {
	{ "b57-hitcount-percent", "kmem/kmalloc",
	  "hist:keys=common_pid:vals=hitcount.percent",
	  LOG("Couldn't find field", 26), LOG("Invalid field modifier", 26), OK },
	{ "g16-percent-graph", "kmem/kmalloc",
	  "hist:keys=common_pid:vals=bytes_req.percent,bytes_alloc.graph",
	  OK, LOG("Invalid field modifier", 26), OK },
	{ "g16-percent-graph", "sched/sched_waking",
	  "hist:keys=pid:vals=hitcount,prio.percent,target_cpu.graph:sort=hitcount",
	  OK, LOG("Invalid field modifier", 28), OK },
	{ "b55-percent-on-key (same in both)", "kmem/kmalloc",
	  "hist:keys=bytes_req.percent",
	  LOG("Invalid field modifier", 20), LOG("Invalid field modifier", 20),
	  LOG("Invalid field modifier", 20) },
	{ "b58-nohitcount", "sched/sched_waking",
	  "hist:keys=pid:vals=prio:nohitcount", SILENT, OK, OK },
	{ "b59-common-stacktrace", "sched/sched_switch",
	  "hist:keys=common_stacktrace",
	  LOG("Couldn't find field", 10), OK, OK },
	{ "b60-stacktrace-modifier", "sched/sched_switch",
	  "hist:keys=prev_pid.stacktrace",
	  LOG("Invalid field modifier", 19), OK, OK },
	{ "b80-stacktrace-var", "sched/sched_switch",
	  "hist:keys=next_pid:st=stacktrace",
	  LOG("Couldn't find field", 22), OK, OK },
	{ "g18-stacktrace-key", "sched/sched_switch", "hist:keys=stacktrace",
	  OK, OK, OK },
	{ "k12-newer-vals", "kmem/kmalloc", "hist:keys=hitcount",
	  LOG("Couldn't find field", 10), OK, OK },
	{ "k12-newer-vals", "kmem/kmalloc", "hist:keys=common_pid:vals=hitcount.hex",
	  LOG("Couldn't find field", 26), OK, OK },
	{ "k05-alias-comm", "sched/sched_switch", "hist:keys=comm",
	  LOG("Couldn't find field", 10), LOG("Couldn't find field", 10), OK },
	{ "k05-alias-comm", "sched/sched_switch", "hist:keys=common_comm",
	  LOG("Couldn't find field", 10), LOG("Couldn't find field", 10), OK },
	{ "k05-alias-comm (the event's own comm)", "sched/sched_waking",
	  "hist:keys=comm", OK, OK, OK },
	{ "k03-alias-stacktrace", "sched/sched_switch", "hist:keys=STACKTRACE",
	  LOG("Couldn't find field", 10), OK, OK },
	{ "k03-alias-stacktrace (both)", "sched/sched_switch",
	  "hist:keys=stacktrace:sort=stacktrace",
	  LOG("Sort field must be a key or a val", 10),
	  LOG("Sort field must be a key or a val", 10),
	  LOG("Sort field must be a key or a val", 10) },
	{ "k13-newer-filters", "sched/sched_switch",
	  "hist:keys=prev_pid if cpu & CPUS{0}", SILENT, OK, OK },
};

/* The error_log block the kernel prints for W after CMD on EVENT. */
static void expected_log(char *out, size_t cap, const char *event,
			 const char *cmd, const struct want *w)
{
	char loc[64], *p;

	out[0] = 0;
	if (!w->msg)
		return;
	snprintf(loc, sizeof(loc), "hist:%s", event);
	p = strchr(loc, '/');
	if (p)
		*p = ':';
	snprintf(out, cap, "%s: error: %s\n  Command: %s\n%*s^\n", loc, w->msg,
		 cmd, 11 + w->pos, "");
}

static const char *log_text(hist_ctx *ctx)
{
	static struct buf b, s;
	const char *p;

	b.n = 0;
	b.s[0] = 0;
	hist_ctx_print_error_log(ctx, buf_write, &b);
	/* without the "[    0.000000] " stamps */
	s.n = 0;
	s.s[0] = 0;
	for (p = b.s; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (*p == '[' && strstr(p, "] ") && strstr(p, "] ") < p + len) {
			const char *q = strstr(p, "] ") + 2;

			len -= (size_t)(q - p);
			p = q;
		}
		buf_write(&s, p, len);
		p += len;
	}
	return s.s;
}

static hist_event *event_of(hist_ctx *ctx, const char *spec)
{
	char sys[32];
	const char *slash = strchr(spec, '/');

	memcpy(sys, spec, (size_t)(slash - spec));
	sys[slash - spec] = 0;
	return hist_event_lookup(ctx, sys, slash + 1);
}

static void check(const struct row *r, uint32_t kernel, const struct want *w)
{
	struct hist_ctx_opts o = { .kernel = kernel };
	char want_log[1024];
	hist_ctx *ctx;
	int err, ret;

	ctx = hist_ctx_create(&host, &o, &err);
	T_ASSERT(ctx != NULL);
	if (!ctx)
		return;
	ret = hist_trigger_parse(event_of(ctx, r->event), r->cmd, NULL);
	if (ret != w->ret)
		T_FAILF("%s [%#x] %s: returned %d, expected %d", r->kcase,
			(unsigned)kernel, r->cmd, ret, w->ret);
	expected_log(want_log, sizeof(want_log), r->event, r->cmd, w);
	if (strcmp(log_text(ctx), want_log))
		T_FAILF("%s [%#x] %s: error_log\n%s\nexpected\n%s", r->kcase,
			(unsigned)kernel, r->cmd, log_text(ctx), want_log);
	hist_ctx_destroy(ctx);
}

/* Each row under each recorded version and latest. */
static void test_rows(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		check(&rows[i], K61, &rows[i].w61);
		check(&rows[i], K612, &rows[i].w612);
		check(&rows[i], HIST_KERNEL_LATEST, &rows[i].latest);
	}
}

/* Versions between the recorded ones behave as the nearest one below. */
static void test_in_between(void)
{
	static const struct {
		uint32_t k, as;
	} m[] = {
		{ HIST_KERNEL(4, 19), K61 },  { HIST_KERNEL(5, 15), K61 },
		{ K61, K61 },		      { HIST_KERNEL(6, 6), K61 },
		{ HIST_KERNEL(6, 11), K61 },  { K612, K612 },
		{ HIST_KERNEL(6, 18), K612 }, { HIST_KERNEL(7, 0), K612 },
		{ HIST_KERNEL_LATEST, HIST_KERNEL_LATEST },
	};
	size_t i, j;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		T_EQU(hist_kernel_recorded(m[i].k), m[i].as);
		for (j = 0; j < sizeof(rows) / sizeof(rows[0]); j++)
			check(&rows[j], m[i].k,
			      m[i].as == K61 ? &rows[j].w61 :
			      m[i].as == K612 ? &rows[j].w612 : &rows[j].latest);
	}
}

static const char *triggers(hist_event *ev)
{
	static struct buf b;

	b.n = 0;
	b.s[0] = 0;
	hist_event_print_triggers(ev, buf_write, &b);
	return b.s;
}

/* keys=stacktrace: the key's name in the trigger info (g18). */
static void test_stacktrace_label(void)
{
	static const struct {
		uint32_t k;
		const char *info;
	} m[] = {
		{ K61, "hist:keys=stacktrace:vals=hitcount:sort=hitcount:size=2048 [active]\n" },
		{ K612, "hist:keys=common_stacktrace:vals=hitcount:sort=hitcount:size=2048 [active]\n" },
		{ HIST_KERNEL_LATEST, "hist:keys=common_stacktrace:vals=hitcount:sort=hitcount:size=2048 [active]\n" },
	};
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct hist_ctx_opts o = { .kernel = m[i].k };
		hist_ctx *ctx = hist_ctx_create(&host, &o, NULL);
		hist_event *ev = event_of(ctx, "sched/sched_switch");

		T_EQ(hist_trigger_parse(ev, "hist:keys=stacktrace", NULL), 0);
		T_STREQ(triggers(ev), m[i].info);
		/* the same trigger is found again to remove it */
		T_EQ(hist_trigger_parse(ev, "!hist:keys=stacktrace", NULL), 0);
		T_EQ(hist_event_nr_hists(ev), 0);
		hist_ctx_destroy(ctx);
	}
}

/* A trigger's filter errors: logged as the event filter's since 6.12
 * (b68-filter-unknown-field, b71-filter-missing-quote). */
static void test_trigger_filter_log(void)
{
	static const struct {
		const char *cmd, *log612;
		int ret;
	} f[] = {
		{ "hist:keys=common_pid if nosuch == 1",
		  "event filter parse error: error: Field not found\n"
		  "  Command: nosuch == 1\n"
		  "                  ^\n", -HIST_EINVAL },
		{ "traceoff if filename == \"x",
		  "event filter parse error: error: Missing matching quote\n"
		  "  Command: filename == \"x\n"
		  "                       ^\n", -HIST_ESRCH },
	};
	static const uint32_t ks[] = { K61, HIST_KERNEL(6, 6), K612,
				       HIST_KERNEL_LATEST };
	size_t i, j;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		for (j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
			struct hist_ctx_opts o = { .kernel = ks[j] };
			hist_ctx *ctx = hist_ctx_create(&host, &o, NULL);

			T_EQ(hist_trigger_parse(event_of(ctx, "kmem/kmalloc"),
						f[i].cmd, NULL), f[i].ret);
			T_STREQ(log_text(ctx), hist_kernel_recorded(ks[j]) == K61 ?
					       "" : f[i].log612);
			hist_ctx_destroy(ctx);
		}
	}
}

/* An event's filter file: .function and CPUS{} are unknown to 6.1
 * (k13-newer-filters); the error is logged by both kernels. */
static void test_event_filter(void)
{
	static const struct {
		const char *text, *log61;
	} f[] = {
		{ "call_site.function == 0",
		  "event filter parse error: error: Invalid operator\n"
		  "  Command: call_site.function == 0\n"
		  "                     ^\n" },
		{ "node & CPUS{0}",
		  "event filter parse error: error: Invalid value (did you forget quotes)?\n"
		  "  Command: node & CPUS{0}\n"
		  "                   ^\n" },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct hist_ctx_opts o = { .kernel = K61 };
		hist_ctx *ctx = hist_ctx_create(&host, &o, NULL);

		T_EQ(hist_event_set_filter(event_of(ctx, "kmem/kmalloc"), f[i].text,
					   NULL), -HIST_EINVAL);
		T_STREQ(log_text(ctx), f[i].log61);
		hist_ctx_destroy(ctx);
		/* 6.12 has CPUS{} (the .function needs a symbol resolver) */
		if (i == 1) {
			o.kernel = K612;
			ctx = hist_ctx_create(&host, &o, NULL);
			T_EQ(hist_event_set_filter(event_of(ctx, "kmem/kmalloc"),
						   f[i].text, NULL), 0);
			hist_ctx_destroy(ctx);
		}
	}
}

/* The legacy alias cpu: entries and expressions say it as written, the
 * trigger info says common_cpu, sort= finds it as written
 * (k01-alias-cpu-key, k02-alias-cpu-val-var; both kernels). */
static void test_cpu_alias(void)
{
	hist_ctx *ctx = hist_ctx_create(&host, NULL, NULL);
	hist_event *ev = event_of(ctx, "sched/sched_waking");
	uint8_t rec[40];
	struct hist_hit h = { .ts = 1, .cpu = 3, .pid = -1 };
	static struct buf b;

	T_EQ(hist_trigger_parse(ev, "hist:keys=CPU,pid:vals=hitcount:c=cpu+1:sort=CPU",
				NULL), 0);
	T_STREQ(triggers(ev), "hist:keys=common_cpu,pid:vals=hitcount:c=cpu+1:"
			      "sort=common_cpu:size=2048 [active]\n");
	memset(rec, 0, sizeof(rec));
	rec[24] = 7;	/* pid */
	hist_event_hit(ev, rec, sizeof(rec), &h);
	b.n = 0;
	b.s[0] = 0;
	hist_event_print_hist(ev, buf_write, &b);
	T_ASSERT(strstr(b.s, "{ CPU:          3, pid:          7 } hitcount:          1") != NULL);
	hist_ctx_destroy(ctx);
}

/* FIELD.function == NAME through hist_host.sym_addr (6.12 has it,
 * k13-newer-filters). */
#define FUNC_BASE 0xffffffff81001000ull

static int fn_sym(void *data, uint64_t addr, int with_offset, char *buf, size_t len)
{
	(void)data;
	if (addr < FUNC_BASE || addr >= FUNC_BASE + 0x100)
		return -1;
	return with_offset ? snprintf(buf, len, "my_func+0x%llx/0x100",
				      (unsigned long long)(addr - FUNC_BASE))
			   : snprintf(buf, len, "my_func");
}

static int fn_sym_addr(void *data, const char *name, size_t n, uint64_t *addr)
{
	(void)data;
	if (n != 7 || memcmp(name, "my_func", 7))
		return -1;
	*addr = FUNC_BASE;
	return 0;
}

static void test_function_name(void)
{
	struct hist_host h2 = host;
	struct hist_ctx_opts o = { .kernel = K612 };
	hist_ctx *ctx;
	hist_event *ev;
	uint8_t rec[112];
	uint64_t site[] = { FUNC_BASE + 0x10, FUNC_BASE + 0x2000, FUNC_BASE };
	struct hist_hit hit = { .ts = 1, .cpu = 0, .pid = -1 };
	static struct buf b;
	size_t i;

	h2.sym = fn_sym;
	h2.sym_addr = fn_sym_addr;
	ctx = hist_ctx_create(&h2, &o, NULL);
	ev = event_of(ctx, "kmem/kmalloc");
	T_EQ(hist_trigger_parse(ev, "hist:keys=common_pid if call_site.function == nope",
				NULL), -HIST_EINVAL);
	T_EQ(hist_trigger_parse(ev, "hist:keys=common_pid if call_site.function == my_func",
				NULL), 0);
	for (i = 0; i < 3; i++) {
		memset(rec, 0, sizeof(rec));
		memcpy(rec + 8, &site[i], 8);
		hist_event_hit(ev, rec, sizeof(rec), &hit);
	}
	hist_event_print_hist(ev, buf_write, &b);
	T_ASSERT(strstr(b.s, "Hits: 2\n") != NULL);
	hist_ctx_destroy(ctx);
}

static void test_parse(void)
{
	static const struct {
		const char *s;
		int ret;
		uint32_t k;
	} p[] = {
		{ "6.1", 0, K61 },
		{ "6.12", 0, K612 },
		{ "latest", 0, HIST_KERNEL_LATEST },
		{ "6.12.95+deb12-amd64", 0, K612 },
		{ "6.1.0-56-amd64", 0, K61 },
		{ "6.18.44-fc-v470", 0, HIST_KERNEL(6, 18) },
		{ "5.15.0", 0, HIST_KERNEL(5, 15) },
		{ "6.6~rc1", 0, HIST_KERNEL(6, 6) },
		{ "", -HIST_EINVAL, 0 },
		{ "6", -HIST_EINVAL, 0 },
		{ "6.", -HIST_EINVAL, 0 },
		{ ".1", -HIST_EINVAL, 0 },
		{ "0.1", -HIST_EINVAL, 0 },
		{ "6.1x", -HIST_EINVAL, 0 },
		{ "300.1", -HIST_EINVAL, 0 },
		{ "6.256", -HIST_EINVAL, 0 },
		{ "Latest", -HIST_EINVAL, 0 },
		{ "6.12 ", -HIST_EINVAL, 0 },
	};
	size_t i;
	uint32_t k;

	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		k = 0xdead;
		if (hist_kernel_parse(p[i].s, &k) != p[i].ret)
			T_FAILF("hist_kernel_parse(\"%s\") != %d", p[i].s, p[i].ret);
		else if (!p[i].ret && k != p[i].k)
			T_FAILF("hist_kernel_parse(\"%s\"): %#x, expected %#x", p[i].s,
				(unsigned)k, (unsigned)p[i].k);
		else if (p[i].ret && k != 0xdead)
			T_FAILF("hist_kernel_parse(\"%s\") wrote on failure", p[i].s);
	}
	T_EQ(hist_kernel_parse(NULL, &k), -HIST_EINVAL);
	T_EQ(hist_kernel_parse("6.1", NULL), -HIST_EINVAL);
}

int main(void)
{
	T_RUN(test_rows);
	T_RUN(test_in_between);
	T_RUN(test_stacktrace_label);
	T_RUN(test_trigger_filter_log);
	T_RUN(test_event_filter);
	T_RUN(test_cpu_alias);
	T_RUN(test_function_name);
	T_RUN(test_parse);
	return T_DONE();
}
