/* SPDX-License-Identifier: MIT */
#include "common/fmt.h"

void hist__sb_init(struct hist__sb *sb, hist_write_fn write, void *arg)
{
	sb->write = write;
	sb->arg = arg;
	sb->out = NULL;
	sb->out_len = sb->out_cap = 0;
	sb->err = 0;
	sb->n = 0;
}

void hist__sb_init_buf(struct hist__sb *sb, char *buf, size_t cap)
{
	hist__sb_init(sb, NULL, NULL);
	sb->out = buf;
	sb->out_cap = cap;
	if (cap)
		buf[0] = 0;
}

static void flush(struct hist__sb *sb)
{
	if (!sb->n)
		return;
	if (sb->write) {
		if (!sb->err)
			sb->err = sb->write(sb->arg, sb->buf, sb->n);
	} else if (sb->out_cap) {
		size_t room = sb->out_cap - 1 - sb->out_len;
		size_t k = sb->n < room ? sb->n : room;

		memcpy(sb->out + sb->out_len, sb->buf, k);
		sb->out_len += k;
		sb->out[sb->out_len] = 0;
	}
	sb->n = 0;
}

void hist__sb_putn(struct hist__sb *sb, const char *s, size_t n)
{
	while (n) {
		size_t room = sizeof(sb->buf) - sb->n;
		size_t k = n < room ? n : room;

		memcpy(sb->buf + sb->n, s, k);
		sb->n += k;
		s += k;
		n -= k;
		if (sb->n == sizeof(sb->buf))
			flush(sb);
	}
}

void hist__sb_puts(struct hist__sb *sb, const char *s)
{
	hist__sb_putn(sb, s, strlen(s));
}

void hist__sb_putc(struct hist__sb *sb, char c)
{
	if (sb->n == sizeof(sb->buf))
		flush(sb);
	sb->buf[sb->n++] = c;
}

void hist__sb_spaces(struct hist__sb *sb, unsigned n)
{
	while (n--)
		hist__sb_putc(sb, ' ');
}

static void put_digits(struct hist__sb *sb, const char *d, unsigned nd,
		       unsigned width, char pad, bool left)
{
	unsigned k;

	if (!left)
		for (k = nd; k < width; k++)
			hist__sb_putc(sb, pad);
	hist__sb_putn(sb, d, nd);
	if (left)
		for (k = nd; k < width; k++)
			hist__sb_putc(sb, ' ');
}

static unsigned fmt_u64(char *tmp, uint64_t v, unsigned base)
{
	static const char digits[] = "0123456789abcdef";
	char rev[24];
	unsigned n = 0, i;

	do {
		rev[n++] = digits[v % base];
		v /= base;
	} while (v);
	for (i = 0; i < n; i++)
		tmp[i] = rev[n - 1 - i];
	return n;
}

void hist__sb_u64(struct hist__sb *sb, uint64_t v, unsigned width, char pad)
{
	char d[24];

	put_digits(sb, d, fmt_u64(d, v, 10), width, pad, false);
}

void hist__sb_u64_left(struct hist__sb *sb, uint64_t v, unsigned width)
{
	char d[24];

	put_digits(sb, d, fmt_u64(d, v, 10), width, ' ', true);
}

void hist__sb_s64(struct hist__sb *sb, int64_t v, unsigned width)
{
	char d[25];
	unsigned n;

	if (v < 0) {
		d[0] = '-';
		n = 1 + fmt_u64(d + 1, 0 - (uint64_t)v, 10);
	} else {
		n = fmt_u64(d, (uint64_t)v, 10);
	}
	put_digits(sb, d, n, width, ' ', false);
}

void hist__sb_hex(struct hist__sb *sb, uint64_t v, unsigned width, char pad)
{
	char d[24];

	put_digits(sb, d, fmt_u64(d, v, 16), width, pad, false);
}

void hist__sb_str(struct hist__sb *sb, const char *s, size_t n, unsigned width,
		  bool left)
{
	size_t k;

	if (!left)
		for (k = n; k < width; k++)
			hist__sb_putc(sb, ' ');
	hist__sb_putn(sb, s, n);
	if (left)
		for (k = n; k < width; k++)
			hist__sb_putc(sb, ' ');
}

int hist__sb_finish(struct hist__sb *sb)
{
	flush(sb);
	return sb->err;
}

size_t hist__strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t k = n < size - 1 ? n : size - 1;

		memcpy(dst, src, k);
		dst[k] = 0;
	}
	return n;
}

size_t hist__utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}
