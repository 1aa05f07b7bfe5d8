/* SPDX-License-Identifier: MIT */
/*
 * kallsyms: addresses to "name" (%ps) and "name+0xoff/0xsize" (%pS).
 *
 * The kernel resolves an address against its own symbol table: the
 * greatest symbol address <= addr, the first of several aliases at that
 * address, and a size running to the next greater address.  /proc/kallsyms
 * prints that table in the same order, so file order breaks ties here too.
 * Absolute symbols ('a'/'A': the per-CPU offsets near 0) are left out: the
 * kernel only resolves addresses inside its image or a module, and they
 * would otherwise claim every small number.  Text and data symbols alike
 * are kept (a KALLSYMS_ALL kernel resolves both).
 *
 * Module symbols ("name\t[module]") are sized against the next symbol of
 * the same module, which is what the module lookup does (the kernel ends
 * a module's last symbol at the end of its text, a bound the file lacks;
 * we take the next symbol's address instead).  Core symbols are sized
 * against the next core symbol; an address past the last one (the gap
 * before module space) stays unresolved, as the kernel's range check
 * leaves it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace_int.h"

/* How far ahead to look for the next symbol of the same module. */
#define SAME_MOD_SCAN 256

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct hist__ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Name offsets grow in file order: the first alias wins. */
	return x->name < y->name ? -1 : x->name > y->name;
}

/* One line at TEXT[*pos]; fills *s and returns 1 if it is a symbol. */
static int parse_line(char *text, size_t len, size_t *pos, struct hist__ksym *s)
{
	size_t i = *pos, eol;
	char *nl = memchr(text + i, '\n', len - i);
	uint64_t addr = 0;
	int digits = 0, v;
	char type;

	eol = nl ? (size_t)(nl - text) : len;
	*pos = nl ? eol + 1 : len;
	text[eol] = '\0';
	while (i < eol && (v = hexval((unsigned char)text[i])) >= 0) {
		addr = addr << 4 | (uint64_t)v;
		digits++;
		i++;
	}
	if (!digits || digits > 16 || eol - i < 4 || text[i] != ' ' ||
	    text[i + 2] != ' ')
		return 0;
	type = text[i + 1];
	if (type == 'a' || type == 'A')
		return 0;
	i += 3;
	s->addr = addr;
	s->name = (uint32_t)i;
	s->mod = 0;
	while (i < eol && text[i] != '\t' && text[i] != ' ' && text[i] != '\r')
		i++;
	if (i == s->name)
		return 0;
	if (i < eol) {
		char *m = text + i;

		*m++ = '\0';
		while (*m == '\t' || *m == ' ')
			m++;
		if (*m == '[') {
			char *e = strchr(m, ']');

			if (e && e > m + 1) {
				*e = '\0';
				s->mod = (uint32_t)(m + 1 - text);
			}
		}
	}
	return 1;
}

int hist__ksyms_init(struct hist__ksyms *ks, const char *text, size_t len)
{
	size_t pos = 0, cap = 0, nr = 0, i, j;
	struct hist__ksym *syms = NULL;

	memset(ks, 0, sizeof(*ks));
	if (!len)
		return 0;
	if (len >= UINT32_MAX)
		return -HIST_E2BIG;
	ks->text = malloc(len + 1);
	if (!ks->text)
		return -HIST_ENOMEM;
	memcpy(ks->text, text, len);
	ks->text[len] = '\0';
	/* Roughly 45 bytes a line; grow if the guess is short. */
	cap = len / 32 + 16;
	syms = malloc(cap * sizeof(*syms));
	if (!syms)
		goto nomem;
	while (pos < len) {
		if (nr == cap) {
			struct hist__ksym *n = realloc(syms, 2 * cap * sizeof(*syms));

			if (!n)
				goto nomem;
			syms = n;
			cap *= 2;
		}
		nr += (size_t)parse_line(ks->text, len, &pos, &syms[nr]);
	}
	qsort(syms, nr, sizeof(*syms), cmp_sym);
	for (i = j = 0; i < nr; i++)
		if (!j || syms[i].addr != syms[j - 1].addr)
			syms[j++] = syms[i];
	ks->syms = syms;
	ks->nr = (uint32_t)j;
	return 0;
nomem:
	free(syms);
	free(ks->text);
	memset(ks, 0, sizeof(*ks));
	return -HIST_ENOMEM;
}

void hist__ksyms_fini(struct hist__ksyms *ks)
{
	free(ks->syms);
	free(ks->text);
	memset(ks, 0, sizeof(*ks));
}

static int same_mod(const struct hist__ksyms *ks, const struct hist__ksym *a,
		    const struct hist__ksym *b)
{
	if (!a->mod || !b->mod)
		return a->mod == b->mod;
	return !strcmp(ks->text + a->mod, ks->text + b->mod);
}

int hist__ksyms_lookup(const struct hist__ksyms *ks, uint64_t addr,
		       int with_offset, char *buf, size_t len)
{
	const struct hist__ksym *s;
	uint32_t lo = 0, hi = ks->nr, i;
	uint64_t end = 0;
	int n;

	/* First symbol above ADDR; the one before it covers ADDR. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	s = &ks->syms[lo - 1];
	for (i = lo; i < ks->nr && i - lo < SAME_MOD_SCAN; i++) {
		if (same_mod(ks, s, &ks->syms[i])) {
			end = ks->syms[i].addr;
			break;
		}
	}
	/* A module's last symbol runs to the end of its text, which the
	 * file does not give: take whatever comes next.  Past the kernel's
	 * own last symbol nothing is resolved, as in the kernel. */
	if (!end && s->mod && lo < ks->nr)
		end = ks->syms[lo].addr;
	if (!end && addr != s->addr)
		return -1;
	if (!buf || !len)
		return -1;
	if (with_offset)
		n = snprintf(buf, len, "%s+0x%llx/0x%llx", ks->text + s->name,
			     (unsigned long long)(addr - s->addr),
			     (unsigned long long)(end ? end - s->addr : 0));
	else
		n = snprintf(buf, len, "%s", ks->text + s->name);
	if (n >= 0 && s->mod && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " [%s]", ks->text + s->mod);
	if (n < 0)
		return -1;
	return (size_t)n < len ? n : (int)strlen(buf);
}
