/* SPDX-License-Identifier: MIT */
/*
 * The event filter language: grammar, typing, errors with the kernel's
 * errno/message/caret, glob and cpulist semantics, evaluation order, and
 * bounded reads of short or hostile records.
 */
#include "harness.h"

#include <stdlib.h>

#include "filter/filter.h"

/* ------------------------------------------------------------------------
 * Fixtures
 */

/* sched_switch as a 6.x kernel lays it out */
static const struct hist_field_desc sw_fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	{ "prev_comm", "char[16]", 8, 16, 0, HIST_FIELD_STRING },
	{ "prev_pid", "pid_t", 24, 4, 1, HIST_FIELD_INT },
	{ "prev_prio", "int", 28, 4, 1, HIST_FIELD_INT },
	{ "prev_state", "long", 32, 8, 1, HIST_FIELD_INT },
	{ "next_comm", "char[16]", 40, 16, 0, HIST_FIELD_STRING },
	{ "next_pid", "pid_t", 56, 4, 1, HIST_FIELD_INT },
	{ "next_prio", "int", 60, 4, 1, HIST_FIELD_INT },
};
#define SW_LEN 64

/* every other field kind */
static const struct hist_field_desc misc_fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	{ "filename", "__data_loc char[]", 8, 4, 0, HIST_FIELD_DYN_STRING },
	{ "relname", "__rel_loc char[]", 12, 4, 0, HIST_FIELD_REL_STRING },
	{ "mask", "__data_loc cpumask_t[]", 16, 4, 0, HIST_FIELD_DYN_ARRAY },
	{ "ptr", "const char *", 24, 8, 0, HIST_FIELD_PTR_STRING },
	{ "args", "unsigned long[6]", 32, 48, 0, HIST_FIELD_ARRAY },
	{ "u8v", "u8", 80, 1, 0, HIST_FIELD_INT },
	{ "s8v", "s8", 81, 1, 1, HIST_FIELD_INT },
	{ "u16v", "u16", 82, 2, 0, HIST_FIELD_INT },
	{ "s16v", "s16", 84, 2, 1, HIST_FIELD_INT },
	{ "u32v", "u32", 88, 4, 0, HIST_FIELD_INT },
	{ "u64v", "u64", 96, 8, 0, HIST_FIELD_INT },
	{ "s64v", "s64", 104, 8, 1, HIST_FIELD_INT },
	{ "odd", "u8[3]", 112, 3, 0, HIST_FIELD_INT },
	{ "comm", "char[16]", 116, 16, 0, HIST_FIELD_STRING },
};
#define MISC_PAYLOAD 136

/* ftrace:print: text running to the end of the record */
static const struct hist_field_desc print_fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	{ "ip", "unsigned long", 8, 8, 0, HIST_FIELD_INT },
	{ "buf", "char[]", 16, 0, 0, HIST_FIELD_FLEX_STRING },
};

static struct hist_event *sw, *misc, *print_ev, *hosted;
static uint8_t rec[512];

static int comm_calls;

static int host_comm(void *data, int32_t pid, char comm[16])
{
	(void)data;
	comm_calls++;
	if (pid != 42)
		return -1;
	memcpy(comm, "hostcomm", 9);
	return 0;
}

/* schedule() lives at 0x1000..0x10ff; nothing else is known */
static int host_sym(void *data, uint64_t addr, int with_offset, char *buf,
		    size_t len)
{
	(void)data;
	if (addr < 0x1000 || addr >= 0x1100)
		return -1;
	if (!with_offset)
		return snprintf(buf, len, "schedule");
	return snprintf(buf, len, "schedule+0x%llx/0x100",
			(unsigned long long)(addr - 0x1000));
}

static const struct hist_host test_host = {
	.comm = host_comm,
	.sym = host_sym,
};

static struct hist_event *make_event(const char *name,
				     const struct hist_field_desc *fields,
				     uint32_t n, const struct hist_host *host)
{
	struct hist_event_desc d = { "test", name, 1, fields, n, NULL };

	return hist__event_new(NULL, host, &d);
}

static void put(uint32_t off, uint64_t v, uint32_t size)
{
	memcpy(rec + off, &v, size);	/* little-endian hosts */
}

static void put_str(uint32_t off, const char *s, uint32_t size)
{
	memset(rec + off, 0, size);
	memcpy(rec + off, s, strlen(s) < size ? strlen(s) : size);
}

/* a sched_switch record */
static void sw_rec(const char *prev, int32_t prev_pid, int32_t prev_prio,
		   int64_t prev_state, const char *next, int32_t next_pid,
		   int32_t next_prio)
{
	memset(rec, 0, sizeof(rec));
	put(0, 316, 2);
	put(4, 1000, 4);
	put_str(8, prev, 16);
	put(24, (uint32_t)prev_pid, 4);
	put(28, (uint32_t)prev_prio, 4);
	put(32, (uint64_t)prev_state, 8);
	put_str(40, next, 16);
	put(56, (uint32_t)next_pid, 4);
	put(60, (uint32_t)next_prio, 4);
}

/* a misc record with FILENAME and RELNAME as dynamic strings */
static size_t misc_rec(const char *filename, const char *relname)
{
	uint32_t off = MISC_PAYLOAD, len;

	memset(rec, 0, sizeof(rec));
	len = (uint32_t)strlen(filename) + 1;
	memcpy(rec + off, filename, len);
	put(8, (uint64_t)len << 16 | off, 4);
	off += len;
	len = (uint32_t)strlen(relname) + 1;
	memcpy(rec + off, relname, len);
	put(12, (uint64_t)len << 16 | (off - 16), 4);
	return off + len;
}

static struct hist_filter *compile(struct hist_event *ev, const char *text)
{
	struct hist__filter_err e;
	struct hist_filter *f = hist__filter_compile(ev, text, strlen(text), &e);

	if (!f)
		printf("#   '%s' rejected: code %d msg %d pos %u\n", text, e.code,
		       e.msg, e.pos);
	return f;
}

/* 1/0 = matched or not, -1 = did not compile */
static int fmatch(struct hist_event *ev, const char *text, size_t len,
		  const struct hist_hit *hit)
{
	struct hist_filter *f = compile(ev, text);
	struct hist__rec r;
	int m;

	if (!f)
		return -1;
	hist__rec_init(&r, ev, rec, len, hit);
	m = hist__filter_match(f, &r);
	hist__filter_destroy(f);
	return m;
}

#define M(ev, text, len, hit, want) T_EQ(fmatch(ev, text, len, hit), want)
#define SW(text, want) M(sw, text, SW_LEN, NULL, want)

static int check_err(struct hist_event *ev, const char *text, int code,
		     int msg, uint32_t pos)
{
	struct hist__filter_err e;
	struct hist_filter *f = hist__filter_compile(ev, text, strlen(text), &e);

	if (f) {
		printf("#   '%s' compiled, expected an error\n", text);
		hist__filter_destroy(f);
		return 0;
	}
	if (e.code != code || e.msg != msg || e.pos != pos) {
		printf("#   '%s': code %d msg %d pos %u, expected %d %d %u\n",
		       text, e.code, e.msg, e.pos, code, msg, pos);
		return 0;
	}
	return 1;
}

#define ERR(ev, text, code, msg, pos) T_ASSERT(check_err(ev, text, code, msg, pos))
#define EINVAL_ (-HIST_EINVAL)
#define EPERM_ (-HIST_EPERM)
#define ENOENT_ (-HIST_ENOENT)
#define ESRCH_ (-HIST_ESRCH)

/* ------------------------------------------------------------------------
 * Grammar, and the kernel's answers
 */

/* filters that Linux 6.18 accepts */
static void test_spec_accepted(void)
{
	static const char *const ok[] = {
		"prev_comm==\"bash\" && next_pid > 10 || (prev_pid & 0x3)",
		"prev_comm ~ \"ba*\"",
		"!(prev_pid == 1)",
		"!prev_pid == 1",
		"common_cpu == 0",
		"cpu & CPUS{0-1}",
		"prev_pid == -1",
		"prev_comm == 'bash'",
		"prev_comm ~ \"*ba[sz]h\"",
		"prev_comm ~ \"!ba*\"",
		"prev_pid == 010",
		"COMM == \"bash\"",
		"comm ~ \"b*\"",
		"prev_pid & 1 && prev_pid & 2",
		"prev_pid == 1 ||",
		"prev_pid == 1 &&",
		"prev_pid == CPUS{0}",
	};
	unsigned i;

	for (i = 0; i < HIST__ARRAY_SIZE(ok); i++) {
		struct hist_filter *f = compile(sw, ok[i]);

		T_ASSERT(f != NULL);
		if (f)
			T_STREQ(hist__filter_text(f), ok[i]);
		hist__filter_destroy(f);
	}
}

/* filter errors with the caret where the kernel's error_log puts it */
static void test_caret_table(void)
{
	char longstr[300];

	ERR(sw, "nosuch == 1", EINVAL_, HIST_FILTER_ERR_FIELD_NOT_FOUND, 7);
	ERR(sw, "common_comm == \"x\"", EINVAL_, HIST_FILTER_ERR_FIELD_NOT_FOUND, 12);
	ERR(sw, "(prev_pid == 1", ENOENT_, HIST_FILTER_ERR_TOO_MANY_OPEN, 0);
	/*       prev_pid == 1 || ((prev_pid == 2)
	 *                        ^ */
	ERR(sw, "prev_pid == 1 || ((prev_pid == 2)", ENOENT_,
	    HIST_FILTER_ERR_TOO_MANY_OPEN, 17);
	ERR(sw, "prev_pid == 1)", EPERM_, HIST_FILTER_ERR_TOO_MANY_CLOSE, 13);
	ERR(sw, "prev_comm == \"abc", ESRCH_, HIST_FILTER_ERR_MISSING_QUOTE, 13);
	ERR(sw, "prev_pid === 1", EINVAL_, HIST_FILTER_ERR_INVALID_VALUE, 12);
	ERR(sw, "prev_pid == abc", EINVAL_, HIST_FILTER_ERR_INVALID_VALUE, 13);
	ERR(sw, "prev_comm==bash", EINVAL_, HIST_FILTER_ERR_INVALID_VALUE, 12);
	ERR(sw, "prev_pid == 99999999999999999999999", EINVAL_,
	    HIST_FILTER_ERR_ILLEGAL_INTVAL, 13);
	ERR(sw, "prev_pid == 1a", EINVAL_, HIST_FILTER_ERR_ILLEGAL_INTVAL, 13);
	ERR(sw, "prev_pid == 0x1234567890123456789012345", EINVAL_,
	    HIST_FILTER_ERR_OPERAND_TOO_LONG, 40);
	snprintf(longstr, sizeof(longstr), "prev_comm == \"%0256d\"", 0);
	ERR(sw, longstr, EINVAL_, HIST_FILTER_ERR_OPERAND_TOO_LONG,
	    (uint32_t)strlen(longstr));
	/*       prev_comm == "a" & prev_pid == 1
	 *                        ^ */
	ERR(sw, "prev_comm == \"a\" & prev_pid == 1", EPERM_,
	    HIST_FILTER_ERR_TOO_MANY_PREDS, 17);
	ERR(sw, "prev_pid == 1 & prev_pid == 2", EPERM_,
	    HIST_FILTER_ERR_TOO_MANY_PREDS, 14);
	ERR(sw, "prev_comm < \"a\"", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 13);
	ERR(sw, "prev_pid ~ 3", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 12);
	ERR(sw, "prev_comm & CPUS{0}", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 13);
	ERR(sw, "prev_pid.function == 1", EINVAL_,
	    HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 22);
	ERR(sw, "prev_comm == 1", EINVAL_, HIST_FILTER_ERR_EXPECT_STRING, 14);
	ERR(sw, "prev_pid == \"1\"", EINVAL_, HIST_FILTER_ERR_EXPECT_DIGIT, 13);
	ERR(sw, "prev_pid=1", EINVAL_, HIST_FILTER_ERR_INVALID_OP, 9);
	ERR(sw, "cpu == CPUS{abc}", EINVAL_, HIST_FILTER_ERR_INVALID_CPULIST, 16);
	ERR(sw, "cpu == CPUS{0", EINVAL_, HIST_FILTER_ERR_MISSING_BRACE_CLOSE, 14);
}

/* the recorded 6.1 write errnos of cases b68..b77 */
static void test_recorded_errnos(void)
{
	ERR(sw, "nosuchfield == 1", EINVAL_, HIST_FILTER_ERR_FIELD_NOT_FOUND, 12);
	ERR(sw, "prev_comm == 5", EINVAL_, HIST_FILTER_ERR_EXPECT_STRING, 14);
	ERR(sw, "next_pid == \"abc\"", EINVAL_, HIST_FILTER_ERR_EXPECT_DIGIT, 13);
	ERR(sw, "prev_comm == \"sh", ESRCH_, HIST_FILTER_ERR_MISSING_QUOTE, 13);
	ERR(sw, "common_pid == next_pid", EINVAL_, HIST_FILTER_ERR_INVALID_VALUE, 15);
	ERR(misc, "filename==/bin/cat", EINVAL_, HIST_FILTER_ERR_INVALID_VALUE, 11);
	ERR(sw, "prev_pid > 0)", EPERM_, HIST_FILTER_ERR_TOO_MANY_CLOSE, 12);
}

/* failures the kernel reports with no parser message ("Error: (0)") */
static void test_errors_without_message(void)
{
	ERR(sw, "()", EINVAL_, HIST_FILTER_ERR_ERRNO, 0);
	ERR(sw, "", EINVAL_, HIST_FILTER_ERR_ERRNO, 0);
	ERR(sw, "   ", EINVAL_, HIST_FILTER_ERR_ERRNO, 0);
	ERR(sw, "&& prev_pid == 1", EPERM_, HIST_FILTER_ERR_ERRNO, 0);
	ERR(sw, "== 1", EPERM_, HIST_FILTER_ERR_ERRNO, 0);
	ERR(sw, "prev_pid == 1 && || next_pid == 1", EPERM_,
	    HIST_FILTER_ERR_ERRNO, 0);
	ERR(sw, "prev_pid == 1 && ()", EPERM_, HIST_FILTER_ERR_ERRNO, 0);
	ERR(sw, "(!)", EPERM_, HIST_FILTER_ERR_ERRNO, 0);
	ERR(sw, "!= 1", EPERM_, HIST_FILTER_ERR_ERRNO, 0);
	/* only '!': the token walk ends with no predicate */
	ERR(sw, "!", EINVAL_, HIST_FILTER_ERR_NO_FILTER, 1);
	ERR(sw, "! !", EINVAL_, HIST_FILTER_ERR_NO_FILTER, 3);
}

static void test_term_errors(void)
{
	/* anything but ')', "&&", "||" or the end after a predicate */
	ERR(sw, "prev_pid == 1 next_pid == 2", EPERM_,
	    HIST_FILTER_ERR_TOO_MANY_PREDS, 14);
	ERR(sw, "(prev_pid == 1) (next_pid == 2)", EPERM_,
	    HIST_FILTER_ERR_TOO_MANY_PREDS, 16);
	ERR(sw, "prev_pid == 1 | next_pid == 2", EPERM_,
	    HIST_FILTER_ERR_TOO_MANY_PREDS, 14);
	ERR(sw, "prev_pid == 1.5", EPERM_, HIST_FILTER_ERR_TOO_MANY_PREDS, 13);
	ERR(sw, "prev_pid == 1 !", EPERM_, HIST_FILTER_ERR_TOO_MANY_PREDS, 14);
	ERR(sw, "prev_comm == \"a\"\"b\"", EPERM_,
	    HIST_FILTER_ERR_TOO_MANY_PREDS, 16);
}

static void test_operator_errors(void)
{
	ERR(sw, "prev_pid =~ 1", EINVAL_, HIST_FILTER_ERR_INVALID_OP, 10);
	ERR(sw, "prev_comm !~ \"a\"", EINVAL_, HIST_FILTER_ERR_INVALID_OP, 11);
	ERR(sw, "prev_pid.foo == 1", EINVAL_, HIST_FILTER_ERR_INVALID_OP, 9);
	ERR(sw, "prev_pid", EINVAL_, HIST_FILTER_ERR_INVALID_OP, 9);
	/* "<" matches, then ">" is no value */
	ERR(sw, "prev_pid <> 1", EINVAL_, HIST_FILTER_ERR_INVALID_VALUE, 11);
	ERR(sw, "prev_pid ==", EINVAL_, HIST_FILTER_ERR_INVALID_VALUE, 12);
	/* carets are counted from the start of the whole text */
	ERR(sw, "prev_pid == 1 && nosuch == 1", EINVAL_,
	    HIST_FILTER_ERR_FIELD_NOT_FOUND, 24);
	ERR(sw, "(prev_pid == 1) || !(next_pid < \"x\")", EINVAL_,
	    HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 33);
	/* the string-op check comes before the string-field check */
	ERR(sw, "prev_pid < \"1\"", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 12);
	/* ~ with a number on a string field: the field type wins */
	ERR(sw, "prev_comm ~ 1", EINVAL_, HIST_FILTER_ERR_EXPECT_STRING, 13);
}

static void test_trailing_and_or(void)
{
	sw_rec("a", 1, 0, 0, "b", 2, 0);
	SW("prev_pid == 1 &&", 1);
	SW("prev_pid == 1 ||", 1);
	SW("prev_pid == 2 &&", 0);
	SW("prev_pid == 2 ||", 0);
	/* only at the very end: inside a group a predicate must follow */
	ERR(sw, "(prev_pid == 2 ||)", EPERM_, HIST_FILTER_ERR_ERRNO, 0);
	ERR(sw, "next_pid == 2 && (prev_pid == 1 &&)", EPERM_,
	    HIST_FILTER_ERR_ERRNO, 0);
}

static void test_whitespace(void)
{
	sw_rec("bash", 1, 120, 0, "ls", 2, 120);
	SW("prev_pid==1&&next_pid==2", 1);
	SW("\tprev_pid\t==\t1\n&&\nnext_pid  ==  2 ", 1);
	SW("( prev_pid == 1 )", 1);
	SW("prev_comm==\"bash\"||next_pid==3", 1);
	SW("!prev_pid==1", 0);
	SW("! ! prev_pid == 1", 1);
}

/* the balance pass skips quoted text, in both directions */
static void test_quotes_in_balance_pass(void)
{
	sw_rec("(", 0, 0, 0, ")", 0, 0);
	SW("prev_comm == \"(\" && next_comm == ')'", 1);
	/*       prev_comm == "a" || next_comm == 'b
	 *                                        ^ */
	ERR(sw, "prev_comm == \"a\" || next_comm == 'b", ESRCH_,
	    HIST_FILTER_ERR_MISSING_QUOTE, 33);
	ERR(sw, "(prev_comm == \")\"", ENOENT_, HIST_FILTER_ERR_TOO_MANY_OPEN, 0);
	ERR(sw, "prev_pid == 1 || (prev_comm == \")(\"", ENOENT_,
	    HIST_FILTER_ERR_TOO_MANY_OPEN, 17);
	ERR(sw, "prev_comm == \"(\" )", EPERM_, HIST_FILTER_ERR_TOO_MANY_CLOSE, 17);
	ERR(sw, "(prev_pid == 1)) || (next_pid == 1", EPERM_,
	    HIST_FILTER_ERR_TOO_MANY_CLOSE, 15);
}

/* '!' before '=' or '~' belongs to the operator */
static void test_not_and_ne(void)
{
	sw_rec("x", 1, 0, 0, "y", 2, 0);
	SW("prev_pid !=1", 0);
	SW("!prev_pid != 1", 1);
	SW("!!prev_pid == 1", 1);
	SW("!(prev_pid == 1) || !(next_pid == 2)", 0);
	SW("!(prev_pid == 1) || !(next_pid != 2)", 1);
	SW("!(prev_pid == 1 && !(next_pid == 3))", 0);
	SW("!(!prev_pid == 1 || next_pid == 3)", 1);
}

/* "0" clears an event filter; that is the caller's business */
static void test_zero_is_a_field_name(void)
{
	ERR(sw, "0", EINVAL_, HIST_FILTER_ERR_FIELD_NOT_FOUND, 2);
	ERR(sw, "1 == 1", EINVAL_, HIST_FILTER_ERR_FIELD_NOT_FOUND, 2);
	ERR(sw, "prev_pid == 1 || 2", EINVAL_, HIST_FILTER_ERR_FIELD_NOT_FOUND, 19);
}

/* ------------------------------------------------------------------------
 * Numbers
 */

static void test_numeric_ops(void)
{
	sw_rec("a", 10, -5, -1, "b", 0, 0);
	SW("prev_pid == 10", 1);
	SW("prev_pid != 10", 0);
	SW("prev_pid < 11", 1);
	SW("prev_pid < 10", 0);
	SW("prev_pid <= 10", 1);
	SW("prev_pid > 9", 1);
	SW("prev_pid > 10", 0);
	SW("prev_pid >= 10", 1);
	SW("prev_pid >= 11", 0);
	SW("prev_pid & 2", 1);
	SW("prev_pid & 5", 0);
	SW("prev_pid & 1 && prev_pid & 2", 0);
	sw_rec("a", 3, -5, -1, "b", 0, 0);
	SW("prev_pid & 1 && prev_pid & 2", 1);
}

static void test_signedness(void)
{
	sw_rec("a", -3, -5, -1, "b", 0, 0);
	SW("prev_pid < 0", 1);
	SW("prev_pid == -3", 1);
	SW("prev_pid > -4", 1);
	SW("prev_state < 0", 1);
	SW("prev_state == -1", 1);
	/* too big for a signed field */
	ERR(sw, "prev_state == 0xffffffffffffffff", EINVAL_,
	    HIST_FILTER_ERR_ILLEGAL_INTVAL, 15);
	SW("prev_prio >= -5 && prev_prio <= -5", 1);
	/* unsigned fields take no minus sign */
	ERR(sw, "common_type == -1", EINVAL_, HIST_FILTER_ERR_ILLEGAL_INTVAL, 16);
	SW("common_type == 316", 1);

	memset(rec, 0, sizeof(rec));
	put(80, 0xff, 1);
	put(81, 0x80, 1);
	put(82, 0xfffe, 2);
	put(84, 0x8000, 2);
	put(88, 0x80000000u, 4);
	put(96, 0xffffffffffffffffull, 8);
	put(104, 0x8000000000000000ull, 8);
	M(misc, "u8v == 255", 200, NULL, 1);
	M(misc, "u8v > 254", 200, NULL, 1);
	/* the constant is cut to the field's width, as the kernel casts it */
	M(misc, "u8v == 511", 200, NULL, 1);
	M(misc, "s8v < 0", 200, NULL, 1);
	M(misc, "s8v == -128", 200, NULL, 1);
	M(misc, "s8v == 128", 200, NULL, 1);
	M(misc, "u16v == 65534 && u16v > 1", 200, NULL, 1);
	M(misc, "s16v < -32767", 200, NULL, 1);
	M(misc, "u32v > 0x7fffffff", 200, NULL, 1);
	M(misc, "u64v == 0xffffffffffffffff", 200, NULL, 1);
	M(misc, "u64v > 18446744073709551614", 200, NULL, 1);
	M(misc, "s64v < 0", 200, NULL, 1);
	M(misc, "s64v == -9223372036854775808", 200, NULL, 1);
}

static void test_number_syntax(void)
{
	sw_rec("a", 8, 16, -16, "b", 0, 0);
	SW("prev_pid == 010", 1);
	SW("prev_prio == 0x10", 1);
	SW("prev_prio == 0X10", 1);
	SW("prev_state == -0x10", 1);
	SW("prev_state == -020", 1);
	ERR(sw, "prev_pid == 09", EINVAL_, HIST_FILTER_ERR_ILLEGAL_INTVAL, 13);
	ERR(sw, "prev_pid == -", EINVAL_, HIST_FILTER_ERR_ILLEGAL_INTVAL, 13);
	ERR(sw, "prev_pid == 0x", EINVAL_, HIST_FILTER_ERR_ILLEGAL_INTVAL, 13);
	ERR(sw, "prev_pid == 1_000", EPERM_, HIST_FILTER_ERR_TOO_MANY_PREDS, 13);
	/* 23 characters pass, 24 do not */
	SW("prev_pid == 00000000000000000000010", 1);
	ERR(sw, "prev_pid == 000000000000000000000010", EINVAL_,
	    HIST_FILTER_ERR_OPERAND_TOO_LONG, 37);
	/* ~ on a number is illegal whatever follows */
	ERR(sw, "prev_pid ~ -1", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 12);
}

/* fields whose size is not 1, 2, 4 or 8 compile and never match */
static void test_odd_sizes(void)
{
	memset(rec, 0, sizeof(rec));
	M(misc, "odd == 0", 200, NULL, 0);
	M(misc, "odd != 0", 200, NULL, 0);
	M(misc, "args == 0", 200, NULL, 0);
	M(misc, "args & CPUS{1,2}", 200, NULL, 0);
	M(misc, "!(args == 0)", 200, NULL, 1);
	ERR(misc, "args == \"x\"", EINVAL_, HIST_FILTER_ERR_EXPECT_DIGIT, 9);
}

/* ------------------------------------------------------------------------
 * Strings
 */

static void test_string_eq(void)
{
	sw_rec("bash", 1, 0, 0, "sleep", 2, 0);
	SW("prev_comm == \"bash\"", 1);
	SW("prev_comm == 'bash'", 1);
	SW("prev_comm != \"bash\"", 0);
	SW("prev_comm == \"bas\"", 0);
	SW("prev_comm == \"bash1\"", 0);
	SW("prev_comm == \"\"", 0);
	SW("next_comm != \"sh\"", 1);
	SW("prev_comm == \"ba*\"", 0);	/* '==' has no wildcards */
	SW("prev_comm == 'a\"b' || next_comm == \"sleep\"", 1);
	SW("prev_comm == \"a)b\" || next_comm == \"(\"", 0);
	/* a full char[16] with no NUL compares its 16 bytes only */
	sw_rec("0123456789abcdef", 1, 0, 0, "", 2, 0);
	SW("prev_comm == \"0123456789abcdef\"", 1);
	SW("prev_comm == \"0123456789abcdefXYZ\"", 1);
	SW("prev_comm == \"0123456789abcde\"", 0);
	SW("next_comm == \"\"", 1);
}

static void test_string_limits(void)
{
	char text[300];

	struct hist_filter *f;

	snprintf(text, sizeof(text), "prev_comm == \"%0255d\"", 0);
	f = compile(sw, text);
	T_ASSERT(f != NULL);
	hist__filter_destroy(f);
	snprintf(text, sizeof(text), "prev_comm == \"%0256d\"", 0);
	ERR(sw, text, EINVAL_, HIST_FILTER_ERR_OPERAND_TOO_LONG, 271);
	ERR(sw, "prev_comm == bash", EINVAL_, HIST_FILTER_ERR_INVALID_VALUE, 14);
	ERR(sw, "prev_comm > 'a'", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 13);
	ERR(sw, "prev_comm & 'a'", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 13);
	ERR(sw, "prev_comm == -1", EINVAL_, HIST_FILTER_ERR_EXPECT_STRING, 14);
}

static void test_glob_fast_paths(void)
{
	size_t len = misc_rec("/usr/bin/bash", "");

	M(misc, "filename ~ \"/usr*\"", len, NULL, 1);	/* prefix */
	M(misc, "filename ~ \"/bin*\"", len, NULL, 0);
	M(misc, "filename ~ \"*bash\"", len, NULL, 1);	/* suffix */
	M(misc, "filename ~ \"*bas\"", len, NULL, 0);
	M(misc, "filename ~ \"*bin*\"", len, NULL, 1);	/* substring */
	M(misc, "filename ~ \"*sbin*\"", len, NULL, 0);
	M(misc, "filename ~ \"*\"", len, NULL, 1);
	M(misc, "filename ~ \"**\"", len, NULL, 1);
	M(misc, "filename ~ \"/usr/bin/bash\"", len, NULL, 1);	/* full */
	M(misc, "filename ~ \"/usr/bin\"", len, NULL, 0);
	/* '!' in front negates */
	M(misc, "filename ~ \"!/usr*\"", len, NULL, 0);
	M(misc, "filename ~ \"!*zsh\"", len, NULL, 1);
	M(misc, "filename ~ \"!\"", len, NULL, 1);
	/* but '!=' with a pattern is a literal compare */
	M(misc, "filename != \"/usr*\"", len, NULL, 1);

	/* a pattern that starts with a digit is a literal full match */
	len = misc_rec("1*x", "");
	M(misc, "filename ~ \"1*x\"", len, NULL, 1);
	len = misc_rec("12x", "");
	M(misc, "filename ~ \"1*x\"", len, NULL, 0);
	M(misc, "filename ~ \"!1*x\"", len, NULL, 1);
}

static void test_glob_full(void)
{
	size_t len = misc_rec("bash", "");

	M(misc, "filename ~ \"b?sh\"", len, NULL, 1);
	M(misc, "filename ~ \"b??sh\"", len, NULL, 0);
	M(misc, "filename ~ \"[a-c]ash\"", len, NULL, 1);
	M(misc, "filename ~ \"[c-z]ash\"", len, NULL, 0);
	M(misc, "filename ~ \"[!x]ash\"", len, NULL, 1);
	M(misc, "filename ~ \"[!b]ash\"", len, NULL, 0);
	M(misc, "filename ~ \"[xyb]a[sz]h\"", len, NULL, 1);
	M(misc, "filename ~ \"*ba[sz]h\"", len, NULL, 1);
	M(misc, "filename ~ \"b*h\"", len, NULL, 1);
	M(misc, "filename ~ \"b*s*\"", len, NULL, 1);
	M(misc, "filename ~ \"b*x*\"", len, NULL, 0);
	M(misc, "filename ~ \"*a*h\"", len, NULL, 1);
	M(misc, "filename ~ \"!b?sh\"", len, NULL, 0);
	M(misc, "filename ~ \"ba\\sh\"", len, NULL, 1);	/* \s = s */
	/* an unclosed '[' is an ordinary character */
	len = misc_rec("a[b", "");
	M(misc, "filename ~ \"a[b\"", len, NULL, 1);
	M(misc, "filename ~ \"?[b\"", len, NULL, 1);
	len = misc_rec("a*b", "");
	M(misc, "filename ~ \"a\\*b\"", len, NULL, 1);
	len = misc_rec("axb", "");
	M(misc, "filename ~ \"a\\*b\"", len, NULL, 0);
	/* ']' first in a class is a member; '-' last is literal */
	len = misc_rec("]-", "");
	M(misc, "filename ~ \"[]x][x-]\"", len, NULL, 1);
	/* backtracking over several stars */
	len = misc_rec("abcabcabd", "");
	M(misc, "filename ~ \"*abc*abd\"", len, NULL, 1);
	M(misc, "filename ~ \"a*c?b*d\"", len, NULL, 1);
	M(misc, "filename ~ \"a*c?b*e\"", len, NULL, 0);
}

/*
 * The kernel's "*x" looks at the bytes just before the end of the field:
 * on a char[16] (and on comm) only a string of 15 characters can match.
 */
static void test_glob_suffix_on_arrays(void)
{
	struct hist_hit hit = { 0 };

	sw_rec("bash", 1, 0, 0, "0123456789abcde", 2, 0);
	SW("prev_comm ~ \"*sh\"", 0);
	SW("prev_comm ~ \"ba*\"", 1);
	SW("prev_comm ~ \"*as*\"", 1);
	SW("prev_comm ~ \"*a[s]h\"", 1);
	SW("next_comm ~ \"*cde\"", 1);
	SW("next_comm ~ \"*\"", 1);
	hit.comm = "bash";
	M(sw, "comm ~ \"*sh\"", SW_LEN, &hit, 0);
	M(sw, "comm ~ \"*?sh\"", SW_LEN, &hit, 1);
	hit.comm = "0123456789abcde";
	M(sw, "comm ~ \"*cde\"", SW_LEN, &hit, 1);
}

static void test_rel_and_flex_strings(void)
{
	size_t len = misc_rec("x", "relative");
	size_t plen;

	M(misc, "relname == \"relative\"", len, NULL, 1);
	M(misc, "relname ~ \"*tive\"", len, NULL, 1);
	M(misc, "relname ~ \"rel*\" && filename == \"x\"", len, NULL, 1);

	memset(rec, 0, sizeof(rec));
	memcpy(rec + 16, "hello world", 12);
	plen = 28;
	M(print_ev, "buf == \"hello world\"", plen, NULL, 1);
	M(print_ev, "buf ~ \"hello*\"", plen, NULL, 1);
	M(print_ev, "buf ~ \"*lo w*\"", plen, NULL, 1);
	M(print_ev, "buf ~ \"h?llo*d\"", plen, NULL, 1);
	/* size 0: the kernel's suffix matcher sees no bytes */
	M(print_ev, "buf ~ \"*world\"", plen, NULL, 0);
	/* no NUL before the end of the record: the text stops there */
	M(print_ev, "buf == \"hello\"", 21, NULL, 1);
	M(print_ev, "buf == \"\"", 10, NULL, 1);
}

static void test_ptr_string(void)
{
	memset(rec, 0, sizeof(rec));
	put(24, 0xffff888012345678ull, 8);
	/* the pointed-to text is not in the record: never true */
	M(misc, "ptr == \"x\"", 200, NULL, 0);
	M(misc, "ptr != \"x\"", 200, NULL, 0);
	M(misc, "ptr ~ \"*\"", 200, NULL, 0);
	M(misc, "ptr.ustring == \"x\"", 200, NULL, 0);
	ERR(misc, "ptr == 1", EINVAL_, HIST_FILTER_ERR_EXPECT_STRING, 8);
	ERR(misc, "ptr & CPUS{1}", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 7);
	/* .function reads the pointer as an address */
	M(misc, "ptr.function == 0xffff888012345678", 200, NULL, 1);
}

/* ------------------------------------------------------------------------
 * Logic
 */

static void test_precedence(void)
{
	int a, b, c;

	for (a = 0; a < 2; a++)
		for (b = 0; b < 2; b++)
			for (c = 0; c < 2; c++) {
				sw_rec("x", a, b, c, "y", 0, 0);
				SW("prev_pid == 1 || prev_prio == 1 && prev_state == 1",
				   a || (b && c));
				SW("prev_pid == 1 && prev_prio == 1 || prev_state == 1",
				   (a && b) || c);
				SW("(prev_pid == 1 || prev_prio == 1) && prev_state == 1",
				   (a || b) && c);
				SW("!(prev_pid == 1 || prev_prio == 1) && prev_state == 1",
				   !(a || b) && c);
				SW("!prev_pid == 1 || !(prev_prio == 1 && !(prev_state == 1))",
				   !a || !(b && !c));
			}
}

/* recorded case g22, evaluated */
static void test_g22_filters(void)
{
	struct hist_hit hit = { .cpu = 0 };

	sw_rec("x", 5, 120, 1, "y", 7, 0);
	SW("(prev_prio > 100 && prev_state == 1) || next_pid == 0", 1);
	sw_rec("x", 5, 100, 1, "y", 7, 0);
	SW("(prev_prio > 100 && prev_state == 1) || next_pid == 0", 0);
	sw_rec("x", 5, 100, 1, "y", 0, 0);
	SW("(prev_prio > 100 && prev_state == 1) || next_pid == 0", 1);
	M(sw, "CPU == 0 && common_pid != 0", SW_LEN, &hit, 1);
	hit.cpu = 1;
	M(sw, "CPU == 0 && common_pid != 0", SW_LEN, &hit, 0);
	sw_rec("x", 0, 0, 0, "y", 0, 0);
	SW("!(prev_pid == 0 || prev_pid == 1)", 0);
	sw_rec("x", 2, 0, 0, "y", 0, 0);
	SW("!(prev_pid == 0 || prev_pid == 1)", 1);
}

/* The kernel's own worked example "a && !(!b || (c && g)) || d || e && !f". */
static void test_kernel_example(void)
{
	static const char *const text =
		"u8v == 1 && !(!u16v == 1 || (u32v == 1 && s8v == 1)) || "
		"s16v == 1 || u64v == 1 && !s64v == 1";
	struct hist_filter *f = compile(misc, text);
	unsigned bits;

	T_ASSERT(f != NULL);
	for (bits = 0; f && bits < 128; bits++) {
		int a = bits & 1, b = !!(bits & 2), c = !!(bits & 4),
		    g = !!(bits & 8), d = !!(bits & 16), e = !!(bits & 32),
		    ff = !!(bits & 64);
		struct hist__rec r;

		memset(rec, 0, sizeof(rec));
		put(80, a, 1);
		put(82, b, 2);
		put(88, c, 4);
		put(81, g, 1);
		put(84, d, 2);
		put(96, e, 8);
		put(104, ff, 8);
		hist__rec_init(&r, misc, rec, 200, NULL);
		T_EQ(hist__filter_match(f, &r),
		     (a && !(!b || (c && g))) || d || (e && !ff));
	}
	hist__filter_destroy(f);
}

/* Random expressions against a reference evaluator. */
struct xnode {
	int kind;	/* 0 atom, 1 and, 2 or, 3 not */
	int atom;
	struct xnode *l, *r;
};

static uint64_t rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	return (unsigned)(t_xorshift(&rng) % n);
}

static struct xnode pool[4096];
static unsigned pool_n;

static struct xnode *gen(int depth)
{
	struct xnode *x = &pool[pool_n++];

	x->kind = depth <= 0 ? 0 : (int)rnd(4);
	x->atom = (int)rnd(4);
	if (x->kind == 1 || x->kind == 2) {
		x->l = gen(depth - 1);
		x->r = gen(depth - 1);
	} else if (x->kind == 3) {
		x->l = gen(depth - 1);
	}
	return x;
}

static int xeval(const struct xnode *x, unsigned bits)
{
	switch (x->kind) {
	case 0:
		return (bits >> x->atom) & 1;
	case 1:
		return xeval(x->l, bits) && xeval(x->r, bits);
	case 2:
		return xeval(x->l, bits) || xeval(x->r, bits);
	}
	return !xeval(x->l, bits);
}

static const char *const atoms[] = {
	"prev_pid == 1", "next_pid != 0", "prev_prio & 1", "prev_state >= 1",
};

/* print with the parentheses precedence needs, plus a few spare ones */
static void xprint(const struct xnode *x, char *buf, size_t *n, int parent)
{
	int paren = (x->kind == 2 && parent == 1) || rnd(8) == 0;
	const char *sp = rnd(2) ? " " : "";

	if (x->kind == 3) {
		*n += (size_t)sprintf(buf + *n, "!%s", sp);
		if (x->l->kind == 1 || x->l->kind == 2) {
			*n += (size_t)sprintf(buf + *n, "(");
			xprint(x->l, buf, n, 0);
			*n += (size_t)sprintf(buf + *n, ")");
		} else {
			xprint(x->l, buf, n, 3);
		}
		return;
	}
	if (paren)
		*n += (size_t)sprintf(buf + *n, "(%s", sp);
	if (x->kind == 0) {
		*n += (size_t)sprintf(buf + *n, "%s", atoms[x->atom]);
	} else {
		xprint(x->l, buf, n, x->kind);
		*n += (size_t)sprintf(buf + *n, "%s%s%s", sp,
				      x->kind == 1 ? "&&" : "||", sp);
		xprint(x->r, buf, n, x->kind);
	}
	if (paren)
		*n += (size_t)sprintf(buf + *n, "%s)", sp);
}

static void test_random_logic(void)
{
	static char buf[65536];
	int iter, bad = 0;

	for (iter = 0; iter < 3000 && !bad; iter++) {
		struct xnode *x;
		struct hist_filter *f;
		size_t n = 0;
		unsigned bits;

		pool_n = 0;
		x = gen((int)rnd(7));
		xprint(x, buf, &n, 0);
		f = compile(sw, buf);
		if (!f) {
			bad = 1;
			break;
		}
		for (bits = 0; bits < 16; bits++) {
			struct hist__rec r;

			sw_rec("x", bits & 1, (bits >> 2) & 1,
			       (bits >> 3) & 1, "y", (bits >> 1) & 1, 0);
			hist__rec_init(&r, sw, rec, SW_LEN, NULL);
			if (hist__filter_match(f, &r) != xeval(x, bits)) {
				printf("#   '%s' wrong for bits %u\n", buf, bits);
				bad = 1;
			}
		}
		hist__filter_destroy(f);
	}
	T_ASSERT(!bad);
}

/*
 * Filters that only compare integer fields with constants are evaluated
 * straight from the record (hist__filter_match_data(), the hit path of a
 * filtered hist): random such filters over every integer size and sign,
 * every operator, constants at and around the values, and records cut
 * anywhere, against hist__filter_match().  A string term takes the
 * general evaluator: covered by the last filters.
 */
static void test_plain_match_data(void)
{
	static const char *const names[] = { "u8v", "s8v", "u16v", "s16v", "u32v",
					     "u64v", "s64v", "common_pid", "odd" };
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=", "&" };
	static const char *const consts[] = { "0", "1", "-1", "2", "127", "128", "-128",
					      "255", "32767", "-32768", "65535",
					      "4294967295", "-2147483648", "0x8000000000000000" };
	static const char *const others[] = { "u8v == 1 && comm == \"ab\"",
					      "comm ~ \"a*\" || s16v < 0" };
	char text[256];
	int iter, bad = 0, compiled = 0;

	for (iter = 0; iter < 4000 && !bad; iter++) {
		struct hist_filter *f;
		int k, terms = 1 + (int)rnd(3);
		size_t n = 0;

		if (iter < 2) {
			n = (size_t)snprintf(text, sizeof(text), "%s", others[iter]);
		} else {
			for (k = 0; k < terms; k++)
				n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s %s %s",
						      k ? (rnd(2) ? " && " : " || ") : "",
						      names[rnd(HIST__ARRAY_SIZE(names))],
						      ops[rnd(HIST__ARRAY_SIZE(ops))],
						      consts[rnd(HIST__ARRAY_SIZE(consts))]);
		}
		/* negative constants for unsigned fields and the like are
		 * refused, as by the kernel: nothing to compare */
		f = hist__filter_compile(misc, text, n, NULL);
		if (!f)
			continue;
		compiled++;
		for (k = 0; k < 64; k++) {
			struct hist_hit hit = { .cpu = 1, .pid = -1 };
			struct hist__rec r;
			size_t len = rnd(8) ? MISC_PAYLOAD : rnd(MISC_PAYLOAD);
			unsigned i;

			for (i = 80; i < MISC_PAYLOAD; i++)
				rec[i] = (uint8_t)(rnd(4) == 0 ? rnd(256) : rnd(3) == 0 ? 0xff : rnd(3));
			memcpy(rec + 116, rnd(2) ? "ab\0" : "abc", 4);
			hist__rec_init(&r, misc, rec, len, &hit);
			if (hist__filter_match(f, &r) !=
			    hist__filter_match_data(f, misc, rec, len, &hit)) {
				printf("#   '%s' differs for a record of %zu bytes\n", text, len);
				bad = 1;
				break;
			}
		}
		hist__filter_destroy(f);
	}
	T_ASSERT(!bad);
	T_ASSERT(compiled > 1000);
	T_ASSERT(hist__filter_match_data(NULL, misc, NULL, 0, NULL));
}

static void test_deep_nesting(void)
{
	static char buf[8192];
	size_t n = 0;
	int i;

	for (i = 0; i < 2000; i++)
		buf[n++] = i % 3 ? '(' : '!';
	n += (size_t)sprintf(buf + n, "prev_pid == 1");
	for (i = 0; i < 2000; i++)
		if (i % 3)
			buf[n++] = ')';
	buf[n] = 0;
	/* 667 '!': odd, so the filter is "prev_pid != 1" */
	sw_rec("x", 1, 0, 0, "y", 0, 0);
	SW(buf, 0);
	sw_rec("x", 2, 0, 0, "y", 0, 0);
	SW(buf, 1);
	SW("((prev_pid == 2) && ((next_pid == 0) || (prev_pid == 9)))", 1);
	SW("!(!(prev_pid == 2))", 1);
}

/* evaluation stops as soon as the answer is known */
static void test_short_circuit(void)
{
	struct hist_event *ev = hosted;
	struct hist_hit hit = { .pid = 42 };

	sw_rec("x", 1, 0, 0, "y", 0, 0);
	comm_calls = 0;
	M(ev, "prev_pid == 1 || comm == \"nobody\"", SW_LEN, &hit, 1);
	T_EQ(comm_calls, 0);
	M(ev, "prev_pid == 2 && comm == \"nobody\"", SW_LEN, &hit, 0);
	T_EQ(comm_calls, 0);
	M(ev, "prev_pid == 2 || comm == \"hostcomm\"", SW_LEN, &hit, 1);
	T_EQ(comm_calls, 1);
	/* comm is fetched once per record, however often it is tested */
	comm_calls = 0;
	M(ev, "comm == \"a\" || comm == \"b\" || comm ~ \"host*\"", SW_LEN,
	  &hit, 1);
	T_EQ(comm_calls, 1);
}

/* ------------------------------------------------------------------------
 * Generic fields
 */

static void test_cpu_field(void)
{
	struct hist_hit hit = { .cpu = 3 };

	sw_rec("x", 0, 0, 0, "y", 0, 0);
	M(sw, "cpu == 3", SW_LEN, &hit, 1);
	M(sw, "CPU != 3", SW_LEN, &hit, 0);
	M(sw, "common_cpu >= 2 && common_cpu < 4", SW_LEN, &hit, 1);
	M(sw, "cpu > -1", SW_LEN, &hit, 1);	/* an int, as in the kernel */
	M(sw, "cpu <= 2", SW_LEN, &hit, 0);
	/* the kernel's cpu predicate has no '&' */
	M(sw, "cpu & 1", SW_LEN, &hit, 0);
	M(sw, "cpu & 0xff", SW_LEN, &hit, 0);
	/* no hit: cpu 0 */
	M(sw, "cpu == 0", SW_LEN, NULL, 1);
	ERR(sw, "cpu == \"3\"", EINVAL_, HIST_FILTER_ERR_EXPECT_DIGIT, 8);
	ERR(sw, "cpu ~ 3", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 7);
	ERR(sw, "cpu.function == 3", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 17);
}

static void test_cpus_lists(void)
{
	struct hist_hit hit = { 0 };
	static const int in_0_3_8[] = { 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0 };
	unsigned c;

	sw_rec("x", 0, 0, 0, "y", 0, 0);
	for (c = 0; c < HIST__ARRAY_SIZE(in_0_3_8); c++) {
		hit.cpu = c;
		M(sw, "cpu & CPUS{0-3,8}", SW_LEN, &hit, in_0_3_8[c]);
		M(sw, "CPU == CPUS{0-3,8}", SW_LEN, &hit, 0);
		M(sw, "CPU != CPUS{0-3,8}", SW_LEN, &hit, 1);
		/* one cpu: '&' means '==' */
		M(sw, "cpu & CPUS{8}", SW_LEN, &hit, c == 8);
		M(sw, "cpu == CPUS{8}", SW_LEN, &hit, c == 8);
		M(sw, "cpu != CPUS{8}", SW_LEN, &hit, c != 8);
		M(sw, "cpu & CPUS{0-7:2/4}", SW_LEN, &hit,
		  c == 0 || c == 1 || c == 4 || c == 5);
		M(sw, "cpu & CPUS{ 1 , 3\t5 }", SW_LEN, &hit,
		  c == 1 || c == 3 || c == 5);
		M(sw, "cpu & CPUS{all}", SW_LEN, &hit, 1);
		M(sw, "cpu & CPUS{9-N}", SW_LEN, &hit, c >= 9);
	}
	hit.cpu = 1023;
	M(sw, "cpu & CPUS{N}", SW_LEN, &hit, 1);
	M(sw, "cpu & CPUS{1000-1023}", SW_LEN, &hit, 1);
	hit.cpu = 5000;
	M(sw, "cpu & CPUS{0-1023}", SW_LEN, &hit, 0);

	ERR(sw, "cpu == CPUS{}", EINVAL_, HIST_FILTER_ERR_INVALID_CPULIST, 13);
	ERR(sw, "cpu == CPUS{1-}", EINVAL_, HIST_FILTER_ERR_INVALID_CPULIST, 15);
	ERR(sw, "cpu == CPUS{5-3}", EINVAL_, HIST_FILTER_ERR_INVALID_CPULIST, 16);
	ERR(sw, "cpu == CPUS{1024}", EINVAL_, HIST_FILTER_ERR_INVALID_CPULIST, 17);
	ERR(sw, "cpu == CPUS{0-7:5/4}", EINVAL_, HIST_FILTER_ERR_INVALID_CPULIST, 20);
	ERR(sw, "cpu == CPUS{0-7:1/0}", EINVAL_, HIST_FILTER_ERR_INVALID_CPULIST, 20);
	ERR(sw, "cpu == CPUS{1x}", EINVAL_, HIST_FILTER_ERR_INVALID_CPULIST, 15);
	ERR(sw, "cpu == CPUS[0]", EINVAL_, HIST_FILTER_ERR_MISSING_BRACE_OPEN, 13);
	ERR(sw, "cpu < CPUS{0}", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 7);
	ERR(sw, "comm == CPUS{0}", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 9);
	ERR(misc, "filename & CPUS{0}", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 12);
	/* an empty list matches no cpu */
	hit.cpu = 0;
	M(sw, "cpu & CPUS{,}", SW_LEN, &hit, 0);
}

/* CPUS{} against an integer field holding a cpu number */
static void test_cpus_on_int_field(void)
{
	sw_rec("x", 3, 0, 0, "y", 0, 0);
	SW("prev_pid == CPUS{3}", 1);
	SW("prev_pid & CPUS{3}", 1);
	SW("prev_pid != CPUS{3}", 0);
	SW("prev_pid & CPUS{1,3}", 1);
	SW("prev_pid & CPUS{1,2}", 0);
	SW("prev_pid == CPUS{1,3}", 0);
	SW("prev_pid != CPUS{1,3}", 1);
	/* a value past the last cpu matches nothing, not even '!=' */
	sw_rec("x", 5000, 0, 0, "y", 0, 0);
	SW("prev_pid != CPUS{1,3}", 0);
	/* the kernel reads a 64-bit field as an unsigned int cpu */
	sw_rec("x", 0, 0, 0x100000002ll, "y", 0, 0);
	SW("prev_state & CPUS{2,5}", 1);
}

static void test_cpumask_field(void)
{
	uint64_t words[2] = { 0x6, 0 };

	memset(rec, 0, sizeof(rec));
	memcpy(rec + MISC_PAYLOAD, words, 16);
	put(16, 16u << 16 | MISC_PAYLOAD, 4);
	M(misc, "mask & CPUS{1,7}", 200, NULL, 1);
	M(misc, "mask & CPUS{0,7}", 200, NULL, 0);
	M(misc, "mask == CPUS{1-2}", 200, NULL, 1);
	M(misc, "mask != CPUS{1-2}", 200, NULL, 0);
	M(misc, "mask == CPUS{1-3}", 200, NULL, 0);
	/* one cpu: equal only to a mask holding just that cpu */
	M(misc, "mask & CPUS{2}", 200, NULL, 1);
	M(misc, "mask == CPUS{2}", 200, NULL, 0);
	M(misc, "mask != CPUS{2}", 200, NULL, 1);
	words[0] = 0x4;
	memcpy(rec + MISC_PAYLOAD, words, 16);
	M(misc, "mask == CPUS{2}", 200, NULL, 1);
	/* a payload outside the record is the empty mask */
	put(16, 16u << 16 | 400, 4);
	M(misc, "mask == CPUS{2}", 200, NULL, 0);
	M(misc, "mask & CPUS{0-1023}", 200, NULL, 0);
	M(misc, "mask != CPUS{2,4}", 200, NULL, 1);
	/* a number compares the location word, as the kernel does */
	M(misc, "mask == 0x100190", 200, NULL, 1);
}

static void test_comm_field(void)
{
	struct hist_hit hit = { .pid = 7, .comm = "bash" };

	sw_rec("x", 0, 0, 0, "y", 0, 0);
	M(sw, "comm == \"bash\"", SW_LEN, &hit, 1);
	M(sw, "COMM == \"bash\"", SW_LEN, &hit, 1);
	M(sw, "comm != \"bash\"", SW_LEN, &hit, 0);
	M(sw, "comm ~ \"b*\"", SW_LEN, &hit, 1);
	M(sw, "comm ~ \"*as*\"", SW_LEN, &hit, 1);
	M(sw, "comm ~ \"!z*\"", SW_LEN, &hit, 1);
	/* no hit comm and no host: the kernel's placeholder */
	M(sw, "comm == \"<...>\"", SW_LEN, NULL, 1);
	/* through the host, for the pid in common_pid */
	put(4, 42, 4);
	hit.pid = -1;
	hit.comm = NULL;
	M(hosted, "comm == \"hostcomm\"", SW_LEN, &hit, 1);
	put(4, 43, 4);
	M(hosted, "comm == \"<...>\"", SW_LEN, &hit, 1);
	ERR(sw, "common_comm == \"bash\"", EINVAL_, HIST_FILTER_ERR_FIELD_NOT_FOUND, 12);
	ERR(sw, "comm == 1", EINVAL_, HIST_FILTER_ERR_EXPECT_STRING, 9);
	ERR(sw, "comm < \"a\"", EINVAL_, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 8);
}

/* an event field named like a generic one wins */
static void test_event_field_shadows_generic(void)
{
	struct hist_hit hit = { .comm = "current" };

	memset(rec, 0, sizeof(rec));
	memcpy(rec + 116, "sleep", 6);
	M(misc, "comm == \"sleep\"", 200, &hit, 1);
	M(misc, "comm == \"current\"", 200, &hit, 0);
	M(misc, "COMM == \"current\"", 200, &hit, 1);
}

static void test_function(void)
{
	struct hist_event *ev = hosted;

	sw_rec("x", 0, 0, 0x1010, "y", 0, 0);
	/* with a symbolizer: anywhere inside the function */
	M(ev, "prev_state.function == 0x1000", SW_LEN, NULL, 1);
	M(ev, "prev_state.function == 0x10ff", SW_LEN, NULL, 1);
	M(ev, "prev_state.function != 0x1080", SW_LEN, NULL, 0);
	sw_rec("x", 0, 0, 0x1100, "y", 0, 0);
	M(ev, "prev_state.function == 0x1000", SW_LEN, NULL, 0);
	ERR(ev, "prev_state.function == 0x2000", EINVAL_,
	    HIST_FILTER_ERR_NO_FUNCTION, 30);
	/* without one: the exact address */
	sw_rec("x", 0, 0, 0x1010, "y", 0, 0);
	SW("prev_state.function == 0x1010", 1);
	SW("prev_state.function == 4112", 1);
	SW("prev_state.function == 0x1000", 0);
	SW("prev_state.function != 0x1000", 1);
	/* no symbol table in the core: names are not resolved */
	ERR(sw, "prev_state.function == schedule", EINVAL_,
	    HIST_FILTER_ERR_NO_FUNCTION, 32);
	ERR(sw, "(prev_state.function == schedule)", EINVAL_,
	    HIST_FILTER_ERR_NO_FUNCTION, 34);
	ERR(sw, "prev_state.function < 1", EINVAL_, HIST_FILTER_ERR_INVALID_OP, 23);
	ERR(sw, "prev_state.function == 1x", EINVAL_,
	    HIST_FILTER_ERR_INVALID_VALUE, 26);
	ERR(sw, "prev_state.function == 0x1234567890123456789012", EINVAL_,
	    HIST_FILTER_ERR_OPERAND_TOO_LONG, 48);
	ERR(sw, "prev_pid.function == 1", EINVAL_,
	    HIST_FILTER_ERR_ILLEGAL_FIELD_OP, 22);
	/* comm is a char * at offset 0 to the kernel: 8 bytes it can read */
	sw_rec("x", 0, 0, 0, "y", 0, 0);
	SW("comm.function == 0x3e80000013c", 1);
}

/* ------------------------------------------------------------------------
 * Untrusted records
 */

static void test_truncated_records(void)
{
	struct hist_hit hit = { .comm = "bash" };
	struct hist_filter *f = compile(sw, "prev_pid == 0 && prev_comm == \"\" "
					    "&& next_comm != \"ls\" && prev_state < 1");
	struct hist__rec r;
	size_t len;

	sw_rec("ls", 5, 0, 0, "ls", 0, 0);
	for (len = 0; f && len <= 8; len++) {
		hist__rec_init(&r, sw, rec, len, &hit);
		T_EQ(hist__filter_match(f, &r), 1);
	}
	hist__filter_destroy(f);
	/* prev_comm cut in the middle reads as what is there */
	M(sw, "prev_comm == \"l\"", 9, NULL, 1);
	M(sw, "prev_comm ~ \"l*\"", 9, NULL, 1);
	M(sw, "prev_comm ~ \"*s\"", 9, NULL, 0);
	M(sw, "prev_comm ~ \"*l*\"", 9, NULL, 1);
	/* no record at all */
	f = compile(sw, "prev_pid == 0 && comm == \"bash\"");
	if (f) {
		T_EQ(hist_filter_match(f, NULL, 100, &hit), 1);
		T_EQ(hist_filter_match(f, NULL, 0, NULL), 0);
	}
	hist_filter_destroy(f);
}

static void test_hostile_data_loc(void)
{
	memset(rec, 0, sizeof(rec));
	/* offset past the end */
	put(8, 5u << 16 | 300, 4);
	M(misc, "filename == \"\"", 200, NULL, 1);
	M(misc, "filename ~ \"*\"", 200, NULL, 1);
	M(misc, "filename ~ \"*x*\"", 200, NULL, 0);
	/* length running past the end */
	memcpy(rec + 150, "abcdef", 6);
	put(8, 0xffffu << 16 | 150, 4);
	M(misc, "filename == \"\"", 200, NULL, 1);
	M(misc, "filename ~ \"abc*\"", 200, NULL, 0);
	/* in bounds, no NUL: the length ends it */
	put(8, 3u << 16 | 150, 4);
	M(misc, "filename == \"abc\"", 200, NULL, 1);
	M(misc, "filename ~ \"ab*\"", 200, NULL, 1);
	M(misc, "filename ~ \"*?\"", 200, NULL, 1);
	/* the loc word itself cut off */
	M(misc, "filename == \"\" && relname == \"\"", 10, NULL, 1);
	/* __rel_loc wrapping past 64K */
	put(12, 4u << 16 | 0xffff, 4);
	M(misc, "relname == \"\"", 200, NULL, 1);
}

/*
 * Random filters (valid ones, then mutated bytes) over random records:
 * nothing may crash or read out of bounds (run under ASan).
 */
static const char *const fuzz_preds[] = {
	"prev_pid == 1", "prev_comm ~ \"ba*\"", "prev_comm ~ \"*sh\"",
	"prev_comm ~ \"*a*\"", "prev_comm ~ \"[a-c]?s*\"", "comm == 'x'",
	"COMM ~ \"!f*\"", "cpu & CPUS{0-3,8}", "cpu == CPUS{2}",
	"prev_state.function == 0x10", "prev_pid & CPUS{1,5-9:1/2}",
	"next_pid != -3", "prev_prio <= 0x7f", "common_type > 10",
	"filename == \"/bin/sh\"", "filename ~ \"*sh\"", "relname ~ \"a\\\\*\"",
	"mask & CPUS{1-2}", "mask == CPUS{3}", "ptr == \"p\"", "args == 0",
	"u8v & 0x80", "s64v < -1", "odd != 1", "u16v >= 0", "s8v == CPUS{1}",
};
static const char fuzz_bytes[] = "()!&|~=<>'\"{}*?[]\\,-:/ \tN0129abcx_.";

static size_t fuzz_text(char *text, size_t cap)
{
	unsigned k, nr = 1 + rnd(5), open = 0;
	size_t n = 0;

	for (k = 0; k < nr && n + 80 < cap; k++) {
		if (k)
			n += (size_t)sprintf(text + n, rnd(2) ? " && " : "||");
		while (rnd(4) == 0)
			n += (size_t)sprintf(text + n, "!");
		if (rnd(3) == 0) {
			n += (size_t)sprintf(text + n, "(");
			open++;
		}
		n += (size_t)sprintf(text + n, "%s",
				     fuzz_preds[rnd(HIST__ARRAY_SIZE(fuzz_preds))]);
		while (open && rnd(2)) {
			n += (size_t)sprintf(text + n, ")");
			open--;
		}
	}
	while (open--)
		n += (size_t)sprintf(text + n, ")");
	for (k = rnd(3) ? 0 : rnd(4) + 1; k > 0 && n; k--) {
		size_t at = rnd((unsigned)n);
		char c = fuzz_bytes[rnd(sizeof(fuzz_bytes) - 1)];

		switch (rnd(3)) {
		case 0:
			text[at] = c;
			break;
		case 1:
			if (n + 1 < cap) {
				memmove(text + at + 1, text + at, n - at);
				text[at] = c;
				n++;
			}
			break;
		default:
			memmove(text + at, text + at + 1, n - at - 1);
			n--;
		}
	}
	text[n] = 0;
	return n;
}

static void test_fuzz(void)
{
	static char text[1024];
	struct hist_hit hit = { .cpu = 2, .comm = "fuzz" };
	int iter, compiled = 0;

	for (iter = 0; iter < 30000; iter++) {
		struct hist_event *ev = rnd(2) ? misc : sw;
		struct hist_filter *f;
		size_t n = fuzz_text(text, sizeof(text));
		unsigned k;

		f = hist__filter_compile(ev, text, n, NULL);
		if (!f)
			continue;
		compiled++;
		for (k = 0; k < 8; k++) {
			uint8_t *buf;
			size_t len = rnd(260), j;
			struct hist__rec r;

			/* an exact-size heap copy, so ASan sees overreads */
			buf = malloc(len ? len : 1);
			for (j = 0; j < len; j++)
				buf[j] = (uint8_t)rnd(256);
			if (len > 16 && rnd(2))
				memset(buf + 8, rnd(2) ? 0 : 0x30, 8);
			hit.cpu = rnd(20);
			hist__rec_init(&r, ev, buf, len, &hit);
			(void)hist__filter_match(f, &r);
			free(buf);
		}
		hist__filter_destroy(f);
	}
	/* both events see names they lack, so well under half compile */
	T_ASSERT(compiled > 1000);
}

/* ------------------------------------------------------------------------
 * API
 */

static void test_text_is_kept(void)
{
	static const char text[] = "  prev_pid == 1 &&\tnext_pid == 2   XXXX";
	struct hist__filter_err e;
	struct hist_filter *f;

	/* N bytes, no NUL at N */
	f = hist__filter_compile(sw, text, sizeof(text) - 1 - 4, &e);
	T_ASSERT(f != NULL);
	if (f)
		T_STREQ(hist__filter_text(f), "  prev_pid == 1 &&\tnext_pid == 2   ");
	hist__filter_destroy(f);
	T_STREQ(hist__filter_text(NULL), "");
	T_ASSERT(hist__filter_match(NULL, NULL));
}

static void test_public_api(void)
{
	struct hist_error err = { 0 };
	struct hist_hit hit = { .cpu = 1 };
	hist_filter *f;

	sw_rec("bash", 9, 0, 0, "y", 0, 0);
	f = hist_filter_compile(sw, "prev_comm == \"bash\" && cpu == 1", &err);
	T_ASSERT(f != NULL);
	T_EQ(err.code, 0);
	T_EQ(err.msg, -1);
	T_EQ(hist_filter_match(f, rec, SW_LEN, &hit), 1);
	hit.cpu = 0;
	T_EQ(hist_filter_match(f, rec, SW_LEN, &hit), 0);
	hist_filter_destroy(f);

	err.nr_logged = 5;
	f = hist_filter_compile(sw, "prev_pid == \"1\"", &err);
	T_ASSERT(f == NULL);
	T_EQ(err.code, -HIST_EINVAL);
	T_EQ(err.msg, HIST_FILTER_ERR_EXPECT_DIGIT);
	T_EQ(err.pos, 13);
	T_EQ(err.nr_logged, 0);
	f = hist_filter_compile(sw, "(prev_pid == 1", &err);
	T_ASSERT(f == NULL);
	T_EQ(err.code, -HIST_ENOENT);
	T_ASSERT(hist_filter_compile(NULL, "prev_pid == 1", &err) == NULL);
	T_EQ(err.code, -HIST_EINVAL);
	T_ASSERT(hist_filter_compile(sw, NULL, NULL) == NULL);
	T_EQ(hist_filter_match(NULL, rec, SW_LEN, NULL), 1);
	hist_filter_destroy(NULL);
}

static long fail_after;

static void *failing_alloc(void *data, size_t size)
{
	(void)data;
	if (fail_after-- == 0)
		return NULL;
	return calloc(1, size);
}

static void plain_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static void test_alloc_failures(void)
{
	static const struct hist_allocator a = { failing_alloc, plain_free, NULL };
	const char *text = "(prev_comm ~ \"ba*\" || cpu & CPUS{1,2}) && "
			   "prev_pid & CPUS{3-4} && !(next_comm == 'x')";
	long n;
	int ok = 0;

	hist_set_allocator(&a);
	for (n = 0; n < 100 && !ok; n++) {
		struct hist__filter_err e;
		struct hist_filter *f;

		fail_after = n;
		f = hist__filter_compile(sw, text, strlen(text), &e);
		if (f) {
			ok = 1;
		} else if (e.code != -HIST_ENOMEM) {
			printf("#   failing alloc %ld: code %d\n", n, e.code);
			T_ASSERT(0);
		}
		hist__filter_destroy(f);
	}
	hist_set_allocator(NULL);
	T_ASSERT(ok);
	T_ASSERT(n > 3);
}

int main(void)
{
	sw = make_event("sched_switch", sw_fields, HIST__ARRAY_SIZE(sw_fields), NULL);
	hosted = make_event("sched_switch", sw_fields,
			    HIST__ARRAY_SIZE(sw_fields), &test_host);
	misc = make_event("misc", misc_fields, HIST__ARRAY_SIZE(misc_fields), NULL);
	print_ev = make_event("print", print_fields,
			      HIST__ARRAY_SIZE(print_fields), NULL);
	if (!sw || !hosted || !misc || !print_ev)
		return 1;

	T_RUN(test_spec_accepted);
	T_RUN(test_caret_table);
	T_RUN(test_recorded_errnos);
	T_RUN(test_errors_without_message);
	T_RUN(test_term_errors);
	T_RUN(test_operator_errors);
	T_RUN(test_trailing_and_or);
	T_RUN(test_whitespace);
	T_RUN(test_quotes_in_balance_pass);
	T_RUN(test_not_and_ne);
	T_RUN(test_zero_is_a_field_name);
	T_RUN(test_numeric_ops);
	T_RUN(test_signedness);
	T_RUN(test_number_syntax);
	T_RUN(test_odd_sizes);
	T_RUN(test_string_eq);
	T_RUN(test_string_limits);
	T_RUN(test_glob_fast_paths);
	T_RUN(test_glob_full);
	T_RUN(test_glob_suffix_on_arrays);
	T_RUN(test_rel_and_flex_strings);
	T_RUN(test_ptr_string);
	T_RUN(test_precedence);
	T_RUN(test_g22_filters);
	T_RUN(test_kernel_example);
	T_RUN(test_random_logic);
	T_RUN(test_plain_match_data);
	T_RUN(test_deep_nesting);
	T_RUN(test_short_circuit);
	T_RUN(test_cpu_field);
	T_RUN(test_cpus_lists);
	T_RUN(test_cpus_on_int_field);
	T_RUN(test_cpumask_field);
	T_RUN(test_comm_field);
	T_RUN(test_event_field_shadows_generic);
	T_RUN(test_function);
	T_RUN(test_truncated_records);
	T_RUN(test_hostile_data_loc);
	T_RUN(test_fuzz);
	T_RUN(test_text_is_kept);
	T_RUN(test_public_api);
	T_RUN(test_alloc_failures);

	hist__event_free(sw);
	hist__event_free(hosted);
	hist__event_free(misc);
	hist__event_free(print_ev);
	return T_DONE();
}
