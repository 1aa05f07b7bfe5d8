/* SPDX-License-Identifier: MIT */
/*
 * api/: the command layer.  Trigger commands, context create/destroy and
 * the builder sit here, above everything they call (parse/, actions/,
 * output/, core/); nothing below calls up into this folder.  The one
 * command a lower layer needs (registering the hidden histograms of
 * field variables, from actions/) it reaches through the context's
 * hist_command pointer, which hist_ctx_create() installs.
 *
 * Layers (README "Architecture"): common < map schema < filter expr < core
 * < synth < actions < parse output < [api] < ftrace.
 * api/ calls everything below; nothing below calls it.
 */
#ifndef HIST_API_H
#define HIST_API_H

#include "core/trigger.h"

/*
 * Parse and register a hist command for EV (api/command.c).  ECHO is the
 * command error_log shows; errors are appended to PE with carets located
 * in it.  Used for user commands and for the hidden histograms that
 * field variables create on other events.  0, 1 (an existing trigger was
 * paused/continued/cleared) or -errno; *OUT the registered trigger.
 */
int hist__hist_command(struct hist_event *ev, const char *params, size_t n,
		       bool remove, const char *echo, size_t echo_n,
		       struct hist__perr *pe, struct hist__trigger **out) HIST__INTERNAL;
#endif
