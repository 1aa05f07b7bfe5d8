/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the trace.dat reader (v6 and v7, uncompressed or zstd).
 * The input is the file.  A file that opens is walked to the end (the
 * decompressor in line, no prefetch thread), every record's bytes read,
 * and every lookup the reader offers is asked once.
 */
#include "fuzz_common.h"
#include "hist_ftrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TRACEDAT_MAX_RECORDS 100000

static void tracedat_walk(struct hist_tracedat *td)
{
	struct hist_ftrace_record rec, peek;
	uint32_t n = 0;
	int r;

	while (n++ < TRACEDAT_MAX_RECORDS && (r = hist_tracedat_next(td, &rec)) > 0) {
		const struct hist_ftrace_event *e = hist_tracedat_event_by_id(td, rec.type);

		fz_touch(rec.data, rec.len);
		fz_sum += hist_tracedat_dropped(td);
		if (hist_tracedat_peek_cpu(td, rec.cpu, &peek) > 0)
			fz_sum += peek.ts + peek.len;
		if (e)
			fz_sum += e->desc.nr_fields;
		if (rec.len >= 8) {
			int32_t pid;
			char comm[16];

			memcpy(&pid, rec.data + 4, 4);
			if (hist_tracedat_comm_cb(td, pid, comm) == 0)
				fz_touch(comm, strnlen(comm, sizeof(comm)));
		}
	}
	fz_sum += hist_tracedat_lost(td, 0);
	fz_touch(hist_tracedat_error(td), strlen(hist_tracedat_error(td)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t addrs[] = { 0, 0xffffffff81000000ull, 0xffffffff81000150ull,
					  0xffffffffc0001044ull, UINT64_MAX };
	struct hist_event_desc desc;
	struct hist_tracedat *td;
	char err[512], buf[256];
	const char *s;
	uint32_t i;

	td = hist_tracedat_open_mem(data, size, err, sizeof(err));
	if (!td) {
		fz_touch(err, strnlen(err, sizeof(err)));
		return 0;
	}
	hist_tracedat_set_prefetch(td, 0);
	fz_sum += (uint64_t)hist_tracedat_version(td) + hist_tracedat_nr_cpus(td);
	s = hist_tracedat_clock(td);
	fz_touch(s, strlen(s));
	s = hist_tracedat_uname(td);
	fz_touch(s, strlen(s));
	fz_sum += (uint64_t)hist_tracedat_ts_offset(td);
	for (i = 0; i < hist_tracedat_nr_events(td); i++) {
		const struct hist_ftrace_event *e = hist_tracedat_event(td, i);

		if (!e)
			continue;
		fz_touch(e->desc.name, strlen(e->desc.name));
		if (e->print_fmt)
			fz_touch(e->print_fmt, strlen(e->print_fmt));
		if (e->desc.system &&
		    hist_tracedat_find_event_cb(td, e->desc.system, e->desc.name, &desc) == 0)
			fz_sum += desc.nr_fields;
	}
	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		if (hist_tracedat_sym(td, addrs[i], (int)(i & 1), buf, sizeof(buf)) >= 0)
			fz_touch(buf, strlen(buf));
		s = hist_tracedat_printk_fmt(td, addrs[i]);
		if (s)
			fz_touch(s, strlen(s));
	}
	for (i = 0; i < 4; i++) {
		s = hist_tracedat_cmdline(td, (int32_t)i * 21);
		if (s)
			fz_touch(s, strlen(s));
	}
	tracedat_walk(td);
	if (hist_tracedat_rewind(td) == 0) {
		struct hist_ftrace_record rec;

		if (hist_tracedat_next(td, &rec) > 0)
			fz_touch(rec.data, rec.len);
	}
	hist_tracedat_close(td);
	return 0;
}
