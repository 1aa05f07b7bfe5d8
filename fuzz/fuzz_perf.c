/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: perf.data in file mode (and anything else
 * hist_tracedat_open_mem() takes: the input is the whole file).  Seeds are
 * real `perf record -e SYSTEM:EVENT` files (fuzz/corpus/perf/seed-rec-*).
 */
#include "fuzz_perf_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_perf_run(data, size);
	return 0;
}
