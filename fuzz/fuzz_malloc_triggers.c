/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the malloc tracer's triggers file (HIST_MALLOC_TRIGGERS),
 * with the tracer's own reader and applier (examples/malloc-trace/
 * triggers.c) on a context with the tracer's events (malloc/malloc_entry,
 * malloc/malloc_exit, malloc/free).  The input is the file: it is written
 * to a memfd, read by mt_read_all() (bounded, whole) and applied line by
 * line by mt_apply_all(); then a few allocator events are fed, as the
 * hooks feed them, and every histogram is printed.
 */
#include "fuzz_common.h"
#include "../examples/malloc-trace/triggers.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fmt_feed(hist_ctx *ctx)
{
	hist_event *entry = hist_event_lookup(ctx, "malloc", "malloc_entry");
	hist_event *exit_ = hist_event_lookup(ctx, "malloc", "malloc_exit");
	hist_event *fr = hist_event_lookup(ctx, "malloc", "free");
	struct rec_entry e;
	struct rec_exit x;
	struct rec_free f;
	struct hist_hit hit;
	unsigned i;

	memset(&hit, 0, sizeof(hit));
	for (i = 0; i < 16; i++) {
		hit.ts = 1000 + 10 * (uint64_t)i;
		hit.cpu = i & 1;
		hit.pid = (int32_t)(100 + (i & 3));
		hit.comm = "fuzzed";
		memset(&e, 0, sizeof(e));
		e.c.type = EV_ENTRY;
		e.c.pid = (int32_t)(100 + (i & 3));
		e.size = (uint64_t)1 << (i % 12);
		if (entry)
			hist_event_hit(entry, &e, sizeof(e), &hit);
		hit.ts += 3 + i;
		memset(&x, 0, sizeof(x));
		x.c = e.c;
		x.c.type = EV_EXIT;
		x.size = e.size;
		x.ptr = 0x10000 + 0x40 * (uint64_t)i;
		if (exit_)
			hist_event_hit(exit_, &x, sizeof(x), &hit);
		memset(&f, 0, sizeof(f));
		f.c = e.c;
		f.c.type = EV_FREE;
		f.ptr = x.ptr;
		if (fr)
			hist_event_hit(fr, &f, sizeof(f), &hit);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct hist_host host = { .find_event = mt_find_event };
	static const char *const names[] = { "malloc_entry", "malloc_exit", "free" };
	unsigned i;
	char path[64], *text;
	size_t len = 0;
	hist_ctx *ctx;
	int fd;

	fd = fz_memfile(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	ctx = hist_ctx_create(&host, NULL, NULL);
	if (!ctx) {
		close(fd);
		return 0;
	}
	fz_quiet();
	text = mt_read_all(path, &len);
	if (text) {
		mt_apply_all(ctx, text, len, path);
		__libc_free(text);
	}
	fz_loud();
	fmt_feed(ctx);
	hist_ctx_print_error_log(ctx, fz_sink, NULL);
	fz_print_all(ctx);	/* the synthetic events */
	for (i = 0; i < 3; i++) {
		hist_event *ev = hist_event_lookup(ctx, "malloc", names[i]);

		if (ev) {
			hist_event_print_triggers(ev, fz_sink, NULL);
			hist_event_print_hist(ev, fz_sink, NULL);
		}
	}
	hist_ctx_destroy(ctx);
	close(fd);
	return 0;
}
