/* SPDX-License-Identifier: MIT */
/*
 * histfs: a FUSE view of tracefs with the hist-trigger files a kernel
 * built with CONFIG_HIST_TRIGGERS has, served by libhist.
 *
 *   fs.c     the FUSE operations: path routing, pass-through of every
 *            real file, the virtual files, main()
 *   poll.c   poll(2) of the real files
 *   synfiles.c  synthetic events' trigger header, commands and filter
 *   hctx.c   one libhist context per trace instance (the top level and
 *            each instances/NAME): its private kernel instance and ring
 *            buffers (hist-live's tracefs.c, ring.c, host.c), command
 *            routing, and the text of the virtual files
 *
 * Locking: one mutex (hfs_lock) serialises every call into libhist and
 * every change of the context list; pass-through I/O never takes it, so
 * a blocking read of trace_pipe does not stall the hist files.
 */
#ifndef HISTFS_H
#define HISTFS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../hist-live/live.h"
#include "hist_synth.h"

#define HFS_PROG "histfs"

/* A growable text buffer (the content of a virtual file). */
struct hfs_buf {
	char *p;
	size_t len, cap;
	int oom;
};

int hfs_buf_write(void *arg, const char *s, size_t n);	/* hist_write_fn */
int hfs_buf_printf(struct hfs_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hfs_buf_free(struct hfs_buf *b);
/* The whole of the real file FD, from its start (fs.c). */
int hfs_read_real(int fd, struct hfs_buf *b);

struct hfs_cmdline {
	int32_t pid;
	char comm[16];
};

/* One trace instance as the user sees it, and libhist's state for it. */
struct hfs_ctx {
	char *name;		/* NULL: the top level; else instances/NAME */
	hist_ctx *ctx;
	struct live_host *host;
	struct live_tfs tfs;	/* root: the real tracefs; inst: ours */
	struct live_ring *ring;
	struct hist_host orig;	/* hist-live's host callbacks */
	char **known;		/* "SYS/EVENT" whose format libhist read */
	size_t nr_known;
	struct hfs_cmdline *cmdlines;	/* saved_cmdlines, reread per drain */
	size_t nr_cmdlines, cap_cmdlines;
	int cmdlines_stale;
	/* trace_marker writes made by histfs for a writer: the record is
	 * our thread's; feed() gives it the writer's pid (hctx_marker()) */
	struct hfs_marker { int32_t tid, pid; int strip_nl; } mq[256];
	uint32_t mq_head, mq_len;
	uint32_t print_id;	/* ftrace/print's type */
	char **enabled;		/* "SYS/EVENT" enabled in our instance */
	size_t nr_enabled;
	/* A drain's bound (hctx_drain()): once BOUNDED, each CPU's records
	 * past BUF_BYTES (its buffer's size: all it could hold when the
	 * bound began, so all recorded before) may be skipped, once LATE;
	 * SKIPPED counts them, reported with the kernel's losses. */
	uint64_t buf_bytes, *cpu_bytes;
	uint32_t nr_cpu_bytes, checks;
	/* pages read of each CPU in this drain (stop_reading()) */
	uint32_t *cpu_pages, buf_pages;
	uint64_t bound_start, skipped;
	int bounded, late, background;
	struct hfs_ctx *next;
};

/* Global state (fs.c owns it). */
struct hfs {
	int rootfd;			/* the real tracefs (O_PATH dir) */
	char root[PATH_MAX];		/* a path to it: /proc/self/fd/N */
	pthread_mutex_t lock;
	/* threads waiting for LOCK on a user's behalf: the drain thread
	 * cuts its drain short for them (hctx_drain_background()) */
	atomic_int waiting;
	struct hfs_ctx *ctxs;
	unsigned next_inst;		/* numbers our private instances */
	uint32_t kernel;		/* hist_ctx_opts.kernel */
	int quiet;
	/* Linux 4.17 to 5.1 (no error_log yet): the last hist command's
	 * error, shown at the end of every hist file until the next hist
	 * command (hctx_old_err_*) */
	char *old_err, *old_cmd;
	/* Linux 5.10 and 5.11: error_log entries of synthetic event
	 * definitions those kernels refused (hctx_old_synth()), newest last */
	char *synth_errs[8];
	unsigned nr_synth_errs;
};

extern struct hfs hfs;

/* ---- poll.c ---- */

struct fuse_pollhandle;
struct hfs_real_poll;
/* A poll of the real file FD (-1: a file of histfs, ready at once) as
 * the kernel answers it; when it is not ready and PH asks to be told, a
 * waiter (*RPP, made on first use) notifies PH once it is.  PH is taken. */
int hfs_real_poll(int fd, struct hfs_real_poll **rpp, struct fuse_pollhandle *ph,
		  unsigned *reventsp);
/* Before FD closes: the waiter stopped, its handle dropped. */
void hfs_real_poll_free(struct hfs_real_poll *rp);

/* ---- synfiles.c ---- */

/* The kernel's "# Available triggers:" header (both lines; "" if no
 * event without triggers was found), read once before the mount. */
extern char hfs_kheader[512];
void hfs_read_kernel_header(void);
/* A trigger command CMD other than a hist command for a synthetic
 * event: -EOPNOTSUPP for a command the kernel has (it would run it at the
 * event, in the traced task), -EINVAL for one it lacks, 0 for libhist (a
 * removal of one it has). */
int hfs_syn_generic(const char *cmd);
/* The filter file of synthetic event NAME (EV): the text written, a
 * failed one with its error as the kernel shows it, NULL for none.
 * hfs_syn_filter_set() after hist_event_set_filter(EV, CMD) returned RET
 * (ERR); hfs_syn_filter_prune() after synthetic events of C went (NULL:
 * all).  Callers hold hfs.lock. */
const char *hfs_syn_filter(const char *name, hist_event *ev);
void hfs_syn_filter_set(const char *name, hist_event *ev, const char *cmd, int ret,
			const struct hist_error *err);
void hfs_syn_filter_prune(struct hfs_ctx *c);

/* ---- hctx.c (callers hold hfs.lock) ---- */

/* The context of instance NAME (NULL: top level), created on first use
 * when CREATE.  NULL with *ERR (-errno) on failure. */
struct hfs_ctx *hctx_get(const char *name, int create, int *err);
/* Remove the context of instance NAME and its private instance. */
void hctx_drop(const char *name);
void hctx_drop_all(void);
/* Feed what the kernel has recorded so far (before a hist read), in a
 * bounded time: records on a CPU past what its buffer held when the
 * drain began are skipped (and counted) once HFS_DRAIN_GRACE_MS passed. */
void hctx_drain(struct hfs_ctx *c);
/* The drain thread's: unbounded until a user waits for hfs.lock
 * (hfs.waiting), then bounded as hctx_drain() without the grace. */
void hctx_drain_background(struct hfs_ctx *c);
#define HFS_DRAIN_GRACE_MS 100
/* The event SYS/NAME if libhist knows it already (no lookup). */
hist_event *hctx_known_event(struct hfs_ctx *c, const char *sys,
			     const char *name);
/* After triggers changed: enable in our instance exactly the kernel
 * events that have triggers.  0 or -errno. */
int hctx_rebind(struct hfs_ctx *c);
/* Nonzero when COMMAND (one trigger-file write, trimmed) is for libhist:
 * hist, !hist, enable_hist, disable_hist. */
int hctx_is_hist_cmd(const char *cmd);
/* Names of the synthetic events of C, one string each, NULL-terminated
 * (free with hctx_free_names).  */
char **hctx_synth_names(struct hfs_ctx *c);
void hctx_free_names(char **v);
/* Thread TID of histfs writes a trace_marker line for process PID: the
 * ftrace/print record it makes in C's buffers is PID's.  STRIP_NL: the
 * text did not end in a newline, the kernel added one after running the
 * event's triggers, so they saw the text without it. */
void hctx_marker(struct hfs_ctx *c, int32_t tid, int32_t pid, int strip_nl);
/* The last hctx_marker() did not reach the kernel. */
void hctx_marker_undo(struct hfs_ctx *c);
/* Kernels before 5.2 report a hist command's error in the hist files:
 * whether hfs.kernel is one, a hist command CMD (trimmed, "hist:..." or
 * "!hist:...") starting, its result (ERR: the command's hist_error), and
 * the text a hist file then ends with. */
int hctx_old_errors(void);
void hctx_old_err_start(const char *cmd);
void hctx_old_err_end(int ret, const struct hist_error *err);
int hctx_old_err_print(struct hfs_buf *out);
/* Kernels 5.10 and 5.11 parsed synthetic event definitions word by word
 * (5.12 rewrote it; libhist follows the rewrite): CMD ("NAME FIELDS",
 * after "s:[synthetic/]") as they did.  0 when they accepted it, else
 * -EINVAL with their entry in the top-level error_log. */
int hctx_old_synth(const char *cmd);
/* error_log's entries of hctx_old_synth(), cleared by a truncation */
void hctx_old_synth_clear(void);
/* The text of README's hist-trigger sections. */
const char *hctx_readme_hist(void);
/* error_log: the kernel's text KTEXT and libhist's entries, merged by
 * time stamp, the newest 8 kept. */
int hctx_error_log(struct hfs_ctx *c, const char *ktext, int top, struct hfs_buf *out);

#endif
