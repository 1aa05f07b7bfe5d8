/* SPDX-License-Identifier: MIT */
/*
 * The text of writes to histfs's command files (writes.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writes.h"

char *hfs_command(const char *buf, size_t size)
{
	char *s = strndup(buf, size), *p, *e;

	if (!s)
		return NULL;
	for (p = s; *p == ' ' || *p == '\t' || *p == '\n'; p++)
		;
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		*--e = 0;
	memmove(s, p, strlen(p) + 1);
	return s;
}

int hctx_is_hist_cmd(const char *cmd)
{
	size_t n;

	if (*cmd == '!')
		cmd++;
	n = strcspn(cmd, ": \t\n");
	return (n == 4 && !strncmp(cmd, "hist", 4)) ||
	       (n == 11 && !strncmp(cmd, "enable_hist", 11)) ||
	       (n == 12 && !strncmp(cmd, "disable_hist", 12));
}

/* Whether the word at N (up to a blank) is one of NAMES. */
static int is_named(const char *n, char *const *names)
{
	size_t i, len = strcspn(n, " \t");

	for (i = 0; names && names[i]; i++)
		if (!strncmp(names[i], n, len) && !names[i][len])
			return 1;
	return 0;
}

int hfs_dyn_is_synth(const char *cmd, char *const *names)
{
	const char *n;

	if (!strncmp(cmd, "s:", 2))
		return 1;
	if (strncmp(cmd, "-:", 2))
		return 0;
	n = cmd + 2;
	if (!strncmp(n, "synthetic/", 10))
		n += 10;
	return is_named(n, names);
}

int hfs_dyn_is_synth_eprobe(const char *cmd, char *const *names)
{
	const char *a;

	if (cmd[0] != 'e' || (cmd[1] != ':' && cmd[1] != ' ' && cmd[1] != '\t'))
		return 0;
	a = cmd + strcspn(cmd, " \t");
	a += strspn(a, " \t");
	if (strncmp(a, "synthetic", 9) || (a[9] != '.' && a[9] != '/'))
		return 0;
	return is_named(a + 10, names);
}

int hfs_each_line(const char *buf, size_t size, int strip_comments,
		  int (*fn)(void *arg, char *cmd), void *arg)
{
	char *text = strndup(buf, size), *line, *save = NULL;
	int ret = 0;

	if (!text)
		return -ENOMEM;
	for (line = strtok_r(text, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *cmd = hfs_command(line, strlen(line)), *hash;

		if (!cmd) {
			ret = -ENOMEM;
			break;
		}
		hash = strchr(cmd, '#');
		if (hash && strip_comments)
			*hash = 0;
		if (*cmd)
			ret = fn(arg, cmd);
		free(cmd);
	}
	free(text);
	return ret;
}

/* ---- synthetic event definitions as Linux 5.10 and 5.11 parsed them ---- */

enum { OLD_BAD_NAME = 1, OLD_CMD_INCOMPLETE, OLD_TOO_MANY_FIELDS, OLD_INCOMPLETE_TYPE,
       OLD_INVALID_TYPE, OLD_INVALID_FIELD };

#define OLD_FIELDS_MAX 32	/* SYNTH_FIELDS_MAX until 5.13 raised it */
#define OLD_LAST_CMD 256	/* the echo: MAX_FILTER_STR_VAL, NUL included */
#define OLD_MAX_WORDS 512

/* the kernel's ctype: Latin-1 letters are letters */
static int k_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= 0xc0 && c != 0xd7 && c != 0xf7);
}

/* is_good_name(): a letter or '_', then letters, digits and '_' */
static int good_name(const char *s, size_t n)
{
	size_t i;

	if (!n || (!k_alpha((unsigned char)s[0]) && s[0] != '_'))
		return 0;
	for (i = 1; i < n; i++)
		if (!k_alpha((unsigned char)s[i]) && !(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
			return 0;
	return 1;
}

/* The size of a 5.10 type: > 0, 0 for "char[]" (a dynamic string), -1
 * for a type it did not know or a bad "char[N]". */
static int old_type_size(const char *t)
{
	static const char *const known[] = {
		"s64", "u64", "s32", "u32", "s16", "u16", "s8", "u8", "char",
		"unsigned char", "int", "unsigned int", "short", "unsigned short",
		"long", "unsigned long", "bool", "pid_t", "gfp_t", NULL,
	};
	const char *start = strstr(t, "char["), *end;
	char digits[4], *e;
	unsigned long v;
	size_t i;

	for (i = 0; known[i]; i++)
		if (!strcmp(t, known[i]))
			return 1;
	if (!start)
		return -1;
	start += 5;
	end = strchr(t, ']');
	/* nothing may follow the ']' */
	if (!end || end < start || end[1])
		return -1;
	if ((size_t)(end - start) > 3)
		return -1;
	if (end == start)
		return 0;
	memcpy(digits, start, (size_t)(end - start));
	digits[end - start] = 0;
	if (digits[0] == '-' || digits[0] == ' ')
		return -1;
	v = strtoul(digits, &e, 0);
	return *e || v > 256 ? -1 : (int)v;
}

/* errpos(): the first occurrence of WORD in the echo, else 0 */
static unsigned old_pos(const char *echo, const char *word)
{
	const char *f = strstr(echo, word);

	return f ? (unsigned)(f - echo) : 0;
}

/* One field: argv[0] [argv[1]] name; *USED words.  0 or an error. */
static int old_field(char **argv, int argc, const char *echo, int *used, unsigned *pos)
{
	const char *type = argv[0], *name, *prefix = "", *array;
	char t[600];
	size_t len;
	int size;

	if (type[0] == ';')
		type++;
	if (!strcmp(type, "unsigned")) {
		if (argc < 3) {
			*pos = old_pos(echo, type);
			return OLD_INCOMPLETE_TYPE;
		}
		prefix = "unsigned ";
		type = argv[1];
		name = argv[2];
		*used = 3;
	} else {
		name = argv[1];
		*used = 2;
	}
	/* the name ends at '[' (an array: the rest joins the type) or
	 * before one ';' */
	len = strlen(name);
	array = strchr(name, '[');
	if (array)
		len = (size_t)(array - name);
	else if (len && name[len - 1] == ';')
		len--;
	if (!good_name(name, len)) {
		*pos = old_pos(echo, name);
		return OLD_BAD_NAME;
	}
	if (type[0] == ';')
		type++;
	snprintf(t, sizeof(t), "%s%s%s", prefix, type, array ? array : "");
	/* one ';' after the array is dropped, more stay in the type */
	if (array && t[0] && t[strlen(t) - 1] == ';')
		t[strlen(t) - 1] = 0;
	size = old_type_size(t);
	if (size < 0 || (size == 0 && !strstr(t, "char["))) {
		*pos = old_pos(echo, type);
		return OLD_INVALID_TYPE;
	}
	return 0;
}

int hfs_synth_check_5_10(const char *cmd, char *echo, size_t echolen, unsigned *pos)
{
	char *copy = strdup(cmd), *argv[OLD_MAX_WORDS], *w, *save = NULL;
	char last[OLD_LAST_CMD];
	int argc = 0, i, n_fields = 0, used = 0, ret = 0;
	size_t len = 0;

	*pos = 0;
	if (!copy)
		return -ENOMEM;
	/* argv_split(): words between blanks */
	for (w = strtok_r(copy, " \t", &save); w && argc < OLD_MAX_WORDS;
	     w = strtok_r(NULL, " \t", &save))
		argv[argc++] = w;
	last[0] = 0;
	for (i = 0; i < argc && len + 1 < sizeof(last); i++)
		len += (size_t)snprintf(last + len, sizeof(last) - len, "%s%s", i ? " " : "",
					argv[i]);
	snprintf(echo, echolen, "%s", last);
	if (!argc || argc < 2) {
		ret = OLD_CMD_INCOMPLETE;
		goto out;
	}
	if (!good_name(argv[0], strlen(argv[0]))) {
		*pos = old_pos(last, argv[0]);
		ret = OLD_BAD_NAME;
		goto out;
	}
	/* the fields: argv[1..]; a word of its own ";" separates */
	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], ";"))
			continue;
		if (n_fields == OLD_FIELDS_MAX) {
			ret = OLD_TOO_MANY_FIELDS;
			goto out;
		}
		ret = old_field(argv + i, argc - i, last, &used, pos);
		if (ret)
			goto out;
		n_fields++;
		i += used - 1;
	}
	if (i < argc && strcmp(argv[i], ";")) {
		*pos = old_pos(last, argv[i]);
		ret = OLD_INVALID_FIELD;
	}
out:
	free(copy);
	return ret;
}
