/* SPDX-License-Identifier: MIT */
/* Creating and destroying a context, and reading its error_log. */
#include "api/api.h"
#include "filter/filter.h"
#include "synth/synth.h"
#include "common/fmt.h"

hist_ctx *hist_ctx_create(const struct hist_host *host,
			  const struct hist_ctx_opts *opts, int *err)
{
	struct hist_ctx *ctx = hist__zalloc(sizeof(*ctx));
	uint32_t i;

	if (!ctx)
		goto nomem;
	if (host)
		ctx->host = *host;
	ctx->hist_command = hist__hist_command;
	if (opts)
		ctx->opts = *opts;
	if (!ctx->opts.nr_cpus)
		ctx->opts.nr_cpus = 16;
	if (!ctx->opts.max_map_bits)
		ctx->opts.max_map_bits = 17;
	if (ctx->opts.max_map_bits > 24)
		ctx->opts.max_map_bits = 24;
	if (ctx->opts.sums > HIST_SUMS_SHARED) {
		hist__free(ctx);
		if (err)
			*err = -HIST_EINVAL;
		return NULL;
	}
	/* One line per slot: no two slots' owners write one cache line;
	 * then the MULTI line, and room to align the array. */
	ctx->cpus_raw = hist__zalloc(sizeof(*ctx->cpus) * (ctx->opts.nr_cpus + 2));
	if (!ctx->cpus_raw)
		goto nomem;
	ctx->cpus = (struct hist__cpu *)(((uintptr_t)ctx->cpus_raw + HIST__CACHELINE - 1) &
					 ~(uintptr_t)(HIST__CACHELINE - 1));
	for (i = 0; i < ctx->opts.nr_cpus; i++)
		ctx->cpus[i].home = hist__map_home_state(i);
	if (err)
		*err = 0;
	return ctx;
nomem:
	if (ctx)
		hist__free(ctx->cpus_raw);
	hist__free(ctx);
	if (err)
		*err = -HIST_ENOMEM;
	return NULL;
}

void hist_ctx_destroy(hist_ctx *ctx)
{
	struct hist_event *ev, *next;

	if (!ctx)
		return;
	for (ev = ctx->events; ev; ev = ev->next)
		hist__triggers_remove_all(ev);
	/* named groups went with their last member */
	hist__synth_free_all(ctx);
	hist_ctx_reclaim(ctx);
	for (ev = ctx->events; ev; ev = next) {
		next = ev->next;
		if (ev->filter)
			hist_filter_destroy(ev->filter);
		hist__event_free(ev);
	}
	hist__free(ctx->cpus_raw);
	hist__free(ctx);
}

void hist_ctx_clear_error_log(hist_ctx *ctx)
{
	ctx->log_head = 0;
	ctx->log_count = 0;
}

int hist_ctx_print_error_log(hist_ctx *ctx, hist_write_fn write, void *arg)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; i < ctx->log_count && !ret; i++) {
		const struct hist__errlog_entry *e =
			&ctx->log[(ctx->log_head + i) % HIST__ERRLOG_MAX];
		struct hist__sb sb;
		uint64_t usec = e->ts_ns / 1000;
		uint32_t k;

		hist__sb_init(&sb, write, arg);
		/* "[%5llu.%06u] loc: error: text\n  Command: cmd\n" */
		hist__sb_puts(&sb, "[");
		hist__sb_u64(&sb, usec / 1000000, 5, ' ');
		hist__sb_puts(&sb, ".");
		hist__sb_u64(&sb, usec % 1000000, 6, '0');
		hist__sb_puts(&sb, "] ");
		hist__sb_puts(&sb, e->loc);
		hist__sb_puts(&sb, ": error: ");
		hist__sb_puts(&sb, hist_error_text(e->msg));
		hist__sb_puts(&sb, "\n  Command: ");
		hist__sb_puts(&sb, e->cmd);
		hist__sb_puts(&sb, "\n");
		for (k = 0; k < 11 + e->pos; k++)
			hist__sb_putc(&sb, ' ');
		hist__sb_puts(&sb, "^\n");
		ret = hist__sb_finish(&sb);
	}
	return ret;
}
