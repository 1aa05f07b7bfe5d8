/* SPDX-License-Identifier: MIT */
/*
 * trace_printk records (ftrace:bprint) of real recordings: the
 * conformance case k19-bprint-no-trigger, recorded on Linux 6.1 and on
 * 6.12 by the oracle while a test module (test/oracle/modules/hist_bprint.c)
 * wrote 15 trace_printk records from two functions at load.  The
 * recordings keep only the modules' kallsyms (its keep_kallsyms says
 * "modules"), which is where the records' ip point.
 *
 * For every bprint record, the trace.dat reader's lookups must say what
 * `trace-cmd report` says: the `ip` field's symbol (the function name
 * report prints), and the `fmt` field's format string from the
 * recording's printk_formats (whose constant start is the start of
 * report's text).  The kernel has no trigger file for ftrace/bprint, so
 * hist-replay refuses a trigger there as the kernel does (the case's
 * writes, checked by test_conformance); this test checks the lookups the
 * record fields need.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist_ftrace.h"
#include "../examples/hist-replay/replay_int.h"	/* tool_find_field() */

#define MAX_RECS 64

static const char *const traces[] = {
	"test/conformance/cases/k19-bprint-no-trigger/trace.dat",	/* 6.1 */
	"test/conformance/cases-6.12/k19-bprint-no-trigger/trace.dat",	/* 6.12 */
};
#define NR_TRACES (sizeof(traces) / sizeof(traces[0]))
static const char *TRACE;	/* the recording the tests below read */

/* the two formats of the module, as printk_formats prints them */
static const char fmt_a[] = "hist_bprint a: i=%d sq=%d\\n";
static const char fmt_b[] = "hist_bprint b: i=%d v=%lx %s\\n";

struct rec {
	char sym[128];
	char fmt[128];	/* "" when the lookup found none */
};

static struct rec recs[MAX_RECS];
static unsigned nr_recs;

static uint64_t read_u64(const struct hist_ftrace_record *r,
			 const struct hist_field_desc *f)
{
	uint64_t v = 0;

	if (f->size == 8 && f->offset + 8 <= r->len)
		memcpy(&v, r->data + f->offset, 8);
	return v;
}

/* Every bprint record's ip symbol and fmt string, in order. */
static void test_lookups(void)
{
	char err[256];
	struct hist_tracedat *td = hist_tracedat_open(TRACE, err, sizeof(err));
	const struct hist_ftrace_event *ev;
	const struct hist_field_desc *fip, *ffmt;
	struct hist_ftrace_record r;
	unsigned na = 0, nb = 0;

	T_ASSERT(td != NULL);
	if (!td) {
		printf("# %s: %s\n", TRACE, err);
		return;
	}
	ev = hist_tracedat_find_event(td, "ftrace", "bprint");
	T_ASSERT(ev != NULL);
	fip = ev ? tool_find_field(&ev->desc, "ip") : NULL;
	ffmt = ev ? tool_find_field(&ev->desc, "fmt") : NULL;
	T_ASSERT(fip && ffmt);
	if (!fip || !ffmt) {
		hist_tracedat_close(td);
		return;
	}
	while (hist_tracedat_next(td, &r) > 0) {
		struct rec *x;
		uint64_t ip, fmt;
		const char *f;

		if (r.type != ev->desc.id || nr_recs == MAX_RECS)
			continue;
		x = &recs[nr_recs++];
		ip = read_u64(&r, fip);
		fmt = read_u64(&r, ffmt);
		T_ASSERT(hist_tracedat_sym(td, ip, 0, x->sym, sizeof(x->sym)) > 0);
		f = hist_tracedat_printk_fmt(td, fmt);
		T_ASSERT(f != NULL);
		if (!f)
			continue;
		/* a copy: the string lives as long as TD */
		snprintf(x->fmt, sizeof(x->fmt), "%s", f);
		/* each function wrote its own format */
		if (!strcmp(x->fmt, fmt_a)) {
			na++;
			T_STREQ(x->sym, "hist_bprint_a [hist_bprint]");	/* as %ps */
		} else {
			nb++;
			T_STREQ(x->fmt, fmt_b);
			T_STREQ(x->sym, "hist_bprint_b [hist_bprint]");
		}
		/* an address that is not a format's start finds nothing */
		T_ASSERT(hist_tracedat_printk_fmt(td, fmt + 1) == NULL);
	}
	T_EQ(hist_tracedat_error(td)[0], 0);
	T_EQU(nr_recs, 15);
	T_EQU(na, 10);
	T_EQU(nb, 5);
	hist_tracedat_close(td);
}

/* The same records as `trace-cmd report` prints them. */
static void test_report(void)
{
	FILE *f;
	char line[1024];
	unsigned n = 0;

	if (system("command -v trace-cmd >/dev/null 2>&1") != 0) {
		printf("# SKIP report: no trace-cmd\n");
		return;
	}
	snprintf(line, sizeof(line), "trace-cmd report %s 2>/dev/null", TRACE);
	f = popen(line, "r");
	T_ASSERT(f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		/* "  insmod-149 [001] 17.247348: bprint: hist_bprint_a: hist_bprint a: i=0 sq=0" */
		char *p = strstr(line, " bprint:"), *func, *text;
		size_t pre;

		if (!p)
			continue;
		func = p + 8;
		while (*func == ' ')
			func++;
		text = strstr(func, ": ");
		T_ASSERT(text != NULL);
		if (!text || n >= nr_recs) {
			n++;
			continue;
		}
		*text = 0;
		text += 2;
		/* report leaves out the " [module]" that %ps appends */
		if (strncmp(func, recs[n].sym, strcspn(recs[n].sym, " ")) ||
		    strlen(func) != strcspn(recs[n].sym, " "))
			T_FAILF("record %u: report '%s', sym '%s'", n, func, recs[n].sym);
		/* report prints the format filled in: its start up to the
		 * first conversion is the text's start */
		if (recs[n].fmt[0]) {
			pre = strcspn(recs[n].fmt, "%");
			if (strncmp(text, recs[n].fmt, pre))
				T_FAILF("record %u: report '%s', format '%s'", n, text,
					recs[n].fmt);
		}
		n++;
	}
	pclose(f);
	T_EQU(n, nr_recs);
}

/*
 * hist-replay over the recording: --list counts the bprint records as
 * trace-cmd report does (15) and shows the fields the records' lookups
 * use; a hist trigger on ftrace/bprint is refused as the kernel refuses
 * it (no trigger file, the case's writes), exit 1, naming the file.
 */
static void test_cli(void)
{
	char cmd[512], line[512];
	FILE *f;
	int count = 0, ip = 0, fmt = 0, refused = 0;

	if (system("test -x build/hist-replay") != 0) {
		printf("# SKIP hist-replay: build/hist-replay is not built\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "build/hist-replay --list %s 2>&1", TRACE);
	f = popen(cmd, "r");
	T_ASSERT(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		unsigned n;

		if (sscanf(line, " ftrace:bprint %u records", &n) == 1)
			count = (int)n;
		ip += !strncmp(line, "    ip ", 7) && strstr(line, "unsigned long") != NULL;
		fmt += !strncmp(line, "    fmt ", 8) && strstr(line, "const char *") != NULL;
	}
	if (f)
		T_EQ(pclose(f), 0);
	T_EQ(count, (int)nr_recs);
	T_EQ(ip, 1);
	T_EQ(fmt, 1);
	snprintf(cmd, sizeof(cmd),
		 "build/hist-replay -t 'ftrace/bprint hist:keys=ip.sym' %s 2>&1; echo rc=$?", TRACE);
	f = popen(cmd, "r");
	T_ASSERT(f != NULL);
	while (f && fgets(line, sizeof(line), f))
		refused += strstr(line, "no events/ftrace/bprint/trigger") != NULL ||
			   !strcmp(line, "rc=1\n");
	if (f)
		pclose(f);
	T_EQ(refused, 2);
}

int main(void)
{
	size_t i;

	for (i = 0; i < NR_TRACES; i++) {
		TRACE = traces[i];
		nr_recs = 0;
		printf("# %s\n", TRACE);
		T_RUN(test_lookups);
		T_RUN(test_report);
		T_RUN(test_cli);
	}
	return T_DONE();
}
