/* SPDX-License-Identifier: MIT */
/*
 * Merging histograms of one trigger from several runs or machines
 * (hist_merge_*), printed as the kernel prints a hist file.
 *
 * The inputs are read-outs (struct hist_read_info and entries, from a
 * hist_reader or rebuilt from JSON); each entry is copied.  Entries with
 * the same keys are one entry: sums added, onmax() blocks keep the larger
 * max with its saved fields, onchange() blocks and variables the ones
 * added last (a variable holds the value written last; one the later
 * input never set keeps the earlier value).  The
 * printer then does what the kernel's does on the merged table: sort by
 * the trigger's sort keys (its comparison rules: numbers by value, signed
 * ones as signed, strings by strncmp, comm and stacks unordered, ties by
 * the key bytes as libhist orders them), .percent and .graph from the
 * merged column totals and maxima, Totals summed (Entries counted).
 *
 * What the printer needs beyond the read-out (sym or sym-offset, .hex
 * values, the sort keys) is read from the trigger text, which is the same
 * in every input: a merge of different triggers is refused.
 */
#include "common/fmt.h"
#include "output/output.h"
#include "map/map.h"

#define MERGE_KEYS 8
#define MERGE_VALS 8
#define MERGE_SORT 4

struct mkey {
	uint32_t kind, is_signed;
	uint64_t value;
	char *str;		/* strings, comm, symbol, syscall name */
	uint64_t *frames;
	char **frame_text;
	uint32_t nr_frames;
};

struct mtrack {
	uint32_t handler;
	char *var;		/* the tracked variable as written: "$lat" */
	uint64_t value;
	char **saved;		/* printed as strings (NULL: a number) */
	uint64_t *saved_num;
	bool *saved_set;	/* false: the field was never saved (JSON null) */
	uint32_t nr_saved;
	char **saved_names;
};

/* A user variable of an entry (name=expr). */
struct mvar {
	char *name;
	char *str;		/* string variables: the text (NULL: unset) */
	uint64_t value;
	uint32_t set, is_string;
};

struct mentry {
	struct mkey keys[MERGE_KEYS];
	uint64_t vals[MERGE_VALS];
	struct mvar *vars;
	uint32_t nr_vars;
	struct mtrack *tracks;
	uint32_t nr_tracks;
	uint32_t seq;		/* order of adding: onchange() keeps the last */
};

struct sort_key {
	int val;		/* value column, or -1 */
	int key;		/* key column, or -1 */
	bool descending;
};

struct hist_merge {
	char *trigger;
	char *name;		/* name= of a shared table, or NULL */
	uint32_t paused, inputs;
	uint32_t nr_keys, nr_vals;
	char *key_names[MERGE_KEYS];
	/* key_signed: a signed field in any input (a run that saw only
	 * positive values cannot tell), so all sort alike */
	uint32_t key_kind[MERGE_KEYS], key_signed[MERGE_KEYS], key_symoff[MERGE_KEYS];
	uint64_t key_width[MERGE_KEYS];
	bool key_comm[MERGE_KEYS];	/* a comm key: strings without order */
	char *val_names[MERGE_VALS];
	uint32_t val_flags[MERGE_VALS];
	struct sort_key sort[MERGE_SORT];
	uint32_t nr_sort;
	uint64_t hits, dropped;
	/* the "Snapshot taken" block: onmax() the larger, onchange() the
	 * last input's */
	bool snap;
	uint32_t snap_handler;
	char *snap_var;
	uint64_t snap_value;
	struct mkey snap_keys[MERGE_KEYS];
	struct mentry **e;
	size_t n, cap;
	uint32_t seq;
};

/* ---- copies ------------------------------------------------------------ */

static char *dup_or_null(const char *s, int *ret)
{
	char *d;

	if (!s)
		return NULL;
	d = hist__strdup(s);
	if (!d)
		*ret = -HIST_ENOMEM;
	return d;
}

static void free_keys(struct mentry *e)
{
	uint32_t i, j;

	for (i = 0; i < MERGE_KEYS; i++) {
		hist__free(e->keys[i].str);
		for (j = 0; j < e->keys[i].nr_frames && e->keys[i].frame_text; j++)
			hist__free(e->keys[i].frame_text[j]);
		hist__free(e->keys[i].frame_text);
		hist__free(e->keys[i].frames);
	}
}

static void free_entry(struct mentry *e)
{
	uint32_t i, j;

	if (!e)
		return;
	free_keys(e);
	for (i = 0; i < e->nr_vars; i++) {
		hist__free(e->vars[i].name);
		hist__free(e->vars[i].str);
	}
	hist__free(e->vars);
	for (i = 0; i < e->nr_tracks; i++) {
		hist__free(e->tracks[i].var);
		for (j = 0; j < e->tracks[i].nr_saved; j++) {
			hist__free(e->tracks[i].saved[j]);
			hist__free(e->tracks[i].saved_names[j]);
		}
		hist__free(e->tracks[i].saved);
		hist__free(e->tracks[i].saved_names);
		hist__free(e->tracks[i].saved_num);
		hist__free(e->tracks[i].saved_set);
	}
	hist__free(e->tracks);
	hist__free(e);
}

static int copy_key(struct mkey *d, const struct hist_read_key *k)
{
	int ret = 0;
	uint32_t i;

	d->kind = k->kind;
	d->is_signed = k->is_signed;
	d->value = k->value;
	d->str = dup_or_null(k->str, &ret);
	if (k->kind != HIST_KEY_STACKTRACE || !k->nr_frames)
		return ret;
	d->frames = hist__zalloc(k->nr_frames * sizeof(*d->frames));
	d->frame_text = hist__zalloc(k->nr_frames * sizeof(*d->frame_text));
	if (!d->frames || !d->frame_text)
		return -HIST_ENOMEM;
	d->nr_frames = k->nr_frames;
	for (i = 0; i < k->nr_frames; i++) {
		d->frames[i] = k->frames[i];
		d->frame_text[i] = dup_or_null(k->frame_text ? k->frame_text[i] : "", &ret);
	}
	return ret;
}

static int copy_tracks(struct mentry *d, const struct hist_read_entry *e)
{
	uint32_t i, j;
	int ret = 0;

	if (!e->nr_tracks)
		return 0;
	d->tracks = hist__zalloc(e->nr_tracks * sizeof(*d->tracks));
	if (!d->tracks)
		return -HIST_ENOMEM;
	d->nr_tracks = e->nr_tracks;
	for (i = 0; i < e->nr_tracks && !ret; i++) {
		const struct hist_read_track *t = &e->tracks[i];
		struct mtrack *m = &d->tracks[i];

		m->handler = t->handler;
		m->value = t->value;
		m->var = dup_or_null(t->var ? t->var : "", &ret);
		if (!t->nr_saved)
			continue;
		m->saved = hist__zalloc(t->nr_saved * sizeof(*m->saved));
		m->saved_names = hist__zalloc(t->nr_saved * sizeof(*m->saved_names));
		m->saved_num = hist__zalloc(t->nr_saved * sizeof(*m->saved_num));
		m->saved_set = hist__zalloc(t->nr_saved * sizeof(*m->saved_set));
		if (!m->saved || !m->saved_names || !m->saved_num || !m->saved_set)
			return -HIST_ENOMEM;
		m->nr_saved = t->nr_saved;
		for (j = 0; j < t->nr_saved; j++) {
			const struct hist_read_var *v = &t->saved[j];

			m->saved_names[j] = dup_or_null(v->name, &ret);
			m->saved_set[j] = v->set;
			if (v->is_string)
				m->saved[j] = dup_or_null(v->set && v->str ? v->str : "(null)", &ret);
			else
				m->saved_num[j] = v->set ? v->value : 0;
		}
	}
	return ret;
}

static int copy_vars(struct mentry *d, const struct hist_read_entry *e)
{
	uint32_t i;
	int ret = 0;

	if (!e->nr_vars)
		return 0;
	d->vars = hist__zalloc(e->nr_vars * sizeof(*d->vars));
	if (!d->vars)
		return -HIST_ENOMEM;
	d->nr_vars = e->nr_vars;
	for (i = 0; i < e->nr_vars && !ret; i++) {
		const struct hist_read_var *v = &e->vars[i];

		d->vars[i].name = dup_or_null(v->name ? v->name : "", &ret);
		d->vars[i].set = v->set;
		d->vars[i].is_string = v->is_string;
		d->vars[i].value = v->value;
		if (v->is_string && v->set && v->str)
			d->vars[i].str = dup_or_null(v->str, &ret);
	}
	return ret;
}

static void drop_snapshot(struct hist_merge *m)
{
	struct mentry tmp;

	if (!m->snap)
		return;
	memset(&tmp, 0, sizeof(tmp));
	memcpy(tmp.keys, m->snap_keys, sizeof(m->snap_keys));
	free_keys(&tmp);
	memset(m->snap_keys, 0, sizeof(m->snap_keys));
	hist__free(m->snap_var);
	m->snap_var = NULL;
	m->snap = false;
}

/* ---- the trigger text ---------------------------------------------------- */

/* The N-th comma-separated item of section "NAME=" of TRIGGER into BUF. */
static bool section_item(const char *trigger, const char *name, uint32_t n,
			 char *buf, size_t cap)
{
	size_t nl = strlen(name);
	const char *p = trigger, *end;

	for (;;) {
		p = strchr(p, ':');
		if (!p)
			return false;
		p++;
		if (!strncmp(p, name, nl) && p[nl] == '=')
			break;
	}
	p += nl + 1;
	for (; n; n--) {
		while (*p && *p != ',' && *p != ':' && *p != ' ')
			p++;
		if (*p != ',')
			return false;
		p++;
	}
	end = p;
	while (*end && *end != ',' && *end != ':' && *end != ' ')
		end++;
	if ((size_t)(end - p) >= cap)
		return false;
	memcpy(buf, p, (size_t)(end - p));
	buf[end - p] = 0;
	return true;
}

/* "field.mod" -> field; true if it ends in MOD. */
static bool base_is(const char *item, const char *name, size_t *base_len)
{
	const char *dot = strchr(item, '.');
	size_t n = dot ? (size_t)(dot - item) : strlen(item);

	if (base_len)
		*base_len = n;
	return strlen(name) == n && !memcmp(item, name, n);
}

static bool has_mod(const char *item, const char *mod)
{
	const char *p = item;

	while ((p = strchr(p, '.'))) {
		p++;
		if (!strncmp(p, mod, strlen(mod)) &&
		    (p[strlen(mod)] == 0 || p[strlen(mod)] == '.'))
			return true;
	}
	return false;
}

/* Column of the sort item ITEM: hitcount and values by name, keys by
 * name (a stack key by its label). */
static void parse_sort(struct hist_merge *m)
{
	char item[256];
	uint32_t i, j;

	m->nr_sort = 0;
	for (i = 0; i < MERGE_SORT && section_item(m->trigger, "sort", i, item, sizeof(item)); i++) {
		struct sort_key sk = { .val = -1, .key = -1,
				       .descending = has_mod(item, "descending") };

		for (j = 0; j < m->nr_vals && sk.val < 0; j++)
			if (base_is(item, m->val_names[j], NULL))
				sk.val = (int)j;
		for (j = 0; j < m->nr_keys && sk.val < 0 && sk.key < 0; j++)
			if (base_is(item, m->key_names[j], NULL))
				sk.key = (int)j;
		if (sk.val >= 0 || sk.key >= 0)
			m->sort[m->nr_sort++] = sk;
	}
}

/* ---- adding ------------------------------------------------------------- */

hist_merge *hist_merge_create(int *err)
{
	hist_merge *m = hist__zalloc(sizeof(*m));

	if (err)
		*err = m ? 0 : -HIST_ENOMEM;
	return m;
}

static int set_columns(struct hist_merge *m, const struct hist_read_info *info)
{
	char item[256];
	uint32_t i;
	int ret = 0;

	if (info->nr_key_fields > MERGE_KEYS || info->nr_val_fields > MERGE_VALS)
		return -HIST_E2BIG;
	m->trigger = dup_or_null(info->trigger, &ret);
	m->name = dup_or_null(info->name, &ret);
	m->paused = info->paused;
	m->nr_keys = info->nr_key_fields;
	m->nr_vals = info->nr_val_fields;
	for (i = 0; i < m->nr_keys && !ret; i++) {
		const struct hist_read_key *k = &info->key_fields[i];

		m->key_names[i] = dup_or_null(k->name, &ret);
		m->key_kind[i] = k->kind;
		m->key_signed[i] = k->is_signed;
		m->key_width[i] = k->width;
		if (section_item(info->trigger, "keys", i, item, sizeof(item))) {
			m->key_symoff[i] = has_mod(item, "sym-offset");
			m->key_comm[i] = k->kind == HIST_KEY_STRING &&
					 (base_is(item, "comm", NULL) ||
					  base_is(item, "common_comm", NULL));
		}
	}
	for (i = 0; i < m->nr_vals && !ret; i++) {
		const struct hist_read_val *v = &info->val_fields[i];
		char nm[200];
		struct hist__sb sb;
		uint32_t j;

		m->val_names[i] = dup_or_null(v->name, &ret);
		m->val_flags[i] = v->flags & (HIST_VAL_PERCENT | HIST_VAL_GRAPH | HIST_VAL_HEX);
		/* .hex of a value is only in the trigger text */
		for (j = 0; section_item(info->trigger, "vals", j, item, sizeof(item)); j++) {
			hist__sb_init_buf(&sb, nm, sizeof(nm));
			hist__sb_puts(&sb, v->name);
			hist__sb_finish(&sb);
			if (base_is(item, nm, NULL) && has_mod(item, "hex"))
				m->val_flags[i] |= HIST_VAL_HEX;
		}
	}
	if (!ret)
		parse_sort(m);
	return ret;
}

static int push(struct hist_merge *m, struct mentry *e)
{
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		struct mentry **ne = hist__zalloc(ncap * sizeof(*ne));

		if (!ne)
			return -HIST_ENOMEM;
		if (m->n)
			memcpy(ne, m->e, m->n * sizeof(*ne));
		hist__free(m->e);
		m->e = ne;
		m->cap = ncap;
	}
	m->e[m->n++] = e;
	return 0;
}

/* Add N entries of a histogram with INFO; TOTALS: its Hits and Dropped
 * too, and it counts as an input (onchange(): later inputs win). */
static int add(hist_merge *m, const struct hist_read_info *info,
	       const struct hist_read_entry *entries, size_t n, bool totals)
{
	size_t i;
	uint32_t j;
	int ret = 0;

	if (!m || !info || !info->trigger || (n && !entries))
		return -HIST_EINVAL;
	if (!m->trigger) {
		ret = set_columns(m, info);
		if (ret)
			return ret;
	} else if (strcmp(m->trigger, info->trigger) ||
		   m->nr_keys != info->nr_key_fields || m->nr_vals != info->nr_val_fields) {
		return -HIST_EINVAL;	/* a different trigger */
	}
	for (j = 0; j < m->nr_keys; j++)
		m->key_signed[j] |= info->key_fields[j].is_signed;
	for (i = 0; i < n; i++) {
		const struct hist_read_entry *src = &entries[i];
		struct mentry *e;

		if (src->nr_keys != m->nr_keys || src->nr_vals != m->nr_vals)
			return -HIST_EINVAL;
		e = hist__zalloc(sizeof(*e));
		if (!e)
			return -HIST_ENOMEM;
		e->seq = m->seq;
		for (j = 0; j < src->nr_keys && !ret; j++) {
			ret = copy_key(&e->keys[j], &src->keys[j]);
			m->key_signed[j] |= src->keys[j].is_signed;
		}
		for (j = 0; j < src->nr_vals; j++)
			e->vals[j] = src->vals[j].value;
		if (!ret)
			ret = copy_vars(e, src);
		if (!ret)
			ret = copy_tracks(e, src);
		if (!ret)
			ret = push(m, e);
		if (ret) {
			free_entry(e);
			return ret;
		}
	}
	if (totals && info->snapshot && info->snapshot->nr_keys == m->nr_keys &&
	    (!m->snap || info->snapshot->handler != HIST_TRACK_ONMAX ||
	     info->snapshot->value > m->snap_value)) {
		const struct hist_read_snapshot *sn = info->snapshot;
		struct mkey keys[MERGE_KEYS];
		char *var;

		memset(keys, 0, sizeof(keys));
		var = dup_or_null(sn->var ? sn->var : "", &ret);
		for (j = 0; j < sn->nr_keys && !ret; j++)
			ret = copy_key(&keys[j], &sn->keys[j]);
		if (ret) {
			struct mentry tmp;

			memset(&tmp, 0, sizeof(tmp));
			memcpy(tmp.keys, keys, sizeof(keys));
			hist__free(var);
			free_keys(&tmp);
			return ret;
		}
		drop_snapshot(m);
		m->snap = true;
		m->snap_handler = sn->handler;
		m->snap_var = var;
		m->snap_value = sn->value;
		memcpy(m->snap_keys, keys, sizeof(keys));
	}
	if (totals) {
		m->hits += info->hits;
		m->dropped += info->dropped;
		m->inputs++;
		m->seq++;
	}
	return 0;
}

int hist_merge_add(hist_merge *m, const struct hist_read_info *info,
		   const struct hist_read_entry *entries, size_t n)
{
	return add(m, info, entries, n, true);
}

int hist_merge_add_reader(hist_merge *m, hist_reader *r)
{
	const struct hist_read_info *info;
	const struct hist_read_entry *e;
	int ret = 0;

	if (!m || !r)
		return -HIST_EINVAL;
	info = hist_reader_info(r);
	hist_reader_rewind(r);
	/* the entries one at a time (the reader reuses its storage); the
	 * totals with the last call */
	while (!ret && (e = hist_reader_next(r)))
		ret = add(m, info, e, 1, false);
	if (!ret)
		ret = add(m, info, NULL, 0, true);
	hist_reader_rewind(r);
	return ret;
}

/* ---- combining ---------------------------------------------------------- */

static int cmp_u(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* Identity of keys: the kernel's key is the number (pid of .execname,
 * address of .sym), the string or the stack. */
static int cmp_identity(const void *pa, const void *pb, void *arg)
{
	const struct mentry *a = pa, *b = pb;
	const struct hist_merge *m = arg;
	uint32_t i, j;
	int c;

	for (i = 0; i < m->nr_keys; i++) {
		const struct mkey *x = &a->keys[i], *y = &b->keys[i];

		if (x->kind == HIST_KEY_STRING) {
			c = cmp_str(x->str, y->str);
		} else if (x->kind == HIST_KEY_STACKTRACE) {
			c = cmp_u(x->nr_frames, y->nr_frames);
			for (j = 0; !c && j < x->nr_frames; j++)
				c = cmp_u(x->frames[j], y->frames[j]);
		} else {
			c = cmp_u(x->value, y->value);
		}
		if (c)
			return c;
	}
	return cmp_u(a->seq, b->seq);
}

static bool same_keys(const struct hist_merge *m, const struct mentry *a,
		      const struct mentry *b)
{
	struct mentry x = *a;

	x.seq = b->seq;
	return !cmp_identity(&x, b, (void *)m);
}

/* B into A (B was added later). */
static void combine(const struct hist_merge *m, struct mentry *a, struct mentry *b)
{
	uint32_t i;

	for (i = 0; i < m->nr_vals; i++)
		a->vals[i] += b->vals[i];
	for (i = 0; i < a->nr_vars && i < b->nr_vars; i++) {
		struct mvar v;

		if (!b->vars[i].set)
			continue;
		v = a->vars[i];
		a->vars[i] = b->vars[i];
		b->vars[i] = v;		/* freed with B */
	}
	for (i = 0; i < a->nr_tracks && i < b->nr_tracks; i++) {
		struct mtrack t;

		if (a->tracks[i].handler == HIST_TRACK_ONMAX &&
		    b->tracks[i].value <= a->tracks[i].value)
			continue;
		t = a->tracks[i];
		a->tracks[i] = b->tracks[i];
		b->tracks[i] = t;	/* freed with B */
	}
	/* the names printed (comm of .execname) stay those of the first
	 * input that has the entry: a pid's comm is not part of its key,
	 * and which run saw the pid first is not in the inputs */
}

static int combine_all(struct hist_merge *m)
{
	size_t i, k = 0;
	int ret;

	ret = hist__sort((void **)m->e, m->n, cmp_identity, m);
	if (ret)
		return ret;
	for (i = 0; i < m->n; i++) {
		if (k && same_keys(m, m->e[k - 1], m->e[i])) {
			combine(m, m->e[k - 1], m->e[i]);
			free_entry(m->e[i]);
		} else {
			m->e[k++] = m->e[i];
		}
	}
	m->n = k;
	return 0;
}

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
			c = cmp_str(x->str, y->str);
		} else if (x->kind == HIST_KEY_STACKTRACE) {
			for (j = 0; !c && j < x->nr_frames && j < y->nr_frames; j++)
				for (uint32_t b8 = 0; !c && b8 < 8; b8++)
					c = cmp_u((x->frames[j] >> (8 * b8)) & 0xff,
						  (y->frames[j] >> (8 * b8)) & 0xff);
			if (!c)
				c = cmp_u(x->nr_frames, y->nr_frames);
		} else {
			for (j = 0; !c && j < 8; j++)
				c = cmp_u((x->value >> (8 * j)) & 0xff, (y->value >> (8 * j)) & 0xff);
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
			c = cmp_u(a->vals[sk->val], b->vals[sk->val]);
		} else {
			const struct mkey *x = &a->keys[sk->key], *y = &b->keys[sk->key];

			if (x->kind == HIST_KEY_STACKTRACE || m->key_comm[sk->key])
				c = 0;
			else if (x->kind == HIST_KEY_STRING)
				c = cmp_str(x->str, y->str);
			else if (m->key_signed[sk->key])
				c = (int64_t)x->value < (int64_t)y->value ? -1 :
				    (int64_t)x->value > (int64_t)y->value;
			else
				c = cmp_u(x->value, y->value);
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

static void print_keys(struct hist__sb *sb, const struct hist_merge *m,
		       const struct mkey *keys)
{
	bool multiline = false;
	uint32_t i;
	size_t n;

	hist__sb_puts(sb, "{ ");
	for (i = 0; i < m->nr_keys; i++) {
		if (i)
			hist__sb_puts(sb, ", ");
		hist__sb_puts(sb, m->key_names[i]);
		if (keys[i].kind == HIST_KEY_STACKTRACE) {
			n = strlen(m->key_names[i]);
			if (n < 11 || strcmp(m->key_names[i] + n - 11, ".stacktrace"))
				hist__sb_puts(sb, ":\n");
			print_key(sb, m, &keys[i], i);
			multiline = true;
			continue;
		}
		hist__sb_puts(sb, ": ");
		print_key(sb, m, &keys[i], i);
	}
	if (!multiline)
		hist__sb_putc(sb, ' ');
	hist__sb_putc(sb, '}');
}

static void print_tracks(struct hist__sb *sb, const struct mentry *e)
{
	uint32_t i, j;

	for (i = 0; i < e->nr_tracks; i++) {
		const struct mtrack *t = &e->tracks[i];

		hist__sb_puts(sb, t->handler == HIST_TRACK_ONMAX ? "\n\tmax: " : "\n\tchanged: ");
		hist__sb_u64(sb, t->value, 10, ' ');
		for (j = 0; j < t->nr_saved; j++) {
			hist__sb_puts(sb, "  ");
			hist__sb_puts(sb, t->saved_names[j]);
			hist__sb_puts(sb, ": ");
			if (t->saved[j])
				hist__sb_str(sb, t->saved[j], strlen(t->saved[j]), 32, true);
			else
				hist__sb_u64(sb, t->saved_num[j], 10, ' ');
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
	ret = combine_all(m);
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
	struct hist__sb sb;
	size_t i;
	uint32_t j;
	int ret;

	if (!m || !write)
		return -HIST_EINVAL;
	ret = prepare(m, total, max);
	if (ret)
		return ret;
	hist__sb_init(&sb, write, arg);
	hist__sb_puts(&sb, "# event histogram\n#\n# trigger info: ");
	hist__sb_puts(&sb, m->trigger);
	hist__sb_puts(&sb, m->paused ? " [paused]\n#\n\n" : " [active]\n#\n\n");
	for (i = 0; i < m->n; i++) {
		const struct mentry *e = m->e[i];

		print_keys(&sb, m, e->keys);
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
		hist__sb_puts(&sb, "\nSnapshot taken (see tracing/snapshot).  Details:\n");
		hist__sb_puts(&sb, "\ttriggering value { ");
		hist__sb_puts(&sb, m->snap_handler == HIST_TRACK_ONMAX ? "onmax(" : "onchange(");
		hist__sb_puts(&sb, m->snap_var);
		hist__sb_puts(&sb, ") }: ");
		hist__sb_u64(&sb, m->snap_value, 10, ' ');
		hist__sb_puts(&sb, "\ttriggered by event with key: ");
		print_keys(&sb, m, m->snap_keys);
		hist__sb_putc(&sb, '\n');
	}
	hist__sb_puts(&sb, "\nTotals:\n    Hits: ");
	hist__sb_u64(&sb, m->hits, 0, ' ');
	hist__sb_puts(&sb, "\n    Entries: ");
	hist__sb_u64(&sb, m->n, 0, ' ');
	hist__sb_puts(&sb, "\n    Dropped: ");
	hist__sb_u64(&sb, m->dropped, 0, ' ');
	hist__sb_putc(&sb, '\n');
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
		for (j = 0; j < t->nr_saved; j++) {
			memset(&sv[j], 0, sizeof(sv[j]));
			sv[j].name = t->saved_names[j];
			sv[j].set = t->saved_set[j];
			sv[j].is_string = t->saved[j] != NULL;
			sv[j].str = t->saved_set[j] ? t->saved[j] : NULL;
			sv[j].value = t->saved_num[j];
		}
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

void hist_merge_destroy(hist_merge *m)
{
	size_t i;
	uint32_t j;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free_entry(m->e[i]);
	hist__free(m->e);
	for (j = 0; j < MERGE_KEYS; j++)
		hist__free(m->key_names[j]);
	for (j = 0; j < MERGE_VALS; j++)
		hist__free(m->val_names[j]);
	drop_snapshot(m);
	hist__free(m->trigger);
	hist__free(m->name);
	hist__free(m);
}
