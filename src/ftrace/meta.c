/* SPDX-License-Identifier: MIT */
/*
 * Small lookup tables a trace.dat carries besides the events:
 * saved_cmdlines ("<pid> <comm>" lines: comm of a pid) and printk_formats
 * ("0x<addr> : \"<format>\"" lines: the format string of a bprint event).
 * Both are parsed once into arrays sorted by key and searched by bisection.
 */
#include <stdlib.h>
#include <string.h>

#include "ftrace_int.h"

/* Copy TEXT (LEN bytes) with a final NUL; NULL when out of memory. */
static char *copy_text(const char *text, size_t len)
{
	char *t = malloc(len + 1);

	if (t) {
		memcpy(t, text, len);
		t[len] = '\0';
	}
	return t;
}

/* Cut the line at *pos: NUL-terminate it, return its start, advance. */
static char *next_line(char *text, size_t len, size_t *pos)
{
	char *s = text + *pos, *nl = memchr(s, '\n', len - *pos);

	if (nl) {
		*nl = '\0';
		*pos = (size_t)(nl - text) + 1;
	} else {
		*pos = len;
	}
	return s;
}

static int cmp_cmdline(const void *a, const void *b)
{
	const struct hist__cmdline *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->comm < y->comm ? -1 : x->comm > y->comm;
}

int hist__cmdlines_init(struct hist__cmdlines *c, const char *text, size_t len)
{
	size_t pos = 0, cap, nr = 0, i, j;

	memset(c, 0, sizeof(*c));
	if (!len)
		return 0;
	if (len >= UINT32_MAX)
		return -HIST_E2BIG;
	c->text = copy_text(text, len);
	cap = len / 4 + 1;	/* a line is at least "1 x\n" */
	c->ent = malloc(cap * sizeof(*c->ent));
	if (!c->text || !c->ent) {
		hist__cmdlines_fini(c);
		return -HIST_ENOMEM;
	}
	while (pos < len && nr < cap) {
		char *s = next_line(c->text, len, &pos), *sp;
		long long pid;

		sp = strchr(s, ' ');
		if (!sp || sp == s)
			continue;
		*sp = '\0';
		pid = strtoll(s, &s, 10);
		if (*s || pid < INT32_MIN || pid > INT32_MAX)
			continue;
		c->ent[nr].pid = (int32_t)pid;
		c->ent[nr].comm = (uint32_t)(sp + 1 - c->text);
		nr++;
	}
	qsort(c->ent, nr, sizeof(*c->ent), cmp_cmdline);
	/* A pid listed twice: the later line wins. */
	for (i = j = 0; i < nr; i++) {
		if (j && c->ent[j - 1].pid == c->ent[i].pid)
			j--;
		c->ent[j++] = c->ent[i];
	}
	c->nr = (uint32_t)j;
	return 0;
}

void hist__cmdlines_fini(struct hist__cmdlines *c)
{
	free(c->ent);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

const char *hist__cmdlines_find(const struct hist__cmdlines *c, int32_t pid)
{
	uint32_t lo = 0, hi = c->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->ent[mid].pid == pid)
			return c->text + c->ent[mid].comm;
		if (c->ent[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_printk(const void *a, const void *b)
{
	const struct hist__printk_fmt *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->fmt < y->fmt ? -1 : x->fmt > y->fmt;
}

int hist__printk_init(struct hist__printk *p, const char *text, size_t len)
{
	size_t pos = 0, cap, nr = 0;

	memset(p, 0, sizeof(*p));
	if (!len)
		return 0;
	if (len >= UINT32_MAX)
		return -HIST_E2BIG;
	p->text = copy_text(text, len);
	cap = len / 8 + 1;	/* "0x1 : \"\"\n" is 9 bytes */
	p->ent = malloc(cap * sizeof(*p->ent));
	if (!p->text || !p->ent) {
		hist__printk_fini(p);
		return -HIST_ENOMEM;
	}
	while (pos < len && nr < cap) {
		char *s = next_line(p->text, len, &pos), *e;
		unsigned long long addr;
		size_t n;

		addr = strtoull(s, &e, 16);
		if (e == s || strncmp(e, " : ", 3))
			continue;
		s = e + 3;
		n = strlen(s);
		/* The kernel prints the format in quotes; keep what is
		 * between them, escapes and all. */
		if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
			s[n - 1] = '\0';
			s++;
		}
		p->ent[nr].addr = addr;
		p->ent[nr].fmt = (uint32_t)(s - p->text);
		nr++;
	}
	qsort(p->ent, nr, sizeof(*p->ent), cmp_printk);
	p->nr = (uint32_t)nr;
	return 0;
}

void hist__printk_fini(struct hist__printk *p)
{
	free(p->ent);
	free(p->text);
	memset(p, 0, sizeof(*p));
}

const char *hist__printk_find(const struct hist__printk *p, uint64_t addr)
{
	uint32_t lo = 0, hi = p->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->ent[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nr && p->ent[lo].addr == addr ? p->text + p->ent[lo].fmt : NULL;
}
