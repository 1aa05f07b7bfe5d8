/* SPDX-License-Identifier: MIT */
/* Allocation hook and number parsing: the libc-facing half of platform.h. */
#include "libhist.h"
#include "common/platform.h"

#ifndef HIST_FREESTANDING
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
#else
/*
 * No malloc: a first-fit allocator over a static arena.  Allocation only
 * happens on the control thread (contract rule 1 of libhist.h), so it
 * needs no lock.  Blocks carry a 16-byte header {size, used}; free blocks
 * are merged with the following free block when freed or passed over.
 */
struct arena_hdr {
	size_t size; /* bytes of the block, header included */
	size_t used;
};

static unsigned char arena[HIST_ARENA_SIZE] HIST__ALIGNED(16);
static bool arena_ready;

static struct arena_hdr *arena_next(struct arena_hdr *h)
{
	unsigned char *n = (unsigned char *)h + h->size;

	return n < arena + sizeof(arena) ? (struct arena_hdr *)(void *)n : NULL;
}

static void *default_alloc(void *data, size_t size)
{
	struct arena_hdr *h, *n;
	size_t need = (size + sizeof(*h) + 15) & ~(size_t)15;

	(void)data;
	if (!arena_ready) {
		h = (struct arena_hdr *)(void *)arena;
		h->size = sizeof(arena);
		h->used = 0;
		arena_ready = true;
	}
	if (size > sizeof(arena))
		return NULL;
	for (h = (struct arena_hdr *)(void *)arena; h; h = arena_next(h)) {
		if (h->used)
			continue;
		while ((n = arena_next(h)) && !n->used)
			h->size += n->size;
		if (h->size < need)
			continue;
		if (h->size - need >= sizeof(*h) + 16) {
			n = (struct arena_hdr *)(void *)((unsigned char *)h + need);
			n->size = h->size - need;
			n->used = 0;
			h->size = need;
		}
		h->used = 1;
		memset(h + 1, 0, h->size - sizeof(*h));
		return h + 1;
	}
	return NULL;
}

static void default_free(void *data, void *p)
{
	struct arena_hdr *h = (struct arena_hdr *)p - 1, *n;

	(void)data;
	h->used = 0;
	while ((n = arena_next(h)) && !n->used)
		h->size += n->size;
}
#endif

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

int hist__grow(void *arrp, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t ncap = *cap ? *cap : first;
	void *old, *arr;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -HIST_ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / elem)
		return -HIST_ENOMEM;
	arr = hist__zalloc(ncap * elem);
	if (!arr)
		return -HIST_ENOMEM;
	/* *ARRP is a T *, read and written through void * bytes */
	memcpy(&old, arrp, sizeof(old));
	if (*cap)
		memcpy(arr, old, *cap * elem);
	hist__free(old);
	memcpy(arrp, &arr, sizeof(arr));
	*cap = ncap;
	return 0;
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
 * the whole span must be digits (one trailing newline allowed).  Returns
 * 0, -HIST_ERANGE when the digits overflow (before any bad character
 * after them, as the kernel checks: size=99999999999999999999 in
 * b83-size-range) or -HIST_EINVAL.
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
			return -HIST_ERANGE;
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
