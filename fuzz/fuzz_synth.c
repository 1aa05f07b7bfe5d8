/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the synthetic event definition grammar.  Each input line
 * is written to synthetic_events (or, as "dynamic_events<TAB>...", to
 * dynamic_events); lines starting with "hist" run as triggers on the
 * last event defined, so definitions, deletions and users meet.  Then
 * every defined event prints its format and generates one event with all
 * fields set, through hist_synth_trace_array() and the piecewise API.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Valid as a string (""), a stack (no frames) and an integer alike. */
static const uint64_t synth_zeros[8];

static void synth_generate(hist_ctx *ctx, const char *name)
{
	uint64_t vals[HIST_SYNTH_FIELDS_MAX];
	struct hist_synth_trace_state st;
	struct hist_hit hit = { .ts = 1000, .cpu = 1, .pid = 42 };
	hist_event *ev = hist_synth_event_get(ctx, name);
	unsigned i;

	if (!ev)
		return;
	for (i = 0; i < HIST_SYNTH_FIELDS_MAX; i++)
		vals[i] = (uint64_t)(uintptr_t)synth_zeros;
	for (i = 0; i <= HIST_SYNTH_FIELDS_MAX; i += 8)
		hist_synth_trace_array(ev, vals, i, &hit);
	for (i = 1; i < 8; i++)
		hist_synth_trace_array(ev, vals, i, &hit);
	if (!hist_synth_trace_start(ev, &st, &hit)) {
		for (i = 0; i < 4; i++)
			hist_synth_add_next_val(&st, (uint64_t)(uintptr_t)synth_zeros);
		hist_synth_add_val(&st, "lat", 5);
		hist_synth_trace_end(&st);
	}
	hist_synth_event_put(ev);
	hist_synth_print_format(ctx, name, fz_sink, NULL);
}

static int synth_line(hist_ctx *ctx, char *line, char *last, size_t lastsz)
{
	struct hist_error err;
	char *sp;

	if (!strncmp(line, "dynamic_events\t", 15))
		return hist_synth_parse(ctx, line + 15, 1, &err);
	if (!strncmp(line, "synthetic_events\t", 17))
		line += 17;
	if (!strncmp(line, "hist", 4) || !strncmp(line, "!hist", 5)) {
		hist_event *ev = hist_event_lookup(ctx, "synthetic", last);

		return ev ? hist_trigger_parse(ev, line, &err) : 0;
	}
	if (!strcmp(line, "truncate"))
		return hist_synth_truncate(ctx);
	if (hist_synth_parse(ctx, line, 0, &err) == 0 && line[0] != '!') {
		while (*line == ' ' || *line == '\t')
			line++;
		sp = strpbrk(line, " \t");
		if (sp)
			*sp = 0;
		if (strlen(line) < lastsz)
			memcpy(last, line, strlen(line) + 1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[FZ_LINE_MAX];
	struct fz_names nm;
	char last[256] = "", *names[64];
	hist_ctx *ctx = fz_ctx_create();
	size_t i = 0, nr = 0;

	if (!ctx)
		return 0;
	while (i < size && nr++ < FZ_MAX_COMMANDS) {
		size_t j = i, len;

		while (j < size && data[j] != '\n' && data[j] != 0)
			j++;
		len = j - i < sizeof(line) - 1 ? j - i : sizeof(line) - 1;
		memcpy(line, data + i, len);
		line[len] = 0;
		synth_line(ctx, line, last, sizeof(last));
		i = j + 1;
	}
	fz_synth_names(ctx, &nm, names, sizeof(names) / sizeof(names[0]));
	hist_synth_print(ctx, 1, fz_sink, NULL);
	hist_ctx_print_error_log(ctx, fz_sink, NULL);
	for (i = 0; names[i]; i++) {
		hist_event *ev;

		synth_generate(ctx, names[i]);
		ev = hist_event_lookup(ctx, "synthetic", names[i]);
		if (ev && hist_event_active(ev))
			hist_event_print_hist(ev, fz_sink, NULL);
	}
	hist_synth_truncate(ctx);
	hist_ctx_destroy(ctx);
	return 0;
}
