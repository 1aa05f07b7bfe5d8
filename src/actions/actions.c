/* SPDX-License-Identifier: MIT */
/*
 * Handlers and actions: onmatch(sys.event), onmax($var), onchange($var)
 * with trace()/<synth>()/save()/snapshot().
 *
 * Two stages, as in the kernel.  hist__actions_parse() checks the syntax
 * while the command is parsed (its errors come before any field error);
 * hist__actions_create() resolves names once the registration checks have
 * passed: the synthetic event, each parameter (a variable of this or the
 * matching event, or an event field held in a hidden "field variable",
 * possibly through a hidden histogram created on the other event), the
 * tracked variable.  Every parameter ends up as a variable reference, so
 * at run time an action only reads resolved values.
 *
 * Concurrency (hits run the actions, hist__actions_run(); the control
 * thread creates, prints and releases them):
 * 1. What hist__actions_create() resolves is written before the list
 *    holding the hist is published (core/trigger.h, rule 2) and is
 *    read-only from then on.
 * 2. A field variable's value is stored relaxed, then its bit in the
 *    element's set-word ORed with release; whoever loads the set-word
 *    with acquire and sees the bit sees the value (store_fvar(),
 *    resolve_self(), core/vars.c's hist__resolve_refs()).
 * 3. A tracked value (max:, changed:) moves by CAS (track_update()):
 *    racing hits never move a max backwards, and exactly one of them runs
 *    the action for each new value.
 * 4. snapshot(): one hit at a time takes snap_busy (CAS; a hit that
 *    finds it taken gives its snapshot up, it never waits); value, key
 *    and comm reach the control thread through the seqlock snap_seq
 *    (snap_write(), snap_read()), never torn.
 * 5. The text of a string field variable or save() field lives in a
 *    seqlocked slot of the element (core/sslot.h): a hit writes it only
 *    after claiming the slot's sequence word (a hit that finds it claimed
 *    leaves the other's text), every word is an atomic, and a reader
 *    copies it out and keeps the copy only if the sequence did not move:
 *    hits through hist__ref_text() (bounded retries; a reference whose
 *    slot stays busy counts as unset for that hit), the control thread
 *    in print_saved() (until it succeeds).  No reader ever sees a mix of
 *    two texts, and a hit neither locks, waits nor allocates.
 * 6. emit() generates the synthetic event inside the hit (one level
 *    deeper, through the hit's cpu slot: synth/).
 */
#include "actions/actions.h"
#include "core/sslot.h"
#include "synth/synth.h"
#include "common/fmt.h"

enum { ONMATCH, ONMAX, ONCHANGE };
enum { ACT_TRACE, ACT_SAVE, ACT_SNAPSHOT };

#define PARAMS_MAX 64

struct hist__action {
	int handler;
	int kind;
	char *match_system, *match_event;	/* onmatch */
	char *var_str;				/* onmax/onchange: "$x" */
	char *action_name;			/* as written: save, trace, synth */
	char *synth_name;			/* trace(synth, ...) */
	bool trace_kw;
	char *params[PARAMS_MAX];
	uint32_t n_params;
	/* resolved by hist__actions_create() */
	struct hist__synth *synth;
	int32_t param_ref[PARAMS_MAX];		/* index into the hist's refs */
	int32_t track_ref;			/* ref to the tracked variable */
	int32_t track_slot;			/* slot of __max / __change */
	struct hist__field *owned_refs[PARAMS_MAX + 1];
	uint32_t n_owned;
	/*
	 * snapshot(): the global value, key and comm of the last snapshot.
	 * One hit at a time writes them (SNAP_BUSY); the control thread
	 * reads them without a lock (snap_read()), so they are a seqlock:
	 * SNAP_SEQ is odd while a hit writes, and every word is an atomic,
	 * so a read that overlaps a write is retried, never torn.
	 */
	uint64_t snap_val;
	uint32_t snap_updated;
	uint32_t snap_busy;			/* one snapshot update at a time */
	uint32_t snap_seq;
	uint64_t snap_key[HIST__KEY_SIZE_MAX / 8];
	uint64_t snap_comm[HIST__COMM_LEN / 8];
};

static void perr(struct hist__perr *e, int code, int msg, const char *tok)
{
	hist__perr_add(e, code, msg, tok, tok ? strlen(tok) : 0);
}

static const char *mem_chr(const char *s, const char *end, char c)
{
	return memchr(s, c, (size_t)(end - s));
}

static char *dup_span(const char *s, const char *e)
{
	return hist__strndup(s, (size_t)(e - s));
}

static void action_free(struct hist__action *a)
{
	uint32_t i;

	if (!a)
		return;
	hist__free(a->match_system);
	hist__free(a->match_event);
	hist__free(a->var_str);
	hist__free(a->action_name);
	hist__free(a->synth_name);
	for (i = 0; i < a->n_params; i++)
		hist__free(a->params[i]);
	for (i = 0; i < a->n_owned; i++)
		hist__field_free(a->owned_refs[i]);
	hist__free(a);
}

/* ---- stage 1: syntax ---------------------------------------------- */

static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

/* "a, b,c" -> params; the first one is the event with trace(). */
static int parse_params(struct hist__perr *pe, struct hist__action *a,
			const char *s, const char *end)
{
	bool first = true;

	for (;;) {
		const char *comma = mem_chr(s, end, ',');
		const char *pe_ = comma ? comma : end, *ps = s;
		char *p;

		if (a->n_params >= PARAMS_MAX) {
			perr(pe, -HIST_EINVAL, HIST_ERR_TOO_MANY_PARAMS, NULL);
			return -HIST_EINVAL;
		}
		trim(&ps, &pe_);
		if (pe_ - ps < 2) {
			hist__perr_add(pe, -HIST_EINVAL, HIST_ERR_INVALID_PARAM, ps,
				       (size_t)(pe_ - ps));
			return -HIST_EINVAL;
		}
		p = dup_span(ps, pe_);
		if (!p)
			return -HIST_ENOMEM;
		if (first && a->trace_kw)
			a->synth_name = p;
		else
			a->params[a->n_params++] = p;
		first = false;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

/* ".action(params)" after the handler. */
static int parse_action(struct hist__perr *pe, struct hist__action *a,
			const char *s, const char *end)
{
	const char *dot = mem_chr(s, end, '.'), *name, *open, *close;
	size_t name_n;

	if (!dot) {
		perr(pe, -HIST_EINVAL, HIST_ERR_ACTION_NOT_FOUND, NULL);
		return -HIST_EINVAL;
	}
	name = dot + 1;
	open = mem_chr(name, end, '(');
	if (!open) {
		perr(pe, -HIST_EINVAL, HIST_ERR_ACTION_NOT_FOUND, NULL);
		return -HIST_EINVAL;
	}
	a->action_name = dup_span(name, open);
	if (!a->action_name)
		return -HIST_ENOMEM;
	/* caret tokens must point into the command text, which outlives A */
	name_n = (size_t)(open - name);
	close = mem_chr(open + 1, end, ')');
	if (!strncmp(a->action_name, "save", 4)) {
		int ret = parse_params(pe, a, open + 1, close ? close : end);

		if (ret)
			return ret;
		if (a->handler == ONMATCH) {
			hist__perr_add(pe, -HIST_EINVAL, HIST_ERR_ACTION_MISMATCH,
				       name, name_n);
			return -HIST_EINVAL;
		}
		a->kind = ACT_SAVE;
	} else if (!strncmp(a->action_name, "snapshot", 8)) {
		if (!close) {
			hist__perr_add(pe, -HIST_EINVAL, HIST_ERR_NO_CLOSING_PAREN,
				       open + 1, (size_t)(end - open - 1));
			return -HIST_EINVAL;
		}
		if (a->handler == ONMATCH) {
			hist__perr_add(pe, -HIST_EINVAL, HIST_ERR_ACTION_MISMATCH,
				       name, name_n);
			return -HIST_EINVAL;
		}
		a->kind = ACT_SNAPSHOT;
	} else {
		a->trace_kw = !strncmp(a->action_name, "trace", 5);
		if (open + 1 < (close ? close : end) || close) {
			int ret = parse_params(pe, a, open + 1, close ? close : end);

			if (ret)
				return ret;
		}
		a->kind = ACT_TRACE;
	}
	return 0;
}

static int parse_one(struct hist__fctx *fc, const char *s, size_t n,
		     struct hist__action **out)
{
	struct hist__perr *pe = fc->err;
	const char *end = s + n, *open = memchr(s, '(', n), *close;
	struct hist__action *a = hist__zalloc(sizeof(*a));
	int ret = -HIST_EINVAL;

	if (!a)
		return -HIST_ENOMEM;
	a->track_ref = a->track_slot = -1;
	if (!strncmp(s, "onmatch(", 8))
		a->handler = ONMATCH;
	else if (!strncmp(s, "onmax(", 6))
		a->handler = ONMAX;
	else
		a->handler = ONCHANGE;
	open++;
	close = mem_chr(open, end, ')');
	if (a->handler == ONMATCH) {
		const char *dot;

		if (!close) {
			hist__perr_add(pe, -HIST_EINVAL, HIST_ERR_NO_CLOSING_PAREN,
				       open, (size_t)(end - open));
			goto fail;
		}
		dot = mem_chr(open, close, '.');
		if (!dot) {
			hist__perr_add(pe, -HIST_EINVAL, HIST_ERR_SUBSYS_NOT_FOUND,
				       open, (size_t)(close - open));
			goto fail;
		}
		a->match_system = dup_span(open, dot);
		a->match_event = dup_span(dot + 1, close);
		ret = -HIST_ENOMEM;
		if (!a->match_system || !a->match_event)
			goto fail;
		if (!hist_event_lookup(fc->ev->ctx, a->match_system, a->match_event)) {
			hist__perr_add(pe, -HIST_EINVAL, HIST_ERR_INVALID_SUBSYS_EVENT,
				       dot + 1, (size_t)(close - dot - 1));
			ret = -HIST_EINVAL;
			goto fail;
		}
	} else {
		if (!close) {
			hist__perr_add(pe, -HIST_EINVAL, -1, NULL, 0);
			goto fail;
		}
		a->var_str = dup_span(open, close);
		ret = -HIST_ENOMEM;
		if (!a->var_str)
			goto fail;
	}
	ret = parse_action(pe, a, close + 1, end);
	if (ret)
		goto fail;
	*out = a;
	return 0;
fail:
	if (!pe->code)
		pe->code = ret;
	action_free(a);
	return ret;
}

int hist__actions_parse(struct hist__fctx *fc)
{
	uint32_t i;

	for (i = 0; i < fc->nr_actions; i++) {
		struct hist__action *a = NULL;
		int ret = parse_one(fc, fc->action_text[i], fc->action_n[i], &a);

		if (ret)
			return ret;
		fc->h->actions[fc->h->nr_actions++] = a;
	}
	return 0;
}

/* ---- stage 2: resolution ------------------------------------------- */

/* A new hidden variable slot (track vars and field vars share the 16). */
static int new_slot(struct hist__hist *h)
{
	uint32_t used = h->nr_vars + h->nr_hidden_slots;

	if (used >= HIST__VARS_MAX)
		return -1;
	h->nr_hidden_slots++;
	return (int)used;
}

/* Does a user variable NAME exist on H's event?  (Hidden variables may
 * share names: the kernel only looks at user variables here.) */
static bool var_exists(const struct hist__hist *h, const char *name)
{
	return hist__event_has_var(h->ev, h, name, strlen(name));
}

/* A field of H's event held in a hidden variable (create_field_var). */
static struct hist__fvar *create_field_var(struct hist__hist *h, const char *name,
					   struct hist__perr *pe)
{
	struct hist__fctx fc;
	struct hist__fvar *fv;
	struct hist__field *val;
	int slot;

	if (h->nr_fvars + h->nr_save_vars >= HIST__FVARS_MAX) {
		perr(pe, -HIST_EINVAL, HIST_ERR_TOO_MANY_FIELD_VARS, name);
		return NULL;
	}
	memset(&fc, 0, sizeof(fc));
	fc.ev = h->ev;
	fc.h = h;
	fc.vars = &hist__var_ops;
	fc.err = pe;
	fc.flags = HIST__F_VAR;
	/* an atom only: no expressions in action params */
	fc.n_subexprs = 4;
	val = hist__field_parse_atom(&fc, name, strlen(name));
	if (!val) {
		perr(pe, -HIST_EINVAL, HIST_ERR_FIELD_VAR_PARSE_FAIL, name);
		return NULL;
	}
	if (var_exists(h, name) || (slot = new_slot(h)) < 0) {
		hist__field_free(val);
		perr(pe, -HIST_EINVAL, HIST_ERR_VAR_CREATE_FIND_FAIL, name);
		return NULL;
	}
	fv = hist__zalloc(sizeof(*fv));
	if (!fv || !(fv->name = hist__strdup(name))) {
		hist__free(fv);
		hist__field_free(val);
		pe->code = pe->code ? pe->code : -HIST_ENOMEM;
		return NULL;
	}
	/* Field variables lose signedness (b42): the kernel creates them
	 * with the field's size and type but is_signed 0. */
	fv->val = val;
	fv->slot = slot;
	return fv;
}

/* A reference from H to variable SLOT of DEF; returns its ref index. */
static int add_ref(struct hist__hist *h, struct hist__action *a,
		   struct hist__hist *def, int slot, bool is_string)
{
	struct hist__field *f = hist__zalloc(sizeof(*f));

	if (!f || a->n_owned == HIST__ARRAY_SIZE(a->owned_refs)) {
		hist__free(f);
		return -1;
	}
	f->flags = HIST__F_VAR_REF | (is_string ? HIST__F_STRING : 0);
	f->ref_hist = def;
	f->ref_var_idx = slot;
	f->var_idx = -1;
	if (hist__hist_add_ref(h, f)) {
		hist__free(f);
		return -1;
	}
	a->owned_refs[a->n_owned++] = f;
	if (def == h)
		h->has_self_refs = true;
	return f->ref_idx;
}

/* Type, size and signedness of what a param provides. */
struct ptype {
	const char *type;
	uint32_t size;
	bool is_signed;
	bool is_string;
};

static bool check_synth_field(const struct hist__synth *s, uint32_t pos,
			      const struct ptype *t)
{
	const struct hist__synth_field *f;

	if (pos >= s->nr_fields)
		return false;
	f = &s->fields[pos];
	if (strstr(t->type, "char[") && f->is_string && f->is_dynamic)
		return true;
	if (strstr(t->type, "long[") && f->is_stack)
		return true;
	if (strcmp(f->type, t->type) &&
	    (f->size != t->size || (!f->is_string && f->is_signed != t->is_signed)))
		return false;
	return true;
}

/* The compatible histogram on EV for H's keys (find_compatible_hist). */
static struct hist__hist *compatible_hist(const struct hist__hist *h,
					  struct hist_event *ev)
{
	struct hist__trigger *t;

	for (t = *hist__event_tlist_head(ev); t; t = t->next) {
		const struct hist__hist *o = t->hist;
		uint32_t i;

		if (t->kind != HIST__T_HIST || o->nr_keys != h->nr_keys)
			continue;
		for (i = 0; i < h->nr_keys; i++)
			if (o->keys[i]->key_size != h->keys[i]->key_size ||
			    o->keys[i]->is_signed != h->keys[i]->is_signed ||
			    !o->keys[i]->ef)
				break;
		if (i == h->nr_keys)
			return t->hist;
	}
	return NULL;
}

/*
 * A field of another event: a hidden histogram on it, keyed like a
 * compatible histogram there, holds "synthetic_<field>" (the kernel's
 * create_field_var_hist).
 */
static struct hist__hist *field_var_hist(struct hist__hist *h, const char *sys,
					 const char *evn, const char *field,
					 struct hist__perr *pe, int *slot,
					 const char *echo, size_t echo_n)
{
	struct hist_event *ev = hist__ctx_find_event(h->ev->ctx, sys, evn);
	struct hist__hist *compat, *def;
	struct hist__trigger *t;
	char cmd[HIST__CMD_MAX], var[300];
	struct hist__sb sb;
	uint32_t i;
	int ret;

	if (h->nr_var_hists >= HIST__FVARS_MAX) {
		perr(pe, -HIST_EINVAL, HIST_ERR_TOO_MANY_FIELD_VARS, field);
		return NULL;
	}
	if (!ev)
		ev = hist_event_lookup(h->ev->ctx, sys, evn);
	if (!ev) {
		perr(pe, -HIST_EINVAL, HIST_ERR_EVENT_FILE_NOT_FOUND, field);
		return NULL;
	}
	compat = compatible_hist(h, ev);
	if (!compat) {
		perr(pe, -HIST_EINVAL, HIST_ERR_HIST_NOT_FOUND, field);
		return NULL;
	}
	hist__sb_init_buf(&sb, var, sizeof(var));
	hist__sb_puts(&sb, "synthetic_");
	hist__sb_puts(&sb, field);
	hist__sb_finish(&sb);
	def = hist__event_var(ev, var, strlen(var), slot);
	if (def)
		return def;
	hist__sb_init_buf(&sb, cmd, sizeof(cmd));
	hist__sb_puts(&sb, "keys=");
	for (i = 0; i < compat->nr_keys; i++) {
		if (i)
			hist__sb_putc(&sb, ',');
		hist__sb_puts(&sb, compat->keys[i]->ef->name);
	}
	hist__sb_puts(&sb, ":");
	hist__sb_puts(&sb, var);
	hist__sb_putc(&sb, '=');
	hist__sb_puts(&sb, field);
	if (compat->t->filter_text) {
		hist__sb_puts(&sb, " if ");
		hist__sb_puts(&sb, compat->t->filter_text);
	}
	hist__sb_finish(&sb);
	/* errors of this hidden command log against the user's command */
	ret = ev->ctx->hist_command(ev, cmd, strlen(cmd), false, echo, echo_n, pe, &t);
	if (ret) {
		perr(pe, ret < 0 ? ret : -HIST_EINVAL, HIST_ERR_HIST_CREATE_FAIL, field);
		return NULL;
	}
	def = hist__event_var(ev, var, strlen(var), slot);
	if (!def) {
		perr(pe, -HIST_EINVAL, HIST_ERR_SYNTH_VAR_NOT_FOUND, field);
		return NULL;
	}
	h->var_hists[h->nr_var_hists++] = t;
	return def;
}

/* Split "sys.event.rest" (strsep twice on '.'); 0, or -1 for "a.b". */
static int split_param(char *p, char **sys, char **evn, char **rest)
{
	char *d1 = strchr(p, '.'), *d2;

	*sys = *evn = NULL;
	*rest = p;
	if (!d1)
		return 0;
	d2 = strchr(d1 + 1, '.');
	if (!d2)
		return -1;
	*d1 = *d2 = 0;
	*sys = p;
	*evn = d1 + 1;
	*rest = d2 + 1;
	return 0;
}

static bool is_this_event(const struct hist__hist *h, const char *sys,
			  const char *evn)
{
	return !sys || (!strcmp(sys, h->ev->desc.system) &&
			!strcmp(evn, h->ev->desc.name));
}

static int trace_create(struct hist__hist *h, struct hist__action *a,
			struct hist__perr *pe, const char *echo, size_t echo_n)
{
	const char *name = a->trace_kw ? a->synth_name : a->action_name;
	struct hist__synth *s;
	uint32_t i, pos = 0;

	s = name ? hist__synth_find(h->ev->ctx, name, strlen(name)) : NULL;
	if (!s) {
		perr(pe, -HIST_EINVAL, HIST_ERR_SYNTH_EVENT_NOT_FOUND, name);
		return -HIST_EINVAL;
	}
	for (i = 0; i < a->n_params; i++) {
		char buf[512], *sys, *evn, *rest;
		struct hist__hist *def = NULL;
		struct ptype t;
		int slot = -1, ref;

		hist__strlcpy(buf, a->params[i], sizeof(buf));
		if (split_param(buf, &sys, &evn, &rest))
			return -HIST_EINVAL;
		if (rest[0] == '$') {
			const struct hist__field *vf;

			if (is_this_event(h, sys, evn) &&
			    (slot = hist__hist_find_var(h, rest + 1, strlen(rest + 1))) >= 0) {
				def = h;
			} else {
				struct hist__fctx fc;

				memset(&fc, 0, sizeof(fc));
				fc.ev = h->ev;
				fc.h = h;
				fc.vars = &hist__var_ops;
				fc.err = pe;
				if (!sys && a->handler == ONMATCH) {
					sys = a->match_system;
					evn = a->match_event;
				}
				def = hist__find_var_hist(&fc, sys, sys ? strlen(sys) : 0,
							  evn, evn ? strlen(evn) : 0,
							  rest + 1, strlen(rest + 1), &slot);
			}
			if (!def) {
				perr(pe, -HIST_EINVAL, HIST_ERR_PARAM_NOT_FOUND, rest + 1);
				return -HIST_EINVAL;
			}
			vf = def->vars[slot];
			t.type = vf->type ? vf->type : "u64";
			t.size = vf->size;
			t.is_signed = vf->is_signed;
			t.is_string = (vf->flags & HIST__F_STRING) != 0;
		} else {
			struct hist__fvar *fv = NULL;

			if (is_this_event(h, sys, evn))
				fv = create_field_var(h, rest, pe);
			if (fv) {
				h->fvars[h->nr_fvars++] = fv;
				def = h;
				slot = fv->slot;
				t.type = fv->val->type;
				t.size = fv->val->size;
				t.is_signed = false;
				t.is_string = (fv->val->flags & HIST__F_STRING) != 0;
			} else {
				const struct hist__field *vf;

				if (!sys && a->handler == ONMATCH) {
					sys = a->match_system;
					evn = a->match_event;
				}
				if (!evn)
					return pe->code ? pe->code : -HIST_EINVAL;
				def = field_var_hist(h, sys, evn, rest, pe, &slot,
						     echo, echo_n);
				if (!def)
					return pe->code ? pe->code : -HIST_EINVAL;
				vf = def->vars[slot];
				t.type = vf->type;
				t.size = vf->size;
				t.is_signed = vf->is_signed;
				t.is_string = (vf->flags & HIST__F_STRING) != 0;
			}
		}
		if (!check_synth_field(s, pos, &t)) {
			perr(pe, -HIST_EINVAL, HIST_ERR_SYNTH_TYPE_MISMATCH, rest);
			return -HIST_EINVAL;
		}
		ref = add_ref(h, a, def, slot, t.is_string);
		if (ref < 0) {
			pe->code = pe->code ? pe->code : -HIST_ENOMEM;
			return -HIST_ENOMEM;
		}
		a->param_ref[i] = ref;
		pos++;
	}
	if (pos != s->nr_fields) {
		perr(pe, -HIST_EINVAL, HIST_ERR_SYNTH_COUNT_MISMATCH, s->name);
		return -HIST_EINVAL;
	}
	a->synth = s;
	s->users++;
	return 0;
}

static int save_create(struct hist__hist *h, struct hist__action *a,
		       struct hist__perr *pe)
{
	uint32_t i;

	if (h->nr_save_vars) {
		perr(pe, -HIST_EEXIST, HIST_ERR_TOO_MANY_SAVE_ACTIONS, NULL);
		return -HIST_EEXIST;
	}
	for (i = 0; i < a->n_params; i++) {
		struct hist__fvar *fv = create_field_var(h, a->params[i], pe);

		if (!fv) {
			perr(pe, -HIST_EINVAL, HIST_ERR_FIELD_VAR_CREATE_FAIL,
			     a->params[i]);
			return pe->code;
		}
		h->save_vars[h->nr_save_vars++] = fv;
	}
	return 0;
}

static int track_create(struct hist__hist *h, struct hist__action *a,
			struct hist__perr *pe, const char *echo, size_t echo_n)
{
	const char *v = a->var_str;
	int slot;

	if (v[0] != '$') {
		perr(pe, -HIST_EINVAL, HIST_ERR_ONX_NOT_VAR, v);
		return -HIST_EINVAL;
	}
	slot = hist__hist_find_var(h, v + 1, strlen(v + 1));
	if (slot < 0) {
		perr(pe, -HIST_EINVAL, HIST_ERR_ONX_VAR_NOT_FOUND, v + 1);
		return -HIST_EINVAL;
	}
	a->track_ref = add_ref(h, a, h, slot, false);
	if (a->track_ref < 0)
		return -HIST_ENOMEM;
	a->track_slot = new_slot(h);
	if (a->track_slot < 0) {
		perr(pe, -HIST_EINVAL, HIST_ERR_ONX_VAR_CREATE_FAIL, NULL);
		return -HIST_EINVAL;
	}
	if (a->kind == ACT_TRACE)
		return trace_create(h, a, pe, echo, echo_n);
	if (a->kind == ACT_SAVE)
		return save_create(h, a, pe);
	return 0;
}

int hist__actions_create(struct hist__hist *h, struct hist__perr *pe)
{
	char echo[HIST__CMD_MAX + 8];
	size_t echo_n;
	uint32_t i;
	int ret = 0;

	/* hidden histograms log against the user's command: rebuild it */
	{
		struct hist__sb sb;

		hist__sb_init_buf(&sb, echo, sizeof(echo));
		hist__sb_puts(&sb, "hist:");
		hist__sb_puts(&sb, h->cmd ? h->cmd : "");
		hist__sb_finish(&sb);
		echo_n = strlen(echo);
	}
	for (i = 0; i < h->nr_actions && !ret; i++) {
		struct hist__action *a = h->actions[i];

		if (a->handler == ONMATCH)
			ret = trace_create(h, a, pe, echo, echo_n);
		else
			ret = track_create(h, a, pe, echo, echo_n);
	}
	if (ret) {
		hist__actions_release(h);
		if (!pe->code)
			pe->code = ret;
	}
	return ret;
}

void hist__actions_release(struct hist__hist *h)
{
	uint32_t i;

	if (!h)
		return;
	for (i = 0; i < h->nr_actions; i++) {
		struct hist__action *a = h->actions[i];

		if (a->synth) {
			a->synth->users--;
			a->synth = NULL;
		}
	}
	/* the hidden histograms go with their owner */
	for (i = h->nr_var_hists; i-- > 0;)
		/* (a failure keeps it registered until the context goes) */
		(void)hist__trigger_remove(h->var_hists[i]->ev, h->var_hists[i]);
	h->nr_var_hists = 0;
}

void hist__actions_free(struct hist__hist *h)
{
	uint32_t i;

	for (i = 0; i < h->nr_actions; i++)
		action_free(h->actions[i]);
	for (i = 0; i < h->nr_fvars; i++) {
		hist__field_free(h->fvars[i]->val);
		hist__free(h->fvars[i]->name);
		hist__free(h->fvars[i]);
	}
	for (i = 0; i < h->nr_save_vars; i++) {
		hist__field_free(h->save_vars[i]->val);
		hist__free(h->save_vars[i]->name);
		hist__free(h->save_vars[i]);
	}
}

/* ---- identity and printing ------------------------------------------ */

static bool str_eq(const char *a, const char *b)
{
	return (!a || !b) ? a == b : !strcmp(a, b);
}

bool hist__actions_match(const struct hist__hist *a, const struct hist__hist *b)
{
	uint32_t i, j;

	if (a->nr_actions != b->nr_actions)
		return false;
	for (i = 0; i < a->nr_actions; i++) {
		const struct hist__action *x = a->actions[i], *y = b->actions[i];

		if (x->handler != y->handler || x->kind != y->kind ||
		    x->n_params != y->n_params ||
		    !str_eq(x->action_name, y->action_name) ||
		    !str_eq(x->synth_name, y->synth_name) ||
		    !str_eq(x->match_system, y->match_system) ||
		    !str_eq(x->match_event, y->match_event) ||
		    !str_eq(x->var_str, y->var_str))
			return false;
		for (j = 0; j < x->n_params; j++)
			if (strcmp(x->params[j], y->params[j]))
				return false;
	}
	return true;
}

void hist__actions_print_spec(struct hist__sb *sb, const struct hist__hist *h)
{
	uint32_t i, j;

	for (i = 0; i < h->nr_actions; i++) {
		const struct hist__action *a = h->actions[i];

		if (a->handler == ONMATCH) {
			hist__sb_puts(sb, ":onmatch(");
			hist__sb_puts(sb, a->match_system);
			hist__sb_putc(sb, '.');
			hist__sb_puts(sb, a->match_event);
			hist__sb_puts(sb, ").");
		} else {
			hist__sb_puts(sb, a->handler == ONMAX ? ":onmax(" : ":onchange(");
			hist__sb_puts(sb, a->var_str);
			hist__sb_puts(sb, ").");
		}
		hist__sb_puts(sb, a->action_name);
		hist__sb_putc(sb, '(');
		if (a->kind == ACT_SAVE) {
			for (j = 0; j < h->nr_save_vars; j++) {
				if (j)
					hist__sb_putc(sb, ',');
				hist__sb_puts(sb, h->save_vars[j]->name);
			}
		} else if (a->kind == ACT_TRACE) {
			if (a->trace_kw)
				hist__sb_puts(sb, a->synth_name);
			for (j = 0; j < a->n_params; j++) {
				if (j || a->trace_kw)
					hist__sb_putc(sb, ',');
				hist__sb_puts(sb, a->params[j]);
			}
		}
		hist__sb_putc(sb, ')');
	}
}

static uint64_t *slot_ptr(const struct hist__hist *h, uint8_t *payload, int slot)
{
	return (uint64_t *)(void *)(payload + h->var_off) + slot;
}

/* A saved text (V: its slot, or 0 while unset) as one hit left it (rule
 * 5), through TEXT (HIST__STR_VAR_LEN_MAX bytes).  Context: control. */
static void print_saved(struct hist__sb *sb, uint64_t v, char *text)
{
	int32_t n = v ? hist__sslot_read((const void *)(uintptr_t)v, text,
					 HIST__STR_VAR_LEN_MAX, 0) : -1;
	const char *s = "(null)";

	if (n >= 0) {
		text[n ? n - 1 : 0] = 0;
		s = text;
	}
	hist__sb_str(sb, s, strlen(s), 32, true);
}

void hist__actions_print_entry(struct hist__sb *sb, const struct hist__hist *h,
			       struct hist_map_elt *elt)
{
	uint8_t *payload = hist__map_elt_payload(elt);
	uint32_t i, j;

	for (i = 0; i < h->nr_actions; i++) {
		const struct hist__action *a = h->actions[i];

		if (a->kind == ACT_SNAPSHOT || a->handler == ONMATCH)
			continue;
		hist__sb_puts(sb, a->handler == ONMAX ? "\n\tmax: " : "\n\tchanged: ");
		hist__sb_u64(sb, hist__load_relaxed(slot_ptr(h, payload, a->track_slot)),
			     10, ' ');
		for (j = 0; j < h->nr_save_vars; j++) {
			const struct hist__fvar *fv = h->save_vars[j];
			uint64_t v = hist__load_relaxed(slot_ptr(h, payload, fv->slot));

			hist__sb_puts(sb, "  ");
			hist__sb_puts(sb, fv->name);
			hist__sb_puts(sb, ": ");
			if (fv->val->flags & HIST__F_STRING) {
				char text[HIST__STR_VAR_LEN_MAX];

				print_saved(sb, v, text);
			} else {
				hist__sb_u64(sb, v, 10, ' ');
			}
		}
	}
}

/* ---- run time --------------------------------------------------------- */

static void store_fvar(const struct hist__hist *h, const struct hist__fvar *fv,
		       struct hist__eval *e, uint8_t *payload)
{
	const struct hist__field *f = fv->val;
	uint64_t v;

	if (f->flags & HIST__F_STRING) {
		uint8_t *buf = payload + fv->str_off;
		const char *s;
		size_t n = f->str(f, e, &s);
		size_t max = f->size < HIST__STR_VAR_LEN_MAX ? f->size : HIST__STR_VAR_LEN_MAX;

		if (n > max - 1)
			n = max - 1;
		/* rule 5: a busy slot keeps the other hit's text */
		(void)hist__sslot_write(buf, s, (uint32_t)n, (uint32_t)n + 1);
		v = (uint64_t)(uintptr_t)buf;
	} else {
		v = hist__field_val(f, e);
	}
	hist__store_relaxed(slot_ptr(h, payload, fv->slot), v);
	/* release: a reader that sees the set bit sees the value */
	hist__or_release((uint64_t *)(void *)(payload + h->var_set_off),
			 1ull << fv->slot);
}

/* Read every reference of H to its own variables from this element
 * (texts copied out of their slots, rule 5). */
static bool resolve_self(const struct hist__hist *h, uint8_t *payload,
			 struct hist__eval *e)
{
	uint64_t *refs = e->refs;
	uint64_t set = hist__load_acquire((uint64_t *)(void *)(payload + h->var_set_off));
	uint32_t i;

	for (i = 0; i < h->nr_refs; i++) {
		const struct hist__field *r = h->refs[i];

		if (r->ref_hist != h)
			continue;
		if (!(set & (1ull << r->ref_var_idx)))
			return false;
		refs[i] = hist__load_relaxed(slot_ptr(h, payload, r->ref_var_idx));
		if ((r->flags & (HIST__F_STRING | HIST__F_STACKTRACE)) &&
		    !(refs[i] = hist__ref_text(refs[i], e->texts, i)))
			return false;
	}
	return true;
}

static void emit(const struct hist__action *a, struct hist__eval *e)
{
	uint64_t vals[PARAMS_MAX];
	uint32_t i;

	for (i = 0; i < a->n_params; i++)
		vals[i] = e->refs[a->param_ref[i]];
	hist__synth_emit(a->synth, vals, e->r);
}

/*
 * The seqlock's write side, by the hit that holds A->snap_busy: V, KEY
 * (the hist's key size) and COMM (NULL: kept as it is).
 */
static void snap_write(struct hist__action *a, const struct hist__hist *h, uint64_t v,
		       const uint8_t *key, const uint8_t *comm)
{
	uint64_t w[HIST__KEY_SIZE_MAX / 8];
	uint32_t seq = hist__load_relaxed(&a->snap_seq), i, n = (h->key_size + 7) / 8;

	memset(w, 0, n * 8);
	memcpy(w, key, h->key_size);
	/* relaxed: only the holder of snap_busy writes it; the release
	 * stores below keep it before them */
	hist__store_relaxed(&a->snap_seq, seq + 1);
	/* release, each word: a reader whose acquire load sees one of them
	 * then sees SEQ odd or moved on, and retries */
	hist__store_release(&a->snap_val, v);
	for (i = 0; i < n; i++)
		hist__store_release(&a->snap_key[i], w[i]);
	if (comm) {
		memcpy(w, comm, HIST__COMM_LEN);
		for (i = 0; i < HIST__COMM_LEN / 8; i++)
			hist__store_release(&a->snap_comm[i], w[i]);
	}
	hist__store_relaxed(&a->snap_updated, 1u);
	/* release: the words are complete before SEQ is even again */
	hist__store_release(&a->snap_seq, seq + 2);
}

/* The seqlock's read side (control thread): A's value, key and comm of
 * one and the same snapshot, into OUT.  Spins while a hit writes them
 * (a few hundred bytes: a hit never waits for a reader). */
static void snap_read(const struct hist__action *a, const struct hist__hist *h,
		      struct hist__action_info *out)
{
	uint64_t w[HIST__KEY_SIZE_MAX / 8], c[HIST__COMM_LEN / 8];
	uint32_t seq, i, n = (h->key_size + 7) / 8;

	for (;; hist__cpu_relax()) {
		/* acquire: pairs with the release that made SEQ even */
		seq = hist__load_acquire(&a->snap_seq);
		if (seq & 1)
			continue;
		/* acquire, each: pairs with snap_write()'s release stores,
		 * and keeps the second load of SEQ after them */
		out->snap_val = hist__load_acquire(&a->snap_val);
		for (i = 0; i < n; i++)
			w[i] = hist__load_acquire(&a->snap_key[i]);
		for (i = 0; i < HIST__COMM_LEN / 8; i++)
			c[i] = hist__load_acquire(&a->snap_comm[i]);
		if (hist__load_relaxed(&a->snap_seq) == seq)
			break;
	}
	memcpy(out->snap_key, w, h->key_size);
	memcpy(out->snap_comm, c, HIST__COMM_LEN);
}

static void snapshot(struct hist__action *a, const struct hist__hist *h,
		     struct hist__eval *e, uint64_t v, const uint8_t *key,
		     uint8_t *payload)
{
	const struct hist_host *host = e->r->host;
	uint64_t last = hist__load_relaxed(&a->snap_val);

	uint32_t idle = 0;

	/* the snapshot tracks a global max/change across all entries */
	if (a->handler == ONMAX ? v <= last : v == last)
		return;
	/* One snapshot at a time (the kernel holds a lock here; a hit must
	 * not wait, so a racing hit gives up its snapshot instead).
	 * acquire: the holder's key and value stores are visible to us. */
	if (!hist__cas_acq_rel(&a->snap_busy, &idle, 1u))
		return;
	last = hist__load_relaxed(&a->snap_val);
	if (a->handler == ONMAX ? v > last : v != last) {
		snap_write(a, h, v, key, h->needs_comm ? payload + h->comm_off : NULL);
		if (host && host->snapshot)
			host->snapshot(host->data, h->ev, e->r->hit);
	}
	/* release: publishes the key and value to the next holder */
	hist__store_release(&a->snap_busy, 0u);
}

/*
 * Move the tracked value of an entry to V if V is a new max (or a change).
 * A CAS, so that hits racing on one entry never move a max backwards and
 * exactly one of them runs the action for each new value: the values
 * saved with it are then those of some event that set a max, never above
 * the max printed.  (The kernel updates with plain stores and can lose a
 * max to a racing CPU.)
 */
static bool track_update(uint64_t *track, uint64_t v, bool max)
{
	uint64_t cur = hist__load_relaxed(track);

	for (;;) {
		if (max ? v <= cur : v == cur)
			return false;
		/* acq_rel: orders nothing but the value itself; the saved
		 * fields are written after and read by the control thread */
		if (hist__cas_acq_rel(track, &cur, v))
			return true;
	}
}

void hist__actions_run(const struct hist__hist *h, struct hist__eval *e,
		       struct hist_map_elt *elt, const uint8_t *key)
{
	uint8_t *payload = hist__map_elt_payload(elt);
	uint32_t i, j;

	for (i = 0; i < h->nr_fvars; i++)
		store_fvar(h, h->fvars[i], e, payload);
	if (!h->nr_actions)
		return;
	if (h->has_self_refs && !resolve_self(h, payload, e))
		return;
	for (i = 0; i < h->nr_actions; i++) {
		struct hist__action *a = h->actions[i];
		uint64_t v, *track;

		if (a->handler == ONMATCH) {
			emit(a, e);
			continue;
		}
		v = e->refs[a->track_ref];
		track = slot_ptr(h, payload, a->track_slot);
		if (!track_update(track, v, a->handler == ONMAX))
			continue;
		if (a->kind == ACT_SAVE) {
			for (j = 0; j < h->nr_save_vars; j++)
				store_fvar(h, h->save_vars[j], e, payload);
		} else if (a->kind == ACT_TRACE) {
			emit(a, e);
		} else {
			snapshot(a, h, e, v, key, payload);
		}
	}
}

void hist__actions_print_debug(struct hist__sb *sb, const struct hist__hist *h)
{
	uint32_t i;

	if (!h->nr_actions)
		return;
	hist__sb_puts(sb, "  action tracking variables (for onmax()/onchange()/onmatch()):\n\n");
	for (i = 0; i < h->nr_actions; i++) {
		const struct hist__action *a = h->actions[i];
		struct hist__sb *s = sb;

		hist__sb_puts(s, "    hist_data->actions[");
		hist__sb_u64(s, i, 0, ' ');
		if (a->handler == ONMATCH) {
			hist__sb_puts(s, "].match_data.event_system: ");
			hist__sb_puts(s, a->match_system);
			hist__sb_puts(s, "\n    hist_data->actions[");
			hist__sb_u64(s, i, 0, ' ');
			hist__sb_puts(s, "].match_data.event: ");
			hist__sb_puts(s, a->match_event);
			hist__sb_putc(s, '\n');
		} else {
			hist__sb_puts(s, "].track_data.var_str: ");
			hist__sb_puts(s, a->var_str);
			hist__sb_puts(s, "\n    hist_data->actions[");
			hist__sb_u64(s, i, 0, ' ');
			hist__sb_puts(s, "].track_data.track_var.idx: ");
			hist__sb_u64(s, (uint64_t)a->track_slot, 0, ' ');
			hist__sb_putc(s, '\n');
		}
	}
	if (!h->nr_save_vars)
		return;
	hist__sb_puts(sb, "\n  save action variables (save() params):\n\n");
	for (i = 0; i < h->nr_save_vars; i++) {
		hist__sb_puts(sb, "    hist_data->save_vars[");
		hist__sb_u64(sb, i, 0, ' ');
		hist__sb_puts(sb, "]: ");
		hist__sb_puts(sb, h->save_vars[i]->name);
		hist__sb_puts(sb, " (var.idx ");
		hist__sb_u64(sb, (uint64_t)h->save_vars[i]->slot, 0, ' ');
		hist__sb_puts(sb, ")\n");
	}
}

void hist__actions_info(const struct hist__hist *h, uint32_t i,
			struct hist__action_info *out)
{
	const struct hist__action *a = h->actions[i];

	out->handler = a->handler == ONMATCH ? HIST__H_ONMATCH
		       : a->handler == ONMAX ? HIST__H_ONMAX : HIST__H_ONCHANGE;
	out->kind = a->kind == ACT_TRACE ? HIST__A_TRACE
		    : a->kind == ACT_SAVE ? HIST__A_SAVE : HIST__A_SNAPSHOT;
	out->var_str = a->var_str;
	out->track_slot = a->track_slot;
	out->snap_taken = hist__load_relaxed(&a->snap_updated) != 0;
	if (out->snap_taken)
		snap_read(a, h, out);
}

const struct hist__action_ops hist__actions_ops = {
	.run = hist__actions_run,
	.match = hist__actions_match,
	.release = hist__actions_release,
	.free = hist__actions_free,
};
