/* SPDX-License-Identifier: MIT */
/* Allocation hook and number parsing: the libc-facing half of platform.h. */
#include "libhist.h"
#include "platform.h"

#include <stdlib.h>

static void *default_alloc(void *data, size_t size)
{
	(void)data;
	return calloc(1, size);
}

static void default_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static struct hist_allocator allocator = { default_alloc, default_free, NULL };

void hist_set_allocator(const struct hist_allocator *a)
{
	if (a && a->alloc && a->free)
		allocator = *a;
	else
		allocator = (struct hist_allocator){ default_alloc, default_free, NULL };
}

void *hist__zalloc(size_t size)
{
	return allocator.alloc(allocator.data, size ? size : 1);
}

void hist__free(void *p)
{
	if (p)
		allocator.free(allocator.data, p);
}

char *hist__strndup(const char *s, size_t n)
{
	char *d = hist__zalloc(n + 1);

	if (d)
		memcpy(d, s, n);
	return d;
}

char *hist__strdup(const char *s)
{
	return hist__strndup(s, strlen(s));
}

static int digit_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/*
 * The kernel's kstrtoull(): base 0 picks 0x (hex), 0 (octal) or decimal;
 * the whole span must be digits (one trailing newline allowed); overflow
 * fails.  Returns 0 or -HIST_EINVAL.
 */
int hist__parse_u64(const char *s, size_t n, int base, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (n && s[n - 1] == '\n')
		n--;
	if (base == 0) {
		if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
		    n > 2 && digit_val(s[2]) < 16) {
			base = 16;
			i = 2;
		} else if (n >= 1 && s[0] == '0') {
			base = 8;
		} else {
			base = 10;
		}
	} else if (base == 16 && n >= 2 && s[0] == '0' &&
		   (s[1] == 'x' || s[1] == 'X')) {
		i = 2;
	}
	if (i >= n)
		return -HIST_EINVAL;
	for (; i < n; i++) {
		int d = digit_val(s[i]);

		if (d >= base)
			return -HIST_EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -HIST_EINVAL;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

/* kstrtoll(): an optional '-' then kstrtoull(); range-checked. */
int hist__parse_s64(const char *s, size_t n, int base, int64_t *out)
{
	uint64_t v;
	int neg = 0;

	if (n && s[0] == '-') {
		neg = 1;
		s++;
		n--;
	} else if (n && s[0] == '+') {
		s++;
		n--;
	}
	if (hist__parse_u64(s, n, base, &v))
		return -HIST_EINVAL;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -HIST_EINVAL;
		*out = (int64_t)(0 - v);
	} else {
		if (v > (uint64_t)INT64_MAX)
			return -HIST_EINVAL;
		*out = (int64_t)v;
	}
	return 0;
}
