/* SPDX-License-Identifier: MIT */
/*
 * Private parts of the ftrace adapter, shared by its .c files only.
 *
 * Files of the adapter and their jobs:
 *   format.c    event `format` files and header_page
 *   page.c      ring-buffer sub-buffers; raw trace_pipe_raw captures
 *   kallsyms.c  the kallsyms table: address -> %ps / %pS text
 *   meta.c      saved cmdlines (pid -> comm), trace_printk formats
 *   tables.c    those three tables of a trace.dat, loaded on first use
 *   buffer.c    the ring buffers of a file: per-CPU data located and
 *               checked (cuts, damage), loss tables, the buffer walked
 *               (its own header, buffer.h, for tracedat.c)
 *   tracedat.c  trace.dat v6/v7: headers, sections, options, metadata
 *   lookup.c    read-only queries over an opened trace.dat
 *   gate.c      the kernel's event pid filter over records (--pid)
 *   stream.c    per-CPU record streams (zstd chunks) and their merge
 *   prefetch.c  a worker thread that decompresses chunks ahead
 *   perf_header.c  perf.data's header, attributes, ids and feature sections
 *   perf.c      perf.data's records (file and pipe mode) behind the same
 *               hist_tracedat (perf_int.h: what the two share)
 *
 * Everything read from a file is untrusted.  Multi-byte numbers are read
 * byte by byte in the file's order, so alignment and host byte order never
 * matter; compilers turn the little-endian form into one load.
 *
 * Layers (README "Architecture"): common < map schema < filter expr < core
 * < synth < actions < parse output < api < [ftrace].
 * ftrace/ uses only the public API of the others; its own files keep
 * README's "ftrace files:" order.
 */
#ifndef HIST_FTRACE_INT_H
#define HIST_FTRACE_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "hist_ftrace.h"
#include "common/platform.h"

/* ---- byte order ------------------------------------------------------ */

static inline uint16_t hist__get16(const uint8_t *p, int be)
{
	if (be)
		return (uint16_t)((unsigned)p[0] << 8 | p[1]);
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t hist__get32(const uint8_t *p, int be)
{
	if (be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		       (uint32_t)p[2] << 8 | p[3];
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t hist__get64(const uint8_t *p, int be)
{
	if (be)
		return (uint64_t)hist__get32(p, 1) << 32 | hist__get32(p + 4, 1);
	return hist__get32(p, 0) | (uint64_t)hist__get32(p + 4, 0) << 32;
}

/* An integer of SIZE (1, 2, 4 or 8) bytes; other sizes read as 0. */
static inline uint64_t hist__get_n(const uint8_t *p, uint32_t size, int be)
{
	switch (size) {
	case 1:
		return p[0];
	case 2:
		return hist__get16(p, be);
	case 4:
		return hist__get32(p, be);
	case 8:
		return hist__get64(p, be);
	}
	return 0;
}

/* snprintf into a caller's message buffer, which may be NULL or empty. */
void hist__msg(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4))) HIST__INTERNAL;

/* ---- ring-buffer records ----------------------------------------------- */

/* Record header: type_len values with a meaning of their own. */
#define HIST__RB_PADDING 29
#define HIST__RB_TIME_EXTEND 30
#define HIST__RB_TIME_STAMP 31
#define HIST__RB_DELTA_MASK ((1u << 27) - 1)
/* The top 5 bits of the running time survive an absolute time stamp. */
#define HIST__RB_TS_TOP (~((UINT64_C(1) << 59) - 1))
/* Commit word: data size in the low 27 bits, flags above. */
#define HIST__RB_COMMIT_MASK ((1u << 27) - 1)
#define HIST__RB_MISSED_EVENTS (1u << 31)
#define HIST__RB_MISSED_STORED (1u << 30)

/*
 * Mark the record at it->pos corrupt: the page ends there (later calls
 * return 0) and pos keeps pointing at the bad record for the message.
 */
static inline int hist__page_corrupt(struct hist_ftrace_page_iter *it,
				     uint32_t pos, uint64_t ts)
{
	it->pos = pos;
	it->size = pos;
	it->ts = ts;
	return -HIST_EINVAL;
}

/*
 * The page walker proper, inline so that the trace.dat merge loop gets it
 * without a call.  Invariant: pos <= size <= page_size - data_offset, set
 * up by hist_ftrace_page_init(), so every check below is a subtraction
 * that cannot wrap.
 */
static inline int hist__page_next(struct hist_ftrace_page_iter *it,
				  struct hist_ftrace_record *rec)
{
	const uint8_t *d = it->page + it->fmt->data_offset;
	const int be = it->fmt->big_endian;
	const uint32_t size = it->size;
	uint32_t pos = it->pos, start, plen;
	uint64_t ts = it->ts;

	while (pos < size) {
		uint32_t room = size - pos, hdr, tl, delta, arg;

		if (hist__unlikely(room < 4))
			return hist__page_corrupt(it, pos, ts);
		hdr = hist__get32(d + pos, be);
		if (be) {
			tl = hdr >> 27;
			delta = hdr & HIST__RB_DELTA_MASK;
		} else {
			tl = hdr & 31;
			delta = hdr >> 5;
		}
		if (hist__likely(tl != 0 && tl < HIST__RB_PADDING)) {
			plen = tl * 4;
			if (hist__unlikely(plen > room - 4))
				return hist__page_corrupt(it, pos, ts);
			start = pos + 4;
			ts += delta;
			it->pos = start + plen;
			goto data;
		}
		if (tl == HIST__RB_PADDING && delta == 0) {
			/* Null padding: the rest of the page is unused. */
			it->pos = size;
			it->ts = ts;
			return 0;
		}
		/* Every other kind carries array[0]. */
		if (hist__unlikely(room < 8))
			return hist__page_corrupt(it, pos, ts);
		arg = hist__get32(d + pos + 4, be);
		switch (tl) {
		case HIST__RB_PADDING:
			/* A discarded event: 4 + array[0] bytes. */
			if (arg > room - 4)
				return hist__page_corrupt(it, pos, ts);
			ts += delta;
			pos += 4 + arg;
			continue;
		case HIST__RB_TIME_EXTEND:
			ts += ((uint64_t)arg << 27) + delta;
			pos += 8;
			continue;
		case HIST__RB_TIME_STAMP:
			ts = ((uint64_t)arg << 27 | delta) | (ts & HIST__RB_TS_TOP);
			pos += 8;
			continue;
		default:
			/* type_len 0: array[0] is the payload length + 4 and
			 * the payload starts after it. */
			if (arg < 4 + 2 || arg - 4 > room - 8)
				return hist__page_corrupt(it, pos, ts);
			plen = arg - 4;
			start = pos + 8;
			ts += delta;
			/* Records are 4-byte aligned; the tail may hold the
			 * rounding only if the commit covers it. */
			it->pos = start + ((plen + 3) & ~3u) <= size ?
					  start + ((plen + 3) & ~3u) : size;
			goto data;
		}
	}
	it->pos = pos;
	it->ts = ts;
	return 0;
data:
	it->ts = ts;
	rec->ts = ts;
	rec->data = d + start;
	rec->len = plen;
	rec->cpu = it->cpu;
	rec->type = hist__get16(d + start, be);
	rec->file_offset = it->fmt->data_offset + pos;
	return 1;
}

/* ---- kallsyms ---------------------------------------------------------- */

struct hist__ksym {
	uint64_t addr;
	uint32_t name;		/* offset of the name in the text copy */
	uint32_t mod;		/* offset of the module name, 0: core kernel */
};

struct hist__ksyms {
	char *text;		/* the /proc/kallsyms text, split in place */
	struct hist__ksym *syms;	/* by address, aliases removed */
	uint32_t nr;
};

/* Parse LEN bytes of /proc/kallsyms text.  0, or -HIST_ENOMEM. */
int hist__ksyms_init(struct hist__ksyms *ks, const char *text, size_t len) HIST__INTERNAL;
void hist__ksyms_fini(struct hist__ksyms *ks) HIST__INTERNAL;
int hist__ksyms_lookup(const struct hist__ksyms *ks, uint64_t addr,
		       int with_offset, char *buf, size_t len) HIST__INTERNAL;

/* ---- saved cmdlines, printk formats --------------------------------- */

struct hist__cmdline {
	int32_t pid;
	uint32_t comm;		/* offset in the text copy */
};

struct hist__cmdlines {
	char *text;
	struct hist__cmdline *ent;	/* sorted by pid, unique */
	uint32_t nr;
};

int hist__cmdlines_init(struct hist__cmdlines *c, const char *text, size_t len) HIST__INTERNAL;
void hist__cmdlines_fini(struct hist__cmdlines *c) HIST__INTERNAL;
const char *hist__cmdlines_find(const struct hist__cmdlines *c, int32_t pid) HIST__INTERNAL;

struct hist__printk_fmt {
	uint64_t addr;
	uint32_t fmt;		/* offset in the text copy */
};

struct hist__printk {
	char *text;
	struct hist__printk_fmt *ent;	/* sorted by address */
	uint32_t nr;
};

int hist__printk_init(struct hist__printk *p, const char *text, size_t len) HIST__INTERNAL;
void hist__printk_fini(struct hist__printk *p) HIST__INTERNAL;
const char *hist__printk_find(const struct hist__printk *p, uint64_t addr) HIST__INTERNAL;

/* ---- trace.dat --------------------------------------------------------- */

/* Where one CPU's data of a buffer lies. */
struct hist__cpu_ent {
	uint32_t cpu;
	uint64_t off, size;
};

/*
 * A table of a trace.dat parsed on first use (kallsyms, printk formats,
 * saved cmdlines): most replays need none of them, and kallsyms alone is
 * megabytes to decompress, split and sort.  P is the item as stored: the
 * v6 blob (length prefix and text) in the map, or a v7 section body
 * (maybe zstd) holding that blob.  Framing and sizes are checked at open;
 * a table that then fails to decompress or parse stays empty (lookups
 * give the kernel's fallback) and LZ_FAILED says so.
 */
enum { HIST__LZ_KSYMS, HIST__LZ_PRINTK, HIST__LZ_CMDLINES, HIST__LZ_NR };

struct hist__lazy {
	const uint8_t *p;
	uint64_t len;
	int wide;		/* u64 length prefix (cmdlines), else u32 */
	int compressed;		/* P is a zstd section body */
	uint64_t where;		/* file offset, for messages */
	int ready;		/* 1 once loaded; acquire/release, see
				   hist__td_load() */
	int failed;
};

/* A ring buffer of the recording: the top one ("") or an instance's. */
struct hist__buffer {
	char *name;
	char clock[32];
	uint32_t page_size;	/* 0: the host's */
	int compressed;		/* zstd chunks */
	char bad[160];		/* why it cannot be read, or "" */
	struct hist__cpu_ent *cpus;
	uint32_t nr_cpus;
};

/* One CPU's data and the walk over it. */
struct hist__stream {
	uint32_t cpu;
	int compressed;		/* zstd chunks, else plain pages */
	uint64_t off;		/* plain: first page; zstd: first chunk header */
	uint64_t size;		/* plain: bytes of pages */
	uint32_t nr_chunks;

	/* Walk state. */
	uint32_t chunk;		/* chunks loaded so far */
	uint64_t chunk_pos;	/* file offset of the next chunk header */
	uint64_t buf_off;	/* file offset of buf (plain) or its chunk */
	const uint8_t *buf;	/* pages being walked */
	size_t buf_len;
	size_t page_pos;	/* next page in buf */
	uint8_t *cbuf[2];	/* two chunk buffers: a returned record stays
				   valid while the next chunk is loaded */
	size_t ccap[2];
	int cur;		/* cbuf[cur] holds buf; -1: a worker slot does */
	int held;		/* cbuf of the record handed out last, -1: none;
				   loads never go there (advance() may load
				   several chunks when some have no records) */
	int in_page;
	uint64_t page_off;	/* offset of the page for messages */
	uint64_t drop_next;	/* drop announced for the next record */
	char cut[200];		/* the file ends inside this CPU's data: what
				   is missing, reported when the walk gets there */
	int cut_told;
	struct hist_ftrace_page_iter it;

	/* The pending record: the stream's next one, in the heap. */
	struct hist_ftrace_record rec;
	uint64_t rec_dropped;
	int need;		/* must advance before taking part again */
};

struct hist_tracedat {
	uint8_t *map;		/* the file: mmap()ed or a heap copy */
	size_t map_len;
	int mapped;
	int fd;			/* the mapped file (its size is checked at the
				   end of a walk), or -1 */
	int guard_slot;		/* guard.c's slot + 1, 0: not guarded */
	uint64_t bus_fault;	/* guard.c: 1 + the mapping offset of the page
				   that faulted when the file shrank, or 0;
				   written by the SIGBUS handler */
	int shrink_told;	/* the shrink was reported in this walk */
	int version;
	int big_endian;
	uint32_t long_size;	/* kernel long, from header_page */
	uint32_t host_page_size;
	uint32_t nr_cpus;
	char clock[32];
	int64_t ts_offset;	/* DATE / OFFSET options, not applied */
	struct hist_ftrace_page_fmt pfmt;
	int have_pfmt;
	void *zstd;		/* ZSTD_DCtx *, NULL when uncompressed */

	struct hist_ftrace_event **events;
	uint32_t nr_events, cap_events;
	struct hist_ftrace_event **by_id;	/* index: ID < nr_by_id */
	uint32_t nr_by_id;

	struct hist__ksyms ksyms;
	struct hist__cmdlines cmdlines;
	struct hist__printk printk;
	struct hist__lazy lazy[HIST__LZ_NR];	/* how to load the three above */
	pthread_mutex_t lazy_lock;	/* serialises the loads */
	int lazy_lock_ok;
	char *uname;

	struct hist__buffer *bufs;	/* v7: every BUFFER option, in file order */
	uint32_t nr_bufs;
	uint32_t cur_buf;	/* the one the streams walk */
	uint32_t cpucount;	/* CPUCOUNT option / v6 CPU count */

	struct hist__stream *streams;
	uint32_t nr_streams;
	struct hist__stream **heap;	/* pending streams, min (ts, cpu) on top */
	uint32_t nr_heap;
	uint32_t nr_need;	/* streams with need set */
	int pending_err;	/* error to report on the next call */
	uint64_t *lost;		/* per CPU id, below nr_lost */
	uint64_t *lost_unknown;	/* pages that lost an unknown number */
	uint32_t nr_lost;
	uint64_t last_dropped;
	struct hist__prefetch *pf;	/* decompression worker, or NULL */
	int prefetch;		/* use one when there are zstd chunks */
	int iterating;		/* records taken since open/rewind */
	struct hist__perf *perf;	/* a perf.data: records come from perf.c */
	struct hist__gate *gate;	/* a trace.dat's pid gate (gate.c), or NULL */
	char *perf_dir;		/* perf record --threads: the directory */

	/* Open found the file cut short or damaged in a way that still left
	 * records to read: reported by hist_tracedat_next() after the last
	 * record (a CPU's cut data is reported where its walk ends). */
	char damage[256];
	int damage_told;

	char err[320];
};

/* Record an error message (prefixed "trace.dat: ") and return CODE. */
int hist__td_err(struct hist_tracedat *td, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4))) HIST__INTERNAL;

/*
 * Load table WHICH (HIST__LZ_*) if it is still pending.  Any thread may
 * call it, as the lookups are documented: the first caller loads under
 * lazy_lock and publishes with a release store of ready; a caller that
 * sees ready with an acquire load reads the table without the lock.
 */
void hist__td_load(const struct hist_tracedat *td, int which) HIST__INTERNAL;

/* Streams: set up after open, reset on rewind; freed on close. */
int hist__streams_start(struct hist_tracedat *td) HIST__INTERNAL;
void hist__streams_free(struct hist_tracedat *td) HIST__INTERNAL;

/*
 * Decompress the zstd chunk whose header is at POS into *BUF (grown to
 * fit; *LEN bytes result).  0, or a negative errno and a message in MSG.
 */
int hist__chunk_inflate(const struct hist_tracedat *td, void *dctx, uint32_t cpu,
			uint32_t chunk, uint64_t pos, uint8_t **buf, size_t *cap,
			size_t *len, char *msg, size_t msglen) HIST__INTERNAL;
/* Decompress S's next chunk in line, into its own buffers. */
int hist__stream_load(struct hist_tracedat *td, struct hist__stream *s) HIST__INTERNAL;

/* The decompression worker (prefetch.c).  start: 0, or negative and the
 * caller decompresses itself; take: like decompressing the stream's next
 * chunk in place (0 or negative with td->err set). */
int hist__prefetch_start(struct hist_tracedat *td) HIST__INTERNAL;
int hist__prefetch_take(struct hist_tracedat *td, struct hist__stream *s) HIST__INTERNAL;
void hist__prefetch_reset(struct hist_tracedat *td) HIST__INTERNAL;
void hist__prefetch_stop(struct hist_tracedat *td) HIST__INTERNAL;


/* ---- perf.data (perf.c) ------------------------------------------------ */

/* The perf.data magic (either byte order) is B's first 8 bytes. */
int hist__perf_magic(const uint8_t *b) HIST__INTERNAL;
/* ... and B (LEN bytes) holds at least the magic and the header size. */
int hist__perf_is(const uint8_t *b, size_t len) HIST__INTERNAL;
/*
 * perf record --threads writes a directory: the header file PATH/data and
 * the records in PATH/data.N.  The header file's path (malloc'd) if PATH
 * is such a directory, else NULL.
 */
char *hist__perf_dir_header(const char *path) HIST__INTERNAL;
/* Parse td->map as perf.data: formats and names into TD, the records
 * indexed.  0, or a negative errno with td->err set. */
int hist__perf_open(struct hist_tracedat *td) HIST__INTERNAL;
void hist__perf_reset(struct hist_tracedat *td) HIST__INTERNAL;
int hist__perf_next(struct hist_tracedat *td, struct hist_ftrace_record *rec) HIST__INTERNAL;
int hist__perf_peek_cpu(const struct hist_tracedat *td, uint32_t cpu,
			struct hist_ftrace_record *rec) HIST__INTERNAL;
void hist__perf_free(struct hist_tracedat *td) HIST__INTERNAL;
/*
 * Where the tracing data is (*LEN bytes at file offset *OFF): the items
 * of a trace.dat v6 head, from the magic to the saved cmdlines, which
 * tracedat.c parses once hist__perf_open() has found them.
 */
const uint8_t *hist__perf_tracing_data(const struct hist_tracedat *td, size_t *len,
				       uint64_t *off) HIST__INTERNAL;

/*
 * guard.c: SIGBUS on TD's mapping (the file shrank) becomes
 * td->bus_fault and zero pages.  guard: 0, or -1 when it cannot (the
 * caller reads the file into memory instead).  unguard: before munmap().
 */
int hist__map_guard(struct hist_tracedat *td) HIST__INTERNAL;
void hist__map_unguard(struct hist_tracedat *td) HIST__INTERNAL;

/* ---- gate.c: the kernel's event pid filter (hist_tracedat_set_pid_gate()) ---- */

/* The events and fields the filter looks at: ids + 1 and offsets + 1 of
 * 4-byte fields, 0 where the recording lacks them. */
struct hist__gate_ev {
	uint32_t sw, sw_prev, sw_next;
	uint32_t wake[3], wake_pid[3];	/* sched_waking, _wakeup, _wakeup_new */
	uint32_t fork, fork_parent, fork_child;
};
void hist__gate_ev_init(const struct hist_tracedat *td, struct hist__gate_ev *g) HIST__INTERNAL;
/* The 4-byte field at offset OFF1 - 1 of REC; -1 if the event lacks it. */
int32_t hist__gate_field(const struct hist_ftrace_record *rec, uint32_t off1,
			 int be) HIST__INTERNAL;
/* Whether the filter passes REC: an event of a task IN(ARG, pid) says is
 * in the set, a sched_switch from or to one, a wakeup of one. */
int hist__gate_pass(const struct hist__gate_ev *g, const struct hist_ftrace_record *rec, int be,
		    int (*in)(void *arg, int32_t pid), void *arg) HIST__INTERNAL;
/* A trace.dat's gate: the set of ROOT and the tasks its sched_process_fork
 * records bring in.  NULL: out of memory. */
struct hist__gate *hist__gate_create(const struct hist_tracedat *td, int32_t root) HIST__INTERNAL;
void hist__gate_free(struct hist__gate *g) HIST__INTERNAL;
/* Back to the set of the root alone (a rewind). */
void hist__gate_reset(struct hist__gate *g) HIST__INTERNAL;
/* REC was read from td->gate's trace.dat: 1 if it passes, 0 if not (its
 * losses, td->last_dropped, carried to its CPU's next record that does),
 * or -HIST_ENOMEM. */
int hist__gate_take(struct hist_tracedat *td, struct hist_ftrace_record *rec) HIST__INTERNAL;

#endif
