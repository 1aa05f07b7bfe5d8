/* SPDX-License-Identifier: MIT */
/*
 * Why a hist command was refused when the kernel says no more than an
 * errno: it writes no error_log entry for a bad size= (Linux 6.1 and 6.12,
 * test/conformance/cases/b83-size-range), and libhist keeps error_log
 * exactly the kernel's, so the tools (hist-replay, hist-live) print the
 * reason on stderr themselves.
 */
#ifndef HIST_TOOL_HINT_H
#define HIST_TOOL_HINT_H

#include <stddef.h>

/*
 * The reason CMD (one hist command, "hist:...[ if FILTER]") was refused
 * for its size=, as the kernel reads it (kstrtoul, base 0, rounded up to
 * a power of two, 2^7 .. 2^MAX_BITS entries), into BUF (CAP bytes):
 *
 *	size=64: a map has 128 to 131072 entries (2^7 to 2^17)
 *	  Command: hist:keys=id:size=64
 *	                             ^
 *
 * with the caret under the value.  BITS_OPT names the host's option that
 * lifts MAX_BITS up to 24 ("--map-bits"), or NULL when it has none.
 * Returns 1 with BUF filled when a size= explains the refusal, else 0.
 */
int hint_map_size(const char *cmd, unsigned max_bits, const char *bits_opt,
		  char *buf, size_t cap);

#endif
