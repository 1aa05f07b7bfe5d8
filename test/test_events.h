/* SPDX-License-Identifier: MIT */
/*
 * Shared fixtures of the engine tests: sched_switch, sched_waking and
 * kmem_kmalloc as Linux 6.1 lays them out (kmalloc with an extra
 * __data_loc string and a fixed array, to reach every field kind), a
 * generic key/value event of the concurrency tests, and a writer that
 * collects printed text in a buffer.
 */
#ifndef HIST_TEST_EVENTS_H
#define HIST_TEST_EVENTS_H

#include "libhist.h"

#include <string.h>

/* The four fields every ftrace event starts with (struct trace_entry). */
#define T_COMMON_FIELDS                                                      \
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },        \
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },        \
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT }, \
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT }

static const struct hist_field_desc switch_fields[] = {
	T_COMMON_FIELDS,
	{ "prev_comm", "char[16]", 8, 16, 1, HIST_FIELD_STRING },
	{ "prev_pid", "pid_t", 24, 4, 1, HIST_FIELD_INT },
	{ "prev_prio", "int", 28, 4, 1, HIST_FIELD_INT },
	{ "prev_state", "long", 32, 8, 1, HIST_FIELD_INT },
	{ "next_comm", "char[16]", 40, 16, 1, HIST_FIELD_STRING },
	{ "next_pid", "pid_t", 56, 4, 1, HIST_FIELD_INT },
	{ "next_prio", "int", 60, 4, 1, HIST_FIELD_INT },
};

/* sched_waking and sched_wakeup */
static const struct hist_field_desc waking_fields[] = {
	T_COMMON_FIELDS,
	{ "comm", "char[16]", 8, 16, 1, HIST_FIELD_STRING },
	{ "pid", "pid_t", 24, 4, 1, HIST_FIELD_INT },
	{ "prio", "int", 28, 4, 1, HIST_FIELD_INT },
	{ "target_cpu", "int", 32, 4, 1, HIST_FIELD_INT },
};

static const struct hist_field_desc kmalloc_fields[] = {
	T_COMMON_FIELDS,
	{ "call_site", "unsigned long", 8, 8, 0, HIST_FIELD_INT },
	{ "ptr", "const void *", 16, 8, 0, HIST_FIELD_INT },
	{ "bytes_req", "size_t", 24, 8, 0, HIST_FIELD_INT },
	{ "bytes_alloc", "size_t", 32, 8, 0, HIST_FIELD_INT },
	{ "gfp_flags", "unsigned long", 40, 8, 0, HIST_FIELD_INT },
	{ "node", "int", 48, 4, 1, HIST_FIELD_INT },
	{ "filename", "__data_loc char[]", 52, 4, 1, HIST_FIELD_DYN_STRING },
	{ "args", "unsigned long[6]", 56, 48, 0, HIST_FIELD_ARRAY },
};

/* The concurrency tests' event: a u64 key, a u64 value, a name. */
struct kv_rec {
	uint16_t type;
	uint8_t flags, pc;
	int32_t pid;
	uint64_t key;
	uint64_t val;
	char name[16];
};

static const struct hist_field_desc kv_fields[] = {
	T_COMMON_FIELDS,
	{ "key", "u64", 8, 8, 0, HIST_FIELD_INT },
	{ "val", "u64", 16, 8, 0, HIST_FIELD_INT },
	{ "name", "char[16]", 24, 16, 1, HIST_FIELD_STRING },
};

/* A host with the one event t/kv (kv_fields). */
static inline int kv_find_event(void *data, const char *sys, const char *name,
				struct hist_event_desc *out)
{
	(void)data;
	if (strcmp(sys, "t") || strcmp(name, "kv"))
		return -HIST_ENOENT;
	out->fields = kv_fields;
	out->nr_fields = sizeof(kv_fields) / sizeof(kv_fields[0]);
	return 0;
}

static const struct hist_host kv_host = { .find_event = kv_find_event };

struct buf {
	char s[65536];
	size_t n;
};

static inline int buf_write(void *arg, const char *s, size_t n)
{
	struct buf *b = arg;

	if (b->n + n >= sizeof(b->s))
		return -1;
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
	return 0;
}

#endif
