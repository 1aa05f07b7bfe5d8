/* SPDX-License-Identifier: MIT */
/*
 * The text of writes to histfs's command files (writes.h).
 */
#include <errno.h>
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

int hfs_dyn_is_synth(const char *cmd, char *const *names)
{
	const char *n;
	size_t i, len;

	if (!strncmp(cmd, "s:", 2))
		return 1;
	if (strncmp(cmd, "-:", 2))
		return 0;
	n = cmd + 2;
	if (!strncmp(n, "synthetic/", 10))
		n += 10;
	len = strcspn(n, " \t");
	for (i = 0; names && names[i]; i++)
		if (!strncmp(names[i], n, len) && !names[i][len])
			return 1;
	return 0;
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
