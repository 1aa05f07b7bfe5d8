/* SPDX-License-Identifier: MIT */
/*
 * Handlers and actions of a hist trigger: onmatch(sys.event),
 * onmax($var), onchange($var) with trace()/<synth>()/save()/snapshot().
 *
 * Layers (README "Architecture"): common < map schema < filter expr < core
 * < synth < [actions] < parse output < api < ftrace.
 * actions/ calls synth/, core/ and below; core/ calls it only through
 * hist__hist.aops.
 */
#ifndef HIST_ACTIONS_H
#define HIST_ACTIONS_H

#include "core/trigger.h"

/* core/'s way to the actions (hist__hist.aops): run, match, release
 * and free below. */
extern const struct hist__action_ops hist__actions_ops HIST__INTERNAL;

/* Parse this command's action texts (fc->action_text) into fc->h. */
int hist__actions_parse(struct hist__fctx *fc) HIST__INTERNAL;
/* Same actions (part of trigger identity). */
bool hist__actions_match(const struct hist__hist *a, const struct hist__hist *b) HIST__INTERNAL;

/*
 * After the registration checks: resolve every action of H (synthetic
 * events, params, field variables, hidden histograms on other events).
 * Errors go to PE.  Context: control thread; allocates.
 */
int hist__actions_create(struct hist__hist *h, struct hist__perr *pe) HIST__INTERNAL;
/* Undo hist__actions_create's effects on other objects (synthetic event
 * users, hidden histograms); H's own memory is freed with H. */
void hist__actions_release(struct hist__hist *h) HIST__INTERNAL;
void hist__actions_free(struct hist__hist *h) HIST__INTERNAL;

/* Hot path, after H's element is updated: field variables, then (when
 * the references to H's own variables resolve) every action. */
void hist__actions_run(const struct hist__hist *h, struct hist__eval *e,
		       struct hist_map_elt *elt, const uint8_t *key) HIST__INTERNAL;

/* Printing: the action specs in the trigger-info line and the per-entry
 * track block (max:/changed:); the snapshot block is output's, from
 * hist__actions_info(). */
void hist__actions_print_spec(struct hist__sb *sb, const struct hist__hist *h) HIST__INTERNAL;
void hist__actions_print_entry(struct hist__sb *sb, const struct hist__hist *h,
			       struct hist_map_elt *elt) HIST__INTERNAL;
/* hist_debug: action tracking and save() variables. */
void hist__actions_print_debug(struct hist__sb *sb, const struct hist__hist *h) HIST__INTERNAL;

/* Action I of H as data, for the structured read-out (output/iter.c). */
enum hist__handler_kind { HIST__H_ONMATCH, HIST__H_ONMAX, HIST__H_ONCHANGE };
enum hist__action_kind { HIST__A_TRACE, HIST__A_SAVE, HIST__A_SNAPSHOT };
struct hist__action_info {
	enum hist__handler_kind handler;
	enum hist__action_kind kind;
	const char *var_str;		/* onmax/onchange: "$x" as written */
	int32_t track_slot;		/* variable slot of max:/changed: */
	bool snap_taken;		/* snapshot(): one was taken ... */
	/* ... with this value, key and comm (.execname), copied from one
	 * and the same snapshot while hits may take the next */
	uint64_t snap_val;
	uint8_t snap_key[HIST__KEY_SIZE_MAX];
	char snap_comm[HIST__COMM_LEN];
};
/* Context: control thread, concurrently with hits; never blocks them. */
void hist__actions_info(const struct hist__hist *h, uint32_t i,
			struct hist__action_info *out) HIST__INTERNAL;

#endif
