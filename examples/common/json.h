/* SPDX-License-Identifier: MIT */
/*
 * The tools' JSON text around libhist's own (hist-replay --json,
 * hist-live --json, hist-merge --json, libhist-malloc's HIST_MALLOC_JSON):
 * one copy, built into each tool, as cmdfile.c is.  libhist writes the
 * histograms; the tools write the document around them and must write it
 * by the same rules.
 */
#ifndef HIST_TOOL_JSON_H
#define HIST_TOOL_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "libhist.h"

/*
 * S as a JSON string through W(ARG, ...), as libhist writes its own
 * strings: valid UTF-8 is copied, any other byte is the code point of the
 * same value (\u00XX), so the output is valid JSON and a UTF-8 name reads
 * as itself.  Copied runs go in one write each.  0, or W's error.  No
 * FILE and no allocation: the malloc tracer writes with it.
 */
int json_write_str(hist_write_fn w, void *arg, const char *s);

/* json_write_str() to F. */
void json_put_str(FILE *f, const char *s);

/*
 * NDJSON, a document per line: json_line_write() is a hist_write_fn that
 * writes to F what it is given less its newlines and the indentation
 * after them (a raw newline is never inside a JSON string, so no string
 * is touched).  A write may end at a newline: the state is kept across
 * calls, one struct per stream, zeroed but for F.
 */
struct json_line {
	FILE *f;
	int skip_blanks;
};

int json_line_write(void *arg, const char *buf, size_t len);

#endif
