/* SPDX-License-Identifier: MIT */
/*
 * The corpus replay: every file of fuzz/corpus/<target>/ through its fuzz
 * target, so every input a campaign kept (and every crash it ever found,
 * the crash-* files) stays a regression test of `make check`, and of
 * `make check-asan`, where a leak or a stray byte fails the run.
 *
 * The targets are included here with their entry point renamed, so this
 * program needs neither AFL++ nor libFuzzer.  Run from the top folder.
 * With an argument (a target name) it replays only that target and echoes
 * everything the printers write: `build/test/test_corpus hit FILE...`
 * replays the given files instead of the corpus.
 */
#include "harness.h"

#include <dirent.h>
#include <stdlib.h>
#include <time.h>

#define LLVMFuzzerTestOneInput fuzz_trigger_one
#include "../fuzz/fuzz_trigger.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_filter_one
#include "../fuzz/fuzz_filter.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_synth_one
#include "../fuzz/fuzz_synth.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_format_one
#include "../fuzz/fuzz_format.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_page_one
#include "../fuzz/fuzz_page.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tracedat_one
#include "../fuzz/fuzz_tracedat.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tracedat_file_one
#include "../fuzz/fuzz_tracedat_file.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_hit_one
#include "../fuzz/fuzz_hit.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_perf_one
#include "../fuzz/fuzz_perf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_perf_pipe_one
#include "../fuzz/fuzz_perf_pipe.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_openmetrics_one
#include "../fuzz/fuzz_openmetrics.c"
#undef LLVMFuzzerTestOneInput
/* the tools' parsers (fuzz/README.md "Targets") */
#define LLVMFuzzerTestOneInput fuzz_replay_args_one
#include "../fuzz/fuzz_replay_args.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_live_args_one
#include "../fuzz/fuzz_live_args.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_malloc_triggers_one
#include "../fuzz/fuzz_malloc_triggers.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_histfs_writes_one
#include "../fuzz/fuzz_histfs_writes.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_listen_one
#include "../fuzz/fuzz_listen.c"
#undef LLVMFuzzerTestOneInput

#define CORPUS "fuzz/corpus/"

struct target {
	const char *name;
	int (*one)(const uint8_t *data, size_t size);
};

static const struct target targets[] = {
	{ "trigger", fuzz_trigger_one },
	{ "filter", fuzz_filter_one },
	{ "synth", fuzz_synth_one },
	{ "format", fuzz_format_one },
	{ "page", fuzz_page_one },
	{ "tracedat", fuzz_tracedat_one },
	{ "tracedat_file", fuzz_tracedat_file_one },
	{ "hit", fuzz_hit_one },
	{ "perf", fuzz_perf_one },
	{ "perf_pipe", fuzz_perf_pipe_one },
	{ "openmetrics", fuzz_openmetrics_one },
	{ "replay_args", fuzz_replay_args_one },
	{ "live_args", fuzz_live_args_one },
	{ "malloc_triggers", fuzz_malloc_triggers_one },
	{ "histfs_writes", fuzz_histfs_writes_one },
	{ "listen", fuzz_listen_one },
};

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		/* exactly N bytes, so ASan sees any read past the input */
		b = malloc(n ? (size_t)n : 1);
		if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
			free(b);
			b = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return b;
}

static int run_file(const struct target *t, const char *path)
{
	size_t len = 0;
	uint8_t *b = read_file(path, &len);

	if (!b) {
		T_FAILF("cannot read %s", path);
		return 0;
	}
	t->one(b, len);
	free(b);
	return 1;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every file of T's corpus, in name order; returns how many. */
static unsigned replay_dir(const struct target *t)
{
	char dir[256], path[512];
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	unsigned done = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), CORPUS "%s", t->name);
	d = opendir(dir);
	if (!d) {
		T_FAILF("no corpus %s (run from the top folder)", dir);
		return 0;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				break;
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		done += (unsigned)run_file(t, path);
		free(names[i]);
	}
	free(names);
	return done;
}

static const struct target *cur;

static void test_replay(void)
{
	struct timespec a, b;
	unsigned n;

	clock_gettime(CLOCK_MONOTONIC, &a);
	n = replay_dir(cur);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("# corpus %-8s %4u files in %5.0f ms\n", cur->name, n,
	       (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
	T_ASSERT(n > 0);
}

int main(int argc, char **argv)
{
	size_t i;

	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		cur = &targets[i];
		if (argc > 1 && strcmp(argv[1], cur->name))
			continue;
		if (argc > 2) {
			int k;

			fz_echo = stdout;
			for (k = 2; k < argc; k++)
				run_file(cur, argv[k]);
			return 0;
		}
		if (argc > 1)
			fz_echo = stdout;
		T_RUN(test_replay);
	}
	return T_DONE();
}
