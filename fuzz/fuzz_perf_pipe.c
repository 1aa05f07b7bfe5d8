/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: perf.data in pipe mode (`perf record -o -`).  The input is
 * the record stream after the 16-byte pipe header, which the target puts
 * in front, so that every mutation lands on the records (attributes,
 * tracing data, features, samples, compressed records).  Seeds are real
 * pipe recordings without their header (fuzz/corpus/perf_pipe/seed-rec-*).
 */
#include "fuzz_perf_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PERF_PIPE_MAX (1u << 22)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t head[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };
	uint8_t *buf;

	if (size > PERF_PIPE_MAX)
		return 0;
	buf = malloc(size + sizeof(head));
	if (!buf)
		return 0;
	memcpy(buf, head, sizeof(head));
	memcpy(buf + sizeof(head), data, size);
	fz_perf_run(buf, size + sizeof(head));
	free(buf);
	return 0;
}
