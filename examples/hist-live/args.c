/* SPDX-License-Identifier: MIT */
/*
 * hist-live's command-line and -T file parsers (args.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "../common/cmdfile.h"

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

int live_read_lines(const char *path,
		    int (*fn)(void *arg, const char *line, const char *where),
		    void *arg)
{
	char *buf, *line, *next, where[256];
	size_t len, lineno = 0;
	int ret = 0;

	buf = cmdfile_read(PROG, path, &len);
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

/* S whole as a decimal long in 1..MAX */
static int parse_positive(const char *s, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v <= 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

int live_parse_pid(const char *s, int *pid)
{
	long v;

	if (parse_positive(s, INT32_MAX, &v))
		return -1;
	*pid = (int)v;
	return 0;
}

int live_parse_kb(const char *s, long *kb)
{
	return parse_positive(s, LONG_MAX, kb);
}
