/* SPDX-License-Identifier: MIT */
/*
 * Tests that drive programs through the shell: sh() runs a command with its
 * output in <tmp>/out and shows that output when the command fails.  The
 * including file defines `static char tmp[]` (a scratch directory) first.
 */
#ifndef HIST_TEST_SHELL_H
#define HIST_TEST_SHELL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Run the command built from FMT; its exit status (128 if killed). */
static int sh(int show, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sh(int show, const char *fmt, ...)
{
	char cmd[8192], full[8600];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "( %s ) > %s/out 2>&1", cmd, tmp);
	fflush(stdout);
	st = system(full);
	st = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	if (st && show) {
		char show_cmd[600];

		printf("# exit %d: %s\n", st, cmd);
		snprintf(show_cmd, sizeof(show_cmd), "sed 's/^/#   /' %s/out | tail -30", tmp);
		fflush(stdout);
		if (system(show_cmd))
			printf("#   (no output)\n");
	}
	return st;
}

#endif
