/* SPDX-License-Identifier: MIT */
/*
 * What a perf.data needs from the replay beyond what a trace.dat does.
 *
 * perf stores no kallsyms in its tracing data (its tracing-data section
 * has an empty kallsyms item: perf resolves addresses against the running
 * system, or the file `perf script --kallsyms FILE` names), so `.sym` keys
 * and stacktrace keys would print bare addresses.  hist-replay does as
 * perf does: --kallsyms FILE (a copy of the recorded machine's
 * /proc/kallsyms, plain or zstd-compressed as a saved copy often is;
 * HIST_REPLAY_KALLSYMS is the same), else /proc/kallsyms when the
 * recording's kernel release is the running one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zstd.h>

#include "replay.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 20, n = 0, got;
	char *buf = malloc(cap), *nb;

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	/* /proc files have no size: read until the end */
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

/* The release word of "Linux HOST RELEASE ARCH". */
static int same_release(const char *uname_text)
{
	struct utsname u;
	const char *p = uname_text, *e;
	int i;

	if (uname(&u))
		return 0;
	for (i = 0; i < 2 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return 0;
	e = strchr(p, ' ');
	return (size_t)(e ? e - p : (long)strlen(p)) == strlen(u.release) &&
	       !strncmp(p, u.release, strlen(u.release));
}

/* TEXT (LEN bytes) decompressed if it is a zstd frame; NULL on a bad one. */
static char *inflate(char *text, size_t *len)
{
	unsigned long long n;
	char *out;
	size_t got;

	if (*len < 4 || memcmp(text, "\x28\xb5\x2f\xfd", 4))
		return text;
	n = ZSTD_getFrameContentSize(text, *len);
	/* a kallsyms is a few MB; the size bounds what a bad header asks */
	if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > (1ull << 30))
		n = 0;
	out = n ? malloc((size_t)n + 1) : NULL;
	got = out ? ZSTD_decompress(out, (size_t)n, text, *len) : 0;
	free(text);
	if (!out || ZSTD_isError(got)) {
		free(out);
		return NULL;
	}
	*len = got;
	return out;
}

void replay_perf_kallsyms(struct hist_tracedat *td, const char *path, const char *file,
			  int warn)
{
	char *text;
	size_t len = 0;

	if (!strcmp(hist_tracedat_format(td), "trace.dat"))
		return;
	if (!file || !*file)
		file = getenv("HIST_REPLAY_KALLSYMS");
	if (!file || !*file) {
		if (!same_release(hist_tracedat_uname(td))) {
			if (warn)
				fprintf(stderr, "hist-replay: %s: warning: recorded on %s, not "
					"this kernel, and perf.data holds no kallsyms: pass "
					"--kallsyms FILE (that machine's /proc/kallsyms) to "
					"resolve symbols\n", path,
					hist_tracedat_uname(td)[0] ? hist_tracedat_uname(td) :
								     "another kernel");
			return;
		}
		file = "/proc/kallsyms";
	}
	text = slurp(file, &len);
	if (text)
		text = inflate(text, &len);
	if (!text) {
		if (warn)
			fprintf(stderr, "hist-replay: %s: warning: cannot read %s: symbols "
				"stay unresolved\n", path, file);
		return;
	}
	hist_tracedat_set_kallsyms(td, text, len);
	free(text);
}
