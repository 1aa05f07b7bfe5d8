/* SPDX-License-Identifier: MIT */
/*
 * What the two perf.data targets share: open the bytes as a recording,
 * ask every lookup, walk every record (reading its bytes, its callchain
 * and its task's name at its time), then rewind and take one more.
 */
#ifndef HIST_FUZZ_PERF_COMMON_H
#define HIST_FUZZ_PERF_COMMON_H

#include "fuzz_common.h"
#include "hist_ftrace.h"

#define PERF_MAX_RECORDS 100000

static void fz_perf_run(const uint8_t *data, size_t size)
{
	struct hist_ftrace_record rec, peek;
	struct hist_tracedat *td;
	char err[512], comm[16], buf[128];
	uint64_t ips[16];
	uint32_t i, n = 0;
	const char *s;
	int r, k;

	td = hist_tracedat_open_mem(data, size, err, sizeof(err));
	if (!td) {
		fz_touch(err, strnlen(err, sizeof(err)));
		return;
	}
	s = hist_tracedat_format(td);
	fz_touch(s, strlen(s));
	s = hist_tracedat_clock(td);
	fz_touch(s, strlen(s));
	s = hist_tracedat_uname(td);
	fz_touch(s, strlen(s));
	fz_sum += hist_tracedat_nr_cpus(td) + (uint64_t)hist_tracedat_sampled(td);
	for (i = 0; i < hist_tracedat_nr_events(td); i++) {
		const struct hist_ftrace_event *e = hist_tracedat_event(td, i);

		if (e)
			fz_touch(e->desc.name, strlen(e->desc.name));
	}
	while (n++ < PERF_MAX_RECORDS && (r = hist_tracedat_next(td, &rec)) != 0) {
		const struct hist_ftrace_event *e;
		int32_t pid;

		if (r < 0) {
			fz_touch(hist_tracedat_error(td), strlen(hist_tracedat_error(td)));
			continue;
		}
		fz_touch(rec.data, rec.len);
		e = hist_tracedat_event_by_id(td, rec.type);
		if (e)
			fz_sum += e->desc.nr_fields;
		fz_sum += hist_tracedat_dropped(td);
		k = hist_tracedat_stack(td, ips, 16);
		while (k-- > 0)
			fz_sum += ips[k];
		if (hist_tracedat_peek_cpu(td, rec.cpu, &peek) > 0)
			fz_touch(peek.data, peek.len);
		if (rec.len >= 8) {
			memcpy(&pid, rec.data + 4, 4);
			if (hist_tracedat_comm_at(td, pid, rec.ts, comm) == 1)
				fz_touch(comm, strnlen(comm, sizeof(comm)));
			if (hist_tracedat_comm_cb(td, pid, comm) == 0)
				fz_touch(comm, strnlen(comm, sizeof(comm)));
		}
	}
	for (i = 0; i < hist_tracedat_nr_cpus(td) && i < 64; i++)
		fz_sum += hist_tracedat_lost(td, i);
	if (hist_tracedat_set_kallsyms(td, "ffffffff81000000 T _text\n", 25) == 0 &&
	    hist_tracedat_sym(td, 0xffffffff81000010ull, 1, buf, sizeof(buf)) >= 0)
		fz_touch(buf, strlen(buf));
	if (hist_tracedat_rewind(td) == 0 && hist_tracedat_next(td, &rec) > 0)
		fz_touch(rec.data, rec.len);
	hist_tracedat_close(td);
}

#endif
