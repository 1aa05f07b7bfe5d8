/* SPDX-License-Identifier: MIT */
/*
 * hist-live's command-line and -T file parsers (args.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define PROG "hist-live"

int live_split_trigger(const char *line, const char *where, size_t *tlen,
		       const char **text)
{
	size_t t = strcspn(line, " \t");
	const char *p = line + t;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!t || !*p || (!memchr(line, '/', t) &&
			  (t != 16 || strncmp(line, "synthetic_events", t)))) {
		/* a line of megabytes is named by its start and its length */
		size_t n = strlen(line);

		if (n > 256)
			fprintf(stderr, PROG ": %s%swant 'SYSTEM/EVENT COMMAND', got "
				"'%.256s...' (%zu bytes)\n", where ? where : "",
				where ? ": " : "", line, n);
		else
			fprintf(stderr, PROG ": %s%swant 'SYSTEM/EVENT COMMAND', got '%s'\n",
				where ? where : "", where ? ": " : "", line);
		return -1;
	}
	*tlen = t;
	*text = p;
	return 0;
}

/* PATH whole, NUL-terminated, bounded by LIVE_MAX_CMD_FILE: NULL with
 * the message printed (an error, a NUL byte, too long). */
static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0, n = 0, got;
	const char *why = NULL;
	char *buf = NULL;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
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
		if (n > LIVE_MAX_CMD_FILE) {
			why = "longer than 64 MiB: not a file of commands";
			break;
		}
		if (got == 0)
			break;
	}
	/* a directory reads as EISDIR here, not as an empty file */
	if (!why && ferror(f))
		why = strerror(errno);
	fclose(f);
	if (why) {
		fprintf(stderr, PROG ": %s: %s\n", path, why);
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

int live_read_lines(const char *path,
		    int (*fn)(void *arg, const char *line, const char *where),
		    void *arg)
{
	char *buf, *line, *next, where[256];
	size_t len, lineno = 0;
	int ret = 0;

	buf = read_whole(path, &len);
	if (!buf)
		return -1;
	for (line = buf; !ret && line && *line; line = next) {
		size_t n;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		n = strlen(line);
		while (n && line[n - 1] == '\r')
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		snprintf(where, sizeof(where), "%.200s:%zu", path, lineno);
		ret = fn(arg, line, where);
	}
	free(buf);
	return ret;
}

int live_parse_seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v > 0) || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

int live_parse_pid(const char *s, int *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v <= 0 || v > INT32_MAX)
		return -1;
	*pid = (int)v;
	return 0;
}

int live_parse_kb(const char *s, long *kb)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v <= 0)
		return -1;
	*kb = v;
	return 0;
}
