/* SPDX-License-Identifier: MIT */
/*
 * The comparison rule of the oracle's tools/compare, in C.
 *
 * Per section: the trigger info lines are equal (blank runs squeezed);
 * the entries are the same multiset (key text and named values, blank
 * runs squeezed); the sequence of sort-key values (the fields named by
 * sort=, hitcount by default) is the same position by position, so
 * entries with equal sort values may come in any order since the kernel
 * breaks such ties arbitrarily (a stack key in sort= ties every entry:
 * the kernel compares stacks as equal); Totals are equal; other lines are
 * equal.
 * (compare also checks that the candidate is monotonic in the sort values;
 * with the sequence equal to the kernel's that adds nothing.)
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "conf.h"

struct cval {
	char *name, *value;	/* value: trimmed, not squeezed */
};

struct centry {
	char *keytext;		/* between '{' and '}', raw */
	char *key;		/* squeezed */
	struct cval *vals;
	size_t nr_vals;
	char *ident;
};

struct chist {
	char *trigger_info;
	struct centry *e;
	size_t n, cap;
	char *totals[3];	/* Hits, Entries, Dropped (trimmed), or NULL */
	char **extra;
	size_t nr_extra, extra_cap;
};

static const char *const total_names[3] = { "Hits", "Entries", "Dropped" };

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "conformance: out of memory\n");
		exit(2);
	}
	return p;
}

static char *xstrndup_(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

static void *xgrow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 8;

	if (need <= *cap)
		return p;
	while (ncap < need)
		ncap *= 2;
	p = realloc(p, ncap * elem);
	if (!p) {
		fprintf(stderr, "conformance: out of memory\n");
		exit(2);
	}
	*cap = ncap;
	return p;
}

char *conf_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	for (;;) {
		buf = xgrow(buf, &cap, n + 4097, 1);
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

char *conf_read_zst(const char *path, size_t *len)
{
	size_t clen, got;
	char *c = conf_read_file(path, &clen), *out = NULL;
	unsigned long long n = c ? ZSTD_getFrameContentSize(c, clen) : 0;

	if (c && n != ZSTD_CONTENTSIZE_ERROR && n != ZSTD_CONTENTSIZE_UNKNOWN &&
	    (out = malloc((size_t)n + 1)) != NULL) {
		got = ZSTD_decompress(out, (size_t)n, c, clen);
		if (ZSTD_isError(got) || got != n) {
			free(out);
			out = NULL;
		} else {
			out[n] = 0;
			if (len)
				*len = (size_t)n;
		}
	}
	free(c);
	return out;
}

unsigned long long conf_buffer_count(const char *counts, const char *file,
				     const char *buffer, const char *event)
{
	char *s = conf_read_file(counts, NULL), *line, *save = NULL;
	unsigned long long n = ~0ull;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char f[128], b[64], e[64];
		unsigned long long c;

		if (line[0] == '#' || sscanf(line, "%127s %63s %63s %llu", f, b, e, &c) != 4)
			continue;
		if (!strcmp(f, file) && !strcmp(b, buffer) && !strcmp(e, event))
			n = c;
	}
	free(s);
	return n;
}

size_t conf_lines(char *text, char ***lines)
{
	size_t n = 0, cap = 0;
	char **v = NULL, *p = text, *nl;

	while (*p) {
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = p;
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		if (nl > p && nl[-1] == '\r')
			nl[-1] = 0;
		p = nl + 1;
	}
	*lines = v;
	return n;
}

void conf_free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* squeeze blank runs to one space, trim the ends */
static char *norm(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	size_t i, o = 0;
	int sp = 0;

	for (i = 0; i < n; i++) {
		if (isspace((unsigned char)s[i])) {
			sp = 1;
			continue;
		}
		if (sp && o)
			d[o++] = ' ';
		sp = 0;
		d[o++] = s[i];
	}
	d[o] = 0;
	return d;
}

static char *trimdup(const char *b, const char *e)
{
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	return xstrndup_(b, (size_t)(e - b));
}

size_t conf_split_sections(const char *text, char ***out)
{
	static const char head[] = "# event histogram";
	const char *p = text, *start = NULL;
	char **v = NULL;
	size_t n = 0, cap = 0;

	for (;;) {
		const char *nl = strchr(p, '\n');
		int is_head = !strncmp(p, head, sizeof(head) - 1);

		if (is_head || !*p) {
			if (start) {
				const char *e = p;

				/* sections end with exactly one newline */
				while (e > start && e[-1] == '\n')
					e--;
				v = xgrow(v, &cap, n + 1, sizeof(*v));
				v[n] = xmalloc((size_t)(e - start) + 2);
				memcpy(v[n], start, (size_t)(e - start));
				v[n][e - start] = '\n';
				v[n][e - start + 1] = 0;
				n++;
			}
			start = is_head ? p : NULL;
		}
		if (!*p)
			break;
		p = nl ? nl + 1 : p + strlen(p);
	}
	*out = v;
	return n;
}

/* " name: value" items (names as in histparse.parse_vals) */
static int find_name(const char *b, const char *p, const char *e,
		     const char **nb, const char **ne, const char **after)
{
	for (; p < e; p++) {
		const char *q = p, *end;

		if (p != b && !isspace((unsigned char)p[-1]))
			continue;
		while (q < e && !isspace((unsigned char)*q) && *q != ':' &&
		       *q != '{' && *q != '}')
			q++;
		if (q == p)
			continue;
		end = q;
		if (e - q >= 4 && !strncmp(q, " (%)", 4))
			end = q += 4;
		if (q + 1 < e && q[0] == ':' && isspace((unsigned char)q[1])) {
			*nb = p;
			*ne = end;
			*after = q + 1;
			return 1;
		}
	}
	return 0;
}

static void parse_entry(struct centry *en, const char *text)
{
	const char *o = strchr(text, '{'), *c, *e, *p, *nb, *ne, *after;
	size_t cap = 0, il, i;
	char *ident;

	memset(en, 0, sizeof(*en));
	c = o ? strchr(o, '}') : NULL;
	if (!o || !c) {
		en->keytext = xstrndup_("", 0);
		en->key = xstrndup_("", 0);
		c = text + strlen(text) - 1;
	} else {
		en->keytext = xstrndup_(o + 1, (size_t)(c - o - 1));
		en->key = norm(en->keytext, strlen(en->keytext));
	}
	e = text + strlen(text);
	p = c + 1;
	while (p <= e && find_name(c + 1, p, e, &nb, &ne, &after)) {
		const char *nnb, *nne, *naf, *ve = e;

		if (find_name(c + 1, after, e, &nnb, &nne, &naf))
			ve = nnb;
		en->vals = xgrow(en->vals, &cap, en->nr_vals + 1,
				 sizeof(*en->vals));
		en->vals[en->nr_vals].name = xstrndup_(nb, (size_t)(ne - nb));
		en->vals[en->nr_vals].value = trimdup(after, ve);
		en->nr_vals++;
		p = ve;
	}
	il = strlen(en->key) + 2;
	for (i = 0; i < en->nr_vals; i++)
		il += strlen(en->vals[i].name) + strlen(en->vals[i].value) + 2;
	ident = xmalloc(il + 1);
	strcpy(ident, en->key);
	strcat(ident, "\x01");
	for (i = 0; i < en->nr_vals; i++) {
		char *nv = norm(en->vals[i].value, strlen(en->vals[i].value));

		strcat(ident, en->vals[i].name);
		strcat(ident, "\x02");
		strcat(ident, nv);
		strcat(ident, "\x01");
		free(nv);
	}
	en->ident = ident;
}

static void add_entry(struct chist *h, const char *text)
{
	h->e = xgrow(h->e, &h->cap, h->n + 1, sizeof(*h->e));
	parse_entry(&h->e[h->n++], text);
}

static void parse_hist(struct chist *h, const char *text)
{
	char *copy = xstrndup_(text, strlen(text)), **lines;
	size_t n = conf_lines(copy, &lines), i, curlen = 0, curcap = 0;
	char *cur = NULL;
	int in_totals = 0, have_cur = 0;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < n; i++) {
		const char *l = lines[i];

		if (!strncmp(l, "# trigger info:", 15)) {
			free(h->trigger_info);
			h->trigger_info = trimdup(l + 15, l + strlen(l));
		} else if (l[0] == '#') {
			;
		} else if (!strncmp(l, "Totals:", 7)) {
			if (have_cur)
				add_entry(h, cur);
			have_cur = 0;
			in_totals = 1;
		} else if (in_totals && strchr(l, ':') && !strncmp(l, "    ", 4)) {
			const char *colon = strchr(l, ':');
			char *k = trimdup(l, colon);
			int t;

			for (t = 0; t < 3; t++)
				if (!strcmp(k, total_names[t])) {
					free(h->totals[t]);
					h->totals[t] = trimdup(colon + 1,
							       l + strlen(l));
				}
			free(k);
		} else if (l[0] == '{') {
			if (have_cur)
				add_entry(h, cur);
			curlen = strlen(l);
			cur = xgrow(cur, &curcap, curlen + 1, 1);
			memcpy(cur, l, curlen + 1);
			have_cur = 1;
		} else if (have_cur && l[0] &&
			   (l[0] == ' ' || l[0] == '\t' || l[0] == '}' ||
			    l[0] == ',')) {
			/* ", key: v" continues an entry after a stack key */
			size_t ll = strlen(l);

			cur = xgrow(cur, &curcap, curlen + ll + 2, 1);
			cur[curlen++] = '\n';
			memcpy(cur + curlen, l, ll + 1);
			curlen += ll;
		} else {
			const char *b = l, *e = l + strlen(l);

			if (have_cur)
				add_entry(h, cur);
			have_cur = 0;
			while (b < e && isspace((unsigned char)*b))
				b++;
			if (b < e) {
				h->extra = xgrow(h->extra, &h->extra_cap,
						 h->nr_extra + 1, sizeof(char *));
				h->extra[h->nr_extra++] = xstrndup_(l, strlen(l));
			}
		}
	}
	if (have_cur)
		add_entry(h, cur);
	if (!h->trigger_info)
		h->trigger_info = xstrndup_("", 0);
	free(cur);
	free(lines);
	free(copy);
}

static void free_hist(struct chist *h)
{
	size_t i, j;

	for (i = 0; i < h->n; i++) {
		for (j = 0; j < h->e[i].nr_vals; j++) {
			free(h->e[i].vals[j].name);
			free(h->e[i].vals[j].value);
		}
		free(h->e[i].vals);
		free(h->e[i].keytext);
		free(h->e[i].key);
		free(h->e[i].ident);
	}
	free(h->e);
	for (i = 0; i < 3; i++)
		free(h->totals[i]);
	conf_free_strv(h->extra, h->nr_extra);
	free(h->trigger_info);
}

/* ---- sort values ------------------------------------------------------ */

struct sortkey {
	char *tok;
	int desc;
	int tie;	/* a stack key: every entry ties */
};

/*
 * The kernel compares stack keys with tracing_map_cmp_none (every pair
 * equal), so sort= on one (common_stacktrace, 6.12's name for
 * keys=stacktrace, or a key FIELD.stacktrace) leaves all entries tied
 * and their order to the sort's whim (k17-sort-common-stacktrace).
 */
static int stack_key(const char *info, const char *tok)
{
	const char *k = strstr(info, "hist:keys="), *e;
	size_t tl = strlen(tok);

	if (!strcmp(tok, "stacktrace") || !strcmp(tok, "common_stacktrace"))
		return 1;
	if (!k)
		return 0;
	k += 10;
	for (e = k; *e && *e != ':' && !isspace((unsigned char)*e); e++)
		;
	while (k < e) {
		const char *c = memchr(k, ',', (size_t)(e - k));

		if (!c)
			c = e;
		if ((size_t)(c - k) == tl + 11 && !strncmp(k, tok, tl) &&
		    !strncmp(k + tl, ".stacktrace", 11))
			return 1;
		k = c + 1;
	}
	return 0;
}

static size_t sort_spec(const char *info, struct sortkey **out)
{
	const char *p = strstr(info, ":sort="), *e;
	struct sortkey *v = NULL;
	size_t n = 0, cap = 0;

	if (!p) {
		v = xgrow(v, &cap, 1, sizeof(*v));
		v[0].tok = xstrndup_("hitcount", 8);
		v[0].desc = 0;
		v[0].tie = 0;
		*out = v;
		return 1;
	}
	p += 6;
	for (e = p; *e && *e != ':' && !isspace((unsigned char)*e); e++)
		;
	while (p < e) {
		const char *c = memchr(p, ',', (size_t)(e - p));
		size_t l;

		if (!c)
			c = e;
		l = (size_t)(c - p);
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n].desc = 0;
		if (l > 11 && !strncmp(c - 11, ".descending", 11)) {
			v[n].desc = 1;
			l -= 11;
		} else if (l > 10 && !strncmp(c - 10, ".ascending", 10)) {
			l -= 10;
		}
		v[n].tok = xstrndup_(p, l);
		v[n].tie = stack_key(info, v[n].tok);
		n++;
		p = c + 1;
	}
	*out = v;
	return n;
}

static const char *const modifiers[] = {
	"hex", "sym", "sym-offset", "symXoffset", "execname", "syscall",
	"log2", "usecs", "percent", "graph", "descending", "ascending",
};

static int is_modifier(const char *m)
{
	size_t i;

	for (i = 0; i < sizeof(modifiers) / sizeof(modifiers[0]); i++)
		if (!strcmp(m, modifiers[i]))
			return 1;
	return 0;
}

static const char *entry_val(const struct centry *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->nr_vals; i++)
		if (!strcmp(e->vals[i].name, name))
			return e->vals[i].value;
	return NULL;
}

/* value of key field NAME, from "name: v, name: v" (malloc'ed) */
static char *key_field(const struct centry *e, const char *name)
{
	const char *p = e->keytext, *end = p + strlen(p);
	size_t nl = strlen(name);

	if (!strncmp(e->key, "stacktrace:", 11))
		return strcmp(name, "stacktrace") ? NULL :
			       trimdup(e->key + 11, e->key + strlen(e->key));
	while (p < end) {
		/* the part runs to ", " followed by "word: " */
		const char *q, *pe = end, *colon, *nb, *ne;

		for (q = p; q + 1 < end; q++) {
			const char *w;

			if (q[0] != ',' || !isspace((unsigned char)q[1]))
				continue;
			for (w = q + 2; w < end && !isspace((unsigned char)*w) &&
					*w != ':' && *w != ',';
			     w++)
				;
			if (w > q + 2 && w + 1 < end && w[0] == ':' &&
			    isspace((unsigned char)w[1])) {
				pe = q;
				break;
			}
		}
		colon = memchr(p, ':', (size_t)(pe - p));
		nb = p;
		ne = colon ? colon : pe;
		while (nb < ne && isspace((unsigned char)*nb))
			nb++;
		while (ne > nb && isspace((unsigned char)ne[-1]))
			ne--;
		if ((size_t)(ne - nb) == nl && !strncmp(nb, name, nl))
			return colon ? trimdup(colon + 1, pe) :
				       xstrndup_("", 0);
		p = pe < end ? pe + 2 : end;
	}
	return NULL;
}

/* the printed value of sort token TOK in entry E, squeezed; NULL if none */
static char *sort_value(const struct centry *e, const char *tok)
{
	char *t = xstrndup_(tok, strlen(tok)), *dot, *r = NULL;
	const char *v;
	int first = 1;

	for (;;) {
		char pct[512];

		v = entry_val(e, t);
		if (!v) {
			snprintf(pct, sizeof(pct), "%s (%%)", t);
			v = entry_val(e, pct);
		}
		if (v) {
			r = norm(v, strlen(v));
			break;
		}
		r = key_field(e, t);
		if (r) {
			char *nr = norm(r, strlen(r));

			free(r);
			r = nr;
			break;
		}
		/* drop ".buckets=N", then known modifiers from the end */
		dot = strrchr(t, '.');
		if (!dot)
			break;
		if (first && (!strncmp(dot, ".buckets=", 9) ||
			      !strncmp(dot, ".bucket=", 8))) {
			*dot = 0;
			first = 0;
			continue;
		}
		first = 0;
		if (!is_modifier(dot + 1))
			break;
		*dot = 0;
	}
	free(t);
	return r;
}

/* ---- the comparison --------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void addf(struct replay_buf *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void addf(struct replay_buf *d, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	replay_buf_write(d, buf, (size_t)n < sizeof(buf) ? (size_t)n :
							 sizeof(buf) - 1);
	replay_buf_write(d, "\n", 1);
}

static void vals_text(const struct centry *e, char *buf, size_t len)
{
	size_t i, o = 0;

	buf[0] = 0;
	for (i = 0; i < e->nr_vals && o < len; i++) {
		int n = snprintf(buf + o, len - o, "%s%s: %s", i ? " " : "",
				 e->vals[i].name, e->vals[i].value);

		if (n < 0)
			break;
		o += (size_t)n;
	}
}

static const struct centry *by_key(const struct chist *h, const char *key)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->e[i].key, key))
			return &h->e[i];
	return NULL;
}

static int compare_entries(const struct chist *k, const struct chist *c,
			   struct replay_buf *d)
{
	char **ki = xmalloc(k->n * sizeof(char *) + 1);
	char **ci = xmalloc(c->n * sizeof(char *) + 1);
	size_t i, only_k = 0, only_c = 0, diff = 0, shown;
	int same = k->n == c->n;
	char vb[1024], vc[1024];

	for (i = 0; i < k->n; i++)
		ki[i] = k->e[i].ident;
	for (i = 0; i < c->n; i++)
		ci[i] = c->e[i].ident;
	qsort(ki, k->n, sizeof(char *), cmp_str);
	qsort(ci, c->n, sizeof(char *), cmp_str);
	for (i = 0; same && i < k->n; i++)
		if (strcmp(ki[i], ci[i]))
			same = 0;
	free(ki);
	free(ci);
	if (same)
		return 0;
	for (i = 0; i < k->n; i++) {
		const struct centry *o = by_key(c, k->e[i].key);

		if (!o)
			only_k++;
		else if (strcmp(o->ident, k->e[i].ident))
			diff++;
	}
	for (i = 0; i < c->n; i++)
		if (!by_key(k, c->e[i].key))
			only_c++;
	addf(d, "entries differ: %zu only in kernel, %zu only in candidate, "
		"%zu with different values", only_k, only_c, diff);
	for (i = 0, shown = 0; i < k->n && shown < 5; i++)
		if (!by_key(c, k->e[i].key)) {
			vals_text(&k->e[i], vb, sizeof(vb));
			addf(d, "  - kernel only:    { %s } %s", k->e[i].key, vb);
			shown++;
		}
	for (i = 0, shown = 0; i < c->n && shown < 5; i++)
		if (!by_key(k, c->e[i].key)) {
			vals_text(&c->e[i], vb, sizeof(vb));
			addf(d, "  + candidate only: { %s } %s", c->e[i].key, vb);
			shown++;
		}
	for (i = 0, shown = 0; i < k->n && shown < 5; i++) {
		const struct centry *o = by_key(c, k->e[i].key);

		if (o && strcmp(o->ident, k->e[i].ident)) {
			vals_text(&k->e[i], vb, sizeof(vb));
			vals_text(o, vc, sizeof(vc));
			addf(d, "  ~ { %s }\n      kernel:    %s\n      "
				"candidate: %s", k->e[i].key, vb, vc);
			shown++;
		}
	}
	if (!only_k && !only_c && !diff)
		addf(d, "  (duplicate entries)");
	return 1;
}

static int compare_order(const struct chist *k, const struct chist *c,
			 const char *info, struct replay_buf *d)
{
	struct sortkey *spec;
	size_t ns = sort_spec(info, &spec), i, j;
	int bad = 0;

	for (i = 0; i < k->n && i < c->n && !bad; i++) {
		for (j = 0; j < ns; j++) {
			char *a, *b;

			if (spec[j].tie)
				continue;
			a = sort_value(&k->e[i], spec[j].tok);
			b = sort_value(&c->e[i], spec[j].tok);

			if ((a == NULL) != (b == NULL) || (a && strcmp(a, b))) {
				addf(d, "order differs at entry %zu: %s kernel=%s "
					"candidate=%s", i + 1, spec[j].tok,
				     a ? a : "(none)", b ? b : "(none)");
				bad = 1;
			}
			free(a);
			free(b);
			if (bad)
				break;
		}
	}
	if (!bad && k->n != c->n) {
		addf(d, "order: different number of entries (%zu vs %zu)", k->n,
		     c->n);
		bad = 1;
	}
	for (j = 0; j < ns; j++)
		free(spec[j].tok);
	free(spec);
	return bad;
}

/* replace digit runs by '#' (format-only comparison) */
static char *mask(const char *s)
{
	char *d = norm(s, strlen(s)), *o = d;
	const char *p = d;

	while (*p) {
		if (isdigit((unsigned char)*p)) {
			/* skip the run before writing over its first digit */
			while (isdigit((unsigned char)*p))
				p++;
			*o++ = '#';
		} else {
			*o++ = *p++;
		}
	}
	*o = 0;
	return d;
}

static int compare_format(const struct chist *k, const struct chist *c,
			  struct replay_buf *d)
{
	char **ks = xmalloc(k->n * sizeof(char *) + 1);
	char **cs = xmalloc(c->n * sizeof(char *) + 1);
	size_t nk = 0, nc = 0, i;
	int bad = 0, t;

	for (i = 0; i < k->n; i++)
		ks[i] = mask(k->e[i].ident);
	for (i = 0; i < c->n; i++)
		cs[i] = mask(c->e[i].ident);
	qsort(ks, k->n, sizeof(char *), cmp_str);
	qsort(cs, c->n, sizeof(char *), cmp_str);
	/* unique shapes */
	for (i = 0; i < k->n; i++)
		if (!nk || strcmp(ks[nk - 1], ks[i]))
			ks[nk++] = ks[i];
		else
			free(ks[i]);
	for (i = 0; i < c->n; i++)
		if (!nc || strcmp(cs[nc - 1], cs[i]))
			cs[nc++] = cs[i];
		else
			free(cs[i]);
	if (nk != nc)
		bad = 1;
	for (i = 0; !bad && i < nk; i++)
		if (strcmp(ks[i], cs[i]))
			bad = 1;
	if (bad)
		addf(d, "entry shapes differ (numbers masked): kernel %s, "
			"candidate %s", nk ? ks[0] : "(none)",
		     nc ? cs[0] : "(none)");
	conf_free_strv(ks, nk);
	conf_free_strv(cs, nc);
	if (k->nr_extra != c->nr_extra) {
		addf(d, "other lines: %zu in kernel, %zu in candidate",
		     k->nr_extra, c->nr_extra);
		bad = 1;
	}
	for (i = 0; i < k->nr_extra && i < c->nr_extra; i++) {
		char *a = mask(k->extra[i]), *b = mask(c->extra[i]);

		if (strcmp(a, b)) {
			addf(d, "other line differs (numbers masked):\n  kernel:"
				"    %s\n  candidate: %s", k->extra[i],
			     c->extra[i]);
			bad = 1;
		}
		free(a);
		free(b);
	}
	for (t = 0; t < 3; t++)
		if ((k->totals[t] == NULL) != (c->totals[t] == NULL)) {
			addf(d, "Totals %s missing", total_names[t]);
			bad = 1;
		}
	return bad;
}

int conf_compare_section(const char *ktext, const char *ctext,
			 int format_only, struct replay_buf *d)
{
	struct chist k, c;
	char *a, *b;
	size_t i;
	int bad = 0, t;

	parse_hist(&k, ktext);
	parse_hist(&c, ctext);
	a = norm(k.trigger_info, strlen(k.trigger_info));
	b = norm(c.trigger_info, strlen(c.trigger_info));
	if (strcmp(a, b)) {
		addf(d, "trigger info differs:\n  kernel:    %s\n  candidate: %s",
		     k.trigger_info, c.trigger_info);
		bad = 1;
	}
	free(a);
	free(b);
	if (format_only) {
		bad |= compare_format(&k, &c, d);
		goto out;
	}
	bad |= compare_entries(&k, &c, d);
	bad |= compare_order(&k, &c, k.trigger_info, d);
	for (t = 0; t < 3; t++) {
		const char *x = k.totals[t], *y = c.totals[t];

		if ((x == NULL) != (y == NULL) || (x && strcmp(x, y))) {
			addf(d, "Totals %s: kernel=%s candidate=%s",
			     total_names[t], x ? x : "(none)", y ? y : "(none)");
			bad = 1;
		}
	}
	if (k.nr_extra != c.nr_extra)
		bad = 1;
	for (i = 0; !bad && i < k.nr_extra; i++) {
		a = norm(k.extra[i], strlen(k.extra[i]));
		b = norm(c.extra[i], strlen(c.extra[i]));
		if (strcmp(a, b))
			bad = 2;
		free(a);
		free(b);
	}
	if (k.nr_extra != c.nr_extra || bad == 2) {
		addf(d, "other lines differ:");
		for (i = 0; i < k.nr_extra; i++)
			addf(d, "  kernel:    %s", k.extra[i]);
		for (i = 0; i < c.nr_extra; i++)
			addf(d, "  candidate: %s", c.extra[i]);
		bad = 1;
	}
out:
	free_hist(&k);
	free_hist(&c);
	return bad ? 1 : 0;
}

char *conf_errlog_norm(const char *text)
{
	size_t n = strlen(text), o = 0;
	char *d = xmalloc(n + 1);
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n'), *e = nl ? nl + 1 : p + strlen(p);

		/* "[    6.487656] " stamps differ from run to run */
		if (*p == '[') {
			const char *q = p + 1;

			while (*q == ' ' || *q == '.' ||
			       isdigit((unsigned char)*q))
				q++;
			if (*q == ']' && q[1] == ' ')
				p = q + 2;
		}
		memcpy(d + o, p, (size_t)(e - p));
		o += (size_t)(e - p);
		p = e;
	}
	d[o] = 0;
	return d;
}

/* ---- workload --------------------------------------------------------- */

/* echo 'TEXT' > $T/PATH   or   echo "TEXT" >> $T/PATH */
static int parse_echo(const char *l, char **text, char **path, int *append)
{
	const char *p = l, *q;
	char quote;

	while (isspace((unsigned char)*p))
		p++;
	if (strncmp(p, "echo", 4) || !isspace((unsigned char)p[4]))
		return -1;
	p += 4;
	while (isspace((unsigned char)*p))
		p++;
	quote = *p;
	if (quote != '\'' && quote != '"')
		return -1;
	q = strchr(p + 1, quote);
	if (!q)
		return -1;
	*text = xstrndup_(p + 1, (size_t)(q - p - 1));
	p = q + 1;
	while (isspace((unsigned char)*p))
		p++;
	*append = p[0] == '>' && p[1] == '>';
	if (*p != '>') {
		free(*text);
		return -1;
	}
	p += *append ? 2 : 1;
	while (isspace((unsigned char)*p))
		p++;
	if (strncmp(p, "$T/", 3)) {
		free(*text);
		return -1;
	}
	p += 3;
	for (q = p; *q && !isspace((unsigned char)*q) && *q != ';'; q++)
		;
	*path = xstrndup_(p, (size_t)(q - p));
	return 0;
}

int conf_workload_writes(const char *workload,
			 void (*cb)(void *arg, const char *marker,
				    const char *target, const char *cmd),
			 void *arg)
{
	char *copy = xstrndup_(workload, strlen(workload)), **lines;
	size_t n = conf_lines(copy, &lines), i;
	char *marker = NULL;
	int found = 0;

	for (i = 0; i < n; i++) {
		char *text, *path;
		int app;

		if (parse_echo(lines[i], &text, &path, &app))
			continue;
		if (!strcmp(path, "trace_marker")) {
			if (!strncmp(text, "oracle: before ", 15)) {
				free(marker);
				marker = xstrndup_(text, strlen(text));
			} else if (!strncmp(text, "oracle: after ", 14)) {
				free(marker);
				marker = NULL;
			}
		} else if (marker) {
			/* events/SYS/EV/trigger is written as SYS/EV */
			size_t pl = strlen(path);
			char *target;

			if (!strncmp(path, "events/", 7) && pl > 15 &&
			    !strcmp(path + pl - 8, "/trigger")) {
				target = xstrndup_(path + 7, pl - 15);
			} else {
				target = xmalloc(pl + 2);
				target[0] = '/';
				memcpy(target + 1, path, pl + 1);
			}
			cb(arg, marker, target, text);
			found++;
			free(target);
		}
		free(text);
		free(path);
	}
	free(marker);
	free(lines);
	free(copy);
	return found;
}

/* ---- mutations for the comparator's self-test ------------------------- */

struct block {
	const char *b, *e;	/* lines [b, e) of one entry, or other text */
	int entry;
	char **sv;		/* sort values */
	size_t nsv;
};

static int same_sort(const struct block *x, const struct block *y)
{
	size_t i;

	for (i = 0; i < x->nsv; i++) {
		const char *a = x->sv[i], *b = y->sv[i];

		if ((a == NULL) != (b == NULL) || (a && strcmp(a, b)))
			return 0;
	}
	return 1;
}

static char *join(const struct block *v, size_t n, const size_t *order)
{
	size_t i, len = 1, o = 0;
	char *s;

	for (i = 0; i < n; i++)
		len += (size_t)(v[i].e - v[i].b);
	s = xmalloc(len);
	for (i = 0; i < n; i++) {
		const struct block *x = &v[order ? order[i] : i];

		memcpy(s + o, x->b, (size_t)(x->e - x->b));
		o += (size_t)(x->e - x->b);
	}
	s[o] = 0;
	return s;
}

/* add 1 to the first number after LABEL in [b, e) of a copy of TEXT */
static char *bump_after(const char *text, const char *from, const char *label)
{
	const char *p = strstr(from, label), *q;
	char *s;
	size_t pre;
	unsigned long long v;

	if (!p)
		return NULL;
	q = p + strlen(label);
	while (*q == ' ')
		q++;
	if (!isdigit((unsigned char)*q))
		return NULL;
	v = strtoull(q, NULL, 10);
	pre = (size_t)(q - text);
	s = xmalloc(strlen(text) + 32);
	memcpy(s, text, pre);
	sprintf(s + pre, "%llu", v + 1);
	while (isdigit((unsigned char)*q))
		q++;
	strcat(s, q);
	return s;
}

char *conf_mutate(const char *section, int how)
{
	struct block *v = NULL;
	size_t n = 0, cap = 0, i, j, *order, nspec, first = (size_t)-1;
	const char *p = section, *info;
	struct sortkey *spec;
	struct chist h;
	char *r = NULL;

	parse_hist(&h, section);
	info = h.trigger_info;
	nspec = sort_spec(info, &spec);
	while (*p) {
		const char *e = strchr(p, '\n');
		int entry = *p == '{';

		e = e ? e + 1 : p + strlen(p);
		if (entry)
			while (*e && (*e == ' ' || *e == '\t' || *e == '}' ||
				      *e == ',')) {
				const char *ne = strchr(e, '\n');

				e = ne ? ne + 1 : e + strlen(e);
			}
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		memset(&v[n], 0, sizeof(v[n]));
		v[n].b = p;
		v[n].e = e;
		v[n].entry = entry;
		if (entry) {
			struct centry ce;
			char *t = xstrndup_(p, (size_t)(e - p));

			if (t[0] && t[strlen(t) - 1] == '\n')
				t[strlen(t) - 1] = 0;
			parse_entry(&ce, t);
			v[n].sv = xmalloc(nspec * sizeof(char *));
			v[n].nsv = nspec;
			for (j = 0; j < nspec; j++)
				v[n].sv[j] = spec[j].tie ? NULL :
					     sort_value(&ce, spec[j].tok);
			for (j = 0; j < ce.nr_vals; j++) {
				free(ce.vals[j].name);
				free(ce.vals[j].value);
			}
			free(ce.vals);
			free(ce.keytext);
			free(ce.key);
			free(ce.ident);
			free(t);
			if (first == (size_t)-1)
				first = n;
		}
		n++;
		p = e;
	}
	order = xmalloc((n + 1) * sizeof(*order));
	for (i = 0; i < n; i++)
		order[i] = i;
	switch (how) {
	case CONF_MUT_SHUFFLE_TIES:
		/* reverse every run of entries with equal sort values */
		for (i = 0; i < n;) {
			size_t k = i + 1;

			if (!v[i].entry) {
				i++;
				continue;
			}
			while (k < n && v[k].entry && same_sort(&v[i], &v[k]))
				k++;
			if (k - i > 1) {
				for (j = 0; j < k - i; j++)
					order[i + j] = k - 1 - j;
				r = (char *)1;
			}
			i = k;
		}
		r = r ? join(v, n, order) : NULL;
		break;
	case CONF_MUT_SWAP_UNTIED:
		for (i = 0; i + 1 < n; i++)
			if (v[i].entry && v[i + 1].entry &&
			    !same_sort(&v[i], &v[i + 1])) {
				order[i] = i + 1;
				order[i + 1] = i;
				r = join(v, n, order);
				break;
			}
		break;
	case CONF_MUT_DROP_ENTRY:
		if (first != (size_t)-1) {
			for (i = first; i + 1 < n; i++)
				order[i] = i + 1;
			r = join(v, n - 1, order);
		}
		break;
	case CONF_MUT_HITCOUNT:
		if (first != (size_t)-1)
			r = bump_after(section, v[first].b, "hitcount:");
		break;
	case CONF_MUT_HITS:
		r = bump_after(section, section, "Hits:");
		break;
	}
	for (i = 0; i < n; i++)
		if (v[i].entry) {
			for (j = 0; j < v[i].nsv; j++)
				free(v[i].sv[j]);
			free(v[i].sv);
		}
	for (j = 0; j < nspec; j++)
		free(spec[j].tok);
	free(spec);
	free(order);
	free(v);
	free_hist(&h);
	return r;
}
