/* SPDX-License-Identifier: MIT */
/*
 * The index of an event's triggers: what makes adding or removing one of
 * N triggers cost O(1) expected time, so that N of them cost O(N).
 *
 * The kernel walks the event's whole trigger list on every registration
 * (hist_register_trigger() compares the new trigger with each one, in
 * kernel/trace/trace_events_hist.c) and bounds the number of triggers by
 * memory only; libhist took 121 s for 9,000 triggers on one event, most of
 * it in that comparison (issue 21).  Here, per event (struct hist__tindex,
 * control thread only, allocated with the first trigger, freed with the
 * last):
 *
 * - the control list is doubly linked with a tail pointer: an append and
 *   an unlink are O(1); ORDER numbers the triggers in list order;
 * - the hist triggers sit in a hash table by identity (hist__hist_sig():
 *   what hist__hist_match() compares, hashed), so the duplicate check of
 *   a new trigger and the lookup of a `!hist:` removal compare with the
 *   triggers of the same hash only;
 * - the variables of the registered hists sit in a hash table by name,
 *   so the duplicate-variable check and the reference lookups of a new
 *   trigger do not walk every trigger;
 * - the published lists (core/trigger.h rule 2) share one array that
 *   grows geometrically: a list of N triggers is its first N entries, an
 *   append writes entry N (which no published list reads) and publishes
 *   a new small list header, so an append copies nothing and retires 64
 *   bytes instead of the whole array.  Any other edit (an unlink, a
 *   generic trigger at the head) builds a fresh array, the old one being
 *   retired with the list that used it.
 *
 * Per context, the named groups (name=) sit in a hash table by name, so
 * that creating or joining one of N groups does not compare N names (the
 * kernel's find_named_trigger() walks a list of every named trigger).
 *
 * Tables grow by doubling at load factor 1 and never shrink while the
 * event has triggers (the context has named groups).
 */
#include "core/trigger.h"

struct hist__tarr {
	struct hist__retired retire;
	uint32_t cap, used;
	struct hist__trigger *t[];
};

struct hist__tindex {
	struct hist__trigger *tail;
	uint32_t nr, nr_generic;	/* triggers; those not hist */
	/* the edit of the control list since the last publish, which the
	 * next list's array takes over (hist__tlist_array()) */
	enum hist__tedit edit;
	struct hist__trigger *edit_t;
	struct hist__tarr *arr;		/* the published lists' array */
	uint32_t dead;			/* its tombstones */
	struct hist__trigger **sig_tab;	/* chains through sig_next */
	uint32_t sig_mask, nr_sig;
	struct hist__var_link **var_tab;
	uint32_t var_mask, nr_var;
	/* the hist last found by hist__tlist_nth_hist() and its rank among
	 * the hists; NULL after any edit of the control list */
	const struct hist__trigger *rd_at;
	uint32_t rd_rank;
};

#define TAB_MIN 16u

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static struct hist__tindex *index_get(struct hist_event *ev)
{
	if (!ev->tindex)
		ev->tindex = hist__zalloc(sizeof(*ev->tindex));
	return ev->tindex;
}

/* Double TAB (*MASK + 1 buckets) when it holds more entries than buckets;
 * NEXT_OF and KEY_OF walk and hash its chains. */
#define TAB_GROW(tab, mask, nr, type, next_field, key_expr)                    \
	do {                                                                   \
		uint32_t n_ = (tab) ? (mask) + 1 : 0, m_, i_;                  \
		type **t_;                                                     \
		if ((tab) && (nr) < n_)                                        \
			break;                                                 \
		m_ = n_ ? 2 * n_ - 1 : TAB_MIN - 1;                            \
		t_ = hist__zalloc((m_ + 1) * sizeof(*t_));                     \
		if (!t_)                                                       \
			break; /* keep the old table: longer chains */         \
		for (i_ = 0; i_ < n_; i_++) {                                  \
			type *e_ = (tab)[i_], *nx_;                            \
			for (; e_; e_ = nx_) {                                 \
				nx_ = e_->next_field;                          \
				e_->next_field = t_[(key_expr(e_)) & m_];      \
				t_[(key_expr(e_)) & m_] = e_;                  \
			}                                                      \
		}                                                              \
		hist__free(tab);                                               \
		(tab) = t_;                                                    \
		(mask) = m_;                                                   \
	} while (0)

#define SIG_KEY(t) ((uint32_t)((t)->sig ^ ((t)->sig >> 32)))
#define VAR_KEY(l) ((l)->hash)

/* Count H's references in the hists they name (D = 1 or -1): a hist that
 * others reference is not removed (hist__hist.nr_referrers). */
static void count_referrers(const struct hist__hist *h, int d)
{
	uint32_t i;

	for (i = 0; i < h->nr_refs; i++)
		if (h->refs[i]->ref_hist != h)
			h->refs[i]->ref_hist->nr_referrers += (uint32_t)d;
}

static int index_add_hist(struct hist__tindex *ix, struct hist__trigger *t)
{
	struct hist__hist *h = t->hist;
	uint32_t i;

	TAB_GROW(ix->sig_tab, ix->sig_mask, ix->nr_sig + 1, struct hist__trigger, sig_next,
		 SIG_KEY);
	if (!ix->sig_tab)
		return -HIST_ENOMEM;
	TAB_GROW(ix->var_tab, ix->var_mask, ix->nr_var + h->nr_vars, struct hist__var_link,
		 next, VAR_KEY);
	if (!ix->var_tab)
		return -HIST_ENOMEM;
	t->sig = hist__hist_sig(t);
	t->sig_next = ix->sig_tab[SIG_KEY(t) & ix->sig_mask];
	ix->sig_tab[SIG_KEY(t) & ix->sig_mask] = t;
	ix->nr_sig++;
	for (i = 0; i < h->nr_vars; i++) {
		struct hist__var_link *l = &h->var_links[i];
		const char *name = h->vars[i]->var_name;

		l->h = h;
		l->idx = (int32_t)i;
		l->hash = name_hash(name, strlen(name));
		l->next = ix->var_tab[l->hash & ix->var_mask];
		ix->var_tab[l->hash & ix->var_mask] = l;
	}
	ix->nr_var += h->nr_vars;
	count_referrers(h, 1);
	return 0;
}

static void index_del_hist(struct hist__tindex *ix, struct hist__trigger *t)
{
	struct hist__hist *h = t->hist;
	struct hist__trigger **pp;
	uint32_t i;

	for (pp = &ix->sig_tab[SIG_KEY(t) & ix->sig_mask]; *pp; pp = &(*pp)->sig_next) {
		if (*pp == t) {
			*pp = t->sig_next;
			ix->nr_sig--;
			break;
		}
	}
	t->sig_next = NULL;
	for (i = 0; i < h->nr_vars; i++) {
		struct hist__var_link *l = &h->var_links[i], **lp;

		for (lp = &ix->var_tab[l->hash & ix->var_mask]; *lp; lp = &(*lp)->next) {
			if (*lp == l) {
				*lp = l->next;
				ix->nr_var--;
				break;
			}
		}
		l->next = NULL;
	}
	count_referrers(h, -1);
}

/* Link T after AFTER (NULL: at the head) in EV's control list. */
static void link_after(struct hist_event *ev, struct hist__tindex *ix,
		       struct hist__trigger *t, struct hist__trigger *after)
{
	ix->rd_at = NULL;
	t->prev = after;
	t->next = after ? after->next : ev->trig_head;
	if (t->next)
		t->next->prev = t;
	else
		ix->tail = t;
	if (after)
		after->next = t;
	else
		ev->trig_head = t;
	ix->nr++;
	if (t->kind != HIST__T_HIST)
		ix->nr_generic++;
}

/* Record edit E of T for the next publish: one edit since the last one is
 * taken over in place, an edit undone cancels, anything else rebuilds. */
static void record_edit(struct hist__tindex *ix, enum hist__tedit e, struct hist__trigger *t)
{
	if (ix->edit == HIST__TE_NONE) {
		ix->edit = e;
		ix->edit_t = t;
	} else if (ix->edit_t == t &&
		   ((ix->edit == HIST__TE_APPEND && e == HIST__TE_UNLINK) ||
		    (ix->edit == HIST__TE_UNLINK && e == HIST__TE_RELINK))) {
		ix->edit = HIST__TE_NONE;
		ix->edit_t = NULL;
	} else {
		ix->edit = HIST__TE_REBUILD;
		ix->edit_t = NULL;
	}
}

int hist__tlist_add(struct hist_event *ev, struct hist__trigger *t, bool head)
{
	struct hist__tindex *ix = index_get(ev);
	struct hist__trigger *after;

	if (!ix)
		return -HIST_ENOMEM;
	if (t->kind == HIST__T_HIST && index_add_hist(ix, t))
		return -HIST_ENOMEM;
	/* before T is published (rule 2) */
	t->hit_filter = ev->host_filtered ? NULL : t->filter;
	after = head ? NULL : ix->tail;
	if (after)
		t->order = after->order + 1;
	else
		t->order = ev->trig_head ? ev->trig_head->order - 1 : 0;
	link_after(ev, ix, t, after);
	record_edit(ix, head ? HIST__TE_REBUILD : HIST__TE_APPEND, t);
	return 0;
}

void hist__tlist_relink(struct hist_event *ev, struct hist__trigger *t,
			struct hist__trigger *prev)
{
	struct hist__tindex *ix = ev->tindex;

	/* cannot fail: T's entries were in the tables a moment ago, and a
	 * table that could not grow keeps its buckets */
	if (t->kind == HIST__T_HIST)
		(void)index_add_hist(ix, t);
	link_after(ev, ix, t, prev);
	record_edit(ix, HIST__TE_RELINK, t);
}

void hist__tlist_unlink(struct hist_event *ev, struct hist__trigger *t)
{
	struct hist__tindex *ix = ev->tindex;

	if (t->kind == HIST__T_HIST)
		index_del_hist(ix, t);
	ix->rd_at = NULL;
	if (t->prev)
		t->prev->next = t->next;
	else
		ev->trig_head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		ix->tail = t->prev;
	t->next = t->prev = NULL;
	ix->nr--;
	if (t->kind != HIST__T_HIST)
		ix->nr_generic--;
	record_edit(ix, HIST__TE_UNLINK, t);
}

static void tarr_free(void *p)
{
	hist__free(p);
}

/*
 * What a removed trigger's entry of the shared array points to: paused,
 * so every walk of a published list skips it (hist__triggers_run() tests
 * PAUSED first) and no hit writes it (set_hists_paused() skips it).
 */
struct hist__trigger hist__tombstone = { .kind = HIST__T_HIST, .paused = 1 };

/* A fresh array of EV's control list; NULL if out of memory. */
static struct hist__tarr *tarr_build(struct hist_event *ev, uint32_t n)
{
	uint32_t cap = n < 8 ? 8 : 2 * n;
	struct hist__tarr *a = hist__zalloc(sizeof(*a) + cap * sizeof(a->t[0]));
	struct hist__trigger *t;

	if (!a)
		return NULL;
	a->cap = cap;
	for (t = ev->trig_head; t; t = t->next) {
		t->arr_pos = a->used;
		a->t[a->used++] = t;
	}
	return a;
}

int hist__tlist_array(struct hist_event *ev, struct hist__tlist *tl, void **old)
{
	struct hist__tindex *ix = ev->tindex;
	struct hist__tarr *a = ix ? ix->arr : NULL, *fresh = NULL;
	enum hist__tedit edit = ix ? ix->edit : HIST__TE_NONE;
	struct hist__trigger *t = ix ? ix->edit_t : NULL;

	*old = NULL;
	if (!ix || !ix->nr) {
		*old = a;
		if (ix)
			ix->arr = NULL;
		return 0;
	}
	if (a && edit == HIST__TE_APPEND && a->used < a->cap) {
		/* an entry no published list reads (each reads below its
		 * own N): written before the new list's release */
		t->arr_pos = a->used;
		hist__store_relaxed(&a->t[a->used], t);
		a->used++;
	} else if (a && edit == HIST__TE_UNLINK) {
		/* relaxed: a hit that loads the entry after the new list's
		 * acquire sees the tombstone; one that loaded T before may
		 * use T until its grace period ends (T is retired) */
		hist__store_relaxed(&a->t[t->arr_pos], &hist__tombstone);
		ix->dead++;
		/* compact when tombstones outnumber the live entries: each
		 * entry is copied O(1) times on average; if the copy cannot
		 * be allocated the tombstones stay (a longer walk) */
		if (ix->dead > ix->nr && ix->dead >= 8)
			fresh = tarr_build(ev, ix->nr);
	} else if (!a || edit != HIST__TE_NONE) {
		fresh = tarr_build(ev, ix->nr);
		if (!fresh)
			return -HIST_ENOMEM;
	}
	if (fresh) {
		*old = a;
		ix->arr = a = fresh;
		ix->dead = 0;
	}
	ix->edit = HIST__TE_NONE;
	ix->edit_t = NULL;
	tl->t = a->t;
	tl->n = a->used;
	return 0;
}

/* Retire OLD (a replaced array of hist__tlist_array()) with the list
 * that used it.  Context: control thread. */
void hist__tlist_array_retire(struct hist_event *ev, void *old)
{
	struct hist__tarr *a = old;

	if (a)
		hist__retire(ev->ctx, &a->retire, tarr_free, a);
}

struct hist__trigger *hist__tlist_find_match(struct hist_event *ev,
					     const struct hist__trigger *t)
{
	struct hist__tindex *ix = ev->tindex;
	struct hist__trigger *x, *best = NULL;
	uint64_t sig;

	if (!ix || !ix->sig_tab)
		return NULL;
	sig = hist__hist_sig(t);
	for (x = ix->sig_tab[(uint32_t)(sig ^ (sig >> 32)) & ix->sig_mask]; x; x = x->sig_next)
		if (x->sig == sig && (!best || x->order < best->order) &&
		    hist__hist_match(t, x, false))
			best = x;
	return best;
}

struct hist__hist *hist__event_var(const struct hist_event *ev, const char *name,
				   size_t n, int *idx)
{
	const struct hist__tindex *ix = ev->tindex;
	const struct hist__var_link *l, *best = NULL;
	uint32_t hash;

	if (!ix || !ix->var_tab)
		return NULL;
	hash = name_hash(name, n);
	for (l = ix->var_tab[hash & ix->var_mask]; l; l = l->next) {
		const char *v = l->h->vars[l->idx]->var_name;

		if (l->hash == hash && strlen(v) == n && !memcmp(v, name, n) &&
		    (!best || l->h->t->order < best->h->t->order))
			best = l;
	}
	if (!best)
		return NULL;
	*idx = best->idx;
	return best->h;
}

void hist__triggers_set_host_filtered(struct hist_event *ev)
{
	struct hist__trigger *t;

	for (t = ev->trig_head; t; t = t->next)
		/* relaxed: trigger.h rule 4 */
		hist__store_relaxed(&t->hit_filter, ev->host_filtered ? NULL : t->filter);
}

uint32_t hist__tlist_len(const struct hist_event *ev)
{
	return ev->tindex ? ev->tindex->nr : 0;
}

uint32_t hist__tlist_nr_generic(const struct hist_event *ev)
{
	return ev->tindex ? ev->tindex->nr_generic : 0;
}

/*
 * Readers ask for hist 0, 1, 2, ... of an event (the hist file, JSON,
 * OpenMetrics, a tool's checks): the walk starts at the hist found last
 * when RANK is not before it, so reading all N hists costs O(N), not the
 * O(N^2) of a walk from the head for each (8,000 hists: 62% of a replay).
 */
const struct hist__trigger *hist__tlist_nth_hist(struct hist_event *ev, uint32_t rank)
{
	struct hist__tindex *ix = ev->tindex;
	const struct hist__trigger *t = ev->trig_head;
	uint32_t at = 0;

	if (!ix)
		return NULL;
	if (ix->rd_at && ix->rd_rank <= rank) {
		t = ix->rd_at;
		at = ix->rd_rank;
	}
	for (; t; t = t->next) {
		ev->ctx->nth_steps++;
		if (t->kind == HIST__T_HIST && at++ == rank) {
			ix->rd_at = t;
			ix->rd_rank = rank;
			return t;
		}
	}
	return NULL;
}

void hist__tlist_index_free(struct hist_event *ev)
{
	struct hist__tindex *ix = ev->tindex;

	if (!ix)
		return;
	hist__free(ix->arr);
	hist__free(ix->sig_tab);
	hist__free(ix->var_tab);
	hist__free(ix);
	ev->tindex = NULL;
}

/* ---- named groups (name=) of a context, by name ---------------------- */

#define NAMED_KEY(g) ((g)->hash)

struct hist__named *hist__named_find(struct hist_ctx *ctx, const char *name)
{
	struct hist__named *g;
	uint32_t hash;

	if (!ctx->named_tab)
		return NULL;
	hash = name_hash(name, strlen(name));
	for (g = ctx->named_tab[hash & ctx->named_mask]; g; g = g->next) {
		ctx->named_cmps++;
		if (g->hash == hash && !strcmp(g->name, name))
			return g;
	}
	return NULL;
}

struct hist__named *hist__named_add(struct hist_ctx *ctx, const char *name)
{
	struct hist__named *g = hist__zalloc(sizeof(*g));

	if (!g || !(g->name = hist__strdup(name))) {
		hist__free(g);
		return NULL;
	}
	/* after G: a first table is never left without a group */
	TAB_GROW(ctx->named_tab, ctx->named_mask, ctx->nr_named + 1, struct hist__named, next,
		 NAMED_KEY);
	if (!ctx->named_tab) {
		hist__free(g->name);
		hist__free(g);
		return NULL;
	}
	g->hash = name_hash(name, strlen(name));
	g->next = ctx->named_tab[g->hash & ctx->named_mask];
	ctx->named_tab[g->hash & ctx->named_mask] = g;
	ctx->nr_named++;
	return g;
}

void hist__named_del(struct hist_ctx *ctx, struct hist__named *g)
{
	struct hist__named **pp;

	for (pp = &ctx->named_tab[g->hash & ctx->named_mask]; *pp; pp = &(*pp)->next) {
		if (*pp == g) {
			*pp = g->next;
			ctx->nr_named--;
			break;
		}
	}
	hist__free(g->name);
	hist__free(g);
	/* the table goes with the last group, so a context whose triggers
	 * are all removed holds nothing of it (hist_ctx_destroy()) */
	if (!ctx->nr_named) {
		hist__free(ctx->named_tab);
		ctx->named_tab = NULL;
		ctx->named_mask = 0;
	}
}
