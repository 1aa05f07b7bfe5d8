/* SPDX-License-Identifier: MIT */
/*
 * A small buffered text builder with the printf conversions the kernel's
 * hist output uses (%llu, %llx, %-Ns, %Ns with widths), so the core needs
 * no stdio and prints the same bytes on every platform.
 *
 * Layers (README "Architecture"): [common] < map schema < filter expr <
 * core < synth < actions < parse output < api < ftrace.
 * common/ calls nothing; every other module may call it.
 */
#ifndef HIST_FMT_H
#define HIST_FMT_H

#include "libhist.h"
#include "common/platform.h"

struct hist__sb {
	hist_write_fn write;	/* NULL: accumulate into a caller buffer */
	void *arg;
	char *out;		/* caller buffer mode */
	size_t out_len, out_cap;
	int err;
	size_t n;
	char buf[1024];
};

void hist__sb_init(struct hist__sb *sb, hist_write_fn write, void *arg) HIST__INTERNAL;
/* Write into BUF (CAP bytes, always NUL-terminated, truncating). */
void hist__sb_init_buf(struct hist__sb *sb, char *buf, size_t cap) HIST__INTERNAL;
void hist__sb_putn(struct hist__sb *sb, const char *s, size_t n) HIST__INTERNAL;
void hist__sb_puts(struct hist__sb *sb, const char *s) HIST__INTERNAL;
void hist__sb_putc(struct hist__sb *sb, char c) HIST__INTERNAL;
/* Unsigned decimal, right-aligned in WIDTH, padded with PAD (' ' or '0'). */
void hist__sb_u64(struct hist__sb *sb, uint64_t v, unsigned width, char pad) HIST__INTERNAL;
/* %-Nllu: left-aligned. */
void hist__sb_u64_left(struct hist__sb *sb, uint64_t v, unsigned width) HIST__INTERNAL;
void hist__sb_s64(struct hist__sb *sb, int64_t v, unsigned width) HIST__INTERNAL;
/* Lowercase hex, right-aligned in WIDTH padded with PAD. */
void hist__sb_hex(struct hist__sb *sb, uint64_t v, unsigned width, char pad) HIST__INTERNAL;
/* %-Ns (LEFT) or %Ns of the first N bytes of S. */
void hist__sb_str(struct hist__sb *sb, const char *s, size_t n, unsigned width,
		  bool left) HIST__INTERNAL;
void hist__sb_spaces(struct hist__sb *sb, unsigned n) HIST__INTERNAL;
/* Flush; returns the first write error (0 if none). */
int hist__sb_finish(struct hist__sb *sb) HIST__INTERNAL;

size_t hist__strlcpy(char *dst, const char *src, size_t size) HIST__INTERNAL;
/* Length of the well-formed UTF-8 sequence at S (N >= 1 bytes left), or 0
 * for a byte that starts none: overlong forms, surrogates and code points
 * beyond U+10FFFF are not well-formed (the JSON and OpenMetrics writers
 * escape such bytes one by one). */
size_t hist__utf8_len(const unsigned char *s, size_t n) HIST__INTERNAL;

#endif
