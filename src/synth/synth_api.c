/* SPDX-License-Identifier: MIT */
/*
 * The in-code synthetic event API (include/hist_synth.h): definitions
 * built as the kernel's dynevent command text and run through the
 * synthetic_events parser, and generation from caller values through
 * hist__synth_emit().
 */
#include "synth/synth.h"
#include "hist_synth.h"

/* ---- definitions ---------------------------------------------------- */

void hist_synth_cmd_init(struct hist_synth_cmd *cmd, hist_ctx *ctx, char *buf,
			 size_t cap)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->ctx = ctx;
	cmd->buf = buf;
	cmd->cap = cap;
	if (cap)
		buf[0] = 0;
}

/* Callers have checked that N bytes and the NUL fit. */
static void cmd_put(struct hist_synth_cmd *cmd, const char *s, size_t n)
{
	memcpy(cmd->buf + cmd->len, s, n);
	cmd->len += n;
	cmd->buf[cmd->len] = 0;
}

/*
 * Append " A" [OP B] SEP the way seq_buf_printf() does: all of it or
 * nothing, and after a failure the buffer stays overflowed.
 */
static int cmd_append(struct hist_synth_cmd *cmd, const char *a, char op,
		      const char *b, char sep)
{
	size_t need = 1 + strlen(a) + (b ? 1 + strlen(b) : 0) + 1;

	if (!cmd->buf || cmd->len >= cmd->cap || need >= cmd->cap - cmd->len) {
		cmd->len = cmd->cap;
		return -HIST_E2BIG;
	}
	cmd_put(cmd, " ", 1);
	cmd_put(cmd, a, strlen(a));
	if (b) {
		cmd_put(cmd, &op, 1);
		cmd_put(cmd, b, strlen(b));
	}
	cmd_put(cmd, &sep, 1);
	return 0;
}

int hist_synth_cmd_start(struct hist_synth_cmd *cmd, const char *name)
{
	if (!cmd || !name)
		return -HIST_EINVAL;
	cmd->name = name;
	return cmd_append(cmd, name, 0, NULL, ' ');
}

int hist_synth_cmd_add_field(struct hist_synth_cmd *cmd, const char *type,
			     const char *name)
{
	int size, ret;

	if (!cmd || !type || !name)
		return -HIST_EINVAL;
	/* The kernel checks the type alone, by its size: unknown types are
	 * refused here, bad array lengths only when the command runs. */
	size = hist__synth_type_size(type);
	if (size == 0 && !strchr(type, '['))
		return -HIST_EINVAL;
	ret = cmd_append(cmd, type, ' ', name, ';');
	if (ret)
		return ret;
	if (++cmd->n_fields > HIST__SYNTH_FIELDS_MAX)
		return -HIST_EINVAL;
	return 0;
}

int hist_synth_cmd_add_field_str(struct hist_synth_cmd *cmd,
				 const char *type_name)
{
	int ret;

	if (!cmd || !type_name)
		return -HIST_EINVAL;
	ret = cmd_append(cmd, type_name, 0, NULL, ';');
	if (ret)
		return ret;
	if (++cmd->n_fields > HIST__SYNTH_FIELDS_MAX)
		return -HIST_EINVAL;
	return 0;
}

int hist_synth_cmd_add_fields(struct hist_synth_cmd *cmd,
			      const struct hist_synth_field_desc *fields,
			      unsigned n)
{
	unsigned i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		if (!fields[i].type || !fields[i].name)
			return -HIST_EINVAL;
		ret = hist_synth_cmd_add_field(cmd, fields[i].type,
					       fields[i].name);
	}
	return ret;
}

int hist_synth_cmd_array_start(struct hist_synth_cmd *cmd, const char *name,
			       const struct hist_synth_field_desc *fields,
			       unsigned n)
{
	int ret;

	if (!cmd || !name || (n && !fields))
		return -HIST_EINVAL;
	if (n > HIST__SYNTH_FIELDS_MAX)
		return -HIST_EINVAL;
	ret = hist_synth_cmd_start(cmd, name);
	if (ret)
		return ret;
	return hist_synth_cmd_add_fields(cmd, fields, n);
}

int hist_synth_cmd_end(struct hist_synth_cmd *cmd, struct hist_error *err)
{
	int ret;

	if (!cmd || !cmd->ctx || !cmd->buf || !cmd->cap)
		return -HIST_EINVAL;
	if (cmd->len >= cmd->cap)
		return -HIST_E2BIG;
	ret = hist__synth_run(cmd->ctx, cmd->buf, err);
	if (ret)
		return ret;
	/* the command ran, but did it define the event it was built for? */
	if (cmd->name &&
	    !hist__synth_find(cmd->ctx, cmd->name, strlen(cmd->name)))
		return -HIST_ENOENT;
	return 0;
}

int hist_synth_create(hist_ctx *ctx, const char *name,
		      const struct hist_synth_field_desc *fields,
		      unsigned n_fields, struct hist_error *err)
{
	char buf[HIST_SYNTH_CMD_LEN];
	struct hist_synth_cmd cmd;
	int ret;

	if (!ctx)
		return -HIST_EINVAL;
	hist_synth_cmd_init(&cmd, ctx, buf, sizeof(buf));
	ret = hist_synth_cmd_array_start(&cmd, name, fields, n_fields);
	if (ret)
		return ret;
	return hist_synth_cmd_end(&cmd, err);
}

int hist_synth_delete(hist_ctx *ctx, const char *name)
{
	struct hist__synth *s;

	if (!ctx || !name)
		return -HIST_EINVAL;
	s = hist__synth_find(ctx, name, strlen(name));
	if (!s)
		return -HIST_ENOENT;
	return hist__synth_delete(ctx, s);
}

int hist_synth_print_format(hist_ctx *ctx, const char *name,
			    hist_write_fn write, void *arg)
{
	struct hist__synth *s;

	if (!ctx || !name || !write)
		return -HIST_EINVAL;
	s = hist__synth_find(ctx, name, strlen(name));
	if (!s)
		return -HIST_ENOENT;
	return hist__synth_print_format(s, write, arg);
}

/* ---- generation ----------------------------------------------------- */

hist_event *hist_synth_event_get(hist_ctx *ctx, const char *name)
{
	struct hist__synth *s;

	if (!ctx || !name)
		return NULL;
	s = hist__synth_find(ctx, name, strlen(name));
	if (!s)
		return NULL;
	s->users++;
	return s->ev;
}

void hist_synth_event_put(hist_event *ev)
{
	if (ev && ev->synth && ev->synth->users)
		ev->synth->users--;
}

/* Would anyone see a record of EV?  (the kernel's "enabled") */
static bool synth_enabled(const struct hist_event *ev)
{
	return ev->host->synth_event || hist__load_relaxed(&ev->active);
}

static void emit(struct hist_event *ev, const uint64_t *vals,
		 const struct hist_hit *hit)
{
	struct hist__rec parent;

	hist__rec_init(&parent, ev, NULL, 0, hit);
	hist__synth_emit(ev->synth, vals, &parent);
}

int hist_synth_trace_array(hist_event *ev, const uint64_t *vals,
			   unsigned n_vals, const struct hist_hit *hit)
{
	if (!ev || !ev->synth || (n_vals && !vals))
		return -HIST_EINVAL;
	if (!synth_enabled(ev))
		return 0;	/* disabled is not an error */
	if (n_vals != ev->synth->nr_fields)
		return -HIST_EINVAL;
	emit(ev, vals, hit);
	return 0;
}

int hist_synth_trace_start(hist_event *ev, struct hist_synth_trace_state *st,
			   const struct hist_hit *hit)
{
	if (!st)
		return -HIST_EINVAL;
	memset(st, 0, sizeof(*st));
	if (!ev || !ev->synth)
		return -HIST_EINVAL;
	st->ev = ev;
	st->hit = hit;
	st->disabled = !synth_enabled(ev);
	return 0;
}

static int add_val(struct hist_synth_trace_state *st, const char *field,
		   uint64_t val)
{
	const struct hist__synth *s;
	uint32_t i;

	if (!st || !st->ev)
		return -HIST_EINVAL;
	/* one way or the other for a whole event, never both */
	if (field) {
		if (st->add_next)
			return -HIST_EINVAL;
		st->add_name = 1;
	} else {
		if (st->add_name)
			return -HIST_EINVAL;
		st->add_next = 1;
	}
	if (st->disabled)
		return 0;
	s = st->ev->synth;
	if (!s)
		return -HIST_EINVAL;
	if (!field) {
		if (st->cur_field >= s->nr_fields)
			return -HIST_EINVAL;
		st->vals[st->cur_field++] = val;
		return 0;
	}
	for (i = 0; i < s->nr_fields; i++) {
		if (!strcmp(s->fields[i].name, field)) {
			st->vals[i] = val;
			return 0;
		}
	}
	return -HIST_EINVAL;
}

int hist_synth_add_next_val(struct hist_synth_trace_state *st, uint64_t val)
{
	return add_val(st, NULL, val);
}

int hist_synth_add_val(struct hist_synth_trace_state *st, const char *field,
		       uint64_t val)
{
	return add_val(st, field, val);
}

int hist_synth_trace_end(struct hist_synth_trace_state *st)
{
	if (!st || !st->ev)
		return -HIST_EINVAL;
	if (!st->disabled && st->ev->synth)
		emit(st->ev, st->vals, st->hit);
	st->ev = NULL;
	return 0;
}
