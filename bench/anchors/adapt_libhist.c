/* SPDX-License-Identifier: MIT */
/*
 * libhist as a contender of the reference harness (../shared/bench-anchors),
 * which bench/anchors/run.sh copies, adds this file to and runs.  The same
 * path as our own bench's "libhist" row: the record described as an event,
 * `hist:keys=key:vals=hitcount,val:size=N` parsed once (untimed), every
 * record through hist_event_hit().  The harness calls hit(map, record)
 * with no per-thread handle, so each worker's hist_hit (its cpu slot = its
 * thread index) lives in a thread-local.  libhist allocates through the
 * harness's bench_alloc() (zeroed and faulted in), as the other contenders
 * do, so that no page fault falls in the timed section.  The read-out
 * walks the table with hist_reader_*() and takes Dropped from its totals.
 * LIBHIST_SUMS=per-cpu or shared in the environment: hist_ctx_opts.sums.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "libhist.h"

static const struct hist_field_desc rec_fields[] = {
	{ "ts", "u64", 0, 8, 0, HIST_FIELD_INT },
	{ "key", "u64", KEY_OFF, 8, 0, HIST_FIELD_INT },
	{ "pid", "int", 16, 4, 1, HIST_FIELD_INT },
	{ "cpu", "u32", 20, 4, 0, HIST_FIELD_INT },
	{ "val", "u64", VAL_OFF, 8, 0, HIST_FIELD_INT },
};

struct lh {
	hist_ctx *ctx;
	hist_event *ev;
};

static _Thread_local struct hist_hit lh_self;

static void *lh_alloc(void *data, size_t size)
{
	(void)data;
	return bench_alloc(size);
}

static void lh_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static void *lh_create(size_t capacity, int max_threads)
{
	struct hist_event_desc d = { .system = "bench", .name = "rec", .fields = rec_fields,
				     .nr_fields = sizeof(rec_fields) / sizeof(rec_fields[0]) };
	struct hist_allocator alloc = { lh_alloc, lh_free, NULL };
	struct hist_ctx_opts opts = { 0 };
	struct hist_error err = { 0 };
	struct lh *m = calloc(1, sizeof(*m));
	uint32_t bits = 0;
	char cmd[128];
	int ret;

	if (!m)
		bench_die("libhist: out of memory");
	while (((size_t)1 << bits) < capacity)
		bits++;
	/* Past the kernel's 2^17 cap only with the host's opt-in. */
	if (bits > 17)
		opts.max_map_bits = bits;
	opts.nr_cpus = (uint32_t)max_threads;
	if (getenv("LIBHIST_SUMS"))
		opts.sums = !strcmp(getenv("LIBHIST_SUMS"), "shared")	 ? HIST_SUMS_SHARED
			    : !strcmp(getenv("LIBHIST_SUMS"), "per-cpu") ? HIST_SUMS_PER_CPU
									 : HIST_SUMS_AUTO;
	hist_set_allocator(&alloc);	/* no context alive between runs */
	m->ctx = hist_ctx_create(NULL, &opts, &ret);
	if (!m->ctx || hist_event_define(m->ctx, &d, &m->ev))
		bench_die("libhist: context or event set-up failed");
	snprintf(cmd, sizeof(cmd), "hist:keys=key:vals=hitcount,val:size=%zu", capacity);
	ret = hist_trigger_parse(m->ev, cmd, &err);
	if (ret)
		bench_die("libhist: hist_trigger_parse(%s) = %d (msg %d at %u)", cmd, ret,
			  err.msg, err.pos);
	return m;
}

static void lh_thread_init(void *map, int tid)
{
	(void)map;
	lh_self = (struct hist_hit){ .cpu = (uint32_t)tid, .pid = -1, .comm = "bench" };
}

static void lh_hit(void *map, const void *rec)
{
	hist_event_hit(((struct lh *)map)->ev, rec, REC_SIZE, &lh_self);
}

static void lh_read_out(void *map, struct readout *o)
{
	struct lh *m = map;
	const struct hist_read_entry *e;
	int err = 0;
	hist_reader *r = hist_reader_create(m->ev, 0, &err);

	if (!r)
		bench_die("libhist: hist_reader_create = %d", err);
	memset(o, 0, sizeof(*o));
	while ((e = hist_reader_next(r))) {
		if (e->nr_vals != 2)
			bench_die("libhist: %u printed values, want hitcount and val", e->nr_vals);
		o->entries++;
		o->hits += e->vals[0].value;
		o->sum += e->vals[1].value;
	}
	o->dropped = hist_reader_info(r)->dropped;
	hist_reader_destroy(r);
}

static void lh_destroy(void *map)
{
	struct lh *m = map;

	hist_ctx_destroy(m->ctx);
	free(m);
}

const struct contender contender_libhist = {
	.name = "libhist",
	.create = lh_create,
	.thread_init = lh_thread_init,
	.hit = lh_hit,
	.read_out = lh_read_out,
	.destroy = lh_destroy,
};
