/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the event filter language.  Input: one byte choosing the
 * event (an index into fz_events), the filter text up to the first NUL,
 * then the bytes of a record the compiled filter is matched against (as
 * is, cut short, and as one of the canned records below).  The same text
 * is also set as the event's own filter and used as a trigger's "if".
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void filter_match_all(const hist_filter *f, const uint8_t *rec, size_t len)
{
	static const struct hist_hit hits[] = {
		{ .ts = 1000, .cpu = 0, .pid = -1 },
		{ .ts = 2000, .cpu = 3, .pid = 0, .comm = "swapper" },
		{ .ts = 3000, .cpu = 7, .pid = 42, .comm = "sleep" },
	};
	uint8_t canned[80];
	size_t i;

	for (i = 0; i < sizeof(hits) / sizeof(hits[0]); i++) {
		fz_sum += (uint64_t)hist_filter_match(f, rec, len, &hits[i]);
		fz_sum += (uint64_t)hist_filter_match(f, rec, len / 2, &hits[i]);
	}
	fz_sum += (uint64_t)hist_filter_match(f, rec, len, NULL);
	/* a plausible record: small ints, "sleep" strings, a data_loc */
	memset(canned, 0, sizeof(canned));
	memcpy(canned + 8, "sleep", 5);
	memcpy(canned + 40, "sh", 2);
	canned[24] = 42;
	canned[32] = 1;
	canned[56] = 7;
	canned[72] = 'x';
	fz_sum += (uint64_t)hist_filter_match(f, canned, sizeof(canned), &hits[2]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[FZ_LINE_MAX], trig[FZ_LINE_MAX + 32];
	const struct fz_event *fe;
	struct hist_error err;
	hist_filter *f;
	hist_event *ev;
	hist_ctx *ctx;
	size_t tn, rest;

	if (size < 1)
		return 0;
	fe = &fz_events[data[0] % FZ_NR_EVENTS];
	data++;
	size--;
	for (tn = 0; tn < size && data[tn]; tn++)
		;
	if (tn >= sizeof(text))
		return 0;
	memcpy(text, data, tn);
	text[tn] = 0;
	rest = tn < size ? size - tn - 1 : 0;

	ctx = fz_ctx_create();
	if (!ctx)
		return 0;
	ev = hist_event_lookup(ctx, fe->system, fe->name);
	if (!ev)
		goto out;
	f = hist_filter_compile(ev, text, &err);
	if (f) {
		filter_match_all(f, data + tn + (rest ? 1 : 0), rest);
		hist_filter_destroy(f);
	}
	if (!hist_event_set_filter(ev, text, &err))
		hist_event_print_triggers(ev, fz_sink, NULL);
	snprintf(trig, sizeof(trig), "hist:keys=common_pid if %s", text);
	if (!hist_trigger_parse(ev, trig, &err)) {
		struct hist_hit hit = { .ts = 5, .cpu = 1, .pid = -1 };

		hist_event_hit(ev, data + tn, rest, &hit);
		hist_event_print_hist(ev, fz_sink, NULL);
		hist_event_print_triggers(ev, fz_sink, NULL);
	}
	hist_ctx_print_error_log(ctx, fz_sink, NULL);
out:
	hist_ctx_destroy(ctx);
	return 0;
}
