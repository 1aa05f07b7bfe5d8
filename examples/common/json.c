/* SPDX-License-Identifier: MIT */
/*
 * The tools' JSON text (json.h).
 */
#include <stdint.h>
#include <string.h>

#include "json.h"

/*
 * Length of the valid UTF-8 sequence at S (N bytes left), or 0: the rules
 * of the library's hist__utf8_len() (src/common/fmt.c), which a tool,
 * linked against the public library only, cannot call.  Keep the two the
 * same: the tools' strings and libhist's must agree on what is copied.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
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
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

int json_write_str(hist_write_fn w, void *arg, const char *s)
{
	const char *run = s;	/* bytes copied as they are, not yet written */
	size_t n = strlen(s);
	int ret = w(arg, "\"", 1);

	while (!ret && n) {
		unsigned char c = (unsigned char)*s;
		size_t k = 1;
		char esc[8];

		if (c >= 0x80)
			k = utf8_len((const unsigned char *)s, n);
		if ((c >= 0x20 && c < 0x7f && c != '"' && c != '\\') || k > 1) {
			s += k;
			n -= k;
			continue;
		}
		if (c == '"' || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n' || c == '\t')
			snprintf(esc, sizeof(esc), "\\%c", c == '\n' ? 'n' : 't');
		else
			snprintf(esc, sizeof(esc), "\\u%04x", c);
		ret = w(arg, run, (size_t)(s - run));
		if (!ret)
			ret = w(arg, esc, strlen(esc));
		s++;
		n--;
		run = s;
	}
	if (!ret)
		ret = w(arg, run, (size_t)(s - run));
	return ret ? ret : w(arg, "\"", 1);
}

static int file_write(void *arg, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

void json_put_str(FILE *f, const char *s)
{
	json_write_str(file_write, f, s);
}

int json_line_write(void *arg, const char *buf, size_t len)
{
	struct json_line *l = arg;
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			l->skip_blanks = 1;
			continue;
		}
		if (l->skip_blanks && buf[i] == ' ')
			continue;
		l->skip_blanks = 0;
		if (putc(buf[i], l->f) == EOF)
			return -1;
	}
	return 0;
}
