/* SPDX-License-Identifier: MIT */
/*
 * The tools' reader of a command file (hist-replay -T/-S, hist-live -T):
 * one copy, built into both tools and linked into the fuzz targets that
 * run their parsers.  The library itself has no file I/O (its files are
 * the host's business), so this lives with the tools.
 */
#ifndef HIST_TOOL_CMDFILE_H
#define HIST_TOOL_CMDFILE_H

#include <stddef.h>

/* A command file larger than this is refused: the kernel takes one
 * command per write of at most a page, and a file of millions of them
 * is a mistake (or /dev/zero). */
#define CMDFILE_MAX (64u << 20)

/*
 * The whole of PATH (a file, a FIFO, /dev/stdin), NUL-terminated, its
 * length in *LEN.  NULL, with "PROG: PATH: why" printed on stderr, for an
 * error (a directory reads as EISDIR, not as an empty file), a NUL byte
 * (a binary file, /dev/zero), more than CMDFILE_MAX bytes, or no memory.
 * The caller frees the buffer.
 */
char *cmdfile_read(const char *prog, const char *path, size_t *len);

#endif
