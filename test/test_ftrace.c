/* SPDX-License-Identifier: MIT */
/*
 * The ftrace adapter against real kernel output: format files, raw
 * trace_pipe_raw pages and trace-cmd trace.dat files (v6, v7 zstd, v7
 * uncompressed) recorded on Linux 6.18 (test/data/, see
 * /work/shared/data/README.md for how each was made), plus two files from
 * the 6.1 conformance cases for kallsyms.  Expected numbers come from
 * trace-cmd report: event counts, per-CPU counts, and a sum / xor of the
 * nanosecond time stamps, which catches any slip in time-extend and
 * absolute-time-stamp arithmetic.
 *
 * HIST_TEST_TSAN: the zstd files are read with the decompression worker
 * thread (prefetch.c), so `make check-tsan` runs this test too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "conf.h"
#include "hist_ftrace.h"

#define DATA "test/data/"

/* Sanitizer builds run a tenth of the rounds. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define FUZZ_SCALE 10
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define FUZZ_SCALE 10
#endif
#endif
#ifndef FUZZ_SCALE
#define FUZZ_SCALE 1
#endif

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = '\0';
			*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static struct hist_ftrace_event *parse_file_format(const char *path, const char *sys)
{
	struct hist_ftrace_event *e = NULL;
	char err[256] = "";
	size_t len;
	uint8_t *t = slurp(path, &len);

	if (!t) {
		T_FAILF("cannot read %s", path);
		return NULL;
	}
	if (hist_ftrace_parse_format((char *)t, len, sys, &e, err, sizeof(err)))
		T_FAILF("%s: %s", path, err);
	free(t);
	return e;
}

static const struct hist_field_desc *field(const struct hist_ftrace_event *e,
					   const char *name)
{
	uint32_t i;

	for (i = 0; e && i < e->desc.nr_fields; i++)
		if (!strcmp(e->desc.fields[i].name, name))
			return &e->desc.fields[i];
	T_FAILF("no field %s", name);
	return NULL;
}

#define CHECK_FIELD(e, nm, ty, off, sz, sg, kd)                                \
	do {                                                                   \
		const struct hist_field_desc *f_ = field(e, nm);               \
		if (f_) {                                                      \
			T_STREQ(f_->type, ty);                                 \
			T_EQ(f_->offset, off);                                 \
			T_EQ(f_->size, sz);                                    \
			T_EQ(f_->is_signed, sg);                               \
			T_EQ(f_->kind, kd);                                    \
		}                                                              \
	} while (0)

/* ---- format files ----------------------------------------------------- */

static void test_format_sched_switch(void)
{
	struct hist_ftrace_event *e = parse_file_format(
		DATA "raw-sched/formats/events/sched/sched_switch/format", "sched");

	if (!e)
		return;
	T_STREQ(e->desc.system, "sched");
	T_STREQ(e->desc.name, "sched_switch");
	T_EQ(e->desc.id, 372);
	T_EQ(e->desc.nr_fields, 11);
	CHECK_FIELD(e, "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT);
	CHECK_FIELD(e, "common_pid", "int", 4, 4, 1, HIST_FIELD_INT);
	CHECK_FIELD(e, "prev_comm", "char[16]", 8, 16, 0, HIST_FIELD_STRING);
	CHECK_FIELD(e, "prev_pid", "pid_t", 24, 4, 1, HIST_FIELD_INT);
	CHECK_FIELD(e, "prev_state", "long", 32, 8, 1, HIST_FIELD_INT);
	CHECK_FIELD(e, "next_comm", "char[16]", 40, 16, 0, HIST_FIELD_STRING);
	CHECK_FIELD(e, "next_prio", "int", 60, 4, 1, HIST_FIELD_INT);
	T_ASSERT(e->print_fmt && !strncmp(e->print_fmt, "\"prev_comm=%s prev_pid=%d", 25));
	T_ASSERT(e->print_fmt && e->print_fmt[strlen(e->print_fmt) - 1] != '\n');
	hist_ftrace_event_free(e);
}

static void test_format_kinds(void)
{
	struct hist_ftrace_event *e;

	e = parse_file_format(DATA "formats/ftrace/print/format", "ftrace");
	T_ASSERT(e && e->desc.id == 5);
	CHECK_FIELD(e, "ip", "unsigned long", 8, 8, 0, HIST_FIELD_INT);
	CHECK_FIELD(e, "buf", "char[]", 16, 0, 0, HIST_FIELD_FLEX_STRING);
	T_STREQ(e ? e->print_fmt : NULL, "\"%ps: %s\", (void *)REC->ip, REC->buf");
	hist_ftrace_event_free(e);

	e = parse_file_format(DATA "formats/ftrace/raw_data/format", "ftrace");
	CHECK_FIELD(e, "id", "unsigned int", 8, 4, 0, HIST_FIELD_INT);
	CHECK_FIELD(e, "buf", "char[]", 12, 0, 0, HIST_FIELD_FLEX_STRING);
	hist_ftrace_event_free(e);

	e = parse_file_format(DATA "formats/kmem/kmalloc/format", "kmem");
	T_ASSERT(e && e->desc.id == 658 && e->desc.nr_fields == 10);
	CHECK_FIELD(e, "call_site", "unsigned long", 8, 8, 0, HIST_FIELD_INT);
	CHECK_FIELD(e, "ptr", "const void *", 16, 8, 0, HIST_FIELD_INT);
	CHECK_FIELD(e, "bytes_req", "size_t", 24, 8, 0, HIST_FIELD_INT);
	CHECK_FIELD(e, "node", "int", 48, 4, 1, HIST_FIELD_INT);
	hist_ftrace_event_free(e);

	e = parse_file_format(DATA "formats/raw_syscalls/sys_enter/format", "raw_syscalls");
	CHECK_FIELD(e, "id", "long", 8, 8, 1, HIST_FIELD_INT);
	CHECK_FIELD(e, "args", "unsigned long[6]", 16, 48, 0, HIST_FIELD_ARRAY);
	hist_ftrace_event_free(e);

	e = parse_file_format(DATA "formats/syscalls/sys_enter_openat/format", "syscalls");
	CHECK_FIELD(e, "__syscall_nr", "int", 8, 4, 1, HIST_FIELD_INT);
	CHECK_FIELD(e, "dfd", "int", 16, 8, 0, HIST_FIELD_INT);
	CHECK_FIELD(e, "filename", "const char *", 24, 8, 0, HIST_FIELD_PTR_STRING);
	hist_ftrace_event_free(e);

	e = parse_file_format(DATA "raw-sched/formats/events/sched/sched_process_exec/format",
			      "sched");
	CHECK_FIELD(e, "filename", "__data_loc char[]", 8, 4, 0, HIST_FIELD_DYN_STRING);
	CHECK_FIELD(e, "old_pid", "pid_t", 16, 4, 1, HIST_FIELD_INT);
	hist_ftrace_event_free(e);

	e = parse_file_format(DATA "formats/ipi/ipi_send_cpumask/format", "ipi");
	CHECK_FIELD(e, "cpumask", "__data_loc cpumask_t", 8, 4, 0, HIST_FIELD_DYN_ARRAY);
	CHECK_FIELD(e, "callsite", "void *", 16, 8, 0, HIST_FIELD_INT);
	hist_ftrace_event_free(e);

	e = parse_file_format(DATA "formats/irq/irq_handler_entry/format", "irq");
	CHECK_FIELD(e, "name", "__data_loc char[]", 12, 4, 0, HIST_FIELD_DYN_STRING);
	hist_ftrace_event_free(e);
}

/* Kinds this kernel's captures lack: written as newer kernels print them. */
static void test_format_synthetic(void)
{
	static const char text[] =
		"name: wakeup_latency\n"
		"ID: 1875\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] comm;\toffset:16;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc unsigned long[] stack;\toffset:20;\tsize:4;\tsigned:0;\n"
		"\tfield:__rel_loc char[] rname;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:__rel_loc u32[] rids;\toffset:28;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc u32[] ids;\toffset:32;\tsize:4;\tsigned:0;\n"
		"\tfield:u8 saddr[4];\toffset:36;\tsize:4;\tsigned:0;\n"
		"\tfield:char *msg;\toffset:40;\tsize:8;\tsigned:0;\n"
		"\tfield:struct foo  blob;\toffset:48;\tsize:12;\tsigned:0;\n"
		"\tfield:unsigned char mac[6];\toffset:60;\tsize:6;\tsigned:0;\n"
		"\tfield:int old;\toffset:68;\tsize:4;\n"
		"\n"
		"print fmt: \"lat=%llu\", REC->lat\n";
	struct hist_ftrace_event *e = NULL;
	char err[128] = "";

	T_EQ(hist_ftrace_parse_format(text, strlen(text), "synthetic", &e, err,
				      sizeof(err)), 0);
	if (!e) {
		T_FAILF("%s", err);
		return;
	}
	T_EQ(e->desc.id, 1875);
	T_EQ(e->desc.nr_fields, 15);
	CHECK_FIELD(e, "lat", "u64", 8, 8, 0, HIST_FIELD_INT);
	CHECK_FIELD(e, "comm", "__data_loc char[]", 16, 4, 0, HIST_FIELD_DYN_STRING);
	CHECK_FIELD(e, "stack", "__data_loc unsigned long[]", 20, 4, 0, HIST_FIELD_STACK);
	CHECK_FIELD(e, "rname", "__rel_loc char[]", 24, 4, 0, HIST_FIELD_REL_STRING);
	CHECK_FIELD(e, "rids", "__rel_loc u32[]", 28, 4, 0, HIST_FIELD_REL_ARRAY);
	CHECK_FIELD(e, "ids", "__data_loc u32[]", 32, 4, 0, HIST_FIELD_DYN_ARRAY);
	CHECK_FIELD(e, "saddr", "u8[4]", 36, 4, 0, HIST_FIELD_ARRAY);
	CHECK_FIELD(e, "msg", "char *", 40, 8, 0, HIST_FIELD_PTR_STRING);
	CHECK_FIELD(e, "blob", "struct foo", 48, 12, 0, HIST_FIELD_ARRAY);
	/* The kernel calls any char array a string, unsigned or not. */
	CHECK_FIELD(e, "mac", "unsigned char[6]", 60, 6, 0, HIST_FIELD_STRING);
	/* Old kernels print no signed: attribute. */
	CHECK_FIELD(e, "old", "int", 68, 4, 0, HIST_FIELD_INT);
	hist_ftrace_event_free(e);
}

static void expect_format_error(const char *text, const char *want)
{
	struct hist_ftrace_event *e = (void *)1;
	char err[256] = "";
	int r = hist_ftrace_parse_format(text, text ? strlen(text) : 0, "x", &e, err,
					 sizeof(err));

	T_ASSERT(r < 0);
	T_ASSERT(e == NULL);
	if (!strstr(err, want))
		T_FAILF("error '%s' lacks '%s'", err, want);
}

#define HDR "name: e\nID: 1\nformat:\n"

static void test_format_broken(void)
{
	char *t;
	size_t len, i;
	uint32_t seed = 1;

	expect_format_error(NULL, "missing 'name:'");
	expect_format_error("", "missing 'name:'");
	expect_format_error("ID: 1\nformat:\n", "line 3: missing 'name:'");
	expect_format_error("name: e\nformat:\n", "missing 'ID:'");
	expect_format_error("name: e\nID: 1\n", "missing 'format:'");
	expect_format_error("name: e\nID: 1\nprint fmt: \"\"\n", "missing 'format:'");
	expect_format_error("name: e\nID: x1\nformat:\n", "line 2: bad ID");
	expect_format_error("name: e\nID: 99999999999\nformat:\n", "line 2: bad ID");
	expect_format_error("name: e\nname: f\n", "line 2: second 'name:'");
	expect_format_error("hello\n", "line 1: unexpected line");
	expect_format_error(HDR "\tfield:int a;\toffset:0;\n", "line 4: field without 'size:'");
	expect_format_error(HDR "\tfield:int a;\tsize:4;\n", "line 4: field without 'offset:'");
	expect_format_error(HDR "\tfield:int a\toffset:0\tsize:4\n",
			    "line 4: field declaration without ';'");
	expect_format_error(HDR "\tfield:int a\toffset:0;\tsize:4;\n",
			    "line 4: field without 'offset:'");
	expect_format_error(HDR "\n\tfield:int ;\toffset:0;\tsize:4;\n",
			    "line 5: field declaration without a type");
	expect_format_error(HDR "\n\tfield: [4];\toffset:0;\tsize:4;\n",
			    "line 5: field declaration without a name");
	expect_format_error(HDR "\tfield:a;\toffset:0;\tsize:4;\n",
			    "line 4: field declaration without a type");
	expect_format_error(HDR "\tfield:int a];\toffset:0;\tsize:4;\n", "unbalanced");
	expect_format_error(HDR "\tfield:int a;\toffset:-1;\tsize:4;\n", "bad number");
	expect_format_error(HDR "\tfield:int a;\toffset:4294967295;\tsize:4;\n", "overflows");
	expect_format_error(HDR "\tfield:int a;\toffset\n", "key:value");
	expect_format_error(HDR "\tnot a field\n", "line 4: expected 'field:'");

	/* Every prefix of a real file, and random bytes: no crash, no leak. */
	t = (char *)slurp(DATA "formats/kmem/kmalloc/format", &len);
	T_ASSERT(t != NULL);
	for (i = 0; t && i <= len; i++) {
		struct hist_ftrace_event *e = NULL;
		char err[128];

		if (!hist_ftrace_parse_format(t, i, "kmem", &e, err, sizeof(err)))
			hist_ftrace_event_free(e);
	}
	for (i = 0; t && i < 2000; i++) {
		struct hist_ftrace_event *e = NULL;
		char err[128], save;
		size_t at;

		seed = seed * 1103515245u + 12345u;
		at = (seed >> 8) % len;
		save = t[at];
		t[at] = (char)(seed >> 3);
		if (!hist_ftrace_parse_format(t, len, "kmem", &e, err, sizeof(err)))
			hist_ftrace_event_free(e);
		t[at] = save;
	}
	free(t);
}

static void test_header_page(void)
{
	struct hist_ftrace_page_fmt f;
	char err[128] = "";
	size_t len;
	char *t = (char *)slurp(DATA "raw-sched/formats/events/header_page", &len);

	T_EQ(hist_ftrace_parse_header_page(t, len, &f, err, sizeof(err)), 0);
	T_EQ(f.commit_offset, 8);
	T_EQ(f.commit_size, 8);
	T_EQ(f.data_offset, 16);
	T_EQ(f.page_size, 4096);
	free(t);

	T_ASSERT(hist_ftrace_parse_header_page("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n",
					       52, &f, err, sizeof(err)) < 0);
	T_ASSERT(strstr(err, "no 'commit'") != NULL);
	t = "\tfield: local_t commit;\toffset:8;\tsize:3;\tsigned:1;\n"
	    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
	T_ASSERT(hist_ftrace_parse_header_page(t, strlen(t), &f, err, sizeof(err)) < 0);
	T_ASSERT(strstr(err, "commit size 3") != NULL);
	t = "\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
	    "\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
	T_EQ(hist_ftrace_parse_header_page(t, strlen(t), &f, err, sizeof(err)), 0);
	T_EQ(f.data_offset, 12);
	T_EQ(f.commit_size, 4);
	t = "garbage\n";
	T_ASSERT(hist_ftrace_parse_header_page(t, strlen(t), &f, err, sizeof(err)) < 0);
	T_ASSERT(strstr(err, "line 1") != NULL);
}

/* ---- pages -------------------------------------------------------------- */

struct pagebuf {
	uint8_t b[4096];
	uint32_t pos;		/* next record, from the page start */
	int be;
};

static void put32(struct pagebuf *p, uint32_t at, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p->b[at + (uint32_t)i] = (uint8_t)(p->be ? v >> (24 - 8 * i) : v >> (8 * i));
}

static void put64(struct pagebuf *p, uint32_t at, uint64_t v)
{
	put32(p, at + (p->be ? 4 : 0), (uint32_t)v);
	put32(p, at + (p->be ? 0 : 4), (uint32_t)(v >> 32));
}

static void rec_hdr(struct pagebuf *p, uint32_t tl, uint32_t delta)
{
	put32(p, p->pos, p->be ? tl << 27 | delta : delta << 5 | tl);
	p->pos += 4;
}

/* A data record of TYPE with PLEN payload bytes (type_len 0 if > 112). */
static void rec_data(struct pagebuf *p, uint32_t delta, uint16_t type, uint32_t plen)
{
	if (plen <= 112) {
		rec_hdr(p, plen / 4, delta);
	} else {
		rec_hdr(p, 0, delta);
		put32(p, p->pos, plen + 4);
		p->pos += 4;
	}
	p->b[p->pos] = (uint8_t)(p->be ? type >> 8 : type);
	p->b[p->pos + 1] = (uint8_t)(p->be ? type : type >> 8);
	p->pos += (plen + 3) & ~3u;
}

static void rec_arg(struct pagebuf *p, uint32_t tl, uint32_t delta, uint32_t arg)
{
	rec_hdr(p, tl, delta);
	put32(p, p->pos, arg);
	p->pos += 4;
}

static void build_page(struct pagebuf *p, int be, uint64_t ts)
{
	uint64_t abs = UINT64_C(5000000000);

	memset(p, 0, sizeof(*p));
	p->be = be;
	p->pos = 16;
	put64(p, 0, ts);
	rec_data(p, 5, 7, 8);				/* ts + 5 */
	rec_arg(p, 30, 3, 1);				/* extend 2^27 + 3 */
	rec_data(p, 10, 8, 120);			/* type_len 0 */
	rec_arg(p, 29, 2, 8);				/* discarded event: */
	p->pos += 4;					/* 4 + array[0] bytes */
	rec_arg(p, 31, (uint32_t)(abs & ((1u << 27) - 1)), (uint32_t)(abs >> 27));
	rec_data(p, 0, 9, 4);				/* at the absolute stamp */
	rec_data(p, 7, 10, 112);			/* largest small record */
	rec_hdr(p, 29, 0);				/* null padding: the end */
	rec_data(p, 1, 11, 4);				/* never seen */
	put64(p, 8, p->pos - 16);
}

static void test_page_records(void)
{
	struct hist_ftrace_page_fmt fmt = { 8, 8, 16, 4096, 0 };
	int be;

	for (be = 0; be < 2; be++) {
		const uint64_t top = UINT64_C(1) << 60;
		struct hist_ftrace_page_iter it;
		struct hist_ftrace_record r;
		struct pagebuf p;
		uint64_t t;

		fmt.big_endian = be;
		build_page(&p, be, top + 1000);
		T_EQ(hist_ftrace_page_init(&it, &fmt, p.b, sizeof(p.b), 3), 0);
		T_EQ(it.missed, 0);
		T_EQ(hist_ftrace_page_next(&it, &r), 1);
		T_EQU(r.ts, top + 1005);
		T_EQ(r.type, 7);
		T_EQ(r.len, 8);
		T_EQ(r.cpu, 3);
		T_EQ(r.file_offset, 16);
		T_ASSERT(r.data == p.b + 20);
		T_EQ(hist_ftrace_page_next(&it, &r), 1);
		t = top + 1005 + (UINT64_C(1) << 27) + 3 + 10;
		T_EQU(r.ts, t);
		T_EQ(r.type, 8);
		T_EQ(r.len, 120);
		T_EQ(r.file_offset, 16 + 12 + 8);
		T_ASSERT(r.data == p.b + 44);
		T_EQ(hist_ftrace_page_next(&it, &r), 1);
		/* The absolute stamp keeps the running time's top 5 bits. */
		T_EQU(r.ts, top + UINT64_C(5000000000));
		T_EQ(r.type, 9);
		T_EQ(hist_ftrace_page_next(&it, &r), 1);
		T_EQU(r.ts, top + UINT64_C(5000000007));
		T_EQ(r.len, 112);
		T_EQ(hist_ftrace_page_next(&it, &r), 0);
		T_EQ(hist_ftrace_page_next(&it, &r), 0);
	}
}

static void expect_corrupt(struct pagebuf *p, uint32_t commit, int good, uint32_t bad_at)
{
	struct hist_ftrace_page_fmt fmt = { 8, 8, 16, 4096, 0 };
	struct hist_ftrace_page_iter it;
	struct hist_ftrace_record r;
	int n = 0, ret;

	put64(p, 8, commit);
	T_EQ(hist_ftrace_page_init(&it, &fmt, p->b, sizeof(p->b), 0), 0);
	while ((ret = hist_ftrace_page_next(&it, &r)) > 0)
		n++;
	T_EQ(n, good);
	T_ASSERT(ret < 0);
	T_EQ(fmt.data_offset + it.pos, bad_at);
	T_EQ(hist_ftrace_page_next(&it, &r), 0);
}

static void test_page_corrupt(void)
{
	struct hist_ftrace_page_fmt fmt = { 8, 8, 16, 4096, 0 };
	struct hist_ftrace_page_iter it;
	struct hist_ftrace_record r;
	struct pagebuf p;

	/* A record longer than the committed data. */
	memset(&p, 0, sizeof(p));
	p.pos = 16;
	rec_data(&p, 1, 1, 8);
	rec_data(&p, 1, 1, 112);
	expect_corrupt(&p, 12 + 40, 1, 28);
	/* type_len 0 with a length too short to hold common_type. */
	p.pos = 28;
	rec_arg(&p, 0, 1, 4);
	expect_corrupt(&p, 12 + 200, 1, 28);
	/* type_len 0 with a huge length. */
	p.pos = 28;
	rec_arg(&p, 0, 1, 0xfffffff0u);
	expect_corrupt(&p, 12 + 200, 1, 28);
	/* Padding running past the commit. */
	p.pos = 28;
	rec_arg(&p, 29, 1, 400);
	expect_corrupt(&p, 12 + 200, 1, 28);
	/* A time extend cut in half, and stray bytes after the last record. */
	p.pos = 28;
	rec_arg(&p, 30, 1, 1);
	expect_corrupt(&p, 12 + 4, 1, 28);
	expect_corrupt(&p, 12 + 2, 1, 28);

	/* Commit past the page: refused at init. */
	put64(&p, 8, 4081);
	T_ASSERT(hist_ftrace_page_init(&it, &fmt, p.b, sizeof(p.b), 0) < 0);
	T_ASSERT(hist_ftrace_page_init(&it, &fmt, p.b, 12, 0) < 0);
	/* Missed events, with and without a stored count. */
	put64(&p, 8, 12 | UINT64_C(1) << 31 | UINT64_C(1) << 30);
	put64(&p, 16 + 12, 15374);
	T_EQ(hist_ftrace_page_init(&it, &fmt, p.b, sizeof(p.b), 0), 0);
	T_EQ(it.missed, 1);
	T_EQ(it.lost, 15374);
	T_EQ(it.size, 12);
	T_EQ(hist_ftrace_page_next(&it, &r), 1);
	T_EQ(hist_ftrace_page_next(&it, &r), 0);
	put64(&p, 8, 12 | UINT64_C(1) << 31);
	T_EQ(hist_ftrace_page_init(&it, &fmt, p.b, sizeof(p.b), 0), 0);
	T_EQ(it.missed, 1);
	T_EQ(it.lost, 0);
	/* A full page with the stored flag but no room for the count. */
	put64(&p, 8, 4080 | UINT64_C(1) << 31 | UINT64_C(1) << 30);
	T_EQ(hist_ftrace_page_init(&it, &fmt, p.b, sizeof(p.b), 0), 0);
	T_EQ(it.lost, 0);

	/* Random pages: every call terminates and stays inside the page. */
	{
		uint32_t seed = 7, i, j;

		for (i = 0; i < 3000; i++) {
			int n = 0;

			for (j = 0; j < sizeof(p.b); j++) {
				seed = seed * 1103515245u + 12345u;
				p.b[j] = (uint8_t)(i & 1 ? (seed >> 16) & 0x3f : seed >> 16);
			}
			put64(&p, 8, (seed >> 4) % 4200);
			if (hist_ftrace_page_init(&it, &fmt, p.b, sizeof(p.b), 0))
				continue;
			while (hist_ftrace_page_next(&it, &r) > 0 && n < 2000) {
				T_ASSERT(r.data >= p.b + 16 && r.data + r.len <= p.b + 4096);
				n++;
			}
			T_ASSERT(n < 2000);
		}
	}
}

/* ---- raw trace_pipe_raw captures ------------------------------------- */

struct tally {
	uint64_t n, sum, xor_, first, last;
	uint64_t per_id[1024];
	uint64_t per_cpu[4];
	uint64_t back;		/* time going backwards */
	uint64_t prev;
};

static void tally_rec(struct tally *t, const struct hist_ftrace_record *r)
{
	if (!t->n)
		t->first = r->ts;
	if (r->ts < t->prev)
		t->back++;
	t->prev = r->ts;
	t->last = r->ts;
	t->n++;
	t->sum += r->ts;
	t->xor_ ^= r->ts * (r->cpu + 1);
	t->per_id[r->type & 1023]++;
	t->per_cpu[r->cpu & 3]++;
}

static int raw_cb(void *arg, const struct hist_ftrace_record *r)
{
	tally_rec(arg, r);
	return 0;
}

static void test_raw_walk(void)
{
	struct hist_ftrace_page_fmt fmt;
	struct tally *t = calloc(1, sizeof(*t));
	char err[256] = "";
	size_t len, hl;
	char *hp = (char *)slurp(DATA "raw-sched/formats/events/header_page", &hl);
	uint8_t *b;
	long n;

	T_EQ(hist_ftrace_parse_header_page(hp, hl, &fmt, err, sizeof(err)), 0);
	free(hp);
	b = slurp(DATA "raw-sched/cpu0.raw", &len);
	T_ASSERT(b != NULL);
	n = hist_ftrace_raw_walk(&fmt, b, len, 0, raw_cb, t, err, sizeof(err));
	T_EQ(n, 9414);
	/* A capture cut mid-page is refused with the offset. */
	T_ASSERT(hist_ftrace_raw_walk(&fmt, b, len - 100, 0, NULL, NULL, err, sizeof(err)) < 0);
	T_ASSERT(strstr(err, "not a whole number") != NULL);
	free(b);
	t->prev = 0;	/* time only moves forward per CPU */
	b = slurp(DATA "raw-sched/cpu1.raw", &len);
	n = hist_ftrace_raw_walk(&fmt, b, len, 1, raw_cb, t, err, sizeof(err));
	T_EQ(n, 12496);
	/* A stopping callback. */
	T_EQ(hist_ftrace_raw_walk(&fmt, b, len, 1, NULL, NULL, err, sizeof(err)), 12496);
	free(b);

	T_EQ(t->n, 21910);
	T_EQ(t->back, 0);
	T_EQ(t->per_id[372], 9702);	/* sched_switch */
	T_EQ(t->per_id[375], 5487);	/* sched_waking */
	/* IDs from the format files (README swaps a few of them). */
	T_EQ(t->per_id[374], 5487);	/* sched_wakeup */
	T_EQ(t->per_id[373], 311);	/* sched_wakeup_new */
	T_EQ(t->per_id[366], 311);	/* sched_process_fork */
	T_EQ(t->per_id[369], 311);	/* sched_process_exit */
	T_EQ(t->per_id[365], 301);	/* sched_process_exec */
	/* trace-cmd report -t over raw.v6.dat: sum and xor of ts*(cpu+1). */
	T_EQU(t->sum, UINT64_C(25847360679679117));
	T_EQU(t->xor_, UINT64_C(12958816881));
	free(t);
}

/* ---- trace.dat -------------------------------------------------------- */

struct expect_file {
	const char *path;
	const char *counts;	/* event-counts.txt */
	const char *section;	/* "# name" section in it, or NULL */
	int version;
	const char *clock;
	uint64_t n, cpu0, cpu1, sum, xor_, first, last;
};

static const struct expect_file files[] = {
	{ DATA "sched.v7-zstd.dat", DATA "sched.event-counts.txt", NULL, 7, "local",
	  65059, 26078, 38981, UINT64_C(92691428049338746), UINT64_C(2879238804877),
	  UINT64_C(1420777531759), UINT64_C(1430818396674) },
	{ DATA "sched.v6.dat", DATA "sched.event-counts.txt", NULL, 6, "local",
	  65059, 26078, 38981, UINT64_C(92691428049338746), UINT64_C(2879238804877),
	  UINT64_C(1420777531759), UINT64_C(1430818396674) },
	{ DATA "syscalls.v7-zstd.dat", DATA "syscalls.event-counts.txt", NULL, 7, "local",
	  161323, 71397, 89926, UINT64_C(178501273961544915), UINT64_C(1114178169031),
	  UINT64_C(1104309739257), UINT64_C(1109327032040) },
	{ DATA "mem.v7-none.dat", DATA "mem.event-counts.txt", NULL, 7, "local",
	  139092, 44563, 94529, UINT64_C(155665091591091701), UINT64_C(3365631246279),
	  UINT64_C(1116709903277), UINT64_C(1121729031907) },
	{ DATA "mixed.v7-zstd.dat", DATA "mixed.event-counts.txt", NULL, 7, "local",
	  113003, 38356, 74647, UINT64_C(127952540992678692), UINT64_C(2329265465148),
	  UINT64_C(1128106089035), UINT64_C(1138125422422) },
	{ DATA "edge.v7-zstd.dat", DATA "edge.event-counts.txt", "edge.v7-zstd.dat", 7,
	  "local", 173, 31, 142, UINT64_C(359199164638533), UINT64_C(2077392186130),
	  UINT64_C(2076027516437), UINT64_C(2078367455593) },
	{ DATA "lost.v7-zstd.dat", DATA "edge.event-counts.txt", "lost.v7-zstd.dat", 7,
	  "local", 107393, 104841, 2552, UINT64_C(224806402365980089),
	  UINT64_C(2093387724724), UINT64_C(2093287167575), UINT64_C(2093331179048) },
	{ DATA "raw-sched/raw.v6.dat", DATA "raw-sched/event-counts.txt", NULL, 6, "",
	  21910, 9414, 12496, UINT64_C(25847360679679117), UINT64_C(12958816881),
	  UINT64_C(1177772038230), UINT64_C(1181813894337) },
};

/* Compare per-event counts with an event-counts.txt ("  N name" lines). */
static void check_counts(struct hist_tracedat *td, const struct tally *t,
			 const struct expect_file *x)
{
	size_t len;
	char *text = (char *)slurp(x->counts, &len), *line, *save = NULL;
	int in = x->section == NULL, checked = 0;
	uint64_t total = 0;

	T_ASSERT(text != NULL);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		const struct hist_ftrace_event *e;
		unsigned long long n;
		char name[64];

		if (line[0] == '#') {
			in = x->section && strstr(line, x->section) && !strchr(line, ':');
			continue;
		}
		if (!in || sscanf(line, " %llu %63s", &n, name) != 2)
			continue;
		e = hist_tracedat_find_event(td, NULL, name);
		if (!e) {
			T_FAILF("%s: no format for %s", x->path, name);
			continue;
		}
		if (t->per_id[e->desc.id & 1023] != n)
			T_FAILF("%s: %s: %llu events, expected %llu", x->path, name,
				(unsigned long long)t->per_id[e->desc.id & 1023], n);
		total += n;
		checked++;
	}
	T_ASSERT(checked > 0);
	T_EQU(total, x->n);
	free(text);
}

static struct hist_tracedat *open_ok(const char *path)
{
	char err[512] = "";
	struct hist_tracedat *td = hist_tracedat_open(path, err, sizeof(err));

	if (!td)
		T_FAILF("%s: %s", path, err);
	return td;
}

static void walk(struct hist_tracedat *td, struct tally *t)
{
	struct hist_ftrace_record r;
	int ret;

	memset(t, 0, sizeof(*t));
	while ((ret = hist_tracedat_next(td, &r)) != 0) {
		if (ret < 0) {
			T_FAILF("%s", hist_tracedat_error(td));
			break;
		}
		tally_rec(t, &r);
	}
}

static void test_tracedat_files(void)
{
	struct tally *t = calloc(1, sizeof(*t));
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const struct expect_file *x = &files[i];
		struct hist_tracedat *td = open_ok(x->path);

		if (!td)
			continue;
		T_EQ(hist_tracedat_version(td), x->version);
		T_EQ(hist_tracedat_nr_cpus(td), 2);
		T_STREQ(hist_tracedat_clock(td), x->clock);
		walk(td, t);
		check_counts(td, t, x);
		T_EQU(t->n, x->n);
		T_EQU(t->per_cpu[0], x->cpu0);
		T_EQU(t->per_cpu[1], x->cpu1);
		T_EQU(t->sum, x->sum);
		T_EQU(t->xor_, x->xor_);
		T_EQU(t->first, x->first);
		T_EQU(t->last, x->last);
		T_EQ(t->back, 0);
		/* The end is sticky; a rewind starts over. */
		{
			struct hist_ftrace_record r;

			T_EQ(hist_tracedat_next(td, &r), 0);
			T_EQ(hist_tracedat_rewind(td), 0);
			T_EQ(hist_tracedat_next(td, &r), 1);
			T_EQU(r.ts, x->first);
		}
		hist_tracedat_close(td);
	}
	free(t);
}

/* Both encodings of a set decode to the same records, byte for byte. */
static void test_v6_equals_v7(void)
{
	struct hist_tracedat *a = open_ok(DATA "sched.v6.dat");
	struct hist_tracedat *b = open_ok(DATA "sched.v7-zstd.dat");
	struct hist_ftrace_record ra, rb;
	uint64_t n = 0, diff = 0;
	int x, y;

	if (!a || !b)
		goto out;
	T_EQ(hist_tracedat_nr_events(a), hist_tracedat_nr_events(b));
	for (;;) {
		x = hist_tracedat_next(a, &ra);
		y = hist_tracedat_next(b, &rb);
		if (x != y || x <= 0)
			break;
		n++;
		if (ra.ts != rb.ts || ra.cpu != rb.cpu || ra.len != rb.len ||
		    memcmp(ra.data, rb.data, ra.len))
			diff++;
	}
	T_EQ(x, 0);
	T_EQ(y, 0);
	T_EQ(n, 65059);
	T_EQ(diff, 0);
out:
	hist_tracedat_close(a);
	hist_tracedat_close(b);
}

/* In-line decompression and the worker give the same stream. */
static void test_prefetch_same(void)
{
	struct hist_tracedat *a = open_ok(DATA "syscalls.v7-zstd.dat");
	struct hist_tracedat *b = open_ok(DATA "syscalls.v7-zstd.dat");
	struct hist_ftrace_record ra, rb;
	uint64_t n = 0, diff = 0;
	int x, y, pass;

	if (!a || !b)
		goto out;
	T_EQ(hist_tracedat_set_prefetch(a, 0), 0);
	for (pass = 0; pass < 2; pass++) {
		for (;;) {
			x = hist_tracedat_next(a, &ra);
			y = hist_tracedat_next(b, &rb);
			if (x != y || x <= 0)
				break;
			n++;
			if (ra.ts != rb.ts || ra.cpu != rb.cpu || ra.len != rb.len ||
			    ra.file_offset != rb.file_offset ||
			    memcmp(ra.data, rb.data, ra.len))
				diff++;
			/* Rewind half-way through the first pass. */
			if (pass == 0 && n == 80000)
				break;
		}
		T_EQ(hist_tracedat_set_prefetch(a, 0), -HIST_EBUSY);
		hist_tracedat_rewind(a);
		hist_tracedat_rewind(b);
	}
	T_EQ(n, 80000 + 161323);
	T_EQ(diff, 0);
out:
	hist_tracedat_close(a);
	hist_tracedat_close(b);
}

/* Rewinds at random points while the worker runs ahead. */
static void test_prefetch_rewind(void)
{
	struct hist_tracedat *td = open_ok(DATA "lost.v7-zstd.dat");
	struct hist_ftrace_record r;
	uint32_t seed = 99, round;
	uint64_t first = 0;

	if (!td)
		return;
	/* 248 KB of zstd data: below the worker's threshold, so force it */
	T_EQ(hist_tracedat_set_prefetch(td, 2), 0);
	for (round = 0; round < 40; round++) {
		uint64_t n = 0, stop;

		seed = seed * 1103515245u + 12345u;
		stop = round == 39 ? UINT64_MAX : (seed >> 8) % 120000;
		while (n < stop && hist_tracedat_next(td, &r) > 0) {
			if (!n && !round)
				first = r.ts;
			else if (!n)
				T_EQU(r.ts, first);
			n++;
		}
		if (round == 39)
			T_EQ(n, 107393);
		hist_tracedat_rewind(td);
	}
	hist_tracedat_close(td);
}


/* ---- tables parsed on first use ------------------------------------------ */

struct sym_job {
	struct hist_tracedat *td;
	char out[8][128];
};

static void *sym_thread(void *arg)
{
	static const uint64_t addrs[8] = {
		UINT64_C(0xffffffff8137187d), UINT64_C(0xffffffffc02330af), 0x1000,
		UINT64_C(0xffffffff81000000), UINT64_C(0xffffffff8137187d) - 0x1ad,
		UINT64_C(0xffffffff8137187d) + 1, UINT64_C(0xffffffffc02330af) - 8, 0,
	};
	struct sym_job *j = arg;
	int i;

	for (i = 0; i < 8; i++)
		if (hist_tracedat_sym(j->td, addrs[i], 1, j->out[i], sizeof(j->out[i])) < 0)
			snprintf(j->out[i], sizeof(j->out[i]), "-");
	return NULL;
}

/*
 * kallsyms, printk formats and cmdlines are parsed on first use: two
 * threads that race to be first see the same table (make check-tsan runs
 * this), and one that runs after sees it too.
 */
static void test_lazy_tables_threads(void)
{
	struct hist_tracedat *td = open_ok(DATA "g08-kmalloc-sym.v7-zstd.dat");
	struct sym_job a, b, c;
	pthread_t ta, tb;
	int i;

	if (!td)
		return;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	a.td = b.td = c.td = td;
	T_EQ(pthread_create(&ta, NULL, sym_thread, &a), 0);
	T_EQ(pthread_create(&tb, NULL, sym_thread, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	sym_thread(&c);
	T_ASSERT(strcmp(a.out[0], "-") != 0);
	for (i = 0; i < 8; i++) {
		T_STREQ(a.out[i], b.out[i]);
		T_STREQ(a.out[i], c.out[i]);
	}
	hist_tracedat_close(td);
}

/*
 * A kallsyms section that does not decompress no longer stops the open
 * (nothing reads it until a symbol is asked for): every record replays,
 * and symbols fall back to "not found" as the kernel's %ps does.
 */
static void test_lazy_tables_damaged(void)
{
	size_t len, i;
	uint8_t *b = slurp(DATA "sched.v7-zstd.dat", &len);
	struct hist_tracedat *td;
	struct hist_ftrace_record r;
	char err[512], buf[128];
	uint64_t n = 0;

	if (!b)
		return;
	/* the middle of the kallsyms section (offset 2933, 1,012,809 bytes,
	 * see ../shared/data/sched/tracedat-walk.txt) */
	for (i = 0; i < 4096; i++)
		b[500000 + i] ^= 0x5a;
	td = hist_tracedat_open_mem(b, len, err, sizeof(err));
	T_ASSERT(td != NULL);
	if (!td) {
		printf("# %s\n", err);
		free(b);
		return;
	}
	while (hist_tracedat_next(td, &r) > 0)
		n++;
	T_EQU(n, 65059);
	T_EQ(hist_tracedat_sym(td, UINT64_C(0xffffffff81000000), 1, buf, sizeof(buf)), -1);
	/* the other tables are whole (../shared/data/sched/saved_cmdlines.txt) */
	T_STREQ(hist_tracedat_cmdline(td, 29058) ? hist_tracedat_cmdline(td, 29058) : "(none)",
		"workload.sh");
	hist_tracedat_close(td);
	free(b);
}

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_edge(void)
{
	struct hist_tracedat *td = open_ok(DATA "edge.v7-zstd.dat");
	const struct hist_ftrace_event *print, *exec;
	struct hist_ftrace_record r;
	int big = 0, prints = 0, seen_m7 = 0, seen_long = 0, seen_4000 = 0;

	if (!td)
		return;
	print = hist_tracedat_find_event(td, "ftrace", "print");
	exec = hist_tracedat_find_event(td, "sched", "sched_process_exec");
	T_ASSERT(print && exec);
	if (!print || !exec)
		goto out;
	T_EQ(print->desc.id, 5);
	T_EQ(hist_tracedat_find_event(td, "ftrace", "raw_data")->desc.id, 19);
	T_ASSERT(hist_tracedat_event_by_id(td, 5) == print);
	T_ASSERT(hist_tracedat_event_by_id(td, 60000) == NULL);
	while (hist_tracedat_next(td, &r) > 0) {
		/* Payloads over 112 bytes are the type_len 0 records. */
		big += r.len > 112;
		if (r.type == 5) {
			const char *buf = (const char *)r.data + 16;
			size_t n = strnlen(buf, r.len - 16);

			prints++;
			T_ASSERT(n < r.len - 16);	/* NUL-terminated */
			if (n == 8 && !memcmp(buf, "m0007:x\n", 8)) {
				seen_m7 = 1;
				T_EQU(r.ts, UINT64_C(2076328332249));
				T_EQ(r.cpu, 1);
			}
			/* The kernel appends a newline to marker text. */
			seen_4000 |= n == 4001 && !memcmp(buf, "m4000:", 6) &&
				     buf[4000] == '\n';
		} else if (r.type == exec->desc.id) {
			uint32_t loc = rd32(r.data + 8);
			const char *fn = (const char *)r.data + (loc & 0xffff);

			T_ASSERT((loc & 0xffff) + (loc >> 16) <= r.len);
			if ((loc >> 16) > 200 &&
			    strstr(fn, "/a_program_with_a_rather_long_name_to_make_the_exec_event_big"))
				seen_long++;
		}
	}
	T_EQ(big, 27);
	T_EQ(prints, 24);
	T_ASSERT(seen_m7);
	T_ASSERT(seen_4000);
	T_ASSERT(seen_long > 0);
out:
	hist_tracedat_close(td);
}

static void test_lost(void)
{
	struct hist_tracedat *td = open_ok(DATA "lost.v7-zstd.dat");
	struct hist_ftrace_record r;
	uint64_t i = 0, at1 = 0, at2 = 0, drops = 0;

	if (!td)
		return;
	while (hist_tracedat_next(td, &r) > 0) {
		uint64_t d = hist_tracedat_dropped(td);

		if (d) {
			drops++;
			T_EQ(r.cpu, 0);
			if (d == 15374)
				at1 = i;
			else if (d == 84)
				at2 = i;
			else
				T_FAILF("unexpected drop count %llu", (unsigned long long)d);
		}
		i++;
	}
	T_EQ(drops, 2);
	/* Where trace-cmd report prints its "[N EVENTS DROPPED]" lines. */
	T_EQ(at1, 27);
	T_EQ(at2, 94490);
	T_EQU(hist_tracedat_lost(td, 0), 15458);
	T_EQU(hist_tracedat_lost(td, 1), 0);
	T_EQU(hist_tracedat_lost(td, 7), 0);
	hist_tracedat_rewind(td);
	T_EQU(hist_tracedat_lost(td, 0), 0);
	hist_tracedat_close(td);
}

static void test_cmdlines(void)
{
	struct hist_tracedat *td = open_ok(DATA "sched.v7-zstd.dat");
	char comm[16];

	if (!td)
		return;
	T_STREQ(hist_tracedat_cmdline(td, 29058), "workload.sh");
	T_STREQ(hist_tracedat_cmdline(td, 21), "migration/1");
	T_STREQ(hist_tracedat_cmdline(td, 29055), "trace-cmd");
	T_STREQ(hist_tracedat_cmdline(td, 14), "ksoftirqd/0");
	T_ASSERT(hist_tracedat_cmdline(td, 2) == NULL);
	T_ASSERT(hist_tracedat_cmdline(td, -1) == NULL);
	T_EQ(hist_tracedat_comm_cb(td, 29059, comm), 0);
	T_STREQ(comm, "timeout");
	T_EQ(hist_tracedat_comm_cb(td, 3, comm), -HIST_ENOENT);
	T_STREQ(hist_tracedat_uname(td), "Linux vm 6.18.44-fc-v470 x86_64");
	T_EQ(hist_tracedat_ts_offset(td), 0);
	T_EQ(hist_tracedat_page_fmt(td)->page_size, 4096);
	hist_tracedat_close(td);

	/* raw.v6.dat: cmdlines but no kallsyms, options or clock. */
	td = open_ok(DATA "raw-sched/raw.v6.dat");
	if (!td)
		return;
	T_STREQ(hist_tracedat_cmdline(td, 15), "rcu_preempt");
	T_EQ(hist_tracedat_sym(td, UINT64_C(0xffffffff81000000), 1, comm, sizeof(comm)), -1);
	hist_tracedat_close(td);
}

/* kallsyms against what a 6.1 kernel printed for the same addresses. */
static void test_kallsyms(void)
{
	static const struct {
		uint64_t addr;
		const char *ps;
	} g08[] = {
		/* g08-vals-sums-sym/expected/hist: keys=call_site.sym */
		{ UINT64_C(0xffffffff81408866), "proc_pid_readlink" },
		{ UINT64_C(0xffffffff8147c3f0), "tomoyo_find_next_domain" },
		{ UINT64_C(0xffffffff814810bb), "tomoyo_realpath_from_path" },
		{ UINT64_C(0xffffffffc02330af), "p9_fcall_init [9pnet]" },
		{ UINT64_C(0xffffffff813e972a), "load_elf_phdrs" },
		{ UINT64_C(0xffffffff81373f67), "alloc_pipe_info" },
		{ UINT64_C(0xffffffff813700e2), "alloc_bprm" },
		{ UINT64_C(0xffffffff8147c3ce), "tomoyo_find_next_domain" },
		{ UINT64_C(0xffffffff8144b74f), "security_task_alloc" },
		{ UINT64_C(0xffffffff81373eec), "alloc_pipe_info" },
		{ UINT64_C(0xffffffff812eda8b), "__get_vm_area_node" },
		{ UINT64_C(0xffffffffc0234b89), "p9_client_getattr_dotl [9pnet]" },
		{ UINT64_C(0xffffffff8144b9a5), "security_prepare_creds" },
		{ UINT64_C(0xffffffff812f08fe), "__vmalloc_node_range" },
		{ UINT64_C(0xffffffff814125ad), "proc_self_get_link" },
		{ UINT64_C(0xffffffff81480fb5), "tomoyo_encode2" },
		{ UINT64_C(0xffffffffc02025cd), "virtqueue_add_split [virtio_ring]" },
	};
	/* g18-stacktrace-key/expected/hist, frames past the tracing ones. */
	static const char *const exec_stack[] = {
		"do_execveat_common.isra.0+0x1ad/0x220",
		"__x64_sys_execve+0x32/0x40",
		"do_syscall_64+0x5d/0xb0",
		"entry_SYSCALL_64_after_hwframe+0x6e/0xd8",
	};
	static const char *const fork_stack[] = {
		"kernel_clone+0x1ab/0x430",
		"__do_sys_clone+0x7b/0xb0",
		"do_syscall_64+0x5d/0xb0",
		"entry_SYSCALL_64_after_hwframe+0x6e/0xd8",
	};
	struct hist_tracedat *td = open_ok(DATA "g08-kmalloc-sym.v7-zstd.dat");
	const struct hist_ftrace_event *ks, *exec, *fork;
	struct hist_ftrace_record r, st;
	char buf[128];
	size_t i;
	int nexec = 0, nfork = 0, n;

	if (!td)
		return;
	for (i = 0; i < sizeof(g08) / sizeof(g08[0]); i++) {
		n = hist_tracedat_sym(td, g08[i].addr, 0, buf, sizeof(buf));
		T_STREQ(n > 0 ? buf : "(none)", g08[i].ps);
		T_EQ(n, (int)strlen(g08[i].ps));
	}
	/* Every kmalloc call site in the file resolves. */
	n = 0;
	while (hist_tracedat_next(td, &r) > 0) {
		uint64_t cs = rd32(r.data + 8) | (uint64_t)rd32(r.data + 12) << 32;

		T_ASSERT(hist_tracedat_sym(td, cs, 1, buf, sizeof(buf)) > 0);
		n++;
	}
	T_EQ(n, 218);	/* expected/event-counts.tsv */
	T_STREQ(hist_tracedat_clock(td), "global");
	T_EQ(hist_tracedat_sym(td, UINT64_C(0xffffffffc02330af), 1, buf, sizeof(buf)), (int)strlen(buf));
	T_ASSERT(!strncmp(buf, "p9_fcall_init+0x", 16) && strstr(buf, " [9pnet]"));
	/* Per-CPU (absolute) symbols and small numbers are not kernel text. */
	T_EQ(hist_tracedat_sym(td, 0, 0, buf, sizeof(buf)), -1);
	T_EQ(hist_tracedat_sym(td, 0x1000, 1, buf, sizeof(buf)), -1);
	/* Exact symbol start; truncation to the buffer. */
	n = hist_tracedat_sym(td, UINT64_C(0xffffffff8137187d) - 0x1ad, 1, buf, sizeof(buf));
	T_STREQ(buf, "do_execveat_common.isra.0+0x0/0x220");
	T_EQ(n, 35);
	n = hist_tracedat_sym(td, UINT64_C(0xffffffff8137187d), 1, buf, 5);
	T_STREQ(buf, "do_e");
	T_EQ(n, 4);
	T_EQ(hist_tracedat_sym(NULL, 1, 1, buf, sizeof(buf)), -1);
	hist_tracedat_close(td);

	td = open_ok(DATA "g18-stacktrace.v7-zstd.dat");
	if (!td)
		return;
	ks = hist_tracedat_find_event(td, "ftrace", "kernel_stack");
	exec = hist_tracedat_find_event(td, "sched", "sched_process_exec");
	fork = hist_tracedat_find_event(td, "sched", "sched_process_fork");
	T_ASSERT(ks && exec && fork);
	while (ks && exec && fork && hist_tracedat_next(td, &r) > 0) {
		const char *const *want;
		uint32_t f;

		if (r.type != exec->desc.id && r.type != fork->desc.id)
			continue;
		/* The stack is the CPU's next record. */
		T_EQ(hist_tracedat_peek_cpu(td, r.cpu, &st), 1);
		T_EQ(st.type, ks->desc.id);
		T_EQ(st.cpu, r.cpu);
		T_ASSERT(st.ts >= r.ts);
		want = r.type == exec->desc.id ? exec_stack : fork_stack;
		nexec += r.type == exec->desc.id;
		nfork += r.type == fork->desc.id;
		for (f = 0; f < 4 && 16 + 8 * (f + 3) <= st.len; f++) {
			const uint8_t *p = st.data + 16 + 8 * (f + 2);
			uint64_t ip = rd32(p) | (uint64_t)rd32(p + 4) << 32;

			hist_tracedat_sym(td, ip, 1, buf, sizeof(buf));
			T_STREQ(buf, want[f]);
		}
	}
	T_EQ(nexec, 13);
	T_EQ(nfork, 18);
	T_EQ(hist_tracedat_peek_cpu(td, 0, &st), 0);
	hist_tracedat_close(td);
}

static void test_find_event_cb(void)
{
	struct hist_tracedat *td = open_ok(DATA "sched.v7-zstd.dat");
	struct hist_event_desc d;

	if (!td)
		return;
	T_EQ(hist_tracedat_find_event_cb(td, "sched", "sched_switch", &d), 0);
	T_STREQ(d.system, "sched");
	T_STREQ(d.name, "sched_switch");
	T_EQ(d.id, 372);
	T_EQ(d.nr_fields, 11);
	T_ASSERT(d.host_event == hist_tracedat_find_event(td, "sched", "sched_switch"));
	T_EQ(hist_tracedat_find_event_cb(td, "sched", "nope", &d), -HIST_ENOENT);
	T_EQ(hist_tracedat_find_event_cb(td, "irq", "sched_switch", &d), -HIST_ENOENT);
	/* ftrace's own events are there too. */
	T_EQ(hist_tracedat_find_event_cb(td, "ftrace", "print", &d), 0);
	T_EQ(d.id, 5);
	T_ASSERT(hist_tracedat_event(td, hist_tracedat_nr_events(td)) == NULL);
	T_ASSERT(hist_tracedat_event(td, 0) != NULL);
	hist_tracedat_close(td);
}

/* ---- a trace.dat built here: big endian, options, corner cases ---------- */

struct out {
	uint8_t *b;
	size_t len, cap;
	int be;
};

static void out_bytes(struct out *o, const void *p, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2;
		o->b = realloc(o->b, o->cap);
	}
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

static void out_num(struct out *o, uint64_t v, int size)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < size; i++)
		b[i] = (uint8_t)(o->be ? v >> (8 * (size - 1 - i)) : v >> (8 * i));
	out_bytes(o, b, (size_t)size);
}

static void out_str(struct out *o, const char *s)
{
	out_bytes(o, s, strlen(s) + 1);
}

static void out_blob(struct out *o, const char *s, int size_bytes)
{
	out_num(o, strlen(s), size_bytes);
	out_bytes(o, s, strlen(s));
}

static void out_option(struct out *o, uint16_t id, const char *s)
{
	out_num(o, id, 2);
	out_num(o, strlen(s), 4);
	out_bytes(o, s, strlen(s));
}

static const char ksyms_text[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t foo\n"
	"ffffffff81000100 t foo_alias\n"
	"ffffffff81000180 T bar\n"
	"garbage line\n"
	"ffffffff81000200 D last_core\n"
	"ffffffffc0001000 t modf\t[mymod]\n"
	"ffffffffc0001040 t modg\t[mymod]\n"
	"ffffffffc0002000 t otherf\t[other]";

static const char fmt_text[] =
	"name: ev\nID: 7\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int x;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"x=%d\", REC->x\n";

/* A v6 file with one CPU holding the page build_page() makes. */
static uint8_t *build_v6(int be, int latency, size_t *len)
{
	static const char hp[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
	struct out o = { NULL, 0, 0, be };
	struct pagebuf p;
	size_t table;

	out_bytes(&o, "\x17\x08\x44tracing6", 11);
	out_num(&o, 0, 1);
	out_num(&o, (uint64_t)be, 1);
	out_num(&o, 8, 1);
	out_num(&o, 4096, 4);
	out_str(&o, "header_page");
	out_blob(&o, hp, 8);
	out_str(&o, "header_event");
	out_blob(&o, "# compressed entry header\n", 8);
	out_num(&o, 1, 4);		/* one ftrace format */
	out_blob(&o, "name: bad\nnot a format\n", 8);	/* skipped */
	out_num(&o, 1, 4);		/* one system */
	out_str(&o, "test");
	out_num(&o, 1, 4);
	out_blob(&o, fmt_text, 8);
	out_blob(&o, ksyms_text, 4);
	out_blob(&o, "0xffffffff82000000 : \"hello %d\\n\"\nbad line\n", 4);
	out_blob(&o, "1 init\n42 foo bar\n7 Web Content\n42 baz\nx y\n", 8);
	out_num(&o, 1, 4);		/* CPUs */
	out_bytes(&o, "options  ", 10);
	out_option(&o, 4, "[global] local counter\n");
	out_option(&o, 7, "1000");
	out_option(&o, 1, "0x10");
	out_option(&o, 5, "Linux x 1.0 y");
	out_option(&o, 99, "unknown");
	out_num(&o, 0, 2);
	out_bytes(&o, latency ? "latency  " : "flyrecord", 10);
	table = o.len;
	out_num(&o, 0, 8);
	out_num(&o, 4096, 8);
	out_blob(&o, "[global] local\n", 8);
	while (o.len % 4096)
		out_num(&o, 0, 1);
	/* Patch the CPU table with the page's offset. */
	{
		size_t here = o.len;

		o.len = table;
		out_num(&o, here, 8);
		o.len = here;
	}
	build_page(&p, be, UINT64_C(1) << 60);
	out_bytes(&o, p.b, sizeof(p.b));
	*len = o.len;
	return o.b;
}

static void test_built_file(void)
{
	int be;

	for (be = 0; be < 2; be++) {
		struct hist_tracedat *td;
		struct hist_ftrace_record r;
		const struct hist_ftrace_event *e;
		char err[512] = "", buf[64];
		size_t len;
		uint8_t *b = build_v6(be, 0, &len);
		uint64_t top = UINT64_C(1) << 60;

		td = hist_tracedat_open_mem(b, len, err, sizeof(err));
		if (!td) {
			T_FAILF("%s", err);
			free(b);
			continue;
		}
		T_EQ(hist_tracedat_version(td), 6);
		T_STREQ(hist_tracedat_clock(td), "global");
		T_EQ(hist_tracedat_nr_cpus(td), 1);
		T_EQ(hist_tracedat_ts_offset(td), 1000 + 16000);
		T_STREQ(hist_tracedat_uname(td), "Linux x 1.0 y");
		T_EQ(hist_tracedat_nr_events(td), 1);	/* the bad one skipped */
		e = hist_tracedat_event_by_id(td, 7);
		T_ASSERT(e && !strcmp(e->desc.system, "test"));
		T_STREQ(hist_tracedat_cmdline(td, 42), "baz");
		T_STREQ(hist_tracedat_cmdline(td, 7), "Web Content");
		T_STREQ(hist_tracedat_cmdline(td, 1), "init");
		T_STREQ(hist_tracedat_printk_fmt(td, UINT64_C(0xffffffff82000000)), "hello %d\\n");
		T_ASSERT(hist_tracedat_printk_fmt(td, 1) == NULL);

		/* Aliases: the first listed wins; sizes run to the next. */
		hist_tracedat_sym(td, UINT64_C(0xffffffff81000010), 1, buf, sizeof(buf));
		T_STREQ(buf, "_stext+0x10/0x100");
		hist_tracedat_sym(td, UINT64_C(0xffffffff81000150), 1, buf, sizeof(buf));
		T_STREQ(buf, "foo+0x50/0x80");
		hist_tracedat_sym(td, UINT64_C(0xffffffff81000150), 0, buf, sizeof(buf));
		T_STREQ(buf, "foo");
		T_EQ(hist_tracedat_sym(td, UINT64_C(0xffffffff81000200), 1, buf, sizeof(buf)), 17);
		T_STREQ(buf, "last_core+0x0/0x0");
		T_EQ(hist_tracedat_sym(td, UINT64_C(0xffffffff81000201), 1, buf, sizeof(buf)), -1);
		hist_tracedat_sym(td, UINT64_C(0xffffffffc0001001), 0, buf, sizeof(buf));
		T_STREQ(buf, "modf [mymod]");
		hist_tracedat_sym(td, UINT64_C(0xffffffffc0001001), 1, buf, sizeof(buf));
		T_STREQ(buf, "modf+0x1/0x40 [mymod]");
		hist_tracedat_sym(td, UINT64_C(0xffffffffc0001044), 1, buf, sizeof(buf));
		T_STREQ(buf, "modg+0x4/0xfc0 [mymod]");
		T_EQ(hist_tracedat_sym(td, UINT64_C(0xffffffffc0002010), 1, buf, sizeof(buf)), -1);
		T_EQ(hist_tracedat_sym(td, 0x10, 0, buf, sizeof(buf)), -1);
		T_EQ(hist_tracedat_sym(td, UINT64_C(0xffffffff80ffffff), 0, buf, sizeof(buf)), -1);

		/* The page's records, time stamps unshifted by the offsets. */
		T_EQ(hist_tracedat_next(td, &r), 1);
		T_EQU(r.ts, top + 5);
		T_EQ(r.type, 7);
		T_EQ(r.cpu, 0);
		T_EQ(r.file_offset, 4096 * (len / 4096 - 1) + 16);
		T_EQ(hist_tracedat_next(td, &r), 1);
		T_EQ(r.len, 120);
		T_EQ(hist_tracedat_next(td, &r), 1);
		T_EQU(r.ts, top + UINT64_C(5000000000));
		T_EQ(hist_tracedat_next(td, &r), 1);
		T_EQ(hist_tracedat_next(td, &r), 0);
		hist_tracedat_close(td);
		free(b);
	}
	{
		char err[512] = "";
		size_t len;
		uint8_t *b = build_v6(0, 1, &len);

		T_ASSERT(hist_tracedat_open_mem(b, len, err, sizeof(err)) == NULL);
		T_ASSERT(strstr(err, "latency-format") != NULL);
		free(b);
	}
}

static void expect_open_error(const void *buf, size_t len, const char *want)
{
	char err[512] = "";
	struct hist_tracedat *td = hist_tracedat_open_mem(buf, len, err, sizeof(err));

	T_ASSERT(td == NULL);
	hist_tracedat_close(td);
	if (!strstr(err, want))
		T_FAILF("error '%s' lacks '%s'", err, want);
}

/* A file cut short opens; its walk gives records and then an error
 * naming the damage. */
static void expect_damage(const void *buf, size_t len, const char *want)
{
	char err[512] = "";
	struct hist_tracedat *td = hist_tracedat_open_mem(buf, len, err, sizeof(err));
	struct hist_ftrace_record rec;
	int ret, found = 0;

	T_ASSERT(td != NULL);
	if (!td) {
		printf("# %s\n", err);
		return;
	}
	while ((ret = hist_tracedat_next(td, &rec)) != 0)
		if (ret < 0 && strstr(hist_tracedat_error(td), want))
			found = 1;
	if (!found)
		T_FAILF("no walk error has '%s'", want);
	hist_tracedat_close(td);
}

static void test_open_errors(void)
{
	char err[512] = "";
	uint8_t *b;
	size_t len;

	T_ASSERT(hist_tracedat_open("test/data/no-such-file.dat", err, sizeof(err)) == NULL);
	T_ASSERT(strstr(err, "cannot open") != NULL);
	expect_open_error("", 0, "bad magic");
	expect_open_error("\x17\x08\x44tracing8\0", 12, "unsupported file version '8'");
	expect_open_error("\x17\x08\x44tracing6", 11, "unterminated version at offset 10");
	expect_open_error("\x17\x08\x44tracing6\0\0\x08\0\x10", 17, "truncated page size at offset 14");

	b = slurp(DATA "sched.v7-zstd.dat", &len);
	T_ASSERT(b != NULL);
	if (b) {
		/* Cut inside the last section: the section scan says where. */
		expect_damage(b, len - 10, "truncated section at offset");
		expect_open_error(b, 40, "truncated section");
		/* An unknown compression. */
		memcpy(b + 18, "zlib", 4);
		expect_open_error(b, len, "unsupported compression 'zlib'");
		free(b);
	}
	b = slurp(DATA "sched.v6.dat", &len);
	if (b) {
		expect_damage(b, len - 4096, "truncated CPU 1 data at offset");
		expect_open_error(b, 5000, "truncated");
		free(b);
	}
}

/*
 * Robustness: the real files truncated at many offsets and with bytes
 * flipped at many offsets.  Open must fail cleanly or succeed, and a walk
 * must end; errors carry a message.
 */
static uint64_t fuzz_walk(struct hist_tracedat *td, uint64_t *errors)
{
	struct hist_ftrace_record r;
	uint64_t n = 0, calls = 0;
	int ret;

	while ((ret = hist_tracedat_next(td, &r)) != 0 && calls++ < 10000000) {
		if (ret < 0) {
			(*errors)++;
			if (strncmp(hist_tracedat_error(td), "trace.dat: ", 11))
				T_FAILF("error without message: %s", hist_tracedat_error(td));
			continue;
		}
		if (r.len < 2 || r.len > 65536)
			T_FAILF("record length %u", r.len);
		n++;
	}
	T_ASSERT(calls < 10000000);
	return n;
}

static void fuzz_file(const char *path, int cuts, int flips, int data_flips)
{
	size_t len, i;
	uint8_t *orig = slurp(path, &len), *b;
	uint32_t seed = 12345;
	uint64_t opened = 0, failed = 0, errors = 0, recs = 0;
	char err[512];

	if (!orig) {
		T_FAILF("cannot read %s", path);
		return;
	}
	b = malloc(len);
	for (i = 0; i < (size_t)cuts; i++) {
		size_t at = i < 64 ? i : (size_t)((uint64_t)len * (i - 64) / (uint64_t)(cuts - 64));
		struct hist_tracedat *td = hist_tracedat_open_mem(orig, at, err, sizeof(err));

		if (!td) {
			failed++;
			T_ASSERT(!strncmp(err, "trace.dat: ", 11));
			continue;
		}
		opened++;
		recs += fuzz_walk(td, &errors);
		hist_tracedat_close(td);
	}
	for (i = 0; i < (size_t)(flips + data_flips); i++) {
		struct hist_tracedat *td;
		size_t at;

		memcpy(b, orig, len);
		seed = seed * 1103515245u + 12345u;
		/* Metadata lives in the first ~40 KB of the files (past the
		 * kallsyms blob): aim there for the first batch. */
		at = i < (size_t)flips ? (seed >> 4) % (len < 65536 ? len : 65536) :
					 (seed >> 4) % len;
		b[at] ^= (uint8_t)(1u << (seed & 7)) | (uint8_t)(seed >> 24 & 0x81);
		td = hist_tracedat_open_mem(b, len, err, sizeof(err));
		if (!td) {
			failed++;
			continue;
		}
		opened++;
		recs += fuzz_walk(td, &errors);
		hist_tracedat_close(td);
	}
	printf("# fuzz %s: %llu opened, %llu refused, %llu walk errors, %llu records\n",
	       path, (unsigned long long)opened, (unsigned long long)failed,
	       (unsigned long long)errors, (unsigned long long)recs);
	T_ASSERT(opened > 0 && failed > 0);
	free(b);
	free(orig);
}

/* The built file: cut at every byte, every byte flipped. */
static void fuzz_built(int be)
{
	size_t len, i;
	uint8_t *orig = build_v6(be, 0, &len), *b = malloc(len);
	uint64_t errors = 0, opened = 0;
	char err[256];

	for (i = 0; i < len; i += FUZZ_SCALE) {
		struct hist_tracedat *td = hist_tracedat_open_mem(orig, i, err, sizeof(err));

		if (td) {
			opened++;
			fuzz_walk(td, &errors);
			hist_tracedat_close(td);
		}
		memcpy(b, orig, len);
		b[i] ^= (uint8_t)(0x80 >> (i % 8)) | (i % 3 ? 0 : 0x5a);
		td = hist_tracedat_open_mem(b, len, err, sizeof(err));
		if (td) {
			opened++;
			fuzz_walk(td, &errors);
			hist_tracedat_close(td);
		}
	}
	T_ASSERT(opened > 0);
	free(b);
	free(orig);
}

static void test_fuzz(void)
{
	fuzz_built(0);
	fuzz_built(1);
	fuzz_file(DATA "raw-sched/raw.v6.dat", 300 / FUZZ_SCALE + 70, 300 / FUZZ_SCALE,
		  300 / FUZZ_SCALE);
	fuzz_file(DATA "lost.v7-zstd.dat", 150 / FUZZ_SCALE + 70, 40 / FUZZ_SCALE,
		  120 / FUZZ_SCALE);
	fuzz_file(DATA "edge.v7-zstd.dat", 100 / FUZZ_SCALE + 70, 60 / FUZZ_SCALE,
		  20 / FUZZ_SCALE);
}

/* Data-region damage shows up as walk errors, and the walk carries on. */
static void test_corrupt_data(void)
{
	size_t len;
	uint8_t *b = slurp(DATA "raw-sched/raw.v6.dat", &len);
	struct hist_tracedat *td;
	uint64_t errors = 0, n;
	char err[512];
	size_t page;

	if (!b)
		return;
	/* Make every 50th page of the file claim more data than it holds. */
	for (page = 4096 * 8; page + 4096 <= len; page += 50 * 4096)
		b[page + 9] = 0x7f;
	td = hist_tracedat_open_mem(b, len, err, sizeof(err));
	T_ASSERT(td != NULL);
	if (td) {
		n = fuzz_walk(td, &errors);
		T_ASSERT(errors > 5);
		T_ASSERT(n > 21910 * 8 / 10 && n < 21910);
		T_ASSERT(strstr(hist_tracedat_error(td), "commit beyond the end of the page at offset") != NULL);
		hist_tracedat_close(td);
	}
	free(b);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void bench_file(const char *path)
{
	struct hist_tracedat *td;
	struct hist_ftrace_record r;
	double t0, t1, t2;
	uint64_t n = 0, sum = 0;
	char err[512];

	t0 = now();
	td = hist_tracedat_open(path, err, sizeof(err));
	if (!td) {
		printf("# bench %s: %s\n", path, err);
		return;
	}
	t1 = now();
	while (hist_tracedat_next(td, &r) > 0) {
		sum += r.data[0];
		n++;
	}
	t2 = now();
	printf("# bench %s: open %.1f ms, %llu records in %.1f ms = %.1f M records/s\n",
	       path, (t1 - t0) * 1e3, (unsigned long long)n, (t2 - t1) * 1e3,
	       (double)n / (t2 - t1) / 1e6);
	(void)sum;
	hist_tracedat_close(td);
}

static void test_speed(void)
{
	const char *big = getenv("HIST_BENCH_DAT");

	bench_file(DATA "syscalls.v7-zstd.dat");
	bench_file(DATA "mem.v7-none.dat");
	if (big)
		bench_file(big);
}

/* ---- v6 instance buffers ------------------------------------------------- */

#define V6MULTI "multi-buffer.v6.dat"

/* Records of buffer NAME per event, checked against trace-cmd report. */
static void check_v6_buffer(struct hist_tracedat *td, const char *name,
			    const char *const *events)
{
	unsigned long long want_total = 0, total = 0;
	struct hist_ftrace_record r;
	int ret, i;

	T_EQ(hist_tracedat_select_buffer(td, name), 0);
	T_STREQ(hist_tracedat_buffer(td), name);
	for (i = 0; events[i]; i++) {
		const struct hist_ftrace_event *e = hist_tracedat_find_event(td, "sched", events[i]);
		unsigned long long want = conf_buffer_count(DATA "buffers.event-counts.txt", V6MULTI,
							    name[0] ? name : "-", events[i]);
		unsigned long long n = 0;

		T_ASSERT(e != NULL && want != ~0ull && want > 0);
		if (!e)
			return;
		T_EQ(hist_tracedat_rewind(td), 0);
		while ((ret = hist_tracedat_next(td, &r)) != 0) {
			T_ASSERT(ret > 0);
			if (ret < 0)
				break;
			n += r.type == e->desc.id;
		}
		T_EQU(n, want);
		want_total += want;
	}
	T_EQ(hist_tracedat_rewind(td), 0);
	while ((ret = hist_tracedat_next(td, &r)) > 0)
		total++;
	T_EQU(total, want_total);	/* nothing but the listed events */
}

static void test_v6_instances(void)
{
	const char *top[] = { "sched_wakeup", "sched_waking", NULL };
	const char *a[] = { "sched_switch", "sched_process_exit", NULL };
	const char *b[] = { "sched_wakeup", NULL };
	char err[512] = "";
	size_t len;
	char *file = conf_read_zst(DATA V6MULTI ".zst", &len), *p, *third = NULL;
	struct hist_tracedat *td;
	struct hist_ftrace_record r;
	int ret, n = 0;

	T_ASSERT(file != NULL);
	if (!file)
		return;
	td = hist_tracedat_open_mem(file, len, err, sizeof(err));
	T_ASSERT(td != NULL);
	if (!td) {
		printf("# %s\n", err);
		free(file);
		return;
	}
	T_EQ(hist_tracedat_version(td), 6);
	T_EQU(hist_tracedat_nr_buffers(td), 3);
	T_STREQ(hist_tracedat_buffer_name(td, 0), "");
	T_STREQ(hist_tracedat_buffer_name(td, 1), "h17v6b");
	T_STREQ(hist_tracedat_buffer_name(td, 2), "h17v6a");
	T_ASSERT(hist_tracedat_buffer_name(td, 3) == NULL);
	T_STREQ(hist_tracedat_buffer(td), "");	/* open walks the top one */
	check_v6_buffer(td, "h17v6a", a);
	check_v6_buffer(td, "h17v6b", b);
	check_v6_buffer(td, "", top);
	T_STREQ(hist_tracedat_clock(td), "local");
	T_EQ(hist_tracedat_select_buffer(td, "nope"), -HIST_ENOENT);
	hist_tracedat_close(td);

	/* an instance whose CPU table is damaged: the others still read,
	 * selecting it says which and where (the third "flyrecord": the
	 * top one, then h17v6b's, then h17v6a's, in file order) */
	for (p = file; (p = memmem(p, len - (size_t)(p - file), "flyrecord", 10)) != NULL; p++)
		if (++n == 3)
			third = p;
	T_EQ(n, 3);
	if (third) {
		third[0] = 'X';
		td = hist_tracedat_open_mem(file, len, err, sizeof(err));
		T_ASSERT(td != NULL);
		if (td) {
			check_v6_buffer(td, "h17v6b", b);
			T_EQ(hist_tracedat_select_buffer(td, "h17v6a"), -HIST_EINVAL);
			snprintf(err, sizeof(err), "buffer 'h17v6a': missing 'flyrecord' at offset %zu",
				 (size_t)(third - file));
			T_ASSERT(strstr(hist_tracedat_error(td), err));
			if (!strstr(hist_tracedat_error(td), err))
				printf("# %s\n", hist_tracedat_error(td));
			/* and it leaves an empty walk, not a stale one */
			T_EQ(hist_tracedat_next(td, &r), 0);
			hist_tracedat_close(td);
		}
		third[0] = 'f';
	}

	/* cut inside the last instance's data: its whole pages stay, the
	 * walk ends with the cut named; the top buffer is whole */
	td = hist_tracedat_open_mem(file, len - 2048, err, sizeof(err));
	T_ASSERT(td != NULL);
	if (td) {
		check_v6_buffer(td, "", top);
		T_EQ(hist_tracedat_select_buffer(td, "h17v6a"), 0);
		n = 0;
		while ((ret = hist_tracedat_next(td, &r)) > 0)
			;
		T_EQ(ret, -HIST_EINVAL);
		T_ASSERT(strstr(hist_tracedat_error(td), "truncated CPU"));
		hist_tracedat_close(td);
	}
	free(file);
}

/* ---- the pid gate over a trace.dat --------------------------------------- */

#define GATE_MAX_PIDS 65536
#define GATE_MAX_EV 16

struct gate_counts {
	char name[GATE_MAX_EV][32];
	uint64_t n[GATE_MAX_EV];
	int nr;
};

static void gate_count(struct gate_counts *c, const char *name)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->name[i], name)) {
			c->n[i]++;
			return;
		}
	if (c->nr == GATE_MAX_EV)
		return;
	snprintf(c->name[c->nr], sizeof(c->name[0]), "%s", name);
	c->n[c->nr++] = 1;
}

/* The number after KEY ("pid=") in S, -1 if none. */
static long gate_num(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* "COMM:PID [PRIO]", as trace-cmd's sched plugin prints a task: PID. */
static long gate_task(const char *s)
{
	const char *br = s ? strstr(s, " [") : NULL, *q = br;

	if (!br)
		return -1;
	while (q > s && q[-1] >= '0' && q[-1] <= '9')
		q--;
	return q > s && q[-1] == ':' ? strtol(q, NULL, 10) : -1;
}

/* The woken task's pid: "comm=C pid=P ..." or the plugin's "C:P [PRIO]". */
static long gate_woken(const char *s)
{
	return strstr(s, " pid=") ? gate_num(s, " pid=") : gate_task(s);
}

static int gate_in(const uint8_t *set, long pid)
{
	return pid > 0 && pid < GATE_MAX_PIDS && set[pid];
}

/*
 * What the kernel's pid filter with event-fork passes, worked out from
 * the text of `trace-cmd report` (its own decoding of the file; its sched
 * plugin prints tasks as "COMM:PID [PRIO]"): events of the set, switches
 * from or to it, wakeups of it; a fork by one of the set brings the child
 * in.  *ROOT: the pid that forks most.
 */
static int gate_from_report(const char *path, int32_t *root, struct gate_counts *want)
{
	char cmd[512], line[1024];
	uint8_t *set = calloc(GATE_MAX_PIDS, 1);
	uint32_t *forks = calloc(GATE_MAX_PIDS, sizeof(*forks));
	int pass, k;
	FILE *f;

	memset(want, 0, sizeof(*want));
	for (pass = 0; pass < 2 && set && forks; pass++) {
		snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null", path);
		f = popen(cmd, "r");
		if (!f)
			break;
		if (pass)
			set[*root] = 1;
		while (fgets(line, sizeof(line), f)) {
			char *br = strstr(line, " ["), *ev, *colon, *q;
			long pid;

			/* "COMM-PID [CPU] TS: EVENT: FIELDS" */
			if (!br || !(ev = strstr(br, "]")) || !(ev = strstr(ev, ": ")))
				continue;
			ev += 2;
			if (!(colon = strchr(ev, ':')))
				continue;
			*colon = '\0';
			for (q = br; q > line && q[-1] == ' '; q--)
				;
			while (q > line && q[-1] >= '0' && q[-1] <= '9')
				q--;
			pid = strtol(q, NULL, 10);
			if (!strcmp(ev, "sched_process_fork")) {
				long parent = gate_num(colon + 1, " pid="), child = gate_num(colon + 1,
											   "child_pid=");

				if (!pass && parent > 0 && parent < GATE_MAX_PIDS)
					forks[parent]++;
				if (pass && gate_in(set, parent) && child > 0 && child < GATE_MAX_PIDS)
					set[child] = 1;
			}
			if (!pass)
				continue;
			if (gate_in(set, pid) ||
			    (!strcmp(ev, "sched_switch") &&
			     (gate_in(set, gate_task(colon + 1)) ||
			      gate_in(set, gate_task(strstr(colon + 1, "==> "))))) ||
			    (!strncmp(ev, "sched_wak", 9) && gate_in(set, gate_woken(colon + 1))))
				gate_count(want, ev);
		}
		if (pclose(f))
			break;
		if (!pass)
			for (k = 1; k < GATE_MAX_PIDS; k++)
				if (forks[k] > forks[*root])
					*root = k;
	}
	free(set);
	free(forks);
	return pass == 2 && *root > 0 ? 0 : -1;
}

/*
 * hist_tracedat_set_pid_gate() on a trace.dat: what passes, per event,
 * is what the kernel's filter would have passed by the report's text,
 * with the set growing through the recording's sched_process_fork
 * records; a rewind starts the set over.
 */
static void test_pid_gate(void)
{
	const char *path = "test/data/sched.v7-zstd.dat";
	struct gate_counts want, got;
	struct hist_ftrace_record rec;
	struct hist_tracedat *td;
	char msg[256];
	int32_t root = 0;
	uint64_t all = 0, n;
	int i, pass;

	if (system("command -v trace-cmd >/dev/null 2>&1")) {
		printf("# SKIP pid gate: trace-cmd is not installed\n");
		return;
	}
	T_EQ(gate_from_report(path, &root, &want), 0);
	td = hist_tracedat_open(path, msg, sizeof(msg));
	T_ASSERT(td != NULL);
	if (!td)
		return;
	while (hist_tracedat_next(td, &rec) > 0)
		all++;
	T_EQ(hist_tracedat_set_pid_gate(td, root), 0);
	for (pass = 0; pass < 2; pass++) {
		T_EQ(hist_tracedat_rewind(td), 0);
		memset(&got, 0, sizeof(got));
		n = 0;
		while (hist_tracedat_next(td, &rec) > 0) {
			const struct hist_ftrace_event *e = hist_tracedat_event_by_id(td, rec.type);

			gate_count(&got, e ? e->desc.name : "?");
			n++;
		}
		T_ASSERT(n > 0 && n < all);
		T_EQ(got.nr, want.nr);
		for (i = 0; i < want.nr; i++) {
			int k;

			for (k = 0; k < got.nr && strcmp(got.name[k], want.name[i]); k++)
				;
			if (k == got.nr || got.n[k] != want.n[i])
				T_FAILF("pid %d: %s: libhist %llu, trace-cmd report %llu", (int)root,
					want.name[i], k < got.nr ? (unsigned long long)got.n[k] : 0ULL,
					(unsigned long long)want.n[i]);
		}
	}
	printf("# sched.v7-zstd.dat: %llu records, %llu under --pid %d\n",
	       (unsigned long long)all, (unsigned long long)n, (int)root);
	/* the gate off again: everything */
	T_EQ(hist_tracedat_set_pid_gate(td, 0), 0);
	T_EQ(hist_tracedat_rewind(td), 0);
	for (n = 0; hist_tracedat_next(td, &rec) > 0;)
		n++;
	T_EQU(n, all);
	hist_tracedat_close(td);
}

/* hist_tracedat_is_recording(): the magic of each format, and no more */
static void test_is_recording(void)
{
	static const char td[] = "\x17\x08\x44tracing6";

	T_EQ(hist_tracedat_is_recording(td, 10), 1);
	T_EQ(hist_tracedat_is_recording(td, 9), 0);	/* too short to tell */
	T_EQ(hist_tracedat_is_recording("PERFILE2", 8), 1);
	T_EQ(hist_tracedat_is_recording("2ELIFREP", 8), 1);
	T_EQ(hist_tracedat_is_recording("PERFILE2", 7), 0);
	T_EQ(hist_tracedat_is_recording("PERFILE3\0\0", 10), 0);
	T_EQ(hist_tracedat_is_recording("\0\0\0\0\0\0\0\0\0\0", 10), 0);
	T_EQ(hist_tracedat_is_recording("", 0), 0);
}

int main(void)
{
	T_RUN(test_format_sched_switch);
	T_RUN(test_format_kinds);
	T_RUN(test_format_synthetic);
	T_RUN(test_format_broken);
	T_RUN(test_header_page);
	T_RUN(test_page_records);
	T_RUN(test_page_corrupt);
	T_RUN(test_raw_walk);
	T_RUN(test_tracedat_files);
	T_RUN(test_v6_equals_v7);
	T_RUN(test_prefetch_same);
	T_RUN(test_prefetch_rewind);
	T_RUN(test_lazy_tables_threads);
	T_RUN(test_lazy_tables_damaged);
	T_RUN(test_edge);
	T_RUN(test_lost);
	T_RUN(test_cmdlines);
	T_RUN(test_kallsyms);
	T_RUN(test_find_event_cb);
	T_RUN(test_built_file);
	T_RUN(test_open_errors);
	T_RUN(test_corrupt_data);
	T_RUN(test_v6_instances);
	T_RUN(test_pid_gate);
	T_RUN(test_fuzz);
	T_RUN(test_is_recording);
	T_RUN(test_speed);
	return T_DONE();
}
