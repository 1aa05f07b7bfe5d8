/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the ftrace `format` file parser and the header_page
 * parser, on the same bytes.  A format that parses becomes an event of a
 * context: a histogram keyed on each of its first fields is created and
 * fed the input itself as a record, so field descriptors the parser lets
 * through (odd offsets, sizes, kinds) meet the accessors.
 */
#include "fuzz_common.h"
#include "hist_ftrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int format_no_event(void *d, const char *s, const char *n,
			   struct hist_event_desc *out)
{
	(void)d;
	(void)s;
	(void)n;
	(void)out;
	return -HIST_ENOENT;
}

static void format_use(const struct hist_ftrace_event *e, const uint8_t *rec,
		       size_t len)
{
	static const struct hist_host host = { .find_event = format_no_event };
	struct hist_hit hit = { .ts = 1, .cpu = 0, .pid = -1 };
	hist_event *ev = NULL;
	hist_ctx *ctx = hist_ctx_create(&host, NULL, NULL);
	uint32_t i;

	if (!ctx)
		return;
	if (hist_event_define(ctx, &e->desc, &ev) || !ev)
		goto out;
	for (i = 0; i < e->desc.nr_fields && i < 6; i++) {
		char cmd[512];
		struct hist_error err;

		snprintf(cmd, sizeof(cmd), "hist:keys=%s:vals=hitcount:size=128",
			 e->desc.fields[i].name);
		hist_trigger_parse(ev, cmd, &err);
		snprintf(cmd, sizeof(cmd), "hist:keys=common_pid:v=%s:vals=%s",
			 e->desc.fields[i].name, e->desc.fields[i].name);
		hist_trigger_parse(ev, cmd, &err);
	}
	hist_event_hit(ev, rec, len, &hit);
	hist_event_hit(ev, rec, len / 2, &hit);
	hist_event_print_hist(ev, fz_sink, NULL);
	hist_event_print_triggers(ev, fz_sink, NULL);
out:
	hist_ctx_destroy(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hist_ftrace_page_fmt pf;
	struct hist_ftrace_event *e = NULL;
	char err[256];

	if (hist_ftrace_parse_format((const char *)data, size, "fuzz", &e, err,
				     sizeof(err)) == 0 && e) {
		fz_touch(err, strnlen(err, sizeof(err)));
		format_use(e, data, size);
		hist_ftrace_event_free(e);
	}
	hist_ftrace_parse_header_page((const char *)data, size, &pf, err, sizeof(err));
	return 0;
}
