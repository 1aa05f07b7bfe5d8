/* SPDX-License-Identifier: MIT */
/*
 * Merging histograms of one trigger from several runs or machines
 * (hist_merge_*): the merged table.  Its printers are in merge_print.c.
 *
 * The inputs are read-outs (struct hist_read_info and entries, from a
 * hist_reader or rebuilt from JSON); each entry is copied.  Entries with
 * the same keys are one entry: sums added, onmax() blocks keep the larger
 * max with its saved fields, onchange() blocks and variables the ones
 * added last (a variable holds the value written last; one the later
 * input never set keeps the earlier value).
 *
 * What the printers need beyond the read-out (sym or sym-offset, .hex
 * values, the sort keys) is read from the trigger text, which is the same
 * in every input: a merge of different triggers is refused.
 */
#include "output/merge.h"
#include "map/map.h"

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

/* The MERGE_KEYS keys of an entry or of the snapshot block. */
static void free_keys(struct mkey *keys)
{
	uint32_t i, j;

	for (i = 0; i < MERGE_KEYS; i++) {
		hist__free(keys[i].str);
		for (j = 0; j < keys[i].nr_frames && keys[i].frame_text; j++)
			hist__free(keys[i].frame_text[j]);
		hist__free(keys[i].frame_text);
		hist__free(keys[i].frames);
	}
	memset(keys, 0, MERGE_KEYS * sizeof(*keys));
}

static void free_vars(struct mvar *v, uint32_t n)
{
	uint32_t i;

	for (i = 0; v && i < n; i++) {
		hist__free(v[i].name);
		hist__free(v[i].str);
	}
	hist__free(v);
}

static void free_entry(struct mentry *e)
{
	uint32_t i;

	if (!e)
		return;
	free_keys(e->keys);
	free_vars(e->vars, e->nr_vars);
	for (i = 0; i < e->nr_tracks; i++) {
		hist__free(e->tracks[i].var);
		free_vars(e->tracks[i].saved, e->tracks[i].nr_saved);
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

/* The N variables or saved fields at SRC into *OUT (*NR of them). */
static int copy_vars(struct mvar **out, uint32_t *nr, const struct hist_read_var *src,
		     uint32_t n)
{
	struct mvar *d;
	uint32_t i;
	int ret = 0;

	if (!n)
		return 0;
	d = hist__zalloc(n * sizeof(*d));
	if (!d)
		return -HIST_ENOMEM;
	*out = d;
	*nr = n;
	for (i = 0; i < n && !ret; i++) {
		const struct hist_read_var *v = &src[i];

		d[i].name = dup_or_null(v->name ? v->name : "", &ret);
		d[i].set = v->set;
		d[i].is_string = v->is_string;
		d[i].value = v->set ? v->value : 0;
		if (v->is_string && v->set && v->str)
			d[i].str = dup_or_null(v->str, &ret);
	}
	return ret;
}

static int copy_tracks(struct mentry *d, const struct hist_read_entry *e)
{
	uint32_t i;
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
		if (!ret)
			ret = copy_vars(&m->saved, &m->nr_saved, t->saved, t->nr_saved);
	}
	return ret;
}

static void drop_snapshot(struct hist_merge *m)
{
	if (!m->snap)
		return;
	free_keys(m->snap_keys);
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

/* True if ITEM ("field" or "field.mod...") is of field NAME. */
static bool base_is(const char *item, const char *name)
{
	const char *dot = strchr(item, '.');
	size_t n = dot ? (size_t)(dot - item) : strlen(item);

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
			if (base_is(item, m->val_names[j]))
				sk.val = (int)j;
		for (j = 0; j < m->nr_keys && sk.val < 0 && sk.key < 0; j++)
			if (base_is(item, m->key_names[j]))
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
					 (base_is(item, "comm") ||
					  base_is(item, "common_comm"));
		}
	}
	for (i = 0; i < m->nr_vals && !ret; i++) {
		const struct hist_read_val *v = &info->val_fields[i];
		uint32_t j;

		m->val_names[i] = dup_or_null(v->name, &ret);
		m->val_flags[i] = v->flags & (HIST_VAL_PERCENT | HIST_VAL_GRAPH | HIST_VAL_HEX);
		/* .hex of a value is only in the trigger text */
		for (j = 0; section_item(info->trigger, "vals", j, item, sizeof(item)); j++) {
			if (base_is(item, v->name) && has_mod(item, "hex"))
				m->val_flags[i] |= HIST_VAL_HEX;
		}
	}
	if (!ret)
		parse_sort(m);
	return ret;
}

static int push(struct hist_merge *m, struct mentry *e)
{
	int ret = hist__grow(&m->e, &m->cap, m->n + 1, sizeof(*m->e), 256);

	if (!ret)
		m->e[m->n++] = e;
	return ret;
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
			ret = copy_vars(&e->vars, &e->nr_vars, src->vars, src->nr_vars);
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
			hist__free(var);
			free_keys(keys);
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

/* Identity of keys: the kernel's key is the number (pid of .execname,
 * address of .sym), the string or the stack. */
static int cmp_keys(const struct hist_merge *m, const struct mentry *a,
		    const struct mentry *b)
{
	uint32_t i, j;
	int c;

	for (i = 0; i < m->nr_keys; i++) {
		const struct mkey *x = &a->keys[i], *y = &b->keys[i];

		if (x->kind == HIST_KEY_STRING) {
			c = hist__cmp_str(x->str, y->str);
		} else if (x->kind == HIST_KEY_STACKTRACE) {
			c = hist__cmp_u64(x->nr_frames, y->nr_frames);
			for (j = 0; !c && j < x->nr_frames; j++)
				c = hist__cmp_u64(x->frames[j], y->frames[j]);
		} else {
			c = hist__cmp_u64(x->value, y->value);
		}
		if (c)
			return c;
	}
	return 0;
}

/* Equal keys in the order of adding (combine() takes the later). */
static int cmp_identity(const void *pa, const void *pb, void *arg)
{
	const struct mentry *a = pa, *b = pb;
	int c = cmp_keys(arg, a, b);

	return c ? c : hist__cmp_u64(a->seq, b->seq);
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

int hist__merge_combine(struct hist_merge *m)
{
	size_t i, k = 0;
	int ret;

	ret = hist__sort((void **)m->e, m->n, cmp_identity, m);
	if (ret)
		return ret;
	for (i = 0; i < m->n; i++) {
		if (k && !cmp_keys(m, m->e[k - 1], m->e[i])) {
			combine(m, m->e[k - 1], m->e[i]);
			free_entry(m->e[i]);
		} else {
			m->e[k++] = m->e[i];
		}
	}
	m->n = k;
	return 0;
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
