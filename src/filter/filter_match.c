/* SPDX-License-Identifier: MIT */
/*
 * The event filter language: evaluation.
 *
 * A compiled filter is an array of predicates in text order; each names
 * the predicate to test next when it is true and when it is false (nr:
 * matched, nr + 1: not matched), always further on, so a record costs at
 * most nr predicate tests, with no recursion and no allocation.  Every
 * field is read through the bounded schema accessors: a short or hostile
 * record reads as zeros and empty strings, never past its end.
 */
#include "filter/filter_int.h"

/* Word W of a cpumask payload of LEN bytes; words past it read as 0. */
static uint64_t rec_mask_word(const uint8_t *p, uint32_t len, unsigned w)
{
	uint64_t v;

	if ((w + 1) * 8 > len)
		return 0;
	memcpy(&v, p + w * 8, 8);
	return v;
}

static uint32_t rec_mask(const struct fpred *p, struct hist__rec *r,
			 const uint8_t **b)
{
	uint32_t off, len;

	if (hist__field_loc(&p->fd, r, &off, &len)) {
		*b = NULL;
		return 0;
	}
	*b = r->data + off;
	return len;
}

/* A cpu number against a set of two or more cpus. */
static bool scalar_vs_mask(int op, uint64_t cpu, const uint64_t *m)
{
	switch (op) {
	case OP_NE:
		return true;
	case OP_BAND:
		return mask_test(m, cpu);
	default:
		return false;	/* never equal to a single cpu */
	}
}

static bool match_int(const struct fpred *p, struct hist__rec *r)
{
	uint64_t v = hist__read_int(&p->fd, r), c = p->val;
	bool sgn = p->fd.is_signed;

	switch (p->op) {
	case OP_EQ:
		return v == c;
	case OP_NE:
		return v != c;
	case OP_LT:
		return sgn ? (int64_t)v < (int64_t)c : v < c;
	case OP_LE:
		return sgn ? (int64_t)v <= (int64_t)c : v <= c;
	case OP_GT:
		return sgn ? (int64_t)v > (int64_t)c : v > c;
	case OP_GE:
		return sgn ? (int64_t)v >= (int64_t)c : v >= c;
	case OP_BAND:
		return (v & c) != 0;
	}
	return false;
}

/* The current cpu compares as the kernel's int; '&' never matches. */
static bool match_cpu(const struct fpred *p, struct hist__rec *r)
{
	int32_t cpu = r->hit ? (int32_t)r->hit->cpu : 0;
	int32_t c = (int32_t)p->val;

	switch (p->op) {
	case OP_EQ:
		return cpu == c;
	case OP_NE:
		return cpu != c;
	case OP_LT:
		return cpu < c;
	case OP_LE:
		return cpu <= c;
	case OP_GT:
		return cpu > c;
	case OP_GE:
		return cpu >= c;
	}
	return false;
}

static bool match_mask(const struct fpred *p, struct hist__rec *r)
{
	const uint8_t *b;
	uint32_t len = rec_mask(p, r, &b);
	bool equal = true, any = false;
	unsigned w;

	for (w = 0; w < FILTER_CPU_WORDS; w++) {
		uint64_t a = rec_mask_word(b, len, w);

		equal &= a == p->mask[w];
		any |= (a & p->mask[w]) != 0;
	}
	switch (p->op) {
	case OP_EQ:
		return equal;
	case OP_NE:
		return !equal;
	default:
		return any;
	}
}

static bool match_mask_cpu(const struct fpred *p, struct hist__rec *r)
{
	const uint8_t *b;
	uint32_t len = rec_mask(p, r, &b);
	uint64_t cpu = p->val;
	unsigned w, weight = 0;
	bool set = (rec_mask_word(b, len, (unsigned)(cpu / 64)) >> (cpu % 64)) & 1;

	for (w = 0; w < FILTER_CPU_WORDS && weight < 2; w++) {
		uint64_t a = rec_mask_word(b, len, w);

		if (a)
			weight += (a & (a - 1)) ? 2 : 1;
	}
	switch (p->op) {
	case OP_EQ:
		return set && weight < 2;
	case OP_NE:
		return !set || weight >= 2;
	default:
		return set;
	}
}

/*
 * A string as the kernel's matchers see it: N bytes before the NUL, RAW
 * bytes readable from S (what lies after the NUL included), and LIM, the
 * length the kernel passes along: the array size of a fixed field (0 for
 * a flexible one), the __data_loc length, 16 for comm.
 */
struct sview {
	const char *s;
	size_t n, raw, lim;
};

static void fetch_str(const struct fpred *p, struct hist__rec *r,
		      struct sview *v)
{
	uint32_t off, len;

	if (p->kind == PK_COMM) {
		v->s = hist__rec_comm(r);
		v->n = strlen(v->s);
		v->raw = v->n;	/* the kernel's comm is NUL padded */
		v->lim = HIST__COMM_LEN;
		return;
	}
	v->n = hist__read_str(&p->fd, r, &v->s);
	if (p->fd.kind == HIST_FIELD_DYN_STRING ||
	    p->fd.kind == HIST_FIELD_REL_STRING) {
		if (hist__field_loc(&p->fd, r, &off, &len)) {
			v->raw = 0;
			v->lim = 1;	/* outside the record: "" */
		} else {
			v->raw = len;
			v->lim = len;
		}
		return;
	}
	v->raw = p->fd.offset < r->len ? r->len - p->fd.offset : 0;
	if (p->fd.size && v->raw > p->fd.size)
		v->raw = p->fd.size;
	v->lim = p->fd.size;
}

static bool find_bytes(const char *s, size_t n, const char *pat, size_t pl)
{
	const char *end;

	if (!pl)
		return true;
	if (n < pl)
		return false;
	end = s + n - pl;
	while (s <= end) {
		const char *c = memchr(s, pat[0], (size_t)(end - s) + 1);

		if (!c)
			return false;
		if (!memcmp(c, pat, pl))
			return true;
		s = c + 1;
	}
	return false;
}

/*
 * One '[...]' class at *PP (just past the '[') against C.  Returns 1 on a
 * match, 0 on no match, -1 when the class is not closed (then '[' is an
 * ordinary character).  On 0/1, *PP moves past the ']'.
 */
static int glob_class(const char **pp, unsigned char c)
{
	const char *p = *pp;
	bool inverted = *p == '!', hit = false;
	unsigned char lo;

	p += inverted;
	lo = (unsigned char)*p++;
	for (;;) {
		unsigned char hi = lo;

		if (!lo)
			return -1;
		if (p[0] == '-' && p[1] != ']') {
			hi = (unsigned char)p[1];
			if (!hi)
				return -1;
			p += 2;
		}
		if (lo <= c && c <= hi)
			hit = true;
		lo = (unsigned char)*p++;
		if (lo == ']')
			break;
	}
	*pp = p;
	return hit != inverted;
}

/*
 * Shell-style glob of PAT over S[0..N): '*', '?', '[set]', '[a-z]',
 * '[!set]', '\x'.  A '*' remembers where to resume when a later part
 * fails, which is enough because a later '*' supersedes it.
 */
static bool glob_match(const char *pat, const char *s, size_t n)
{
	const char *star = NULL;
	size_t i = 0, star_i = 0;

	for (;;) {
		unsigned char c = i < n ? (unsigned char)s[i] : 0;
		unsigned char d = (unsigned char)*pat++;
		int k;

		switch (d) {
		case '?':
			if (!c)
				return false;
			i++;
			continue;
		case '*':
			if (!*pat)
				return true;
			star = pat;
			star_i = i;
			continue;
		case '[':
			k = glob_class(&pat, c);
			if (k == 1) {
				i++;
				continue;
			}
			if (k == 0)
				break;	/* mismatch */
			if (c == d) {
				i++;
				continue;
			}
			break;
		case '\\':
			d = (unsigned char)*pat;
			if (d)
				pat++;
			/* fall through */
		default:
			if (c == d) {
				if (!d)
					return true;
				i++;
				continue;
			}
			break;
		}
		/* mismatch: retry from the last '*', one character later */
		if (!c || !star)
			return false;
		pat = star;
		i = ++star_i;
	}
}

/*
 * The kernel's matchers, bounded.  Their quirks are kept: a full match of
 * a field with no NUL compares only LIM bytes, a '*x*' match scans the raw
 * bytes of the field, and a '*x' match looks at the LIM - 1 bytes before
 * the end of the field, not of the string, so on a fixed char array it
 * only sees a string that fills the array.
 */
static bool match_str(const struct fpred *p, struct hist__rec *r)
{
	struct sview v;
	size_t pl = p->plen, e;
	bool m = false;

	fetch_str(p, r, &v);
	switch (p->match) {
	case M_FULL:
		if (!v.lim || v.n < v.lim)
			m = v.n == pl && !memcmp(v.s, p->pat, pl);
		else
			m = pl >= v.lim && !memcmp(v.s, p->pat, v.lim);
		break;
	case M_FRONT:
		m = pl <= v.n && !memcmp(v.s, p->pat, pl);
		break;
	case M_MIDDLE:
		if (!v.lim)
			m = find_bytes(v.s, v.n, p->pat, pl);
		else
			m = find_bytes(v.s, v.lim < v.raw ? v.lim : v.raw,
				       p->pat, pl);
		break;
	case M_END:
		if (!v.lim)
			break;
		e = v.lim - 1;
		m = e >= pl && e <= v.raw && !memcmp(v.s + e - pl, p->pat, pl);
		break;
	case M_GLOB:
		m = glob_match(p->pat, v.s, v.n);
		break;
	}
	return m ^ p->neg;
}

static bool match_func(const struct fpred *p, struct hist__rec *r)
{
	uint64_t v = hist__read_int(&p->fd, r);
	bool in = v >= p->val && v - p->val < p->val2;

	return p->op == OP_EQ ? in : !in;
}

static bool pred_match(const struct fpred *p, struct hist__rec *r)
{
	switch (p->kind) {
	case PK_INT:
		return match_int(p, r);
	case PK_INT_MASK: {
		/* the field's value as the kernel's unsigned int cpu */
		uint32_t cpu = (uint32_t)hist__read_int(&p->fd, r);

		return cpu < FILTER_CPU_BITS && scalar_vs_mask(p->op, cpu, p->mask);
	}
	case PK_CPU:
		return match_cpu(p, r);
	case PK_CPU_MASK:
		return scalar_vs_mask(p->op, r->hit ? r->hit->cpu : 0, p->mask);
	case PK_MASK:
		return match_mask(p, r);
	case PK_MASK_CPU:
		return match_mask_cpu(p, r);
	case PK_STR:
	case PK_COMM:
		return match_str(p, r);
	case PK_FUNC:
		return match_func(p, r);
	}
	return false;
}

bool hist__filter_match(const struct hist_filter *f, struct hist__rec *r)
{
	uint32_t i = 0;

	if (!f)
		return true;
	while (i < f->nr) {
		const struct fpred *p = &f->preds[i];

		i = pred_match(p, r) ? p->t : p->f;
	}
	return i == f->nr;
}

bool hist__filter_plain(const struct hist_filter *f)
{
	return f && f->plain_preds;
}

/* hist__filter_match_data() of a filter that is not plain: out of line,
 * so that the plain one's path keeps no hist__rec on its stack. */
static HIST__NOINLINE bool match_data_rec(const struct hist_filter *f,
					  const struct hist_event *ev, const void *data,
					  size_t len, const struct hist_hit *hit)
{
	struct hist__rec r;

	hist__rec_init(&r, ev, data, len, hit);
	return hist__filter_match(f, &r);
}

/* The value of P's field in the record DATA of LEN bytes, as
 * hist__int_at() reads it. */
static HIST__ALWAYS_INLINE uint64_t plain_value(const struct fplain *p, const uint8_t *data,
						size_t len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (hist__likely(p->fast_end <= len)) {
		uint64_t w;

		/* the field's bytes are the low ones of the 8 at OFF */
		memcpy(&w, data + p->off, 8);
		return (uint64_t)((int64_t)(w << p->shl) >> p->shl) & p->zmask;
	}
#endif
	return hist__int_at(p->fd, data, len);
}

bool hist__filter_match_plain(const struct hist_filter *f, const void *data, size_t len)
{
	uint32_t i = 0;

	while (i < f->nr) {
		const struct fplain *p = &f->plain_preds[i];
		uint64_t v = plain_value(p, data, len);

		i = ((((v & p->and_mask) ^ p->flip) - p->lo) < p->span) != p->neg ? p->t : p->f;
	}
	return i == f->nr;
}

bool hist__filter_match_data(const struct hist_filter *f, const struct hist_event *ev,
			     const void *data, size_t len, const struct hist_hit *hit)
{
	if (!f)
		return true;
	if (!data)
		len = 0;
	if (!f->plain_preds)
		return match_data_rec(f, ev, data, len, hit);
	return hist__filter_match_plain(f, data, len);
}

int hist_filter_match(const hist_filter *f, const void *rec, size_t len,
		      const struct hist_hit *hit)
{
	struct hist__rec r;

	if (!f)
		return 1;
	hist__rec_init(&r, f->ev, rec, len, hit);
	return hist__filter_match(f, &r) ? 1 : 0;
}
