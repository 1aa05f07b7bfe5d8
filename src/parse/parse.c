/* SPDX-License-Identifier: MIT */
/*
 * The hist trigger grammar: "keys=...:vals=...:sort=...[ if filter]" into
 * a compiled struct hist__hist.
 *
 * The order of the steps below is the kernel's, and it is observable: it
 * decides which of several errors in one command is reported, and the
 * caret of each error is the first occurrence of the offending token in
 * the echoed command (hist__perr.tok, resolved by the caller).
 */
#include "parse/parse.h"
#include "common/kversion.h"
#include "actions/actions.h"
#include "filter/filter.h"

/* What the attribute scan found, before any field is parsed. */
struct attrs {
	const char *keys, *vals, *sort, *name, *clock;
	size_t keys_n, vals_n, sort_n, name_n, clock_n;
	const char *assign[HIST__VARS_MAX];
	size_t assign_n[HIST__VARS_MAX];
	uint32_t nr_assign;
	const char *action[HIST__ACTIONS_MAX];
	size_t action_n[HIST__ACTIONS_MAX];
	uint32_t nr_actions;
	uint32_t map_bits;
	bool pause, cont, clear, nohitcount;
};

static void perr(struct hist__perr *e, int code, int msg, const char *tok,
		 size_t n)
{
	hist__perr_add(e, code, msg, tok, n);
}

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);

	return n >= k && !memcmp(s, p, k);
}

static bool eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(s, lit, n);
}

static const char *find_chr(const char *s, size_t n, char c)
{
	return memchr(s, c, n);
}

/* size=N as the kernel's kstrtoul() reads it (base 0 after an optional
 * '+'; -ERANGE past 64 bits: b83-size-range), rounded up to a power of
 * two, 2^7..2^max_bits. */
static int parse_map_size(const char *s, size_t n, uint32_t max_bits,
			  uint32_t *bits)
{
	uint64_t v;
	uint32_t b = 0;
	int ret;

	if (n && *s == '+') {
		s++;
		n--;
	}
	ret = hist__parse_u64(s, n, 0, &v);
	if (ret)
		return ret;
	while (b < 64 && (1ull << b) < v)
		b++;
	if (b < 7 || b > max_bits)
		return -HIST_EINVAL;
	*bits = b;
	return 0;
}

static int parse_assignment(struct attrs *a, const char *s, size_t n,
			    uint32_t max_bits, struct hist__perr *e)
{
	if (has_prefix(s, n, "key=") || has_prefix(s, n, "keys=")) {
		a->keys = s;
		a->keys_n = n;
	} else if (has_prefix(s, n, "val=") || has_prefix(s, n, "vals=") ||
		   has_prefix(s, n, "values=")) {
		a->vals = s;
		a->vals_n = n;
	} else if (has_prefix(s, n, "sort=")) {
		a->sort = s;
		a->sort_n = n;
	} else if (has_prefix(s, n, "name=")) {
		a->name = s;
		a->name_n = n;
	} else if (has_prefix(s, n, "clock=")) {
		const char *v = s + 6;
		size_t m = n - 6;

		while (m && (*v == ' ' || *v == '\t')) {
			v++;
			m--;
		}
		while (m && (v[m - 1] == ' ' || v[m - 1] == '\t'))
			m--;
		a->clock = v;
		a->clock_n = m;
	} else if (has_prefix(s, n, "size=")) {
		int ret = parse_map_size(s + 5, n - 5, max_bits, &a->map_bits);

		if (ret) {
			perr(e, ret, -1, NULL, 0);
			return ret;
		}
	} else {
		if (a->nr_assign == HIST__VARS_MAX) {
			perr(e, -HIST_EINVAL, HIST_ERR_TOO_MANY_VARS, s, n);
			return -HIST_EINVAL;
		}
		a->assign[a->nr_assign] = s;
		a->assign_n[a->nr_assign++] = n;
	}
	return 0;
}

static int parse_attrs(struct attrs *a, const char *s, size_t n,
		       const struct hist_ctx_opts *o, struct hist__perr *e)
{
	const char *end = s + n;

	memset(a, 0, sizeof(*a));
	while (s <= end) {
		const char *colon = find_chr(s, (size_t)(end - s), ':');
		size_t len = colon ? (size_t)(colon - s) : (size_t)(end - s);
		const char *eqs = find_chr(s, len, '=');
		int ret = 0;

		if (eqs) {
			if (eqs + 1 == s + len) {
				perr(e, -HIST_EINVAL, HIST_ERR_EMPTY_ASSIGNMENT, s, len);
				return -HIST_EINVAL;
			}
			ret = parse_assignment(a, s, len, o->max_map_bits, e);
		} else if ((eq(s, len, "nohitcount") || eq(s, len, "NOHC")) &&
			   hist__kv_new(o->kernel, HIST__KV_NOHITCOUNT)) {
			a->nohitcount = true;
		} else if (eq(s, len, "pause")) {
			a->pause = true;
		} else if (eq(s, len, "cont") || eq(s, len, "continue")) {
			a->cont = true;
		} else if (eq(s, len, "clear")) {
			a->clear = true;
		} else if (a->nr_actions < HIST__ACTIONS_MAX &&
			   (has_prefix(s, len, "onmatch(") ||
			    has_prefix(s, len, "onmax(") ||
			    has_prefix(s, len, "onchange("))) {
			a->action[a->nr_actions] = s;
			a->action_n[a->nr_actions++] = len;
		} else {
			ret = -HIST_EINVAL;
			perr(e, ret, -1, NULL, 0);
		}
		if (ret)
			return ret;
		if (!colon)
			break;
		s = colon + 1;
	}
	if (!a->keys) {
		perr(e, -HIST_EINVAL, -1, NULL, 0);
		return -HIST_EINVAL;
	}
	return 0;
}

/* ---- variable definitions ---------------------------------------- */

static int parse_var_defs(struct hist__fctx *fc, const struct attrs *a)
{
	uint32_t i;

	for (i = 0; i < a->nr_assign; i++) {
		const char *s = a->assign[i], *end = s + a->assign_n[i];
		uint32_t j;

		/* At most 16 definitions are read from one attribute; the
		 * rest of it is ignored, as the kernel does (b24). */
		for (j = 0; j < HIST__VARS_MAX && s <= end; j++) {
			const char *comma = find_chr(s, (size_t)(end - s), ',');
			size_t len = comma ? (size_t)(comma - s) : (size_t)(end - s);
			const char *eqs = find_chr(s, len, '=');

			if (!eqs) {
				perr(fc->err, -HIST_EINVAL,
				     HIST_ERR_MALFORMED_ASSIGNMENT, s, len);
				return -HIST_EINVAL;
			}
			if (fc->nr_defs == HIST__VARS_MAX) {
				perr(fc->err, -HIST_EINVAL, HIST_ERR_TOO_MANY_VARS,
				     s, (size_t)(eqs - s));
				return -HIST_EINVAL;
			}
			fc->defs[fc->nr_defs].name = s;
			fc->defs[fc->nr_defs].name_n = (size_t)(eqs - s);
			fc->defs[fc->nr_defs].expr = eqs + 1;
			fc->defs[fc->nr_defs].expr_n = len - (size_t)(eqs - s) - 1;
			fc->nr_defs++;
			if (!comma)
				break;
			s = comma + 1;
		}
	}
	return 0;
}

/* ---- values, variables, keys ------------------------------------- */

static int add_hitcount(struct hist__hist *h)
{
	struct hist__fctx fc;
	struct hist__perr e = { 0 };

	memset(&fc, 0, sizeof(fc));
	fc.ev = h->ev;
	fc.h = h;
	fc.vars = &hist__var_ops;
	fc.err = &e;
	h->vals[0] = hist__field_parse(&fc, "hitcount", 8);
	if (!h->vals[0])
		return -HIST_ENOMEM;
	h->nr_vals = 1;
	return 0;
}

/* Modifiers that values (and, fewer, variables) may not carry. */
static int check_val_modifiers(struct hist__fctx *fc, struct hist__field *f,
			       bool is_var, const char *s, size_t n)
{
	uint32_t bad = HIST__F_BUCKET | HIST__F_LOG2;

	const struct hist__kv_cell *kv;

	if (is_var)
		bad |= HIST__F_GRAPH | HIST__F_PERCENT;
	else
		bad |= HIST__F_SYM | HIST__F_SYM_OFFSET | HIST__F_SYSCALL |
		       HIST__F_STACKTRACE;
	if (f->flags & bad) {
		perr(fc->err, -HIST_EINVAL, HIST_ERR_BAD_FIELD_MODIFIER, s, n);
		return -HIST_EINVAL;
	}
	kv = hist__kv(fc->ev->kernel, HIST__KV_VAL_PERCENT);
	if (!is_var && (f->flags & (HIST__F_GRAPH | HIST__F_PERCENT)) &&
	    kv->how == HIST__KV_REJECT) {
		/* the caret at the value, as for the modifiers above */
		perr(fc->err, -HIST_EINVAL, kv->msg, s, n);
		return -HIST_EINVAL;
	}
	return 0;
}

static int create_vals(struct hist__fctx *fc, const struct attrs *a)
{
	struct hist__hist *h = fc->h;
	const char *s, *end;
	uint32_t i, n_hitcount = 0;
	int ret;

	ret = add_hitcount(h);
	if (ret)
		return ret;
	if (!a->vals)
		goto out;
	s = find_chr(a->vals, a->vals_n, '=') + 1;
	end = a->vals + a->vals_n;
	for (i = 0; i < HIST__VALS_MAX && h->nr_vals < HIST__VALS_MAX; i++) {
		const char *comma = find_chr(s, (size_t)(end - s), ',');
		size_t len = comma ? (size_t)(comma - s) : (size_t)(end - s);
		struct hist__field *f;

		if (eq(s, len, "hitcount") && !n_hitcount++)
			goto next;
		fc->flags = 0;
		f = hist__field_parse(fc, s, len);
		if (!f)
			return fc->err->code ? fc->err->code : -HIST_EINVAL;
		h->vals[h->nr_vals++] = f;
		if (check_val_modifiers(fc, f, false, s, len))
			return -HIST_EINVAL;
next:
		if (!comma) {
			s = NULL;
			break;
		}
		s = comma + 1;
	}
	/* A third explicit value is an error, but a trailing "hitcount"
	 * is tolerated. */
	if (s && !eq(s, (size_t)(end - s), "hitcount")) {
		perr(fc->err, -HIST_EINVAL, -1, NULL, 0);
		return -HIST_EINVAL;
	}
out:
	if (h->nr_vals == 1 && a->nohitcount) {
		perr(fc->err, -HIST_ENOENT, HIST_ERR_NEED_NOHC_VAL, NULL, 0);
		return -HIST_ENOENT;
	}
	return 0;
}

static int create_vars(struct hist__fctx *fc, bool remove)
{
	struct hist__hist *h = fc->h;
	uint32_t i;

	for (i = 0; i < fc->nr_defs; i++) {
		const char *name = fc->defs[i].name;
		size_t nn = fc->defs[i].name_n;
		struct hist__field *f;

		if (!remove && hist__event_has_var(h->ev, h, name, nn)) {
			perr(fc->err, -HIST_EINVAL, HIST_ERR_DUPLICATE_VAR, name, nn);
			return -HIST_EINVAL;
		}
		fc->flags = HIST__F_VAR;
		fc->nr_split_defs = i;
		f = hist__field_parse(fc, fc->defs[i].expr, fc->defs[i].expr_n);
		if (!f)
			return fc->err->code ? fc->err->code : -HIST_EINVAL;
		f->var_name = hist__strndup(name, nn);
		h->vars[h->nr_vars++] = f;
		if (!f->var_name)
			return -HIST_ENOMEM;
		if (check_val_modifiers(fc, f, true, fc->defs[i].expr,
					fc->defs[i].expr_n))
			return -HIST_EINVAL;
	}
	fc->nr_split_defs = fc->nr_defs;
	return 0;
}

static bool has_refs(const struct hist__field *f)
{
	return f && ((f->flags & (HIST__F_VAR_REF | HIST__F_ALIAS)) ||
		     has_refs(f->operands[0]) || has_refs(f->operands[1]));
}

static int create_keys(struct hist__fctx *fc, const struct attrs *a)
{
	struct hist__hist *h = fc->h;
	const char *s = find_chr(a->keys, a->keys_n, '=') + 1;
	const char *end = a->keys + a->keys_n;
	uint32_t offset = 0;

	for (;;) {
		const char *comma = find_chr(s, (size_t)(end - s), ',');
		size_t len = comma ? (size_t)(comma - s) : (size_t)(end - s);
		struct hist__field *f;
		uint32_t size;

		if (h->nr_keys == HIST__KEYS_MAX) {
			perr(fc->err, -HIST_EINVAL, -1, NULL, 0);
			return -HIST_EINVAL;
		}
		fc->flags = HIST__F_KEY;
		f = hist__field_parse(fc, s, len);
		if (!f)
			return fc->err->code ? fc->err->code : -HIST_EINVAL;
		if (has_refs(f)) {
			hist__field_free(f);
			perr(fc->err, -HIST_EINVAL, HIST_ERR_INVALID_REF_KEY, s, len);
			return -HIST_EINVAL;
		}
		f->flags |= HIST__F_KEY;
		size = (f->flags & HIST__F_STACKTRACE) ? HIST__STACK_MAX * 8 : f->size;
		size = (size + 7) & ~7u;
		f->key_offset = offset;
		f->key_size = size;
		h->keys[h->nr_keys++] = f;
		offset += size;
		if (offset > HIST__KEY_SIZE_MAX) {
			perr(fc->err, -HIST_EINVAL, -1, NULL, 0);
			return -HIST_EINVAL;
		}
		if (!comma)
			break;
		s = comma + 1;
	}
	h->key_size = offset;
	return 0;
}

/* ---- sort= ------------------------------------------------------- */

static int parse_direction(struct hist__perr *e, const char *s, size_t n,
			   bool *desc)
{
	if (!s) {
		*desc = false;
		return 0;
	}
	if (eq(s, n, "descending")) {
		*desc = true;
		return 0;
	}
	if (eq(s, n, "ascending")) {
		*desc = false;
		return 0;
	}
	perr(e, -HIST_EINVAL, HIST_ERR_INVALID_SORT_MODIFIER, s, n);
	return -HIST_EINVAL;
}

static int create_sort_keys(struct hist__fctx *fc, const struct attrs *a)
{
	struct hist__hist *h = fc->h;
	const char *s, *end;
	uint32_t i;

	/* the default is an explicit sort=hitcount: a removal that spells it
	 * out ("!hist:...:sort=hitcount", as the trigger file prints it)
	 * must match (the kernel compares one field index) */
	h->nr_sort = 1;
	h->sort[0].val_idx = 0;
	h->sort[0].key_idx = -1;
	if (!a->sort)
		return 0;
	s = a->sort + 5;
	end = a->sort + a->sort_n;
	for (i = 0; i < HIST__SORT_MAX && s; i++) {
		const char *comma = find_chr(s, (size_t)(end - s), ',');
		size_t len = comma ? (size_t)(comma - s) : (size_t)(end - s);
		const char *dot = find_chr(s, len, '.');
		size_t nlen = dot ? (size_t)(dot - s) : len;
		const char *mod = dot ? dot + 1 : NULL;
		size_t mlen = dot ? len - nlen - 1 : 0;
		struct hist__sort_key *sk = &h->sort[i];
		uint32_t j;
		bool found = false;

		if (!len || !nlen) {
			perr(fc->err, -HIST_EINVAL, HIST_ERR_EMPTY_SORT_FIELD,
			     "sort=", 5);
			return -HIST_EINVAL;
		}
		if (i == HIST__SORT_MAX - 1 && comma) {
			perr(fc->err, -HIST_EINVAL, HIST_ERR_TOO_MANY_SORT_FIELDS,
			     "sort=", 5);
			return -HIST_EINVAL;
		}
		sk->val_idx = -1;
		sk->key_idx = -1;
		if (eq(s, nlen, "hitcount")) {
			sk->val_idx = 0;
			found = true;
		}
		for (j = 1; !found && j < h->nr_vals; j++) {
			if (eq(s, nlen, hist__field_name(h->vals[j]))) {
				sk->val_idx = (int32_t)j;
				found = true;
			}
		}
		for (j = 0; !found && j < h->nr_keys; j++) {
			/* the key stacktrace has no name to sort by; 6.12 names
			 * it common_stacktrace (k03-alias-stacktrace,
			 * k17-sort-common-stacktrace) */
			if ((h->keys[j]->flags & HIST__F_STACKTRACE) &&
			    !h->keys[j]->ef && eq("stacktrace", 10,
						  hist__field_name(h->keys[j])))
				continue;
			if (eq(s, nlen, hist__field_name(h->keys[j]))) {
				sk->key_idx = (int32_t)j;
				found = true;
			}
		}
		if (!found) {
			perr(fc->err, -HIST_EINVAL, HIST_ERR_INVALID_SORT_FIELD, s,
			     nlen);
			return -HIST_EINVAL;
		}
		if (parse_direction(fc->err, mod, mlen, &sk->descending))
			return -HIST_EINVAL;
		s = comma ? comma + 1 : NULL;
	}
	h->nr_sort = i;
	return 0;
}

/* ---- the whole command ------------------------------------------- */

/* Split PARAMS at the first "if" with a blank or tab on both sides. */
static int split_filter(const char *p, size_t n, size_t *attr_n,
			const char **filter, size_t *filter_n)
{
	size_t i;

	*filter = NULL;
	*attr_n = n;
	for (i = 0; i + 1 < n; i++) {
		if (p[i] != 'i' || p[i + 1] != 'f')
			continue;
		if (i == 0)
			return -HIST_EINVAL;
		if (p[i - 1] != ' ' && p[i - 1] != '\t')
			continue;
		if (i + 2 >= n - 1)
			return -HIST_EINVAL;
		if (p[i + 2] != ' ' && p[i + 2] != '\t')
			continue;
		*attr_n = i - 1;
		*filter = p + i;
		*filter_n = n - i;
		return 0;
	}
	return 0;
}

static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t' || **s == '\n')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' ||
		      (*s)[*n - 1] == '\n'))
		(*n)--;
}

void hist__perr_resolve(struct hist__perr *e, const char *echo, size_t n)
{
	uint32_t k;

	for (k = 0; k < e->nr; k++) {
		size_t i, tl = e->log[k].tok_len;

		if (!e->log[k].tok)
			continue;
		e->log[k].pos = 0;
		for (i = 0; tl <= n && i + tl <= n; i++) {
			if (!memcmp(echo + i, e->log[k].tok, tl)) {
				e->log[k].pos = (uint32_t)i;
				break;
			}
		}
		e->log[k].tok = NULL;
	}
}

int hist__hist_parse(struct hist_event *ev, const char *params, size_t n,
		     bool remove, struct hist__parsed *out, struct hist__perr *e,
		     const char *echo, size_t echo_n)
{
	struct hist_ctx *ctx = ev->ctx;
	const char *filter;
	size_t attr_n, filter_n = 0;
	char *work = NULL;
	struct attrs a;
	struct hist__fctx fc;
	struct hist__hist *h = NULL;
	size_t i;
	int ret;
	/* the command ends here whatever trim() takes off its start */
	const char *end = params + n;

	memset(out, 0, sizeof(*out));
	if (split_filter(params, n, &attr_n, &filter, &filter_n)) {
		perr(e, -HIST_EINVAL, -1, NULL, 0);
		return -HIST_EINVAL;
	}
	trim(&params, &attr_n);
	if (filter) {
		/* "if" itself is dropped; the filter text is trimmed */
		filter += 2;
		filter_n -= 2;
		trim(&filter, &filter_n);
	}
	/* ".sym-offset" -> ".symXoffset", so '-' is only ever an operator.
	 * Tokens are still located in the original command for carets. */
	work = hist__strndup(params, attr_n);
	if (!work)
		return -HIST_ENOMEM;
	for (i = 0; i + 11 <= attr_n; i++)
		if (!memcmp(work + i, ".sym-offset", 11))
			work[i + 4] = 'X';

	ret = parse_attrs(&a, work, attr_n, &ctx->opts, e);
	if (ret)
		goto fail;

	h = hist__zalloc(sizeof(*h));
	if (!h) {
		ret = -HIST_ENOMEM;
		goto fail;
	}
	h->ev = ev;
	h->aops = &hist__actions_ops;
	if (!(h->cmd = hist__strndup(params, (size_t)(end - params))))
		goto nomem;
	h->map_bits = a.map_bits ? a.map_bits : 11;
	h->nohitcount = a.nohitcount;
	if (a.name && !(h->name = hist__strndup(a.name, a.name_n)))
		goto nomem;
	if (!(h->clock = a.clock ? hist__strndup(a.clock, a.clock_n)
				 : hist__strdup("global")))
		goto nomem;

	memset(&fc, 0, sizeof(fc));
	fc.ev = ev;
	fc.h = h;
	fc.vars = &hist__var_ops;
	fc.err = e;
	fc.remove = remove;
	for (i = 0; i < a.nr_actions; i++) {
		fc.action_text[i] = a.action[i];
		fc.action_n[i] = a.action_n[i];
	}
	fc.nr_actions = a.nr_actions;

	ret = hist__actions_parse(&fc);
	if (!ret)
		ret = parse_var_defs(&fc, &a);
	if (!ret)
		ret = create_vals(&fc, &a);
	if (!ret)
		ret = create_vars(&fc, remove);
	if (!ret)
		ret = create_keys(&fc, &a);
	if (!ret)
		ret = create_sort_keys(&fc, &a);
	if (ret)
		goto fail;
	if (h->ts_usecs || h->uses_ts) {
		uint32_t k;

		for (k = 0; k < h->nr_vals; k++)
			h->uses_ts |= hist__field_has_timestamp(h->vals[k]);
	}

	out->hist = h;
	out->pause = a.pause;
	out->cont = a.cont;
	out->clear = a.clear;
	out->filter = filter;
	out->filter_n = filter_n;
	hist__free(work);
	return 0;
nomem:
	ret = -HIST_ENOMEM;
	perr(e, ret, -1, NULL, 0);
fail:
	if (!e->code)
		e->code = ret;
	hist__perr_resolve(e, echo, echo_n);
	hist__hist_free(h);
	hist__free(work);
	return ret;
}
