/* SPDX-License-Identifier: MIT */
/*
 * The histograms of an event as JSON (hist_event_print_json), written
 * from the structured read-out (hist_reader_*), so it lists exactly what
 * the hist file lists.  The schema is documented in README.md ("JSON").
 *
 * Text from records (comms, string keys) is arbitrary bytes: valid UTF-8
 * is copied, any other byte is written as the code point of the same
 * value (\u00XX), so the output is always valid JSON.
 */
#include "common/fmt.h"
#include "output/quantile.h"

static const char *const kind_names[] = {
	[HIST_KEY_NUMBER] = "number",
	[HIST_KEY_HEX] = "hex",
	[HIST_KEY_SYM] = "sym",
	[HIST_KEY_EXECNAME] = "execname",
	[HIST_KEY_SYSCALL] = "syscall",
	[HIST_KEY_LOG2] = "log2",
	[HIST_KEY_BUCKET] = "buckets",
	[HIST_KEY_STRING] = "string",
	[HIST_KEY_STACKTRACE] = "stacktrace",
};

static void put_escape(struct hist__sb *sb, unsigned c)
{
	static const char hex[] = "0123456789abcdef";

	hist__sb_puts(sb, "\\u00");
	hist__sb_putc(sb, hex[c >> 4]);
	hist__sb_putc(sb, hex[c & 15]);
}

static void put_str(struct hist__sb *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	hist__sb_putc(sb, '"');
	while (n) {
		unsigned c = *p;
		size_t k;

		if (c == '"' || c == '\\') {
			hist__sb_putc(sb, '\\');
			hist__sb_putc(sb, (char)c);
		} else if (c == '\n') {
			hist__sb_puts(sb, "\\n");
		} else if (c == '\t') {
			hist__sb_puts(sb, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			put_escape(sb, c);
		} else if (c >= 0x80) {
			k = hist__utf8_len(p, n);
			if (!k) {
				put_escape(sb, c);
			} else {
				hist__sb_putn(sb, (const char *)p, k);
				p += k;
				n -= k;
				continue;
			}
		} else {
			hist__sb_putc(sb, (char)c);
		}
		p++;
		n--;
	}
	hist__sb_putc(sb, '"');
}

static void put_name(struct hist__sb *sb, const char *name)
{
	put_str(sb, name);
	hist__sb_puts(sb, ": ");
}

static void put_u64(struct hist__sb *sb, uint64_t v)
{
	hist__sb_u64(sb, v, 0, ' ');
}

/* Hundredths as a decimal number: 1234 -> 12.34. */
static void put_hundredths(struct hist__sb *sb, uint32_t v)
{
	hist__sb_u64(sb, v / 100, 0, ' ');
	hist__sb_putc(sb, '.');
	hist__sb_u64(sb, v % 100, 2, '0');
}

static void put_key(struct hist__sb *sb, const struct hist_read_key *k)
{
	uint32_t i;

	hist__sb_puts(sb, "{ ");
	put_name(sb, "name");
	put_str(sb, k->name);
	if (k->kind == HIST_KEY_STACKTRACE) {
		hist__sb_puts(sb, ", \"frames\": [");
		for (i = 0; i < k->nr_frames; i++) {
			hist__sb_puts(sb, i ? ", { \"addr\": " : " { \"addr\": ");
			put_u64(sb, k->frames[i]);
			hist__sb_puts(sb, ", \"text\": ");
			put_str(sb, k->frame_text[i]);
			hist__sb_puts(sb, " }");
		}
		hist__sb_puts(sb, k->nr_frames ? " ] }" : "] }");
		return;
	}
	hist__sb_puts(sb, ", \"value\": ");
	if (k->kind == HIST_KEY_STRING)
		put_str(sb, k->str);
	else if (k->is_signed && k->kind == HIST_KEY_NUMBER)
		hist__sb_s64(sb, (int64_t)k->value, 0);
	else
		put_u64(sb, k->value);
	hist__sb_puts(sb, ", \"text\": ");
	put_str(sb, k->text);
	hist__sb_puts(sb, " }");
}

static void put_keys(struct hist__sb *sb, const struct hist_read_key *keys,
		     uint32_t n)
{
	uint32_t i;

	hist__sb_putc(sb, '[');
	for (i = 0; i < n; i++) {
		hist__sb_puts(sb, i ? ", " : " ");
		put_key(sb, &keys[i]);
	}
	hist__sb_puts(sb, n ? " ]" : "]");
}

static void put_val(struct hist__sb *sb, const struct hist_read_val *v)
{
	char label[200];
	struct hist__sb lb;
	uint32_t i, n;

	hist__sb_init_buf(&lb, label, sizeof(label));
	hist__sb_puts(&lb, v->name);
	if (v->flags & HIST_VAL_PERCENT)
		hist__sb_puts(&lb, " (%)");
	hist__sb_finish(&lb);
	hist__sb_puts(sb, "{ \"name\": ");
	put_str(sb, label);
	hist__sb_puts(sb, ", \"value\": ");
	put_u64(sb, v->value);
	if (v->flags & HIST_VAL_PERCENT) {
		hist__sb_puts(sb, ", \"percent\": ");
		if (v->percent < 0)
			hist__sb_puts(sb, "null");
		else
			put_hundredths(sb, (uint32_t)v->percent);
	} else if (v->flags & HIST_VAL_GRAPH) {
		hist__sb_puts(sb, ", \"graph\": \"");
		if (v->percent < 0) {
			hist__sb_puts(sb, "[ERROR]");
		} else {
			n = (uint32_t)((uint64_t)v->percent * 20 / 10000);
			for (i = 0; i < 20; i++)
				hist__sb_putc(sb, i < n ? '#' : ' ');
		}
		hist__sb_putc(sb, '"');
	}
	hist__sb_puts(sb, " }");
}

/* A variable or saved field: its number or text, null while unset. */
static void put_var(struct hist__sb *sb, const struct hist_read_var *v)
{
	hist__sb_puts(sb, "{ \"name\": ");
	put_str(sb, v->name);
	hist__sb_puts(sb, ", \"value\": ");
	if (!v->set)
		hist__sb_puts(sb, "null");
	else if (v->str)
		put_str(sb, v->str);
	else
		put_u64(sb, v->value);
	hist__sb_puts(sb, " }");
}

static const char *handler_name(uint32_t handler)
{
	return handler == HIST_TRACK_ONMAX ? "onmax" : "onchange";
}

static void put_tracks(struct hist__sb *sb, const struct hist_read_entry *e)
{
	uint32_t i, j;

	hist__sb_puts(sb, ",\n        \"tracks\": [");
	for (i = 0; i < e->nr_tracks; i++) {
		const struct hist_read_track *t = &e->tracks[i];

		hist__sb_puts(sb, i ? ", { \"handler\": \"" : " { \"handler\": \"");
		hist__sb_puts(sb, handler_name(t->handler));
		hist__sb_puts(sb, "\", \"var\": ");
		put_str(sb, t->var);
		hist__sb_puts(sb, ", \"value\": ");
		put_u64(sb, t->value);
		hist__sb_puts(sb, ", \"saved\": [");
		for (j = 0; j < t->nr_saved; j++) {
			hist__sb_puts(sb, j ? ", " : " ");
			put_var(sb, &t->saved[j]);
		}
		hist__sb_puts(sb, t->nr_saved ? " ] }" : "] }");
	}
	hist__sb_puts(sb, " ]");
}

static void put_entry(struct hist__sb *sb, const struct hist_read_entry *e)
{
	uint32_t i;

	hist__sb_puts(sb, "{ \"keys\": ");
	put_keys(sb, e->keys, e->nr_keys);
	hist__sb_puts(sb, ",\n        \"values\": [");
	for (i = 0; i < e->nr_vals; i++) {
		hist__sb_puts(sb, i ? ", " : " ");
		put_val(sb, &e->vals[i]);
	}
	hist__sb_puts(sb, e->nr_vals ? " ]" : "]");
	if (e->nr_vars) {
		hist__sb_puts(sb, ",\n        \"vars\": [");
		for (i = 0; i < e->nr_vars; i++) {
			hist__sb_puts(sb, i ? ", " : " ");
			put_var(sb, &e->vars[i]);
		}
		hist__sb_puts(sb, " ]");
	}
	if (e->nr_tracks)
		put_tracks(sb, e);
	hist__sb_puts(sb, " }");
}

/* The key columns: name and kind. */
static void put_key_fields(struct hist__sb *sb, const struct hist_read_key *keys,
			   uint32_t n)
{
	uint32_t i;

	hist__sb_puts(sb, ",\n    \"key_fields\": [");
	for (i = 0; i < n; i++) {
		hist__sb_puts(sb, i ? ", { \"name\": " : " { \"name\": ");
		put_str(sb, keys[i].name);
		hist__sb_puts(sb, ", \"kind\": \"");
		hist__sb_puts(sb, kind_names[keys[i].kind]);
		hist__sb_putc(sb, '"');
		if (keys[i].kind == HIST_KEY_BUCKET) {
			hist__sb_puts(sb, ", \"width\": ");
			put_u64(sb, keys[i].width);
		}
		/* a signed field sorts as signed (hist-merge reads it back) */
		if (keys[i].is_signed && keys[i].kind != HIST_KEY_STRING &&
		    keys[i].kind != HIST_KEY_STACKTRACE)
			hist__sb_puts(sb, ", \"signed\": true");
		hist__sb_puts(sb, " }");
	}
	hist__sb_puts(sb, n ? " ]" : "]");
}

/* "quantiles": for every numeric key, the asked quantiles of its hits as
 * the bucket that holds each (lo == hi for plain keys). */
static int put_quantiles(struct hist__sb *sb, hist_reader *r,
			 const struct hist_print_opts *o)
{
	const struct hist_read_info *info = hist_reader_info(r);
	bool first = true;
	uint32_t i, j;

	hist__sb_puts(sb, ",\n    \"quantiles\": [");
	for (i = 0; i < info->nr_key_fields; i++) {
		const struct hist_read_key *k = &info->key_fields[i];
		struct hist__qdist d;
		int ret;

		if (k->kind != HIST_KEY_NUMBER && k->kind != HIST_KEY_LOG2 &&
		    k->kind != HIST_KEY_BUCKET)
			continue;
		ret = hist__qdist_collect(r, k->name, &d);
		if (ret == -HIST_EINVAL)
			continue;
		if (ret)
			return ret;
		for (j = 0; j < o->nr_quantiles; j++) {
			uint64_t lo, hi;

			if (hist__qdist_at(&d, o->quantiles[j], &lo, &hi))
				continue;
			hist__sb_puts(sb, first ? " { \"key\": " : ", { \"key\": ");
			first = false;
			put_str(sb, k->name);
			hist__sb_puts(sb, ", \"q\": ");
			hist__sb_u64(sb, (uint64_t)o->quantiles[j], 0, ' ');
			hist__sb_putc(sb, '.');
			hist__sb_u64(sb, (uint64_t)((o->quantiles[j] -
				(double)(uint64_t)o->quantiles[j]) * 1e6 + 0.5), 6, '0');
			hist__sb_puts(sb, ", \"lo\": ");
			if (d.is_signed)
				hist__sb_s64(sb, (int64_t)lo, 0);
			else
				put_u64(sb, lo);
			hist__sb_puts(sb, ", \"hi\": ");
			if (d.is_signed)
				hist__sb_s64(sb, (int64_t)hi, 0);
			else
				put_u64(sb, hi);
			hist__sb_puts(sb, " }");
		}
		hist__qdist_free(&d);
	}
	hist__sb_puts(sb, first ? "]" : " ]");
	return 0;
}

void hist__json_hist(struct hist__sb *sb, const struct hist_read_info *info,
		     const struct hist_read_entry *(*next)(void *arg), void *arg)
{
	const struct hist_read_entry *e;
	bool first = true;

	hist__sb_puts(sb, "{ \"trigger\": ");
	put_str(sb, info->trigger);
	hist__sb_puts(sb, info->paused ? ",\n    \"paused\": true" :
					 ",\n    \"paused\": false");
	if (info->name) {
		hist__sb_puts(sb, ", \"name\": ");
		put_str(sb, info->name);
	}
	put_key_fields(sb, info->key_fields, info->nr_key_fields);
	hist__sb_puts(sb, ",\n    \"entries\": [");
	while ((e = next(arg))) {
		hist__sb_puts(sb, first ? "\n      " : ",\n      ");
		first = false;
		put_entry(sb, e);
	}
	hist__sb_puts(sb, first ? "]" : "\n    ]");
	if (info->snapshot) {
		const struct hist_read_snapshot *s = info->snapshot;

		hist__sb_puts(sb, ",\n    \"snapshot\": { \"handler\": \"");
		hist__sb_puts(sb, handler_name(s->handler));
		hist__sb_puts(sb, "\", \"var\": ");
		put_str(sb, s->var);
		hist__sb_puts(sb, ", \"value\": ");
		put_u64(sb, s->value);
		hist__sb_puts(sb, ", \"keys\": ");
		put_keys(sb, s->keys, s->nr_keys);
		hist__sb_puts(sb, " }");
	}
	hist__sb_puts(sb, ",\n    \"totals\": { \"hits\": ");
	put_u64(sb, info->hits);
	hist__sb_puts(sb, ", \"entries\": ");
	put_u64(sb, info->entries);
	hist__sb_puts(sb, ", \"dropped\": ");
	put_u64(sb, info->dropped);
	hist__sb_puts(sb, " }");
}

static const struct hist_read_entry *reader_next(void *arg)
{
	return hist_reader_next(arg);
}

static int put_hist(struct hist__sb *sb, hist_reader *r,
		    const struct hist_print_opts *o)
{
	int ret = 0;

	hist__json_hist(sb, hist_reader_info(r), reader_next, r);
	if (o && o->nr_quantiles)
		ret = put_quantiles(sb, r, o);
	hist__sb_puts(sb, " }");
	return ret;
}

int hist_event_print_json(hist_event *ev, hist_write_fn write, void *arg)
{
	return hist_event_print_json_opts(ev, write, arg, NULL);
}

int hist_event_print_json_opts(hist_event *ev, hist_write_fn write, void *arg,
			       const struct hist_print_opts *opts)
{
	unsigned i, n = hist_event_nr_hists(ev);
	struct hist__sb sb;
	int ret = 0;

	hist__sb_init(&sb, write, arg);
	hist__sb_putc(&sb, '[');
	for (i = 0; i < n && !ret; i++) {
		hist_reader *r = hist_reader_create(ev, i, &ret);

		if (!r)
			break;
		hist__sb_puts(&sb, i ? ",\n  " : "\n  ");
		ret = put_hist(&sb, r, opts);
		hist_reader_destroy(r);
	}
	hist__sb_puts(&sb, n ? "\n]" : "]");
	if (ret) {
		hist__sb_finish(&sb);
		return ret;
	}
	return hist__sb_finish(&sb);
}
