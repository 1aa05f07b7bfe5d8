/* SPDX-License-Identifier: MIT */
/*
 * hist-live's -T FILE on hostile files (examples/hist-live/args.c): each is
 * refused before any tracing starts, at once, with a message naming the
 * file (or FILE:LINE), never read without bound or cut into pieces.
 * Before args.c, /dev/zero was read until memory ran out, a line of 8 KiB
 * or more was split into two commands, and a directory read as empty.
 * And a size= the kernel refuses without a word gets the tool's reason.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static char build[512], dir[512];

/* hist-live -T FILE true: its exit status, its stderr in ERR */
static int run_T(const char *file, char *err, size_t cap)
{
	char cmd[2048], *e;
	int st;

	snprintf(cmd, sizeof(cmd), "timeout 20 %s/hist-live -T %s true 2> %s/err",
		 build, file, dir);
	st = system(cmd);
	e = t_readf("%s/err", dir);
	snprintf(err, cap, "%s", e ? e : "");
	free(e);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_hostile_files(void)
{
	char err[4096], path[600];
	FILE *f;
	int i;

	T_EQ(run_T("/dev/zero", err, sizeof(err)), 2);
	T_ASSERT(strstr(err, "/dev/zero: binary file (NUL byte)") != NULL);
	T_EQ(run_T(dir, err, sizeof(err)), 2);
	T_ASSERT(strstr(err, "Is a directory") != NULL);
	T_EQ(run_T("/nonexistent/x", err, sizeof(err)), 2);
	T_ASSERT(strstr(err, "/nonexistent/x: No such file") != NULL);
	/* a 10,000-byte bad line is one line (line 2), not two */
	snprintf(path, sizeof(path), "%s/long", dir);
	f = fopen(path, "w");
	T_ASSERT(f != NULL);
	if (!f)
		return;
	fprintf(f, "# a comment\n");
	for (i = 0; i < 10000; i++)
		fputc('x', f);
	fprintf(f, "\n");
	fclose(f);
	T_EQ(run_T(path, err, sizeof(err)), 2);
	T_ASSERT(strstr(err, "long:2: want 'SYSTEM/EVENT COMMAND'") != NULL);
	T_ASSERT(strstr(err, ":3:") == NULL);
	/* and is quoted by its start and its length, not whole */
	T_ASSERT(strstr(err, "...' (10000 bytes)") != NULL);
	T_ASSERT(strlen(err) < 1000);
}

/* hist-live -t with a size= the kernel refuses without an error_log
 * entry (b83-size-range): the reason and a caret on stderr */
static void test_size_hint(void)
{
	char tfs[512], cmd[2048], *e;
	int mounted = t_tracefs_find(tfs, sizeof(tfs), dir, "test_size_hint"), st;

	if (mounted < 0 || !t_tracefs_need(tfs, "events/raw_syscalls/sys_enter", 0,
					   "test_size_hint"))
		return;
	snprintf(cmd, sizeof(cmd), "timeout 20 %s/hist-live -t "
		 "'raw_syscalls/sys_enter hist:keys=id:size=64' true 2> %s/err",
		 build, dir);
	st = system(cmd);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	e = t_readf("%s/err", dir);
	T_ASSERT(e && strstr(e, "'hist:keys=id:size=64' failed: Invalid argument\n"
			     "hist-live: size=64: a map has 128 to 131072 entries "
			     "(2^7 to 2^17)\n"
			     "  Command: hist:keys=id:size=64\n"
			     "                             ^\n"));
	if (e && !strstr(e, "size=64: a map"))
		printf("# %s", e);
	free(e);
	t_tracefs_release(tfs, mounted);
}

int main(int argc, char **argv)
{
	(void)argc;
	t_build_dir(build, sizeof(build), argv[0]);
	if (t_scratch(dir, sizeof(dir), "test_tool_args")) {
		printf("# SKIP no scratch directory\n");
		return T_DONE();
	}
	T_RUN(test_hostile_files);
	T_RUN(test_size_hint);
	t_scratch_remove(dir);
	return T_DONE();
}
