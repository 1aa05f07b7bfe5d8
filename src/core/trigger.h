/* SPDX-License-Identifier: MIT */
/*
 * Triggers attached to an event: the hist trigger and the generic ones
 * (traceon/traceoff, snapshot, stacktrace, enable/disable_event,
 * enable/disable_hist), their list per event, and the compiled hist
 * ("hist_data" in the kernel) that the parser builds.
 *
 * Concurrency (the trigger lists; map.c's contract covers the tables):
 * 1. An event's control list (ev->trig_head) and every trigger and hist
 *    on it are edited by the control thread only.
 * 2. After each edit hist__triggers_publish() builds a new list header
 *    (struct hist__tlist) and stores it in ev->triggers with a release;
 *    a hit loads it with an acquire, so every trigger it reaches, and
 *    everything they point to, is complete.  The header's entries are
 *    the first N of an array the event's lists share (core/index.c): an
 *    append writes entry N, which no published list reads, before the
 *    release; a removal turns the trigger's entry into &hist__tombstone
 *    (relaxed store, relaxed loads by the hits; a tombstone is paused, so
 *    every walk skips it).  A hit never sees a half-built trigger.
 * 3. What an edit drops (the old header, an array replaced when it
 *    grows or is compacted, a removed trigger and its hist, a cleared
 *    table) is retired, not freed: hist__retire() frees it once no hit
 *    can still hold it.
 * 4. A hit writes only atomics of a trigger: COUNT (a CAS, so concurrent
 *    hits never take more than the count), the tables' words (map.c),
 *    the actions' tracked values and snapshot (actions.c).  PAUSED is a
 *    relaxed word: a hit may see a pause a little late.  HIT_FILTER is
 *    a relaxed pointer the control thread rewrites when the event's
 *    host_filtered changes: a hit may evaluate a filter a little long.
 * 5. A clear swaps hist->map with a release store; hits load it with an
 *    acquire (hist__hist_clear()).
 *
 * Layers (README "Architecture"): common < map schema < filter expr <
 * [core] < synth < actions < parse output < api < ftrace.
 * core/ calls expr/, filter/, map/, schema/, common/; actions and
 * variables through ops tables.
 */
#ifndef HIST_TRIGGER_H
#define HIST_TRIGGER_H

#include "core/ctx.h"
#include "expr/expr.h"
#include "map/map.h"

#define HIST__KEYS_MAX 3
#define HIST__VALS_MAX 3	 /* hitcount + 2 */
#define HIST__VARS_MAX 16
#define HIST__SORT_MAX 2
#define HIST__ACTIONS_MAX 8
#define HIST__KEY_SIZE_MAX 384
#define HIST__REFS_MAX 16

enum hist__tkind {
	HIST__T_HIST,
	HIST__T_TRACEON,
	HIST__T_TRACEOFF,
	HIST__T_SNAPSHOT,
	HIST__T_STACKTRACE,
	HIST__T_ENABLE_EVENT,
	HIST__T_DISABLE_EVENT,
	HIST__T_ENABLE_HIST,
	HIST__T_DISABLE_HIST,
};

struct hist__sort_key {
	int32_t val_idx;	/* >= 0: sum column; -1: key */
	int32_t key_idx;
	bool descending;
};

struct hist__action;
struct hist__hist;

/*
 * What the runtime needs of a hist's actions, as an ops table on the hist
 * (filled by the parser from actions/): the kernel reaches a trigger's
 * actions through data->fn the same way.  core/ calls down only through
 * it, so actions/ (and synth/, which the actions emit into) sit above
 * core/.  Every hook takes the whole hist: the actions live in its
 * actions[], fvars[] and save_vars[].
 */
struct hist__action_ops {
	/* Hot path, after H's element ELT (KEY) is updated: the field
	 * variables, then every action.  Never allocates or blocks. */
	void (*run)(const struct hist__hist *h, struct hist__eval *e,
		    struct hist_map_elt *elt, const uint8_t *key);
	/* Same actions: part of a trigger's identity. */
	bool (*match)(const struct hist__hist *a, const struct hist__hist *b);
	/* Undo their effects on other objects when H's trigger is removed. */
	void (*release)(struct hist__hist *h);
	/* Free H's actions and action variables (with H). */
	void (*free)(struct hist__hist *h);
};

/* A hidden variable that holds an event field for actions: updated on
 * every hit (action params) or when a track handler fires (save()). */
struct hist__fvar {
	struct hist__field *val;	/* the field read from the record */
	char *name;			/* printed name (the field's) */
	int32_t slot;			/* variable slot in the element */
	uint32_t str_off;		/* text storage in the element, if string */
};
#define HIST__FVARS_MAX 64

/* A group of triggers sharing one table through name=. */
struct hist__named {
	struct hist__named *next;	/* in its bucket (index.c) */
	char *name;
	uint32_t hash;			/* of NAME */
	struct hist_map *map;
	uint32_t refs;
	struct hist__hist *first;	/* defines the layout */
};

struct hist__tlist;
/* hist_event_hit() of one published trigger list (hist__tlist.hit). */
typedef void (*hist__tlist_hit_fn)(const struct hist__tlist *tl, const uint8_t *rec,
				   size_t len, const struct hist_hit *hit);

/* The compiled hist trigger. */
struct hist__hist {
	struct hist__trigger *t;
	struct hist_event *ev;
	struct hist__field *vals[HIST__VALS_MAX];	/* [0] = hitcount */
	uint32_t nr_vals;
	struct hist__field *keys[HIST__KEYS_MAX];
	uint32_t nr_keys;
	struct hist__field *vars[HIST__VARS_MAX];	/* user variables */
	uint32_t nr_vars;
	/* distinct variable references (non-owning: the fields live in the
	 * expression trees); ref_once: some use is an expression operand,
	 * which consumes the variable when read */
	struct hist__field *refs[HIST__REFS_MAX];
	bool ref_once[HIST__REFS_MAX];
	uint32_t nr_refs;
	struct hist__sort_key sort[HIST__SORT_MAX];
	uint32_t nr_sort;
	const struct hist__action_ops *aops;	/* never NULL once parsed */
	struct hist__action *actions[HIST__ACTIONS_MAX];
	uint32_t nr_actions;
	struct hist__fvar *fvars[HIST__FVARS_MAX];	/* action params */
	uint32_t nr_fvars;
	struct hist__fvar *save_vars[HIST__FVARS_MAX];	/* save() params */
	uint32_t nr_save_vars;
	uint32_t nr_hidden_slots;		/* track vars and field vars */
	/* hists created on other events for field variables (removed
	 * with this one) */
	struct hist__trigger *var_hists[HIST__FVARS_MAX];
	uint32_t nr_var_hists;
	bool has_self_refs;
	/* a reference to a string or stack variable: each hit copies it
	 * out of its seqlocked slot first (core/sslot.h, hist__resolve_refs) */
	bool has_text_refs;
	uint32_t key_size;
	uint32_t map_bits;
	char *cmd;			/* the command's params as written */
	char *name;			/* name= value, or NULL */
	char *clock;			/* clock= value (default "global") */
	bool nohitcount;
	bool uses_ts;			/* common_timestamp anywhere */
	bool ts_usecs;			/* ... and .usecs anywhere */
	bool needs_comm;		/* .execname: save comm per element */
	bool single_int_key;		/* one 8-byte numeric key */
	bool shared_sums;		/* its map keeps no per-cpu sums (HIST_SUMS_*) */
	/* element payload layout */
	uint32_t payload_size;
	uint32_t var_off;		/* u64 values of variables */
	uint32_t var_set_off;		/* u64 bitmap: which are set */
	uint32_t comm_off;		/* saved comm (execname) */
	uint32_t nr_var_slots;
	struct hist_map *map;		/* own or the named group's */
	struct hist__named *group;
	/* references to this hist's variables from the other hists in
	 * their events' control lists (index.c): a removal is refused
	 * while nonzero */
	uint32_t nr_referrers;
	/* this hist's variables in its event's index (index.c), while its
	 * trigger is registered */
	struct hist__var_link {
		struct hist__var_link *next;
		struct hist__hist *h;
		uint32_t hash;
		int32_t idx;
	} var_links[HIST__VARS_MAX];
	/* the variants (variants.c): key and values read straight from the record */
	struct hist__rd {
		uint64_t end;		/* off + size: the record length needed */
		uint32_t off;
		uint8_t size;
		bool is_signed;
	} rd_key, rd_vals[HIST__VALS_MAX];
	uint64_t rd_end;	/* the largest END of those: one length check */
	/* the wide variants: the parts of a key wider than 8 bytes, read
	 * straight from the record into the key's bytes */
	struct hist__kpart {
		struct hist__rd rd;	/* an integer part; a string's OFF */
		uint32_t key_off;	/* where the part starts in the key */
		uint32_t str_max;	/* a string: bytes kept at most; 0: integer */
	} kparts[HIST__KEYS_MAX];
	uint32_t key_words;	/* the key's size in u64 words */
	/* the hit variant its event's published list uses for it (NULL:
	 * the general hit), for hist_debug; and, for the variants, its
	 * context's cpu slots (copied here, next to what a hit reads) */
	const struct hist__variant *variant;
	struct hist__cpu *cpus;
	uint32_t nr_cpus;
};

struct hist__trigger {
	enum hist__tkind kind;
	struct hist_event *ev;
	struct hist_filter *filter;
	/* the filter the hits evaluate: FILTER, or NULL while the event is
	 * host_filtered (the host applied it); set by hist__tlist_add() and
	 * hist__triggers_set_host_filtered(), so no hit tests the flag */
	struct hist_filter *hit_filter;
	char *filter_text;
	int64_t count;			/* -1: unlimited; atomic */
	uint32_t paused;		/* atomic; hist and generic alike */
	struct hist_event *target;	/* enable/disable_event/hist */
	struct hist__hist *hist;	/* HIST__T_HIST */
	/* the event's list (control side), doubly linked so that a removal
	 * is O(1); edited only by hist__tlist_add()/hist__tlist_unlink() */
	struct hist__trigger *next, *prev;
	/* the event's index of hist triggers (index.c): the identity hash
	 * (hist__hist_sig()), the next trigger of its bucket, and the
	 * place in list order (smaller: nearer the head) */
	uint64_t sig;
	struct hist__trigger *sig_next;
	int64_t order;
	uint32_t arr_pos;		/* its entry in the published array */
	struct hist__retired retire;
};

/* The published, immutable list the hot path walks. */
struct hist__tlist {
	/* What hist_event_hit() jumps to for a record and a hit: FAST's
	 * hist's variant, else hist__event_hit() on EV */
	hist__tlist_hit_fn hit;
	struct hist_event *ev;
	struct hist__retired retire;
	uint32_t n;
	uint32_t all_hist;	/* every trigger is a hist: no post pass */
	/* the only trigger, a hist that the simple variants accept (taken
	 * through hist__hist_hit_simple() when it has no cell of its own) */
	struct hist__trigger *simple;
	/* the only trigger when it has no filter and a variant of its own
	 * (a cell of the variants' table): HIT is its variant */
	struct hist__trigger *fast;
	/* the N entries in list order: a prefix of the event's shared
	 * array (index.c).  An entry changes once after this list is seen,
	 * when its trigger is removed: to &hist__tombstone, stored relaxed
	 * and loaded relaxed, which any walk skips as paused */
	struct hist__trigger **t;
};

void hist__triggers_run(const struct hist__tlist *tl, struct hist__rec *r) HIST__INTERNAL;
/* Rebuild and publish EV's list after the control list changed. */
int hist__triggers_publish(struct hist_event *ev) HIST__INTERNAL;
void hist__triggers_remove_all(struct hist_event *ev) HIST__INTERNAL;
/* Free T (a hist__retire() callback): its filter, its hist. */
void hist__trigger_free(void *t) HIST__INTERNAL;

/* EV's control list (ev->trig_head): the head pointer, for the walks of
 * actions/ and vars.c.  Context: control thread. */
struct hist__trigger **hist__event_tlist_head(struct hist_event *ev) HIST__INTERNAL;

/*
 * The hit variants (variants.c): hist_event_hit() of a lone plain hist,
 * specialised.  Each is a cell of one table whose dimensions these are;
 * variants.c's top comment says what each means.
 */
enum hist__vfamily { HIST__VF_SIMPLE, HIST__VF_FILTERED, HIST__VF_WIDE, HIST__VF_COMM };
enum hist__vkey {
	HIST__VK_ANY, HIST__VK_U64, HIST__VK_S32,	/* one integer field */
	HIST__VK_INTS, HIST__VK_STR, HIST__VK_PARTS,	/* wide keys */
};
enum hist__vvals { HIST__VV_ANY, HIST__VV_U64 };
enum hist__vlook { HIST__VL_PROBES, HIST__VL_FIRST32, HIST__VL_LINE32, HIST__VL_SHARED };
struct hist__variant {
	hist__tlist_hit_fn hit;
	enum hist__vfamily family;
	enum hist__vkey key;
	uint8_t key_words;	/* wide: the key's words unrolled for; 0: any */
	enum hist__vvals vals;
	uint8_t nr_vals;	/* value columns, the hitcount included */
	enum hist__vlook look;
};
#define HIST__WIDE_WORDS 8

/*
 * The cell for the lone hist trigger T of a list about to be published,
 * or NULL (the general hit); *SIMPLE: whether T's hist is a simple one
 * (then the list takes hist__hist_hit_simple() when there is no cell).
 * Fills the hist's record readers.  The one place a variant is chosen.
 * Context: control thread, before the list holding T is published.
 */
const struct hist__variant *hist__variant_choose(struct hist__trigger *t,
						 bool *simple) HIST__INTERNAL;
/* Cell I of the table (in no particular order), NULL past the last. */
const struct hist__variant *hist__variant_at(uint32_t i) HIST__INTERNAL;
/* V's dimensions as one line of text ("general" for NULL). */
void hist__variant_name(struct hist__sb *sb, const struct hist__variant *v) HIST__INTERNAL;

/* What a hist's map hands to its elt_init when a hit creates an element:
 * the hist, and the record (for the comm of .execname; NULL when the
 * hist has none to save). */
struct hist__elt_init_arg {
	const struct hist__hist *h;
	struct hist__rec *r;
};

/* hist trigger: one hit (after pause and filter checks) */
void hist__hist_hit(struct hist__hist *h, struct hist__rec *r) HIST__INTERNAL;
/* hist__tlist.hit of every list but a lone unfiltered simple hist:
 * hist__event_hit() on the list's event, with no cpu slot yet. */
void hist__tlist_hit_any(const struct hist__tlist *tl, const uint8_t *rec, size_t len,
			 const struct hist_hit *hit) HIST__INTERNAL;
/* pause, filter (its hit_filter) and hist__hist_hit() of the simple hist
 * trigger T, through cpu slot SLOT (see hist__slot_enter()). */
void hist__hist_hit_simple(struct hist__trigger *t, const void *rec, size_t len,
			   const struct hist_hit *hit, uint32_t slot) HIST__INTERNAL;
void hist__hist_free(struct hist__hist *h) HIST__INTERNAL;
/* Build the map and layout of a parsed hist.  0 or -errno. */
int hist__hist_setup(struct hist__hist *h) HIST__INTERNAL;
/* :clear: swap in an empty table for every user of H's table. */
int hist__hist_clear(struct hist__hist *h) HIST__INTERNAL;
/* Same keys/vals/vars/sort/filter/actions: the identity by which a
 * command finds an existing trigger (the kernel's hist_trigger_match()
 * in kernel/trace/trace_events_hist.c). */
bool hist__hist_match(const struct hist__trigger *a, const struct hist__trigger *b,
		      bool ignore_filter) HIST__INTERNAL;
/* Look up variable NAME in H; -1 if H does not define it. */
int hist__hist_find_var(const struct hist__hist *h, const char *name, size_t n) HIST__INTERNAL;

/* Variables and references (vars.c); hist__var_ops is the field
 * parser's way to them (hist__fctx.vars). */
extern const struct hist__var_ops hist__var_ops HIST__INTERNAL;
struct hist__hist *hist__find_var_hist(struct hist__fctx *fc, const char *sys,
				       size_t slen, const char *evn, size_t elen,
				       const char *var, size_t vlen, int *idx) HIST__INTERNAL;
bool hist__local_field_var(struct hist__fctx *fc, const char *sys, size_t slen,
			   const char *evn, size_t elen, const char *var,
			   size_t vlen, const char **field, size_t *flen) HIST__INTERNAL;
int hist__hist_add_ref(struct hist__hist *h, struct hist__field *ref) HIST__INTERNAL;
bool hist__event_has_var(const struct hist_event *ev, const struct hist__hist *self,
			 const char *name, size_t n) HIST__INTERNAL;
/* Resolve H's references for this hit into VALS; false if one is unset.
 * A text or stack reference is copied into TEXTS (HIST__STR_VAR_LEN_MAX
 * bytes per reference: see hist__eval.texts) and its value points there,
 * so what the hit passes on no other hit writes; false also when its
 * slot stayed busy (core/sslot.h). */
bool hist__resolve_refs(const struct hist__hist *h, const uint8_t *key,
			uint64_t *vals, uint8_t *texts) HIST__INTERNAL;
/* Copy the seqlocked text or stack at V (a variable's value) into
 * TEXTS' slot for reference I and return that copy's address, or 0 when
 * the slot stayed busy.  Context: a hit. */
uint64_t hist__ref_text(uint64_t v, uint8_t *texts, uint32_t i) HIST__INTERNAL;


/*
 * The event's index (index.c): its control list's tail and counts, the
 * array its published lists share, its hist triggers by identity hash and
 * its variables by name, so that adding or removing one of N triggers
 * costs O(1) expected time instead of O(N).  Context: control thread.
 */
/* Link T into EV's control list (at the tail, or the head) and index. */
int hist__tlist_add(struct hist_event *ev, struct hist__trigger *t, bool head) HIST__INTERNAL;
/* Put T, unlinked a moment ago, back after PREV (NULL: the head).
 * Never fails. */
void hist__tlist_relink(struct hist_event *ev, struct hist__trigger *t,
			struct hist__trigger *prev) HIST__INTERNAL;
/* The number of triggers in EV's control list, and of those not hist. */
uint32_t hist__tlist_len(const struct hist_event *ev) HIST__INTERNAL;
uint32_t hist__tlist_nr_generic(const struct hist_event *ev) HIST__INTERNAL;
/* EV's RANK-th hist trigger (0-based, list order), or NULL; O(1) for
 * RANK one past the last asked for (steps counted in ctx->nth_steps). */
const struct hist__trigger *hist__tlist_nth_hist(struct hist_event *ev,
						 uint32_t rank) HIST__INTERNAL;
/* Set the hit_filter of EV's triggers for EV's host_filtered; the hits
 * see it at once, the variants with the next published list. */
void hist__triggers_set_host_filtered(struct hist_event *ev) HIST__INTERNAL;
/* Unlink T from EV's control list and index (T stays allocated). */
void hist__tlist_unlink(struct hist_event *ev, struct hist__trigger *t) HIST__INTERNAL;
/* The edits of a control list that the shared array takes in place. */
enum hist__tedit { HIST__TE_NONE, HIST__TE_APPEND, HIST__TE_UNLINK, HIST__TE_RELINK,
		   HIST__TE_REBUILD };
/* The entries of EV's next published list TL (its T and N), updated for
 * the last edit of the control list; *OLD: the array this replaces, to
 * retire after TL is published, or NULL.  0 or -HIST_ENOMEM. */
int hist__tlist_array(struct hist_event *ev, struct hist__tlist *tl, void **old) HIST__INTERNAL;
/* The entry of a removed trigger in the published lists. */
extern struct hist__trigger hist__tombstone HIST__INTERNAL;
/* Retire OLD, an array that hist__tlist_array() replaced. */
void hist__tlist_array_retire(struct hist_event *ev, void *old) HIST__INTERNAL;
/* The registered hist trigger of EV matching T (hist__hist_match()), or
 * NULL.  Compares T only with the triggers of its identity hash. */
struct hist__trigger *hist__tlist_find_match(struct hist_event *ev,
					     const struct hist__trigger *t) HIST__INTERNAL;
/* The registered hist of EV that defines variable NAME (N bytes), first in
 * list order, and the variable's index in *IDX; NULL if none. */
struct hist__hist *hist__event_var(const struct hist_event *ev, const char *name,
				   size_t n, int *idx) HIST__INTERNAL;
/* What hist__hist_match() compares, hashed: equal for matching triggers. */
uint64_t hist__hist_sig(const struct hist__trigger *t) HIST__INTERNAL;
/* Free EV's index (its control list is empty). */
void hist__tlist_index_free(struct hist_event *ev) HIST__INTERNAL;

/* The named group NAME of CTX, or NULL; compares NAME only with the
 * groups of its hash (counted in ctx->named_cmps). */
struct hist__named *hist__named_find(struct hist_ctx *ctx, const char *name) HIST__INTERNAL;
/* A new group NAME of CTX, with no member yet; NULL if out of memory. */
struct hist__named *hist__named_add(struct hist_ctx *ctx, const char *name) HIST__INTERNAL;
/* Unlink and free G (not its map); the table goes with the last group. */
void hist__named_del(struct hist_ctx *ctx, struct hist__named *g) HIST__INTERNAL;

/* Remove a registered trigger (retired after a grace period). */
int hist__trigger_remove(struct hist_event *ev, struct hist__trigger *t) HIST__INTERNAL;

#endif
