/* SPDX-License-Identifier: MIT */
/*
 * The hist trigger at run time: element layout, the per-hit update, named
 * (shared) tables, identity matching and teardown.
 */
#include "core/trigger.h"
#include "core/sslot.h"
#include "filter/filter.h"

/* Kernel trace clocks that count in ns (common_timestamp.usecs divides
 * only those). */
static bool clock_in_ns(const char *clock)
{
	static const char *const ns[] = { "local", "global", "perf", "mono",
					  "mono_raw", "boot", "tai" };
	size_t i;

	for (i = 0; i < HIST__ARRAY_SIZE(ns); i++)
		if (!strcmp(clock, ns[i]))
			return true;
	return false;
}

/* Runs once per element, in the creating thread, before publication. */
static void elt_init(void *payload, void *arg)
{
	const struct hist__elt_init_arg *a = arg;
	char *comm;

	if (!a->h->needs_comm)
		return;
	comm = (char *)payload + a->h->comm_off;
	/* the comm of the task current when the entry is created (g02) */
	if (hist__rec_pid(a->r) == 0)
		memcpy(comm, "<idle>", 7);
	else
		hist__strlcpy(comm, hist__rec_comm(a->r), HIST__COMM_LEN);
}

/* The payload: the sums live in the map's per-cpu copies, not here. */
static uint32_t layout(struct hist__hist *h)
{
	uint32_t off = 0;
	uint32_t i;

	h->nr_var_slots = h->nr_vars + h->nr_hidden_slots;
	h->var_off = off;
	off += 8 * h->nr_var_slots;
	h->var_set_off = off;
	/* the set bitmap only where there are variables to mark */
	if (h->nr_var_slots)
		off += 8;
	h->comm_off = off;
	if (h->needs_comm)
		off += HIST__COMM_LEN;
	/* string variables keep their text in the element, in slots with a
	 * sequence word in front (core/sslot.h): OFF stays 8-byte aligned */
	for (i = 0; i < h->nr_fvars + h->nr_save_vars; i++) {
		struct hist__fvar *fv = i < h->nr_fvars ? h->fvars[i]
							: h->save_vars[i - h->nr_fvars];

		if (fv->val->flags & HIST__F_STRING) {
			fv->str_off = off + HIST__SSLOT_HDR;
			off += HIST__SSLOT_HDR + HIST__STR_VAR_LEN_MAX;
		}
	}
	for (i = 0; i < h->nr_vars; i++) {
		if (h->vars[i]->flags & HIST__F_STRING) {
			h->vars[i]->slot_off = off + HIST__SSLOT_HDR;
			off += HIST__SSLOT_HDR + HIST__STR_VAR_LEN_MAX;
		} else if (h->vars[i]->flags & HIST__F_STACKTRACE) {
			/* frames plus a terminating 0 */
			h->vars[i]->slot_off = off + HIST__SSLOT_HDR;
			off += HIST__SSLOT_HDR + (HIST__STACK_MAX + 1) * 8;
		}
	}
	/* references whose value is such a slot: a hit copies them */
	h->has_text_refs = false;
	for (i = 0; i < h->nr_refs; i++)
		if (h->refs[i]->flags & (HIST__F_STRING | HIST__F_STACKTRACE))
			h->has_text_refs = true;
	return (off + 7) & ~7u;
}

/*
 * The largest map that HIST_SUMS_AUTO gives per-cpu sums: the kernel's
 * largest size=.  Past it (a host's max_map_bits) a table outgrows a
 * last-level cache, and a hit from several cpus then misses on the
 * element and again on its copy: shared sums ran as fast on one thread
 * and faster on two (bench/README.md: u1m, zipf1m, 2t_zipf1m, 2t_d512k),
 * in 64 bytes per entry instead of 64 + 16 per copy.
 */
#define AUTO_PCPU_BITS_MAX 17

/* A map of 2^BITS entries for H, its sums where the context says. */
static struct hist_map *new_map(const struct hist__hist *h, uint32_t bits)
{
	const struct hist_ctx_opts *o = &h->ev->ctx->opts;
	struct hist_map_params p;

	memset(&p, 0, sizeof(p));
	p.bits = bits;
	p.key_size = h->key_size < 8 ? 8 : h->key_size;
	p.payload_size = h->payload_size;
	p.nr_sums = h->nr_vals;
	p.nr_cpus = o->nr_cpus;
	p.pcpu_sums = o->sums == HIST_SUMS_PER_CPU ||
		      (o->sums == HIST_SUMS_AUTO && bits <= AUTO_PCPU_BITS_MAX);
	p.multi = HIST__CTX_MULTI(h->ev->ctx);
	p.hits_sum0 = true;	/* sum 0 is the hitcount */
	p.elt_init = elt_init;
	return hist__map_create(&p);
}

int hist__hist_setup(struct hist__hist *h)
{
	h->payload_size = layout(h);
	h->single_int_key = h->nr_keys == 1 &&
			    !(h->keys[0]->flags & (HIST__F_STRING | HIST__F_STACKTRACE));
	if (!h->map)	/* else shared through name= */
		h->map = new_map(h, h->map_bits);
	if (!h->map)
		return -HIST_ENOMEM;
	/* The map's, which its clears keep (hist__hist_clear()). */
	h->shared_sums = !hist__map_pcpu_sums(h->map);
	return 0;
}

/* A cleared table waiting for its grace period. */
struct retired_map {
	struct hist__retired retire;
	struct hist_map *map;
};

static void map_free(void *p)
{
	struct retired_map *rm = p;

	hist__map_destroy(rm->map);
	hist__free(rm);
}

int hist__hist_clear(struct hist__hist *h)
{
	struct hist_ctx *ctx = h->ev->ctx;
	struct hist_map *old = h->map, *fresh;
	struct retired_map *rm = hist__zalloc(sizeof(*rm));
	struct hist_event *ev;
	struct hist__trigger *t;
	uint32_t bits = 0;

	/*
	 * The old map's size, so the layout of its sums too: every user
	 * of the map keeps the hit variant it chose for that layout, and a
	 * named group's members may have asked for other sizes.
	 */
	while ((2u << bits) <= hist__map_capacity(old))
		bits++;
	fresh = new_map(h, bits);

	if (!fresh || !rm) {
		hist__map_destroy(fresh);
		hist__free(rm);
		return -HIST_ENOMEM;
	}
	/* Every user of the table switches to the fresh one; hits that
	 * raced with the swap land in the old table, retired below.
	 * release: pairs with the acquire load of h->map on the hit path,
	 * so a hit that sees the new map sees it initialised. */
	if (h->group) {
		h->group->map = fresh;
		for (ev = ctx->events; ev; ev = ev->next)
			for (t = ev->trig_head; t; t = t->next)
				if (t->kind == HIST__T_HIST && t->hist->group == h->group)
					hist__store_release(&t->hist->map, fresh);
	} else {
		hist__store_release(&h->map, fresh);
	}
	rm->map = old;
	hist__retire(ctx, &rm->retire, map_free, rm);
	return 0;
}

static void free_field_array(struct hist__field **f, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		hist__field_free(f[i]);
}

void hist__hist_free(struct hist__hist *h)
{
	if (!h)
		return;
	free_field_array(h->vals, h->nr_vals);
	free_field_array(h->keys, h->nr_keys);
	free_field_array(h->vars, h->nr_vars);
	if (h->aops)
		h->aops->free(h);
	hist__free(h->cmd);
	if (h->group) {
		if (--h->group->refs == 0) {
			hist__map_destroy(h->group->map);
			hist__named_del(h->ev->ctx, h->group);
		} else if (h->group->first == h) {
			h->group->first = NULL;
		}
	} else if (h->map) {
		hist__map_destroy(h->map);
	}
	hist__free(h->name);
	hist__free(h->clock);
	hist__free(h);
}

/* Build the compound key.  KEY has room for HIST__KEY_SIZE_MAX bytes. */
static void build_key(const struct hist__hist *h, struct hist__eval *e,
		      uint8_t *key)
{
	uint32_t i;

	memset(key, 0, h->key_size < 8 ? 8 : h->key_size);
	for (i = 0; i < h->nr_keys; i++) {
		const struct hist__field *k = h->keys[i];
		uint8_t *slot = key + k->key_offset;

		if (k->flags & HIST__F_STACKTRACE) {
			uint64_t ips[HIST__STACK_MAX];
			unsigned n;

			if (k->ef) {
				n = hist__read_stack(k->ef, e->r, ips, HIST__STACK_MAX);
				memcpy(slot, ips, n * 8);
			} else {
				const uint64_t *st;

				n = hist__rec_stack(e->r, &st);
				memcpy(slot, st, n * 8);
			}
		} else if (k->flags & HIST__F_STRING) {
			const char *s;
			size_t n = k->str(k, e, &s);

			/* always leave a NUL in the slot */
			if (n > k->key_size - 1)
				n = k->key_size - 1;
			memcpy(slot, s, n);
		} else {
			uint64_t v = hist__field_val(k, e);

			memcpy(slot, &v, 8);
		}
	}
}

static void set_vars(const struct hist__hist *h, struct hist__eval *e,
		     uint8_t *payload)
{
	uint64_t *vals = (uint64_t *)(void *)(payload + h->var_off);
	uint64_t *set = (uint64_t *)(void *)(payload + h->var_set_off);
	uint64_t bits = 0;
	uint32_t i;

	for (i = 0; i < h->nr_vars; i++) {
		const struct hist__field *v = h->vars[i];
		uint64_t val;

		/* Texts and stacks go through their slot's seqlock: a hit
		 * that finds another writing it leaves that one's (sslot.h) */
		if (v->flags & HIST__F_STRING) {
			uint8_t *buf = payload + v->slot_off;
			const char *s;
			size_t n = v->str(v, e, &s);

			if (n > HIST__STR_VAR_LEN_MAX - 1)
				n = HIST__STR_VAR_LEN_MAX - 1;
			(void)hist__sslot_write(buf, s, (uint32_t)n, (uint32_t)n + 1);
			val = (uint64_t)(uintptr_t)buf;
		} else if (v->flags & HIST__F_STACKTRACE) {
			uint64_t tmp[HIST__STACK_MAX];
			uint8_t *buf = payload + v->slot_off;
			const struct hist__field *src = v;
			const uint64_t *st = tmp;
			unsigned n;

			while (src->flags & HIST__F_ALIAS)
				src = src->operands[0];
			if (src->ef)
				n = hist__read_stack(src->ef, e->r, tmp, HIST__STACK_MAX);
			else
				n = hist__rec_stack(e->r, &st);
			/* the frames and a terminating 0 */
			(void)hist__sslot_write(buf, st, n * 8, (n + 1) * 8);
			val = (uint64_t)(uintptr_t)buf;
		} else {
			val = hist__field_val(v, e);
		}
		hist__store_relaxed(&vals[i], val);
		bits |= 1ull << i;
	}
	/* release: a reference that sees the set bit sees the value */
	if (bits)
		hist__or_release(set, bits);
}

/* One copy, so that what it calls stays inlined in it (two inlined copies
 * made GCC call build_key() out of line: +9 Ir per hist hit). */
static HIST__NOINLINE void hist_hit(struct hist__hist *h, struct hist__rec *r, uint8_t *texts)
{
	uint64_t keybuf[HIST__KEY_SIZE_MAX / 8];
	uint64_t refs[HIST__REFS_MAX];
	uint8_t *key = (uint8_t *)keybuf;
	struct hist__eval e;
	struct hist__elt_init_arg ia;
	struct hist_map_elt *elt;
	struct hist_map *map;
	uint8_t *payload;
	uint64_t *sums;
	bool local;
	uint32_t i;

	e.r = r;
	e.h = h;
	e.payload = NULL;
	e.refs = refs;
	e.texts = texts;
	e.ts = 0;
	if (h->uses_ts) {
		e.ts = r->hit ? r->hit->ts : 0;
		if (r->hit && (r->hit->flags & HIST_HIT_NO_TS) && r->host &&
		    r->host->clock)
			e.ts = r->host->clock(r->host->data);
		if (h->ts_usecs && clock_in_ns(h->clock))
			e.ts = (e.ts + 500) / 1000;
	}
	if (h->single_int_key) {
		keybuf[0] = hist__field_val(h->keys[0], &e);
	} else {
		build_key(h, &e, key);
	}
	if (h->nr_refs && !hist__resolve_refs(h, key, refs, texts))
		return;
	ia.h = h;
	ia.r = r;
	/* acquire: pairs with the release in hist__hist_clear() */
	map = hist__load_acquire(&h->map);
	/* This hit's cpu copy of the sums: unlocked adds when it owns the slot. */
	local = hist__map_slot_local(map, r->slot);
	elt = hist__map_insert_sums(map, key, r->slot, &ia, &sums);
	if (!elt)
		return;
	payload = hist__map_elt_payload(elt);
	e.payload = payload;
	hist__map_sums_add(sums, 0, 1, local);
	for (i = 1; i < h->nr_vals; i++)
		hist__map_sums_add(sums, i, hist__field_val(h->vals[i], &e), local);
	if (h->nr_vars)
		set_vars(h, &e, payload);
	if (h->nr_fvars || h->nr_actions)
		h->aops->run(h, &e, elt, key);
}

/* A hit of a hist that references texts: the stack space for the copies
 * its references read (a hist without them never pays for it). */
static HIST__NOINLINE void hist_hit_texts(struct hist__hist *h, struct hist__rec *r)
{
	uint64_t texts[HIST__REFS_MAX * HIST__STR_VAR_LEN_MAX / 8];

	hist_hit(h, r, (uint8_t *)texts);
}

void hist__hist_hit(struct hist__hist *h, struct hist__rec *r)
{
	if (h->has_text_refs)
		hist_hit_texts(h, r);
	else
		hist_hit(h, r, NULL);
}

/*
 * The hot path's entry.  The acquire load of the trigger list pairs with
 * the release store in hist__triggers_publish(), so every trigger in the
 * list (and everything it points to) is fully built before it is used.
 * The list says where to go (hist__tlist.hit): a lone unfiltered simple
 * hist's variant, or hist__event_hit(); the arguments stay in place.
 */
void hist_event_hit(hist_event *ev, const void *rec, size_t len,
		    const struct hist_hit *hit)
{
	struct hist__tlist *tl = hist__load_acquire(&ev->triggers);

	/* Three tests, not one combined condition: GCC would compute the
	 * combination with flag-setting instructions on every hit. */
	if (hist__unlikely(!tl))
		return;
	if (hist__unlikely(!rec))
		goto general;
	if (hist__unlikely(!hit))
		goto general;
	tl->hit(tl, rec, len, hit);
	return;
general:
	hist__event_hit(ev, rec, len, hit, 0, HIST__SLOT_SHARED);
}

/* ---- identity ----------------------------------------------------- */

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static bool field_match(const struct hist__field *a, const struct hist__field *b)
{
	if (!a || !b)
		return a == b;
	if (a->flags != b->flags || a->size != b->size ||
	    a->is_signed != b->is_signed || a->op != b->op ||
	    a->constant != b->constant || a->bucket != b->bucket ||
	    !a->ef != !b->ef || a->key_offset != b->key_offset)
		return false;
	/* named triggers compare fields of different events: by shape */
	if (a->ef && (a->ef->size != b->ef->size ||
		      a->ef->is_signed != b->ef->is_signed ||
		      strcmp(a->ef->type, b->ef->type)))
		return false;
	if (!str_eq(hist__field_name(a), hist__field_name(b)) ||
	    !str_eq(a->type, b->type) || !str_eq(a->var_name, b->var_name))
		return false;
	if ((a->flags & HIST__F_VAR_REF) &&
	    (a->ref_hist != b->ref_hist || a->ref_var_idx != b->ref_var_idx))
		return false;
	return field_match(a->operands[0], b->operands[0]) &&
	       field_match(a->operands[1], b->operands[1]);
}

static bool fields_match(struct hist__field *const *a, struct hist__field *const *b,
			 uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!field_match(a[i], b[i]))
			return false;
	return true;
}

bool hist__hist_match(const struct hist__trigger *ta, const struct hist__trigger *tb,
		      bool ignore_filter)
{
	const struct hist__hist *a = ta->hist, *b = tb->hist;
	uint32_t i;

	if (a->nr_vals != b->nr_vals || a->nr_keys != b->nr_keys ||
	    a->nr_vars != b->nr_vars || a->nr_sort != b->nr_sort ||
	    a->nohitcount != b->nohitcount)
		return false;
	if (!fields_match(a->vals, b->vals, a->nr_vals) ||
	    !fields_match(a->keys, b->keys, a->nr_keys) ||
	    !fields_match(a->vars, b->vars, a->nr_vars))
		return false;
	for (i = 0; i < a->nr_sort; i++)
		if (a->sort[i].val_idx != b->sort[i].val_idx ||
		    a->sort[i].key_idx != b->sort[i].key_idx ||
		    a->sort[i].descending != b->sort[i].descending)
			return false;
	if (!ignore_filter && !str_eq(ta->filter_text, tb->filter_text))
		return false;
	if (!str_eq(a->name, b->name))
		return false;
	return a->aops->match(a, b);
}

/* ---- identity hash: equal for triggers that hist__hist_match() ----- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	if (!s)
		return mix(h, 1);
	for (; *s; s++)
		h = mix(h, (uint8_t)*s);
	return mix(h, 2);
}

/* Hashes what field_match() compares. */
static uint64_t field_sig(uint64_t h, const struct hist__field *f)
{
	if (!f)
		return mix(h, 3);
	h = mix(h, f->flags);
	h = mix(h, ((uint64_t)f->size << 16) | ((uint64_t)f->is_signed << 8) | f->op);
	h = mix(h, f->constant);
	h = mix(h, f->bucket);
	h = mix(h, f->key_offset);
	if (f->ef) {
		h = mix(h, ((uint64_t)f->ef->size << 1) | (f->ef->is_signed != 0));
		h = mix_str(h, f->ef->type);
	}
	h = mix_str(h, hist__field_name(f));
	h = mix_str(h, f->type);
	h = mix_str(h, f->var_name);
	if (f->flags & HIST__F_VAR_REF) {
		h = mix(h, (uint64_t)(uintptr_t)f->ref_hist);
		h = mix(h, (uint64_t)(uint32_t)f->ref_var_idx);
	}
	h = field_sig(h, f->operands[0]);
	return field_sig(h, f->operands[1]);
}

uint64_t hist__hist_sig(const struct hist__trigger *t)
{
	const struct hist__hist *a = t->hist;
	uint64_t h = mix(0, ((uint64_t)a->nr_vals << 24) | ((uint64_t)a->nr_keys << 16) |
				((uint64_t)a->nr_vars << 8) | ((uint64_t)a->nr_sort << 1) |
				a->nohitcount);
	uint32_t i;

	for (i = 0; i < a->nr_vals; i++)
		h = field_sig(h, a->vals[i]);
	for (i = 0; i < a->nr_keys; i++)
		h = field_sig(h, a->keys[i]);
	for (i = 0; i < a->nr_vars; i++)
		h = field_sig(h, a->vars[i]);
	for (i = 0; i < a->nr_sort; i++)
		h = mix(h, ((uint64_t)(uint32_t)a->sort[i].val_idx << 32) |
			       ((uint64_t)(uint32_t)a->sort[i].key_idx << 1) |
			       a->sort[i].descending);
	h = mix_str(h, t->filter_text);
	return mix_str(h, a->name);
}
