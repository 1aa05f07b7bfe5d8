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
		fprintf(stderr, PROG ": %s%swant 'SYSTEM/EVENT COMMAND', got '%s'\n",
			where ? where : "", where ? ": " : "", line);
		return -1;
	}
	*tlen = t;
	*text = p;
	return 0;
}

int live_read_lines(const char *path,
		    int (*fn)(void *arg, const char *line, const char *where),
		    void *arg)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, where[256];
	size_t cap = 0, total = 0, lineno = 0;
	ssize_t n;
	int ret = 0;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!ret && (n = getline(&line, &cap, f)) > 0) {
		lineno++;
		total += (size_t)n;
		snprintf(where, sizeof(where), "%.200s:%zu", path, lineno);
		if (total > LIVE_MAX_CMD_FILE) {
			fprintf(stderr, PROG ": %s: longer than 64 MiB: not a file "
				"of commands\n", path);
			ret = -1;
			break;
		}
		if (strlen(line) != (size_t)n) {
			fprintf(stderr, PROG ": %s: binary file (NUL byte)\n", where);
			ret = -1;
			break;
		}
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		ret = fn(arg, line, where);
	}
	if (!ret && ferror(f)) {
		/* a directory reads as EISDIR here, not as an empty file */
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		ret = -1;
	}
	free(line);
	fclose(f);
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
