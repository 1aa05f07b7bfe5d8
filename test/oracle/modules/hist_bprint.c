// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A test module for libhist's recordings: it writes trace_printk (bprint)
 * records with known formats and arguments when loaded, so a recording
 * made meanwhile has ftrace:bprint records and printk_formats entries.
 */
#include <linux/module.h>
#include <linux/kernel.h>

static noinline void hist_bprint_a(int i)
{
	trace_printk("hist_bprint a: i=%d sq=%d\n", i, i * i);
}

static noinline void hist_bprint_b(int i, unsigned long v)
{
	trace_printk("hist_bprint b: i=%d v=%lx %s\n", i, v, i & 1 ? "odd" : "even");
}

static int __init hist_bprint_init(void)
{
	int i;

	for (i = 0; i < 10; i++)
		hist_bprint_a(i);
	for (i = 0; i < 5; i++)
		hist_bprint_b(i, 0x1000ul + (unsigned long)i);
	return 0;
}

static void __exit hist_bprint_exit(void)
{
}

module_init(hist_bprint_init);
module_exit(hist_bprint_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("trace_printk records for libhist's test data");
