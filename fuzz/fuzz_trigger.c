/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the hist trigger grammar (and the trigger commands around
 * it).  Input: command lines as in fuzz_common.h, mostly
 * "SYS/EVENT<TAB>hist:..." or a bare trigger for sched_switch.  Every
 * command runs; then every file a tracer could read is printed, and the
 * context is torn down (leaks show at the end of the replay under ASan).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hist_ctx *ctx = fz_ctx_create();

	if (!ctx)
		return 0;
	fz_commands(ctx, data, size);
	fz_print_all(ctx);
	hist_ctx_destroy(ctx);
	return 0;
}
