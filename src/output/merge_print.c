/* SPDX-License-Identifier: MIT */
/*
 * The printers of a merge (hist_merge_print, hist_merge_print_json): they
 * do what the kernel's printer does on the merged table (merge.c): sort by
 * the trigger's sort keys (its comparison rules: numbers by value, signed
 * ones as signed, strings by strncmp, comm and stacks unordered, ties by
 * the key bytes as libhist orders them), .percent and .graph from the
 * merged column totals and maxima, Totals summed (Entries counted).
 */
#include "output/merge.h"
#include "output/output.h"
#include "map/map.h"

/* ---- printing ----------------------------------------------------------- */

/* libhist's tie order: the key bytes (numbers little-endian in 8 bytes,
 * strings as stored), compared with memcmp. */
static int cmp_bytes(const struct hist_merge *m, const struct mentry *a,
		     const struct mentry *b)
{
	uint32_t i, j;

	for (i = 0; i < m->nr_keys; i++) {
		const struct mkey *x = &a->keys[i], *y = &b->keys[i];
		int c = 0;

		if (x->kind == HIST_KEY_STRING) {
			c = hist__cmp_str(x->str, y->str);
		} else if (x->kind == HIST_KEY_STACKTRACE) {
			for (j = 0; !c && j < x->nr_frames && j < y->nr_frames; j++)
				for (uint32_t b8 = 0; !c && b8 < 8; b8++)
					c = hist__cmp_u64((x->frames[j] >> (8 * b8)) & 0xff,
						  (y->frames[j] >> (8 * b8)) & 0xff);
			if (!c)
				c = hist__cmp_u64(x->nr_frames, y->nr_frames);
		} else {
			for (j = 0; !c && j < 8; j++)
				c = hist__cmp_u64((x->value >> (8 * j)) & 0xff, (y->value >> (8 * j)) & 0xff);
		}
		if (c)
			return c;
	}
	return 0;
}

static int cmp_print(const void *pa, const void *pb, void *arg)
{
	const struct mentry *a = pa, *b = pb;
	const struct hist_merge *m = arg;
	uint32_t i;

	for (i = 0; i < m->nr_sort; i++) {
		const struct sort_key *sk = &m->sort[i];
		int c = 0;

		if (sk->val >= 0) {
			c = hist__cmp_u64(a->vals[sk->val], b->vals[sk->val]);
		} else {
			const struct mkey *x = &a->keys[sk->key], *y = &b->keys[sk->key];

			if (x->kind == HIST_KEY_STACKTRACE || m->key_comm[sk->key])
				c = 0;
			else if (x->kind == HIST_KEY_STRING)
				c = hist__cmp_str(x->str, y->str);
			else if (m->key_signed[sk->key])
				c = (int64_t)x->value < (int64_t)y->value ? -1 :
				    (int64_t)x->value > (int64_t)y->value;
			else
				c = hist__cmp_u64(x->value, y->value);
		}
		if (c)
			return sk->descending ? -c : c;
	}
	return cmp_bytes(m, a, b);
}

/* A key as output.c prints it (stacks: one frame a line). */
static void print_key(struct hist__sb *sb, const struct hist_merge *m, const struct mkey *k,
		      uint32_t i)
{
	struct hist_read_key rk;
	uint32_t j;

	if (k->kind == HIST_KEY_STACKTRACE) {
		for (j = 0; j < k->nr_frames; j++) {
			hist__sb_spaces(sb, 9);
			hist__sb_puts(sb, k->frame_text[j]);
			hist__sb_putc(sb, '\n');
		}
		return;
	}
	memset(&rk, 0, sizeof(rk));
	rk.kind = k->kind;
	rk.value = k->value;
	rk.str = k->str;
	rk.width = m->key_width[i];
	hist__print_key_text(sb, &rk, m->key_symoff[i]);
}

/* The labels of the merged table's keys: a stack column is "stacktrace:"
 * or "common_stacktrace:" above its frames, "FIELD.stacktrace" without the
 * colon (the reader's names, iter.c). */
static void key_labels(const struct hist_merge *m, struct hist__key_label *l)
{
	uint32_t i;
	size_t n;

	for (i = 0; i < m->nr_keys; i++) {
		l[i].name = m->key_names[i];
		l[i].tail = ": ";
		l[i].stack = m->key_kind[i] == HIST_KEY_STACKTRACE;
		if (!l[i].stack)
			continue;
		n = strlen(m->key_names[i]);
		l[i].tail = n >= 11 && !strcmp(m->key_names[i] + n - 11, ".stacktrace") ?
				    "" : ":\n";
	}
}

struct keys_arg {
	const struct hist_merge *m;
	const struct mkey *keys;
};

static void key_value(struct hist__sb *sb, uint32_t i, const void *arg)
{
	const struct keys_arg *a = arg;

	print_key(sb, a->m, &a->keys[i], i);
}

static void print_keys(struct hist__sb *sb, const struct hist_merge *m,
		       const struct hist__key_label *labels, const struct mkey *keys)
{
	struct keys_arg a = { m, keys };

	hist__print_key_block(sb, m->nr_keys, labels, key_value, &a);
}

static void print_tracks(struct hist__sb *sb, const struct mentry *e)
{
	uint32_t i, j;

	for (i = 0; i < e->nr_tracks; i++) {
		const struct mtrack *t = &e->tracks[i];

		hist__sb_puts(sb, t->handler == HIST_TRACK_ONMAX ? "\n\tmax: " : "\n\tchanged: ");
		hist__sb_u64(sb, t->value, 10, ' ');
		for (j = 0; j < t->nr_saved; j++) {
			const struct mvar *v = &t->saved[j];
			/* the hist file's text of a string never saved */
			const char *str = v->str ? v->str : "(null)";

			hist__sb_puts(sb, "  ");
			hist__sb_puts(sb, v->name);
			hist__sb_puts(sb, ": ");
			if (v->is_string)
				hist__sb_str(sb, str, strlen(str), 32, true);
			else
				hist__sb_u64(sb, v->value, 10, ' ');
		}
	}
}

/* Merge and sort (again: idempotent); the column totals and maxima. */
static int prepare(struct hist_merge *m, uint64_t *total, uint64_t *max)
{
	size_t i;
	uint32_t j;
	int ret;

	if (!m->trigger)
		return -HIST_EINVAL;
	ret = hist__merge_combine(m);
	if (!ret)
		ret = hist__sort((void **)m->e, m->n, cmp_print, m);
	if (ret)
		return ret;
	memset(total, 0, MERGE_VALS * sizeof(*total));
	memset(max, 0, MERGE_VALS * sizeof(*max));
	for (i = 0; i < m->n; i++)
		for (j = 0; j < m->nr_vals; j++) {
			total[j] += m->e[i]->vals[j];
			if (m->e[i]->vals[j] > max[j])
				max[j] = m->e[i]->vals[j];
		}
	return 0;
}

int hist_merge_print(hist_merge *m, hist_write_fn write, void *arg)
{
	uint64_t total[MERGE_VALS], max[MERGE_VALS];
	struct hist__key_label labels[MERGE_KEYS];
	struct hist__sb sb;
	size_t i;
	uint32_t j;
	int ret;

	if (!m || !write)
		return -HIST_EINVAL;
	ret = prepare(m, total, max);
	if (ret)
		return ret;
	key_labels(m, labels);
	hist__sb_init(&sb, write, arg);
	hist__sb_puts(&sb, "# event histogram\n#\n# trigger info: ");
	hist__sb_puts(&sb, m->trigger);
	hist__sb_puts(&sb, m->paused ? " [paused]\n#\n\n" : " [active]\n#\n\n");
	for (i = 0; i < m->n; i++) {
		const struct mentry *e = m->e[i];

		print_keys(&sb, m, labels, e->keys);
		for (j = 0; j < m->nr_vals; j++) {
			if (j || strcmp(m->val_names[0], "hitcount"))
				hist__sb_putc(&sb, ' ');
			hist__print_val(&sb, m->val_names[j], m->val_flags[j],
					e->vals[j], total[j], max[j]);
		}
		print_tracks(&sb, e);
		hist__sb_putc(&sb, '\n');
	}
	if (m->snap) {
		hist__print_snapshot_head(&sb, m->snap_handler == HIST_TRACK_ONMAX,
					  m->snap_var, m->snap_value);
		print_keys(&sb, m, labels, m->snap_keys);
		hist__sb_putc(&sb, '\n');
	}
	hist__print_totals(&sb, m->hits, m->n, m->dropped);
	return hist__sb_finish(&sb);
}

/* ---- JSON --------------------------------------------------------------- */

#define MERGE_TEXT 512

/* The read-out of the merged table, one entry at a time. */
struct jwalk {
	const struct hist_merge *m;
	const uint64_t *total, *max;
	size_t next;
	struct hist_read_entry e;
	struct hist_read_key keys[MERGE_KEYS];
	char text[MERGE_KEYS][MERGE_TEXT];
	struct hist_read_val vals[MERGE_VALS];
	struct hist_read_var *vars;	/* max_vars */
	struct hist_read_track *tracks;	/* max_tracks */
	struct hist_read_var *saved;	/* max_tracks * max_saved */
	uint32_t max_vars, max_tracks, max_saved;
};

/* Key column I of the merged table as the reader gives it; TEXT holds
 * its hist-file text squeezed (the reader's "text"). */
static void read_key(const struct hist_merge *m, uint32_t i, const struct mkey *k,
		     struct hist_read_key *out, char *text)
{
	char raw[MERGE_TEXT];
	struct hist__sb sb;

	memset(out, 0, sizeof(*out));
	out->name = m->key_names[i];
	out->kind = k->kind;
	out->is_signed = m->key_signed[i];
	out->value = k->value;
	out->str = k->str;
	out->width = m->key_width[i];
	if (k->kind == HIST_KEY_STACKTRACE) {
		out->frames = k->frames;
		out->frame_text = (const char *const *)k->frame_text;
		out->nr_frames = k->nr_frames;
		return;
	}
	hist__sb_init_buf(&sb, raw, sizeof(raw));
	print_key(&sb, m, k, i);
	hist__sb_finish(&sb);
	hist__squeeze(text, MERGE_TEXT, raw);
	out->text = text;
}

static void read_var(const struct mvar *v, struct hist_read_var *out)
{
	out->name = v->name;
	out->value = v->value;
	out->str = v->str;
	out->set = v->set;
	out->is_string = v->is_string;
}

static const struct hist_read_entry *jwalk_next(void *arg)
{
	struct jwalk *w = arg;
	const struct hist_merge *m = w->m;
	const struct mentry *e;
	uint32_t i, j;

	if (w->next >= m->n)
		return NULL;
	e = m->e[w->next];
	memset(&w->e, 0, sizeof(w->e));
	w->e.index = (uint32_t)w->next++;
	for (i = 0; i < m->nr_keys; i++)
		read_key(m, i, &e->keys[i], &w->keys[i], w->text[i]);
	for (i = 0; i < m->nr_vals; i++) {
		struct hist_read_val *v = &w->vals[i];
		uint32_t pc;

		v->name = m->val_names[i];
		v->value = e->vals[i];
		v->flags = m->val_flags[i];
		v->percent = 0;
		if (v->flags & (HIST_VAL_PERCENT | HIST_VAL_GRAPH)) {
			pc = hist__percentage(v->value, v->flags & HIST_VAL_PERCENT ?
					      w->total[i] : w->max[i]);
			v->percent = pc == UINT32_MAX ? -1 : (int32_t)pc;
		}
	}
	for (i = 0; i < e->nr_vars; i++)
		read_var(&e->vars[i], &w->vars[i]);
	for (i = 0; i < e->nr_tracks; i++) {
		const struct mtrack *t = &e->tracks[i];
		struct hist_read_track *o = &w->tracks[i];
		struct hist_read_var *sv = w->saved + (size_t)i * w->max_saved;

		o->handler = t->handler;
		o->var = t->var;
		o->value = t->value;
		o->saved = sv;
		o->nr_saved = t->nr_saved;
		for (j = 0; j < t->nr_saved; j++)
			read_var(&t->saved[j], &sv[j]);
	}
	w->e.keys = w->keys;
	w->e.nr_keys = m->nr_keys;
	w->e.vals = w->vals;
	w->e.nr_vals = m->nr_vals;
	w->e.vars = w->vars;
	w->e.nr_vars = e->nr_vars;
	w->e.tracks = w->tracks;
	w->e.nr_tracks = e->nr_tracks;
	return &w->e;
}

int hist_merge_print_json(hist_merge *m, hist_write_fn write, void *arg)
{
	uint64_t total[MERGE_VALS], max[MERGE_VALS];
	struct hist_read_key kf[MERGE_KEYS], snap_keys[MERGE_KEYS];
	char (*snap_text)[MERGE_TEXT] = NULL;
	struct hist_read_val vf[MERGE_VALS];
	struct hist_read_snapshot snap;
	struct hist_read_info info;
	struct jwalk *w = NULL;
	struct hist__sb sb;
	size_t i;
	uint32_t j;
	int ret;

	if (!m || !write)
		return -HIST_EINVAL;
	ret = prepare(m, total, max);
	if (ret)
		return ret;
	w = hist__zalloc(sizeof(*w));
	if (!w)
		return -HIST_ENOMEM;
	w->m = m;
	w->total = total;
	w->max = max;
	for (i = 0; i < m->n; i++) {
		const struct mentry *e = m->e[i];

		if (e->nr_vars > w->max_vars)
			w->max_vars = e->nr_vars;
		if (e->nr_tracks > w->max_tracks)
			w->max_tracks = e->nr_tracks;
		for (j = 0; j < e->nr_tracks; j++)
			if (e->tracks[j].nr_saved > w->max_saved)
				w->max_saved = e->tracks[j].nr_saved;
	}
	w->vars = hist__zalloc((w->max_vars + 1) * sizeof(*w->vars));
	w->tracks = hist__zalloc((w->max_tracks + 1) * sizeof(*w->tracks));
	w->saved = hist__zalloc(((size_t)w->max_tracks * w->max_saved + 1) * sizeof(*w->saved));
	if (m->snap)
		snap_text = hist__zalloc(MERGE_KEYS * sizeof(*snap_text));
	if (!w->vars || !w->tracks || !w->saved || (m->snap && !snap_text)) {
		ret = -HIST_ENOMEM;
		goto out;
	}
	memset(&info, 0, sizeof(info));
	info.trigger = m->trigger;
	info.paused = m->paused;
	info.name = m->name;
	info.hits = m->hits;
	info.entries = m->n;
	info.dropped = m->dropped;
	for (j = 0; j < m->nr_keys; j++) {
		memset(&kf[j], 0, sizeof(kf[j]));
		kf[j].name = m->key_names[j];
		kf[j].kind = m->key_kind[j];
		kf[j].is_signed = m->key_signed[j];
		kf[j].width = m->key_width[j];
	}
	for (j = 0; j < m->nr_vals; j++) {
		memset(&vf[j], 0, sizeof(vf[j]));
		vf[j].name = m->val_names[j];
		vf[j].flags = m->val_flags[j];
		vf[j].value = total[j];
	}
	info.key_fields = kf;
	info.nr_key_fields = m->nr_keys;
	info.val_fields = vf;
	info.nr_val_fields = m->nr_vals;
	if (m->snap) {
		for (j = 0; j < m->nr_keys; j++)
			read_key(m, j, &m->snap_keys[j], &snap_keys[j], snap_text[j]);
		snap.handler = m->snap_handler;
		snap.var = m->snap_var;
		snap.value = m->snap_value;
		snap.keys = snap_keys;
		snap.nr_keys = m->nr_keys;
		info.snapshot = &snap;
	}
	hist__sb_init(&sb, write, arg);
	hist__json_hist(&sb, &info, jwalk_next, w);
	hist__sb_puts(&sb, " }");
	ret = hist__sb_finish(&sb);
out:
	hist__free(snap_text);
	hist__free(w->vars);
	hist__free(w->tracks);
	hist__free(w->saved);
	hist__free(w);
	return ret;
}
