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
 *              from /proc, kernel symbols from /proc/kallsyms
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
/* Path of INST/REL into BUF. */
const char *tfs_path(const struct live_tfs *t, const char *rel, char *buf,
		     size_t len);

/* ---- host.c ---- */

struct live_host;

struct live_host *host_create(struct live_tfs *t);
void host_free(struct live_host *h);
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

/* ---- ring.c ---- */

struct live_ring;

/* Open per_cpu/cpu* /trace_pipe_raw of T's instance.  NULL with ERR. */
struct live_ring *ring_open(struct live_tfs *t, char *err, size_t errlen);
void ring_close(struct live_ring *r);
/*
 * Read what the per-CPU buffers hold now and feed the records that are
 * complete (all of them when FINAL) to FEED, the CPUs merged in time
 * stamp order.  Returns the number of records fed (0: nothing was
 * waiting), or -1 with a message on stderr.
 */
long ring_drain(struct live_ring *r, int final,
		void (*feed)(void *arg, const struct hist_ftrace_record *rec),
		void *arg);
/* Events the kernel lost (pages said so), records read so far. */
uint64_t ring_lost(const struct live_ring *r);
uint64_t ring_records(const struct live_ring *r);

/* x86_64 system call names (from hist-replay's table) */
const char *replay_syscall_name(void *data, uint64_t nr);

#endif
