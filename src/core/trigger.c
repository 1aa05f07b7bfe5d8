/* SPDX-License-Identifier: MIT */
/*
 * The trigger lists of an event and the walk of one list per hit.
 *
 * Each event keeps two views of its triggers.  The control list
 * (ev->trig_head) is edited by the control thread only.  After every edit
 * an immutable array (struct hist__tlist) is built from it and published
 * with a release store; hist_event_hit() walks whatever array it acquired,
 * so a hit never sees a half-edited list.  Replaced arrays and removed
 * triggers are retired (freed after a grace period, see hist__retire()).
 */
#include "core/trigger.h"
#include "filter/filter.h"

struct hist__trigger **hist__event_tlist_head(struct hist_event *ev)
{
	return &ev->trig_head;
}

static bool is_post(enum hist__tkind k)
{
	return k == HIST__T_TRACEOFF || k == HIST__T_STACKTRACE;
}

void hist__trigger_free(void *p)
{
	struct hist__trigger *t = p;

	if (t->filter)
		hist__filter_destroy(t->filter);
	hist__free(t->filter_text);
	if (t->hist)
		hist__hist_free(t->hist);
	hist__free(t);
}

static void tlist_free(void *p)
{
	hist__free(p);
}

int hist__triggers_publish(struct hist_event *ev)
{
	struct hist__tlist *tl = NULL, *old = ev->triggers;
	void *old_arr = NULL;
	uint32_t n = hist__tlist_len(ev);

	if (n) {
		tl = hist__zalloc(sizeof(*tl));
		if (!tl)
			return -HIST_ENOMEM;
	}
	/* last: nothing may fail once the array has taken the edit */
	if (hist__tlist_array(ev, tl, &old_arr)) {
		hist__free(tl);
		return -HIST_ENOMEM;
	}
	/* only the lone trigger of a list has a variant (debug output) */
	if (old && old->fast)
		old->fast->hist->variant = NULL;
	if (n) {
		tl->all_hist = !hist__tlist_nr_generic(ev);
		tl->ev = ev;
		tl->hit = hist__tlist_hit_any;
		if (n == 1 && tl->all_hist) {
			bool simple;
			struct hist__trigger *lone = ev->trig_head;
			const struct hist__variant *v = hist__variant_choose(lone, &simple);

			if (simple)
				tl->simple = lone;
			if (v) {
				tl->fast = lone;
				tl->hit = v->hit;
				tl->fast->hist->variant = v;
			}
		}
	}
	/* release: pairs with the acquire in hist_event_hit(); the list
	 * and every trigger it holds are complete before they are seen */
	hist__store_release(&ev->triggers, tl);
	/* relaxed: only a hint for the host's probe (hist_event_active) */
	hist__store_relaxed(&ev->active, n ? 1u : 0u);
	if (old)
		hist__retire(ev->ctx, &old->retire, tlist_free, old);
	hist__tlist_array_retire(ev, old_arr);
	if (!ev->trig_head)
		hist__tlist_index_free(ev);
	return 0;
}

/* Unlink T from EV's control list and retire it, with the hidden
 * histograms its field variables created on other events. */
int hist__trigger_remove(struct hist_event *ev, struct hist__trigger *t)
{
	struct hist__trigger *prev = t->prev;
	int ret;

	if (t->ev != ev || (!prev && ev->trig_head != t))
		return 0;
	hist__tlist_unlink(ev, t);
	ret = hist__triggers_publish(ev);
	if (ret) {
		/* the published list still holds T: keep it, unchanged */
		hist__tlist_relink(ev, t, prev);
		return ret;
	}
	if (t->hist)
		t->hist->aops->release(t->hist);
	hist__retire(ev->ctx, &t->retire, hist__trigger_free, t);
	return 0;
}

void hist__triggers_remove_all(struct hist_event *ev)
{
	struct hist__trigger *t, *next;
	struct hist__tlist *tl = ev->triggers;

	ev->triggers = NULL;
	ev->active = 0;
	hist__free(tl);
	for (t = ev->trig_head; t; t = next) {
		next = t->next;
		hist__trigger_free(t);
	}
	ev->trig_head = NULL;
	hist__tlist_index_free(ev);
}

/* ---- the hot path ------------------------------------------------- */

/* Consume one unit of T's count; false when the count is used up. */
static bool take_count(struct hist__trigger *t)
{
	int64_t c = hist__load_relaxed(&t->count);

	for (;;) {
		if (c == -1)
			return true;
		if (c <= 0)
			return false;
		/* CAS so that concurrent hits never take more than count */
		if (hist__cas_acq_rel(&t->count, &c, c - 1))
			return true;
	}
}

static void set_hists_paused(struct hist_event *target, uint32_t paused)
{
	struct hist__tlist *tl = hist__load_acquire(&target->triggers);
	uint32_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->n; i++) {
		/* relaxed: see hist__tlist.t */
		struct hist__trigger *t = hist__load_relaxed(&tl->t[i]);

		if (t->kind == HIST__T_HIST && t != &hist__tombstone)
			hist__store_relaxed(&t->paused, paused);
	}
}

static void run_one(struct hist__trigger *t, struct hist__rec *r)
{
	const struct hist_host *host = r->host;
	struct hist_ctx *ctx = t->ev->ctx;
	uint32_t on;

	switch (t->kind) {
	case HIST__T_HIST:
		hist__hist_hit(t->hist, r);
		break;
	case HIST__T_TRACEON:
	case HIST__T_TRACEOFF:
		on = t->kind == HIST__T_TRACEON;
		/* the count only pays for a real change of state */
		if (hist__load_relaxed(&ctx->tracing_off) == !on)
			break;
		if (!take_count(t))
			break;
		hist__store_relaxed(&ctx->tracing_off, !on);
		if (host && host->traceon)
			host->traceon(host->data, (int)on);
		break;
	case HIST__T_SNAPSHOT:
		if (take_count(t) && host && host->snapshot)
			host->snapshot(host->data, t->ev, r->hit);
		break;
	case HIST__T_STACKTRACE:
		if (take_count(t) && host && host->stacktrace_trigger)
			host->stacktrace_trigger(host->data, t->ev, r->hit);
		break;
	case HIST__T_ENABLE_EVENT:
	case HIST__T_DISABLE_EVENT:
		on = t->kind == HIST__T_ENABLE_EVENT;
		if (hist__load_relaxed(&t->target->soft_disabled) == !on)
			break;
		if (!take_count(t))
			break;
		hist__store_relaxed(&t->target->soft_disabled, !on);
		if (host && host->enable_event)
			host->enable_event(host->data, t->target, (int)on);
		break;
	case HIST__T_ENABLE_HIST:
	case HIST__T_DISABLE_HIST:
		if (take_count(t))
			set_hists_paused(t->target, t->kind == HIST__T_DISABLE_HIST);
		break;
	}
}

void hist__triggers_run(const struct hist__tlist *tl, struct hist__rec *r)
{
	/* traceoff and stacktrace run after the others; the slot rules
	 * allow at most one of each per event */
	struct hist__trigger *post[2];
	const struct hist_filter *f;
	uint32_t i, n_post = 0;

	/* The common list: hist triggers only, none of them a post trigger. */
	if (hist__likely(tl->all_hist)) {
		for (i = 0; i < tl->n; i++) {
			/* relaxed: see hist__tlist.t; a tombstone is paused */
			struct hist__trigger *t = hist__load_relaxed(&tl->t[i]);

			/* relaxed: as below */
			if (hist__load_relaxed(&t->paused))
				continue;
			f = hist__load_relaxed(&t->hit_filter);
			if (f && !hist__filter_match(f, r))
				continue;
			hist__hist_hit(t->hist, r);
		}
		return;
	}
	for (i = 0; i < tl->n; i++) {
		/* relaxed: see hist__tlist.t; a tombstone is paused */
		struct hist__trigger *t = hist__load_relaxed(&tl->t[i]);

		/* relaxed: pause is a flag; a hit racing with it may or may
		 * not be counted, as in the kernel */
		if (hist__load_relaxed(&t->paused))
			continue;
		/* relaxed: rule 4 */
		f = hist__load_relaxed(&t->hit_filter);
		if (f && !hist__filter_match(f, r))
			continue;
		if (is_post(t->kind) && n_post < 2) {
			post[n_post++] = t;
			continue;
		}
		run_one(t, r);
	}
	for (i = 0; i < n_post; i++)
		run_one(post[i], r);
}
