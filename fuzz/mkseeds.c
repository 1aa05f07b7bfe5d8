/* SPDX-License-Identifier: MIT */
/*
 * Seed corpus generator (`make fuzz-seeds`): writes fuzz/corpus/<target>/
 * seed-* files from the conformance cases (their commands and the records
 * of their recordings) and from the real data in test/data (format files,
 * ring-buffer pages, and small trace.dat files of versions 6 and 7 built
 * around real pages).  The seeds are committed; this program only has to
 * run again when the conformance cases change.  Run from the top folder.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "fuzz_common.h"
#include "hist_ftrace.h"

#define CASES "test/conformance/cases"
#define RAW "test/data/raw-sched/"

struct buf {
	uint8_t *b;
	size_t len, cap;
};

static void put(struct buf *o, const void *p, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2 + 256;
		o->b = realloc(o->b, o->cap);
		if (!o->b) {
			perror("realloc");
			exit(1);
		}
	}
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

static void putn(struct buf *o, uint64_t v, int size)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < size; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(o, b, (size_t)size);
}

static void puts0(struct buf *o, const char *s)
{
	put(o, s, strlen(s) + 1);
}

static void patch64(struct buf *o, size_t at, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		o->b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static void pad_to(struct buf *o, size_t align)
{
	static const uint8_t z[1];

	while (o->len % align)
		put(o, z, 1);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf o = { 0 };
	char tmp[65536];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		put(&o, tmp, n);
	fclose(f);
	put(&o, "", 1);
	*len = o.len - 1;
	return (char *)o.b;
}

static void write_seed(const char *target, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "fuzz/corpus/%s", target);
	mkdir("fuzz/corpus", 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "fuzz/corpus/%s/seed-%s", target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

static int event_index(const char *sys, const char *name)
{
	size_t i;

	for (i = 0; i < FZ_NR_EVENTS; i++)
		if (!strcmp(fz_events[i].system, sys) && !strcmp(fz_events[i].name, name))
			return (int)i;
	return -1;
}

/* Index of the event "sys/name" at the start of LINE (up to a tab). */
static int line_event(const char *line)
{
	char sys[64], name[128];

	if (sscanf(line, "%63[^/\t]/%127[^\t]", sys, name) != 2)
		return -1;
	return event_index(sys, name);
}

/* ---- conformance cases -------------------------------------------------- */

struct rec_sel {
	int want[FZ_NR_EVENTS];
	int any;
};

/* Append up to MAX records of the selected events as fuzz_hit records. */
static unsigned add_records(struct buf *o, const char *dat, const struct rec_sel *sel,
			    unsigned max, int only_ev)
{
	struct hist_tracedat *td;
	struct hist_ftrace_record r;
	char err[256];
	uint64_t prev = 0;
	unsigned n = 0;

	td = hist_tracedat_open(dat, err, sizeof(err));
	if (!td)
		return 0;
	hist_tracedat_set_prefetch(td, 0);
	while (n < max && hist_tracedat_next(td, &r) > 0) {
		const struct hist_ftrace_event *e = hist_tracedat_event_by_id(td, r.type);
		uint8_t h[4];
		int idx;

		if (!e || !e->desc.system)
			continue;
		idx = event_index(e->desc.system, e->desc.name);
		if (idx < 0 || (only_ev >= 0 ? idx != only_ev : !sel->want[idx]))
			continue;
		h[0] = (uint8_t)idx;
		h[1] = (uint8_t)(r.cpu & 0x3f);
		h[2] = (uint8_t)(prev && r.ts > prev ? ((r.ts - prev) / 1000 > 255 ? 255 : (r.ts - prev) / 1000) : 1);
		h[3] = (uint8_t)(r.len > 255 ? 255 : r.len);
		prev = r.ts;
		if (only_ev < 0)
			put(o, h, 4);
		put(o, r.data, h[3]);
		n++;
	}
	hist_tracedat_close(td);
	return n;
}

static void do_case(const char *name)
{
	struct buf trig = { 0 }, synth = { 0 };
	struct rec_sel sel;
	char path[512], *text, *line, *save = NULL;
	size_t len;
	unsigned nfilt = 0;

	memset(&sel, 0, sizeof(sel));
	snprintf(path, sizeof(path), CASES "/%s/synthetic_events", name);
	text = slurp(path, &len);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		put(&trig, "synthetic_events\t", 17);
		put(&trig, line, strlen(line));
		put(&trig, "\n", 1);
		put(&synth, line, strlen(line));
		put(&synth, "\n", 1);
	}
	free(text);
	snprintf(path, sizeof(path), CASES "/%s/triggers", name);
	text = slurp(path, &len);
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int idx = line_event(line);
		const char *tab = strchr(line, '\t'), *ifp;

		if (line[0] == '#' || !tab)
			continue;
		put(&trig, line, strlen(line));
		put(&trig, "\n", 1);
		if (!strncmp(line, "synthetic_events\t", 17) ||
		    !strncmp(line, "dynamic_events\t", 15)) {
			const char *l = !strncmp(line, "synthetic_events\t", 17) ? tab + 1 : line;

			put(&synth, l, strlen(l));
			put(&synth, "\n", 1);
		} else if (!strncmp(line, "synthetic/", 10)) {
			put(&synth, tab + 1, strlen(tab + 1));
			put(&synth, "\n", 1);
		}
		if (idx >= 0) {
			sel.want[idx] = 1;
			sel.any = 1;
		}
		ifp = strstr(tab, " if ");
		if (idx >= 0 && ifp) {
			struct buf f = { 0 };
			uint8_t sel_byte = (uint8_t)idx;
			char fname[300];

			put(&f, &sel_byte, 1);
			puts0(&f, ifp + 4);
			snprintf(path, sizeof(path), CASES "/%s/trace.dat", name);
			add_records(&f, path, &sel, 1, idx);
			snprintf(fname, sizeof(fname), "%s-%u", name, nfilt++);
			write_seed("filter", fname, f.b, f.len);
			free(f.b);
		}
	}
	free(text);
	if (trig.len)
		write_seed("trigger", name, trig.b, trig.len);
	if (synth.len)
		write_seed("synth", name, synth.b, synth.len);
	if (name[0] == 'g' && sel.any) {
		put(&trig, "", 1);
		snprintf(path, sizeof(path), CASES "/%s/trace.dat", name);
		add_records(&trig, path, &sel, 40, -1);
		write_seed("hit", name, trig.b, trig.len);
	}
	free(trig.b);
	free(synth.b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void do_cases(void)
{
	DIR *d = opendir(CASES);
	struct dirent *de;
	char *names[512];
	size_t n = 0, i;

	if (!d) {
		perror(CASES);
		exit(1);
	}
	while ((de = readdir(d)) && n < 512)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (i = 0; i < n; i++) {
		do_case(names[i]);
		free(names[i]);
	}
}

/* ---- format files, pages ------------------------------------------------ */

static const char *const format_files[] = {
	"test/data/formats/kmem/kmalloc/format",
	"test/data/formats/syscalls/sys_enter_openat/format",
	"test/data/formats/ftrace/raw_data/format",
	"test/data/formats/ftrace/print/format",
	"test/data/formats/ipi/ipi_send_cpumask/format",
	"test/data/formats/irq/irq_handler_entry/format",
	"test/data/formats/raw_syscalls/sys_enter/format",
	RAW "formats/events/sched/sched_switch/format",
	RAW "formats/events/sched/sched_process_exec/format",
	RAW "formats/events/header_page",
	RAW "formats/events/header_event",
};

static void do_formats(void)
{
	size_t i, len;

	for (i = 0; i < sizeof(format_files) / sizeof(format_files[0]); i++) {
		char *t = slurp(format_files[i], &len), name[64];
		const char *base = strstr(format_files[i], "formats/") + 8;
		size_t k;

		if (!t) {
			perror(format_files[i]);
			exit(1);
		}
		snprintf(name, sizeof(name), "%s", base);
		for (k = 0; name[k]; k++)
			if (name[k] == '/')
				name[k] = '-';
		write_seed("format", name, t, len);
		free(t);
	}
}

static uint8_t *raw_pages(const char *cpu, size_t *len)
{
	char path[256];

	snprintf(path, sizeof(path), RAW "%s.raw", cpu);
	return (uint8_t *)slurp(path, len);
}

static void do_pages(uint8_t *cpu0, uint8_t *cpu1)
{
	struct buf o = { 0 };
	uint8_t layout = 0;

	put(&o, &layout, 1);
	put(&o, cpu0, 4096);
	write_seed("page", "cpu0-page0", o.b, o.len);
	put(&o, cpu0 + 4096, 4096);
	write_seed("page", "cpu0-pages01", o.b, o.len);
	o.len = 1;
	put(&o, cpu1 + 3 * 4096, 4096);
	write_seed("page", "cpu1-page3", o.b, o.len);
	free(o.b);
}

/* ---- trace.dat files ---------------------------------------------------- */

static const char *const td_events[] = { "sched_switch", "sched_waking", "sched_wakeup" };

static void blob(struct buf *o, const char *path, int size_bytes)
{
	size_t len;
	char *t = slurp(path, &len);

	if (!t) {
		perror(path);
		exit(1);
	}
	putn(o, len, size_bytes);
	put(o, t, len);
	free(t);
}

static void text_blob(struct buf *o, const char *t, int size_bytes)
{
	putn(o, strlen(t), size_bytes);
	put(o, t, strlen(t));
}

static void header_info(struct buf *o)
{
	puts0(o, "header_page");
	blob(o, RAW "formats/events/header_page", 8);
	puts0(o, "header_event");
	blob(o, RAW "formats/events/header_event", 8);
}

static void event_formats(struct buf *o)
{
	char path[256];
	size_t i;

	putn(o, 1, 4);
	puts0(o, "sched");
	putn(o, sizeof(td_events) / sizeof(td_events[0]), 4);
	for (i = 0; i < sizeof(td_events) / sizeof(td_events[0]); i++) {
		snprintf(path, sizeof(path), RAW "formats/events/sched/%s/format", td_events[i]);
		blob(o, path, 8);
	}
}

static const char td_ksyms[] = "ffffffff81000000 T _stext\nffffffff81000100 t foo\n"
			       "ffffffffc0001000 t modf\t[mymod]\n";
static const char td_printk[] = "0xffffffff82000000 : \"hello %d\\n\"\n";
static const char td_cmdlines[] = "1 init\n42 sleep\n";

/* v6, little endian, 2 CPUs with one real page each. */
static void tracedat_v6(const uint8_t *p0, const uint8_t *p1)
{
	struct buf o = { 0 };
	size_t table;

	put(&o, "\x17\x08\x44tracing6", 11);
	putn(&o, 0, 1);
	putn(&o, 0, 1);
	putn(&o, 8, 1);
	putn(&o, 4096, 4);
	header_info(&o);
	putn(&o, 0, 4);		/* no ftrace formats */
	event_formats(&o);
	text_blob(&o, td_ksyms, 4);
	text_blob(&o, td_printk, 4);
	text_blob(&o, td_cmdlines, 8);
	putn(&o, 2, 4);
	put(&o, "options  ", 10);
	putn(&o, 4, 2);
	text_blob(&o, "[local] global\n", 4);
	putn(&o, 0, 2);
	put(&o, "flyrecord", 10);
	table = o.len;
	putn(&o, 0, 8);
	putn(&o, 4096, 8);
	putn(&o, 0, 8);
	putn(&o, 4096, 8);
	text_blob(&o, "[local] global\n", 8);
	pad_to(&o, 4096);
	patch64(&o, table, o.len);
	put(&o, p0, 4096);
	patch64(&o, table + 16, o.len);
	put(&o, p1, 4096);
	write_seed("tracedat", "v6-2cpu", o.b, o.len);
	free(o.b);
}

/* A v7 section: header then BODY, compressed as one zstd block if ZSTD. */
static void section(struct buf *o, uint16_t id, const struct buf *body, int zstd)
{
	putn(o, id, 2);
	putn(o, zstd ? 1 : 0, 2);
	putn(o, 0xffffffffu, 4);
	if (!zstd) {
		putn(o, body->len, 8);
		put(o, body->b, body->len);
	} else {
		size_t cap = ZSTD_compressBound(body->len);
		void *c = malloc(cap);
		size_t n = ZSTD_compress(c, cap, body->b, body->len, 3);

		putn(o, n + 8, 8);
		putn(o, n, 4);
		putn(o, body->len, 4);
		put(o, c, n);
		free(c);
	}
}

static void tracedat_v7(const uint8_t *p0, const uint8_t *p1, int zstd)
{
	struct buf o = { 0 }, b = { 0 };
	size_t first_at, off[22] = { 0 }, opt_at, buf_at, cpu_at[2], data_at[2], end[2];
	uint64_t i;

	put(&o, "\x17\x08\x44tracing7", 11);
	putn(&o, 0, 1);
	putn(&o, 0, 1);
	putn(&o, 8, 1);
	putn(&o, 4096, 4);
	puts0(&o, zstd ? "zstd" : "none");
	puts0(&o, zstd ? "1.5.4" : "");
	first_at = o.len;
	putn(&o, 0, 8);

	off[16] = o.len;
	header_info(&b);
	section(&o, 16, &b, zstd);
	b.len = 0;
	off[18] = o.len;
	event_formats(&b);
	section(&o, 18, &b, zstd);
	b.len = 0;
	off[19] = o.len;
	text_blob(&b, td_ksyms, 4);
	section(&o, 19, &b, zstd);
	b.len = 0;
	off[21] = o.len;
	text_blob(&b, td_cmdlines, 8);
	section(&o, 21, &b, zstd);

	/* the options section, uncompressed so its offsets can be patched */
	opt_at = o.len;
	patch64(&o, first_at, opt_at);
	putn(&o, 0, 2);
	putn(&o, 0, 2);
	putn(&o, 0xffffffffu, 4);
	putn(&o, 0, 8);		/* size, patched below */
	for (i = 16; i <= 21; i++) {
		if (!off[i])
			continue;
		putn(&o, i, 2);
		putn(&o, 8, 4);
		putn(&o, off[i], 8);
	}
	putn(&o, 4, 2);
	text_blob(&o, "[local] global\n", 4);
	putn(&o, 8, 2);
	putn(&o, 4, 4);
	putn(&o, 2, 4);
	putn(&o, 3, 2);		/* BUFFER */
	putn(&o, 8 + 1 + 6 + 4 + 4 + 2 * 20, 4);
	buf_at = o.len;
	putn(&o, 0, 8);
	puts0(&o, "");
	puts0(&o, "local");
	putn(&o, 4096, 4);
	putn(&o, 2, 4);
	for (i = 0; i < 2; i++) {
		putn(&o, i, 4);
		cpu_at[i] = o.len;
		putn(&o, 0, 8);
		putn(&o, 0, 8);
	}
	putn(&o, 0, 2);		/* DONE */
	putn(&o, 8, 4);
	putn(&o, 0, 8);
	patch64(&o, opt_at + 8, o.len - opt_at - 16);

	/* the BUFFER section runs to the end of the file */
	patch64(&o, buf_at, o.len);
	{
		size_t hdr = o.len;

		putn(&o, 3, 2);
		putn(&o, zstd ? 1 : 0, 2);
		putn(&o, 0xffffffffu, 4);
		putn(&o, 0, 8);
		pad_to(&o, 4096);
		for (i = 0; i < 2; i++) {
			const uint8_t *pg = i ? p1 : p0;

			data_at[i] = o.len;
			if (!zstd) {
				put(&o, pg, 4096);
			} else {
				size_t cap = ZSTD_compressBound(4096);
				void *c = malloc(cap);
				size_t n = ZSTD_compress(c, cap, pg, 4096, 3);

				putn(&o, 1, 4);
				putn(&o, n, 4);
				putn(&o, 4096, 4);
				put(&o, c, n);
				free(c);
				pad_to(&o, 4096);
			}
			end[i] = o.len;
		}
		patch64(&o, hdr + 8, o.len - hdr - 16);
	}
	for (i = 0; i < 2; i++) {
		patch64(&o, cpu_at[i], data_at[i]);
		patch64(&o, cpu_at[i] + 8, zstd ? end[i] - data_at[i] - 4 : 4096);
	}
	write_seed("tracedat", zstd ? "v7-zstd-2cpu" : "v7-none-2cpu", o.b, o.len);
	free(o.b);
	free(b.b);
}

/* Open every tracedat seed and count its records, as a self-check. */
static void check_tracedat(const char *name)
{
	struct hist_ftrace_record r;
	struct hist_tracedat *td;
	char path[256], err[256];
	unsigned n = 0;

	snprintf(path, sizeof(path), "fuzz/corpus/tracedat/seed-%s", name);
	td = hist_tracedat_open(path, err, sizeof(err));
	if (!td) {
		fprintf(stderr, "%s: %s\n", path, err);
		exit(1);
	}
	while (hist_tracedat_next(td, &r) > 0)
		n++;
	printf("%s: %u records%s%s\n", path, n, *hist_tracedat_error(td) ? ", " : "",
	       hist_tracedat_error(td));
	hist_tracedat_close(td);
}

int main(void)
{
	size_t l0, l1, len;
	uint8_t *cpu0 = raw_pages("cpu0", &l0), *cpu1 = raw_pages("cpu1", &l1);
	char *dat;

	if (!cpu0 || !cpu1 || l0 < 4 * 4096 || l1 < 4 * 4096) {
		fprintf(stderr, "run from the top folder (needs " RAW ")\n");
		return 1;
	}
	do_cases();
	do_formats();
	do_pages(cpu0, cpu1);
	tracedat_v6(cpu0, cpu1);
	tracedat_v7(cpu0, cpu1, 0);
	tracedat_v7(cpu0, cpu1, 1);
	check_tracedat("v6-2cpu");
	check_tracedat("v7-none-2cpu");
	check_tracedat("v7-zstd-2cpu");
	dat = slurp(CASES "/s01-synth-invalid-type/trace.dat", &len);
	if (dat) {
		write_seed("tracedat", "conformance-s01", dat, len);
		free(dat);
	}
	free(cpu0);
	free(cpu1);
	return 0;
}
