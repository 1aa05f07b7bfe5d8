/* SPDX-License-Identifier: MIT */
/*
 * The tools' bounded command-file reader (cmdfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdfile.h"

char *cmdfile_read(const char *prog, const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n = 0, got;
	const char *why = NULL;
	char *buf = NULL;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *nb;

			cap = cap ? 2 * cap : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				why = "out of memory";
				break;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		if (memchr(buf + n, 0, got)) {
			why = "binary file (NUL byte)";
			break;
		}
		n += got;
		if (n > CMDFILE_MAX) {
			why = "longer than 64 MiB: not a file of commands";
			break;
		}
		if (got == 0)
			break;
	}
	if (!why && ferror(f))
		why = strerror(errno);
	fclose(f);
	if (why) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, why);
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}
