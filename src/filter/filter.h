/* SPDX-License-Identifier: MIT */
/*
 * The event filter language: predicates on fields combined with && || !
 * and parentheses, compiled once against an event's fields and evaluated
 * per record without allocation.  Used by trigger `if` clauses, by the
 * event `filter` file, and on its own through hist_filter_compile().
 *
 * Layers (README "Architecture"): common < map schema < [filter] expr <
 * core < synth < actions < parse output < api < ftrace.
 * filter/ calls schema/ and common/.
 */
#ifndef HIST_FILTER_H
#define HIST_FILTER_H

#include "schema/schema.h"

/* What a failed compile reports: the kernel's filter message and errno. */
struct hist__filter_err {
	int code;	/* -HIST_EINVAL, -HIST_ENOENT ('(' unbalanced), -HIST_EPERM
			   (')' unbalanced, too many terms), -HIST_ESRCH (quote) */
	int msg;	/* HIST_FILTER_ERR_* (HIST_FILTER_ERR_ERRNO for "Error") */
	uint32_t pos;	/* caret index into the filter text */
};

/*
 * Compile TEXT (N bytes, not necessarily NUL-terminated) against EV.
 * Returns NULL and fills *err on failure.
 * Context: control thread; allocates.
 */
struct hist_filter *hist__filter_compile(const struct hist_event *ev,
					 const char *text, size_t n,
					 struct hist__filter_err *err) HIST__INTERNAL;

/* True if the record in R matches.  Context: any thread; no allocation. */
bool hist__filter_match(const struct hist_filter *f, struct hist__rec *r) HIST__INTERNAL;

/*
 * hist__filter_match() of the record DATA (LEN bytes) of EV hit as HIT,
 * without a hist__rec when F only compares integer fields with
 * constants (the common `if pid == 1` or `if bytes > 4096 && cpu < 4`).
 * Context: any thread; no allocation.
 */
bool hist__filter_match_data(const struct hist_filter *f, const struct hist_event *ev,
			     const void *data, size_t len,
			     const struct hist_hit *hit) HIST__INTERNAL;

/* Whether F only compares integer fields with constants: the case
 * hist__filter_match_data() evaluates without a hist__rec. */
bool hist__filter_plain(const struct hist_filter *f) HIST__INTERNAL;
/* hist__filter_match_data() of a plain F (hist__filter_plain()) on a
 * record DATA that is not NULL: what a hit path that chose F as plain
 * when it was published calls.  Context: any thread; no allocation. */
bool hist__filter_match_plain(const struct hist_filter *f, const void *data,
			      size_t len) HIST__INTERNAL;

void hist__filter_destroy(struct hist_filter *f) HIST__INTERNAL;
/* Storage for retiring F (hist__retire()). */
struct hist__retired *hist__filter_retire_node(struct hist_filter *f) HIST__INTERNAL;

/* The text as written, for trigger listings (" if <text>"). */
const char *hist__filter_text(const struct hist_filter *f) HIST__INTERNAL;

#endif
