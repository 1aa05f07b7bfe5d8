/* SPDX-License-Identifier: MIT */
/*
 * hist-replay's parsers of its command line and of the files it reads
 * commands from (-T, -S): apart from main.c so the fuzz target
 * fuzz/fuzz_replay_args.c runs exactly the code the tool runs.  Every
 * error is a message on stderr naming the argument (or FILE:LINE) and a
 * -1; out of memory ends the process (die_oom()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "../common/cmdfile.h"

#define PROG "hist-replay"

void die_oom(void)
{
	fprintf(stderr, PROG ": out of memory\n");
	exit(2);
}

char *xstrndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (!d)
		die_oom();
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

void cmds_add(struct cmds *c, const char *target, size_t tlen,
		     const char *text, const char *where)
{
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 16;
		struct cmd *nv = realloc(c->v, ncap * sizeof(*nv));

		if (!nv)
			die_oom();
		c->v = nv;
		c->cap = ncap;
	}
	c->v[c->n].target = xstrndup(target, tlen);
	c->v[c->n].text = xstrdup(text);
	c->v[c->n].where = xstrdup(where);
	c->n++;
}

void cmds_free(struct cmds *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].target);
		free(c->v[i].text);
		free(c->v[i].where);
	}
	free(c->v);
}

/* "TARGET<TAB>TEXT", or "TARGET TEXT" when there is no TAB. */
int split_target(const char *line, const char **text, size_t *tlen)
{
	const char *sep = strchr(line, '\t');

	if (!sep)
		sep = strchr(line, ' ');
	if (!sep || sep == line)
		return -1;
	*tlen = (size_t)(sep - line);
	sep++;
	while (*sep == ' ' || *sep == '\t')
		sep++;
	if (!*sep)
		return -1;
	*text = sep;
	return 0;
}

/*
 * Read FILE line by line: WITH_TARGET lines are 'TARGET<TAB>TEXT' (into
 * DST), others are synthetic event definitions.  Blank and '#' lines are
 * skipped.  Returns 0 or -1 with a message printed.
 */
int load_lines(const char *path, int with_target, struct cmds *dst)
{
	char *buf, *line, *next, where[512];
	size_t len, lineno = 0;

	buf = cmdfile_read(PROG, path, &len);
	if (!buf)
		return -1;
	for (line = buf; line && *line; line = next) {
		const char *text;
		size_t tlen, l;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		l = strlen(line);
		if (l && line[l - 1] == '\r')
			line[--l] = 0;
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%zu", path, lineno);
		if (!with_target) {
			cmds_add(dst, "synthetic_events", 16, line, where);
			continue;
		}
		if (split_target(line, &text, &tlen)) {
			fprintf(stderr, PROG ": %s: expected 'TARGET<TAB>TEXT'\n",
				where);
			free(buf);
			return -1;
		}
		cmds_add(dst, line, tlen, text, where);
	}
	free(buf);
	return 0;
}

int add_marker(struct marker **v, size_t *n, size_t *cap, const char *arg)
{
	const char *t1 = strchr(arg, '\t'), *t2;
	struct marker *m;

	t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
	if (!t1 || !t2 || t2 == t1 + 1 || !t2[1]) {
		fprintf(stderr, PROG ": --at-marker wants 'TEXT<TAB>TARGET<TAB>"
			"COMMAND', got '%s'\n", arg);
		return -1;
	}
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 8;
		struct marker *nm = realloc(*v, ncap * sizeof(*nm));

		if (!nm)
			die_oom();
		*v = nm;
		*cap = ncap;
	}
	m = &(*v)[(*n)++];
	m->text = xstrndup(arg, (size_t)(t1 - arg));
	m->target = xstrndup(t1 + 1, (size_t)(t2 - t1 - 1));
	m->cmd = xstrdup(t2 + 1);
	return 0;
}


/* "0,2-3" into a CPU set: 0, or -1 with a message. */
int parse_cpus(const char *arg, uint8_t **set, uint32_t *nr)
{
	const char *p = arg;
	uint32_t max = 0;

	free(*set);
	*set = calloc(4096, 1);
	if (!*set)
		die_oom();
	for (;;) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b;

		if (end == p || *p == '-' || a >= 4096)
			goto bad;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || p[1] == '-' || b < a || b >= 4096)
				goto bad;
			p = end;
		}
		for (; a <= b; a++)
			(*set)[a] = 1;
		if (b + 1 > max)
			max = (uint32_t)b + 1;
		if (!*p)
			break;
		if (*p++ != ',')
			goto bad;
	}
	*nr = max;
	return 0;
bad:
	fprintf(stderr, PROG ": --cpu wants a list such as 0,2-3 (CPUs below 4096), "
		"got '%s'\n", arg);
	return -1;
}

/* "1.5" seconds, or "@2076.044615": ns (up to 9 decimals).  0 or -1. */
int parse_seconds(const char *opt, const char *arg, uint64_t *ns, int *abs_ts,
			 int allow_abs)
{
	const char *p = arg;
	uint64_t whole = 0, frac = 0, scale = 1000000000;

	*abs_ts = 0;
	if (*p == '@' && allow_abs) {
		*abs_ts = 1;
		p++;
	}
	if (!(*p >= '0' && *p <= '9') && !(*p == '.' && p[1] >= '0' && p[1] <= '9'))
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX / 1000000000 - 9) / 10)
			goto bad;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
	if (*p)
		goto bad;
	*ns = whole * 1000000000 + frac;
	return 0;
bad:
	fprintf(stderr, PROG ": %s wants seconds (1.5)%s, got '%s'\n", opt,
		allow_abs ? " or @TIMESTAMP (@2076.044615)" : "", arg);
	return -1;
}
