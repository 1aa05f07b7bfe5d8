/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the kernel-conformance runner (test/test_conformance.c):
 * reading a recorded case, comparing hist files with the tie-tolerant
 * rule of the oracle's `compare` tool, and the replay engine of
 * hist-replay (compiled in through conf_replay.c).
 */
#ifndef HIST_TEST_CONF_H
#define HIST_TEST_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "../examples/hist-replay/replay.h"

/* ---- files ---------------------------------------------------------- */

/* Whole file, NUL-terminated; NULL if it cannot be read. */
char *conf_read_file(const char *path, size_t *len);
/* A file compressed with zstd (one frame that records its size),
 * decompressed and NUL-terminated; NULL if it cannot be. */
char *conf_read_zst(const char *path, size_t *len);
/* trace-cmd report's record count of EVENT in BUFFER ("-": the top one)
 * of FILE, from a COUNTS table (test/data/buffers.event-counts.txt); ~0
 * when it has none. */
unsigned long long conf_buffer_count(const char *counts, const char *file,
				     const char *buffer, const char *event);

/* Split TEXT into lines in place; returns the count, *LINES malloc'ed. */
size_t conf_lines(char *text, char ***lines);

/* ---- hist comparison (tools/compare of the oracle, in C) -------------- */

/*
 * Compare the kernel's hist section K with the candidate section C (each
 * one "# event histogram" section).  0 if equal; else 1 with the reasons
 * appended to DIFF, one per line.  FORMAT_ONLY compares the trigger info
 * and the shape of the entries and other lines with every number masked
 * (for snapshot() cases whose trace.dat lacks part of the input).
 */
int conf_compare_section(const char *k, const char *c, int format_only,
			 struct replay_buf *diff);

/*
 * The comparator's self-test: SECTION changed in a way the rule must
 * accept (SHUFFLE_TIES: entries with equal sort values reordered) or
 * reject (the others).  NULL when the section has nothing to change
 * (no ties, a single entry...).  malloc'ed.
 */
enum {
	CONF_MUT_SHUFFLE_TIES,
	CONF_MUT_SWAP_UNTIED,
	CONF_MUT_DROP_ENTRY,
	CONF_MUT_HITCOUNT,
	CONF_MUT_HITS,
};
char *conf_mutate(const char *section, int how);

/* The sections of a hist file: count, and *OUT (malloc'ed strings). */
size_t conf_split_sections(const char *text, char ***out);
void conf_free_strv(char **v, size_t n);

/* error_log text without the "[    6.487656] " stamps (malloc'ed). */
char *conf_errlog_norm(const char *text);

/* ---- workload mid-run writes ------------------------------------------ */

/*
 * The writes a case's workload made between an "oracle: before ..." and
 * the matching "oracle: after ..." trace_marker line:
 *   echo "oracle: before X" > $T/trace_marker
 *   echo 'CMD' >> $T/events/SYS/EV/trigger
 *   echo "oracle: after X" > $T/trace_marker
 * CB gets (marker text, target as in `triggers`, command).  Returns the
 * number of writes found.
 */
int conf_workload_writes(const char *workload,
			 void (*cb)(void *arg, const char *marker,
				    const char *target, const char *cmd),
			 void *arg);

#endif
