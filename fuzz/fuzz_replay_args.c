/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: hist-replay's command line and command files, with the
 * tool's own parsers (examples/hist-replay/args.c) and its replay engine.
 *
 * Input: option lines, a NUL byte, then a file.  Each option line is
 * "NAME VALUE" with NAME one of -t -s --at-marker --cpu --from --to
 * --interval --kernel, or "-T" / "-S" alone: those read the file part of
 * the input (written to a memfd) as hist-replay reads -T FILE (TARGET<TAB>
 * TEXT lines) and -S FILE (synthetic event definitions).  An input with
 * no NUL byte is all file, read as -T.
 *
 * Then, as hist-replay does: a replay of a real 6.1 recording (a
 * conformance case: sched, raw_syscalls and trace_marker lines) gets the
 * synthetic events, the triggers and the marker writes (replay_write(),
 * replay_at_marker()), runs, and every event's histogram is printed.
 * FUZZ_REPLAY_TRACE names another recording.
 */
#include "fuzz_common.h"
#include "../examples/hist-replay/args.c"
#undef PROG	/* args.c's; other targets have their own */
#include "../examples/hist-replay/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FRA_TRACE "test/conformance/cases/g26-pause-cont/trace.dat"
/* bounds of one input's work: a fuzzer wants many short runs */
#define FRA_MAX_OPTS 64
#define FRA_MAX_CMDS 256

struct fra {
	struct cmds synth, trig;
	struct marker *markers;
	size_t nr_markers, markers_cap;
	uint8_t *cpu_set;
	uint32_t nr_cpu_set;
	uint64_t from, to, interval;
	int from_abs, to_abs;
	uint32_t kernel;
};

/* One option line (NUL-terminated); FILE is the file part's path. */
static int fra_option(struct fra *a, char *line, const char *file)
{
	char *val = strchr(line, ' ');
	const char *text;
	size_t tlen;
	int dummy;

	if (val)
		*val++ = 0;
	if (!strcmp(line, "-T"))
		return load_lines(file, 1, &a->trig);
	if (!strcmp(line, "-S"))
		return load_lines(file, 0, &a->synth);
	if (!val)
		return -1;
	if (!strcmp(line, "-t")) {
		if (split_target(val, &text, &tlen))
			return -1;
		cmds_add(&a->trig, val, tlen, text, "-t");
		return 0;
	}
	if (!strcmp(line, "-s")) {
		cmds_add(&a->synth, "synthetic_events", 16, val, "-s");
		return 0;
	}
	if (!strcmp(line, "--at-marker"))
		return add_marker(&a->markers, &a->nr_markers, &a->markers_cap, val);
	if (!strcmp(line, "--cpu"))
		return parse_cpus(val, &a->cpu_set, &a->nr_cpu_set);
	if (!strcmp(line, "--from"))
		return parse_seconds("--from", val, &a->from, &a->from_abs, 1);
	if (!strcmp(line, "--to"))
		return parse_seconds("--to", val, &a->to, &a->to_abs, 1);
	if (!strcmp(line, "--interval"))
		return parse_seconds("--interval", val, &a->interval, &dummy, 0);
	if (!strcmp(line, "--kernel"))
		return hist_kernel_parse(val, &a->kernel) ? -1 : 0;
	return -1;
}

static void fra_run(struct fra *a)
{
	struct replay_opts ro;
	struct replay *r;
	const char *trace = getenv("FUZZ_REPLAY_TRACE");
	char err[512];
	size_t i;

	memset(&ro, 0, sizeof(ro));
	ro.kernel = a->kernel;
	ro.cpu_set = a->cpu_set;
	ro.nr_cpu_set = a->nr_cpu_set;
	ro.from = a->from;
	ro.from_abs = a->from_abs;
	ro.to = a->to;
	ro.to_abs = a->to_abs;
	ro.interval = a->interval;
	r = replay_open(trace ? trace : FRA_TRACE, &ro, err, sizeof(err));
	if (!r) {
		/* the recording is part of the tree: not finding it is a bug
		 * of the set-up, not of the input */
		fprintf(stderr, "fuzz_replay_args: %s\n", err);
		abort();
	}
	for (i = 0; i < a->synth.n && i < FRA_MAX_CMDS; i++) {
		replay_write(r, a->synth.v[i].target, a->synth.v[i].text);
		fz_touch(replay_last_errlog(r), strlen(replay_last_errlog(r)));
	}
	for (i = 0; i < a->trig.n && i < FRA_MAX_CMDS; i++) {
		replay_write(r, a->trig.v[i].target, a->trig.v[i].text);
		fz_touch(replay_last_errlog(r), strlen(replay_last_errlog(r)));
	}
	for (i = 0; i < a->nr_markers && i < FRA_MAX_CMDS; i++)
		replay_at_marker(r, a->markers[i].text, a->markers[i].target,
				 a->markers[i].cmd);
	replay_run(r);
	for (i = 0; i < replay_nr_events(r); i++) {
		hist_event *ev = replay_event(r, i, NULL, NULL);

		if (ev && hist_event_active(ev))
			hist_event_print_hist(ev, fz_sink, NULL);
		if (ev)
			hist_event_print_triggers(ev, fz_sink, NULL);
	}
	replay_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t optlen = nul ? (size_t)(nul - data) : 0;
	const uint8_t *file = nul ? nul + 1 : data;
	size_t filelen = size - (size_t)(file - data);
	char path[64], *opts, *line, *save = NULL;
	struct fra a;
	int fd, bad = 0, nr = 0;

	fd = fz_memfile(file, filelen, path, sizeof(path));
	if (fd < 0)
		return 0;
	opts = malloc(optlen + 1);
	if (!opts) {
		close(fd);
		return 0;
	}
	memcpy(opts, data, optlen);
	opts[optlen] = 0;
	memset(&a, 0, sizeof(a));
	a.kernel = REPLAY_KERNEL_AUTO;
	fz_quiet();
	if (!nul)
		bad = load_lines(path, 1, &a.trig);
	for (line = strtok_r(opts, "\n", &save); line && !bad && nr < FRA_MAX_OPTS;
	     line = strtok_r(NULL, "\n", &save), nr++)
		bad = fra_option(&a, line, path);
	/* hist-replay stops at the first bad argument, before any replay */
	if (!bad && (a.interval == 0 || a.interval >= 1000000))
		fra_run(&a);
	fz_loud();
	cmds_free(&a.synth);
	cmds_free(&a.trig);
	for (size_t i = 0; i < a.nr_markers; i++) {
		free(a.markers[i].text);
		free(a.markers[i].target);
		free(a.markers[i].cmd);
	}
	free(a.markers);
	free(a.cpu_set);
	free(opts);
	close(fd);
	return 0;
}
