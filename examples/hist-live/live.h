/* SPDX-License-Identifier: MIT */
/*
 * hist-live: hist triggers for a running kernel built without
 * CONFIG_HIST_TRIGGERS.  The kernel records the events (tracefs, ring
 * buffer); libhist does what the kernel's hist triggers would do with
 * them.  Four parts:
 *
 *   tracefs.c  find or mount tracefs, a private instance (or the top-level
 *              buffer), file writes that are undone on exit
 *   host.c     the libhist host: event formats from tracefs, task names
 *              (comms.c, else /proc), kernel symbols from /proc/kallsyms
 *   comms.c    task names as the kernel had them at each record
 *   ring.c     per-CPU trace_pipe_raw pages, merged in time stamp order
 *   main.c     options, the loop, printing
 */
#ifndef HIST_LIVE_H
#define HIST_LIVE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "libhist.h"
#include "hist_ftrace.h"

#define PROG "hist-live"

/* ---- tracefs.c ---- */

/* snprintf for paths: 0, or -1 if BUF was too small (truncated). */
int live_fmt(char *buf, size_t len, const char *fmt, ...);

/* One file changed by us, and what it held before. */
struct live_undo {
	char *path;
	char *old;
};

struct live_tfs {
	char root[PATH_MAX];	/* the tracefs mount */
	char inst[PATH_MAX];	/* the instance we trace in (root with --top) */
	int mounted;		/* we mounted tracefs: unmount on close */
	int instance;		/* we created inst: remove it on close */
	struct live_undo *undo;
	size_t nr_undo, cap_undo;
};

/*
 * Find tracefs (DIR, or the mount in /proc/mounts, or mount it on
 * /sys/kernel/tracing) and, unless TOP, create a private instance.
 * 0, or -1 with a message in ERR.
 */
int tfs_open(struct live_tfs *t, const char *dir, int top, char *err,
	     size_t errlen);
/* Undo every remembered write (newest first), remove the instance,
 * unmount what we mounted.  Safe to call twice. */
void tfs_close(struct live_tfs *t);
/* Read ROOT/REL (or INST/REL when IN_INST) into a malloc'ed, NUL
 * terminated buffer.  NULL with errno set on failure. */
char *tfs_read(const struct live_tfs *t, const char *rel, int in_inst,
	       size_t *len);
/* Write VAL to INST/REL; with REMEMBER, the old contents (the bracketed
 * word for a choice file like trace_clock) are restored by tfs_close().
 * 0 or -errno. */
int tfs_write(struct live_tfs *t, const char *rel, const char *val,
	      int remember);
/* Write VAL to INST/REL opened without O_TRUNC: for a pid list, adds
 * to it (a truncating write of set_event_notrace_pid re-registers the
 * kernel's pid filter, see examples/histfs/hctx.c).  0 or -errno. */
int tfs_append(struct live_tfs *t, const char *rel, const char *val);
/* Path of INST/REL into BUF. */
const char *tfs_path(const struct live_tfs *t, const char *rel, char *buf,
		     size_t len);
/* Remove the instances TOOL.PID and TOOL.PID.N under the tracefs at ROOT
 * whose process is gone (or whose pid now belongs to a process started
 * after the instance was made), saying so on stderr unless QUIET: what a
 * SIGKILLed hist-live or histfs left recording.  Returns how many were
 * removed, or -1 if one could not be. */
int tfs_reap(const char *root, const char *tool, int quiet);

/*
 * The filter of trigger command TEXT ("hist:... if FILTER"), as the
 * kernel splits it: the command ends at the first blank, and what follows
 * is a filter if it starts with "if".  *LEN gets the command's length.
 * NULL if there is no filter.
 */
const char *tfs_cmd_filter(const char *text, size_t *len);
/* Add "(F)" (F's first FLEN bytes) to the disjunction *S of *N bytes
 * (NULL and 0 to start), " || " between, for an event's filter file.
 * 0, or -1 with *S freed and NULL (no memory). */
int tfs_filter_or(char **s, size_t *n, const char *f, size_t flen);
/*
 * Whether the kernel's event filter FILTER is false for every record the
 * task PID, named COMM, makes: some conjunct of each disjunct is
 * "common_pid == N" with another N, or "comm == NAME" (COMM, or comm
 * where the event has no field of that name: COMM_FIELD 0) with a NAME
 * that is not a pattern and neither a prefix of COMM nor COMM of it.
 * Anything else (negation, other operators) counts as passing: 0.
 */
int tfs_filter_excludes(const char *filter, const char *comm, int32_t pid, int comm_field);

/* ---- host.c ---- */

struct live_host;

struct live_host *host_create(struct live_tfs *t);
void host_free(struct live_host *h);
/* The time the comm cache ages by (a second's resolution), read once
 * per drain instead of per hit. */
void host_tick(struct live_host *h);
/* The libhist host callbacks, with the live_host as data. */
void host_fill(struct live_host *h, struct hist_host *out);
/* After the triggers are in: the events that have triggers (their IDs
 * are fed), in the order formats were read.  Returns how many. */
size_t host_bind(struct live_host *h, hist_ctx *ctx);
size_t host_nr_bound(const struct live_host *h);
hist_event *host_bound(const struct live_host *h, size_t i,
		       const char **system, const char **name);
/* The event of record type ID, or NULL if we do not feed it. */
hist_event *host_event_by_id(const struct live_host *h, uint32_t id);
/* Clock a trigger asked for (clock=), or NULL. */
const char *host_clock(const struct live_host *h);
/* The task-name tracker the comm callback asks first (comms.c). */
struct live_comms *host_comms(struct live_host *h);

/* ---- comms.c ---- */

struct live_comms;

struct live_comms *comms_create(void);
void comms_free(struct live_comms *c);
/*
 * Enable in T's instance the events that change task names
 * (task/task_newtask, task/task_rename, sched/sched_process_exit;
 * REMEMBER as tfs_write()), then seed the names from /proc.  Call it
 * before any trigger's event is enabled, with tracing on.  0, or
 * -errno (the tracker then stays empty: /proc answers).
 */
int comms_start(struct live_comms *c, struct live_tfs *t, int remember);
/* Is SYS/NAME one of the tracking events (whether comms_start() ran or
 * will run)?  Their records must all be read: no kernel filter on them. */
int comms_event(const struct live_comms *c, const char *sys, const char *name);
/* Is record type TYPE one of them? */
int comms_type(const struct live_comms *c, uint32_t type);
/* Apply a tracking record, in record order, after feeding it to the
 * triggers (if any): at a rename, the event still has the old name. */
void comms_record(struct live_comms *c, const struct hist_ftrace_record *rec);
/* After each drain, with the events the kernel lost so far (ring_lost()):
 * ages exited tasks out, and makes the names known before a new loss
 * unsure. */
void comms_drained(struct live_comms *c, uint64_t lost);
/* PID's name into OUT: 0 as at the record being fed, 1 unsure (the
 * kernel lost records since it was learned), -1 not known. */
int comms_lookup(const struct live_comms *c, int32_t pid, char out[16]);
/* Entries held (tests, memory bounds). */
size_t comms_size(const struct live_comms *c);

/* ---- ring.c ---- */

struct live_ring;
struct pollfd;

/* Events one CPU's buffer lost since ring_open(): the growth of the
 * kernel's per_cpu/cpuN/stats counters, and what the pages said. */
struct ring_loss {
	uint32_t cpu;
	uint64_t overrun;	/* overwritten before we read them */
	uint64_t commit_overrun;	/* overwritten while being written */
	uint64_t dropped;	/* refused: the buffer was full (no overwrite) */
	uint64_t pages;		/* the pages' "missed events" (a lower bound) */
	uint64_t unknown;	/* pages that said "some" without a count */
	uint64_t lost;		/* the total: overrun + commit_overrun + dropped,
				   or pages where stats is unreadable */
};

/* Open per_cpu/cpu* /trace_pipe_raw of T's instance (non-blocking) and
 * read the loss counters' baseline.  NULL with ERR. */
struct live_ring *ring_open(struct live_tfs *t, char *err, size_t errlen);
void ring_close(struct live_ring *r);
/* Ordered (the default): records are merged across CPUs in time stamp
 * order, as inter-event triggers need.  Unordered: each page is fed as it
 * is read, CPU by CPU (cheaper; fine when every trigger only counts). */
void ring_set_ordered(struct live_ring *r, int ordered);
/*
 * STOP (NULL: none, the default) is asked before each page a drain that
 * is not FINAL reads, with the CPU and whether that CPU's reading has
 * passed the drain's marker (ordered mode: what it holds next is newer
 * than the drain and would wait in memory for the next one); non-zero
 * ends the drain's reading (the CPU is then read only in part, which
 * bounds the merge as usual).  What stays unread stays in the kernel's
 * buffer, which counts what it overwrites (ring_lost()).
 */
void ring_set_stop(struct live_ring *r, int (*stop)(void *arg, uint32_t cpu, int past_sync),
		   void *arg);
/* TYPE is ftrace:kernel_stack's ID (options/stacktrace is on): attach
 * those records to the event before them.  Implies ordered. -1: off. */
void ring_set_stack_type(struct live_ring *r, int type);
/* During FEED: the kernel stack recorded with the record being fed
 * (innermost first), or NULL. */
const uint64_t *ring_stack(const struct live_ring *r, uint32_t *nr);
/* Fill FDS (at most MAX) with the per-CPU descriptors, POLLIN: readable
 * once the CPU's buffer is buffer_percent full.  Returns how many. */
size_t ring_pollfds(const struct live_ring *r, struct pollfd *fds, size_t max);
/*
 * Read what the per-CPU buffers hold now and feed the records that are
 * complete (all of them when FINAL) to FEED, the CPUs merged in time
 * stamp order when ordered.  Updates the loss counters.  Returns the
 * number of records fed (0: nothing was waiting), or -1 with a message on
 * stderr.
 */
long ring_drain(struct live_ring *r, int final,
		void (*feed)(void *arg, const struct hist_ftrace_record *rec),
		void *arg);
/* Events the kernel lost (all CPUs, as of the last drain), records read
 * so far. */
uint64_t ring_lost(const struct live_ring *r);
uint64_t ring_records(const struct live_ring *r);
/* Per CPU (I < ring_nr_cpus()): the losses as of the last drain. */
uint32_t ring_nr_cpus(const struct live_ring *r);
const struct ring_loss *ring_cpu_loss(const struct live_ring *r, uint32_t i);
/* The worst drain's (records read + lost) / records read: how many times
 * bigger the buffer would have had to be (1: nothing lost). */
double ring_burst(const struct live_ring *r);

/* x86_64 system call names (from hist-replay's table) */
const char *replay_syscall_name(void *data, uint64_t nr);

#endif
