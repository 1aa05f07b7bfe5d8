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

/*
 * One cpu slot (hist_hit.cpu), on a cache line of its own.  WORD holds
 * the slot's OWNER, the first thread that hit through it (set once by
 * CAS from 0, never reset; only it updates the slot's per-cpu sums, with
 * plain stores), and in bit 0 BUSY: set by the owner while one of its
 * hits runs, so that a hit interrupting it (a signal handler) takes the
 * shared path.  One word, so that the owner's check is one compare: a
 * hit owns the slot exactly when WORD equals its SELF (owner, not busy).
 */
struct hist__cpu {
	uintptr_t word;
} HIST__ALIGNED(HIST__CACHELINE);

#define HIST__CPU_BUSY ((uintptr_t)1)

struct hist_ctx {
	struct hist_host host;
	struct hist_ctx_opts opts;
	/* opts.nr_cpus slots, see hist__slot_enter(); CPUS_RAW is the
	 * allocation (the allocator does not align to cache lines) */
	struct hist__cpu *cpus;
	void *cpus_raw;
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

/* The shared (atomic) path of the maps, for hits without a cpu slot. */
#define HIST__SLOT_SHARED UINT32_MAX

#ifndef HIST_FREESTANDING
/* The calling thread's identity: the address of a thread-local word
 * (aligned: bit 0 is free for hist__cpu's BUSY). */
extern _Thread_local uint64_t hist__self_tls HIST__INTERNAL;
#define HIST__SELF ((const void *)&hist__self_tls)
#define HIST__HAVE_SELF 1
#else
/* No threads to tell apart: every hit takes the shared path. */
#define HIST__SELF ((const void *)0)
#define HIST__HAVE_SELF 0
#endif

/*
 * Per-cpu sums.  A host's hit whose thread owns its cpu slot (the first
 * thread to hit through it) and does not interrupt one of its own hits
 * updates the maps with plain stores into that slot's copy of the sums;
 * every other hit (another thread on the same slot, a signal handler on
 * the owner, a generated synthetic event) uses the maps' atomic shared
 * copy.  Totals are exact either way.  The owner check is one relaxed
 * load; BUSY has one writer (the owner), and the signal fences order its
 * stores around the updates as a handler on this thread sees them.
 * Returns the slot (BUSY set; call hist__slot_release()), or SLOT_SHARED.
 */
static inline uint32_t hist__slot_take(struct hist__cpu *cpus, uint32_t nr_cpus, uint32_t cpu)
{
	uint32_t slot = cpu < nr_cpus ? cpu : cpu % nr_cpus;
	struct hist__cpu *c = &cpus[slot];
	uintptr_t self = (uintptr_t)HIST__SELF;
	/* Relaxed: the owner part is written once, BUSY only by the owner;
	 * only the owner's own thread, not busy, compares equal. */
	uintptr_t w = hist__load_relaxed(&c->word);

	if (!HIST__HAVE_SELF)
		return HIST__SLOT_SHARED;
	if (hist__unlikely(w != self)) {
		/* Another owner, or this one busy (we interrupt its hit).
		 * Acq_rel: claims a free slot once; orders nothing else. */
		if (w || !hist__cas_acq_rel(&c->word, &w, self))
			return HIST__SLOT_SHARED;
	}
	hist__store_relaxed(&c->word, self | HIST__CPU_BUSY);
	hist__signal_fence();
	return slot;
}

static inline void hist__slot_release(struct hist__cpu *cpus, uint32_t slot)
{
	struct hist__cpu *c;

	if (slot == HIST__SLOT_SHARED)
		return;
	hist__signal_fence();
	/* Relaxed: as in hist__slot_take(); clears BUSY.  Reloaded rather
	 * than rebuilt from SELF, which the hit would otherwise keep in a
	 * register across the map's probes. */
	c = &cpus[slot];
	hist__store_relaxed(&c->word, hist__load_relaxed(&c->word) & ~HIST__CPU_BUSY);
}

/* The same on CTX's slots (hist__slot_take() with a copy of CTX->cpus
 * and nr_cpus serves a hit that has them at hand). */
static inline uint32_t hist__slot_enter(struct hist_ctx *ctx, uint32_t cpu)
{
	return hist__slot_take(ctx->cpus, ctx->opts.nr_cpus, cpu);
}

static inline void hist__slot_exit(struct hist_ctx *ctx, uint32_t slot)
{
	hist__slot_release(ctx->cpus, slot);
}

/* hist_event_hit() for a record generated DEPTH levels inside a hit
 * through cpu slot SLOT (DEPTH 0: the slot is taken here). */
void hist__event_hit(struct hist_event *ev, const void *rec, size_t len,
		     const struct hist_hit *hit, uint32_t depth, uint32_t slot) HIST__INTERNAL;

/* Time for error_log stamps. */
uint64_t hist__ctx_now(const struct hist_ctx *ctx) HIST__INTERNAL;

#endif
