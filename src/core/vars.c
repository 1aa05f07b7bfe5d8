/* SPDX-License-Identifier: MIT */
/*
 * Variables and variable references: where a $name is looked up at parse
 * time, and how a reference is resolved for one hit (the same key looked
 * up in the defining histogram's map).
 */
#include "core/trigger.h"
#include "core/sslot.h"

static bool span_is(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(s, lit, n);
}

int hist__hist_find_var(const struct hist__hist *h, const char *name, size_t n)
{
	uint32_t i;

	for (i = 0; i < h->nr_vars; i++)
		if (span_is(name, n, h->vars[i]->var_name))
			return (int)i;
	return -1;
}

bool hist__event_has_var(const struct hist_event *ev, const struct hist__hist *self,
			 const char *name, size_t n)
{
	int idx;

	if (self && hist__hist_find_var(self, name, n) >= 0)
		return true;
	return hist__event_var(ev, name, n, &idx) != NULL;
}

/* "onmatch(sys.event)" of this command: the event it names, or NULL. */
static struct hist_event *onmatch_event(struct hist__fctx *fc, uint32_t i)
{
	const char *s = fc->action_text[i], *dot, *close;
	size_t n = fc->action_n[i];
	char sys[128], evn[128];

	if (n < 8 || memcmp(s, "onmatch(", 8))
		return NULL;
	s += 8;
	n -= 8;
	close = memchr(s, ')', n);
	if (!close)
		return NULL;
	dot = memchr(s, '.', (size_t)(close - s));
	if (!dot || (size_t)(dot - s) >= sizeof(sys) ||
	    (size_t)(close - dot - 1) >= sizeof(evn))
		return NULL;
	memcpy(sys, s, (size_t)(dot - s));
	sys[dot - s] = 0;
	memcpy(evn, dot + 1, (size_t)(close - dot - 1));
	evn[close - dot - 1] = 0;
	return hist__ctx_find_event(fc->ev->ctx, sys, evn);
}

struct hist__hist *hist__find_var_hist(struct hist__fctx *fc, const char *sys,
				       size_t slen, const char *evn, size_t elen,
				       const char *var, size_t vlen, int *idx)
{
	struct hist_ctx *ctx = fc->ev->ctx;
	struct hist__hist *found = NULL, *h;
	struct hist_event *ev;
	uint32_t i;

	if (sys) {
		char s[128], e[128];

		if (slen >= sizeof(s) || elen >= sizeof(e))
			return NULL;
		memcpy(s, sys, slen);
		s[slen] = 0;
		memcpy(e, evn, elen);
		e[elen] = 0;
		ev = hist__ctx_find_event(ctx, s, e);
		return ev ? hist__event_var(ev, var, vlen, idx) : NULL;
	}
	/* the events this command's onmatch() handlers name come first */
	for (i = 0; i < fc->nr_actions; i++) {
		ev = onmatch_event(fc, i);
		if (ev && (h = hist__event_var(ev, var, vlen, idx)) != NULL)
			return h;
	}
	for (ev = ctx->events; ev; ev = ev->next) {
		int k;

		h = hist__event_var(ev, var, vlen, &k);
		if (!h)
			continue;
		if (found) {
			hist__perr_add(fc->err, -HIST_EINVAL,
				       HIST_ERR_VAR_NOT_UNIQUE, var, vlen);
			return NULL;
		}
		found = h;
		*idx = k;
	}
	return found;
}

static bool has_operator(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '+' || s[i] == '-' || s[i] == '*' || s[i] == '/')
			return true;
	return false;
}

/* The length of S up to its first binary operator (N if none). */
static size_t first_operator(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '+' || s[i] == '-' || s[i] == '*' || s[i] == '/')
			return i;
	return n;
}

bool hist__local_field_var(struct hist__fctx *fc, const char *sys, size_t slen,
			   const char *evn, size_t elen, const char *var,
			   size_t vlen, const char **field, size_t *flen)
{
	uint32_t i;

	if (sys && (!span_is(sys, slen, fc->ev->desc.system) ||
		    !span_is(evn, elen, fc->ev->desc.name)))
		return false;
	if (!vlen || var[0] != '$')
		return false;
	for (i = 0; i < fc->nr_defs; i++) {
		const char *e = fc->defs[i].expr;
		size_t en = fc->defs[i].expr_n;

		if (fc->defs[i].name_n != vlen - 1 ||
		    memcmp(fc->defs[i].name, var + 1, vlen - 1))
			continue;
		/*
		 * The kernel splits a parsed expression's text in place at
		 * its operators, down to the first one: a later $x reads
		 * what is left, the first operand (k10-varref-trigger-info:
		 * l3=common_timestamp.usecs-$ts0,al=$l3 gives
		 * al=common_timestamp.usecs).
		 */
		if (i < fc->nr_split_defs && en && e[0] != '-' && e[0] != '$')
			en = first_operator(e, en);
		if (has_operator(e, en) || (en && e[0] == '$'))
			continue;
		*field = e;
		*flen = en;
		return true;
	}
	return false;
}

/*
 * The kernel keeps one reference per variable and hist: a later $x (or
 * sys.event.$x) is the first one, so it prints as the first was spelled
 * (k10-varref-trigger-info: r=sched.sched_waking.$p0*2 after q=$p0+...
 * prints r=$p0*2).
 */
static int share_spelling(struct hist__field *ref, const struct hist__field *first)
{
	char *sys = NULL, *evn = NULL;

	if (first->ref_system) {
		sys = hist__strdup(first->ref_system);
		evn = hist__strdup(first->ref_event);
		if (!sys || !evn) {
			hist__free(sys);
			hist__free(evn);
			return -HIST_ENOMEM;
		}
	}
	hist__free(ref->ref_system);
	hist__free(ref->ref_event);
	ref->ref_system = sys;
	ref->ref_event = evn;
	return 0;
}

int hist__hist_add_ref(struct hist__hist *h, struct hist__field *ref)
{
	uint32_t i;

	for (i = 0; i < h->nr_refs; i++) {
		if (h->refs[i]->ref_hist == ref->ref_hist &&
		    h->refs[i]->ref_var_idx == ref->ref_var_idx) {
			ref->ref_idx = (int32_t)i;
			return share_spelling(ref, h->refs[i]);
		}
	}
	if (h->nr_refs == HIST__REFS_MAX)
		return -HIST_EINVAL;
	ref->ref_idx = (int32_t)h->nr_refs;
	h->refs[h->nr_refs++] = ref;
	return 0;
}

/* ---- hist__var_ops: the field parser's way to the variables ---- */

static const struct hist__field *ops_find(struct hist__fctx *fc, const char *sys, size_t slen,
					  const char *evn, size_t elen, const char *var,
					  size_t vlen, struct hist__hist **def, int *idx)
{
	*def = hist__find_var_hist(fc, sys, slen, evn, elen, var, vlen, idx);
	return *def ? (*def)->vars[*idx] : NULL;
}

static int ops_add_ref(struct hist__fctx *fc, struct hist__field *ref)
{
	int ret = hist__hist_add_ref(fc->h, ref);

	/* an expression operand consumes the variable when read */
	if (!ret && fc->in_expr)
		fc->h->ref_once[ref->ref_idx] = true;
	return ret;
}

static void ops_need(struct hist__fctx *fc, uint32_t what)
{
	if (what & HIST__NEED_TS)
		fc->h->uses_ts = true;
	if (what & HIST__NEED_TS_USECS)
		fc->h->ts_usecs = true;
	if (what & HIST__NEED_COMM)
		fc->h->needs_comm = true;
}

const struct hist__var_ops hist__var_ops = {
	.find = ops_find,
	.local_field = hist__local_field_var,
	.add_ref = ops_add_ref,
	.need = ops_need,
};

/*
 * Resolve every reference of H for the key KEY.  Processing stops at the
 * first unresolved one; read-once references consumed before it stay
 * consumed (as the kernel's resolve_var_refs() leaves them,
 * kernel/trace/trace_events_hist.c).
 */
uint64_t hist__ref_text(uint64_t v, uint8_t *texts, uint32_t i)
{
	uint8_t *copy = texts + (size_t)i * HIST__STR_VAR_LEN_MAX;
	int32_t n;

	if (!v)
		return 0;
	n = hist__sslot_read((const void *)(uintptr_t)v, copy, HIST__STR_VAR_LEN_MAX,
			     HIST__SSLOT_TRIES_HIT);
	if (n < 0)
		return 0;
	if (n < 8)
		memset(copy + n, 0, 8 - (size_t)n);	/* a text or stack ends */
	return (uint64_t)(uintptr_t)copy;
}

bool hist__resolve_refs(const struct hist__hist *h, const uint8_t *key,
			uint64_t *vals, uint8_t *texts)
{
	uint32_t i;

	for (i = 0; i < h->nr_refs; i++) {
		const struct hist__field *ref = h->refs[i];
		struct hist__hist *def = ref->ref_hist;
		struct hist_map_elt *elt;
		uint8_t *p;
		uint64_t bit, *set;

		if (def == h)
			continue; /* own variables: read after the update */
		/* acquire: the table may be swapped by a clear */
		elt = hist__map_lookup(hist__load_acquire(&def->map), key);
		if (!elt)
			return false;
		p = hist__map_elt_payload(elt);
		set = (uint64_t *)(void *)(p + def->var_set_off);
		bit = 1ull << ref->ref_var_idx;
		if (!(hist__load_acquire(set) & bit))
			return false;
		vals[i] = hist__load_relaxed((uint64_t *)(void *)(p + def->var_off) +
					     ref->ref_var_idx);
		if ((ref->flags & (HIST__F_STRING | HIST__F_STACKTRACE)) &&
		    !(vals[i] = hist__ref_text(vals[i], texts, i)))
			return false;
		if (h->ref_once[i])
			hist__and_relaxed(set, ~bit);
	}
	return true;
}
