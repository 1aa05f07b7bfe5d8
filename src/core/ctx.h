/* SPDX-License-Identifier: MIT */
/*
 * The context (one trace instance): its events, synthetic events, named
 * histogram groups, error_log and the list of memory retired by removals.
 * Everything here is control-thread state except where marked.
 */
#ifndef HIST_CTX_H
#define HIST_CTX_H

#include "schema/schema.h"

#define HIST__ERRLOG_MAX 8	  /* entries kept, the oldest is recycled */
#define HIST__CMD_MAX 4096	  /* a trigger write is < PAGE_SIZE */
#define HIST__LOC_MAX 128

struct hist__errlog_entry {
	uint64_t ts_ns;
	uint32_t pos;
	int msg;
	char loc[HIST__LOC_MAX];
	char cmd[HIST__CMD_MAX + 8];
};

struct hist_ctx {
	struct hist_host host;
	struct hist_ctx_opts opts;
	struct hist_event *events;
	struct hist__synth *synths;
	struct hist__named *named;
	struct hist__retired *retired;
	/* error_log ring: preallocated, so logging an error never allocates */
	struct hist__errlog_entry log[HIST__ERRLOG_MAX];
	uint32_t log_head, log_count;
	uint32_t tracing_off;	/* traceon/traceoff state, relaxed */
};

/* Add EV described by DESC to CTX (no name check).  0 or -errno. */
int hist__ctx_add_event(struct hist_ctx *ctx, const struct hist_event_desc *desc,
			struct hist_event **out) HIST__INTERNAL;
/* Unlink EV; its memory is retired (freed after the next grace period). */
void hist__ctx_del_event(struct hist_ctx *ctx, struct hist_event *ev) HIST__INTERNAL;
struct hist_event *hist__ctx_find_event(struct hist_ctx *ctx, const char *system,
					const char *name) HIST__INTERNAL;

/*
 * Append an error_log entry: LOC ("hist:sched:sched_switch",
 * "synthetic_events", ...), the command echo CMD (N bytes), the message and
 * the caret position.  Never allocates.
 */
void hist__errlog_add(struct hist_ctx *ctx, const char *loc, const char *cmd,
		      size_t n, int msg, uint32_t pos) HIST__INTERNAL;

/*
 * Free P with FREE_FN once no hist_event_hit() can be using it: at once
 * after host->synchronize(), else at hist_ctx_reclaim()/destroy.  NODE is
 * storage inside P (or freed by FREE_FN with it): retiring never
 * allocates, so a removal never has to choose between failing and leaking.
 */
void hist__retire(struct hist_ctx *ctx, struct hist__retired *node,
		  void (*free_fn)(void *p), void *p) HIST__INTERNAL;

/* hist_event_hit() for a record generated DEPTH levels inside a hit. */
void hist__event_hit(struct hist_event *ev, const void *rec, size_t len,
		     const struct hist_hit *hit, uint32_t depth) HIST__INTERNAL;

/* Time for error_log stamps. */
uint64_t hist__ctx_now(const struct hist_ctx *ctx) HIST__INTERNAL;

#endif
