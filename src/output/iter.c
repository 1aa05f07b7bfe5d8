/* SPDX-License-Identifier: MIT */
/*
 * Structured read-out: a histogram's entries as data (hist_reader_*).
 *
 * A reader takes the same sorted snapshot the hist file printer takes
 * (hist__hist_sorted()) and, entry by entry, fills the public structures
 * from the element: keys (with the printer's own text for each), the
 * printed values with their percentages, user variables, and the blocks of
 * onmax()/onchange() handlers with their save() fields.  The per-entry
 * structures live in the reader and are overwritten by the next call, so
 * walking a table allocates nothing after hist_reader_create().
 *
 * Concurrency: as for printing (contract rule 5 in libhist.h).  Sums and
 * variables are read with relaxed loads when an entry is reached; a
 * variable's set bit is read with acquire, pairing with the release that
 * published it (hist.c set_vars(), actions.c store_fvar()).  The texts of
 * string variables and save() fields are copied out of their seqlocked
 * slots (core/sslot.h) into the reader, never handed out in place.
 */
#include "core/trigger.h"
#include "core/sslot.h"
#include "common/fmt.h"
#include "output/output.h"
#include "actions/actions.h"

#define TEXT_MAX 640			/* one printed key (sym-offset: ~90) */
#define FRAME_MAX 256			/* one stack frame */
#define STACK_TEXT_MAX (HIST__STACK_MAX * FRAME_MAX)
#define NAME_MAX_ 160

/* Text storage of one key. */
struct key_buf {
	char name[NAME_MAX_];
	char text[STACK_TEXT_MAX];
	char str[HIST__KEY_SIZE_MAX + TEXT_MAX];
	uint64_t frames[HIST__STACK_MAX];
	char frame_buf[HIST__STACK_MAX][FRAME_MAX];
	const char *frame_text[HIST__STACK_MAX];
};

struct hist_reader {
	const struct hist__hist *h;
	struct hist_map *map;
	struct hist_map_elt **elts;
	uint32_t n, pos;
	uint64_t total[HIST__VALS_MAX], max[HIST__VALS_MAX];
	char *trigger;
	struct hist_read_info info;
	struct hist_read_key key_fields[HIST__KEYS_MAX];
	char key_names[HIST__KEYS_MAX][NAME_MAX_];
	struct hist_read_val val_fields[HIST__VALS_MAX];
	struct hist_read_snapshot snap;
	struct hist_read_key snap_keys[HIST__KEYS_MAX];
	struct key_buf snap_kb[HIST__KEYS_MAX];
	struct hist_read_entry entry;
	struct hist_read_key keys[HIST__KEYS_MAX];
	struct key_buf kb[HIST__KEYS_MAX];
	struct hist_read_val vals[HIST__VALS_MAX];
	struct hist_read_var vars[HIST__VARS_MAX];
	struct hist_read_track tracks[HIST__ACTIONS_MAX];
	struct hist_read_var saved[HIST__FVARS_MAX];
	/* the texts of string VARS and SAVED, copied out of their slots:
	 * hits go on writing the element's (core/sslot.h) */
	uint64_t var_text[HIST__VARS_MAX][HIST__STR_VAR_LEN_MAX / 8];
	uint64_t saved_text[HIST__FVARS_MAX][HIST__STR_VAR_LEN_MAX / 8];
};

void hist__squeeze(char *dst, size_t cap, const char *src)
{
	size_t n = 0;
	bool blank = false;

	for (; *src && n + 1 < cap; src++) {
		if (*src == ' ') {
			blank = n > 0;
			continue;
		}
		if (blank && n + 2 < cap)
			dst[n++] = ' ';
		blank = false;
		dst[n++] = *src;
	}
	dst[n] = 0;
}

/* The label of stack key K: "stacktrace", "common_stacktrace" or, for a
 * field with .stacktrace, "FIELD.stacktrace". */
static const char *stack_name(const struct hist__field *k, char *buf, size_t cap)
{
	struct hist__sb sb;

	hist__sb_init_buf(&sb, buf, cap);
	if (k->ef) {
		hist__sb_puts(&sb, hist__field_name(k));
		hist__sb_puts(&sb, ".stacktrace");
	} else {
		hist__sb_puts(&sb, k->name ? k->name : "stacktrace");
	}
	hist__sb_finish(&sb);
	return buf;
}

static void fill_stack(const struct hist__hist *h, const struct hist__field *k,
		       const uint8_t *slot, struct hist_read_key *out,
		       struct key_buf *kb)
{
	const struct hist_host *host = h->ev->host;
	struct hist__sb sb, tx;
	uint32_t i;

	out->name = stack_name(k, kb->name, sizeof(kb->name));
	out->kind = HIST_KEY_STACKTRACE;
	hist__sb_init_buf(&tx, kb->text, sizeof(kb->text));
	for (i = 0; i < HIST__STACK_MAX; i++) {
		uint64_t ip;

		memcpy(&ip, slot + i * 8, 8);
		if (!ip)
			break;
		kb->frames[i] = ip;
		hist__sb_init_buf(&sb, kb->frame_buf[i], FRAME_MAX);
		hist__print_sym(&sb, host, ip, 1, 0);
		hist__sb_finish(&sb);
		kb->frame_text[i] = kb->frame_buf[i];
		if (i)
			hist__sb_putc(&tx, '\n');
		hist__sb_puts(&tx, kb->frame_buf[i]);
	}
	hist__sb_finish(&tx);
	out->frames = kb->frames;
	out->frame_text = kb->frame_text;
	out->nr_frames = i;
	out->text = kb->text;
}

/* The read-out's is_signed: the key's value is a sign-extended signed
 * number.  A .log2 key of a signed field holds an exponent (0..64), never
 * negative, so the exporters (quantile bounds, OpenMetrics summaries,
 * JSON "signed", hist-merge's order) need no case of their own for it. */
static uint32_t key_signed(const struct hist__field *k)
{
	return k->is_signed && !(k->flags & HIST__F_LOG2);
}

static void fill_key(const struct hist__hist *h, uint32_t i, const uint8_t *key,
		     const char *comm, struct hist_read_key *out, struct key_buf *kb)
{
	const struct hist__field *k = h->keys[i];
	const uint8_t *slot = key + k->key_offset;
	char raw[TEXT_MAX];
	struct hist__sb sb;
	enum hist_key_kind kind;
	uint64_t v;

	memset(out, 0, sizeof(*out));
	out->is_signed = key_signed(k);
	/* common_stacktrace.hex prints its first frame as a number
	 * (output.c) */
	if ((k->flags & HIST__F_STACKTRACE) &&
	    !(!k->ef && (k->flags & HIST__F_HEX))) {
		fill_stack(h, k, slot, out, kb);
		return;
	}
	memcpy(&v, slot, 8);
	kind = hist__key_kind(k->flags);
	out->name = hist__field_name(k);
	out->kind = kind;
	if (kind != HIST_KEY_STRING)
		out->value = v;
	if (kind == HIST_KEY_BUCKET)
		out->width = k->bucket;
	out->str = hist__key_str(h, k, kind, slot, comm, kb->str, sizeof(kb->str));
	hist__sb_init_buf(&sb, raw, sizeof(raw));
	hist__print_key_text(&sb, out, (k->flags & HIST__F_SYM_OFFSET) != 0);
	hist__sb_finish(&sb);
	hist__squeeze(kb->text, sizeof(kb->text), raw);
	out->text = kb->text;
}

static uint64_t *var_slot(const struct hist__hist *h, uint8_t *payload, int32_t slot)
{
	return (uint64_t *)(void *)(payload + h->var_off) + slot;
}

/* A variable or saved field of the element: number, or text for string
 * fields.  Their slot holds the address of a seqlocked text inside the
 * element, which hits may be rewriting: it is copied into TEXT as one hit
 * left it (sslot.h rule 3, retried until whole), so the read-out's string
 * stays valid and unchanged until the next hist_reader_next(). */
static void fill_var(const struct hist__hist *h, uint8_t *payload, uint64_t set,
		     int32_t slot, const struct hist__field *f, const char *name,
		     uint64_t *text, struct hist_read_var *out)
{
	uint64_t v = hist__load_relaxed(var_slot(h, payload, slot));

	out->name = name;
	out->set = (set >> slot) & 1;
	out->value = 0;
	out->str = NULL;
	out->is_string = (f->flags & HIST__F_STRING) != 0;
	if (f->flags & HIST__F_STRING) {
		int32_t n = v ? hist__sslot_read((const void *)(uintptr_t)v, text,
						 HIST__STR_VAR_LEN_MAX, 0) : -1;

		if (n >= 0) {
			/* N counts the text's 0; a slot never written: "" */
			((char *)text)[n ? n - 1 : 0] = 0;
			out->str = (const char *)text;
		}
	} else if (!(f->flags & HIST__F_STACKTRACE)) {
		out->value = v;
	}
}

/* Value column I as the hist file prints it: false if it is not printed
 * (hitcount with nohitcount, expression values: b17). */
static bool val_column(const struct hist__hist *h, uint32_t i,
		       struct hist_read_val *out)
{
	const struct hist__field *f = h->vals[i];

	if (i == 0 ? h->nohitcount : (f->flags & (HIST__F_VAR | HIST__F_EXPR)))
		return false;
	out->name = i == 0 ? "hitcount" : hist__field_name(f);
	out->value = 0;
	out->percent = 0;
	out->flags = hist__val_flags(f->flags);
	return true;
}

static void fill_vals(struct hist_reader *r, struct hist_map_elt *elt)
{
	const struct hist__hist *h = r->h;
	uint32_t i, n = 0;

	for (i = 0; i < h->nr_vals; i++) {
		struct hist_read_val *out = &r->vals[n];
		uint32_t pc;

		if (!val_column(h, i, out))
			continue;
		out->value = hist__map_sum(r->map, elt, i);
		if (out->flags & (HIST_VAL_PERCENT | HIST_VAL_GRAPH)) {
			/* .percent of the column total, .graph of its max */
			pc = hist__percentage(out->value, out->flags & HIST_VAL_PERCENT
							  ? r->total[i] : r->max[i]);
			out->percent = pc == UINT32_MAX ? -1 : (int32_t)pc;
		}
		n++;
	}
	r->entry.vals = r->vals;
	r->entry.nr_vals = n;
}

/* The columns, without an entry. */
static void fill_columns(struct hist_reader *r)
{
	const struct hist__hist *h = r->h;
	uint32_t i, n = 0;

	for (i = 0; i < h->nr_keys; i++) {
		const struct hist__field *k = h->keys[i];
		struct hist_read_key *out = &r->key_fields[i];

		out->is_signed = key_signed(k);
		if (k->flags & HIST__F_STACKTRACE) {
			out->kind = HIST_KEY_STACKTRACE;
			out->name = stack_name(k, r->key_names[i], NAME_MAX_);
			continue;
		}
		out->kind = hist__key_kind(k->flags);
		out->name = hist__field_name(k);
		if (out->kind == HIST_KEY_BUCKET)
			out->width = k->bucket;
	}
	for (i = 0; i < h->nr_vals; i++) {
		if (!val_column(h, i, &r->val_fields[n]))
			continue;
		r->val_fields[n++].value = r->total[i];
	}
	r->info.key_fields = r->key_fields;
	r->info.nr_key_fields = h->nr_keys;
	r->info.val_fields = r->val_fields;
	r->info.nr_val_fields = n;
}

/* User variables and the onmax()/onchange() blocks, as print_entry's
 * hist__actions_print_entry() walks them. */
static void fill_vars_tracks(struct hist_reader *r, struct hist_map_elt *elt)
{
	const struct hist__hist *h = r->h;
	uint8_t *payload = hist__map_elt_payload(elt);
	uint64_t set;
	uint32_t i, n = 0;

	/* acquire: pairs with the release that set the bits, so a set bit's
	 * value (and string text) is visible */
	set = 0;
	if (h->nr_var_slots)	/* no variables, no bitmap in the payload */
		set = hist__load_acquire((uint64_t *)(void *)(payload + h->var_set_off));
	for (i = 0; i < h->nr_vars; i++)
		fill_var(h, payload, set, (int32_t)i, h->vars[i], h->vars[i]->var_name,
			 r->var_text[i], &r->vars[i]);
	for (i = 0; i < h->nr_save_vars; i++) {
		const struct hist__fvar *fv = h->save_vars[i];

		fill_var(h, payload, set, fv->slot, fv->val, fv->name, r->saved_text[i],
			 &r->saved[i]);
	}
	for (i = 0; i < h->nr_actions; i++) {
		struct hist__action_info ai;
		struct hist_read_track *t = &r->tracks[n];

		hist__actions_info(h, i, &ai);
		if (ai.handler == HIST__H_ONMATCH || ai.kind == HIST__A_SNAPSHOT)
			continue;
		t->handler = ai.handler == HIST__H_ONMAX ? HIST_TRACK_ONMAX
							 : HIST_TRACK_ONCHANGE;
		t->var = ai.var_str;
		t->value = hist__load_relaxed(var_slot(h, payload, ai.track_slot));
		t->saved = r->saved;
		t->nr_saved = h->nr_save_vars;
		n++;
	}
	r->entry.vars = r->vars;
	r->entry.nr_vars = h->nr_vars;
	r->entry.tracks = r->tracks;
	r->entry.nr_tracks = n;
}

static int fill_info(struct hist_reader *r, const struct hist__trigger *t)
{
	const struct hist__hist *h = r->h;
	struct hist__sb sb;
	size_t n, cap = HIST__CMD_MAX * 2;
	uint32_t i, j;

	r->trigger = hist__zalloc(cap);
	if (!r->trigger)
		return -HIST_ENOMEM;
	hist__sb_init_buf(&sb, r->trigger, cap);
	hist__hist_print_info(&sb, t);
	hist__sb_finish(&sb);
	/* drop " [active]\n" / " [paused]\n" */
	n = strlen(r->trigger);
	if (n >= 10)
		r->trigger[n - 10] = 0;
	r->info.trigger = r->trigger;
	r->info.paused = hist__load_relaxed(&t->paused) & 1u;
	r->info.name = h->name;
	r->info.entries = r->n;
	r->info.hits = hist__map_hits(r->map);
	r->info.dropped = hist__map_drops(r->map);
	fill_columns(r);
	for (i = 0; i < h->nr_actions; i++) {
		struct hist__action_info ai;

		hist__actions_info(h, i, &ai);
		if (ai.kind != HIST__A_SNAPSHOT || !ai.snap_taken)
			continue;
		/* the printer shows the first snapshot action that fired */
		r->snap.handler = ai.handler == HIST__H_ONMAX ? HIST_TRACK_ONMAX
							      : HIST_TRACK_ONCHANGE;
		r->snap.var = ai.var_str;
		r->snap.value = ai.snap_val;
		for (j = 0; j < h->nr_keys; j++)
			fill_key(h, j, ai.snap_key, ai.snap_comm, &r->snap_keys[j],
				 &r->snap_kb[j]);
		r->snap.keys = r->snap_keys;
		r->snap.nr_keys = h->nr_keys;
		r->info.snapshot = &r->snap;
		break;
	}
	return 0;
}

unsigned hist_event_nr_hists(const hist_event *ev)
{
	return hist__tlist_len(ev) - hist__tlist_nr_generic(ev);
}

hist_reader *hist_reader_create(hist_event *ev, unsigned index, int *err)
{
	const struct hist__trigger *t = ev ? hist__tlist_nth_hist(ev, index) : NULL;
	struct hist_reader *r;
	int ret;

	if (!t) {
		ret = -HIST_ENOENT;
		goto fail;
	}
	ret = -HIST_ENOMEM;
	r = hist__zalloc(sizeof(*r));
	if (!r)
		goto fail;
	r->h = t->hist;
	/* acquire: pairs with the release in hist__hist_clear() */
	r->map = hist__load_acquire(&t->hist->map);
	ret = hist__hist_sorted(r->h, r->map, &r->elts, &r->n);
	if (ret) {
		hist__free(r);
		goto fail;
	}
	hist__col_stats(r->h, r->map, r->elts, r->n, r->total, r->max);
	ret = fill_info(r, t);
	if (ret) {
		hist_reader_destroy(r);
		goto fail;
	}
	if (err)
		*err = 0;
	return r;
fail:
	if (err)
		*err = ret;
	return NULL;
}

const struct hist_read_info *hist_reader_info(hist_reader *r)
{
	return &r->info;
}

const struct hist_read_entry *hist_reader_next(hist_reader *r)
{
	const struct hist__hist *h = r->h;
	struct hist_map_elt *elt;
	const uint8_t *key;
	const char *comm;
	uint32_t i;

	if (r->pos >= r->n)
		return NULL;
	elt = r->elts[r->pos];
	key = hist__map_elt_key(elt);
	comm = (const char *)hist__map_elt_payload(elt) + h->comm_off;
	r->entry.index = r->pos++;
	for (i = 0; i < h->nr_keys; i++)
		fill_key(h, i, key, comm, &r->keys[i], &r->kb[i]);
	r->entry.keys = r->keys;
	r->entry.nr_keys = h->nr_keys;
	fill_vals(r, elt);
	fill_vars_tracks(r, elt);
	return &r->entry;
}

void hist_reader_rewind(hist_reader *r)
{
	r->pos = 0;
}

void hist_reader_destroy(hist_reader *r)
{
	if (!r)
		return;
	hist__free(r->elts);
	hist__free(r->trigger);
	hist__free(r);
}
