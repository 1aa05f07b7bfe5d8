/* SPDX-License-Identifier: MIT */
/*
 * The replay engine of hist-replay: a libhist host over a trace.dat.
 *
 * It opens a recording, creates a libhist context whose host callbacks
 * answer from the recording (event formats, the comm of a task at the
 * moment of each record, kallsyms, x86_64 system call names, kernel stacks
 * recorded by options/stacktrace), applies tracefs-style writes and feeds
 * every record of an event that has triggers through hist_event_hit().
 *
 * The conformance runner (test/test_conformance.c) links the same engine,
 * so the tool and the tests agree on every rule: what a write target
 * means, when a write attached to a trace_marker line takes effect, and
 * which comm a task had.
 */
#ifndef HIST_REPLAY_H
#define HIST_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libhist.h"
#include "hist_ftrace.h"

struct replay;

struct replay_opts {
	/* hist_ctx_opts.max_map_bits: 0 keeps the kernel's limit */
	uint32_t max_map_bits;
	/* hist_ctx_opts.sums: enum hist_sums (0: auto) */
	uint32_t sums;
	/* hist_ctx_opts.kernel (0: latest), or REPLAY_KERNEL_AUTO: the
	   version the recording's uname option names, else latest */
	uint32_t kernel;
	/*
	 * When a write is attached to a trace_marker line (see
	 * replay_at_marker()), apply it at the marker (0), or (1) at the
	 * writer's next write(2) system call entry after the marker when the
	 * recording has system call entries: a shell `echo CMD >> trigger`
	 * between two marker lines takes effect inside that write(2), after
	 * its sys_enter record.  Without system call records both behave the
	 * same.
	 */
	int marker_sync;
	/* print progress to stderr every million records */
	int progress;
	/* print warnings about the recording on stderr (a trigger needs
	 * kernel stacks the recording lacks, ...) */
	int warn;
	/*
	 * The ring buffer to replay (trace-cmd record -B NAME), "" for the
	 * top one.  NULL: the top buffer, or, when it has no records and
	 * exactly one instance has, that instance (with a note on stderr
	 * when warn is set).
	 */
	const char *instance;
	/* how messages call the recording (NULL: its path) */
	const char *name;
	/* perf.data: the kallsyms to resolve addresses with (NULL: see
	   replay_perf_kallsyms()) */
	const char *kallsyms;
	/* perf.data: feed only what set_event_pid=PID with event-fork would
	   pass (hist_tracedat_set_pid_gate()); 0: everything */
	int32_t pid_gate;

	/* ---- windows: which records reach the triggers ---- */
	/* CPUs whose records are fed: cpu_set[cpu] != 0 for cpu <
	 * nr_cpu_set; NULL feeds every CPU */
	const uint8_t *cpu_set;
	uint32_t nr_cpu_set;
	/* feed records with from <= ts < to; *_abs: a raw time stamp, else
	 * ns after the first record.  to 0: no end */
	uint64_t from, to;
	int from_abs, to_abs;
	/* ns: cut the fed span in windows this long (0: one); see
	 * replay_set_window_cb() */
	uint64_t interval;
};

/*
 * A window of replay_opts.interval ended: the histograms hold the hits of
 * [START, END) (raw time stamps; the last window ends at the last record
 * fed, or at `to`).  The engine clears every hist trigger after the call,
 * so the windows' tables add up to the whole (variables kept in the maps,
 * such as an onmatch() chain's time stamps, are cleared with them, as a
 * `:clear` on a live kernel does).
 */
typedef void (*replay_window_cb)(void *arg, uint64_t index, uint64_t start,
				 uint64_t end);
void replay_set_window_cb(struct replay *r, replay_window_cb cb, void *arg);
/* The time stamp of the first record of the buffer replayed (after
 * replay_run()). */
uint64_t replay_first_ts(const struct replay *r);
/* After replay_run(): the first and the last record read (raw time
 * stamps, 0 without records); returns the records read at or after the
 * start (--from), before the end (--to). */
uint64_t replay_span(const struct replay *r, uint64_t *first, uint64_t *last);

/* What a write did: for the caller's log of writes made during the run. */
struct replay_write_res {
	const char *target;	/* as given */
	const char *text;
	int rc;			/* 0 or -errno */
	const char *errlog;	/* error_log entries this write added ("" if none) */
	const char *msg;	/* the replay's own message when it, not libhist,
				   rejected the write (unknown target...), or NULL */
	const char *marker;	/* trace_marker text for a mid-run write, or NULL */
	uint64_t ts;		/* time stamp of the record that triggered it */
};

typedef void (*replay_write_cb)(void *arg, const struct replay_write_res *res);

/*
 * Open PATH and create the context.  NULL with a message (with the byte
 * offset for a corrupt file) in ERR.
 */
#define REPLAY_KERNEL_AUTO UINT32_MAX

struct replay *replay_open(const char *path, const struct replay_opts *opts,
			   char *err, size_t errlen);
void replay_close(struct replay *r);

hist_ctx *replay_ctx(struct replay *r);
/* The hist_ctx_opts.kernel the replay runs with (AUTO resolved). */
uint32_t replay_kernel(const struct replay *r);
/* The buffer replayed ("" for the top one). */
const char *replay_instance(const struct replay *r);
/*
 * The buffer --instance INST names in TD: INST itself, or "" (the top
 * buffer) for "top" when no instance has that name.  NULL when TD has
 * no such buffer, with ERR saying so and listing the ones it has.
 */
const char *replay_buffer_named(const struct hist_tracedat *td, const char *inst,
				char *err, size_t errlen);
struct hist_tracedat *replay_tracedat(struct replay *r);

/*
 * One write, as in the conformance cases' `triggers` file: TARGET is
 * SYSTEM/EVENT (TEXT goes to its trigger file), synthetic_events,
 * dynamic_events, kprobe_events, uprobe_events, or a tracefs path such as
 * /events/SYSTEM/EVENT/filter or /trace_clock.  The error_log is cleared
 * first; what the write logged is in replay_last_errlog() afterwards.
 * Returns 0 or a negative errno, as the kernel's write(2) would.
 */
int replay_write(struct replay *r, const char *target, const char *text);
/* error_log entries the last write added ("" if none). */
const char *replay_last_errlog(const struct replay *r);
/* The replay's own reason for the last failure (NULL: libhist's). */
const char *replay_last_msg(const struct replay *r);

/* A settings line (`trace_clock`, `options/...`): 0 or -errno. */
int replay_setting(struct replay *r, const char *path, const char *value);

/*
 * Apply TARGET/TEXT (as replay_write()) when the replay reaches the
 * ftrace:print record whose text, without its trailing newline, is
 * MARKER.  Several writes on one marker run in the order given; a marker
 * seen again fires again.  0 or -HIST_ENOMEM.
 */
int replay_at_marker(struct replay *r, const char *marker, const char *target,
		     const char *text);

/* Called for each write made during replay_run() (marker writes). */
void replay_set_write_cb(struct replay *r, replay_write_cb cb, void *arg);

/*
 * Feed the recording.  0 at the end of the records; negative if the
 * file is corrupt (message in replay_error(); the hits before the bad
 * record have been counted).
 */
int replay_run(struct replay *r);
const char *replay_error(const struct replay *r);
uint64_t replay_nr_records(const struct replay *r);

/* Events named by writes (targets, in first-write order). */
size_t replay_nr_events(const struct replay *r);
hist_event *replay_event(const struct replay *r, size_t i,
			 const char **system, const char **name);

/* Records of event ID replayed by replay_run(). */
uint64_t replay_records_of(const struct replay *r, uint32_t id);

/* Records of the recording per event name, after replay_run(). */
size_t replay_nr_counts(const struct replay *r);
int replay_count(const struct replay *r, size_t i, const char **system,
		 const char **name, uint64_t *count);

/*
 * Comm of PID at record number IDX (1-based, in replay order), as the
 * kernel's `current->comm` was then; used by the comm callback with the
 * current record.  Exposed for tests.
 */
void replay_comm_at(struct replay *r, int32_t pid, uint64_t idx, char comm[16]);

/* ---- pieces shared inside the engine ----------------------------- */

/* x86_64 system call names (syscalls_x86_64.c), hist_host.syscall_name */
const char *replay_syscall_name(void *data, uint64_t nr);

/* Per-task comm history and recorded kernel stacks (comm.c). */
struct replay_hist_db;
struct replay_hist_db *replay_db_build(const char *path, const char *buffer,
				       char *err, size_t errlen);
void replay_db_free(struct replay_hist_db *db);
/* 1 and COMM if the recording tells the comm of PID at record IDX */
int replay_db_comm(struct replay_hist_db *db, int32_t pid, uint64_t idx,
		   char comm[16]);
/* 1 if a task's name changed but no task_rename record says when: the
 * new name holds only from the next record that shows it */
int replay_db_names_uncertain(const struct replay_hist_db *db);
/* frames of the kernel stack recorded right after record IDX */
unsigned replay_db_stack(const struct replay_hist_db *db, uint64_t idx,
			 uint64_t *ips, unsigned max);
int replay_db_has_stacks(const struct replay_hist_db *db);
/* records of event ID in the whole recording */
uint64_t replay_db_count(const struct replay_hist_db *db, uint32_t id);

/* perf.data: load kallsyms for symbol keys (perf.c; no-op on trace.dat) */
void replay_perf_kallsyms(struct hist_tracedat *td, const char *path, const char *file,
			  int warn);

/* A growable text buffer and a hist_write_fn that appends to it. */
struct replay_buf {
	char *s;
	size_t len, cap;
	int oom;
};
int replay_buf_write(void *arg, const char *buf, size_t len);
int replay_buf_puts(struct replay_buf *b, const char *s);
void replay_buf_reset(struct replay_buf *b);
void replay_buf_free(struct replay_buf *b);

/* ---- hist-replay only (not linked into the tests) ----------------- */

struct replay_out_ev {
	hist_event *ev;
	const char *system, *name;
};

/* What a JSON document reports besides the histograms. */
struct replay_doc {
	const char *trace;
	const char *instance;		/* the buffer replayed, "" top */
	uint64_t records;
	const struct replay_out_ev *evs;
	size_t n;
	const char *errlog;
	struct hist_tracedat *td;	/* losses per CPU */
	const char *damage;		/* NULL: the trace read whole */
	int window;			/* --interval: the window's fields */
	uint64_t win_index, win_start, win_end;
};

/*
 * --json: write the histograms of DOC's events, the error log text and
 * the losses as one JSON document to OUT (json.c documents the shape);
 * a window's (DOC->window) on one line.  0, or -1 if a printer failed
 * (message on stderr).
 */
int replay_json(FILE *out, const struct replay_doc *doc);

/* --openmetrics and --quantiles (export.c) */
extern struct hist_print_opts replay_print_opts;
int replay_parse_quantiles(const char *arg);
int replay_openmetrics_format(const char *arg);
int replay_listen(const char *spec, const struct replay_out_ev *evs, size_t n,
		  struct hist_tracedat *td);
int replay_openmetrics(FILE *out, const struct replay_out_ev *evs, size_t n,
		       struct hist_tracedat *td);

#endif
