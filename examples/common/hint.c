/* SPDX-License-Identifier: MIT */
/*
 * The tools' hints for refusals the kernel leaves out of error_log
 * (hint.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hint.h"

/* The smallest map (the kernel's TRACING_MAP_BITS_MIN) and the largest
 * a host of libhist may allow (hist_ctx_opts.max_map_bits). */
#define HINT_BITS_MIN 7u
#define HINT_BITS_HOST_MAX 24u

/* The end of the attributes of hist command CMD: its filter starts at
 * the first " if " (the kernel splits the command there). */
static size_t hint_attrs_end(const char *cmd)
{
	const char *f = strstr(cmd, " if ");

	return f ? (size_t)(f - cmd) : strlen(cmd);
}

/*
 * Why the value of size= at S (N bytes) is refused, into WHY (CAP bytes);
 * 0 if the kernel takes it.  kstrtoul(base 0) is strtoull(base 0) on a
 * span that starts with a digit or '+' and a digit (no blanks, no '-'),
 * and is read whole; an overflow wins over a bad character after it.
 */
static int hint_size_reason(const char *s, size_t n, unsigned max_bits,
		       const char *bits_opt, char *why, size_t cap)
{
	int w = n < 64 ? (int)n : 64;	/* of the value, in the message */
	size_t i = s[0] == '+';
	bool digit = i < n && s[i] >= '0' && s[i] <= '9';
	char *end = (char *)s;
	unsigned long long v = 0;
	unsigned bits = 0;

	errno = 0;
	if (digit)
		v = strtoull(s, &end, 0);
	if (errno == ERANGE) {
		snprintf(why, cap, "size=%.*s: past the largest number the "
			 "kernel reads (2^64 - 1)", w, s);
		return 1;
	}
	if (!digit || end != s + n) {
		snprintf(why, cap, "size=%.*s: not a number (decimal, 0x hex "
			 "or 0 octal)", w, s);
		return 1;
	}
	while (bits < 64 && (1ull << bits) < v)
		bits++;
	if (bits >= HINT_BITS_MIN && bits <= max_bits)
		return 0;
	if (bits > max_bits && bits <= HINT_BITS_HOST_MAX && bits_opt)
		snprintf(why, cap, "size=%.*s: a map has %llu to %llu entries "
			 "(2^%u to 2^%u); %s %u allows it", w, s, 1ull << HINT_BITS_MIN,
			 1ull << max_bits, HINT_BITS_MIN, max_bits, bits_opt, bits);
	else if (bits > HINT_BITS_HOST_MAX && bits_opt)
		snprintf(why, cap, "size=%.*s: a map has %llu to %llu entries "
			 "(2^%u to 2^%u); %s allows up to 2^%u", w, s,
			 1ull << HINT_BITS_MIN, 1ull << max_bits, HINT_BITS_MIN, max_bits,
			 bits_opt, HINT_BITS_HOST_MAX);
	else
		snprintf(why, cap, "size=%.*s: a map has %llu to %llu entries "
			 "(2^%u to 2^%u)", w, s, 1ull << HINT_BITS_MIN, 1ull << max_bits,
			 HINT_BITS_MIN, max_bits);
	return 1;
}

int hint_map_size(const char *cmd, unsigned max_bits, const char *bits_opt,
		  char *buf, size_t cap)
{
	size_t end = hint_attrs_end(cmd), at = 0, len, n;
	char why[256];

	/* each ':' item in order: the kernel stops at the first bad one */
	while (at < end) {
		const char *colon = memchr(cmd + at, ':', end - at);

		len = colon ? (size_t)(colon - cmd) - at : end - at;
		/* an empty size= has its own error_log entry */
		if (len > 5 && !strncmp(cmd + at, "size=", 5) &&
		    hint_size_reason(cmd + at + 5, len - 5, max_bits, bits_opt, why,
				sizeof(why))) {
			n = (size_t)snprintf(buf, cap, "%s\n  Command: %s\n", why, cmd);
			if (n < cap)
				snprintf(buf + n, cap - n, "%*s^", (int)(11 + at + 5), "");
			return 1;
		}
		at += len + 1;
	}
	return 0;
}
