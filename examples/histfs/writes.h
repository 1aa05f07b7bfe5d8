/* SPDX-License-Identifier: MIT */
/*
 * The text of writes to histfs's command files (writes.c): how a write is
 * cut into commands and which of them are libhist's.  No FUSE, no tracefs
 * and no lock here: fs.c applies the commands, and the fuzz target
 * fuzz/fuzz_histfs_writes.c runs this code on its own.
 */
#ifndef HISTFS_WRITES_H
#define HISTFS_WRITES_H

#include <stddef.h>

/* The command of one write: a NUL-terminated copy (malloc) without the
 * blanks around it (the kernel's strim()); NULL: out of memory. */
char *hfs_command(const char *buf, size_t size);
/* Nonzero when COMMAND (one trigger-file write, trimmed) is for libhist:
 * hist, !hist, enable_hist, disable_hist. */
int hctx_is_hist_cmd(const char *cmd);
/*
 * A dynamic_events command that is libhist's: "s:..." (a synthetic event
 * definition) or "-:[synthetic/]NAME..." with NAME one of NAMES (the
 * synthetic events defined, NULL-terminated; NAMES may be NULL).  Every
 * other command is the kernel's (kprobes, uprobes, eprobes).
 */
int hfs_dyn_is_synth(const char *cmd, char *const *names);
/*
 * A dynamic_events command that defines an eprobe ("e[:[GROUP/]EVENT]
 * SYS.EVENT ..." or "SYS/EVENT") attached to one of NAMES, libhist's
 * synthetic events (SYS "synthetic").
 */
int hfs_dyn_is_synth_eprobe(const char *cmd, char *const *names);
/*
 * Each command of a synthetic_events or dynamic_events write (BUF, SIZE
 * bytes; one command a line, trimmed, empty lines skipped; with
 * STRIP_COMMENTS, as synthetic_events does, '#' starts a comment) to
 * FN(ARG, CMD), in order, until FN returns non-zero: its value, else 0;
 * -ENOMEM when a copy cannot be made.
 */
int hfs_each_line(const char *buf, size_t size, int strip_comments,
		  int (*fn)(void *arg, char *cmd), void *arg);

/*
 * A synthetic event definition CMD ("NAME FIELDS...", without "s:") as
 * Linux 5.10 and 5.11 parsed it: word by word, before 5.12 rewrote the
 * parser that libhist follows.  0 when those kernels accepted it; else
 * their error_log message (HFS_OLD_SYNTH_ERRORS, 1-based) with the caret
 * position in *POS and, in ECHO (ECHOLEN bytes), the command as they
 * echoed it: the words joined by one blank, cut at 255 bytes.
 */
#define HFS_OLD_SYNTH_ERRORS                                                  \
	"Illegal name", "Incomplete command", "Too many fields",              \
	"Incomplete type", "Invalid type", "Invalid field"
int hfs_synth_check_5_10(const char *cmd, char *echo, size_t echolen, unsigned *pos);

#endif
