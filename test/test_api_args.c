/* SPDX-License-Identifier: MIT */
/*
 * The in-code synthetic-event API (hist_synth.h) on bad arguments: every
 * entry point refuses a NULL or out-of-range argument with -HIST_EINVAL
 * (or NULL, or nothing done) and leaves the context as it was, as
 * include/man/hist_synth_create.3 and friends say.  These checks were the
 * least covered branches of the library (fuzz/README.md "Coverage").
 */
#include "harness.h"

#include <string.h>

#include "hist_synth.h"

static int find_none(void *data, const char *sys, const char *name,
		     struct hist_event_desc *out)
{
	(void)data;
	(void)sys;
	(void)name;
	(void)out;
	return -HIST_ENOENT;
}

static int sink(void *arg, const char *buf, size_t len)
{
	(void)arg;
	(void)buf;
	(void)len;
	return 0;
}

static hist_ctx *new_ctx(void)
{
	static const struct hist_host host = { .find_event = find_none };

	return hist_ctx_create(&host, NULL, NULL);
}

static void test_builder_args(void)
{
	static const struct hist_synth_field_desc f[] = { { "u64", "a" }, { "int", "b" } };
	static const struct hist_synth_field_desc bad[] = { { "u64", "a" }, { NULL, "b" } };
	hist_ctx *ctx = new_ctx();
	struct hist_synth_cmd cmd;
	char buf[256], tiny[8];

	T_ASSERT(ctx != NULL);
	T_EQ(hist_synth_cmd_start(NULL, "x"), -HIST_EINVAL);
	hist_synth_cmd_init(&cmd, ctx, buf, sizeof(buf));
	T_EQ(hist_synth_cmd_start(&cmd, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_array_start(NULL, "x", f, 2), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_array_start(&cmd, NULL, f, 2), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_array_start(&cmd, "x", NULL, 2), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_add_field(NULL, "u64", "a"), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_add_field(&cmd, NULL, "a"), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_add_field(&cmd, "u64", NULL), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_add_field_str(NULL, "u64 a"), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_add_field_str(&cmd, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_add_fields(NULL, f, 2), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_end(NULL, NULL), -HIST_EINVAL);
	/* a field without a type in an array: refused, nothing defined */
	hist_synth_cmd_init(&cmd, ctx, buf, sizeof(buf));
	T_EQ(hist_synth_cmd_array_start(&cmd, "y", bad, 2), -HIST_EINVAL);
	T_ASSERT(hist_synth_event_get(ctx, "y") == NULL);
	/* a command buffer too small: E2BIG at the end, nothing defined */
	hist_synth_cmd_init(&cmd, ctx, tiny, sizeof(tiny));
	hist_synth_cmd_array_start(&cmd, "longname", f, 2);
	T_ASSERT(hist_synth_cmd_end(&cmd, NULL) < 0);
	T_ASSERT(hist_synth_event_get(ctx, "longname") == NULL);
	/* no buffer at all */
	hist_synth_cmd_init(&cmd, ctx, NULL, 0);
	T_EQ(hist_synth_cmd_end(&cmd, NULL), -HIST_EINVAL);
	/* and a good one still works after all that */
	hist_synth_cmd_init(&cmd, ctx, buf, sizeof(buf));
	T_EQ(hist_synth_cmd_array_start(&cmd, "good", f, 2), 0);
	T_EQ(hist_synth_cmd_end(&cmd, NULL), 0);
	T_ASSERT(hist_synth_event_get(ctx, "good") != NULL);
	hist_synth_event_put(hist_synth_event_get(ctx, "good"));
	hist_ctx_destroy(ctx);
}

static void test_event_args(void)
{
	static const struct hist_synth_field_desc f[] = { { "u64", "a" } };
	hist_ctx *ctx = new_ctx();
	struct hist_synth_trace_state st;
	hist_event *ev;
	uint64_t v = 1;

	T_ASSERT(ctx != NULL);
	T_EQ(hist_synth_create(NULL, "e", f, 1, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_create(ctx, "e", f, 1, NULL), 0);
	T_EQ(hist_synth_delete(NULL, "e"), -HIST_EINVAL);
	T_EQ(hist_synth_delete(ctx, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_delete(ctx, "nosuch"), -HIST_ENOENT);
	T_EQ(hist_synth_print_format(NULL, "e", sink, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_print_format(ctx, NULL, sink, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_print_format(ctx, "e", NULL, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_print_format(ctx, "nosuch", sink, NULL), -HIST_ENOENT);
	T_ASSERT(hist_synth_event_get(NULL, "e") == NULL);
	T_ASSERT(hist_synth_event_get(ctx, NULL) == NULL);
	T_ASSERT(hist_synth_event_get(ctx, "nosuch") == NULL);
	hist_synth_event_put(NULL);
	ev = hist_synth_event_get(ctx, "e");
	T_ASSERT(ev != NULL);
	/* generation on bad arguments */
	T_EQ(hist_synth_trace_array(NULL, &v, 1, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_trace_array(ev, NULL, 1, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_trace_start(NULL, &st, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_trace_start(ev, NULL, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_add_next_val(NULL, 1), -HIST_EINVAL);
	T_EQ(hist_synth_add_val(NULL, "a", 1), -HIST_EINVAL);
	T_EQ(hist_synth_trace_end(NULL), -HIST_EINVAL);
	memset(&st, 0, sizeof(st));
	T_EQ(hist_synth_trace_end(&st), -HIST_EINVAL);
	T_EQ(hist_synth_add_next_val(&st, 1), -HIST_EINVAL);
	/* an event in use cannot go; once put back, it can */
	T_EQ(hist_synth_delete(ctx, "e"), -HIST_EBUSY);
	hist_synth_event_put(ev);
	T_EQ(hist_synth_delete(ctx, "e"), 0);
	hist_ctx_destroy(ctx);
}

int main(void)
{
	T_RUN(test_builder_args);
	T_RUN(test_event_args);
	return T_DONE();
}
