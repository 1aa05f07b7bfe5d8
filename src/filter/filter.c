/* SPDX-License-Identifier: MIT */
/*
 * The event filter language: compiling (evaluation is in filter_match.c).
 *
 * Compiling reads the text twice, the way the kernel does, so that every
 * rejected filter comes back with the kernel's errno, message and caret:
 *
 *   1. A balance pass looks only at quotes and parentheses.  It reports an
 *      unterminated quote (ESRCH), a ')' without '(' (EPERM) and a '('
 *      without ')' (ENOENT), and it sizes the arrays of the second pass.
 *   2. A token pass expects, in turn, any number of '(' and '!', then a
 *      predicate, then any number of ')' followed by "&&", "||" or the end.
 *      Anything else after a predicate is "Too many terms" (EPERM); text
 *      that does not start with a field name fails with no message (EPERM).
 *
 * Carets of predicate errors count from one past the predicate's first
 * character, not from the character itself: the kernel hands its predicate
 * parser the offset of the next character (kernel/trace/trace_events_filter.c);
 * test_filter.c's caret table depends on that.
 *
 * The token pass builds a small AND/OR tree (a frame per open parenthesis,
 * each with the OR of its AND-lists).  The tree is then flattened into an
 * array of predicates in text order; each predicate carries the index of
 * the predicate to test next when it is true and when it is false, where
 * index nr means "the filter matches" and nr + 1 "it does not".  '!' costs
 * nothing at run time: it swaps the two targets.  Targets always point
 * forward, so evaluation is a loop of at most nr steps with no recursion,
 * no allocation and no text parsing: constants, glob patterns and cpumasks
 * are prepared at compile time, and fields are read through the bounded
 * schema accessors, so a short or hostile record reads as zeros and empty
 * strings.
 */
#include "filter/filter_int.h"
#include "common/kversion.h"

static const char *const op_text[OP_COUNT] = {
	"~", "!=", "==", "<=", "<", ">=", ">", "&",
};

/* ------------------------------------------------------------------------
 * Character classes of the kernel's ctype table (Latin-1 aware).
 */
static bool k_isspace(char ch)
{
	unsigned char c = (unsigned char)ch;

	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static bool k_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static bool k_isalnum(char ch)
{
	unsigned char c = (unsigned char)ch;

	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || k_isdigit(ch))
		return true;
	return c >= 0xc0 && c != 0xd7 && c != 0xf7;
}

/* V of SIZE bytes, sign- or zero-extended to 64 bits. */
static uint64_t fit(uint64_t v, uint32_t size, bool is_signed)
{
	unsigned shift;

	if (size >= 8)
		return v;
	shift = 64 - size * 8;
	v <<= shift;
	return is_signed ? (uint64_t)((int64_t)v >> shift) : v >> shift;
}

/* ------------------------------------------------------------------------
 * Compile: shared state
 */

enum { T_LEAF, T_AND, T_OR };

struct tnode {
	uint8_t kind;
	uint8_t neg;		/* relative to the parent */
	uint32_t first;		/* index of the first predicate below */
	uint32_t nr;		/* children */
	int32_t child, last, next;
};

struct tframe {
	int32_t or_n, and_n;
	bool base;		/* '!' parity at the '(' */
};

struct fparse {
	const struct hist_event *ev;
	const char *str;
	struct hist__filter_err *err;
	struct fpred *preds;
	uint32_t nr_preds, cap_preds;
	struct tnode *nodes;
	uint32_t nr_nodes, cap_nodes;
	struct tframe *frames;
	uint32_t depth, cap_frames;
};

static int fail(struct fparse *p, int code, int msg, uint32_t pos)
{
	p->err->code = code;
	p->err->msg = msg;
	p->err->pos = pos;
	return code;
}

/* ------------------------------------------------------------------------
 * Compile: pass 1, quotes and parentheses
 */

enum { BAL_OK, BAL_CLOSE, BAL_OPEN, BAL_QUOTE };

/* The '(' that has no ')': the innermost one still open, scanning back. */
static uint32_t unmatched_open(const char *str, uint32_t len, uint32_t open)
{
	uint32_t level = open, j;
	char quote = 0;

	/* index 0 is never examined: it is the answer when nothing else is */
	for (j = len ? len - 1 : 0; j > 0; j--) {
		char c = str[j];

		if (quote) {
			if (c == quote)
				quote = 0;
			continue;
		}
		switch (c) {
		case '(':
			if (level == open)
				return j;
			level--;
			break;
		case ')':
			level++;
			break;
		case '\'':
		case '"':
			quote = c;
			break;
		}
	}
	return 0;
}

/*
 * Sizes for pass 2: the deepest nesting (the whole text counts as one
 * level) and an upper bound of the predicates.
 */
static int check_balance(const char *str, uint32_t *max_open, uint32_t *preds,
			 uint32_t *where)
{
	uint32_t open = 1, deepest = 1, nr = 0, last_quote = 0, i;
	bool in_pred = false;
	char quote = 0;

	for (i = 0; str[i]; i++) {
		char c = str[i];

		if (k_isspace(c))
			continue;
		if (quote) {
			if (c == quote)
				quote = 0;
			continue;
		}
		switch (c) {
		case '\'':
		case '"':
			quote = c;
			last_quote = i;
			break;
		case '&':
		case '|':
			if (str[i + 1] != c)
				break;
			in_pred = false;
			continue;
		case '(':
			in_pred = false;
			if (++open > deepest)
				deepest = open;
			continue;
		case ')':
			in_pred = false;
			if (open == 1) {
				*where = i;
				return BAL_CLOSE;
			}
			open--;
			continue;
		}
		if (!in_pred) {
			nr++;
			in_pred = true;
		}
	}
	if (quote) {
		*where = last_quote;
		return BAL_QUOTE;
	}
	if (open != 1) {
		*where = unmatched_open(str, i, open);
		return BAL_OPEN;
	}
	*max_open = deepest;
	*preds = nr;
	return BAL_OK;
}

/* ------------------------------------------------------------------------
 * Compile: one predicate
 */

struct fref {
	struct hist_field_desc fd;
	int type;	/* FT_* */
};

/* One predicate being parsed: carets are POS + an index into STR. */
struct pctx {
	struct fparse *p;
	const char *str;
	uint32_t pos;
	uint32_t i, s;
	int op;
	struct fref fr;
	struct fpred *pred;
};

static int pfail(struct pctx *q, int msg, uint32_t at)
{
	return fail(q->p, -HIST_EINVAL, msg, q->pos + at);
}

static bool name_is(const char *name, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(name, lit, n);
}

static int field_type(const struct hist_field_desc *fd)
{
	switch (fd->kind) {
	case HIST_FIELD_STRING:
	case HIST_FIELD_FLEX_STRING:
		return FT_STATIC_STR;
	case HIST_FIELD_DYN_STRING:
	case HIST_FIELD_REL_STRING:
		return FT_DYN_STR;
	case HIST_FIELD_PTR_STRING:
		return FT_PTR_STR;
	case HIST_FIELD_DYN_ARRAY:
		return fd->type && strstr(fd->type, "cpumask_t") ? FT_CPUMASK
								 : FT_OTHER;
	}
	return FT_OTHER;
}

static bool is_string_type(int type)
{
	return type == FT_STATIC_STR || type == FT_DYN_STR ||
	       type == FT_PTR_STR || type == FT_COMM;
}

/*
 * The event's own fields first, then the generic ones every event has.
 * The generic fields keep the kernel's declarations (int cpu, char *comm)
 * at offset 0, which is what a '.function' on them reads.
 */
static int lookup_field(const struct hist_event *ev, const char *name,
			size_t n, struct fref *fr)
{
	const struct hist_field_desc *fd = hist__event_field(ev, name, n);

	memset(fr, 0, sizeof(*fr));
	fr->fd.kind = HIST_FIELD_INT;
	if (fd) {
		fr->fd = *fd;
		fr->fd.name = NULL;
		fr->fd.type = NULL;
		fr->type = field_type(fd);
	} else if (name_is(name, n, "CPU") || name_is(name, n, "cpu") ||
		   name_is(name, n, "common_cpu")) {
		fr->fd.size = 4;
		fr->fd.is_signed = 1;
		fr->type = FT_CPU;
	} else if (name_is(name, n, "COMM") || name_is(name, n, "comm")) {
		fr->fd.size = 8;
		fr->type = FT_COMM;
	} else {
		return -1;
	}
	return 0;
}

/* A numeric comparison at the field's width; odd widths never match. */
static void set_int(struct fpred *pd, const struct fref *fr, int op,
		    uint64_t val)
{
	uint32_t size = fr->fd.size;

	if (size != 1 && size != 2 && size != 4 && size != 8) {
		pd->kind = PK_FALSE;
		return;
	}
	pd->kind = PK_INT;
	pd->op = (uint8_t)op;
	pd->fd = fr->fd;
	pd->fd.kind = HIST_FIELD_INT;
	pd->val = fit(val, size, pd->fd.is_signed);
}

static bool has_prefix(const char *s, const char *lit)
{
	return !strncmp(s, lit, strlen(lit));
}

/*
 * Resolve ADDR to the function around it through the host's symbolizer
 * ("name+0xoff/0xsize").  Without one, the number is an exact address.
 */
static int func_range(const struct hist_event *ev, uint64_t addr,
		      uint64_t *start, uint64_t *size)
{
	const struct hist_host *h = ev->host;
	char buf[FILTER_SYM_MAX];
	uint64_t off, sz;
	char *plus, *slash;
	int len;

	*start = addr;
	*size = 1;
	if (!h || !h->sym)
		return 0;
	len = h->sym(h->data, addr, 1, buf, sizeof(buf));
	if (len < 0)
		return -1;
	if ((size_t)len >= sizeof(buf))
		return 0;
	buf[len] = 0;
	plus = strrchr(buf, '+');
	slash = plus ? strchr(plus, '/') : NULL;
	if (!slash ||
	    hist__parse_u64(plus + 1, (size_t)(slash - plus - 1), 16, &off) ||
	    hist__parse_u64(slash + 1, strlen(slash + 1), 16, &sz) || off > addr)
		return 0;
	*start = addr - off;
	*size = sz;
	return 0;
}

/* FIELD.function == ADDRESS|SYMBOL */
static int parse_function(struct pctx *q)
{
	const char *str = q->str;
	uint64_t addr;

	if (q->fr.fd.size != 8)
		return pfail(q, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, q->i);
	if (q->op != OP_EQ && q->op != OP_NE)
		return pfail(q, HIST_FILTER_ERR_INVALID_OP, q->i);
	if (!k_isdigit(str[q->i])) {
		/* a name: the host's name -> address table (hist_host.sym_addr) */
		const struct hist_host *h = q->p->ev->host;
		uint32_t s0 = q->i;

		/* the name runs to the next blank, a ')' included, as
		 * the kernel reads it */
		while (str[q->i] && !k_isspace(str[q->i]))
			q->i++;
		if (!h || !h->sym_addr ||
		    h->sym_addr(h->data, str + s0, q->i - s0, &addr) ||
		    func_range(q->p->ev, addr, &q->pred->val, &q->pred->val2))
			return pfail(q, HIST_FILTER_ERR_NO_FUNCTION, q->i);
		goto found;
	}
	while (k_isalnum(str[q->i]))
		q->i++;
	if (q->i - q->s >= FILTER_NUM_MAX)
		return pfail(q, HIST_FILTER_ERR_OPERAND_TOO_LONG, q->i);
	if (hist__parse_u64(str + q->s, q->i - q->s, 0, &addr))
		return pfail(q, HIST_FILTER_ERR_INVALID_VALUE, q->i);
	if (func_range(q->p->ev, addr, &q->pred->val, &q->pred->val2))
		return pfail(q, HIST_FILTER_ERR_NO_FUNCTION, q->i);
found:
	q->pred->kind = PK_FUNC;
	q->pred->op = (uint8_t)q->op;
	q->pred->fd = q->fr.fd;
	q->pred->fd.kind = HIST_FIELD_INT;
	q->pred->fd.is_signed = 0;
	return 0;
}

/* A decimal number for a cpulist; 'N' is the last cpu. */
static int cpulist_num(const char **sp, const char *end, uint32_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;

	if (s < end && *s == 'N') {
		*out = FILTER_CPU_BITS - 1;
		*sp = s + 1;
		return 0;
	}
	if (s >= end || !k_isdigit(*s))
		return -1;
	while (s < end && k_isdigit(*s)) {
		v = v * 10 + (uint64_t)(*s++ - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	*out = (uint32_t)v;
	*sp = s;
	return 0;
}

static bool cpulist_sep(const char *s, const char *end)
{
	return s < end && (k_isspace(*s) || *s == ',');
}

static bool cpulist_region_end(const char *s, const char *end)
{
	return s >= end || k_isspace(*s) || *s == ',';
}

/*
 * A cpulist as bitmap_parselist() reads it: regions separated by commas
 * or blanks, each "all", "A", "A-B" or "A-B:USED/GROUP" (and 'N' for the
 * last cpu).  Only cpus below FILTER_CPU_BITS exist.
 */
static int cpulist_parse(const char *s, const char *end, uint64_t *mask)
{
	for (;;) {
		uint32_t a, b, used, group;
		uint64_t c;

		while (cpulist_sep(s, end))
			s++;
		if (s >= end)
			return 0;
		if (end - s >= 3 && (s[0] | 0x20) == 'a' && (s[1] | 0x20) == 'l' &&
		    (s[2] | 0x20) == 'l') {
			a = 0;
			b = FILTER_CPU_BITS - 1;
			s += 3;
		} else {
			if (cpulist_num(&s, end, &a))
				return -1;
			b = a;
			if (!cpulist_region_end(s, end)) {
				if (*s++ != '-' || cpulist_num(&s, end, &b))
					return -1;
			}
		}
		used = b + 1;
		group = b + 1;
		if (!cpulist_region_end(s, end)) {
			if (*s++ != ':' || cpulist_num(&s, end, &used) ||
			    s >= end || *s++ != '/' || cpulist_num(&s, end, &group))
				return -1;
		}
		if (a > b || group == 0 || used > group || b >= FILTER_CPU_BITS)
			return -1;
		for (c = a; c <= b; c += group) {
			uint64_t k;

			for (k = 0; k < used && c + k <= b; k++)
				mask[(c + k) / 64] |= 1ull << ((c + k) % 64);
		}
	}
}

/* FIELD op CPUS{list} */
static int parse_cpus(struct pctx *q)
{
	const char *str = q->str;
	struct fpred *pd = q->pred;
	uint64_t mask[FILTER_CPU_WORDS] = { 0 };
	uint32_t start, weight = 0, first = 0, k;
	int op = q->op;

	if (q->fr.type != FT_CPUMASK && q->fr.type != FT_CPU &&
	    q->fr.type != FT_OTHER)
		return pfail(q, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, q->i);
	if (op != OP_EQ && op != OP_NE && op != OP_BAND)
		return pfail(q, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, q->i);
	q->i += 4;
	if (str[q->i++] != '{')
		return pfail(q, HIST_FILTER_ERR_MISSING_BRACE_OPEN, q->i);
	start = q->i;
	while (str[q->i] && str[q->i] != '}')
		q->i++;
	if (str[q->i] != '}')
		return pfail(q, HIST_FILTER_ERR_MISSING_BRACE_CLOSE, q->i);
	if (start == q->i ||
	    cpulist_parse(str + start, str + q->i, mask))
		return pfail(q, HIST_FILTER_ERR_INVALID_CPULIST, q->i);
	q->i++;
	for (k = 0; k < FILTER_CPU_BITS; k++) {
		if (mask_test(mask, k) && !weight++)
			first = k;
	}
	if (weight == 1) {
		/* one cpu: an ordinary comparison, '&' meaning '==' */
		if (op == OP_BAND && q->fr.type != FT_CPUMASK)
			op = OP_EQ;
		if (q->fr.type == FT_CPUMASK) {
			pd->kind = PK_MASK_CPU;
			pd->fd = q->fr.fd;
			pd->val = first;
		} else if (q->fr.type == FT_CPU) {
			pd->kind = PK_CPU;
			pd->val = first;
		} else {
			set_int(pd, &q->fr, op, first);
		}
		pd->op = (uint8_t)op;
		return 0;
	}
	pd->op = (uint8_t)op;
	if (q->fr.type == FT_OTHER) {
		uint32_t size = q->fr.fd.size;

		if (size != 1 && size != 2 && size != 4 && size != 8) {
			pd->kind = PK_FALSE;
			return 0;
		}
		pd->kind = PK_INT_MASK;
		pd->fd = q->fr.fd;
		pd->fd.kind = HIST_FIELD_INT;
		pd->fd.is_signed = 0;
	} else if (q->fr.type == FT_CPU) {
		pd->kind = PK_CPU_MASK;
	} else {
		pd->kind = PK_MASK;
		pd->fd = q->fr.fd;
	}
	pd->mask = hist__zalloc(sizeof(mask));
	if (!pd->mask)
		return fail(q->p, -HIST_ENOMEM, HIST_FILTER_ERR_ERRNO, 0);
	memcpy(pd->mask, mask, sizeof(mask));
	return 0;
}

/*
 * Sort out a pattern the kernel's way: for '~', a leading '!' negates; a
 * pattern starting with a digit, or with no wildcard, is a full match;
 * "x*", "*x" and "*x*" are prefix, suffix and substring matches; any other
 * '*', or a '?', '[' or '\', makes a real glob.
 */
static int set_pattern(struct fpred *pd, const char *pat, uint32_t len, int op)
{
	int type = M_FULL;
	uint32_t k;

	if (op == OP_GLOB) {
		pd->neg = 0;
		if (len && pat[0] == '!') {
			pd->neg = 1;
			pat++;
			len--;
		}
		for (k = 0; k < len && !k_isdigit(pat[0]); k++) {
			if (pat[k] == '*') {
				if (k == 0) {
					type = M_END;
				} else if (k == len - 1) {
					type = type == M_END ? M_MIDDLE : M_FRONT;
					len = k;
					break;
				} else {
					type = M_GLOB;
					break;
				}
			} else if (pat[k] == '[' || pat[k] == '?' || pat[k] == '\\') {
				type = M_GLOB;
				break;
			}
		}
		if ((type == M_END || type == M_MIDDLE) && pat[0] == '*') {
			pat++;
			len--;
		}
	}
	pd->match = (uint8_t)type;
	pd->plen = len;
	pd->pat = hist__strndup(pat, len);
	return pd->pat ? 0 : -1;
}

/* FIELD op 'text' or "text" */
static int parse_string(struct pctx *q)
{
	const char *str = q->str;
	struct fpred *pd = q->pred;
	char quote = str[q->i];
	uint32_t len;

	switch (q->op) {
	case OP_NE:
		pd->neg = 1;
		break;
	case OP_GLOB:
	case OP_EQ:
		break;
	default:
		return pfail(q, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, q->i);
	}
	if (!is_string_type(q->fr.type))
		return pfail(q, HIST_FILTER_ERR_EXPECT_DIGIT, q->i);
	for (q->i++; str[q->i]; q->i++) {
		if (str[q->i] == quote)
			break;
	}
	if (!str[q->i])
		return pfail(q, HIST_FILTER_ERR_MISSING_QUOTE, q->i);
	q->s++;
	len = q->i - q->s;
	if (len >= FILTER_STR_MAX)
		return pfail(q, HIST_FILTER_ERR_OPERAND_TOO_LONG, q->i);
	q->i++;
	if (q->fr.type == FT_PTR_STR) {
		/* the text behind a pointer is not in the record */
		pd->kind = PK_FALSE;
		return 0;
	}
	pd->kind = q->fr.type == FT_COMM ? PK_COMM : PK_STR;
	pd->op = (uint8_t)q->op;
	pd->fd = q->fr.fd;
	if (set_pattern(pd, str + q->s, len, q->op))
		return fail(q->p, -HIST_ENOMEM, HIST_FILTER_ERR_ERRNO, 0);
	return 0;
}

/* FIELD op [-]NUMBER, base 0, parsed at the field's signedness */
static int parse_number(struct pctx *q)
{
	const char *str = q->str;
	uint64_t v;
	int64_t sv;
	uint32_t len;
	int ret;

	if (is_string_type(q->fr.type))
		return pfail(q, HIST_FILTER_ERR_EXPECT_STRING, q->i);
	if (q->op == OP_GLOB)
		return pfail(q, HIST_FILTER_ERR_ILLEGAL_FIELD_OP, q->i);
	if (str[q->i] == '-')
		q->i++;
	while (k_isalnum(str[q->i]))
		q->i++;
	len = q->i - q->s;
	if (len >= FILTER_NUM_MAX)
		return pfail(q, HIST_FILTER_ERR_OPERAND_TOO_LONG, q->i);
	if (q->fr.fd.is_signed) {
		ret = hist__parse_s64(str + q->s, len, 0, &sv);
		v = (uint64_t)sv;
	} else {
		ret = hist__parse_u64(str + q->s, len, 0, &v);
	}
	if (ret)
		return pfail(q, HIST_FILTER_ERR_ILLEGAL_INTVAL, q->s);
	if (q->fr.type == FT_CPU) {
		q->pred->kind = PK_CPU;
		q->pred->op = (uint8_t)q->op;
		q->pred->val = v;
	} else {
		set_int(q->pred, &q->fr, q->op, v);
	}
	return 0;
}

/* The kernel version whose filter language EV's filters are in. */
static uint32_t filter_kernel(const struct fparse *p)
{
	return p->ev ? p->ev->kernel : HIST_KERNEL_LATEST;
}

/*
 * Parse the predicate at STR[AT] into PRED.  Returns the number of bytes
 * it spans, or a negative errno with p->err filled.
 */
static int parse_pred(struct fparse *p, uint32_t at, struct fpred *pred)
{
	struct pctx q = { .p = p, .str = p->str + at, .pos = at + 1,
			  .pred = pred };
	const char *str = q.str;
	bool function = false;
	int ret;

	while (k_isspace(str[q.i]))
		q.i++;
	q.s = q.i;
	while (k_isalnum(str[q.i]) || str[q.i] == '_')
		q.i++;
	if (q.i == q.s)	/* not a predicate at all: no message */
		return fail(p, -HIST_EPERM, HIST_FILTER_ERR_ERRNO, 0);
	if (lookup_field(p->ev, str + q.s, q.i - q.s, &q.fr))
		return pfail(&q, HIST_FILTER_ERR_FIELD_NOT_FOUND, q.i);

	/* .ustring: user memory is as far away as kernel memory here */
	if (has_prefix(str + q.i, ".ustring"))
		q.i += 8;
	if (has_prefix(str + q.i, ".function") &&
	    hist__kv_new(filter_kernel(p), HIST__KV_FILTER_FUNCTION)) {
		function = true;
		q.i += 9;
	}
	while (k_isspace(str[q.i]))
		q.i++;
	for (q.op = 0; q.op < OP_COUNT; q.op++) {
		if (has_prefix(str + q.i, op_text[q.op]))
			break;
	}
	if (q.op == OP_COUNT)
		return pfail(&q, HIST_FILTER_ERR_INVALID_OP, q.i);
	q.i += (uint32_t)strlen(op_text[q.op]);
	while (k_isspace(str[q.i]))
		q.i++;
	q.s = q.i;

	if (function)
		ret = parse_function(&q);
	else if (has_prefix(str + q.i, "CPUS") &&
		 hist__kv_new(filter_kernel(p), HIST__KV_FILTER_CPUS))
		ret = parse_cpus(&q);
	else if (str[q.i] == '\'' || str[q.i] == '"')
		ret = parse_string(&q);
	else if (k_isdigit(str[q.i]) || str[q.i] == '-')
		ret = parse_number(&q);
	else
		ret = pfail(&q, HIST_FILTER_ERR_INVALID_VALUE, q.i);
	return ret < 0 ? ret : (int)q.i;
}

/* ------------------------------------------------------------------------
 * Compile: pass 2, the token walk that builds the tree
 */

static int32_t new_node(struct fparse *p, int kind)
{
	struct tnode *n;

	if (p->nr_nodes >= p->cap_nodes)
		return -1;
	n = &p->nodes[p->nr_nodes];
	n->kind = (uint8_t)kind;
	n->child = n->last = n->next = -1;
	return (int32_t)p->nr_nodes++;
}

static void add_child(struct fparse *p, int32_t parent, int32_t child)
{
	struct tnode *pn = &p->nodes[parent];

	if (!pn->nr++) {
		pn->child = child;
		pn->first = p->nodes[child].first;
	} else {
		p->nodes[pn->last].next = child;
	}
	pn->last = child;
}

static int push_frame(struct fparse *p, bool invert)
{
	struct tframe *fr;

	if (p->depth + 1 >= p->cap_frames)
		return fail(p, -HIST_EINVAL, HIST_FILTER_ERR_ERRNO, 0);
	fr = &p->frames[++p->depth];
	fr->base = invert;
	fr->or_n = new_node(p, T_OR);
	fr->and_n = new_node(p, T_AND);
	if (fr->or_n < 0 || fr->and_n < 0)
		return fail(p, -HIST_ENOMEM, HIST_FILTER_ERR_ERRNO, 0);
	p->nodes[fr->or_n].neg = invert != p->frames[p->depth - 1].base;
	return 0;
}

/* "||": the AND-list so far joins the OR; an empty one ("a || ||") not. */
static int split_or(struct fparse *p)
{
	struct tframe *fr = &p->frames[p->depth];

	if (p->nodes[fr->and_n].nr)
		add_child(p, fr->or_n, fr->and_n);
	fr->and_n = new_node(p, T_AND);
	return fr->and_n < 0 ? fail(p, -HIST_ENOMEM, HIST_FILTER_ERR_ERRNO, 0) : 0;
}

static void pop_frame(struct fparse *p)
{
	struct tframe *fr = &p->frames[p->depth];

	if (p->nodes[fr->and_n].nr)
		add_child(p, fr->or_n, fr->and_n);
	p->depth--;
	if (p->nodes[fr->or_n].nr)
		add_child(p, p->frames[p->depth].and_n, fr->or_n);
}

static int add_pred(struct fparse *p, uint32_t at, bool invert)
{
	struct tframe *fr = &p->frames[p->depth];
	int32_t leaf;
	int len;

	if (p->nr_preds >= p->cap_preds)
		return fail(p, -HIST_EPERM, HIST_FILTER_ERR_TOO_MANY_PREDS, at);
	len = parse_pred(p, at, &p->preds[p->nr_preds]);
	if (len < 0)
		return len;
	leaf = new_node(p, T_LEAF);
	if (leaf < 0)
		return fail(p, -HIST_ENOMEM, HIST_FILTER_ERR_ERRNO, 0);
	p->nodes[leaf].first = p->nr_preds++;
	p->nodes[leaf].neg = invert != fr->base;
	add_child(p, fr->and_n, leaf);
	return len;
}

static int parse_tokens(struct fparse *p)
{
	const char *str = p->str;
	uint32_t ptr = 0, next;
	bool invert = false;
	int ret;

	while (str[ptr]) {
		next = ptr++;
		if (k_isspace(str[next]))
			continue;
		if (str[next] == '(') {
			ret = push_frame(p, invert);
			if (ret)
				return ret;
			continue;
		}
		if (str[next] == '!' && str[next + 1] != '=' &&
		    str[next + 1] != '~') {
			invert = !invert;
			continue;
		}
		ret = add_pred(p, next, invert);
		if (ret < 0)
			return ret;
		ptr = next + (uint32_t)ret;

		/* after a predicate: ')'s, then "&&", "||" or the end */
		for (;;) {
			char c;

			next = ptr++;
			c = str[next];
			if (k_isspace(c))
				continue;
			if (c == '&' || c == '|') {
				if (str[next + 1] != c)
					return fail(p, -HIST_EPERM,
						    HIST_FILTER_ERR_TOO_MANY_PREDS,
						    next);
				ptr++;
			} else if (c != ')' && c) {
				return fail(p, -HIST_EPERM,
					    HIST_FILTER_ERR_TOO_MANY_PREDS, next);
			}
			invert = p->frames[p->depth].base;
			if (c == '&')
				break;
			if (c == '|') {
				ret = split_or(p);
				if (ret)
					return ret;
				break;
			}
			if (!c)
				goto out;
			if (!p->depth)
				return fail(p, -HIST_EPERM,
					    HIST_FILTER_ERR_TOO_MANY_CLOSE, ptr);
			pop_frame(p);
		}
	}
out:
	if (p->depth)
		return fail(p, -HIST_EPERM, HIST_FILTER_ERR_TOO_MANY_OPEN, ptr);
	if (!p->nr_preds)
		return fail(p, -HIST_EINVAL, HIST_FILTER_ERR_NO_FILTER, ptr);
	if (p->nodes[p->frames[0].and_n].nr)
		add_child(p, p->frames[0].or_n, p->frames[0].and_n);
	return 0;
}

/* ------------------------------------------------------------------------
 * Compile: flatten the tree into jump targets
 */

struct fjob {
	int32_t node;
	uint32_t t, f;
};

/*
 * Give every predicate its two successors.  In an AND, a true child goes
 * on to its next sibling and a false one to the AND's false target; an OR
 * the other way round; a negated node swaps its targets.  Iterative, so
 * deep nesting cannot exhaust the stack.
 */
static int flatten(struct fparse *p, int32_t root)
{
	struct fjob *stack = hist__zalloc(sizeof(*stack) * (p->nr_nodes + 1));
	uint32_t sp = 0, i;

	if (!stack)
		return fail(p, -HIST_ENOMEM, HIST_FILTER_ERR_ERRNO, 0);
	stack[sp++] = (struct fjob){ root, p->nr_preds, p->nr_preds + 1 };
	while (sp) {
		struct fjob j = stack[--sp];
		const struct tnode *n = &p->nodes[j.node];
		int32_t c;

		if (n->neg) {
			uint32_t tmp = j.t;

			j.t = j.f;
			j.f = tmp;
		}
		if (n->kind == T_LEAF) {
			p->preds[n->first].t = j.t;
			p->preds[n->first].f = j.f;
			continue;
		}
		for (c = n->child; c >= 0; c = p->nodes[c].next) {
			int32_t sib = p->nodes[c].next;
			uint32_t after = sib >= 0 ? p->nodes[sib].first : 0;
			struct fjob cj = { c, j.t, j.f };

			if (sib >= 0 && n->kind == T_AND)
				cj.t = after;
			else if (sib >= 0)
				cj.f = after;
			stack[sp++] = cj;
		}
	}
	hist__free(stack);
	/* evaluation relies on forward-only jumps */
	for (i = 0; i < p->nr_preds; i++) {
		if (p->preds[i].t <= i || p->preds[i].f <= i)
			return fail(p, -HIST_EINVAL, HIST_FILTER_ERR_ERRNO, 0);
	}
	return 0;
}

/*
 * P (an integer field against a constant, the order of match_int() in
 * filter_match.c) as the range test of struct fplain.  With v' and c'
 * the value and constant in unsigned order (sign bit flipped for a
 * signed field): v < c is v' in [0, c'), v > c is v' in [c' + 1, 2^64),
 * an empty range when c' is the largest value (LO wraps to 0, SPAN is
 * 0); <=, >= and != are the negations of >, < and ==.
 */
static void plain_compile(const struct fpred *p, struct fplain *q)
{
	uint32_t size = p->fd.size;
	uint64_t flip = p->fd.is_signed ? 1ull << 63 : 0, c = p->val ^ flip;

	q->and_mask = UINT64_MAX;
	q->flip = flip;
	q->neg = false;
	switch (p->op) {
	case OP_NE:
		q->neg = true;
		/* fall through */
	case OP_EQ:
		q->lo = c;
		q->span = 1;
		break;
	case OP_GE:
		q->neg = true;
		/* fall through */
	case OP_LT:
		q->lo = 0;
		q->span = c;
		break;
	case OP_LE:
		q->neg = true;
		/* fall through */
	case OP_GT:
		q->lo = c + 1;
		q->span = UINT64_MAX - c;
		break;
	case OP_BAND:
		q->and_mask = p->val;
		q->flip = 0;
		q->lo = 1;
		q->span = UINT64_MAX;
		break;
	default:
		/* cmp_int(): no other operator matches */
		q->lo = 0;
		q->span = 0;
		break;
	}
	q->t = p->t;
	q->f = p->f;
	q->off = p->fd.offset;
	q->fd = &p->fd;
	if (size == 1 || size == 2 || size == 4 || size == 8) {
		q->shl = (uint8_t)(64 - 8 * size);
		/* an unsigned field's bits after the sign-extending shift */
		q->zmask = p->fd.is_signed || size == 8 ? UINT64_MAX
							: (1ull << (8 * size)) - 1;
		q->fast_end = (uint64_t)p->fd.offset + 8;
	} else {
		q->shl = 0;
		q->zmask = UINT64_MAX;
		q->fast_end = UINT64_MAX;
	}
}

/* ------------------------------------------------------------------------
 * Entry points
 */

static void free_preds(struct fpred *preds, uint32_t n)
{
	uint32_t i;

	if (!preds)
		return;
	for (i = 0; i < n; i++) {
		hist__free(preds[i].pat);
		hist__free(preds[i].mask);
	}
	hist__free(preds);
}

static int compile(struct fparse *p, uint32_t len)
{
	uint32_t max_open = 1, nr = 0, where = 0;
	int ret;

	switch (check_balance(p->str, &max_open, &nr, &where)) {
	case BAL_QUOTE:
		return fail(p, -HIST_ESRCH, HIST_FILTER_ERR_MISSING_QUOTE, where);
	case BAL_OPEN:
		return fail(p, -HIST_ENOENT, HIST_FILTER_ERR_TOO_MANY_OPEN, where);
	case BAL_CLOSE:
		return fail(p, -HIST_EPERM, HIST_FILTER_ERR_TOO_MANY_CLOSE, where);
	}
	if (!nr)
		return fail(p, -HIST_EINVAL, HIST_FILTER_ERR_ERRNO, 0);

	p->cap_preds = nr + 2;
	p->cap_frames = max_open + 1;
	/* a leaf takes a byte, "||" two bytes and a node, '(' a byte and two */
	p->cap_nodes = 2 * len + 4;
	p->preds = hist__zalloc(sizeof(*p->preds) * p->cap_preds);
	p->frames = hist__zalloc(sizeof(*p->frames) * p->cap_frames);
	p->nodes = hist__zalloc(sizeof(*p->nodes) * p->cap_nodes);
	if (!p->preds || !p->frames || !p->nodes)
		return fail(p, -HIST_ENOMEM, HIST_FILTER_ERR_ERRNO, 0);
	p->frames[0].or_n = new_node(p, T_OR);
	p->frames[0].and_n = new_node(p, T_AND);

	ret = parse_tokens(p);
	if (ret)
		return ret;
	return flatten(p, p->frames[0].or_n);
}

struct hist_filter *hist__filter_compile(const struct hist_event *ev,
					 const char *text, size_t n,
					 struct hist__filter_err *err)
{
	struct hist__filter_err dummy;
	struct fparse p = { .ev = ev, .err = err ? err : &dummy };
	struct hist_filter *f = NULL;
	char *buf = NULL;
	uint32_t i;

	p.err->code = 0;
	p.err->msg = HIST_FILTER_ERR_NONE;
	p.err->pos = 0;
	if (!ev || !text || n >= UINT32_MAX / 4) {
		fail(&p, -HIST_EINVAL, HIST_FILTER_ERR_ERRNO, 0);
		return NULL;
	}
	/* the text ends at its first NUL, as a kernel string would */
	buf = hist__strndup(text, n);
	if (!buf) {
		fail(&p, -HIST_ENOMEM, HIST_FILTER_ERR_ERRNO, 0);
		return NULL;
	}
	p.str = buf;
	if (compile(&p, (uint32_t)strlen(buf)))
		goto out;
	f = hist__zalloc(sizeof(*f));
	if (!f) {
		fail(&p, -HIST_ENOMEM, HIST_FILTER_ERR_ERRNO, 0);
		goto out;
	}
	f->ev = ev;
	f->text = buf;
	f->nr = p.nr_preds;
	f->preds = p.preds;
	for (i = 0; i < f->nr; i++)
		if (f->preds[i].kind != PK_INT || f->preds[i].fd.kind != HIST_FIELD_INT)
			break;
	/* Plain: every predicate an integer field against a constant.  If
	 * the compiled copy cannot be had, the general evaluation serves. */
	if (i == f->nr && (f->plain_preds = hist__zalloc(f->nr * sizeof(*f->plain_preds))))
		for (i = 0; i < f->nr; i++)
			plain_compile(&f->preds[i], &f->plain_preds[i]);
	buf = NULL;
	p.preds = NULL;
out:
	free_preds(p.preds, p.nr_preds + (p.nr_preds < p.cap_preds));
	hist__free(p.nodes);
	hist__free(p.frames);
	hist__free(buf);
	return f;
}

struct hist__retired *hist__filter_retire_node(struct hist_filter *f)
{
	return &f->retire;
}

void hist__filter_destroy(struct hist_filter *f)
{
	if (!f)
		return;
	free_preds(f->preds, f->nr);
	hist__free(f->plain_preds);
	hist__free(f->text);
	hist__free(f);
}

const char *hist__filter_text(const struct hist_filter *f)
{
	return f ? f->text : "";
}

/* ------------------------------------------------------------------------
 * Public wrappers
 */

hist_filter *hist_filter_compile(hist_event *ev, const char *text,
				 struct hist_error *err)
{
	struct hist__filter_err fe = { 0, HIST_FILTER_ERR_NONE, 0 };
	struct hist_filter *f;

	f = hist__filter_compile(ev, text, text ? strlen(text) : 0, &fe);
	if (err) {
		err->code = f ? 0 : fe.code;
		err->msg = f ? -1 : fe.msg;
		err->pos = f ? 0 : fe.pos;
		err->nr_logged = 0;
	}
	return f;
}

void hist_filter_destroy(hist_filter *f)
{
	hist__filter_destroy(f);
}
