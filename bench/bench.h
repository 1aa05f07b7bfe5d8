/* SPDX-License-Identifier: MIT */
/*
 * hist-bench: the hot path of a hist trigger against the maps a C
 * programmer would otherwise use, in one process, on the same records.
 *
 * Every contender is a set of callbacks (struct bench_contender).  The
 * driver generates each workload's records once, then for every round
 * runs every contender once (the starting contender rotates, so drift on
 * a noisy machine is spread over all of them), always on a fresh map
 * built outside the timed section, and verifies the contender's read-out
 * against totals computed from the records themselves.
 *
 * The measured call is hit(handle, record): one indirect call per event,
 * the same for every contender, as a library call would be.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * One event record, 64 bytes, laid out like an ftrace record (common
 * fields first).  libhist sees it through a field description; the other
 * contenders read the same bytes at the same offsets.
 */
struct brec {
	uint16_t common_type;		/* 0: event id (chain: wake/switch) */
	uint8_t common_flags;		/* 2 */
	uint8_t common_preempt_count;	/* 3 */
	int32_t common_pid;		/* 4 */
	uint64_t key;			/* 8: the u64 key */
	char comm[16];			/* 16: string key, NUL-padded */
	uint64_t val;			/* 32: the summed value */
	uint32_t k2;			/* 40: 2nd field of the compound key */
	uint32_t k3;			/* 44: 3rd field of the compound key */
	uint64_t ts;			/* 48: time stamp (ns) */
	uint32_t flt;			/* 56: filter field, 0..1023 */
	uint32_t pad;			/* 60 */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct brec) == 64, "one record per cache line");

#define BREC_TYPE_PLAIN 1
#define BREC_TYPE_WAKE 2
#define BREC_TYPE_SWITCH 3

/* Filter workload: events with flt < BENCH_FLT_PASS pass (half). */
#define BENCH_FLT_PASS 512

enum bench_key { BK_U64, BK_COMM, BK_KEY3 };
enum bench_wkind { WK_UNIFORM, WK_ZIPF, WK_DISJOINT, WK_ONEKEY, WK_CHAIN };

struct bench_workload {
	const char *name;
	const char *desc;
	enum bench_wkind kind;
	enum bench_key key;
	int nthreads;
	uint64_t nkeys;		/* distinct key ids (per thread: WK_DISJOINT) */
	uint32_t map_bits;	/* capacity 2^map_bits for every contender */
	bool filter;		/* count only flt < BENCH_FLT_PASS */
	bool single;		/* in the callgrind pass */
};

/* What a contender reports after a run; compared with struct bench_expect. */
struct bench_readout {
	uint64_t entries;
	uint64_t hits;		/* sum of per-entry hitcounts */
	uint64_t sum;		/* sum of per-entry value sums */
	uint64_t drops;
	uint64_t total_hits;	/* the map's own hit total (libhist: Hits:) */
};

/* Totals computed from the records alone (the reference). */
struct bench_expect {
	uint64_t entries, hits, sum, drops;
};

/* Handed to create(): the workload, its records and the capacity. */
struct bench_cfg {
	const struct bench_workload *w;
	uint32_t capacity;	/* 2^map_bits: max entries, same for all */
	int nthreads;
	int nr_cpus;		/* online cpus (libhist's nr_cpus) */
};

typedef void (*bench_hit_fn)(void *handle, const struct brec *r);

struct bench_contender {
	const char *name;
	/* false: the row prints "n/a" (reason in *why) */
	bool (*supports)(const struct bench_workload *w, const char **why);
	/* Untimed.  NULL with *why set on failure. */
	void *(*create)(const struct bench_cfg *cfg, const char **why);
	/* In the worker, untimed: the handle passed to hit(). */
	void *(*thread_init)(void *map, int tid);
	void (*thread_fini)(void *map, void *handle);
	/* The hot path, chosen once per workload (key kind, filter). */
	bench_hit_fn (*hit_fn)(const struct bench_workload *w);
	/* After the workers joined.  0, or -1 with *why set. */
	int (*read_out)(void *map, struct bench_readout *o, const char **why);
	void (*destroy)(void *map);
};

extern const struct bench_contender bench_libhist, bench_libhist_pcpu, bench_libhist_shared,
	bench_libhist_map, bench_libhist_map_atomic, bench_tmap, bench_urcu, bench_ck, bench_mutex, bench_floor;

/* ---- helpers shared by the contenders ---- */

void *bench_zalloc(size_t bytes);	/* 64-byte aligned, zeroed, pre-faulted */
void bench_free(void *p);
__attribute__((noreturn, format(printf, 1, 2)))
void bench_die(const char *fmt, ...);

/* Key words of a record for the non-libhist contenders (zero-padded). */
#define BENCH_KEY_WORDS_MAX 3
static inline uint32_t bench_key_words(enum bench_key k)
{
	return k == BK_U64 ? 1 : k == BK_COMM ? 2 : 3;
}

static inline void bench_key_read(enum bench_key k, const struct brec *r,
				  uint64_t *w)
{
	switch (k) {
	case BK_U64:
		w[0] = r->key;
		break;
	case BK_COMM:
		memcpy(w, r->comm, 16);
		break;
	case BK_KEY3:
		w[0] = r->key;
		w[1] = r->k2;
		w[2] = r->k3;
		break;
	}
}

/* MurmurHash3's 64-bit finaliser, over 1..3 words. */
static inline uint64_t bench_fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

static inline uint64_t bench_hash_words(const uint64_t *w, uint32_t n)
{
	uint64_t h = w[0];
	uint32_t i;

	for (i = 1; i < n; i++)
		h = bench_fmix64(h) ^ w[i];
	return bench_fmix64(h);
}

static inline bool bench_key_eq(const uint64_t *a, const uint64_t *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * Expand the hit function of a contender for every key kind, with and
 * without the filter, so each runs a loop specialised at compile time
 * like libhist's parsed trigger is.  BODY(h, r, K) handles one passing
 * record with key kind K (a constant).
 */
#define BENCH_HIT_VARIANTS(prefix, body)					\
	static void prefix##_u64(void *h, const struct brec *r)		\
	{ body(h, r, BK_U64); }						\
	static void prefix##_comm(void *h, const struct brec *r)	\
	{ body(h, r, BK_COMM); }					\
	static void prefix##_key3(void *h, const struct brec *r)	\
	{ body(h, r, BK_KEY3); }					\
	static void prefix##_u64_flt(void *h, const struct brec *r)	\
	{ if (r->flt < BENCH_FLT_PASS) body(h, r, BK_U64); }		\
	static void prefix##_comm_flt(void *h, const struct brec *r)	\
	{ if (r->flt < BENCH_FLT_PASS) body(h, r, BK_COMM); }		\
	static void prefix##_key3_flt(void *h, const struct brec *r)	\
	{ if (r->flt < BENCH_FLT_PASS) body(h, r, BK_KEY3); }		\
	static bench_hit_fn prefix##_pick(const struct bench_workload *w)	\
	{								\
		static const bench_hit_fn t[2][3] = {			\
			{ prefix##_u64, prefix##_comm, prefix##_key3 },	\
			{ prefix##_u64_flt, prefix##_comm_flt, prefix##_key3_flt }, \
		};							\
		return t[w->filter][w->key];				\
	}

/* Contenders that only do plain aggregation (not the chain workload). */
bool bench_supports_plain(const struct bench_workload *w, const char **why);

/* The read-out and replay sections (readout.c, replay.c). */
int bench_readout_section(uint32_t nkeys);
int bench_replay_section(const char *self);
/* perf.c: hist-replay over a perf.data beside perf script | awk */
int bench_perf_section(const char *self);

/* Parse a `hist` file's text: entries, hitcounts, the VAL_NAME column and
 * Totals into O.  0, or -1 with *why set (c_libhist.c). */
int bench_parse_hist(const char *text, const char *val_name,
		     struct bench_readout *o, const char **why);

#endif /* BENCH_H */
