// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A test module for libhist's recordings: the stock kernels have no event
 * with a __rel_loc field, this one has.  Each write of a name to
 * /sys/module/hist_relloc/parameters/fire emits one
 * hist_relloc:hist_relloc_name record in the writer's context, so the
 * oracle's pid gate passes it like any event of the workload.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#define CREATE_TRACE_POINTS
#include "hist_relloc_trace.h"

static int fire_set(const char *val, const struct kernel_param *kp)
{
	char name[64];
	size_t n = strcspn(val, "\n");

	if (n >= sizeof(name))
		return -EINVAL;
	memcpy(name, val, n);
	name[n] = 0;
	trace_hist_relloc_name(name, (int)n);
	return 0;
}

static const struct kernel_param_ops fire_ops = {
	.set = fire_set,
};
module_param_cb(fire, &fire_ops, NULL, 0200);

MODULE_DESCRIPTION("libhist test events: a __rel_loc string field");
MODULE_LICENSE("Dual MIT/GPL");
