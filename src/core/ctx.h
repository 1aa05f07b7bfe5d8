/* SPDX-License-Identifier: MIT */
/*
 * The context (one trace instance): its events, synthetic events, named
 * histogram groups, error_log and the list of memory retired by removals.
 *
 * Two kinds of threads use it.  The control thread (one at a time: the
 * host serialises commands, reads and context calls) owns everything
 * here but the cpu slots and what the hits read through a published
 * trigger list.  Hit threads (any number, and signal handlers on them)
 * call hist__event_hit() and the slot functions, which never lock,
 * allocate or block; each prototype says which kind may call it and what
 * it orders.  core/trigger.h states the trigger lists' part: a list is
 * published with a release store that a hit's acquire pairs with, and
 * whatever a removal unlinks is retired, not freed, until no hit can
 * still hold it (hist__retire()).
 *
 * Layers (README "Architecture"): common < map schema < filter expr <
 * [core] < synth < actions < parse output < api < ftrace.
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
 * One cpu slot (hist_hit.cpu), on a cache line of its own.  OWNER is the
 * first thread that hit through it: set once by CAS from 0, never reset,
 * only read afterwards.  Only the owner updates the slot's per-cpu sums,
 * with single-instruction adds (hist__add_local()), so a signal handler
 * that interrupts one of its hits and hits through the same slot adds to
 * the same words without losing either update.
 */
struct hist__cpu {
	uintptr_t owner;
	/*
	 * The state, but for the tag, of an element this slot created and
	 * adds to inline (hist__map_home_state()), with HIST__MAP_NOT_HOME
	 * once two threads own slots (never reset): what the first probe of
	 * a hit through this slot compares with, read from the line that the
	 * owner check has just loaded.
	 */
	uint32_t home;
	/*
	 * Used in the entry after the last slot only (not a slot): 0, or
	 * HIST__MAP_NOT_HOME once two threads own slots (never reset).
	 * Every map of the context reads it (hist_map_params.multi), so it
	 * has a line of its own that is written once.
	 */
	uint32_t multi;
} HIST__ALIGNED(HIST__CACHELINE);

/* The word that says the slots of CTX have more than one owner thread. */
#define HIST__CTX_MULTI(ctx) (&(ctx)->cpus[(ctx)->opts.nr_cpus].multi)

struct hist__perr;
struct hist__trigger;
/* The signature of hist__hist_command() (api/api.h). */
typedef int (*hist__command_fn)(struct hist_event *ev, const char *params, size_t n,
				bool remove, const char *echo, size_t echo_n,
				struct hist__perr *pe, struct hist__trigger **out);

struct hist_ctx {
	struct hist_host host;
	/* hist__hist_command(), installed by hist_ctx_create(): actions/
	 * registers the hidden histograms of field variables through it,
	 * as the kernel's actions reach the hist command through its
	 * event_command, so that nothing below api/ calls up into it */
	hist__command_fn hist_command;
	struct hist_ctx_opts opts;
	/* opts.nr_cpus slots, see hist__slot_enter(); CPUS_RAW is the
	 * allocation (the allocator does not align to cache lines) */
	struct hist__cpu *cpus;
	void *cpus_raw;
	struct hist_event *events;
	struct hist__synth *synths;
	/* named groups (name=) by name, index.c; NAMED_CMPS counts the
	 * names hist__named_find() compared (test_triggers: linear) */
	struct hist__named **named_tab;
	uint32_t named_mask, nr_named;
	uint64_t named_cmps;
	/* list steps of hist__tlist_nth_hist() (test_triggers: linear) */
	uint64_t nth_steps;
	struct hist__retired *retired;
	/* error_log ring: preallocated, so logging an error never allocates */
	struct hist__errlog_entry log[HIST__ERRLOG_MAX];
	uint32_t log_head, log_count;
	uint32_t tracing_off;	/* traceon/traceoff state, relaxed */
};

/* Add EV described by DESC to CTX (no name check).  0 or -errno.
 * Context: control thread; allocates.  Hits reach EV only through the
 * host's pointer, which it hands to its hit threads itself. */
int hist__ctx_add_event(struct hist_ctx *ctx, const struct hist_event_desc *desc,
			struct hist_event **out) HIST__INTERNAL;
/* Unlink EV; its memory is retired (freed after the next grace period,
 * hist__retire()), so a hit still inside it finishes safely.
 * Context: control thread. */
void hist__ctx_del_event(struct hist_ctx *ctx, struct hist_event *ev) HIST__INTERNAL;
/* The event SYSTEM:NAME of CTX, or NULL.  Context: control thread (the
 * event list is control-thread state). */
struct hist_event *hist__ctx_find_event(struct hist_ctx *ctx, const char *system,
					const char *name) HIST__INTERNAL;

/*
 * Append an error_log entry: LOC ("hist:sched:sched_switch",
 * "synthetic_events", ...), the command echo CMD (N bytes), the message and
 * the caret position.  Never allocates.  Context: control thread (the
 * ring is unsynchronised; hits never log).
 */
void hist__errlog_add(struct hist_ctx *ctx, const char *loc, const char *cmd,
		      size_t n, int msg, uint32_t pos) HIST__INTERNAL;

/*
 * Free P with FREE_FN once no hist_event_hit() can be using it: at once
 * after host->synchronize(), else at hist_ctx_reclaim()/destroy.  NODE is
 * storage inside P (or freed by FREE_FN with it): retiring never
 * allocates, so a removal never has to choose between failing and leaking.
 * The caller has already unpublished P (a release store of the list that
 * no longer holds it); a hit that loaded the old list before that store
 * may use P until the grace period ends.  Context: control thread; may
 * block in host->synchronize().
 */
void hist__retire(struct hist_ctx *ctx, struct hist__retired *node,
		  void (*free_fn)(void *p), void *p) HIST__INTERNAL;

/* The shared (atomic) path of the maps, for hits without a cpu slot. */
#define HIST__SLOT_SHARED UINT32_MAX

#if HIST__HAVE_THREAD_POINTER
/* The calling thread's identity, unique among the threads alive at
 * once: its thread pointer (one load), */
#define HIST__SELF ((const void *)hist__thread_pointer())
#define HIST__HAVE_SELF 1
#elif !defined(HIST_FREESTANDING)
/* or the address of a thread-local word. */
extern _Thread_local uint64_t hist__self_tls HIST__INTERNAL;
#define HIST__SELF ((const void *)&hist__self_tls)
#define HIST__HAVE_SELF 1
#else
/* No threads to tell apart: every hit takes the shared path. */
#define HIST__SELF ((const void *)0)
#define HIST__HAVE_SELF 0
#endif

/*
 * Claim the free slot C of CPUS (NR_CPUS slots) for the thread SELF:
 * false when another thread claimed it first.  The first claim by a
 * second thread sets the MULTI word (HIST__CTX_MULTI()).  Ordering:
 * sequentially consistent claim and owner loads, so that of two threads
 * claiming their first slots at once at least one sees the other and
 * sets MULTI; MULTI and HOME then change with relaxed stores, once.
 * Context: any hit thread, lock-free (a CAS per slot, once per slot).
 */
bool hist__slot_claim(struct hist__cpu *cpus, uint32_t nr_cpus, struct hist__cpu *c,
		      uintptr_t self) HIST__INTERNAL;

/* The slot of hist_hit.cpu CPU among NR_CPUS. */
static inline uint32_t hist__slot_index(uint32_t nr_cpus, uint32_t cpu)
{
	return cpu < nr_cpus ? cpu : cpu % nr_cpus;
}

/* Whether the calling thread owns slot C (one load and compare). */
static inline bool hist__slot_mine(const struct hist__cpu *c)
{
	/* Relaxed: the owner is written once; only its own thread compares
	 * equal, and that thread wrote it. */
	return HIST__HAVE_SELF && hist__load_relaxed(&c->owner) == (uintptr_t)HIST__SELF;
}

/* ORed by hist__slot_peek() into a slot no thread owns yet. */
#define HIST__SLOT_FREE 0x80000000u

/*
 * hist__slot_own() without the claim: the slot, HIST__SLOT_SHARED, or a
 * free slot with HIST__SLOT_FREE ORed in (once per slot: the caller then
 * takes a path with hist__slot_settle(), which claims it).  The hot paths
 * use this, so that they make no call and keep no register for one.
 */
static inline uint32_t hist__slot_peek(struct hist__cpu *cpus, uint32_t nr_cpus, uint32_t cpu)
{
	uint32_t slot = hist__slot_index(nr_cpus, cpu);
	/* Relaxed: as in hist__slot_mine(). */
	uintptr_t w = hist__load_relaxed(&cpus[slot].owner);

	if (!HIST__HAVE_SELF)
		return HIST__SLOT_SHARED;
	if (hist__likely(w == (uintptr_t)HIST__SELF))
		return slot;
	return w ? HIST__SLOT_SHARED : slot | HIST__SLOT_FREE;
}

/* SLOT from hist__slot_peek() as hist__slot_own() would have returned it:
 * a free slot claimed, if no other thread claims it first. */
static inline uint32_t hist__slot_settle(struct hist__cpu *cpus, uint32_t nr_cpus, uint32_t slot)
{
	if (hist__likely(slot == HIST__SLOT_SHARED || !(slot & HIST__SLOT_FREE)))
		return slot;
	slot &= ~HIST__SLOT_FREE;
	return hist__slot_claim(cpus, nr_cpus, &cpus[slot], (uintptr_t)HIST__SELF)
		       ? slot : HIST__SLOT_SHARED;
}

/*
 * Per-cpu sums.  A hit whose thread owns its cpu slot (the first thread
 * to hit through it) updates the maps' copy of that slot with
 * hist__add_local(); every other hit (another thread on the same slot)
 * uses the maps' atomic shared copy.  Totals are exact either way.  The
 * owner check is one relaxed load and compare, and nothing is written
 * per hit: nesting (a handler, a generated synthetic event) needs no
 * flag, since the owner's adds are each one instruction.
 * Returns the slot, claimed if it was free, or SLOT_SHARED.
 */
static inline uint32_t hist__slot_own(struct hist__cpu *cpus, uint32_t nr_cpus, uint32_t cpu)
{
	return hist__slot_settle(cpus, nr_cpus, hist__slot_peek(cpus, nr_cpus, cpu));
}

/* The same on CTX's slots (hist__slot_own() with a copy of CTX->cpus
 * and nr_cpus serves a hit that has them at hand). */
static inline uint32_t hist__slot_enter(struct hist_ctx *ctx, uint32_t cpu)
{
	return hist__slot_own(ctx->cpus, ctx->opts.nr_cpus, cpu);
}

/* hist_event_hit() for a record generated DEPTH levels inside a hit
 * through cpu slot SLOT (DEPTH 0: the slot is taken here).  Ordering:
 * acquires EV's trigger list (pairs with hist__triggers_publish()'s
 * release).  Context: any hit thread or signal handler; never locks,
 * allocates or blocks. */
void hist__event_hit(struct hist_event *ev, const void *rec, size_t len,
		     const struct hist_hit *hit, uint32_t depth, uint32_t slot) HIST__INTERNAL;

/* Time for error_log stamps (host->clock, else 0).  Context: control
 * thread. */
uint64_t hist__ctx_now(const struct hist_ctx *ctx) HIST__INTERNAL;

#endif
