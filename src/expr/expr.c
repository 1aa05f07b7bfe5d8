/* SPDX-License-Identifier: MIT */
/*
 * Field expressions: atoms (event fields, special fields, constants,
 * variable references) with modifiers, combined by + - * / and -( ).
 *
 * The kernel has no lexer here; it splits the text at operator characters
 * in a fixed order, and that order *is* the grammar (precedence,
 * associativity, the 3-operator budget, which text an error points at).
 * hist__field_parse() reproduces that splitting so that every accepted and
 * every rejected expression, and every caret, is the kernel's.
 */
#include "expr/expr.h"
#include "common/kversion.h"

#define DIV_SHIFT 20

/* ---- evaluators -------------------------------------------------- */

static uint64_t ev_const(const struct hist__field *f, struct hist__eval *e)
{
	(void)e;
	return f->constant;
}

static uint64_t ev_field_int(const struct hist__field *f, struct hist__eval *e)
{
	const struct hist_field_desc *d = f->ef;
	const struct hist__rec *r = e->r;
	uint64_t v = 0;

	if ((uint64_t)d->offset + f->size > r->len)
		return 0;
	switch (f->size) {
	case 1:
		v = f->is_signed ? (uint64_t)(int64_t)(int8_t)r->data[d->offset]
				 : r->data[d->offset];
		break;
	case 2: {
		uint16_t x;
		memcpy(&x, r->data + d->offset, 2);
		v = f->is_signed ? (uint64_t)(int64_t)(int16_t)x : x;
		break;
	}
	case 4: {
		uint32_t x;
		memcpy(&x, r->data + d->offset, 4);
		v = f->is_signed ? (uint64_t)(int64_t)(int32_t)x : x;
		break;
	}
	case 8:
		memcpy(&v, r->data + d->offset, 8);
		break;
	}
	return v;
}

/* ev_field_int for the common widths: one bounds check and one load. */
static uint64_t ev_field_u64(const struct hist__field *f, struct hist__eval *e)
{
	const struct hist__rec *r = e->r;
	uint32_t off = f->ef->offset;
	uint64_t v;

	if ((uint64_t)off + 8 > r->len)
		return 0;
	memcpy(&v, r->data + off, 8);
	return v;
}

static uint64_t ev_field_u32(const struct hist__field *f, struct hist__eval *e)
{
	const struct hist__rec *r = e->r;
	uint32_t off = f->ef->offset, v;

	if ((uint64_t)off + 4 > r->len)
		return 0;
	memcpy(&v, r->data + off, 4);
	return v;
}

static uint64_t ev_field_s32(const struct hist__field *f, struct hist__eval *e)
{
	const struct hist__rec *r = e->r;
	uint32_t off = f->ef->offset;
	int32_t v;

	if ((uint64_t)off + 4 > r->len)
		return 0;
	memcpy(&v, r->data + off, 4);
	return (uint64_t)(int64_t)v;
}

bool hist__field_plain_int(const struct hist__field *f, uint32_t *off, uint32_t *size,
			   bool *is_signed)
{
	if (f->fn != ev_field_int && f->fn != ev_field_u64 && f->fn != ev_field_u32 &&
	    f->fn != ev_field_s32)
		return false;
	*off = f->ef->offset;
	*size = f->size;
	*is_signed = f->is_signed;
	return true;
}

static size_t str_field(const struct hist__field *f, struct hist__eval *e,
			const char **s)
{
	return hist__read_str(f->ef, e->r, s);
}

bool hist__field_plain_str(const struct hist__field *f, uint32_t *off, uint32_t *size)
{
	if (f->str != str_field || !f->ef || f->ef->kind != HIST_FIELD_STRING)
		return false;
	*off = f->ef->offset;
	*size = f->ef->size;
	return true;
}

/* A string used as a number: the kernel sums its address (b16). */
static uint64_t ev_str_addr(const struct hist__field *f, struct hist__eval *e)
{
	const char *s;

	f->str(f, e, &s);
	return (uint64_t)(uintptr_t)s;
}

static size_t str_comm(const struct hist__field *f, struct hist__eval *e,
		       const char **s)
{
	(void)f;
	*s = hist__rec_comm(e->r);
	return strlen(*s);
}

/* Stacks have no numeric value; they are keys or stored variables. */
static uint64_t ev_zero(const struct hist__field *f, struct hist__eval *e)
{
	(void)f;
	(void)e;
	return 0;
}

static uint64_t ev_timestamp(const struct hist__field *f, struct hist__eval *e)
{
	(void)f;
	return e->ts;
}

static uint64_t ev_cpu(const struct hist__field *f, struct hist__eval *e)
{
	(void)f;
	return e->r->hit ? e->r->hit->cpu : 0;
}

static uint64_t ev_counter(const struct hist__field *f, struct hist__eval *e)
{
	(void)f;
	(void)e;
	return 1;
}

static uint64_t ev_log2(const struct hist__field *f, struct hist__eval *e)
{
	uint64_t v = hist__field_val(f->operands[0], e);
	unsigned n = 0;

	/* ilog2(roundup_pow_of_two(v)) = ceil(log2 v); 0 and 1 give 0 */
	if (v <= 1)
		return 0;
	v--;
	while (v) {
		n++;
		v >>= 1;
	}
	return n;
}

static uint64_t ev_bucket(const struct hist__field *f, struct hist__eval *e)
{
	uint64_t v = hist__field_val(f->operands[0], e);

	return v / f->bucket * f->bucket;
}

static uint64_t ev_plus(const struct hist__field *f, struct hist__eval *e)
{
	return hist__field_val(f->operands[0], e) + hist__field_val(f->operands[1], e);
}

static uint64_t ev_minus(const struct hist__field *f, struct hist__eval *e)
{
	return hist__field_val(f->operands[0], e) - hist__field_val(f->operands[1], e);
}

static uint64_t ev_mult(const struct hist__field *f, struct hist__eval *e)
{
	return hist__field_val(f->operands[0], e) * hist__field_val(f->operands[1], e);
}

static uint64_t ev_div(const struct hist__field *f, struct hist__eval *e)
{
	uint64_t a = hist__field_val(f->operands[0], e);
	uint64_t b = hist__field_val(f->operands[1], e);

	if (!b)
		return (uint64_t)-1;
	if (!(b & (b - 1))) {
		unsigned sh = 0;

		while (!(b & 1)) {
			b >>= 1;
			sh++;
		}
		return a >> sh;
	}
	return a / b;
}

uint64_t hist__div_const(uint64_t a, uint64_t c)
{
	if (!(c & (c - 1))) {
		unsigned sh = 0;

		while (!(c & 1)) {
			c >>= 1;
			sh++;
		}
		return a >> sh;
	}
	if (c > (1ull << DIV_SHIFT))
		return a / c;
	/* The kernel's approximation: multiply by 2^20/c, round up. */
	if (a < (1ull << DIV_SHIFT))
		return (a * ((1ull << DIV_SHIFT) / c) + (1ull << DIV_SHIFT) - 1) >>
		       DIV_SHIFT;
	return a / c;
}

static uint64_t ev_div_const(const struct hist__field *f, struct hist__eval *e)
{
	return hist__div_const(hist__field_val(f->operands[0], e),
			       f->operands[1]->constant);
}

static uint64_t ev_uminus(const struct hist__field *f, struct hist__eval *e)
{
	return (uint64_t)(-(int64_t)hist__field_val(f->operands[0], e));
}

/* Variable reference: the value resolved for this hit (see hist.c). */
static uint64_t ev_ref(const struct hist__field *f, struct hist__eval *e)
{
	return e->refs ? e->refs[f->ref_idx] : 0;
}

static size_t str_ref(const struct hist__field *f, struct hist__eval *e,
		      const char **s)
{
	*s = e->refs ? (const char *)(uintptr_t)e->refs[f->ref_idx] : NULL;
	if (!*s)
		*s = "";
	return strlen(*s);
}

/* An alias's text is its reference's: the reference knows its slot in
 * the resolved values (the alias has none of its own). */
static size_t str_alias(const struct hist__field *f, struct hist__eval *e,
			const char **s)
{
	return f->operands[0]->str(f->operands[0], e, s);
}

/* An alias (y=$x) reads what its reference resolved to. */
static uint64_t ev_alias(const struct hist__field *f, struct hist__eval *e)
{
	return hist__field_val(f->operands[0], e);
}

/* ---- construction ------------------------------------------------ */

static struct hist__field *field_new(uint32_t flags)
{
	struct hist__field *f = hist__zalloc(sizeof(*f));

	if (f) {
		f->flags = flags;
		f->var_idx = -1;
		f->ref_idx = -1;
		f->ref_var_idx = -1;
	}
	return f;
}

void hist__field_free(struct hist__field *f)
{
	if (!f)
		return;
	hist__field_free(f->operands[0]);
	hist__field_free(f->operands[1]);
	hist__free(f->name);
	hist__free(f->type);
	hist__free(f->var_name);
	hist__free(f->ref_system);
	hist__free(f->ref_event);
	hist__free(f);
}

void hist__perr_add(struct hist__perr *e, int code, int msg, const char *tok,
		    size_t n)
{
	if (!e->code)
		e->code = code;
	if (msg < 0 || e->nr == HIST__PERR_MAX)
		return;
	e->log[e->nr].msg = msg;
	e->log[e->nr].tok = tok;
	e->log[e->nr].tok_len = n;
	e->log[e->nr].pos = 0;
	e->nr++;
}

static void set_err(struct hist__fctx *fc, int code, int msg, const char *tok,
		    size_t n)
{
	hist__perr_add(fc->err, code, msg, tok, n);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *memrchr_n(const char *s, size_t n, char c)
{
	while (n--)
		if (s[n] == c)
			return s + n;
	return NULL;
}

static const char *memchr_n(const char *s, size_t n, char c)
{
	return memchr(s, c, n);
}

static bool span_eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(s, lit, n);
}

/* The kernel's numeric reader for a field of SIZE bytes, or NULL. */
static bool int_size_ok(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* The generic field STACKTRACE as 6.12's hists see it (kversion.c). */
static const struct hist_field_desc generic_stacktrace = {
	"STACKTRACE", "unsigned long[]", 0, 0, 0, HIST_FIELD_ARRAY
};

/* Modifier text after the first '.' of an atom. */
/* The kernel version whose language this command is parsed in. */
static uint32_t fc_kernel(const struct hist__fctx *fc)
{
	return fc->ev->kernel;
}

/*
 * True, with the error set, when the context's kernel rejects ROW in the
 * atom NAME (NLEN bytes) with modifier MOD (MLEN bytes, or NULL).
 */
static bool kv_rejects(struct hist__fctx *fc, enum hist__kv_row row,
		       const char *name, size_t nlen, const char *mod, size_t mlen)
{
	const struct hist__kv_cell *c = hist__kv(fc_kernel(fc), row);

	if (c->how == HIST__KV_REJECT_SILENT) {
		set_err(fc, -HIST_EINVAL, -1, NULL, 0);
		return true;
	}
	if (c->how != HIST__KV_REJECT)
		return false;
	if (c->at == HIST__KV_AT_MODIFIER && mod)
		set_err(fc, -HIST_EINVAL, c->msg, mod, mlen);
	else
		set_err(fc, -HIST_EINVAL, c->msg, name, nlen);
	return true;
}

static int parse_modifier(struct hist__fctx *fc, const char *name, size_t nlen,
			  const char *mod, size_t mlen, uint32_t *flags,
			  uint64_t *bucket)
{
	if (span_eq(mod, mlen, "hex"))
		*flags |= HIST__F_HEX;
	else if (span_eq(mod, mlen, "sym"))
		*flags |= HIST__F_SYM;
	else if (span_eq(mod, mlen, "symXoffset"))
		*flags |= HIST__F_SYM_OFFSET;
	else if (span_eq(mod, mlen, "execname") && span_eq(name, nlen, "common_pid"))
		*flags |= HIST__F_EXECNAME;
	else if (span_eq(mod, mlen, "syscall"))
		*flags |= HIST__F_SYSCALL;
	else if (span_eq(mod, mlen, "log2"))
		*flags |= HIST__F_LOG2;
	else if (span_eq(mod, mlen, "usecs"))
		*flags |= HIST__F_TIMESTAMP_USECS;
	else if (span_eq(mod, mlen, "stacktrace")) {
		if (kv_rejects(fc, HIST__KV_STACKTRACE_MOD, name, nlen, mod, mlen))
			return -1;
		*flags |= HIST__F_STACKTRACE;
	}
	else if (mlen >= 6 && !memcmp(mod, "bucket", 6)) {
		size_t i = 6;
		uint64_t b;

		if (i < mlen && mod[i] == 's')
			i++;
		if (i >= mlen || mod[i] != '=')
			goto bad;
		i++;
		if (hist__parse_u64(mod + i, mlen - i, 0, &b) || !b) {
			set_err(fc, -HIST_EINVAL, HIST_ERR_BAD_FIELD_MODIFIER,
				mod + i, mlen - i);
			return -1;
		}
		*bucket = b;
		*flags |= HIST__F_BUCKET;
	} else if (mlen >= 7 && !memcmp(mod, "percent", 7)) {
		if (fc->flags & (HIST__F_VAR | HIST__F_KEY))
			goto bad;
		*flags |= HIST__F_PERCENT;
	} else if (mlen >= 5 && !memcmp(mod, "graph", 5)) {
		if (fc->flags & (HIST__F_VAR | HIST__F_KEY))
			goto bad;
		*flags |= HIST__F_GRAPH;
	} else {
		goto bad;
	}
	return 0;
bad:
	set_err(fc, -HIST_EINVAL, HIST_ERR_BAD_FIELD_MODIFIER, mod, mlen);
	return -1;
}

/* A plain (non-expression) field: event field or special name. */
static struct hist__field *parse_plain(struct hist__fctx *fc, const char *s,
				       size_t n)
{
	const char *dot = memchr_n(s, n, '.');
	size_t nlen = dot ? (size_t)(dot - s) : n;
	uint32_t flags = 0;
	uint64_t bucket = 0;
	const struct hist_field_desc *d;
	struct hist__field *f, *base;

	if (dot && parse_modifier(fc, s, nlen, dot + 1, n - nlen - 1, &flags,
				  &bucket))
		return NULL;

	f = field_new(flags);
	if (!f)
		goto nomem;
	f->name = hist__strndup(s, nlen);
	if (!f->name)
		goto nomem;

	if (span_eq(s, nlen, "common_timestamp")) {
		f->flags |= HIST__F_TIMESTAMP;
		f->fn = ev_timestamp;
		f->size = 8;
		f->type = hist__strdup("u64");
		fc->vars->need(fc, HIST__NEED_TS);
		if (flags & HIST__F_TIMESTAMP_USECS)
			fc->vars->need(fc, HIST__NEED_TS_USECS);
	} else if (span_eq(s, nlen, "common_cpu")) {
		f->flags |= HIST__F_CPU;
		f->fn = ev_cpu;
		f->size = 4;
		f->type = hist__strdup("unsigned int");
	} else if (span_eq(s, nlen, "hitcount")) {
		if ((flags || fc->in_expr || (fc->flags & (HIST__F_KEY | HIST__F_VAR))) &&
		    kv_rejects(fc, HIST__KV_HITCOUNT_FIELD, s, nlen, NULL, 0)) {
			hist__field_free(f);
			return NULL;
		}
		f->flags |= HIST__F_HITCOUNT;
		f->fn = ev_counter;
		f->size = 8;
		f->type = hist__strdup("u64");
	} else if (span_eq(s, nlen, "common_stacktrace")) {
		if (kv_rejects(fc, HIST__KV_COMMON_STACKTRACE, s, nlen, NULL, 0)) {
			hist__field_free(f);
			return NULL;
		}
		f->flags |= HIST__F_STACKTRACE;
		f->size = HIST__STACK_MAX * 8;
		f->type = hist__strdup("unsigned long[]");
	} else if (span_eq(s, nlen, "common_comm")) {
		if (kv_rejects(fc, HIST__KV_COMM_FIELD, s, nlen, NULL, 0)) {
			hist__field_free(f);
			return NULL;
		}
		f->flags |= HIST__F_COMM | HIST__F_STRING;
		f->str = str_comm;
		f->fn = ev_str_addr;
		f->size = HIST__STR_VAR_LEN_MAX;
		f->type = hist__strdup("char[]");
	} else if ((d = hist__event_field(fc->ev, s, nlen)) != NULL &&
		   d->kind != HIST_FIELD_FLEX_STRING) {
		f->ef = d;
		f->type = hist__strdup(d->type);
		if (flags & HIST__F_STACKTRACE) {
			/* like newer kernels, any field can be read as a
			 * __data_loc stack; the reads stay bounded */
			f->size = HIST__STACK_MAX * 8;
		} else if (hist__field_is_string(d)) {
			f->flags |= HIST__F_STRING;
			f->str = str_field;
			f->fn = ev_str_addr;
			f->size = d->kind == HIST_FIELD_STRING ? d->size : HIST__STR_VAR_LEN_MAX;
		} else if (d->kind == HIST_FIELD_STACK) {
			f->flags |= HIST__F_STACKTRACE;
			f->size = HIST__STACK_MAX * 8;
		} else if (int_size_ok(d->size)) {
			f->fn = ev_field_int;
			if (d->size == 8)
				f->fn = ev_field_u64;
			else if (d->size == 4)
				f->fn = d->is_signed ? ev_field_s32 : ev_field_u32;
			f->size = d->size;
			f->is_signed = d->is_signed;
		} else {
			/* The kernel has no reader for other sizes and fails
			 * the command with ENOMEM and no log entry. */
			hist__field_free(f);
			set_err(fc, -HIST_ENOMEM, -1, NULL, 0);
			return NULL;
		}
	} else if (span_eq(s, nlen, "cpu") || span_eq(s, nlen, "CPU")) {
		/* legacy aliases, used only when the event has no such field */
		f->flags |= HIST__F_CPU;
		f->fn = ev_cpu;
		f->size = 4;
		f->type = hist__strdup("unsigned int");
	} else if (span_eq(s, nlen, "stacktrace") || span_eq(s, nlen, "STACKTRACE")) {
		if (s[0] == 'S' &&
		    kv_rejects(fc, HIST__KV_STACKTRACE_UPPER, s, nlen, NULL, 0)) {
			hist__field_free(f);
			return NULL;
		}
		if (!(fc->flags & HIST__F_KEY) &&
		    kv_rejects(fc, HIST__KV_STACKTRACE_NOT_KEY, s, nlen, NULL, 0)) {
			hist__field_free(f);
			return NULL;
		}
		if (s[0] == 'S') {
			/* 6.12: the generic field STACKTRACE read as a
			 * FIELD.stacktrace of no bytes, so every stack is
			 * empty (k03-alias-stacktrace) */
			f->ef = &generic_stacktrace;
		} else if ((fc->flags & HIST__F_KEY) &&
			   hist__kv_new(fc_kernel(fc), HIST__KV_STACKTRACE_LABEL)) {
			hist__free(f->name);
			f->name = hist__strdup("common_stacktrace");
			if (!f->name)
				goto nomem;
		}
		f->flags |= HIST__F_STACKTRACE;
		f->size = HIST__STACK_MAX * 8;
		f->type = hist__strdup("unsigned long[]");
	} else if (span_eq(s, nlen, "comm") || span_eq(s, nlen, "COMM")) {
		if (kv_rejects(fc, HIST__KV_COMM_FIELD, s, nlen, NULL, 0)) {
			hist__field_free(f);
			return NULL;
		}
		f->flags |= HIST__F_COMM | HIST__F_STRING;
		f->str = str_comm;
		f->fn = ev_str_addr;
		f->size = HIST__STR_VAR_LEN_MAX;
		f->type = hist__strdup("char[]");
	} else {
		hist__field_free(f);
		set_err(fc, -HIST_EINVAL, HIST_ERR_FIELD_NOT_FOUND, s, nlen);
		return NULL;
	}
	if (!f->type)
		goto nomem;
	if (!f->fn)
		f->fn = ev_zero;
	if (f->flags & HIST__F_EXECNAME)
		fc->vars->need(fc, HIST__NEED_COMM);

	if (!(f->flags & (HIST__F_LOG2 | HIST__F_BUCKET)))
		return f;
	/* log2/buckets wrap the plain field, as the kernel does, so the
	 * name and sort type are the underlying field's. */
	base = f;
	f = field_new(base->flags);
	if (!f) {
		hist__field_free(base);
		goto nomem;
	}
	base->flags &= ~(uint32_t)(HIST__F_LOG2 | HIST__F_BUCKET);
	f->operands[0] = base;
	f->size = base->size;
	f->is_signed = base->is_signed;
	f->type = hist__strdup(base->type);
	f->fn = (f->flags & HIST__F_LOG2) ? ev_log2 : ev_bucket;
	f->bucket = bucket;
	if (!f->type)
		goto nomem;	/* frees f and, through it, base */
	return f;
nomem:
	hist__field_free(f);
	set_err(fc, -HIST_ENOMEM, -1, NULL, 0);
	return NULL;
}

static struct hist__field *parse_const(struct hist__fctx *fc, const char *s,
				       size_t n)
{
	struct hist__field *f;
	uint64_t v;

	if (hist__parse_u64(s, n, 0, &v)) {
		set_err(fc, -HIST_EINVAL, HIST_ERR_EXPECT_NUMBER, s, n);
		return NULL;
	}
	f = field_new(HIST__F_CONST);
	if (!f || !(f->type = hist__strdup("u64"))) {
		hist__field_free(f);
		set_err(fc, -HIST_ENOMEM, -1, NULL, 0);
		return NULL;
	}
	f->fn = ev_const;
	f->constant = v;
	f->size = 8;
	return f;
}

/*
 * $name, system.event.$name: a reference to a variable of another (or
 * this) histogram.  Returns NULL without an error if TEXT is no reference
 * or the variable is unknown (then the caller tries a field, as the kernel
 * does, which logs a second error).
 */
static struct hist__field *parse_ref(struct hist__fctx *fc, const char *sys,
				     size_t slen, const char *evn, size_t elen,
				     const char *var, size_t vlen)
{
	struct hist__field *f;
	const struct hist__field *vf;
	struct hist__hist *def;
	int idx, ret;

	if (!vlen || var[0] != '$')
		return NULL;
	vf = fc->vars->find(fc, sys, slen, evn, elen, var + 1, vlen - 1, &def, &idx);
	if (!vf) {
		set_err(fc, -HIST_EINVAL, HIST_ERR_VAR_NOT_FOUND, var + 1, vlen - 1);
		return NULL;
	}
	f = field_new(HIST__F_VAR_REF);
	if (!f)
		goto nomem;
	f->name = hist__strndup(var + 1, vlen - 1);
	if (sys) {
		f->ref_system = hist__strndup(sys, slen);
		f->ref_event = hist__strndup(evn, elen);
		if (!f->ref_system || !f->ref_event)
			goto nomem;
	}
	f->ref_hist = def;
	f->ref_var_idx = idx;
	f->ref_var = vf;
	{
		f->size = vf->size;
		f->is_signed = vf->is_signed;
		f->type = hist__strdup(vf->type ? vf->type : "u64");
		f->flags |= vf->flags & (HIST__F_TIMESTAMP | HIST__F_TIMESTAMP_USECS |
					 HIST__F_STRING | HIST__F_STACKTRACE);
	}
	if (!f->name || !f->type)
		goto nomem;
	f->fn = ev_ref;
	f->str = (f->flags & HIST__F_STRING) ? str_ref : NULL;
	ret = fc->vars->add_ref(fc, f);
	if (ret) {
		hist__field_free(f);
		if (ret == -HIST_ENOMEM)
			set_err(fc, -HIST_ENOMEM, -1, NULL, 0);
		else
			set_err(fc, -HIST_EINVAL, HIST_ERR_VAR_NOT_FOUND, var + 1, vlen - 1);
		return NULL;
	}
	return f;
nomem:
	hist__field_free(f);
	set_err(fc, -HIST_ENOMEM, -1, NULL, 0);
	return NULL;
}

static struct hist__field *parse_atom(struct hist__fctx *fc, const char *s,
				      size_t n)
{
	const char *d1, *d2, *sys = NULL, *evn = NULL, *var = s;
	size_t slen = 0, elen = 0, vlen = n;
	struct hist__field *f;
	const char *local;
	size_t llen;

	if (n && is_digit(s[0]))
		return parse_const(fc, s, n);

	d1 = memchr_n(s, n, '.');
	if (d1 && (d2 = memchr_n(d1 + 1, n - (size_t)(d1 + 1 - s), '.'))) {
		sys = s;
		slen = (size_t)(d1 - s);
		evn = d1 + 1;
		elen = (size_t)(d2 - evn);
		var = d2 + 1;
		vlen = n - (size_t)(var - s);
	}

	/* $x naming a plain-field variable of this same command is that
	 * field; any other $x is a reference. */
	if (fc->vars->local_field(fc, sys, slen, evn, elen, var, vlen, &local, &llen))
		return parse_plain(fc, local, llen);
	f = parse_ref(fc, sys, slen, evn, elen, var, vlen);
	if (f) {
		if ((fc->flags & HIST__F_VAR) && !fc->in_expr) {
			/* y=$x: an alias that reads the reference */
			struct hist__field *a = field_new(HIST__F_ALIAS | HIST__F_VAR);

			if (!a || !(a->type = hist__strdup(f->type))) {
				hist__field_free(a);
				hist__field_free(f);
				set_err(fc, -HIST_ENOMEM, -1, NULL, 0);
				return NULL;
			}
			a->operands[0] = f;
			a->fn = ev_alias;
			a->str = f->str ? str_alias : NULL;
			a->size = f->size;
			a->is_signed = f->is_signed;
			a->flags |= f->flags & (HIST__F_TIMESTAMP |
						HIST__F_TIMESTAMP_USECS |
						HIST__F_STRING);
			return a;
		}
		return f;
	}
	if (fc->err->code && fc->err->code != -HIST_EINVAL)
		return NULL;
	return parse_plain(fc, s, n);
}

/* Which operator splits S: the kernel's contains_operator(). */
static enum hist__op find_operator(const char *s, size_t n, const char **sep)
{
	const char *minus = memrchr_n(s, n, '-');
	const char *plus, *div, *mult;

	*sep = NULL;
	if (minus == s) {
		*sep = minus;
		return HIST__OP_UNARY_MINUS;
	}
	plus = memrchr_n(s, n, '+');
	if (plus || minus) {
		if (plus > minus) {
			*sep = plus;
			return HIST__OP_PLUS;
		}
		*sep = minus;
		return HIST__OP_MINUS;
	}
	div = memrchr_n(s, n, '/');
	mult = memrchr_n(s, n, '*');
	if (mult > div) {
		*sep = mult;
		return HIST__OP_MULT;
	}
	if (div) {
		*sep = div;
		return HIST__OP_DIV;
	}
	return HIST__OP_NONE;
}

static struct hist__field *parse_expr(struct hist__fctx *fc, const char *s,
				      size_t n);

/* The flags of F, or of the variable it refers to. */
static uint32_t resolved_flags(const struct hist__field *f)
{
	if (f->flags & HIST__F_ALIAS)
		f = f->operands[0];
	if ((f->flags & HIST__F_VAR_REF) && f->ref_var)
		return f->ref_var->flags;
	return f->flags;
}

static const struct hist__field *resolved_const(const struct hist__field *f)
{
	if (f->flags & HIST__F_ALIAS)
		f = f->operands[0];
	if ((f->flags & HIST__F_VAR_REF) && f->ref_var)
		return f->ref_var;
	return f;
}

static struct hist__field *parse_unary(struct hist__fctx *fc, const char *s,
				       size_t n)
{
	const char *p = s + 1, *close;
	size_t m = n - 1;
	struct hist__field *op, *f;

	if (fc->n_subexprs > 3) {
		set_err(fc, -HIST_EINVAL, HIST_ERR_TOO_MANY_SUBEXPR, s, n);
		return NULL;
	}
	if (!m || p[0] != '(') {
		set_err(fc, -HIST_EINVAL, -1, NULL, 0);
		return NULL;
	}
	p++;
	m--;
	close = memrchr_n(p, m, ')');
	if (!close) {
		set_err(fc, -HIST_EINVAL, -1, NULL, 0);
		return NULL;
	}
	if (close + 1 != p + m) {
		set_err(fc, -HIST_EINVAL, HIST_ERR_UNARY_MINUS_SUBEXPR, p, m);
		return NULL;
	}
	fc->n_subexprs++;
	fc->in_expr = true;
	op = parse_expr(fc, p, (size_t)(close - p));
	if (!op)
		return NULL;
	if (op->flags & HIST__F_STRING) {
		hist__field_free(op);
		set_err(fc, -HIST_EINVAL, HIST_ERR_INVALID_STR_OPERAND, p,
			(size_t)(close - p));
		return NULL;
	}
	f = field_new(HIST__F_EXPR | (op->flags & (HIST__F_TIMESTAMP |
						   HIST__F_TIMESTAMP_USECS)));
	if (!f || !(f->type = hist__strdup(op->type))) {
		hist__field_free(f);
		hist__field_free(op);
		set_err(fc, -HIST_ENOMEM, -1, NULL, 0);
		return NULL;
	}
	f->op = HIST__OP_UNARY_MINUS;
	f->operands[0] = op;
	f->fn = ev_uminus;
	f->size = op->size;
	f->is_signed = op->is_signed;
	return f;
}

static struct hist__field *parse_binary(struct hist__fctx *fc, const char *s,
					size_t n, enum hist__op op, const char *sep)
{
	const char *a = s, *b = sep + 1;
	size_t alen = (size_t)(sep - s), blen = n - alen - 1;
	struct hist__field *o1 = NULL, *o2 = NULL, *f = NULL;
	uint32_t f1, f2;
	bool is_const;

	fc->n_subexprs++;
	fc->in_expr = true;
	if (!alen || !blen) {
		set_err(fc, -HIST_EINVAL, -1, NULL, 0);
		return NULL;
	}
	o1 = parse_expr(fc, a, alen);
	if (!o1)
		return NULL;
	if (o1->flags & HIST__F_STRING) {
		set_err(fc, -HIST_EINVAL, HIST_ERR_INVALID_STR_OPERAND, a, alen);
		goto fail;
	}
	o2 = parse_expr(fc, b, blen);
	if (!o2)
		goto fail;
	if (o2->flags & HIST__F_STRING) {
		set_err(fc, -HIST_EINVAL, HIST_ERR_INVALID_STR_OPERAND, b, blen);
		goto fail;
	}
	f1 = resolved_flags(o1);
	f2 = resolved_flags(o2);
	if ((f1 & HIST__F_TIMESTAMP_USECS) != (f2 & HIST__F_TIMESTAMP_USECS)) {
		set_err(fc, -HIST_EINVAL, HIST_ERR_TIMESTAMP_MISMATCH, NULL, 0);
		goto fail;
	}
	is_const = (f1 & HIST__F_CONST) && (f2 & HIST__F_CONST);

	f = field_new(HIST__F_EXPR |
		      (o1->flags & (HIST__F_TIMESTAMP | HIST__F_TIMESTAMP_USECS)));
	if (!f)
		goto nomem;
	f->op = (uint8_t)op;
	f->operands[0] = o1;
	f->operands[1] = o2;
	o1 = o2 = NULL;
	f->size = f->operands[0]->size;
	f->is_signed = f->operands[0]->is_signed;
	switch (op) {
	case HIST__OP_PLUS:
		f->fn = ev_plus;
		break;
	case HIST__OP_MINUS:
		f->fn = ev_minus;
		break;
	case HIST__OP_MULT:
		f->fn = ev_mult;
		break;
	default:
		f->fn = ev_div;
		if (resolved_flags(f->operands[1]) & HIST__F_CONST) {
			uint64_t c = resolved_const(f->operands[1])->constant;

			if (!c) {
				set_err(fc, -HIST_EDOM, HIST_ERR_DIVISION_BY_ZERO,
					b, blen);
				goto fail;
			}
			f->operands[1]->constant = c;
			f->fn = ev_div_const;
		}
		break;
	}
	if (is_const) {
		/* Fold now: the trigger info then shows only the number. */
		struct hist__eval e;
		uint64_t v;

		memset(&e, 0, sizeof(e));
		v = f->fn(f, &e);
		hist__field_free(f);
		f = field_new(HIST__F_CONST);
		if (!f || !(f->type = hist__strdup("u64")))
			goto nomem;
		f->fn = ev_const;
		f->constant = v;
		f->size = 8;
		return f;
	}
	if (!(f->type = hist__strdup(f->operands[0]->type)))
		goto nomem;
	return f;
nomem:
	set_err(fc, -HIST_ENOMEM, -1, NULL, 0);
fail:
	hist__field_free(o1);
	hist__field_free(o2);
	hist__field_free(f);
	return NULL;
}

static struct hist__field *parse_expr(struct hist__fctx *fc, const char *s,
				      size_t n)
{
	const char *sep;
	enum hist__op op;

	if (fc->n_subexprs > 3) {
		set_err(fc, -HIST_EINVAL, HIST_ERR_TOO_MANY_SUBEXPR, s, n);
		return NULL;
	}
	op = find_operator(s, n, &sep);
	if (op == HIST__OP_NONE)
		return parse_atom(fc, s, n);
	if (op == HIST__OP_UNARY_MINUS)
		return parse_unary(fc, s, n);
	return parse_binary(fc, s, n, op, sep);
}

/*
 * An expression is named by its text as the trigger info prints it: the
 * label of an expression key in the entries (k11-expr-trigger-info:
 * { bytes_req/64: 2 }) and the name sort= finds it by.  The printed text
 * is never longer than the parsed one but for $sys.event.var spellings
 * and constants, hence the slack.
 */
static int name_expr(struct hist__field *f, size_t n)
{
	struct hist__sb sb;
	size_t cap = 2 * n + 64;
	char *name = hist__zalloc(cap);

	if (!name)
		return -1;
	hist__sb_init_buf(&sb, name, cap);
	hist__field_print(&sb, f);
	hist__sb_finish(&sb);
	f->name = name;
	return 0;
}

struct hist__field *hist__field_parse(struct hist__fctx *fc, const char *text,
				      size_t n)
{
	struct hist__field *f;

	fc->n_subexprs = 0;
	fc->in_expr = false;
	f = parse_expr(fc, text, n);
	if (f && (f->flags & HIST__F_EXPR) && !f->name && name_expr(f, n)) {
		hist__field_free(f);
		set_err(fc, -HIST_ENOMEM, -1, NULL, 0);
		return NULL;
	}
	if (f && (fc->flags & HIST__F_VAR) && !(f->flags & HIST__F_ALIAS))
		f->flags |= HIST__F_VAR;
	return f;
}

/* ---- printing and queries ---------------------------------------- */

bool hist__hfield_is_string(const struct hist__field *f)
{
	return (f->flags & HIST__F_STRING) != 0;
}

bool hist__field_has_usecs(const struct hist__field *f)
{
	return f && ((f->flags & HIST__F_TIMESTAMP_USECS) ||
		     hist__field_has_usecs(f->operands[0]) ||
		     hist__field_has_usecs(f->operands[1]));
}

bool hist__field_has_timestamp(const struct hist__field *f)
{
	return f && ((f->flags & HIST__F_TIMESTAMP) ||
		     hist__field_has_timestamp(f->operands[0]) ||
		     hist__field_has_timestamp(f->operands[1]));
}

static const char *flags_str(const struct hist__field *f)
{
	uint32_t fl = f->flags;

	if (fl & HIST__F_HEX)
		return "hex";
	if (fl & HIST__F_SYM)
		return "sym";
	if (fl & HIST__F_SYM_OFFSET)
		return "sym-offset";
	if (fl & HIST__F_EXECNAME)
		return "execname";
	if (fl & HIST__F_SYSCALL)
		return "syscall";
	if (fl & HIST__F_LOG2)
		return "log2";
	if (fl & HIST__F_BUCKET)
		return "buckets";
	if (fl & HIST__F_TIMESTAMP_USECS)
		return "usecs";
	if (fl & HIST__F_PERCENT)
		return "percent";
	if (fl & HIST__F_GRAPH)
		return "graph";
	if ((fl & HIST__F_STACKTRACE) && f->ef)
		return "stacktrace";
	return NULL;
}

const char *hist__field_name(const struct hist__field *f)
{
	if (f->ef)
		return f->ef->name;
	if (f->flags & (HIST__F_LOG2 | HIST__F_BUCKET | HIST__F_ALIAS))
		return hist__field_name(f->operands[0]);
	if (f->name)	/* common_cpu, or the alias cpu/CPU as written */
		return f->name;
	if (f->flags & HIST__F_CPU)
		return "common_cpu";
	if (f->flags & HIST__F_TIMESTAMP)
		return "common_timestamp";
	if (f->flags & HIST__F_HITCOUNT)
		return "hitcount";
	return "";
}

static void print_operand(struct hist__sb *sb, const struct hist__field *f)
{
	const char *fs;

	if (f->flags & HIST__F_EXPR) {
		hist__field_print(sb, f);
		return;
	}
	if (f->flags & HIST__F_VAR_REF) {
		/* 6.1 and 6.12 both print a qualified reference as
		 * $system.event.var (k10-varref-trigger-info) */
		hist__sb_putc(sb, '$');
		if (f->ref_system) {
			hist__sb_puts(sb, f->ref_system);
			hist__sb_putc(sb, '.');
			hist__sb_puts(sb, f->ref_event);
			hist__sb_putc(sb, '.');
		}
		hist__sb_puts(sb, f->name);
		return;
	}
	if (f->flags & HIST__F_CONST) {
		hist__sb_u64(sb, f->constant, 0, ' ');
		return;
	}
	hist__sb_puts(sb, hist__field_name(f));
	fs = flags_str(f);
	if (fs) {
		hist__sb_putc(sb, '.');
		hist__sb_puts(sb, fs);
	}
	if (f->flags & HIST__F_BUCKET) {
		hist__sb_putc(sb, '=');
		hist__sb_u64(sb, f->bucket, 0, ' ');
	}
}

void hist__field_print(struct hist__sb *sb, const struct hist__field *f)
{
	if (f->flags & HIST__F_EXPR) {
		if (f->op == HIST__OP_UNARY_MINUS) {
			hist__sb_puts(sb, "-(");
			print_operand(sb, f->operands[0]);
			hist__sb_putc(sb, ')');
			return;
		}
		print_operand(sb, f->operands[0]);
		hist__sb_putc(sb, "?+-*/"[f->op]);
		print_operand(sb, f->operands[1]);
		return;
	}
	if (f->flags & HIST__F_ALIAS) {
		print_operand(sb, f->operands[0]);
		return;
	}
	if ((f->flags & HIST__F_CPU) && !(f->flags & HIST__F_EXPR)) {
		/* keys, values, variables and sort keys name the cpu
		 * common_cpu whatever alias made it; entries and expressions
		 * use the alias as written (k01-alias-cpu-key,
		 * k02-alias-cpu-val-var) */
		const char *fs = flags_str(f);

		hist__sb_puts(sb, "common_cpu");
		if (fs) {
			hist__sb_putc(sb, '.');
			hist__sb_puts(sb, fs);
		}
		return;
	}
	print_operand(sb, f);
}

struct hist__field *hist__field_parse_atom(struct hist__fctx *fc, const char *text,
					   size_t n)
{
	fc->in_expr = false;
	return parse_atom(fc, text, n);
}
