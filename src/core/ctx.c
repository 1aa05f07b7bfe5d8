/* SPDX-License-Identifier: MIT */
/* The context at run time: events, error_log entries, reclamation, the cpu
 * slots and the general hit (create/destroy: api/ctx.c). */
#include "core/ctx.h"
#include "map/map.h"
#include "core/trigger.h"
#include "common/fmt.h"

#define NEST_MAX 4 /* the kernel's task, softirq, irq, NMI levels */
#if !HIST__HAVE_THREAD_POINTER && !defined(HIST_FREESTANDING)
_Thread_local uint64_t hist__self_tls;
#endif

bool hist__slot_claim(struct hist__cpu *cpus, uint32_t nr_cpus, struct hist__cpu *c,
		      uintptr_t self)
{
	uintptr_t w = 0;
	uint32_t i;

	/*
	 * Seq_cst, the claim and the loads below: two threads claiming their
	 * first slots at once cannot both miss the other's claim (in the one
	 * order of all seq_cst operations, the later claim precedes its
	 * thread's loads), so one of them sets MULTI.  Once per slot.
	 */
	if (!hist__cas_seq_cst(&c->owner, &w, self))
		return false;
	for (i = 0; i < nr_cpus; i++) {
		w = hist__load_seq_cst(&cpus[i].owner);
		if (w && w != self)
			break;
	}
	if (i == nr_cpus)
		return true;
	/* Relaxed: mode words the hits poll; set once, never reset. */
	hist__store_relaxed(&cpus[nr_cpus].multi, HIST__MAP_NOT_HOME);
	for (i = 0; i < nr_cpus; i++)
		hist__or_relaxed(&cpus[i].home, HIST__MAP_NOT_HOME);
	return true;
}

void hist_ctx_reclaim(hist_ctx *ctx)
{
	struct hist__retired *r = ctx->retired, *next;

	ctx->retired = NULL;
	for (; r; r = next) {
		next = r->next;		/* R is freed with its object */
		r->free_fn(r->p);
	}
}

void hist__retire(struct hist_ctx *ctx, struct hist__retired *node,
		  void (*free_fn)(void *p), void *p)
{
	if (!p)
		return;
	if (ctx->host.synchronize) {
		ctx->host.synchronize(ctx->host.data);
		free_fn(p);
		return;
	}
	node->free_fn = free_fn;
	node->p = p;
	node->next = ctx->retired;
	ctx->retired = node;
}

uint64_t hist__ctx_now(const struct hist_ctx *ctx)
{
	return ctx->host.clock ? ctx->host.clock(ctx->host.data) : 0;
}

struct hist_event *hist__ctx_find_event(struct hist_ctx *ctx, const char *system,
					const char *name)
{
	struct hist_event *ev;

	for (ev = ctx->events; ev; ev = ev->next)
		if (!strcmp(ev->desc.system, system) && !strcmp(ev->desc.name, name))
			return ev;
	return NULL;
}

int hist__ctx_add_event(struct hist_ctx *ctx, const struct hist_event_desc *desc,
			struct hist_event **out)
{
	struct hist_event *ev = hist__event_new(ctx, &ctx->host, desc), **pp;

	if (!ev)
		return -HIST_ENOMEM;
	ev->kernel = ctx->opts.kernel;
	/* Append: listing order follows definition order. */
	for (pp = &ctx->events; *pp; pp = &(*pp)->next)
		;
	*pp = ev;
	if (out)
		*out = ev;
	return 0;
}

static void free_event(void *p)
{
	struct hist_event *ev = p;

	if (ev->filter)
		hist_filter_destroy(ev->filter);
	hist__event_free(ev);
}

void hist__ctx_del_event(struct hist_ctx *ctx, struct hist_event *ev)
{
	struct hist_event **pp;

	for (pp = &ctx->events; *pp; pp = &(*pp)->next) {
		if (*pp == ev) {
			*pp = ev->next;
			hist__retire(ctx, &ev->retire, free_event, ev);
			return;
		}
	}
}

hist_event *hist_event_lookup(hist_ctx *ctx, const char *system,
			      const char *name)
{
	struct hist_event *ev = hist__ctx_find_event(ctx, system, name);
	struct hist_event_desc desc;

	if (ev)
		return ev;
	if (!ctx->host.find_event)
		return NULL;
	memset(&desc, 0, sizeof(desc));
	if (ctx->host.find_event(ctx->host.data, system, name, &desc))
		return NULL;
	desc.system = system;
	desc.name = name;
	if (hist__ctx_add_event(ctx, &desc, &ev))
		return NULL;
	return ev;
}

int hist_event_define(hist_ctx *ctx, const struct hist_event_desc *desc,
		      hist_event **out)
{
	if (!desc || !desc->system || !desc->name)
		return -HIST_EINVAL;
	if (hist__ctx_find_event(ctx, desc->system, desc->name))
		return -HIST_EEXIST;
	return hist__ctx_add_event(ctx, desc, out);
}

const struct hist_event_desc *hist_event_desc(const hist_event *ev)
{
	return &ev->desc;
}

int hist_event_active(const hist_event *ev)
{
	/* relaxed: a hint for the tracer's probe, re-checked by the hit */
	return hist__load_relaxed(&ev->active) != 0;
}

/*
 * The general hit (hist_event_hit() in hist.c jumps straight to the hit
 * variant of a lone plain hist, variants.c; a lone simple hist with no
 * variant comes here and takes hist__hist_hit_simple()).  The acquire
 * load of the trigger list pairs with the release store in
 * hist__triggers_publish().
 *
 * DEPTH counts synthetic events generated from within a hit.  The kernel
 * stops at 4 nested hist contexts on a CPU; here the buffers live on the
 * stack, so the only nesting to bound is that recursion, and it is
 * carried down the call chain instead of in a shared per-cpu counter.
 * A nested hit keeps its parent's cpu SLOT: the slot's adds are single
 * instructions (hist__slot_own()), so it may add to the words its parent
 * adds to.
 */
static HIST__ALWAYS_INLINE void tlist_run(const struct hist__tlist *tl, struct hist_event *ev,
					  const void *rec, size_t len,
					  const struct hist_hit *hit, uint32_t depth,
					  uint32_t slot)
{
	struct hist__rec r;
	struct hist_hit local;

	if (hist__likely(!tl) || depth >= NEST_MAX)
		return;
	if (tl->simple && hit) {
		if (!depth)
			slot = hist__slot_enter(ev->ctx, hit->cpu);
		hist__hist_hit_simple(tl->simple, rec, len, hit, slot);
		return;
	}
	if (!hit) {
		memset(&local, 0, sizeof(local));
		local.pid = -1;
		local.flags = HIST_HIT_NO_TS;
		hit = &local;
	}
	hist__rec_init(&r, ev, rec, len, hit);
	r.depth = depth;
	r.slot = depth ? slot : hist__slot_enter(ev->ctx, hit->cpu);
	hist__triggers_run(tl, &r);
}

void hist__event_hit(struct hist_event *ev, const void *rec, size_t len,
		     const struct hist_hit *hit, uint32_t depth, uint32_t slot)
{
	tlist_run(hist__load_acquire(&ev->triggers), ev, rec, len, hit, depth, slot);
}

void hist__tlist_hit_any(const struct hist__tlist *tl, const uint8_t *rec, size_t len,
			 const struct hist_hit *hit)
{
	tlist_run(tl, tl->ev, rec, len, hit, 0, HIST__SLOT_SHARED);
}

/* ---- error_log ---------------------------------------------------- */

void hist__errlog_add(struct hist_ctx *ctx, const char *loc, const char *cmd,
		      size_t n, int msg, uint32_t pos)
{
	struct hist__errlog_entry *e;
	uint32_t slot;

	if (ctx->log_count < HIST__ERRLOG_MAX) {
		slot = (ctx->log_head + ctx->log_count) % HIST__ERRLOG_MAX;
		ctx->log_count++;
	} else {
		slot = ctx->log_head;
		ctx->log_head = (ctx->log_head + 1) % HIST__ERRLOG_MAX;
	}
	e = &ctx->log[slot];
	e->ts_ns = hist__ctx_now(ctx);
	e->msg = msg;
	e->pos = pos;
	hist__strlcpy(e->loc, loc, sizeof(e->loc));
	if (n > sizeof(e->cmd) - 1)
		n = sizeof(e->cmd) - 1;
	memcpy(e->cmd, cmd, n);
	e->cmd[n] = 0;
}
