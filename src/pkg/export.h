/* SPDX-License-Identifier: MIT */
/*
 * Forced into every object of the shared libraries (-include): the public
 * headers' functions get default visibility while everything else keeps
 * the -fvisibility=hidden default.  The version scripts
 * (src/pkg/libhist.map, src/pkg/libhist-ftrace.map) then name each exported
 * symbol; src/pkg/abi-check.sh keeps the three in agreement.
 */
#ifndef HIST_EXPORT_H
#define HIST_EXPORT_H

#pragma GCC visibility push(default)
#include "libhist.h"
#include "hist_synth.h"
#include "hist_ftrace.h"
#pragma GCC visibility pop

#endif
