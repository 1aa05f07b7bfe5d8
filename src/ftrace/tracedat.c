/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd's trace.dat, versions 6 and 7: everything but the records.
 *
 * v6 is one sequential run of items (headers, formats, kallsyms, printk
 * formats, cmdlines, CPU count, options, the flyrecord CPU table).  v7 is
 * a run of 16-byte-headed sections, reached through a chain of options
 * sections; metadata sections may be zstd blocks whose contents repeat the
 * v6 items byte for byte, so one set of item parsers serves both.
 *
 * The file is mapped (or copied, for hist_tracedat_open_mem()) and never
 * written.  Every read goes through a bounded cursor (struct rd) whose
 * failure names what was being read and the byte offset, in the file or,
 * for a decompressed section, within that section.  Per-CPU data is only
 * located and checked here; stream.c walks it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "buffer.h"

/* A trace.dat starts with these 10 bytes, and so does a perf.data's
 * tracing data. */
#define TD_MAGIC "\x17\x08\x44tracing"

/* Sanity limits against corrupt sizes. */
#define MAX_SECTION_BYTES (UINT64_C(1) << 30)	/* decompressed metadata */
#define MAX_CPUS HIST__MAX_CPUS

/* v7 section and option ids (one numbering). */
enum {
	OPT_DONE = 0,
	OPT_DATE = 1,
	OPT_CPUSTAT = 2,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_OFFSET = 7,
	OPT_CPUCOUNT = 8,
	OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17,
	OPT_EVENT_FORMATS = 18,
	OPT_KALLSYMS = 19,
	OPT_PRINTK = 20,
	OPT_CMDLINES = 21,
	OPT_BUFFER_TEXT = 22,
};

#define SEC_COMPRESSED 1

/* ---- bounded cursor ------------------------------------------------- */

struct rd {
	struct hist_tracedat *td;
	const uint8_t *p;
	size_t len, pos;
	uint64_t base;		/* file offset of p[0], or of the section */
	const char *section;	/* non-NULL: p is this section, decompressed */
};

static void rd_init(struct rd *r, struct hist_tracedat *td, const uint8_t *p,
		    size_t len, uint64_t base, const char *section)
{
	r->td = td;
	r->p = p;
	r->len = len;
	r->pos = 0;
	r->base = base;
	r->section = section;
}

static int rd_fail(struct rd *r, const char *what, const char *why)
{
	if (r->section)
		return hist__td_err(r->td, -HIST_EINVAL,
				    "%s %s at byte %zu of the decompressed %s section at offset %llu",
				    why, what, r->pos, r->section,
				    (unsigned long long)r->base);
	return hist__td_err(r->td, -HIST_EINVAL, "%s %s at offset %llu", why, what,
			    (unsigned long long)(r->base + r->pos));
}

static int rd_need(struct rd *r, uint64_t n, const char *what)
{
	if (r->len - r->pos < n) {
		rd_fail(r, what, "truncated");
		return -HIST_EINVAL;
	}
	return 0;
}

static int rd_u8(struct rd *r, uint8_t *v, const char *what)
{
	if (rd_need(r, 1, what))
		return -HIST_EINVAL;
	*v = r->p[r->pos++];
	return 0;
}

static int rd_u16(struct rd *r, uint16_t *v, const char *what)
{
	if (rd_need(r, 2, what))
		return -HIST_EINVAL;
	*v = hist__get16(r->p + r->pos, r->td->big_endian);
	r->pos += 2;
	return 0;
}

static int rd_u32(struct rd *r, uint32_t *v, const char *what)
{
	if (rd_need(r, 4, what))
		return -HIST_EINVAL;
	*v = hist__get32(r->p + r->pos, r->td->big_endian);
	r->pos += 4;
	return 0;
}

static int rd_u64(struct rd *r, uint64_t *v, const char *what)
{
	if (rd_need(r, 8, what))
		return -HIST_EINVAL;
	*v = hist__get64(r->p + r->pos, r->td->big_endian);
	r->pos += 8;
	return 0;
}

static int rd_bytes(struct rd *r, uint64_t n, const uint8_t **out, const char *what)
{
	if (rd_need(r, n, what))
		return -HIST_EINVAL;
	*out = r->p + r->pos;
	r->pos += (size_t)n;
	return 0;
}

/* A NUL-terminated string; *out points into the buffer. */
static int rd_cstr(struct rd *r, const char **out, const char *what)
{
	const uint8_t *nul = memchr(r->p + r->pos, 0, r->len - r->pos);

	if (!nul) {
		rd_fail(r, what, "unterminated");
		return -HIST_EINVAL;
	}
	*out = (const char *)r->p + r->pos;
	r->pos = (size_t)(nul - r->p) + 1;
	return 0;
}

/* The literal LIT (with its NUL: N bytes). */
static int rd_lit(struct rd *r, const char *lit, size_t n, const char *what)
{
	if (rd_need(r, n, what))
		return -HIST_EINVAL;
	if (memcmp(r->p + r->pos, lit, n)) {
		rd_fail(r, what, "missing");
		return -HIST_EINVAL;
	}
	r->pos += n;
	return 0;
}

/* A size-prefixed blob: u32 or u64 length (WIDE), then the bytes. */
static int rd_blob(struct rd *r, int wide, const uint8_t **out, uint64_t *n,
		   const char *what)
{
	uint32_t n32;

	if (wide) {
		if (rd_u64(r, n, what))
			return -HIST_EINVAL;
	} else {
		if (rd_u32(r, &n32, what))
			return -HIST_EINVAL;
		*n = n32;
	}
	return rd_bytes(r, *n, out, what);
}

/* ---- metadata items (v6 items, v7 section bodies) ------------------- */

static int add_event(struct hist_tracedat *td, const uint8_t *text, uint64_t len,
		     const char *system)
{
	struct hist_ftrace_event *e;
	char msg[160];

	/* A format we cannot read is skipped, as trace-cmd does: its
	 * records then show up with an unknown ID. */
	if (hist_ftrace_parse_format((const char *)text, (size_t)len, system, &e,
				     msg, sizeof(msg)))
		return 0;
	if (td->nr_events == td->cap_events) {
		uint32_t cap = td->cap_events ? td->cap_events * 2 : 64;
		struct hist_ftrace_event **n = realloc(td->events, cap * sizeof(*n));

		if (!n) {
			hist_ftrace_event_free(e);
			return hist__td_err(td, -HIST_ENOMEM, "out of memory");
		}
		td->events = n;
		td->cap_events = cap;
	}
	td->events[td->nr_events++] = e;
	return 0;
}

static int parse_header_info(struct rd *r)
{
	struct hist_tracedat *td = r->td;
	const uint8_t *text;
	uint64_t n;
	char msg[200];

	if (rd_lit(r, "header_page", 12, "header_page") ||
	    rd_blob(r, 1, &text, &n, "header_page"))
		return -HIST_EINVAL;
	if (hist_ftrace_parse_header_page((const char *)text, (size_t)n, &td->pfmt,
					  msg, sizeof(msg)))
		return hist__td_err(td, -HIST_EINVAL, "%s", msg);
	td->pfmt.big_endian = td->big_endian;
	td->long_size = td->pfmt.commit_size;
	td->have_pfmt = 1;
	if (rd_lit(r, "header_event", 13, "header_event") ||
	    rd_blob(r, 1, &text, &n, "header_event"))
		return -HIST_EINVAL;
	return 0;
}

static int parse_ftrace_formats(struct rd *r)
{
	const uint8_t *text;
	uint32_t count, i;
	uint64_t n;
	int ret;

	if (rd_u32(r, &count, "ftrace format count"))
		return -HIST_EINVAL;
	for (i = 0; i < count; i++) {
		if (rd_blob(r, 1, &text, &n, "ftrace event format"))
			return -HIST_EINVAL;
		ret = add_event(r->td, text, n, "ftrace");
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_event_formats(struct rd *r)
{
	const uint8_t *text;
	const char *sys;
	uint32_t nsys, count, i, j;
	uint64_t n;
	int ret;

	if (rd_u32(r, &nsys, "event system count"))
		return -HIST_EINVAL;
	for (i = 0; i < nsys; i++) {
		if (rd_cstr(r, &sys, "event system name") ||
		    rd_u32(r, &count, "event format count"))
			return -HIST_EINVAL;
		for (j = 0; j < count; j++) {
			if (rd_blob(r, 1, &text, &n, "event format"))
				return -HIST_EINVAL;
			ret = add_event(r->td, text, n, sys);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int parse_kallsyms(struct rd *r)
{
	const uint8_t *text;
	uint64_t n;

	if (rd_blob(r, 0, &text, &n, "kallsyms"))
		return -HIST_EINVAL;
	hist__ksyms_fini(&r->td->ksyms);
	if (hist__ksyms_init(&r->td->ksyms, (const char *)text, (size_t)n))
		return hist__td_err(r->td, -HIST_ENOMEM, "out of memory (kallsyms)");
	return 0;
}

static int parse_printk(struct rd *r)
{
	const uint8_t *text;
	uint64_t n;

	if (rd_blob(r, 0, &text, &n, "printk formats"))
		return -HIST_EINVAL;
	hist__printk_fini(&r->td->printk);
	if (hist__printk_init(&r->td->printk, (const char *)text, (size_t)n))
		return hist__td_err(r->td, -HIST_ENOMEM, "out of memory (printk)");
	return 0;
}

static int parse_cmdlines(struct rd *r)
{
	const uint8_t *text;
	uint64_t n;

	if (rd_blob(r, 1, &text, &n, "saved cmdlines"))
		return -HIST_EINVAL;
	hist__cmdlines_fini(&r->td->cmdlines);
	if (hist__cmdlines_init(&r->td->cmdlines, (const char *)text, (size_t)n))
		return hist__td_err(r->td, -HIST_ENOMEM, "out of memory (cmdlines)");
	return 0;
}

/* ---- tables parsed on first use ------------------------------------- */

/* Keep where table WHICH is (a v6 item at R's cursor, checked, skipped). */
static int defer_blob(struct rd *r, int which, int wide, const char *what)
{
	struct hist__lazy *lz = &r->td->lazy[which];
	const uint8_t *start = r->p + r->pos, *text;
	uint64_t n;

	if (rd_blob(r, wide, &text, &n, what))
		return -HIST_EINVAL;
	lz->p = start;
	lz->len = (uint64_t)(text - start) + n;
	lz->wide = wide;
	lz->compressed = 0;
	lz->where = r->base + (uint64_t)(start - r->p);
	lz->ready = 0;
	return 0;
}

static int defer_kallsyms(struct rd *r)
{
	return defer_blob(r, HIST__LZ_KSYMS, 0, "kallsyms");
}

static int defer_printk(struct rd *r)
{
	return defer_blob(r, HIST__LZ_PRINTK, 0, "printk formats");
}

static int defer_cmdlines(struct rd *r)
{
	return defer_blob(r, HIST__LZ_CMDLINES, 1, "saved cmdlines");
}

/* ---- options -------------------------------------------------------- */

/* State gathered while opening. */
struct open_ctx {
	struct hist_tracedat *td;
	uint64_t sec_ptr[OPT_CMDLINES + 1];	/* options 16..21 */
	int have_clock_opt;			/* v6: clock string follows */
	char opt_clock[32];
	int have_buffer, have_text_buffer;
	uint64_t *buf_secs;	/* BUFFER section offset of each td->bufs */
	uint32_t buf_secs_cap;
	struct hist__cpu_ent *cpus;
	uint32_t nr_cpus;
	struct section *secs;
	uint32_t nr_secs;
	uint64_t cut_at;	/* v7: the section the file ends in, or 0 */
};

/* Where td->bufs' newest buffer is: its v7 section, or its v6 CPU table. */
static int remember_buffer_at(struct open_ctx *c, uint64_t off)
{
	struct hist_tracedat *td = c->td;

	c->have_buffer = 1;
	if (td->nr_bufs > c->buf_secs_cap) {
		uint64_t *ns = realloc(c->buf_secs, (size_t)td->nr_bufs * 2 * sizeof(*ns));

		if (!ns)
			return hist__td_err(td, -HIST_ENOMEM, "out of memory");
		c->buf_secs = ns;
		c->buf_secs_cap = td->nr_bufs * 2;
	}
	c->buf_secs[td->nr_bufs - 1] = off;
	return 0;
}

/* "[local] global counter": the bracketed clock is the one in use. */
static void bracketed_clock(const uint8_t *s, size_t n, char *out, size_t olen)
{
	const uint8_t *l = memchr(s, '[', n), *e;
	size_t k;

	if (!l)
		return;
	e = memchr(l, ']', n - (size_t)(l - s));
	if (!e)
		return;
	k = (size_t)(e - l - 1);
	if (k >= olen)
		k = olen - 1;
	memcpy(out, l + 1, k);
	out[k] = '\0';
}

static int64_t ascii_num(const uint8_t *s, size_t n)
{
	char tmp[32];

	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return strtoll(tmp, NULL, 0);
}

/* v7 BUFFER: offset, name, clock, page size, CPU count, CPU entries.
 * Every buffer is kept (td->bufs); open walks the top one. */
static int option_buffer_v7(struct open_ctx *c, struct rd *r)
{
	struct hist_tracedat *td = c->td;
	const char *name, *clock;
	struct hist__buffer *b;
	uint64_t sec;
	uint32_t ps, n, i;
	int ret;

	if (rd_u64(r, &sec, "BUFFER option") || rd_cstr(r, &name, "BUFFER name") ||
	    rd_cstr(r, &clock, "BUFFER clock") || rd_u32(r, &ps, "BUFFER page size") ||
	    rd_u32(r, &n, "BUFFER CPU count"))
		return -HIST_EINVAL;
	if (rd_need(r, (uint64_t)n * 20, "BUFFER CPU entries"))
		return -HIST_EINVAL;
	if (n > MAX_CPUS)
		return hist__td_err(td, -HIST_EINVAL, "BUFFER option lists %u CPUs", n);
	if ((ret = hist__buf_add(td, name, clock, ps, n, &b)))
		return ret;
	for (i = 0; i < n; i++) {
		rd_u32(r, &b->cpus[i].cpu, "BUFFER CPU");
		rd_u64(r, &b->cpus[i].off, "BUFFER CPU");
		rd_u64(r, &b->cpus[i].size, "BUFFER CPU");
	}
	/* its section is checked once they are all known (check_buffers()) */
	return remember_buffer_at(c, sec);
}

/*
 * v6 BUFFER: the file offset of an instance's CPU table, and its name.
 * The table (as the top buffer's, "flyrecord" and then the trace clock)
 * is read once all options are known: read_instances().
 */
static int option_buffer_v6(struct open_ctx *c, struct rd *r)
{
	struct hist__buffer *b;
	const char *name;
	uint64_t off;
	int ret;

	if (rd_u64(r, &off, "BUFFER option") || rd_cstr(r, &name, "BUFFER name"))
		return -HIST_EINVAL;
	if ((ret = hist__buf_add(c->td, name, "", 0, 0, &b)))
		return ret;
	return remember_buffer_at(c, off);
}

static int handle_option(struct open_ctx *c, uint16_t id, const uint8_t *data,
			 uint32_t size, uint64_t where)
{
	struct hist_tracedat *td = c->td;
	struct rd r;

	rd_init(&r, td, data, size, where, NULL);
	switch (id) {
	case OPT_DATE:
		td->ts_offset += ascii_num(data, size) * 1000;
		break;
	case OPT_OFFSET:
		td->ts_offset += ascii_num(data, size);
		break;
	case OPT_BUFFER:
		/* v6 BUFFER options describe instances only. */
		if (td->version >= 7)
			return option_buffer_v7(c, &r);
		return option_buffer_v6(c, &r);
	case OPT_BUFFER_TEXT:
		c->have_text_buffer = 1;
		break;
	case OPT_TRACECLOCK:
		c->have_clock_opt = 1;
		bracketed_clock(data, size, c->opt_clock, sizeof(c->opt_clock));
		break;
	case OPT_UNAME:
		free(td->uname);
		td->uname = malloc((size_t)size + 1);
		if (!td->uname)
			return hist__td_err(td, -HIST_ENOMEM, "out of memory");
		memcpy(td->uname, data, size);
		td->uname[size] = '\0';
		break;
	case OPT_CPUCOUNT:
		if (size >= 4)
			td->cpucount = hist__get32(data, td->big_endian);
		/* bounded like the v6 count: it sizes the lost-event table */
		if (td->cpucount > MAX_CPUS)
			return hist__td_err(td, -HIST_EINVAL, "CPUCOUNT option says %u CPUs",
					    td->cpucount);
		break;
	case OPT_HEADER_INFO:
	case OPT_FTRACE_EVENTS:
	case OPT_EVENT_FORMATS:
	case OPT_KALLSYMS:
	case OPT_PRINTK:
	case OPT_CMDLINES:
		if (size >= 8)
			c->sec_ptr[id] = hist__get64(data, td->big_endian);
		break;
	default:
		/* Unknown and unused options are skipped by size. */
		break;
	}
	return 0;
}

/* v6: "options  \0" was read; {u16 id, u32 size, data} until id 0. */
static int parse_options_v6(struct open_ctx *c, struct rd *r)
{
	for (;;) {
		uint16_t id;
		uint32_t size;
		const uint8_t *data;
		uint64_t where;
		int ret;

		if (rd_u16(r, &id, "option id"))
			return -HIST_EINVAL;
		if (id == OPT_DONE)
			return 0;
		where = r->base + r->pos;
		if (rd_u32(r, &size, "option size") ||
		    rd_bytes(r, size, &data, "option data"))
			return -HIST_EINVAL;
		ret = handle_option(c, id, data, size, where + 4);
		if (ret)
			return ret;
	}
}

/* ---- v7 sections ------------------------------------------------------ */

struct section {
	uint64_t off;		/* of the 16-byte header */
	uint64_t size;		/* of the body */
	uint16_t id, flags;
};

static const struct section *find_section_at(const struct open_ctx *c, uint64_t off)
{
	uint32_t lo = 0, hi = c->nr_secs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->secs[mid].off == off)
			return &c->secs[mid];
		if (c->secs[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Walk the sections from START to the end of the file.  A file cut short
 * ends the walk at the cut: the sections before it (usually all the
 * metadata and part of the buffer section) still serve.
 */
static int scan_sections(struct open_ctx *c, uint64_t start)
{
	struct hist_tracedat *td = c->td;
	uint64_t pos = start, cap = 0;

	while (pos < td->map_len) {
		const uint8_t *h = td->map + pos;
		struct section *s;

		if (td->map_len - pos < 16) {
			hist__note_damage(td, "truncated section header at offset %llu",
				    (unsigned long long)pos);
			c->cut_at = pos;
			return 0;
		}
		if (c->nr_secs == cap) {
			uint64_t ncap = cap ? cap * 2 : 32;

			s = realloc(c->secs, ncap * sizeof(*s));
			if (!s)
				return hist__td_err(td, -HIST_ENOMEM, "out of memory");
			c->secs = s;
			cap = ncap;
		}
		s = &c->secs[c->nr_secs++];
		s->off = pos;
		s->id = hist__get16(h, td->big_endian);
		s->flags = hist__get16(h + 2, td->big_endian);
		s->size = hist__get64(h + 8, td->big_endian);
		if (s->size > td->map_len - pos - 16) {
			hist__note_damage(td, "truncated section at offset %llu (id %u, %llu bytes, %llu left)",
				    (unsigned long long)pos, s->id,
				    (unsigned long long)s->size,
				    (unsigned long long)(td->map_len - pos - 16));
			s->size = td->map_len - pos - 16;
			c->cut_at = pos;
			return 0;
		}
		pos += 16 + s->size;
	}
	return 0;
}

/*
 * The framing of compressed section S (u32 compressed length, u32
 * length, then one zstd frame): 0 when the lengths fit, else the error.
 * Both a section read now and one deferred to first use check it here.
 */
static int frame_check(struct open_ctx *c, const struct section *s, const char *what)
{
	struct hist_tracedat *td = c->td;
	const uint8_t *b = td->map + s->off + 16;
	uint32_t clen, ulen;

	if (!td->zstd)
		return hist__td_err(td, -HIST_EINVAL,
				    "%s section at offset %llu is compressed, but the file says 'none'",
				    what, (unsigned long long)s->off);
	if (s->size < 8)
		return hist__td_err(td, -HIST_EINVAL,
				    "truncated %s section at offset %llu",
				    what, (unsigned long long)s->off);
	clen = hist__get32(b, td->big_endian);
	ulen = hist__get32(b + 4, td->big_endian);
	if (clen > s->size - 8)
		return hist__td_err(td, -HIST_EINVAL,
				    "%s section at offset %llu: compressed length %u exceeds the section (%llu bytes)",
				    what, (unsigned long long)s->off, clen,
				    (unsigned long long)s->size);
	if (ulen > MAX_SECTION_BYTES)
		return hist__td_err(td, -HIST_EINVAL,
				    "%s section at offset %llu: implausible size %u",
				    what, (unsigned long long)s->off, ulen);
	return 0;
}

/*
 * The body of section S: in place, or decompressed into *OWNED (freed by
 * the caller).
 */
static int section_body(struct open_ctx *c, const struct section *s,
			const char *what, struct rd *r, uint8_t **owned)
{
	struct hist_tracedat *td = c->td;
	const uint8_t *b = td->map + s->off + 16;
	uint32_t clen, ulen;
	size_t got;
	uint8_t *out;
	int ret;

	*owned = NULL;
	if (!(s->flags & SEC_COMPRESSED)) {
		rd_init(r, td, b, (size_t)s->size, s->off + 16, NULL);
		return 0;
	}
	if ((ret = frame_check(c, s, what)))
		return ret;
	clen = hist__get32(b, td->big_endian);
	ulen = hist__get32(b + 4, td->big_endian);
	out = malloc(ulen ? ulen : 1);
	if (!out)
		return hist__td_err(td, -HIST_ENOMEM, "out of memory (%u bytes for %s)",
				    ulen, what);
	got = ZSTD_decompressDCtx(td->zstd, out, ulen, b + 8, clen);
	if (ZSTD_isError(got) || got != ulen) {
		free(out);
		return hist__td_err(td, -HIST_EINVAL,
				    "%s section at offset %llu: %s",
				    what, (unsigned long long)s->off,
				    ZSTD_isError(got) ? ZSTD_getErrorName(got) :
							"decompressed size mismatch");
	}
	*owned = out;
	rd_init(r, td, out, ulen, s->off, what);
	return 0;
}

static int parse_options_v7(struct open_ctx *c, uint64_t first)
{
	struct hist_tracedat *td = c->td;
	uint64_t next = first;
	uint32_t visited = 0;

	while (next) {
		const struct section *s = find_section_at(c, next);
		uint8_t *owned;
		struct rd r;
		int ret = 0;

		if (!s && c->cut_at && next >= c->cut_at) {
			/* trace-cmd writes the last options after the data */
			hist__note_damage(td, "the options section at offset %llu is past the end of the file",
				    (unsigned long long)next);
			return 0;
		}
		if (!s || s->id != OPT_DONE)
			return hist__td_err(td, -HIST_EINVAL,
					    "options offset %llu does not start an options section",
					    (unsigned long long)next);
		if (++visited > c->nr_secs)
			return hist__td_err(td, -HIST_EINVAL,
					    "options sections form a loop at offset %llu",
					    (unsigned long long)next);
		ret = section_body(c, s, "options", &r, &owned);
		if (ret)
			return ret;
		next = 0;
		while (r.pos < r.len) {
			const uint8_t *data;
			uint16_t id;
			uint32_t size;
			uint64_t where;

			if (rd_u16(&r, &id, "option id") ||
			    rd_u32(&r, &size, "option size")) {
				ret = -HIST_EINVAL;
				break;
			}
			where = r.base + r.pos;
			if (rd_bytes(&r, size, &data, "option data")) {
				ret = -HIST_EINVAL;
				break;
			}
			if (id == OPT_DONE) {
				next = size >= 8 ? hist__get64(data, td->big_endian) : 0;
				break;
			}
			ret = handle_option(c, id, data, size, where);
			if (ret)
				break;
		}
		free(owned);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Metadata section ID into *SP: via its option pointer, else the first of
 * its id; NULL when the file has none.  0, or the error of a pointer to
 * something else.
 */
static int meta_section(struct open_ctx *c, uint16_t id, const char *what,
			const struct section **sp)
{
	const struct section *s = NULL;
	uint32_t i;

	if (c->sec_ptr[id]) {
		s = find_section_at(c, c->sec_ptr[id]);
		if (!s || s->id != id)
			return hist__td_err(c->td, -HIST_EINVAL,
					    "%s option points to offset %llu, which is not a %s section",
					    what, (unsigned long long)c->sec_ptr[id], what);
	}
	for (i = 0; !s && i < c->nr_secs; i++)
		if (c->secs[i].id == id)
			s = &c->secs[i];
	*sp = s;
	return 0;
}

static int load_meta_section(struct open_ctx *c, uint16_t id, const char *what,
			     int (*parse)(struct rd *r), int required)
{
	const struct section *s;
	uint8_t *owned;
	struct rd r;
	int ret;

	if ((ret = meta_section(c, id, what, &s)))
		return ret;
	if (!s)
		return required ? hist__td_err(c->td, -HIST_EINVAL, "no %s section", what) : 0;
	ret = section_body(c, s, what, &r, &owned);
	if (!ret)
		ret = parse(&r);
	free(owned);
	return ret;
}

/*
 * A table's section, kept for hist__td_load(): only its framing is
 * checked now (a zstd body's sizes; the frame is decompressed on use).
 */
static int defer_section(struct open_ctx *c, uint16_t id, const char *what, int which,
			 int wide)
{
	struct hist_tracedat *td = c->td;
	struct hist__lazy *lz = &td->lazy[which];
	const struct section *s;
	const uint8_t *b;
	int ret;

	if ((ret = meta_section(c, id, what, &s)) || !s)
		return ret;
	b = td->map + s->off + 16;
	if (s->flags & SEC_COMPRESSED) {
		unsigned long long fsize;

		if ((ret = frame_check(c, s, what)))
			return ret;
		/* not decompressed yet: the frame header must agree with the
		 * stored size */
		fsize = ZSTD_getFrameContentSize(b + 8, hist__get32(b, td->big_endian));
		if (fsize != ZSTD_CONTENTSIZE_UNKNOWN &&
		    fsize != hist__get32(b + 4, td->big_endian))
			return hist__td_err(td, -HIST_EINVAL,
					    "%s section at offset %llu: %s", what,
					    (unsigned long long)s->off,
					    fsize == ZSTD_CONTENTSIZE_ERROR ? "not a zstd frame" :
					    "decompressed size mismatch");
	}
	lz->p = b;
	lz->len = s->size;
	lz->wide = wide;
	lz->compressed = (s->flags & SEC_COMPRESSED) != 0;
	lz->where = s->off;
	lz->ready = 0;
	return 0;
}


/* ---- versions ----------------------------------------------------------- */

/*
 * A v6 CPU table at R's cursor: NCPUS (offset, size) pairs, then, when the
 * options list a trace clock, the clock string.  Into buffer B.
 */
static int read_cpu_table(struct open_ctx *c, struct rd *r, struct hist__buffer *b,
			  uint32_t ncpus)
{
	struct hist__cpu_ent *cpus;
	uint32_t i;

	if (rd_need(r, (uint64_t)ncpus * 16, "flyrecord CPU table"))
		return -HIST_EINVAL;
	cpus = calloc(ncpus ? ncpus : 1, sizeof(*cpus));
	if (!cpus)
		return hist__td_err(c->td, -HIST_ENOMEM, "out of memory");
	for (i = 0; i < ncpus; i++) {
		cpus[i].cpu = i;
		rd_u64(r, &cpus[i].off, "flyrecord CPU table");
		rd_u64(r, &cpus[i].size, "flyrecord CPU table");
	}
	free(b->cpus);
	b->cpus = cpus;
	b->nr_cpus = ncpus;
	if (c->have_clock_opt) {
		const uint8_t *text;
		uint64_t n;

		if (rd_blob(r, 1, &text, &n, "trace clock"))
			return -HIST_EINVAL;
		bracketed_clock(text, (size_t)n, b->clock, sizeof(b->clock));
	}
	return 0;
}

/*
 * The instances of a v6 file (td->bufs after the top one): each BUFFER
 * option points at "flyrecord" and a CPU table like the top buffer's,
 * with as many CPUs.  One that cannot be read is marked bad, which only
 * selecting it reports.
 */
static int read_instances(struct open_ctx *c, uint32_t ncpus)
{
	struct hist_tracedat *td = c->td;
	uint32_t k;

	/* the tables may all point at one place: bound what they cost */
	if ((uint64_t)td->nr_bufs * ncpus > (UINT64_C(1) << 20))
		return hist__td_err(td, -HIST_EINVAL, "%u buffers of %u CPUs each",
				    td->nr_bufs, ncpus);
	for (k = 1; k < td->nr_bufs; k++) {
		struct hist__buffer *b = &td->bufs[k];
		uint64_t off = c->buf_secs[k];
		struct rd r;
		int ret;

		rd_init(&r, td, td->map, td->map_len, 0, NULL);
		if (off > td->map_len) {
			snprintf(b->bad, sizeof(b->bad),
				 "buffer '%.40s': its CPU table at offset %llu is past the end of the file (%zu bytes)",
				 b->name, (unsigned long long)off, td->map_len);
			continue;
		}
		r.pos = (size_t)off;
		ret = rd_lit(&r, "flyrecord", 10, "'flyrecord'");
		if (!ret)
			ret = read_cpu_table(c, &r, b, ncpus);
		if (ret == -HIST_ENOMEM)
			return ret;
		if (ret) {
			snprintf(b->bad, sizeof(b->bad), "buffer '%.40s': %s", b->name,
				 td->err + (strncmp(td->err, "trace.dat: ", 11) ? 0 : 11));
			td->err[0] = '\0';
		}
	}
	return 0;
}

static int open_v6(struct open_ctx *c, struct rd *r)
{
	struct hist_tracedat *td = c->td;
	struct hist__buffer *top;
	const uint8_t *kind;
	uint32_t ncpus;
	int ret;

	if ((ret = parse_header_info(r)) || (ret = parse_ftrace_formats(r)) ||
	    (ret = parse_event_formats(r)) || (ret = defer_kallsyms(r)) ||
	    (ret = defer_printk(r)) || (ret = defer_cmdlines(r)))
		return ret;
	if (rd_u32(r, &ncpus, "CPU count"))
		return -HIST_EINVAL;
	if (ncpus > MAX_CPUS)
		return hist__td_err(td, -HIST_EINVAL, "CPU count %u out of range", ncpus);
	td->cpucount = ncpus;
	/* the top buffer first; BUFFER options append the instances */
	if ((ret = hist__buf_add(td, "", "", 0, 0, &top)) || (ret = remember_buffer_at(c, 0)))
		return ret;
	if (rd_bytes(r, 10, &kind, "data kind"))
		return -HIST_EINVAL;
	if (!memcmp(kind, "options  ", 10)) {
		if ((ret = parse_options_v6(c, r)))
			return ret;
		if (rd_bytes(r, 10, &kind, "data kind"))
			return -HIST_EINVAL;
	}
	if (!memcmp(kind, "latency  ", 10))
		return hist__td_err(td, -HIST_EINVAL,
				    "latency-format (text) trace.dat is not supported");
	if (memcmp(kind, "flyrecord", 10)) {
		r->pos -= 10;
		return rd_fail(r, "'flyrecord'", "missing");
	}
	if ((ret = read_cpu_table(c, r, &td->bufs[0], ncpus)) ||
	    (ret = read_instances(c, ncpus)))
		return ret;
	snprintf(c->opt_clock, sizeof(c->opt_clock), "%s", td->bufs[0].clock);
	return hist__buf_use(td, 0);
}


/* A cut file lost its BUFFER option: the first compressed buffer section. */
static int recover_buffer(struct open_ctx *c)
{
	uint32_t i;

	for (i = 0; i < c->nr_secs; i++)
		if (c->secs[i].id == OPT_BUFFER && (c->secs[i].flags & SEC_COMPRESSED))
			return hist__buf_recover(c->td, c->secs[i].off + 16, &c->cpus,
						 &c->nr_cpus);
	return -1;
}

/* Note what is wrong with each buffer's section (td->bufs[i].bad). */
static void check_buffers(struct open_ctx *c)
{
	struct hist_tracedat *td = c->td;
	uint32_t i;

	for (i = 0; i < td->nr_bufs; i++) {
		struct hist__buffer *b = &td->bufs[i];
		const struct section *bs = find_section_at(c, c->buf_secs[i]);

		if (!bs || bs->id != OPT_BUFFER)
			snprintf(b->bad, sizeof(b->bad),
				 "BUFFER option points to offset %llu, which is not a buffer section",
				 (unsigned long long)c->buf_secs[i]);
		else if ((bs->flags & SEC_COMPRESSED) && !td->zstd)
			snprintf(b->bad, sizeof(b->bad),
				 "buffer section at offset %llu is compressed, but the file says 'none'",
				 (unsigned long long)bs->off);
		else
			b->compressed = bs->flags & SEC_COMPRESSED;
	}
}


static int open_v7(struct open_ctx *c, struct rd *r)
{
	struct hist_tracedat *td = c->td;
	const char *comp, *compver;
	uint64_t first;
	uint32_t k;
	int ret;

	if (rd_cstr(r, &comp, "compression name") ||
	    rd_cstr(r, &compver, "compression version") ||
	    rd_u64(r, &first, "options offset"))
		return -HIST_EINVAL;
	if (!strcmp(comp, "zstd")) {
		td->zstd = ZSTD_createDCtx();
		if (!td->zstd)
			return hist__td_err(td, -HIST_ENOMEM, "out of memory");
	} else if (strcmp(comp, "none")) {
		return hist__td_err(td, -HIST_EINVAL,
				    "unsupported compression '%.32s'", comp);
	}
	if ((ret = scan_sections(c, r->pos)) || (ret = parse_options_v7(c, first)))
		return ret;
	if ((ret = load_meta_section(c, OPT_HEADER_INFO, "headers", parse_header_info, 1)) ||
	    (ret = load_meta_section(c, OPT_FTRACE_EVENTS, "ftrace events",
				     parse_ftrace_formats, 0)) ||
	    (ret = load_meta_section(c, OPT_EVENT_FORMATS, "events format",
				     parse_event_formats, 0)) ||
	    (ret = defer_section(c, OPT_KALLSYMS, "kallsyms", HIST__LZ_KSYMS, 0)) ||
	    (ret = defer_section(c, OPT_PRINTK, "printk", HIST__LZ_PRINTK, 0)) ||
	    (ret = defer_section(c, OPT_CMDLINES, "command lines", HIST__LZ_CMDLINES, 1)))
		return ret;
	if (!c->have_buffer && c->cut_at && td->zstd && !recover_buffer(c))
		return hist__buf_setup_cpus(td, c->cpus, c->nr_cpus, 1);
	if (!c->have_buffer && !c->have_text_buffer) {
		/* a buffer section no option names: the options chain was
		 * damaged (an option id or a DONE offset), which read as a
		 * valid empty trace ("no records", exit 0) */
		for (k = 0; k < c->nr_secs && c->secs[k].id != OPT_BUFFER; k++)
			;
		if (k < c->nr_secs) {
			hist__note_damage(td, "no option names the buffer section at offset %llu: "
					  "the options are damaged",
					  (unsigned long long)c->secs[k].off);
			if (td->zstd && !recover_buffer(c))
				return hist__buf_setup_cpus(td, c->cpus, c->nr_cpus, 1);
			td->damage[0] = 0;	/* not a cut: the error says it all */
			return hist__td_err(td, -HIST_EINVAL, "no option names the buffer "
					    "section at offset %llu: the options are damaged, "
					    "and its records cannot be found without them",
					    (unsigned long long)c->secs[k].off);
		}
	}
	if (!c->have_buffer) {
		if (c->have_text_buffer)
			return hist__td_err(td, -HIST_EINVAL,
					    "latency-format (text) trace.dat is not supported");
		/* No trace data at all: a valid, empty trace. */
		if ((ret = hist__buf_page_size(td, td->host_page_size)))
			return ret;
		return hist__buf_setup_cpus(td, NULL, 0, 0);
	}
	check_buffers(c);
	/* The top instance (empty name) first, else the first listed. */
	for (k = 0; k < td->nr_bufs && td->bufs[k].name[0]; k++)
		;
	if (k == td->nr_bufs)
		k = 0;
	if (td->bufs[k].bad[0])
		return hist__td_err(td, -HIST_EINVAL, "%s", td->bufs[k].bad);
	return hist__buf_use(td, k);
}

static int build_id_index(struct hist_tracedat *td)
{
	uint32_t i, max = 0;

	for (i = 0; i < td->nr_events; i++)
		if (td->events[i]->desc.id <= UINT16_MAX && td->events[i]->desc.id > max)
			max = td->events[i]->desc.id;
	td->nr_by_id = td->nr_events ? max + 1 : 0;
	if (!td->nr_by_id)
		return 0;
	td->by_id = calloc(td->nr_by_id, sizeof(*td->by_id));
	if (!td->by_id)
		return hist__td_err(td, -HIST_ENOMEM, "out of memory");
	for (i = 0; i < td->nr_events; i++) {
		uint32_t id = td->events[i]->desc.id;

		if (id < td->nr_by_id && !td->by_id[id])
			td->by_id[id] = td->events[i];
	}
	return 0;
}

/* perf.data's tracing data (perf.c finds it): a v6 head without the CPU data. */
static int parse_tracing_data(struct hist_tracedat *td, const uint8_t *p, size_t len,
			      uint64_t base)
{
	struct rd r;
	const char *ver;
	uint8_t endian, lsize;
	uint32_t ps;
	int ret;

	rd_init(&r, td, p, len, base, NULL);
	if (rd_lit(&r, TD_MAGIC, 10, "tracing data magic") ||
	    rd_cstr(&r, &ver, "tracing data version") ||
	    rd_u8(&r, &endian, "endianness") || rd_u8(&r, &lsize, "long size"))
		return -HIST_EINVAL;
	if (endian > 1)
		return hist__td_err(td, -HIST_EINVAL, "bad endianness byte %u", endian);
	td->big_endian = endian;
	if (rd_u32(&r, &ps, "page size"))
		return -HIST_EINVAL;
	td->host_page_size = ps;
	if ((ret = parse_header_info(&r)) || (ret = parse_ftrace_formats(&r)) ||
	    (ret = parse_event_formats(&r)) || (ret = parse_kallsyms(&r)) ||
	    (ret = parse_printk(&r)))
		return ret;
	/* saved cmdlines came with version 0.6 */
	if (strcmp(ver, "0.5") && r.pos < r.len && (ret = parse_cmdlines(&r)))
		return ret;
	return 0;
}

static int parse_file(struct hist_tracedat *td)
{
	struct open_ctx c;
	struct rd r;
	const char *ver;
	uint8_t endian, lsize;
	uint32_t ps;
	char *end;
	long v;
	int ret;

	memset(&c, 0, sizeof(c));
	c.td = td;
	if (hist__perf_is(td->map, td->map_len)) {
		const uint8_t *t;
		size_t tlen;
		uint64_t toff;

		if ((ret = hist__perf_open(td)))
			return ret;
		t = hist__perf_tracing_data(td, &tlen, &toff);
		if ((ret = parse_tracing_data(td, t, tlen, toff))) {
			char msg[200];

			/* say which file kind, and that it is its tracing data */
			snprintf(msg, sizeof(msg), "%.199s",
				 td->err + (strncmp(td->err, "trace.dat: ", 11) ? 0 : 11));
			snprintf(td->err, sizeof(td->err), "perf.data: tracing data at offset %llu: %.200s",
				 (unsigned long long)toff, msg);
			return ret;
		}
		return build_id_index(td);
	}
	rd_init(&r, td, td->map, td->map_len, 0, NULL);
	if (td->map_len < 10 || memcmp(td->map, TD_MAGIC, 10))
		return hist__td_err(td, -HIST_EINVAL, "not a trace.dat file (bad magic)");
	r.pos = 10;
	if (rd_cstr(&r, &ver, "version"))
		return -HIST_EINVAL;
	v = strtol(ver, &end, 10);
	if (*end || end == ver || (v != 6 && v != 7))
		return hist__td_err(td, -HIST_EINVAL, "unsupported file version '%.16s'", ver);
	td->version = (int)v;
	if (rd_u8(&r, &endian, "endianness") || rd_u8(&r, &lsize, "long size"))
		return -HIST_EINVAL;
	if (endian > 1)
		return hist__td_err(td, -HIST_EINVAL, "bad endianness byte %u", endian);
	td->big_endian = endian;
	if (rd_u32(&r, &ps, "page size"))
		return -HIST_EINVAL;
	td->host_page_size = ps;
	ret = td->version == 6 ? open_v6(&c, &r) : open_v7(&c, &r);
	if (!ret) {
		if (!td->clock[0])
			snprintf(td->clock, sizeof(td->clock), "%s", c.opt_clock);
		ret = build_id_index(td);
	}
	free(c.cpus);
	free(c.secs);
	free(c.buf_secs);
	return ret;
}

/* ---- open / close ------------------------------------------------------- */

static struct hist_tracedat *finish_open(struct hist_tracedat *td, char *errbuf,
					 size_t errlen)
{
	td->lazy_lock_ok = pthread_mutex_init(&td->lazy_lock, NULL) == 0;
	if (parse_file(td) || hist__streams_start(td)) {
		/* what the cut took explains what is missing */
		if (td->damage[0])
			hist__msg(errbuf, errlen, "%s (the file is cut short: %s)", td->err,
				  td->damage);
		else
			hist__msg(errbuf, errlen, "%s", td->err);
		hist_tracedat_close(td);
		return NULL;
	}
	td->err[0] = '\0';
	td->prefetch = 1;
	return td;
}

/* What a path that cannot be mapped is, for the message. */
static const char *not_regular(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return "is a directory";
	if (S_ISFIFO(st->st_mode))
		return "is a FIFO (a pipe): a trace.dat must be a regular file, save it first";
	if (S_ISCHR(st->st_mode))
		return "is a character device, not a trace.dat file";
	if (S_ISBLK(st->st_mode))
		return "is a block device, not a trace.dat file";
	if (S_ISSOCK(st->st_mode))
		return "is a socket, not a trace.dat file";
	if (!S_ISREG(st->st_mode))
		return "is not a regular file";
	return st->st_size == 0 ? "empty file" : NULL;
}

/* The whole file into td->map (a mapping we cannot guard). */
static int read_whole(struct hist_tracedat *td, int fd)
{
	size_t got = 0;

	td->map = malloc(td->map_len);
	if (!td->map)
		return -1;
	while (got < td->map_len) {
		ssize_t n = pread(fd, td->map + got, td->map_len - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;	/* shrank while we read it */
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

struct hist_tracedat *hist_tracedat_open(const char *path, char *errbuf, size_t errlen)
{
	struct hist_tracedat *td;
	struct stat st;
	const char *what;
	char *dir_hdr = hist__perf_dir_header(path);	/* perf record --threads */
	int fd;

	/* O_NONBLOCK: a FIFO is refused below, not waited on */
	fd = open(dir_hdr ? dir_hdr : path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	free(dir_hdr);
	if (fd < 0) {
		hist__msg(errbuf, errlen, "trace.dat: cannot open %s: %s", path,
			  strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		hist__msg(errbuf, errlen, "trace.dat: %s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	what = not_regular(&st);
	if (what) {
		hist__msg(errbuf, errlen, "trace.dat: %s: %s", path, what);
		close(fd);
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		close(fd);
		hist__msg(errbuf, errlen, "trace.dat: out of memory");
		return NULL;
	}
	td->fd = fd;
	if (dir_hdr && !(td->perf_dir = strdup(path))) {
		hist__msg(errbuf, errlen, "trace.dat: out of memory");
		close(fd);
		free(td);
		return NULL;
	}
	td->map_len = (size_t)st.st_size;
	td->map = mmap(NULL, td->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (td->map == MAP_FAILED) {
		td->map = NULL;
		hist__msg(errbuf, errlen, "trace.dat: cannot map %s: %s", path,
			  strerror(errno));
		close(fd);
		free(td->perf_dir);
		free(td);
		return NULL;
	}
	td->mapped = 1;
	/* a file cut short under the mapping: an error, not a SIGBUS */
	if (hist__map_guard(td)) {
		munmap(td->map, td->map_len);
		td->mapped = 0;
		if (read_whole(td, fd)) {
			hist__msg(errbuf, errlen, "trace.dat: cannot read %s: %s", path,
				  strerror(errno));
			close(fd);
			free(td->map);
			free(td->perf_dir);
			free(td);
			return NULL;
		}
	}
	return finish_open(td, errbuf, errlen);
}

struct hist_tracedat *hist_tracedat_open_mem(const void *buf, size_t len,
					     char *errbuf, size_t errlen)
{
	struct hist_tracedat *td = calloc(1, sizeof(*td));

	if (!td || !(td->map = malloc(len ? len : 1))) {
		free(td);
		hist__msg(errbuf, errlen, "trace.dat: out of memory");
		return NULL;
	}
	td->fd = -1;
	if (len)
		memcpy(td->map, buf, len);
	td->map_len = len;
	return finish_open(td, errbuf, errlen);
}

int hist_tracedat_is_recording(const void *buf, size_t len)
{
	const uint8_t *b = buf;

	return (len >= 10 && !memcmp(b, TD_MAGIC, 10)) || (len >= 8 && hist__perf_magic(b));
}

void hist_tracedat_close(struct hist_tracedat *td)
{
	uint32_t i;

	if (!td)
		return;
	hist__streams_free(td);
	hist__perf_free(td);
	hist__gate_free(td->gate);
	free(td->perf_dir);
	for (i = 0; i < td->nr_events; i++)
		hist_ftrace_event_free(td->events[i]);
	free(td->events);
	free(td->by_id);
	hist__ksyms_fini(&td->ksyms);
	hist__cmdlines_fini(&td->cmdlines);
	hist__printk_fini(&td->printk);
	if (td->lazy_lock_ok)
		pthread_mutex_destroy(&td->lazy_lock);
	free(td->uname);
	for (i = 0; i < td->nr_bufs; i++) {
		free(td->bufs[i].name);
		free(td->bufs[i].cpus);
	}
	free(td->bufs);
	if (td->zstd)
		ZSTD_freeDCtx(td->zstd);
	hist__map_unguard(td);
	if (td->mapped)
		munmap(td->map, td->map_len);
	else
		free(td->map);
	if (td->fd >= 0)
		close(td->fd);
	free(td);
}
