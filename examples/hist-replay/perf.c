/* SPDX-License-Identifier: MIT */
/*
 * What a perf.data needs from the replay beyond what a trace.dat does.
 *
 * perf stores no kallsyms in its tracing data (perf resolves addresses
 * against the running system when it reports), so `.sym` keys and
 * stacktrace keys would print bare addresses.  When the recording's
 * kernel release is the running one, /proc/kallsyms is the table perf
 * itself would use; HIST_REPLAY_KALLSYMS names another file (the kallsyms
 * of the recorded machine, e.g. a trace.dat's, or a saved copy).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

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

void replay_perf_kallsyms(struct hist_tracedat *td, const char *path, int warn)
{
	const char *file = getenv("HIST_REPLAY_KALLSYMS");
	char *text;
	size_t len = 0;

	if (!strcmp(hist_tracedat_format(td), "trace.dat"))
		return;
	if (!file || !*file) {
		if (!same_release(hist_tracedat_uname(td))) {
			if (warn)
				fprintf(stderr, "hist-replay: %s: warning: recorded on %s, not "
					"this kernel, and perf.data holds no kallsyms: set "
					"HIST_REPLAY_KALLSYMS=FILE to resolve symbols\n",
					path, hist_tracedat_uname(td)[0] ?
						hist_tracedat_uname(td) : "another kernel");
			return;
		}
		file = "/proc/kallsyms";
	}
	text = slurp(file, &len);
	if (!text) {
		if (warn)
			fprintf(stderr, "hist-replay: %s: warning: cannot read %s: symbols "
				"stay unresolved\n", path, file);
		return;
	}
	hist_tracedat_set_kallsyms(td, text, len);
	free(text);
}
