/* SPDX-License-Identifier: MIT */
/*
 * Contenders "libhist", "libhist_pcpu", "libhist_shared", "hist_map" and
 * "map_atomic".
 *
 * libhist: the real path.  The host describes the record as an event,
 *   writes a hist trigger command with hist_trigger_parse() (untimed) and
 *   feeds every record through hist_event_hit(): trigger list, filter,
 *   key and value fields compiled from the command, the map, the sums.
 *   The read-out goes through the public printer too: the `hist` file text
 *   is parsed back (entries, per-entry hitcount and value, Totals), so the
 *   verification covers what a user would read.  Its context keeps the
 *   default HIST_SUMS_AUTO: per-cpu sums in maps of the kernel's sizes
 *   (size= up to 2^17), shared ones in the rows' larger maps (2^20).
 *
 * libhist_pcpu, libhist_shared: the same real path with hist_ctx_opts.sums
 *   set to HIST_SUMS_PER_CPU and HIST_SUMS_SHARED in every row.  Shared is
 *   the kernel's layout of the sums (in the entry, updated with locked
 *   adds by every thread, no per-cpu copies): 64 bytes per entry.
 *
 * hist_map: libhist's map alone (src/map, internal API) with per-cpu sums,
 *   the same key bytes and sums, each thread owning its cpu slot: what the
 *   map costs without the trigger machinery around it.
 *
 * map_atomic: the map alone with the shared layout.
 */
#include <stdio.h>
#include <stdlib.h>

#include "libhist.h"
#include "hist_synth.h"
#include "map/map.h"

#include "bench.h"

/* The record as a host describes it to libhist. */
static const struct hist_field_desc rec_fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	{ "key", "u64", 8, 8, 0, HIST_FIELD_INT },
	{ "comm", "char[16]", 16, 16, 1, HIST_FIELD_STRING },
	{ "val", "u64", 32, 8, 0, HIST_FIELD_INT },
	{ "k2", "u32", 40, 4, 0, HIST_FIELD_INT },
	{ "k3", "u32", 44, 4, 0, HIST_FIELD_INT },
	{ "ts", "u64", 48, 8, 0, HIST_FIELD_INT },
	{ "flt", "u32", 56, 4, 0, HIST_FIELD_INT },
};

#define LH_THREADS_MAX 64

struct lh {
	hist_ctx *ctx;
	hist_event *ev;		/* the plain event, or the chain's "wake" */
	hist_event *ev_switch;	/* chain: second event */
	hist_event *ev_out;	/* the event whose hist is read out */
	const char *val_name;	/* value column to sum at read-out */
	struct lh_thread {
		hist_event *ev, *ev_switch;
		struct hist_hit hit;
	} *th[LH_THREADS_MAX];
};

static bool lh_supports(const struct bench_workload *w, const char **why)
{
	(void)w;
	(void)why;
	return true;
}

static int define_event(hist_ctx *ctx, const char *name, hist_event **out)
{
	struct hist_event_desc d = {
		.system = "bench",
		.name = name,
		.fields = rec_fields,
		.nr_fields = sizeof(rec_fields) / sizeof(rec_fields[0]),
	};

	return hist_event_define(ctx, &d, out);
}

static int parse(hist_event *ev, const char *cmd, const char **why)
{
	static char msg[1024];
	struct hist_error err = { 0 };
	int ret = hist_trigger_parse(ev, cmd, &err);

	if (ret) {
		snprintf(msg, sizeof(msg), "hist_trigger_parse(\"%s\") = %d (msg %d at %u)",
			 cmd, ret, err.msg, err.pos);
		*why = msg;
	}
	return ret;
}

/*
 * Above 2^17 entries the row needs the host's opt-in; check that without
 * it the command fails as the kernel's does (size= beyond the cap).
 */
static int check_default_cap(uint32_t capacity, const char **why)
{
	hist_ctx *ctx = hist_ctx_create(NULL, NULL, NULL);
	hist_event *ev = NULL;
	char cmd[128];
	int ret;

	if (!ctx || define_event(ctx, "rec", &ev)) {
		*why = "hist_ctx_create failed";
		hist_ctx_destroy(ctx);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "hist:keys=key:vals=hitcount,val:size=%u", capacity);
	ret = hist_trigger_parse(ev, cmd, NULL);
	hist_ctx_destroy(ctx);
	if (ret != -HIST_EINVAL) {
		*why = "size= above 2^17 must fail (EINVAL) without max_map_bits";
		return -1;
	}
	return 0;
}

static struct hist_ctx *new_ctx(const struct bench_cfg *cfg, uint32_t sums, const char **why)
{
	struct hist_ctx_opts opts = { .sums = sums };
	int err;
	hist_ctx *ctx;

	/* The opt-in above the kernel's 2^17 cap, only when the row needs it. */
	if (cfg->w->map_bits > 17) {
		if (check_default_cap(cfg->capacity, why))
			return NULL;
		opts.max_map_bits = cfg->w->map_bits;
	}
	opts.nr_cpus = (uint32_t)(cfg->nr_cpus > cfg->nthreads ? cfg->nr_cpus : cfg->nthreads);
	ctx = hist_ctx_create(NULL, &opts, &err);
	if (!ctx)
		*why = "hist_ctx_create failed";
	return ctx;
}

/*
 * The chain: "wake" stores a time stamp per key, "switch" computes the
 * latency from it (consuming it) and generates synthetic event lat_ev,
 * whose own hist sums the latencies per key.
 */
static int chain_setup(struct lh *m, const struct bench_cfg *cfg, const char **why)
{
	char cmd[512];
	struct hist_error err = { 0 };

	if (define_event(m->ctx, "wake", &m->ev) ||
	    define_event(m->ctx, "switch", &m->ev_switch)) {
		*why = "hist_event_define failed";
		return -1;
	}
	if (hist_synth_parse(m->ctx, "lat_ev u64 key; u64 lat", 0, &err)) {
		*why = "n/a (synthetic events not available)";
		return -1;
	}
	m->ev_out = hist_synth_event_get(m->ctx, "lat_ev");
	if (!m->ev_out) {
		*why = "hist_synth_event_get(lat_ev) failed";
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "hist:keys=key:vals=hitcount,lat:size=%u", cfg->capacity);
	if (parse(m->ev_out, cmd, why))
		return -1;
	snprintf(cmd, sizeof(cmd), "hist:keys=key:ts0=common_timestamp:size=%u",
		 cfg->capacity);
	if (parse(m->ev, cmd, why))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "hist:keys=key:lat=common_timestamp-$ts0:"
		 "onmatch(bench.wake).trace(lat_ev,key,$lat):size=%u", cfg->capacity);
	if (parse(m->ev_switch, cmd, why)) {
		*why = "n/a (actions not available)";
		return -1;
	}
	m->val_name = "lat";
	return 0;
}

static void lh_destroy(void *map)
{
	struct lh *m = map;
	int i;

	if (m->ev_out && m->ev_out != m->ev)
		hist_synth_event_put(m->ev_out);
	hist_ctx_destroy(m->ctx);
	for (i = 0; i < LH_THREADS_MAX; i++)
		free(m->th[i]);
	free(m);
}

static void *lh_create_sums(const struct bench_cfg *cfg, uint32_t sums, const char **why)
{
	static const char *const keys[] = {
		[BK_U64] = "key", [BK_COMM] = "comm", [BK_KEY3] = "key,k2,k3",
	};
	struct lh *m = calloc(1, sizeof(*m));
	char cmd[256];

	if (!m)
		bench_die("out of memory");
	m->ctx = new_ctx(cfg, sums, why);
	if (!m->ctx)
		goto fail;
	if (cfg->w->kind == WK_CHAIN) {
		if (chain_setup(m, cfg, why))
			goto fail;
		return m;
	}
	if (define_event(m->ctx, "rec", &m->ev)) {
		*why = "hist_event_define failed";
		goto fail;
	}
	snprintf(cmd, sizeof(cmd), "hist:keys=%s:vals=hitcount,val:size=%u%s",
		 keys[cfg->w->key], cfg->capacity,
		 cfg->w->filter ? " if flt < 512" : "");
	if (parse(m->ev, cmd, why))
		goto fail;
	m->ev_out = m->ev;
	m->val_name = "val";
	return m;
fail:
	lh_destroy(m);
	return NULL;
}

static void *lh_thread_init(void *map, int tid)
{
	struct lh *m = map;
	struct lh_thread *t = calloc(1, sizeof(*t));

	if (!t)
		bench_die("out of memory");
	t->ev = m->ev;
	t->ev_switch = m->ev_switch;
	t->hit.cpu = (uint32_t)tid;
	t->hit.pid = -1;	/* common_pid of the record */
	t->hit.comm = "hist-bench";
	m->th[tid] = t;
	return t;
}

static void lh_hit(void *h, const struct brec *r)
{
	struct lh_thread *t = h;

	hist_event_hit(t->ev, r, sizeof(*r), &t->hit);
}

static void lh_hit_chain(void *h, const struct brec *r)
{
	struct lh_thread *t = h;

	t->hit.ts = r->ts;
	hist_event_hit(r->common_type == BREC_TYPE_WAKE ? t->ev : t->ev_switch,
		       r, sizeof(*r), &t->hit);
}

static bench_hit_fn lh_pick(const struct bench_workload *w)
{
	return w->kind == WK_CHAIN ? lh_hit_chain : lh_hit;
}

/* The `hist` file text, in a growing buffer. */
struct textbuf {
	char *p;
	size_t len, cap;
};

static int tb_write(void *arg, const char *buf, size_t len)
{
	struct textbuf *b = arg;

	if (b->len + len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		char *p;

		while (b->len + len + 1 > cap)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -HIST_ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, buf, len);
	b->len += len;
	b->p[b->len] = 0;
	return 0;
}

/* Number after "NAME: " in LINE (NULL if absent). */
static bool field_u64(const char *line, const char *name, uint64_t *v)
{
	const char *p = strstr(line, name);

	if (!p)
		return false;
	p += strlen(name);
	while (*p == ' ')
		p++;
	*v = strtoull(p, NULL, 10);
	return true;
}

int bench_parse_hist(const char *text, const char *val_name,
		     struct bench_readout *o, const char **why)
{
	char vname[64];
	const char *line = text;
	uint64_t entries_total = UINT64_MAX;
	bool have_hits = false, have_drops = false;

	snprintf(vname, sizeof(vname), " %s:", val_name);
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		uint64_t v;

		if (line[0] == '{') {
			const char *close = strchr(line, '}');

			if (!close || !field_u64(close, "hitcount:", &v)) {
				*why = "hist text: entry without hitcount";
				return -1;
			}
			o->entries++;
			o->hits += v;
			if (!field_u64(close, vname, &v)) {
				*why = "hist text: entry without the value column";
				return -1;
			}
			o->sum += v;
		} else if (!strncmp(line, "    Hits:", 9)) {
			have_hits = field_u64(line, "Hits:", &o->total_hits);
		} else if (!strncmp(line, "    Entries:", 12)) {
			field_u64(line, "Entries:", &entries_total);
		} else if (!strncmp(line, "    Dropped:", 12)) {
			have_drops = field_u64(line, "Dropped:", &o->drops);
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!have_hits || !have_drops || entries_total != o->entries) {
		*why = "hist text: Totals missing or Entries differs from the lines";
		return -1;
	}
	return 0;
}

static int lh_read_out(void *map, struct bench_readout *o, const char **why)
{
	struct lh *m = map;
	struct textbuf b = { 0 };
	int ret;

	ret = hist_event_print_hist(m->ev_out, tb_write, &b);
	if (ret || !b.p) {
		*why = "hist_event_print_hist failed";
		free(b.p);
		return -1;
	}
	ret = bench_parse_hist(b.p, m->val_name, o, why);
	free(b.p);
	return ret;
}

static void *lh_create(const struct bench_cfg *cfg, const char **why)
{
	return lh_create_sums(cfg, HIST_SUMS_AUTO, why);
}

static void *lh_create_pcpu(const struct bench_cfg *cfg, const char **why)
{
	return lh_create_sums(cfg, HIST_SUMS_PER_CPU, why);
}

static void *lh_create_shared(const struct bench_cfg *cfg, const char **why)
{
	return lh_create_sums(cfg, HIST_SUMS_SHARED, why);
}

/* The three libhist rows differ only in hist_ctx_opts.sums. */
#define LH_CONTENDER(VAR, NAME, CREATE)                                                  \
	const struct bench_contender VAR = {                                             \
		.name = NAME,                                                            \
		.supports = lh_supports,                                                 \
		.create = CREATE,                                                        \
		.thread_init = lh_thread_init,                                           \
		.hit_fn = lh_pick,                                                       \
		.read_out = lh_read_out,                                                 \
		.destroy = lh_destroy,                                                   \
	};
LH_CONTENDER(bench_libhist, "libhist", lh_create)
LH_CONTENDER(bench_libhist_pcpu, "libhist_pcpu", lh_create_pcpu)
LH_CONTENDER(bench_libhist_shared, "libhist_shared", lh_create_shared)

/* ---- the map alone --------------------------------------------------- */

struct hm {
	struct hist_map *map;
	struct hm_thread {
		struct hist_map *map;
		uint32_t cpu;
	} th[LH_THREADS_MAX];
};

static void *hm_create_sums(const struct bench_cfg *cfg, const char **why, bool pcpu)
{
	struct hist_map_params p = { 0 };
	struct hm *m = bench_zalloc(sizeof(*m));

	p.bits = cfg->w->map_bits;
	p.key_size = 8 * bench_key_words(cfg->w->key);
	p.nr_sums = 2;
	p.nr_cpus = (uint32_t)(cfg->nr_cpus > cfg->nthreads ? cfg->nr_cpus : cfg->nthreads);
	p.pcpu_sums = pcpu;
	m->map = hist__map_create(&p);
	if (!m->map) {
		*why = "hist__map_create failed";
		bench_free(m);
		return NULL;
	}
	return m;
}

static void *hm_create(const struct bench_cfg *cfg, const char **why)
{
	return hm_create_sums(cfg, why, true);
}

static void *hm_create_atomic(const struct bench_cfg *cfg, const char **why)
{
	return hm_create_sums(cfg, why, false);
}

static void *hm_thread_init(void *map, int tid)
{
	struct hm *m = map;

	m->th[tid].map = m->map;
	m->th[tid].cpu = (uint32_t)tid;
	return &m->th[tid];
}

/* The insert, then ADD(thread, element, record) on success. */
#define HM_INSERT(h, r, K, ADD)						\
	do {								\
		struct hm_thread *t_ = (h);				\
		uint64_t k_[BENCH_KEY_WORDS_MAX];			\
		struct hist_map_elt *e_;				\
									\
		bench_key_read(K, r, k_);				\
		e_ = hist__map_insert_cpu(t_->map, k_, t_->cpu, NULL);	\
		if (e_)							\
			ADD(t_, e_, r);					\
	} while (0)

/* Per-cpu sums: the thread's own slot, plain adds. */
#define HM_ADD_PCPU(t, e, r)						\
	do {								\
		uint64_t *s_ = hist__map_sums_of((t)->map, e, (t)->cpu); \
									\
		hist__map_sums_add(s_, 0, 1, true);			\
		hist__map_sums_add(s_, 1, (r)->val, true);		\
	} while (0)

/* The kernel's layout: locked adds on the element's sums. */
#define HM_ADD_ATOMIC(t, e, r)						\
	do {								\
		hist__map_sum_add((t)->map, e, 0, 1);			\
		hist__map_sum_add((t)->map, e, 1, (r)->val);		\
	} while (0)

#define HM_BODY(h, r, K) HM_INSERT(h, r, K, HM_ADD_PCPU)
#define HM_ATOMIC_BODY(h, r, K) HM_INSERT(h, r, K, HM_ADD_ATOMIC)

BENCH_HIT_VARIANTS(hm_hit, HM_BODY)
BENCH_HIT_VARIANTS(hm_atomic_hit, HM_ATOMIC_BODY)

static int hm_read_out(void *map, struct bench_readout *o, const char **why)
{
	struct hm *m = map;
	uint32_t cap = hist__map_capacity(m->map), n, i;
	struct hist_map_elt **elts = malloc(sizeof(*elts) * cap);

	(void)why;
	if (!elts)
		bench_die("out of memory");
	n = hist__map_collect(m->map, elts, cap);
	for (i = 0; i < n; i++) {
		o->hits += hist__map_sum(m->map, elts[i], 0);
		o->sum += hist__map_sum(m->map, elts[i], 1);
	}
	free(elts);
	o->entries = n;
	o->drops = hist__map_drops(m->map);
	o->total_hits = hist__map_hits(m->map);
	if (hist__map_entries(m->map) != n) {
		*why = "hist_map: entries counter differs from the collected elements";
		return -1;
	}
	return 0;
}

static void hm_destroy(void *map)
{
	struct hm *m = map;

	hist__map_destroy(m->map);
	bench_free(m);
}

const struct bench_contender bench_libhist_map = {
	.name = "hist_map",
	.supports = bench_supports_plain,
	.create = hm_create,
	.thread_init = hm_thread_init,
	.hit_fn = hm_hit_pick,
	.read_out = hm_read_out,
	.destroy = hm_destroy,
};

const struct bench_contender bench_libhist_map_atomic = {
	.name = "map_atomic",
	.supports = bench_supports_plain,
	.create = hm_create_atomic,
	.thread_init = hm_thread_init,
	.hit_fn = hm_atomic_hit_pick,
	.read_out = hm_read_out,
	.destroy = hm_destroy,
};
