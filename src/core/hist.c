/* SPDX-License-Identifier: MIT */
/*
 * The hist trigger at run time: element layout, the per-hit update, named
 * (shared) tables, identity matching and teardown.
 */
#include "core/trigger.h"
#include "filter/filter.h"
#include "core/rd.h"

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
	/* string variables keep their text in the element */
	for (i = 0; i < h->nr_fvars + h->nr_save_vars; i++) {
		struct hist__fvar *fv = i < h->nr_fvars ? h->fvars[i]
							: h->save_vars[i - h->nr_fvars];

		if (fv->val->flags & HIST__F_STRING) {
			fv->str_off = off;
			off += 256;
		}
	}
	{
		for (i = 0; i < h->nr_vars; i++) {
			if (h->vars[i]->flags & HIST__F_STRING) {
				h->vars[i]->key_offset = off;
				off += 256;
			} else if (h->vars[i]->flags & HIST__F_STACKTRACE) {
				/* frames plus a terminating 0 */
				h->vars[i]->key_offset = off;
				off += (HIST__STACK_MAX + 1) * 8;
			}
		}
	}
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
			struct hist__named **pp;

			for (pp = &h->ev->ctx->named; *pp; pp = &(*pp)->next) {
				if (*pp == h->group) {
					*pp = h->group->next;
					break;
				}
			}
			hist__map_destroy(h->group->map);
			hist__free(h->group->name);
			hist__free(h->group);
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

		if (v->flags & HIST__F_STRING) {
			char *buf = (char *)payload + v->key_offset;
			const char *s;
			size_t n = v->str(v, e, &s);

			if (n > 255)
				n = 255;
			memcpy(buf, s, n);
			buf[n] = 0;
			val = (uint64_t)(uintptr_t)buf;
		} else if (v->flags & HIST__F_STACKTRACE) {
			uint64_t *buf = (uint64_t *)(void *)(payload + v->key_offset);
			const struct hist__field *src = v;
			const uint64_t *st;
			unsigned n;

			while (src->flags & HIST__F_ALIAS)
				src = src->operands[0];
			if (src->ef) {
				n = hist__read_stack(src->ef, e->r, buf, HIST__STACK_MAX);
			} else {
				n = hist__rec_stack(e->r, &st);
				memcpy(buf, st, n * 8);
			}
			buf[n] = 0;
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

void hist__hist_hit(struct hist__hist *h, struct hist__rec *r)
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
	if (h->nr_refs && !hist__resolve_refs(h, key, refs))
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

/* ---- the simple hist ---------------------------------------------- */

_Static_assert(HIST__VALS_MAX == 3, "a simple hit reads at most two values");

/*
 * The key K and values V[1..NV) of a simple hit, from a record that holds
 * them all (its length at least H->rd_end), read as KEY and VAL say.
 */
static HIST__ALWAYS_INLINE void simple_read(const struct hist__hist *h, const uint8_t *data,
					    const uint32_t nv, const enum rd_kind key,
					    const enum rd_kind val, uint64_t *k, uint64_t *v)
{
	/* Unrolled (at most two values), so V can live in registers. */
	*k = rd_field_in(&h->rd_key, data, key);
	if (nv > 1)
		v[1] = rd_field_in(&h->rd_vals[1], data, val);
	if (nv > 2)
		v[2] = rd_field_in(&h->rd_vals[2], data, val);
}

/*
 * The sums an owned SLOT adds K's hit to, for a key found near its home
 * (hist__map_find_owned()), else NULL having done nothing, *ABSENT set
 * when K is not in the map.
 */
static HIST__ALWAYS_INLINE uint64_t *simple_find(struct hist__hist *h, uint64_t k, uint32_t slot,
						 bool *absent)
{
	/* An owned slot is below the context's nr_cpus, the maps' too.
	 * Acquire: pairs with the release in hist__hist_clear().
	 * Relaxed: HOME, a mode word (hist__map_not_home()). */
	return hist__map_find_owned(hist__load_acquire(&h->map), k, slot,
				    hist__load_relaxed(&h->cpus[slot].home), absent);
}

/* The hit's unlocked adds to SUMS, which SLOT owns. */
static HIST__ALWAYS_INLINE void simple_add(uint64_t *sums, const uint32_t nv, const uint64_t *v)
{
	hist__add_local(&sums[0], 1);
	if (nv > 1)
		hist__add_local(&sums[1], v[1]);
	if (nv > 2)
		hist__add_local(&sums[2], v[2]);
}

/* simple_add() of a hit that counts only if PASS (a constant true
 * where there is no filter): adds 0 otherwise, with no branch. */
static HIST__ALWAYS_INLINE void simple_add_if(uint64_t *sums, const uint32_t nv,
					      const uint64_t *v, bool pass)
{
	uint64_t mask = 0 - (uint64_t)pass;

	hist__add_local(&sums[0], (uint64_t)pass);
	if (nv > 1)
		hist__add_local(&sums[1], v[1] & mask);
	if (nv > 2)
		hist__add_local(&sums[2], v[2] & mask);
}

/* A drop, counted, when the first try found the key ABSENT from H's
 * map and the map is full. */
static HIST__ALWAYS_INLINE bool drop_absent(struct hist__hist *h, uint32_t slot, bool absent)
{
	/* acquire: pairs with the release in hist__hist_clear() */
	return absent && hist__map_drop_absent(hist__load_acquire(&h->map), slot);
}

/* hist__hist_insert() after the drop test: the full insert and adds,
 * inlined into the variants' own insert halves. */
static HIST__ALWAYS_INLINE void insert(struct hist__hist *h, const void *key, uint64_t v1,
				       uint64_t v2, uint32_t slot, struct hist__rec *r,
				       const uint32_t nv)
{
	/* acquire: pairs with the release in hist__hist_clear() */
	struct hist_map *map = hist__load_acquire(&h->map);
	struct hist__elt_init_arg ia = { h, r };
	struct hist_map_elt *e;
	uint64_t *sums;
	bool local;
	/* Not hist__map_insert_sums(): the caller's inline probes have just
	 * failed for most of the keys that come here. */
	e = hist__map_insert_slow(map, key, slot, &ia);
	if (!e)
		return;
	local = hist__map_slot_local(map, slot);
	sums = hist__map_sums_of(map, e, slot);
	hist__map_sums_add(sums, 0, 1, local);
	if (nv > 1)
		hist__map_sums_add(sums, 1, v1, local);
	if (nv > 2)
		hist__map_sums_add(sums, 2, v2, local);
}

void hist__hist_insert(struct hist__hist *h, const void *key, uint64_t v1, uint64_t v2,
		       uint32_t slot, bool absent, struct hist__rec *r)
{
	slot = hist__slot_settle(h->cpus, h->nr_cpus, slot);
	if (!drop_absent(h, slot, absent))
		insert(h, key, v1, v2, slot, r, h->nr_vals);
}

/*
 * A simple hit with NV values through SLOT (owned, or HIST__SLOT_SHARED)
 * by the map's full insert: a new key, a long probe chain, a shared
 * slot, a short record, or a drop.  KEY and VAL as in hit_simple_fast().
 */
static HIST__ALWAYS_INLINE void hit_simple_insert(struct hist__hist *h, const uint8_t *data,
						  size_t len, const struct hist_hit *hit,
						  uint32_t slot, const uint32_t nv,
						  const enum rd_kind key, const enum rd_kind val)
{
	uint64_t k, v[HIST__VALS_MAX] = { 0 };
	struct hist__rec r;
	uint32_t i;

	if (hist__likely(len >= h->rd_end)) {
		simple_read(h, data, nv, key, val, &k, v);
	} else {
		k = rd_field(&h->rd_key, data, len);
		for (i = 1; i < nv; i++)
			v[i] = rd_field(&h->rd_vals[i], data, len);
	}
	/* the record, for the comm of .execname */
	if (h->needs_comm)
		hist__rec_init(&r, h->ev, data, len, hit);
	insert(h, &k, v[1], v[2], slot, h->needs_comm ? &r : NULL, nv);
}

/*
 * The first try of a simple hit on a map of shared sums: K's sums found
 * within the inline probes and the hit's values V added to them
 * (atomically: every thread adds to them), else false having done
 * nothing, with *ABSENT as hist__map_find_shared() sets it.
 */
static HIST__ALWAYS_INLINE bool shared_hit(struct hist__hist *h, uint64_t k, const uint32_t nv,
					   const uint64_t *v, bool *absent)
{
	/* Acquire: pairs with the release in hist__hist_clear(). */
	uint64_t *sums = hist__map_find_shared(hist__load_acquire(&h->map), k, absent);

	if (hist__unlikely(!sums))
		return false;
	shared_add(sums, nv, v[1], v[2]);
	return true;
}

/*
 * The first try of a simple hit with NV values through SLOT: a key found
 * near its home: one length check, the reads, up to eight probes, plain
 * adds to the element's inline sums or this slot's copy (with shared
 * sums: atomic adds to the element's, through any slot).  False (nothing
 * done) otherwise.
 */
static HIST__ALWAYS_INLINE bool hit_simple_fast(struct hist__hist *h, const uint8_t *data,
						size_t len, uint32_t slot, const uint32_t nv)
{
	uint64_t k, v[HIST__VALS_MAX] = { 0 }, *sums;
	bool absent = false;

	/* a shared slot adds atomically: the full path, unless every
	 * thread does (shared sums) */
	if (hist__unlikely(len < h->rd_end) ||
	    hist__unlikely(slot == HIST__SLOT_SHARED && !h->shared_sums))
		return false;
	simple_read(h, data, nv, RD_ANY, RD_ANY, &k, v);
	if (h->shared_sums)
		return shared_hit(h, k, nv, v, &absent);
	sums = simple_find(h, k, slot, NULL);
	if (hist__unlikely(!sums))
		return false;
	simple_add(sums, nv, v);
	return true;
}

/* The whole update of a simple hist through SLOT. */
static void hit_simple(struct hist__hist *h, const uint8_t *data, size_t len,
		       const struct hist_hit *hit, uint32_t slot)
{
	if (!hit_simple_fast(h, data, len, slot, h->nr_vals))
		hit_simple_insert(h, data, len, hit, slot, h->nr_vals, RD_ANY, RD_ANY);
}

/*
 * hist__triggers_run() and hist__hist_hit() for the list { T }, T simple:
 * the same pause and filter checks, the same key and sums, without the
 * general machinery (no ts, key builder, references, variables, actions).
 */
void hist__hist_hit_simple(struct hist__trigger *t, const void *rec, size_t len,
			   const struct hist_hit *hit, uint32_t slot)
{
	if (!rec)
		len = 0;
	/* relaxed: as in hist__triggers_run() */
	if (hist__load_relaxed(&t->paused))
		return;
	if (t->filter && !hist__filter_match_data(t->filter, t->hist->ev, rec, len, hit))
		return;
	hit_simple(t->hist, rec, len, hit, slot);
}

/*
 * hist_event_hit() of a simple hist alone on TL's event, for NV values
 * read as KEY and VAL say: one variant per combination, picked when the
 * trigger is parsed (hist__hist_simple()), so the hit tests no field
 * size.  FILTERED: the trigger has a filter of integer fields only,
 * evaluated from the record first.  LOOK: FIRST32, the map's slots are
 * 32 bytes (hist__map_slots32()), and only the look at the key's start
 * slot is inline, or LINE32, at the two slots of its first line
 * (hist__map_line2()); the rest of its chain goes to hit_rest_NV(), so
 * that the inline path saves one register at most.  What the inline path
 * leaves over goes to out-of-line halves entered by tail calls: SHORT,
 * the whole hit of a record too short for the fields, and hit_ins_NV(),
 * the insert of the key and values already read (a new key, a long
 * probe chain, a shared slot), told when the first try found the key
 * absent (a drop, if the map is full).  The fields are read before the
 * slot's owner is checked, so that from then on the inline path keeps
 * only what the insert half takes (the hist, the key, the values, the
 * slot): fewer saved registers.
 */
/* The insert half of the variants with NV values: the key K taken by
 * value, the values in registers. */
#define HIT_INS(NV)                                                                   \
	static HIST__NOINLINE void hit_ins_##NV(struct hist__hist *h, uint64_t k,     \
						uint64_t v1, uint64_t v2, uint32_t slot, \
						bool absent)                          \
	{                                                                             \
		slot = hist__slot_settle(h->cpus, h->nr_cpus, slot);                  \
		if (!drop_absent(h, slot, absent))                                    \
			insert(h, &k, v1, v2, slot, NULL, NV);                        \
	}
HIT_INS(1)
HIT_INS(2)
HIT_INS(3)
/* The insert half for a hit through the slot of CPU that the calling
 * thread does not own (another thread's, or one to claim). */
#define HIT_UNOWNED(NV)                                                               \
	static HIST__NOINLINE void hit_unowned_##NV(struct hist__hist *h, uint64_t k, \
						    uint64_t v1, uint64_t v2, uint32_t cpu) \
	{                                                                             \
		hit_ins_##NV(h, k, v1, v2, hist__slot_peek(h->cpus, h->nr_cpus, cpu),  \
			     false);                                                  \
	}
HIT_UNOWNED(1)
HIT_UNOWNED(2)
static void (*const hit_unowned[2])(struct hist__hist *h, uint64_t k, uint64_t v1, uint64_t v2,
				    uint32_t cpu) = { hit_unowned_1, hit_unowned_2 };
static void (*const hit_ins[HIST__VALS_MAX])(struct hist__hist *h, uint64_t k, uint64_t v1,
					     uint64_t v2, uint32_t slot, bool absent) = {
	hit_ins_1, hit_ins_2, hit_ins_3
};

/*
 * The rest of a hit of the FIRST32 and LINE32 variants whose key was not
 * found by their first look: the whole first try again, then the insert
 * half.
 */
#define HIT_REST(NV)                                                                  \
	static HIST__NOINLINE void hit_rest_##NV(struct hist__hist *h, uint64_t k,    \
						 uint64_t v1, uint32_t slot)          \
	{                                                                             \
		uint64_t v_[HIST__VALS_MAX] = { 0, v1, 0 }, *sums_;                   \
		bool absent_ = false;                                                 \
                                                                                      \
		sums_ = simple_find(h, k, slot, &absent_);                            \
		if (!sums_) {                                                         \
			hit_ins_##NV(h, k, v1, 0, slot, absent_);                     \
			return;                                                       \
		}                                                                     \
		simple_add(sums_, NV, v_);                                            \
	}
HIT_REST(1)
HIT_REST(2)
static void (*const hit_rest[2])(struct hist__hist *h, uint64_t k, uint64_t v1,
				 uint32_t slot) = { hit_rest_1, hit_rest_2 };

/* How the variants look for a key before the out-of-line halves. */
enum look {
	LOOK_PROBES,	/* hist__map_find_owned() through simple_find() */
	LOOK_FIRST32,	/* hist__map_first_owned32() */
	LOOK_LINE32,	/* hist__map_first_line32() */
	LOOK_SHARED,	/* hist__map_find_shared(): shared sums, atomic adds */
};

static HIST__ALWAYS_INLINE void hit_variant(const struct hist__tlist *tl, const uint8_t *rec,
					    size_t len, const struct hist_hit *hit,
					    const uint32_t nv, const enum rd_kind key,
					    const enum rd_kind val, const bool filtered,
					    const enum look look,
					    void (*short_rec)(struct hist__hist *h,
							      const uint8_t *rec, size_t len,
							      const struct hist_hit *hit))
{
	struct hist__hist *h = tl->fast->hist;
	uint64_t k, v[HIST__VALS_MAX] = { 0 }, *sums;
	bool absent = false, pass = true;
	uint32_t slot;

	/* relaxed: as in hist__triggers_run() */
	if (hist__unlikely(hist__load_relaxed(&tl->fast->paused)))
		return;
	/* rec is not NULL here (hist_event_hit()), the filter plain */
	if (filtered)
		pass = hist__filter_match_plain(tl->fast->filter, rec, len);
	if (hist__unlikely(len < h->rd_end)) {
		if (pass)
			short_rec(h, rec, len, hit);
		return;
	}
	simple_read(h, rec, nv, key, val, &k, v);
	if (look == LOOK_SHARED) {
		if ((!filtered || pass) && hist__unlikely(!shared_hit(h, k, nv, v, &absent)))
			/* a slot not owned yet is claimed by the insert half */
			hit_ins[nv - 1](h, k, v[1], v[2],
					hist__slot_peek(h->cpus, h->nr_cpus, hit->cpu), absent);
		return;
	}
	if (look != LOOK_PROBES) {
		/* a cpu past the slots (folded onto one) goes out of line
		 * too: a hit of the common case computes no remainder */
		slot = hit->cpu;
		if (hist__likely(slot < h->nr_cpus) &&
		    hist__likely(hist__slot_mine(&h->cpus[slot]))) {
			const struct hist__cpu *c = &h->cpus[slot];

			/* Acquire: pairs with the release in hist__hist_clear().
			 * Relaxed: HOME, a mode word (hist__map_not_home()). */
			struct hist_map *map = hist__load_acquire(&h->map);
			uint32_t home = hist__load_relaxed(&c->home);

			sums = look == LOOK_LINE32
				       ? hist__map_first_line32(map, k, slot, home, nv, &absent)
				       : hist__map_first_owned32(map, k, slot, home, nv, &absent);
			if (hist__likely(sums != NULL)) {
				/*
				 * A record the filter rejects got here too, and
				 * adds 0: whether a filter passes is a coin toss
				 * for the branch predictor on many workloads,
				 * and a mispredicted branch costs more than a
				 * lookup in a table in cache (the filter row:
				 * 11.7 -> 7.7 ns per event).
				 */
				simple_add_if(sums, nv, v, pass);
				return;
			}
			if (filtered && !pass)
				return;
			if (absent)
				hit_ins[nv - 1](h, k, v[1], v[2], slot, true);
			else
				hit_rest[nv - 1](h, k, v[1], slot);
			return;
		}
		if (filtered && !pass)
			return;
		/* another thread's slot, one not owned yet (claimed by the
		 * insert half), or a cpu past the slots */
		hit_unowned[nv - 1](h, k, v[1], v[2], hit->cpu);
		return;
	}
	if (filtered && !pass)
		return;
	/* a slot not owned yet is claimed by the insert half */
	slot = hist__slot_peek(h->cpus, h->nr_cpus, hit->cpu);
	if (hist__unlikely(slot >= HIST__SLOT_FREE) ||
	    hist__unlikely(!(sums = simple_find(h, k, slot, &absent)))) {
		hit_ins[nv - 1](h, k, v[1], v[2], slot, absent);
		return;
	}
	simple_add(sums, nv, v);
}

#define SIMPLE_HIT(K, V, NV)                                                          \
	static HIST__NOINLINE void hit_##K##_##V##_##NV##_short(                      \
		struct hist__hist *h, const uint8_t *rec, size_t len,                 \
		const struct hist_hit *hit)                                           \
	{                                                                             \
		uint32_t slot_ = hist__slot_own(h->cpus, h->nr_cpus, hit->cpu);       \
                                                                                      \
		hit_simple_insert(h, rec, len, hit, slot_, NV, RD_##K, RD_##V);       \
	}                                                                             \
	static void hit_##K##_##V##_##NV(const struct hist__tlist *tl, const uint8_t *rec, \
					 size_t len, const struct hist_hit *hit)      \
	{                                                                             \
		hit_variant(tl, rec, len, hit, NV, RD_##K, RD_##V, false, LOOK_PROBES, \
			    hit_##K##_##V##_##NV##_short);                            \
	}
/* The same for a map of 32-byte slots (hist__map_slots32()) with LOOK
 * (SUFFIX _32: FIRST32, _L2: LINE32), sharing the short half. */
#define SIMPLE_HIT32(K, V, NV, LOOK, SUFFIX)                                          \
	static void hit_##K##_##V##_##NV##SUFFIX(const struct hist__tlist *tl,        \
						 const uint8_t *rec, size_t len,      \
						 const struct hist_hit *hit)          \
	{                                                                             \
		hit_variant(tl, rec, len, hit, NV, RD_##K, RD_##V, false, LOOK,       \
			    hit_##K##_##V##_##NV##_short);                            \
	}
#define SIMPLE_HITS(K, V)                                                             \
	SIMPLE_HIT(K, V, 1) SIMPLE_HIT(K, V, 2) SIMPLE_HIT(K, V, 3)                   \
	SIMPLE_HIT32(K, V, 1, LOOK_FIRST32, _32) SIMPLE_HIT32(K, V, 2, LOOK_FIRST32, _32) \
	SIMPLE_HIT32(K, V, 1, LOOK_LINE32, _L2) SIMPLE_HIT32(K, V, 2, LOOK_LINE32, _L2) \
	SIMPLE_HIT32(K, V, 1, LOOK_SHARED, _SH) SIMPLE_HIT32(K, V, 2, LOOK_SHARED, _SH) \
	SIMPLE_HIT32(K, V, 3, LOOK_SHARED, _SH)
SIMPLE_HITS(ANY, ANY)
SIMPLE_HITS(ANY, U64)
SIMPLE_HITS(U64, ANY)
SIMPLE_HITS(U64, U64)
SIMPLE_HITS(S32, ANY)
SIMPLE_HITS(S32, U64)

/*
 * [key kind][value kind][nr_vals - 1, then 3 + nr_vals - 1 for 32-byte
 * slots, 5 + nr_vals - 1 for LINE32, 7 + nr_vals - 1 for shared sums]:
 * three values never fit a 32-byte slot beside the key.
 */
#define SIMPLE_ROW(K, V)                                                              \
	{ hit_##K##_##V##_1, hit_##K##_##V##_2, hit_##K##_##V##_3,                    \
	  hit_##K##_##V##_1_32, hit_##K##_##V##_2_32,                                 \
	  hit_##K##_##V##_1_L2, hit_##K##_##V##_2_L2,                                 \
	  hit_##K##_##V##_1_SH, hit_##K##_##V##_2_SH, hit_##K##_##V##_3_SH }
static const hist__tlist_hit_fn simple_hits[3][2][10] = {
	[RD_ANY] = { SIMPLE_ROW(ANY, ANY), SIMPLE_ROW(ANY, U64) },
	[RD_U64] = { SIMPLE_ROW(U64, ANY), SIMPLE_ROW(U64, U64) },
	[RD_S32] = { SIMPLE_ROW(S32, ANY), SIMPLE_ROW(S32, U64) },
};

/* The filtered variants: one per number of values, any field sizes (a
 * filter's own reads cost more than the sizes' tests), sharing the
 * halves of the unfiltered ANY variants; indexed as a row above. */
#define FILTERED_HIT(NV, LOOK, SUFFIX)                                                \
	static void hit_filtered_##NV##SUFFIX(const struct hist__tlist *tl,           \
					      const uint8_t *rec, size_t len,         \
					      const struct hist_hit *hit)             \
	{                                                                             \
		hit_variant(tl, rec, len, hit, NV, RD_ANY, RD_ANY, true, LOOK,        \
			    hit_ANY_ANY_##NV##_short);                                \
	}
FILTERED_HIT(1, LOOK_PROBES, )
FILTERED_HIT(2, LOOK_PROBES, )
FILTERED_HIT(3, LOOK_PROBES, )
FILTERED_HIT(1, LOOK_FIRST32, _32)
FILTERED_HIT(2, LOOK_FIRST32, _32)
FILTERED_HIT(1, LOOK_LINE32, _L2)
FILTERED_HIT(2, LOOK_LINE32, _L2)
FILTERED_HIT(1, LOOK_SHARED, _SH)
FILTERED_HIT(2, LOOK_SHARED, _SH)
FILTERED_HIT(3, LOOK_SHARED, _SH)
static const hist__tlist_hit_fn filtered_hits[10] = {
	hit_filtered_1,	   hit_filtered_2,    hit_filtered_3,	 hit_filtered_1_32,
	hit_filtered_2_32, hit_filtered_1_L2, hit_filtered_2_L2, hit_filtered_1_SH,
	hit_filtered_2_SH, hit_filtered_3_SH,
};

static enum rd_kind rd_kind_of(const struct hist__rd *rd)
{
	if (rd->size == 8)
		return RD_U64;
	if (rd->size == 4 && rd->is_signed)
		return RD_S32;
	return RD_ANY;
}

bool hist__hist_simple(struct hist__hist *h)
{
	enum rd_kind val = RD_U64;
	uint32_t i, col;

	if (!h->single_int_key || !plain_aggregation(h) || !set_rd(&h->rd_key, h->keys[0]))
		return false;
	h->rd_end = h->rd_key.end;
	if (!set_val_rds(h, &h->rd_end))
		return false;
	for (i = 1; i < h->nr_vals; i++)
		if (rd_kind_of(&h->rd_vals[i]) != RD_U64)
			val = RD_ANY;
	/* The map is made at setup and a clear makes the next one alike. */
	col = h->nr_vals - 1 + (h->shared_sums		   ? 7
				: hist__map_line2(h->map)  ? 5
				: hist__map_slots32(h->map) ? 3
							    : 0);
	h->hit_fast = simple_hits[rd_kind_of(&h->rd_key)][val == RD_U64][col];
	h->hit_filtered = filtered_hits[col];
	h->cpus = h->ev->ctx->cpus;
	h->nr_cpus = h->ev->ctx->opts.nr_cpus;
	return true;
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
