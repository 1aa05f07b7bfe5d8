/* SPDX-License-Identifier: MIT */
/*
 * libhist-ftrace: the ftrace adapter, a host of libhist that reads what the
 * Linux tracing subsystem writes: event `format` files, ring-buffer pages
 * (`trace_pipe_raw`) and trace-cmd's trace.dat (versions 6 and 7, zstd or
 * uncompressed).  It is a separate library (libhist-ftrace.a, links libzstd);
 * the core libhist.a has no dependency on it.
 *
 * All input is untrusted: every parser checks bounds and reports errors as
 * text with the byte offset where it stopped; none of them crashes, hangs
 * or reads past its input.
 */
#ifndef HIST_FTRACE_H
#define HIST_FTRACE_H

#include "libhist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- format files --------------------------------------------------- */

/* One parsed `format` file.  desc's strings and fields are owned. */
struct hist_ftrace_event {
	struct hist_event_desc desc;
	char *print_fmt;	/* text after "print fmt: ", or NULL */
};

/*
 * Parse the text of events/SYSTEM/NAME/format (LEN bytes).  SYSTEM names
 * the system (format files do not say it).  Returns 0 and *out, or a
 * negative errno with a message (including the line number) in ERRBUF.
 */
int hist_ftrace_parse_format(const char *text, size_t len, const char *system,
			     struct hist_ftrace_event **out, char *errbuf,
			     size_t errlen);
void hist_ftrace_event_free(struct hist_ftrace_event *e);

/* ---- ring-buffer pages ---------------------------------------------- */

/* Layout of a sub-buffer, from events/header_page and header_event. */
struct hist_ftrace_page_fmt {
	uint32_t commit_offset;	/* 8 */
	uint32_t commit_size;	/* 8 on a 64-bit kernel, 4 on 32-bit */
	uint32_t data_offset;	/* 16 (12 on 32-bit) */
	uint32_t page_size;	/* sub-buffer size, e.g. 4096 */
	int big_endian;
};

/*
 * Parse header_page text.  page_size is set to the end of the data field
 * (the kernel's sub-buffer size); a caller that knows better overrides it.
 * big_endian is left 0 for the caller to set.
 */
int hist_ftrace_parse_header_page(const char *text, size_t len,
				  struct hist_ftrace_page_fmt *out,
				  char *errbuf, size_t errlen);

/* One decoded event record. */
struct hist_ftrace_record {
	uint64_t ts;		/* absolute time stamp (ns for ns clocks) */
	const uint8_t *data;	/* payload, starting with common_type */
	uint32_t len;		/* payload length in bytes */
	uint32_t cpu;
	uint16_t type;		/* common_type: the event ID */
	uint64_t file_offset;	/* where the record sits (for messages) */
};

/* Walks the records of one sub-buffer. */
struct hist_ftrace_page_iter {
	const struct hist_ftrace_page_fmt *fmt;
	const uint8_t *page;
	uint32_t size;		/* bytes of data in use (commit & mask) */
	uint32_t pos;		/* next record offset within the data */
	uint64_t ts;		/* running time stamp */
	uint32_t cpu;
	int missed;		/* page says events were lost before it */
	uint64_t lost;		/* how many, if stored (0: unknown/none) */
};

/*
 * Start walking PAGE (PAGE_SIZE bytes).  Returns 0, or a negative errno
 * if the header is inconsistent (commit beyond the page).
 */
int hist_ftrace_page_init(struct hist_ftrace_page_iter *it,
			  const struct hist_ftrace_page_fmt *fmt,
			  const void *page, size_t page_size, uint32_t cpu);
/*
 * Next data record: 1 and *rec, 0 at the end, negative if corrupt.  A
 * corrupt record ends the page: it->pos is left at its offset from the
 * data start (for messages) and later calls return 0.
 */
int hist_ftrace_page_next(struct hist_ftrace_page_iter *it,
			  struct hist_ftrace_record *rec);

/* ---- trace.dat ------------------------------------------------------ */

/*
 * Context: the record stream (next, rewind, peek_cpu, set_prefetch,
 * error, lost, dropped) belongs to one thread at a time.  The lookups
 * (events, cmdline, sym, printk_fmt, the *_cb callbacks) only read and
 * may run on any number of threads once open has returned.  For zstd
 * files the stream uses one internal worker thread (see
 * hist_tracedat_set_prefetch()).  Memory: the file is mapped; zstd data
 * is decompressed a chunk (about 40 KB) at a time.  A file cut short
 * under the mapping is an error of hist_tracedat_next(), not a SIGBUS:
 * the first open installs a process-wide SIGBUS handler for the
 * library's mappings, which passes other faults on to the handler that
 * was there before (libhist-ftrace(3)).
 */
struct hist_tracedat;

/*
 * Open and index PATH.  NULL with a message (and offset) in ERRBUF.
 * PATH may also be a perf.data (see "perf.data" below).
 */
struct hist_tracedat *hist_tracedat_open(const char *path, char *errbuf,
					 size_t errlen);
/* The same from memory (copied). */
struct hist_tracedat *hist_tracedat_open_mem(const void *buf, size_t len,
					     char *errbuf, size_t errlen);
void hist_tracedat_close(struct hist_tracedat *td);
/* 1 if BUF (LEN bytes) starts a recording hist_tracedat_open() reads: the
 * 10 bytes of a trace.dat's magic, or the 8 of a perf.data's (file or pipe
 * mode, either byte order); 0 otherwise, and while LEN is too short to
 * tell.  For a reader of a stream that must refuse other data early. */
int hist_tracedat_is_recording(const void *buf, size_t len);

int hist_tracedat_version(const struct hist_tracedat *td);
uint32_t hist_tracedat_nr_cpus(const struct hist_tracedat *td);
/* Trace clock in use ("local", "global", ...), or "" if unknown. */
const char *hist_tracedat_clock(const struct hist_tracedat *td);

/*
 * Every event format stored in the file (ftrace ones included; a format
 * that does not parse is skipped).  find_event: SYSTEM NULL matches any
 * system.  event_by_id: the ID: line, i.e. a record's common_type.
 */
uint32_t hist_tracedat_nr_events(const struct hist_tracedat *td);
const struct hist_ftrace_event *hist_tracedat_event(const struct hist_tracedat *td,
						    uint32_t i);
const struct hist_ftrace_event *hist_tracedat_find_event(const struct hist_tracedat *td,
							 const char *system,
							 const char *name);
const struct hist_ftrace_event *hist_tracedat_event_by_id(const struct hist_tracedat *td,
							  uint32_t id);

/*
 * Ring buffers: a recording made with `trace-cmd record -B NAME` holds the
 * top buffer ("") and each instance's, every one with its own records
 * (the kernel's triggers are per instance too).  The stream walks one:
 * the top buffer after open, or, when the file has none, the first.
 * nr_buffers: at least 1; buffer_name: "" for the top buffer, NULL past
 * the last; buffer: the name of the one walked.  select_buffer: walk
 * NAME's records from its start (lost counts too): 0, -HIST_ENOENT if
 * there is no such buffer (message in hist_tracedat_error()), or
 * negative when its data cannot be read (the stream is then empty).
 * Versions 6 and 7 alike: the buffers are listed in the file's order,
 * version 6's top buffer first.
 */
uint32_t hist_tracedat_nr_buffers(const struct hist_tracedat *td);
const char *hist_tracedat_buffer_name(const struct hist_tracedat *td, uint32_t i);
const char *hist_tracedat_buffer(const struct hist_tracedat *td);
int hist_tracedat_select_buffer(struct hist_tracedat *td, const char *name);

/*
 * Next record of the whole trace, the per-CPU streams merged in time stamp
 * order (ties: lower CPU first).  1 and *rec (valid until the next call),
 * 0 at the end, negative on a corrupt file (see hist_tracedat_error()).
 * Lost events announced by a page are added to hist_tracedat_lost().
 * An error is not the end: the bad record ends its page (a chunk that does
 * not decompress is skipped) and the following call carries on.
 * A file cut short opens as long as its metadata is whole: each CPU
 * gives the records of its data up to the cut, and then one error that
 * says what is missing ("truncated CPU 1 data at offset ..."); damage
 * that no CPU's data shows (a cut trailing section) is one error after
 * the last record.
 * rec->file_offset is the record's file offset for uncompressed data and
 * the offset of its zstd chunk for compressed data.  Time stamps are the
 * raw trace clock (DATE/OFFSET options are not applied).
 */
int hist_tracedat_next(struct hist_tracedat *td, struct hist_ftrace_record *rec);
/* Start the record stream again from the beginning (lost counts too). */
int hist_tracedat_rewind(struct hist_tracedat *td);
/* Message of the last failure: "trace.dat: <what> at offset N". */
const char *hist_tracedat_error(const struct hist_tracedat *td);
/* Events CPU lost, as announced by the pages walked since open/rewind. */
uint64_t hist_tracedat_lost(const struct hist_tracedat *td, uint32_t cpu);
/* Pages of CPU walked since open/rewind that say events were lost before
 * them without storing how many (not counted by hist_tracedat_lost()). */
uint64_t hist_tracedat_lost_unknown(const struct hist_tracedat *td, uint32_t cpu);

/* saved_cmdlines: comm of PID, or NULL (a pid listed twice: the later). */
const char *hist_tracedat_cmdline(const struct hist_tracedat *td, int32_t pid);

/*
 * kallsyms: symbol of ADDR as the kernel's %ps (name) or, WITH_OFFSET, %pS
 * ("name+0xoff/0xsize", " [module]" appended for module symbols, in both
 * forms as the kernel does).  Returns the length written (truncated to
 * LEN - 1), or -1 when no symbol covers ADDR or the file has no kallsyms.
 * The signature matches hist_host.sym with TD as data.
 */
int hist_tracedat_sym(void *td, uint64_t addr, int with_offset, char *buf,
		      size_t len);

/*
 * kallsyms the other way: the address of the symbol NAME (N bytes, a core
 * or module symbol) into *ADDR.  Returns 0, or -1 when there is none.
 * The signature matches hist_host.sym_addr with TD as data.
 */
int hist_tracedat_sym_addr(void *td, const char *name, size_t n, uint64_t *addr);

/* hist_host.find_event over the file's formats (TD as data). */
int hist_tracedat_find_event_cb(void *td, const char *system, const char *name,
				struct hist_event_desc *out);

/* ---- trace.dat: additions ------------------------------------------- */

/*
 * hist_host.comm over saved_cmdlines (TD as data): 0 and COMM (truncated
 * to 15 characters), or -HIST_ENOENT for a pid the table lacks.
 */
int hist_tracedat_comm_cb(void *td, int32_t pid, char comm[16]);

/*
 * The CPU's record that follows the one hist_tracedat_next() returned
 * last, without consuming it: 1 and *rec, 0 if the CPU has no more (or an
 * error is pending on it).  Both records stay valid until the next call to
 * hist_tracedat_next().  For events that trail another on the same CPU,
 * e.g. ftrace:kernel_stack after an event when options/stacktrace is on.
 */
int hist_tracedat_peek_cpu(const struct hist_tracedat *td, uint32_t cpu,
			   struct hist_ftrace_record *rec);

/*
 * Events the kernel dropped on the CPU of the record hist_tracedat_next()
 * returned last, right before it (trace-cmd's "[N EVENTS DROPPED]"):
 * 0 when none, UINT64_MAX when the page only says that some were lost.
 */
uint64_t hist_tracedat_dropped(const struct hist_tracedat *td);

/* printk_formats: the trace_printk format at ADDR (between the quotes,
 * escapes kept as the kernel printed them), or NULL. */
const char *hist_tracedat_printk_fmt(const struct hist_tracedat *td, uint64_t addr);

/* UNAME option ("Linux vm 6.18.44 x86_64"), or "". */
const char *hist_tracedat_uname(const struct hist_tracedat *td);

/*
 * ns that trace-cmd adds to every time stamp for display (DATE and OFFSET
 * options).  Never applied to records: hist common_timestamp is the raw
 * clock.
 */
int64_t hist_tracedat_ts_offset(const struct hist_tracedat *td);

/*
 * Decompress zstd chunks on a worker thread, ahead of the reader: ON 1
 * (the default) when the file has at least 1 MiB of zstd data (below
 * that the thread costs more than it saves), 2 always, 0 never (in
 * line).  Records and their order are the same either way; the worker
 * roughly halves the reader's time on a spare core.
 * Call after open or hist_tracedat_rewind(), before the first
 * hist_tracedat_next(); -HIST_EBUSY otherwise.
 */
int hist_tracedat_set_prefetch(struct hist_tracedat *td, int on);

/* Sub-buffer layout of the file (header_page and the page size). */
const struct hist_ftrace_page_fmt *hist_tracedat_page_fmt(const struct hist_tracedat *td);

/* ---- raw per-CPU captures (trace_pipe_raw) -------------------------- */

/*
 * Records of raw sub-buffers read from per_cpu/cpuN/trace_pipe_raw, with
 * the page layout FMT: walk BUF (LEN bytes, a whole number of pages) and
 * call CB for each record; returns the number of records or a negative
 * errno (message in ERRBUF).  A non-zero return from CB stops the walk:
 * a negative one is returned as is, a positive one gives the count so far.
 * rec->file_offset is the record's offset in BUF.  CB may be NULL (count).
 */
long hist_ftrace_raw_walk(const struct hist_ftrace_page_fmt *fmt, const void *buf,
			  size_t len, uint32_t cpu,
			  int (*cb)(void *arg, const struct hist_ftrace_record *rec),
			  void *arg, char *errbuf, size_t errlen);

/* ---- perf.data ------------------------------------------------------ */

/*
 * hist_tracedat_open() and hist_tracedat_open_mem() also take the
 * perf.data of `perf record -e SYSTEM:EVENT ...`, written to a file or to
 * a pipe (`perf record -o -`), plain or zstd-compressed (-z): the formats,
 * printk formats and saved cmdlines come from its tracing data, the
 * records are the RAW payloads of its tracepoint samples (other events are
 * skipped), in time stamp order across CPUs as for a trace.dat, and its
 * LOST and LOST_SAMPLES records count in hist_tracedat_lost() and
 * hist_tracedat_dropped().  perf stores no kallsyms: hist_tracedat_sym()
 * finds nothing until hist_tracedat_set_kallsyms().  rec->file_offset is
 * the sample's offset in the file (in the decompressed data for -z).
 * Samples the reader cannot use, or a file cut short, are reported by
 * hist_tracedat_next() once, after every good record.
 */

/* "trace.dat", "perf.data" or "perf.data (pipe)". */
const char *hist_tracedat_format(const struct hist_tracedat *td);

/*
 * Kernel frames of the callchain (perf record -g) of the record
 * hist_tracedat_next() returned last, innermost first, at most MAX of
 * them: their number, or -1 when the recording has no callchains at all
 * (a trace.dat, whose stacks are ftrace:kernel_stack records of their own).
 */
int hist_tracedat_stack(const struct hist_tracedat *td, uint64_t *ips, unsigned max);

/*
 * The comm of task PID at time TS as perf's COMM and FORK records tell it
 * (perf.data only): 1 and COMM, or 0 if they say nothing about PID then
 * (fall back to hist_tracedat_cmdline()).  The records are read with the
 * samples, so TS is the time of a record hist_tracedat_next() returned
 * (the current one or an earlier one); the call belongs to the thread of
 * the record stream.
 */
int hist_tracedat_comm_at(const struct hist_tracedat *td, int32_t pid, uint64_t ts,
			  char comm[16]);

/*
 * 1 if a tracepoint was sampled (perf record -F, or -c N with N > 1):
 * the records are then a sample of the hits, not every hit.
 */
int hist_tracedat_sampled(const struct hist_tracedat *td);

/*
 * Use LEN bytes of /proc/kallsyms text for hist_tracedat_sym() when the
 * recording carries none (perf.data).  0, -HIST_EEXIST if it has its own,
 * or -HIST_ENOMEM.  Call before the lookups are shared with other threads.
 */
int hist_tracedat_set_kallsyms(struct hist_tracedat *td, const char *text, size_t len);

/*
 * A system-wide recording (perf record -a, trace-cmd record without -P):
 * hand out only the records the kernel's event pid filter would pass with
 * set_event_pid = PID and options/event-fork = 1, i.e. what hist triggers
 * of a tracefs instance gated that way see: the events of PID and of
 * every task forked from it, a sched_switch whose previous or next task
 * is one of them, a sched_waking or sched_wakeup(_new) whose woken task
 * is.  The forks come from a perf.data's FORK records, from a trace.dat's
 * sched_process_fork records as they go by (a trace.dat without them
 * follows PID alone).
 * PID 0 turns the gate off.  Call before the first hist_tracedat_next()
 * (or rewind after).  Context: the reader's thread; may allocate.
 * 0, -HIST_EINVAL for a negative PID, or -HIST_ENOMEM.
 */
int hist_tracedat_set_pid_gate(struct hist_tracedat *td, int32_t pid);

#ifdef __cplusplus
}
#endif
#endif
