/* SPDX-License-Identifier: MIT */
/*
 * hist-live's parsers of its command line and of -T FILE (args.c), apart
 * from main.c so the fuzz target fuzz/fuzz_live_args.c runs the tool's own
 * code.  Each prints its message (naming the argument, or FILE:LINE) on
 * stderr and returns -1 on bad input.
 */
#ifndef HIST_LIVE_ARGS_H
#define HIST_LIVE_ARGS_H

#include <stddef.h>

/* "SYSTEM/EVENT COMMAND" or "synthetic_events COMMAND" (blanks or TABs
 * between): the target's length in *TLEN and the command in *TEXT.  The
 * message names WHERE ("FILE:LINE") when not NULL. */
int live_split_trigger(const char *line, const char *where, size_t *tlen,
		       const char **text);
/*
 * Every line of PATH (a file, a FIFO, /dev/stdin) to FN(ARG, LINE, WHERE)
 * (WHERE: "PATH:N"), its line end (\n, \r\n) cut, blank and '#' lines
 * skipped; stops at the first FN that fails.  Lines have no length limit;
 * the file is read by cmdfile_read() (bounded, a NUL byte refuses it).
 * 0, or -1 with a message.
 */
int live_read_lines(const char *path,
		    int (*fn)(void *arg, const char *line, const char *where),
		    void *arg);
/* -i, -d: seconds, more than 0 and at most 1e7. */
int live_parse_seconds(const char *s, double *out);
/* -p: a pid, 1..INT32_MAX. */
int live_parse_pid(const char *s, int *pid);
/* -b: KiB, more than 0. */
int live_parse_kb(const char *s, long *kb);

#endif
