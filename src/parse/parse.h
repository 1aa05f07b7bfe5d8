/* SPDX-License-Identifier: MIT */
/*
 * The hist trigger grammar: command text to a compiled hist.
 *
 * Layers (README "Architecture"): common < map schema < filter expr < core
 * < synth < actions < [parse] output < api < ftrace.
 * parse/ calls actions/ and below, never output/.
 */
#ifndef HIST_PARSE_H
#define HIST_PARSE_H

#include "core/trigger.h"

struct hist__parsed {
	struct hist__hist *hist;
	bool pause, cont, clear;
	const char *filter;	/* filter text inside the params, or NULL */
	size_t filter_n;
};

/*
 * Parse PARAMS (N bytes: everything after "hist:") for EV.  On error E
 * holds the message and the caret position within ECHO, the command as
 * error_log shows it ("hist:" + PARAMS).
 * Context: control thread; allocates.
 */
int hist__hist_parse(struct hist_event *ev, const char *params, size_t n,
		     bool remove, struct hist__parsed *out, struct hist__perr *e,
		     const char *echo, size_t echo_n) HIST__INTERNAL;

/* Turn E's token into a caret position: its first occurrence in ECHO
 * (N bytes), or 0, like the kernel's err_pos(). */
void hist__perr_resolve(struct hist__perr *e, const char *echo, size_t n) HIST__INTERNAL;

#endif
