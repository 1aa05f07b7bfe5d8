/* SPDX-License-Identifier: MIT */
/*
 * The histograms of an event as OpenMetrics text
 * (hist_event_print_openmetrics), written from the structured read-out,
 * so the numbers are the hist file's.  The mapping is documented in
 * hist_event_print_openmetrics(3); in short, for the trigger's base name
 * B = PREFIX_SYSTEM_EVENT (then _hist1, _hist2, ... for the second and
 * later triggers of the event):
 *
 *   B_trigger_info{trigger="..."} 1                       info
 *   B_<value>_total{<keys>} SUM                           counter per column
 *   B_<key>_log2_bucket{<other keys>,le="..."} CUMULATIVE  histogram of a
 *   B_<key>_buckets_...                                    .log2/.buckets key
 *   B_<key>_quantiles{quantile="..."} UPPER                on request
 *   B_hits_total, B_entries, B_dropped_total               Totals
 *   PREFIX_host_lost_total                                 the host's losses
 *
 * Invariants the format needs and this file keeps: every family's samples
 * are written together (one pass over the reader per family), names are
 * unique in one call (a clash, e.g. two values that sanitise alike, gets
 * _2, _3, ...), label values are valid UTF-8 and distinct entries give
 * distinct label sets: a byte that is not printable UTF-8, and the
 * backslash itself, are written as the four characters \xHH, so the
 * escaping is one-to-one.
 */
#include "common/fmt.h"
#include "output/quantile.h"
#include "map/map.h"

#define NAME_CAP 256
#define OM_KEYS_MAX 8		/* more than a trigger has (3, and a stack) */

/* Append S to DST (CAP bytes, NUL-terminated, cut if need be): the core
 * builds without the C library's string functions. */
static void cat(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(dst);

	if (n < cap)
		hist__strlcpy(dst + n, s, cap - n);
}

struct om {
	struct hist__sb sb;
	const struct hist_print_opts *opts;
	char **names;		/* every metric and sample name written */
	size_t nr_names, cap_names;
	int err;
	char base[NAME_CAP];
};

/* ---- names ------------------------------------------------------------ */

/* Append S to DST sanitised to [a-z0-9_] (lower case: Prometheus's
 * linter flags camelCase; a leading digit gets "_"). */
static void san_append(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(dst);

	if (!n && *s >= '0' && *s <= '9' && n + 1 < cap)
		dst[n++] = '_';
	for (; *s && n + 1 < cap; s++) {
		char c = *s;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			c = '_';
		dst[n++] = c;
	}
	dst[n] = 0;
}

/*
 * Words that promtool's linter rejects as a part of a metric name: unit
 * abbreviations, units other than the base ones (with or without an SI
 * prefix) and the names of metric types.  Field names meet them ("d",
 * "delta_ns", "counter"); such a part is joined to the one before it
 * ("delta_ns" -> "deltans"), which keeps every letter of the field.
 */
static const char *const lint_words[] = {
	"s", "ms", "us", "ns", "sec", "b", "kb", "mb", "gb", "tb", "pb", "m",
	"h", "d", "counter", "gauge", "histogram", "summary", NULL,
};
#define LINT_NONBASE 15		/* lint_units' first entries: not base units */
static const char *const lint_units[] = {
	"minutes", "hours", "days", "weeks", "kelvin", "kelvins", "fahrenheit",
	"rankine", "inches", "yards", "miles", "bits", "calories", "pounds",
	"ounces", "amperes", "bytes", "celsius", "grams", "joules", "meters",
	"metres", "seconds", "volts", NULL,
};
static const char *const lint_si[] = {
	"pico", "nano", "micro", "milli", "centi", "deci", "deca", "hecto",
	"kilo", "kibi", "mega", "mibi", "giga", "gibi", "tera", "tebi", "peta",
	"pebi", NULL,
};

static bool lint_word(const char *w, size_t n)
{
	const char *const *p, *const *u;

	for (p = lint_words; *p; p++)
		if (strlen(*p) == n && !memcmp(*p, w, n))
			return true;
	/* a non-base unit alone, or any unit after an SI prefix */
	for (u = lint_units; u - lint_units < LINT_NONBASE; u++)
		if (strlen(*u) == n && !memcmp(*u, w, n))
			return true;
	for (p = lint_si; *p; p++) {
		size_t k = strlen(*p);

		if (n <= k || memcmp(*p, w, k))
			continue;
		for (u = lint_units; *u; u++)
			if (strlen(*u) == n - k && !memcmp(*u, w + k, n - k))
				return true;
	}
	return false;
}

/* Join every part of NAME after the first that lint_word() flags to the
 * part before it. */
static void lint_clean(char *name)
{
	char *part = strchr(name, '_');

	while (part) {
		char *end = strchr(part + 1, '_');
		size_t n = end ? (size_t)(end - part - 1) : strlen(part + 1);

		if (n && lint_word(part + 1, n)) {
			memmove(part, part + 1, strlen(part + 1) + 1);
			part = end ? end - 1 : NULL;
		} else {
			part = end;
		}
	}
}

static bool name_used(struct om *om, const char *name)
{
	size_t i;

	for (i = 0; i < om->nr_names; i++)
		if (!strcmp(om->names[i], name))
			return true;
	return false;
}

static int name_add(struct om *om, const char *name)
{
	if (hist__grow(&om->names, &om->cap_names, om->nr_names + 1,
		       sizeof(*om->names), 32))
		return -HIST_ENOMEM;
	om->names[om->nr_names] = hist__strdup(name);
	if (!om->names[om->nr_names])
		return -HIST_ENOMEM;
	om->nr_names++;
	return 0;
}

/* The sample names of each type, after the family name. */
static const char *const counter_sfx[] = { "", "_total", "_created", NULL };
static const char *const gauge_sfx[] = { "", NULL };
static const char *const hist_sfx[] = { "", "_bucket", "_count", "_sum", "_created", NULL };
static const char *const summary_sfx[] = { "", "_count", "_sum", "_created", NULL };
static const char *const info_sfx[] = { "", "_info", NULL };

static bool family_free(struct om *om, const char *fam, const char *const *sfx)
{
	char s[NAME_CAP + 16];

	for (; *sfx; sfx++) {
		hist__strlcpy(s, fam, sizeof(s));
		cat(s, sizeof(s), *sfx);
		if (name_used(om, s))
			return false;
	}
	return true;
}

/* Claim the family BASE_PART (sanitised) of type SFX into FAM: unique in
 * this call, with its sample names.  0 or -HIST_ENOMEM. */
static int family(struct om *om, const char *part, const char *const *sfx,
		  char fam[NAME_CAP])
{
	char try[NAME_CAP + 16];
	const char *const *p;
	unsigned n;
	int ret;

	hist__strlcpy(fam, om->base, NAME_CAP - 16);
	if (part) {
		cat(fam, NAME_CAP - 16, "_");
		san_append(fam, NAME_CAP - 16, part);
	}
	lint_clean(fam);
	hist__strlcpy(try, fam, sizeof(try));
	for (n = 2; !family_free(om, try, sfx); n++) {
		struct hist__sb sb;

		hist__sb_init_buf(&sb, try, sizeof(try));
		hist__sb_puts(&sb, fam);
		hist__sb_putc(&sb, '_');
		hist__sb_u64(&sb, n, 0, ' ');
		hist__sb_finish(&sb);
	}
	hist__strlcpy(fam, try, NAME_CAP);
	for (p = sfx; *p; p++) {
		char s[NAME_CAP + 16];

		hist__strlcpy(s, fam, sizeof(s));
		cat(s, sizeof(s), *p);
		ret = name_add(om, s);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- text ------------------------------------------------------------- */

/* S as text of a label value (QUOTE: '"' escaped) or of a HELP line:
 * printable UTF-8 as is, any other byte and the backslash as "\xHH"
 * (the backslash written escaped, as the format wants). */
static void put_text(struct hist__sb *sb, const char *s, bool quote)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), k;

	while (n) {
		unsigned c = *p;

		if (c == '"' && quote) {
			hist__sb_puts(sb, "\\\"");
		} else if (c >= 0x80 && (k = hist__utf8_len(p, n))) {
			hist__sb_putn(sb, (const char *)p, k);
			p += k;
			n -= k;
			continue;
		} else if (c < 0x20 || c >= 0x7f || c == '\\') {
			hist__sb_puts(sb, "\\\\x");
			hist__sb_putc(sb, hex[c >> 4]);
			hist__sb_putc(sb, hex[c & 15]);
		} else {
			hist__sb_putc(sb, (char)c);
		}
		p++;
		n--;
	}
}

static void put_num(struct hist__sb *sb, uint64_t v, bool is_signed)
{
	if (is_signed)
		hist__sb_s64(sb, (int64_t)v, 0);
	else
		hist__sb_u64(sb, v, 0, ' ');
}

/*
 * HELP and TYPE of family FAM.  The Prometheus text format (0.0.4) names a
 * counter's family by its sample (x_total) and has no info type (a gauge
 * x_info instead), which is what promtool checks; OpenMetrics names the
 * family without the suffix.
 */
static void put_meta(struct om *om, const char *fam, const char *type,
		     const char *what, const char *sys, const char *ev)
{
	struct hist__sb *sb = &om->sb;
	bool text = om->opts && (om->opts->flags & HIST_PRINT_PROMETHEUS_TEXT);
	const char *sfx = "";

	if (text && !strcmp(type, "counter"))
		sfx = "_total";
	if (text && !strcmp(type, "info")) {
		sfx = "_info";
		type = "gauge";
	}
	hist__sb_puts(sb, "# HELP ");
	hist__sb_puts(sb, fam);
	hist__sb_puts(sb, sfx);
	hist__sb_putc(sb, ' ');
	put_text(sb, what, false);
	hist__sb_puts(sb, " of ");
	put_text(sb, sys, false);
	hist__sb_putc(sb, '/');
	put_text(sb, ev, false);
	hist__sb_puts(sb, "\n# TYPE ");
	hist__sb_puts(sb, fam);
	hist__sb_puts(sb, sfx);
	hist__sb_putc(sb, ' ');
	hist__sb_puts(sb, type);
	hist__sb_putc(sb, '\n');
}

/* ---- labels ----------------------------------------------------------- */

/* The label names of a trigger's keys: the key's name sanitised, unique,
 * never a reserved name (le, quantile, __*); the second label of
 * .execname, .syscall and .sym keys adds _pid, _nr or _addr. */
struct labels {
	char name[OM_KEYS_MAX][NAME_CAP];
	char second[OM_KEYS_MAX][NAME_CAP + 8];
	uint32_t n;
};

static bool label_taken(const struct labels *l, uint32_t upto, const char *s)
{
	uint32_t i;

	if (!strcmp(s, "le") || !strcmp(s, "quantile") || !strcmp(s, "trigger") ||
	    (s[0] == '_' && s[1] == '_'))
		return true;
	for (i = 0; i < upto; i++)
		if (!strcmp(l->name[i], s) || !strcmp(l->second[i], s))
			return true;
	return false;
}

/* Append '_' to S (CAP bytes) until it is free among the labels before
 * index UPTO and differs from OTHER; a name too long to grow is cut. */
static void label_unique(const struct labels *l, uint32_t upto, char *s,
			 size_t cap, const char *other)
{
	size_t n = strlen(s);

	while (label_taken(l, upto, s) || (other && !strcmp(s, other))) {
		if (n + 1 >= cap)
			n--;
		s[n++] = '_';
		s[n] = 0;
	}
}

static void labels_init(struct labels *l, const struct hist_read_info *info)
{
	uint32_t i;

	l->n = info->nr_key_fields < OM_KEYS_MAX ? info->nr_key_fields : OM_KEYS_MAX;
	for (i = 0; i < l->n; i++) {
		const struct hist_read_key *k = &info->key_fields[i];
		const char *sfx = k->kind == HIST_KEY_EXECNAME ? "_pid" :
				  k->kind == HIST_KEY_SYSCALL ? "_nr" :
				  k->kind == HIST_KEY_SYM ? "_addr" : NULL;

		l->name[i][0] = 0;
		l->second[i][0] = 0;
		san_append(l->name[i], NAME_CAP - 8, k->name);
		label_unique(l, i, l->name[i], NAME_CAP, NULL);
		if (sfx) {
			hist__strlcpy(l->second[i], l->name[i], sizeof(l->second[i]));
			cat(l->second[i], sizeof(l->second[i]), sfx);
			label_unique(l, i, l->second[i], sizeof(l->second[i]),
				     l->name[i]);
		}
	}
}

/* The labels of entry E's keys, SKIP aside (UINT32_MAX: none), each
 * followed by a comma. */
static void put_labels(struct hist__sb *sb, const struct labels *l,
		       const struct hist_read_info *info,
		       const struct hist_read_entry *e, uint32_t skip)
{
	uint32_t i, j;

	for (i = 0; i < l->n && i < e->nr_keys; i++) {
		const struct hist_read_key *k = &e->keys[i];
		const char *str = k->str ? k->str : k->text;
		uint64_t lo, hi;

		if (i == skip)
			continue;
		hist__sb_puts(sb, l->name[i]);
		hist__sb_puts(sb, "=\"");
		switch (k->kind) {
		case HIST_KEY_NUMBER:
			put_num(sb, k->value, k->is_signed);
			break;
		case HIST_KEY_HEX:
			hist__sb_puts(sb, "0x");
			hist__sb_hex(sb, k->value, 0, ' ');
			break;
		case HIST_KEY_LOG2:
		case HIST_KEY_BUCKET:
			hist__key_bounds(k->kind, k->value, info->key_fields[i].width,
					 &lo, &hi);
			put_num(sb, hi, k->is_signed && k->kind == HIST_KEY_BUCKET);
			break;
		case HIST_KEY_STACKTRACE:
			for (j = 0; j < k->nr_frames; j++) {
				if (j)
					hist__sb_putc(sb, ';');
				put_text(sb, k->frame_text[j], true);
			}
			break;
		default:
			put_text(sb, str, true);
			break;
		}
		hist__sb_puts(sb, "\",");
		if (l->second[i][0]) {
			hist__sb_puts(sb, l->second[i]);
			hist__sb_puts(sb, "=\"");
			if (k->kind == HIST_KEY_SYM) {
				hist__sb_puts(sb, "0x");
				hist__sb_hex(sb, k->value, 0, ' ');
			} else {
				put_num(sb, k->value, k->is_signed);
			}
			hist__sb_puts(sb, "\",");
		}
	}
}

/* "{LABELS}" from what put_labels() wrote into BUF (the trailing comma
 * dropped), or nothing for an empty set. */
static void put_label_set(struct hist__sb *sb, const char *labels, size_t n,
			  const char *extra)
{
	if (!n && !extra)
		return;
	hist__sb_putc(sb, '{');
	if (n)
		hist__sb_putn(sb, labels, extra ? n : n - 1);
	if (extra)
		hist__sb_puts(sb, extra);
	hist__sb_putc(sb, '}');
}

/* A growing buffer behind a hist__sb (labels of many entries). */
struct dyn {
	char *p;
	size_t n, cap;
};

static int dyn_write(void *arg, const char *buf, size_t len)
{
	struct dyn *d = arg;

	if (hist__grow(&d->p, &d->cap, d->n + len + 1, 1, 4096))
		return -HIST_ENOMEM;
	memcpy(d->p + d->n, buf, len);
	d->n += len;
	d->p[d->n] = 0;
	return 0;
}

/* Render entry E's labels (SKIP aside) at the end of D; their offset in
 * *off, length in *len.  0 or -HIST_ENOMEM. */
static int labels_to(struct dyn *d, const struct labels *l,
		     const struct hist_read_info *info,
		     const struct hist_read_entry *e, uint32_t skip,
		     size_t *off, size_t *len)
{
	struct hist__sb sb;
	int ret;

	*off = d->n;
	hist__sb_init(&sb, dyn_write, d);
	put_labels(&sb, l, info, e, skip);
	ret = hist__sb_finish(&sb);
	*len = d->n - *off;
	return ret;
}

/* ---- families --------------------------------------------------------- */

struct trig {
	struct om *om;
	hist_reader *r;
	const struct hist_read_info *info;
	const char *sys, *ev;
	struct labels l;
	uint32_t hitcount;	/* index of the hitcount column, or UINT32_MAX */
};

/* The counter of value column V: one sample per entry, its keys the
 * labels. */
static int counter_family(struct trig *t, uint32_t v)
{
	struct om *om = t->om;
	const struct hist_read_val *col = &t->info->val_fields[v];
	const struct hist_read_entry *e;
	char fam[NAME_CAP];
	struct dyn d = { 0 };
	int ret;

	ret = family(om, col->name, counter_sfx, fam);
	if (ret)
		return ret;
	put_meta(om, fam, "counter", col->name, t->sys, t->ev);
	hist_reader_rewind(t->r);
	while ((e = hist_reader_next(t->r))) {
		size_t off, len;

		d.n = 0;
		ret = labels_to(&d, &t->l, t->info, e, UINT32_MAX, &off, &len);
		if (ret)
			break;
		hist__sb_puts(&om->sb, fam);
		hist__sb_puts(&om->sb, "_total");
		put_label_set(&om->sb, d.p + off, len, NULL);
		hist__sb_putc(&om->sb, ' ');
		hist__sb_u64(&om->sb, e->vals[v].value, 0, ' ');
		hist__sb_putc(&om->sb, '\n');
	}
	hist__free(d.p);
	return ret;
}

/* One entry of a histogram: its other keys' labels and its bucket. */
struct bucket {
	size_t off, len;	/* labels in the dyn buffer */
	const char *labels;	/* set once the buffer stops moving */
	uint64_t le;
	uint64_t count, sum;
};

static int cmp_bucket(const void *a, const void *b, void *arg)
{
	const struct bucket *x = a, *y = b;
	bool is_signed = *(const bool *)arg;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->labels, y->labels, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (is_signed)
		return (int64_t)x->le < (int64_t)y->le ? -1 : (int64_t)x->le > (int64_t)y->le;
	return x->le < y->le ? -1 : x->le > y->le;
}

static void put_le(struct hist__sb *sb, const char *fam, const char *labels,
		   size_t len, uint64_t le, bool is_signed, bool inf,
		   uint64_t count)
{
	hist__sb_puts(sb, fam);
	hist__sb_puts(sb, "_bucket{");
	hist__sb_putn(sb, labels, len);
	hist__sb_puts(sb, "le=\"");
	if (inf)
		hist__sb_puts(sb, "+Inf");
	else
		put_num(sb, le, is_signed);
	hist__sb_puts(sb, "\"} ");
	hist__sb_u64(sb, count, 0, ' ');
	hist__sb_putc(sb, '\n');
}

static void put_tail(struct hist__sb *sb, const char *fam, const char *sfx,
		     const char *labels, size_t len, uint64_t v)
{
	hist__sb_puts(sb, fam);
	hist__sb_puts(sb, sfx);
	put_label_set(sb, labels, len, NULL);
	hist__sb_putc(sb, ' ');
	hist__sb_u64(sb, v, 0, ' ');
	hist__sb_putc(sb, '\n');
}

/*
 * The histogram of key K (.log2 or .buckets): one per set of the other
 * keys, buckets in ascending le, cumulative, then +Inf and, when the
 * trigger sums the key's own field as a value, _count and _sum.
 */
static int histogram_family(struct trig *t, uint32_t k)
{
	struct om *om = t->om;
	const struct hist_read_key *kf = &t->info->key_fields[k];
	const struct hist_read_entry *e;
	struct bucket *b = NULL, **order = NULL;
	struct dyn d = { 0 };
	size_t n = 0, cap = 0, i, j;
	uint32_t sum_col = UINT32_MAX, v;
	bool is_signed = kf->is_signed && kf->kind == HIST_KEY_BUCKET;
	char fam[NAME_CAP], part[NAME_CAP];
	int ret = 0;

	/* a sum of negative observations has no place in an OpenMetrics
	 * histogram: signed keys go without _sum (and so without _count) */
	for (v = 0; v < t->info->nr_val_fields && !is_signed; v++)
		if (!strcmp(t->info->val_fields[v].name, kf->name))
			sum_col = v;
	hist__strlcpy(part, kf->name, sizeof(part) - 10);
	cat(part, sizeof(part), kf->kind == HIST_KEY_LOG2 ? "_log2" : "_buckets");
	hist_reader_rewind(t->r);
	while ((e = hist_reader_next(t->r))) {
		uint64_t lo;

		ret = hist__grow(&b, &cap, n + 1, sizeof(*b), 64);
		if (ret)
			goto out;
		ret = labels_to(&d, &t->l, t->info, e, k, &b[n].off, &b[n].len);
		if (ret)
			goto out;
		hist__key_bounds(kf->kind, e->keys[k].value, kf->width, &lo, &b[n].le);
		b[n].count = e->vals[t->hitcount].value;
		b[n].sum = sum_col != UINT32_MAX ? e->vals[sum_col].value : 0;
		n++;
	}
	order = hist__zalloc((n ? n : 1) * sizeof(*order));
	if (!order) {
		ret = -HIST_ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		b[i].labels = d.p ? d.p + b[i].off : "";
		order[i] = &b[i];
	}
	ret = hist__sort((void **)order, n, cmp_bucket, &is_signed);
	if (ret)
		goto out;
	ret = family(om, part, hist_sfx, fam);
	if (ret)
		goto out;
	put_meta(om, fam, "histogram", part, t->sys, t->ev);
	for (i = 0; i < n; i = j) {
		uint64_t cum = 0, sum = 0;

		for (j = i; j < n && order[j]->len == order[i]->len &&
			    !memcmp(order[j]->labels, order[i]->labels, order[i]->len);
		     j++) {
			cum += order[j]->count;
			sum += order[j]->sum;
			put_le(&om->sb, fam, order[j]->labels, order[j]->len,
			       order[j]->le, is_signed, false, cum);
		}
		put_le(&om->sb, fam, order[i]->labels, order[i]->len, 0, false,
		       true, cum);
		/* OpenMetrics: _count if and only if _sum (the +Inf bucket
		 * holds the count anyway) */
		if (sum_col != UINT32_MAX) {
			put_tail(&om->sb, fam, "_count", order[i]->labels,
				 order[i]->len, cum);
			put_tail(&om->sb, fam, "_sum", order[i]->labels,
				 order[i]->len, sum);
		}
	}
out:
	hist__free(order);
	hist__free(b);
	hist__free(d.p);
	return ret;
}

/* Q as OpenMetrics writes a number: shortest decimal that reads back the
 * same for the usual quantiles (up to 6 places). */
static void put_q(struct hist__sb *sb, double q)
{
	uint64_t m = (uint64_t)(q * 1000000.0 + 0.5);
	char digits[8];
	int i, last = -1;

	hist__sb_u64(sb, m / 1000000, 0, ' ');
	m %= 1000000;
	for (i = 5; i >= 0; i--) {
		digits[i] = (char)('0' + m % 10);
		m /= 10;
	}
	for (i = 0; i < 6; i++)
		if (digits[i] != '0')
			last = i;
	hist__sb_putc(sb, '.');
	if (last < 0)
		hist__sb_putc(sb, '0');
	else
		hist__sb_putn(sb, digits, (size_t)last + 1);
}

/* The quantiles of key K weighed by its hits, as a summary: each the upper
 * bound of the bucket that holds it (the value itself for plain keys). */
static int summary_family(struct trig *t, uint32_t k)
{
	const struct hist_print_opts *o = t->om->opts;
	const struct hist_read_key *kf = &t->info->key_fields[k];
	struct hist__qdist qd;
	char fam[NAME_CAP], part[NAME_CAP];
	uint32_t i;
	int ret;

	ret = hist__qdist_collect(t->r, kf->name, &qd);
	if (ret)
		return ret == -HIST_EINVAL ? 0 : ret;
	hist__strlcpy(part, kf->name, sizeof(part) - 12);
	cat(part, sizeof(part), "_quantiles");
	ret = family(t->om, part, summary_sfx, fam);
	if (ret)
		goto out;
	put_meta(t->om, fam, "summary", part, t->sys, t->ev);
	for (i = 0; i < o->nr_quantiles && qd.total; i++) {
		uint64_t lo, hi;

		if (hist__qdist_at(&qd, o->quantiles[i], &lo, &hi))
			continue;
		hist__sb_puts(&t->om->sb, fam);
		hist__sb_puts(&t->om->sb, "{quantile=\"");
		put_q(&t->om->sb, o->quantiles[i]);
		hist__sb_puts(&t->om->sb, "\"} ");
		put_num(&t->om->sb, hi, qd.is_signed);
		hist__sb_putc(&t->om->sb, '\n');
	}
	put_tail(&t->om->sb, fam, "_count", NULL, 0, qd.total);
out:
	hist__qdist_free(&qd);
	return ret;
}

static int simple_family(struct trig *t, const char *part, const char *type,
			 const char *const *sfx, const char *sample_sfx,
			 const char *what, uint64_t v)
{
	char fam[NAME_CAP];
	int ret = family(t->om, part, sfx, fam);

	if (ret)
		return ret;
	put_meta(t->om, fam, type, what, t->sys, t->ev);
	put_tail(&t->om->sb, fam, sample_sfx, NULL, 0, v);
	return 0;
}

static int put_trigger(struct om *om, hist_reader *r, unsigned index,
		       const char *sys, const char *ev)
{
	struct trig t = { .om = om, .r = r, .sys = sys, .ev = ev };
	const struct hist_read_info *info = hist_reader_info(r);
	const char *prefix = om->opts && om->opts->prefix ? om->opts->prefix : "hist";
	char fam[NAME_CAP];
	uint32_t i;
	int ret;

	t.info = info;
	labels_init(&t.l, info);
	t.hitcount = UINT32_MAX;
	for (i = 0; i < info->nr_val_fields; i++)
		if (!strcmp(info->val_fields[i].name, "hitcount"))
			t.hitcount = i;

	om->base[0] = 0;
	san_append(om->base, sizeof(om->base) - 40, prefix);
	cat(om->base, sizeof(om->base) - 40, "_");
	san_append(om->base, sizeof(om->base) - 40, sys);
	cat(om->base, sizeof(om->base) - 40, "_");
	san_append(om->base, sizeof(om->base) - 40, ev);
	if (index) {
		struct hist__sb sb;
		size_t n = strlen(om->base);

		hist__sb_init_buf(&sb, om->base + n, sizeof(om->base) - n);
		hist__sb_puts(&sb, "_hist");
		hist__sb_u64(&sb, index, 0, ' ');
		hist__sb_finish(&sb);
	}

	ret = family(om, "trigger", info_sfx, fam);
	if (ret)
		return ret;
	put_meta(om, fam, "info", "the hist trigger", sys, ev);
	hist__sb_puts(&om->sb, fam);
	hist__sb_puts(&om->sb, "_info{trigger=\"");
	put_text(&om->sb, info->trigger, true);
	hist__sb_puts(&om->sb, "\"} 1\n");

	for (i = 0; i < info->nr_val_fields && !ret; i++)
		ret = counter_family(&t, i);
	for (i = 0; i < t.l.n && !ret; i++) {
		uint32_t kind = info->key_fields[i].kind;

		if ((kind == HIST_KEY_LOG2 || kind == HIST_KEY_BUCKET) &&
		    t.hitcount != UINT32_MAX) {
			ret = histogram_family(&t, i);
			break;	/* one histogram: the first bucketed key */
		}
	}
	for (i = 0; i < t.l.n && !ret && om->opts && om->opts->nr_quantiles; i++) {
		uint32_t kind = info->key_fields[i].kind;

		/* OpenMetrics quantile values are never negative */
		if ((kind == HIST_KEY_NUMBER || kind == HIST_KEY_LOG2 ||
		     kind == HIST_KEY_BUCKET) && !info->key_fields[i].is_signed)
			ret = summary_family(&t, i);
	}
	if (!ret)
		ret = simple_family(&t, "hits", "counter", counter_sfx, "_total",
				    "Totals: Hits", info->hits);
	if (!ret)
		ret = simple_family(&t, "entries", "gauge", gauge_sfx, "",
				    "Totals: Entries", info->entries);
	if (!ret)
		ret = simple_family(&t, "dropped", "counter", counter_sfx, "_total",
				    "Totals: Dropped", info->dropped);
	return ret;
}

static void put_end(struct hist__sb *sb, const struct hist_print_opts *opts)
{
	char fam[NAME_CAP] = "";
	bool text = opts && (opts->flags & HIST_PRINT_PROMETHEUS_TEXT);

	if (opts && (opts->flags & HIST_PRINT_HOST_LOST)) {
		san_append(fam, sizeof(fam) - 16, opts->prefix ? opts->prefix : "hist");
		cat(fam, sizeof(fam), "_host_lost");
		hist__sb_puts(sb, "# HELP ");
		hist__sb_puts(sb, fam);
		hist__sb_puts(sb, text ? "_total" : "");
		hist__sb_puts(sb, " events the host lost before they reached the hist triggers\n# TYPE ");
		hist__sb_puts(sb, fam);
		hist__sb_puts(sb, text ? "_total" : "");
		hist__sb_puts(sb, " counter\n");
		hist__sb_puts(sb, fam);
		hist__sb_puts(sb, "_total ");
		hist__sb_u64(sb, opts->host_lost, 0, ' ');
		hist__sb_putc(sb, '\n');
	}
	if (!text)
		hist__sb_puts(sb, "# EOF\n");
}

int hist_event_print_openmetrics(hist_event *ev, hist_write_fn write, void *arg,
				 const struct hist_print_opts *opts)
{
	const struct hist_event_desc *desc;
	struct om om = { .opts = opts };
	unsigned i, n;
	size_t j;
	int fin, ret = 0;

	if (!ev || !write)
		return -HIST_EINVAL;
	desc = hist_event_desc(ev);
	n = hist_event_nr_hists(ev);
	hist__sb_init(&om.sb, write, arg);
	for (i = 0; i < n && !ret; i++) {
		hist_reader *r = hist_reader_create(ev, i, &ret);

		if (!r)
			break;
		ret = put_trigger(&om, r, i, desc->system, desc->name);
		hist_reader_destroy(r);
	}
	if (!ret && !(opts && (opts->flags & HIST_PRINT_NO_EOF)))
		put_end(&om.sb, opts);
	for (j = 0; j < om.nr_names; j++)
		hist__free(om.names[j]);
	hist__free(om.names);
	fin = hist__sb_finish(&om.sb);
	return ret ? ret : fin;
}

int hist_print_openmetrics_eof(hist_write_fn write, void *arg,
			       const struct hist_print_opts *opts)
{
	struct hist__sb sb;

	if (!write)
		return -HIST_EINVAL;
	hist__sb_init(&sb, write, arg);
	put_end(&sb, opts);
	return hist__sb_finish(&sb);
}
