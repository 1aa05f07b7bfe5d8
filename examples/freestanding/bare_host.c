/* SPDX-License-Identifier: MIT */
/*
 * A host with no operating-system services: no C library, no malloc, no
 * stdio, no threads.  It is what an RTOS or firmware port of libhist looks
 * like: the core is built with -ffreestanding -DHIST_FREESTANDING (its
 * allocations come from a static arena), the host describes one event,
 * feeds records from a "sensor ISR" loop, and hands the hist text to its
 * own output routine.
 *
 * To run on this machine without a libc, the only OS service used is the
 * output routine below (one raw write system call on x86-64, a UART on a
 * board) and the program entry _start; everything else is plain C.
 *
 * Build and run: make freestanding
 */
#include <libhist.h>

/* ---- the two board-specific pieces ------------------------------------ */

static long sys_write(int fd, const void *buf, unsigned long n)
{
#if defined(__x86_64__) && defined(__linux__)
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(1L), "D"((long)fd), "S"(buf), "d"(n)
			 : "rcx", "r11", "memory");
	return ret;
#else
	(void)fd;
	(void)buf;
	return (long)n; /* a UART driver would go here */
#endif
}

static void sys_exit(int code)
{
#if defined(__x86_64__) && defined(__linux__)
	__asm__ volatile("syscall" : : "a"(60L), "D"((long)code) : "memory");
#endif
	for (;;)
		;
}

/* ---- the host ------------------------------------------------------------ */

struct sample {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	uint32_t sensor;
	uint32_t level;
	uint64_t duration_us;
};

static const struct hist_field_desc sample_fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	{ "sensor", "u32", 8, 4, 0, HIST_FIELD_INT },
	{ "level", "u32", 12, 4, 0, HIST_FIELD_INT },
	{ "duration_us", "u64", 16, 8, 0, HIST_FIELD_INT },
};

static int write_out(void *arg, const char *buf, size_t len)
{
	(void)arg;
	return sys_write(1, buf, len) == (long)len ? 0 : -1;
}

static int run(void)
{
	struct hist_event_desc desc = {
		.system = "board",
		.name = "sample",
		.id = 1,
		.fields = sample_fields,
		.nr_fields = sizeof(sample_fields) / sizeof(sample_fields[0]),
	};
	struct hist_ctx_opts opts = { .nr_cpus = 1 };
	hist_event *ev;
	hist_ctx *ctx;
	uint32_t i, seed = 1;
	int err;

	ctx = hist_ctx_create(&(struct hist_host){ 0 }, &opts, &err);
	if (!ctx || hist_event_define(ctx, &desc, &ev))
		return 1;
	if (hist_trigger_parse(ev, "hist:keys=sensor,duration_us.log2:vals=level:"
				   "sort=sensor,duration_us if level > 10", NULL))
		return 2;
	for (i = 0; i < 10000; i++) {
		/* the "ISR": one record per interrupt, no allocation */
		struct sample s = { .type = 1, .sensor = i % 3 };
		struct hist_hit hit = { .ts = i * 1000ull, .cpu = 0, .pid = 0 };

		seed = seed * 1103515245u + 12345u;
		s.level = (seed >> 16) % 100;
		s.duration_us = 1 + (seed >> 8) % (50u << s.sensor);
		hist_event_hit(ev, &s, sizeof(s), &hit);
	}
	if (hist_event_print_hist(ev, write_out, NULL))
		return 3;
	hist_ctx_destroy(ctx);
	return 0;
}

void _start(void);

/* The entry point is jumped to, not called: realign the stack the ABI way. */
#if defined(__x86_64__) || defined(__i386__)
__attribute__((force_align_arg_pointer))
#endif
void _start(void)
{
	sys_exit(run());
}
