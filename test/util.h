/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the tests that drive real programs and real tracefs
 * (test_live, test_examples, test_merge, test_openmetrics, ...): whole
 * files, the build's tools, scratch directories, tracefs found or
 * mounted, background processes, and an allocator that fails on demand.
 * Linked into every test program (test/util.c).
 */
#ifndef HIST_TEST_UTIL_H
#define HIST_TEST_UTIL_H

#include <stddef.h>

#include "libhist.h"

/* ---- files --------------------------------------------------------------- */

/* The whole file at the path FMT formats, NUL-terminated (malloc'ed);
 * NULL if it cannot be read. */
char *t_readf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- printed text ----------------------------------------------------------- */

/* What a printer wrote, grown as it writes: S NUL-terminated (NULL before
 * the first byte), N bytes.  Start zeroed; free(S) after; N = 0 reuses it. */
struct t_text {
	char *s;
	size_t n, cap;
};

/* A hist_write_fn appending to the struct t_text at ARG; -HIST_ENOMEM
 * (what was written is kept). */
int t_text_write(void *arg, const char *buf, size_t n);

/* ---- the build and scratch space ------------------------------------------ */

/* BUILD from the program's ARGV0 (BUILD/test/PROG), absolute; "build"
 * (made absolute) when ARGV0 has no directory. */
void t_build_dir(char *out, size_t cap, const char *argv0);

/* The tools of this build first on PATH. */
void t_tools_on_path(const char *argv0);

/* A fresh directory /tmp/NAME.XXXXXX in DIR; 0, or -1. */
int t_scratch(char *dir, size_t cap, const char *name);

/* Remove the scratch directory DIR and all in it. */
void t_scratch_remove(const char *dir);

/* ---- tracefs ---------------------------------------------------------------- */

/*
 * Find tracefs in /proc/mounts, or mount it at SCRATCH/tracefs.  DIR gets
 * its path.  Returns 0 (found), 1 (mounted here: t_tracefs_release()
 * unmounts it) or -1 with "# SKIP WHO: reason" printed and DIR empty (not
 * root, no tracefs in this kernel).
 */
int t_tracefs_find(char *dir, size_t cap, const char *scratch, const char *who);

/* Is DIR/REL accessible with MODE (access(2))?  1, or 0 with a SKIP line
 * printed and DIR emptied (so the tests that need it skip too). */
int t_tracefs_need(char *dir, const char *rel, int mode, const char *who);

/* Undo t_tracefs_find(): unmount DIR if MOUNTED (its return was 1). */
void t_tracefs_release(const char *dir, int mounted);

/* ---- processes ------------------------------------------------------------ */

/*
 * Start `sh -c 'exec CMD'` (CMD formatted from FMT, with its own
 * redirections) as a child of this process; its pid (the command's, as
 * the shell execs it), or -1.
 */
long t_spawn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Wait up to MS milliseconds for process PID to end.  A child of ours is
 * reaped and its exit status returned (128 + signal if killed); a process
 * that is not our child returns 0 once gone.  -1 if it is still running.
 */
int t_wait_gone(long pid, int ms);

/*
 * Wait up to MS milliseconds for LABEL followed by a number to appear in
 * the file PATH (a server's "listening on port N"); the number, or -1.
 */
long t_wait_number(const char *path, const char *label, int ms);

/*
 * Connect to 127.0.0.1:PORT, send the N bytes of REQ, close the sending
 * side and read the answer into RESP (CAP bytes, NUL-terminated) for up
 * to MS milliseconds.  Bytes read, or -1 if no connection.
 */
long t_tcp_exchange(unsigned port, const char *req, size_t n, char *resp, size_t cap,
		    int ms);

/* ---- an allocator that fails ---------------------------------------------- */

/*
 * t_fail_alloc: calloc/free that counts calls in t_fa_count and fails the
 * call numbered t_fa_fail_at (from 0; -1: none); t_fa_live is the number
 * of blocks not yet freed, so a test can check that a failure leaked
 * nothing.  Install with hist_set_allocator(&t_fail_alloc).
 */
extern long t_fa_count, t_fa_fail_at, t_fa_live;
extern const struct hist_allocator t_fail_alloc;

#endif
