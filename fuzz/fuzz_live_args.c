/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: hist-live's command line and -T file, with the tool's own
 * parsers (examples/hist-live/args.c).
 *
 * Input: option lines, a NUL byte, then a file.  Each option line is
 * "NAME VALUE" with NAME one of -t -s -i -d -p -b, or "-T" alone, which
 * reads the file part of the input (a memfd) as hist-live reads -T FILE.
 * An input with no NUL byte is all file, read as -T.  Every command the
 * parsers accept is then given to libhist as hist-live gives it: the
 * synthetic events first, then each trigger on its event (the fuzz
 * host's events: the 6.1 layouts of fuzz_common.h), and everything is
 * printed.
 */
#include "fuzz_common.h"
#include "../examples/hist-live/args.c"
#undef PROG	/* args.c's; other targets have their own */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FLA_MAX_OPTS 64
#define FLA_MAX_CMDS 256

struct fla {
	hist_ctx *ctx;
	unsigned nr_cmds;
};

/* hist-live's add_trigger(): the split, then the command to libhist */
static int fla_trigger(void *arg, const char *line, const char *where)
{
	struct fla *a = arg;
	struct hist_error err;
	const char *text;
	size_t t;
	hist_event *ev;

	if (live_split_trigger(line, where, &t, &text))
		return -1;
	if (a->nr_cmds++ >= FLA_MAX_CMDS)
		return 0;
	if (t == 16 && !strncmp(line, "synthetic_events", 16)) {
		hist_synth_parse(a->ctx, text, 0, &err);
		return 0;
	}
	ev = fz_event_by_path(a->ctx, line, t);
	if (ev)
		hist_trigger_parse(ev, text, &err);
	return 0;
}

static int fla_option(struct fla *a, char *line, const char *file)
{
	char *val = strchr(line, ' ');
	double secs;
	long kb;
	int pid;

	if (val)
		*val++ = 0;
	if (!strcmp(line, "-T"))
		return live_read_lines(file, fla_trigger, a);
	if (!val)
		return -1;
	if (!strcmp(line, "-t"))
		return fla_trigger(a, val, NULL);
	if (!strcmp(line, "-s")) {
		struct hist_error err;

		hist_synth_parse(a->ctx, val, 0, &err);
		return 0;
	}
	if (!strcmp(line, "-i") || !strcmp(line, "-d")) {
		if (live_parse_seconds(val, &secs))
			return -1;
		fz_touch(&secs, sizeof(secs));
		return 0;
	}
	if (!strcmp(line, "-p")) {
		if (live_parse_pid(val, &pid))
			return -1;
		fz_touch(&pid, sizeof(pid));
		return 0;
	}
	if (!strcmp(line, "-b")) {
		if (live_parse_kb(val, &kb))
			return -1;
		fz_touch(&kb, sizeof(kb));
		return 0;
	}
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t optlen = nul ? (size_t)(nul - data) : 0;
	const uint8_t *file = nul ? nul + 1 : data;
	char path[64], *opts, *line, *save = NULL;
	struct fla a;
	int fd, bad = 0, nr = 0;

	fd = fz_memfile(file, size - (size_t)(file - data), path, sizeof(path));
	if (fd < 0)
		return 0;
	opts = malloc(optlen + 1);
	memset(&a, 0, sizeof(a));
	a.ctx = fz_ctx_create();
	if (!opts || !a.ctx)
		goto out;
	memcpy(opts, data, optlen);
	opts[optlen] = 0;
	fz_quiet();
	if (!nul)
		bad = live_read_lines(path, fla_trigger, &a);
	for (line = strtok_r(opts, "\n", &save); line && !bad && nr < FLA_MAX_OPTS;
	     line = strtok_r(NULL, "\n", &save), nr++)
		bad = fla_option(&a, line, path);
	fz_loud();
	fz_print_all(a.ctx);
out:
	if (a.ctx)
		hist_ctx_destroy(a.ctx);
	free(opts);
	close(fd);
	return 0;
}
