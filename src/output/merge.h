/* SPDX-License-Identifier: MIT */
/*
 * The merged table of hist_merge_* (merge.c builds it: copies the inputs'
 * entries and combines those with the same keys) and its printers
 * (merge_print.c: the hist file and JSON, sorted as the kernel sorts).
 */
#ifndef HIST_OUTPUT_MERGE_H
#define HIST_OUTPUT_MERGE_H

#include "common/fmt.h"

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

/* A user variable of an entry (name=expr) or a field saved by onmax() or
 * onchange(): the copy of a struct hist_read_var. */
struct mvar {
	char *name;
	char *str;		/* string variables: the text (NULL: unset) */
	uint64_t value;		/* 0 while unset */
	uint32_t set, is_string;
};

struct mtrack {
	uint32_t handler;
	char *var;		/* the tracked variable as written: "$lat" */
	uint64_t value;
	struct mvar *saved;
	uint32_t nr_saved;
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
	uint32_t paused;
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

static inline int hist__cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Strings of keys (NULL as ""), as the kernel's strncmp orders them. */
static inline int hist__cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/*
 * Combine the entries added with the same keys into one (idempotent: the
 * printers call it before each print).  Leaves M->e in key order.
 * Context: the merge's thread; allocates (the sort).  0 or -HIST_ENOMEM.
 */
int hist__merge_combine(struct hist_merge *m) HIST__INTERNAL;

#endif
