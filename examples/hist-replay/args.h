/* SPDX-License-Identifier: MIT */
/*
 * hist-replay's command-line and command-file parsers (args.c), shared by
 * main.c and the fuzz target fuzz/fuzz_replay_args.c.
 */
#ifndef HIST_REPLAY_ARGS_H
#define HIST_REPLAY_ARGS_H

#include <stddef.h>
#include <stdint.h>

/* One write to make before the replay. */
struct cmd {
	char *target, *text;
	char *where;	/* "FILE:LINE" or "-t" for messages */
};

struct cmds {
	struct cmd *v;
	size_t n, cap;
};

struct marker {
	char *text, *target, *cmd;
};

/* "hist-replay: out of memory" and exit(2). */
void die_oom(void) __attribute__((noreturn));
char *xstrndup(const char *s, size_t n);
char *xstrdup(const char *s);

void cmds_add(struct cmds *c, const char *target, size_t tlen,
	      const char *text, const char *where);
void cmds_free(struct cmds *c);
/* "TARGET<TAB>TEXT", or "TARGET TEXT" when there is no TAB: 0, or -1
 * (no separator, empty target or text). */
int split_target(const char *line, const char **text, size_t *tlen);
/*
 * Read FILE line by line: WITH_TARGET lines are 'TARGET<TAB>TEXT' (into
 * DST), others are synthetic event definitions.  Blank and '#' lines are
 * skipped.  Returns 0 or -1 with a message printed.
 */
int load_lines(const char *path, int with_target, struct cmds *dst);
/* --at-marker 'TEXT<TAB>TARGET<TAB>COMMAND' appended to *V (*N of *CAP). */
int add_marker(struct marker **v, size_t *n, size_t *cap, const char *arg);
/* --cpu "0,2-3" into a CPU set: 0, or -1 with a message. */
int parse_cpus(const char *arg, uint8_t **set, uint32_t *nr);
/* "1.5" seconds, or "@2076.044615" when ALLOW_ABS: ns (up to 9
 * decimals).  0 or -1 with a message naming OPT. */
int parse_seconds(const char *opt, const char *arg, uint64_t *ns, int *abs_ts,
		  int allow_abs);

#endif
