/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the hit path.  Input: command lines (fuzz_common.h) up to
 * the first NUL byte, then records, each a 4-byte header
 *
 *	u8 event (index into fz_events)  u8 cpu  u8 time step  u8 length
 *
 * and LENGTH bytes (fewer if the input ends).  Every command runs, every
 * record goes through hist_event_hit(), a few control commands are
 * interleaved (pause, cont, clear of what the commands created is up to
 * the input), and then every histogram is printed.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HIT_MAX_RECORDS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hist_event *evs[FZ_NR_EVENTS];
	const uint8_t *p, *end = data + size;
	uint64_t ts = 1000000;
	unsigned nr = 0;
	hist_ctx *ctx;
	size_t tn, i;

	for (tn = 0; tn < size && data[tn]; tn++)
		;
	ctx = fz_ctx_create();
	if (!ctx)
		return 0;
	fz_commands(ctx, data, tn);
	for (i = 0; i < FZ_NR_EVENTS; i++)
		evs[i] = hist_event_lookup(ctx, fz_events[i].system, fz_events[i].name);
	p = tn < size ? data + tn + 1 : end;
	while (end - p >= 4 && nr++ < HIT_MAX_RECORDS) {
		struct hist_hit hit;
		hist_event *ev = evs[p[0] % FZ_NR_EVENTS];
		size_t len = p[3];

		memset(&hit, 0, sizeof(hit));
		ts += p[2];
		hit.ts = ts;
		hit.cpu = p[1] & 0x7f;
		hit.pid = p[1] & 0x80 ? (int32_t)p[2] : -1;
		if (p[0] & 0x80) {
			/* the host supplies the stack with the hit */
			hit.stack = fz_frames;
			hit.nr_stack = p[2] % 21;
		}
		if (p[1] & 0x40)
			hit.flags = HIST_HIT_NO_TS;
		p += 4;
		if (len > (size_t)(end - p))
			len = (size_t)(end - p);
		if (ev)
			hist_event_hit(ev, p, len, &hit);
		p += len;
	}
	fz_print_all(ctx);
	hist_ctx_destroy(ctx);
	return 0;
}
