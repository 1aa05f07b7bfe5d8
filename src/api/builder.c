/* SPDX-License-Identifier: MIT */
/*
 * The programmatic builder (hist_builder_*): a hist trigger assembled by
 * calls, in the spirit of libtracefs's tracefs_hist_*.
 *
 * The builder keeps the pieces as text and writes the command the
 * kernel's grammar reads; hist_builder_command() hands it to
 * hist_trigger_parse().  So there is one compiler of triggers, and a built
 * trigger is the very trigger its text would make: same identity for
 * pause/cont/clear/remove, same trigger info, same error_log entries.
 * What the builder adds is early checking of each piece (characters that
 * would change the command's structure, modifiers a key or a value cannot
 * carry, the grammar's limits, the order of filter pieces).
 */
#include "api/api.h"
#include "common/fmt.h"

#define VALS_MAX (HIST__VALS_MAX - 1)	/* besides hitcount */

enum { EXPECT_TERM, AFTER_TERM };	/* filter states */

struct hist_builder {
	hist_event *ev;
	char *keys[HIST__KEYS_MAX];
	uint32_t nr_keys;
	char *vals[VALS_MAX + 1];	/* and an explicit hitcount */
	uint32_t nr_vals;
	bool has_hitcount;
	char *vars[HIST__VARS_MAX];
	uint32_t nr_vars;
	char *sort[HIST__SORT_MAX];
	uint32_t nr_sort;
	char *actions[HIST__ACTIONS_MAX];
	uint32_t nr_actions;
	char *name, *clock;
	uint32_t size;
	bool nohitcount;
	/* the filter so far, and what may come next */
	char filter[HIST__CMD_MAX];
	size_t filter_len;
	int fstate;
	uint32_t depth;
	char text[HIST__CMD_MAX + 8];
};

static const char *const mod_names[] = {
	[HIST_MOD_NONE] = "",
	[HIST_MOD_HEX] = ".hex",
	[HIST_MOD_SYM] = ".sym",
	[HIST_MOD_SYM_OFFSET] = ".sym-offset",
	[HIST_MOD_EXECNAME] = ".execname",
	[HIST_MOD_SYSCALL] = ".syscall",
	[HIST_MOD_LOG2] = ".log2",
	[HIST_MOD_USECS] = ".usecs",
	[HIST_MOD_BUCKETS] = ".buckets=",
	[HIST_MOD_STACKTRACE] = ".stacktrace",
	[HIST_MOD_PERCENT] = ".percent",
	[HIST_MOD_GRAPH] = ".graph",
};

/* ---- checks ------------------------------------------------------- */

static bool is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* A name: variable, synthetic event, table (name=), clock. */
static bool valid_name(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!is_ident_char(*s))
			return false;
	return true;
}

/* A field or an expression: no character that separates attributes,
 * list items or the filter (':', ',', '=', blanks, control characters). */
static bool valid_expr(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c == ':' || c == ',' || c == '=' || c == 0x7f)
			return false;
	}
	return true;
}

/* Modifiers the grammar rejects on keys and on values (check_val_modifiers
 * in parse.c). */
static bool mod_ok(enum hist_mod mod, bool is_key)
{
	if ((unsigned)mod >= HIST__ARRAY_SIZE(mod_names))
		return false;
	if (is_key)
		return mod != HIST_MOD_PERCENT && mod != HIST_MOD_GRAPH;
	return mod != HIST_MOD_BUCKETS && mod != HIST_MOD_LOG2 &&
	       mod != HIST_MOD_SYM && mod != HIST_MOD_SYM_OFFSET &&
	       mod != HIST_MOD_SYSCALL && mod != HIST_MOD_STACKTRACE;
}

/* ---- pieces --------------------------------------------------------- */

/* Duplicate what SB built in BUF; -HIST_E2BIG if it did not fit. */
static int take(struct hist__sb *sb, const char *buf, size_t cap, char **out)
{
	size_t n;

	hist__sb_finish(sb);
	n = strlen(buf);
	if (n + 1 >= cap)
		return -HIST_E2BIG;
	*out = hist__strndup(buf, n);
	return *out ? 0 : -HIST_ENOMEM;
}

static int field_piece(const char *field, enum hist_mod mod, uint64_t arg,
		       char **out)
{
	char buf[HIST__CMD_MAX];
	struct hist__sb sb;

	hist__sb_init_buf(&sb, buf, sizeof(buf));
	hist__sb_puts(&sb, field);
	hist__sb_puts(&sb, mod_names[mod]);
	if (mod == HIST_MOD_BUCKETS)
		hist__sb_u64(&sb, arg, 0, ' ');
	return take(&sb, buf, sizeof(buf), out);
}

hist_builder *hist_builder_create(hist_event *ev, int *err)
{
	struct hist_builder *b = ev ? hist__zalloc(sizeof(*b)) : NULL;

	if (err)
		*err = b ? 0 : ev ? -HIST_ENOMEM : -HIST_EINVAL;
	if (b)
		b->ev = ev;
	return b;
}

static void free_all(char **v, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		hist__free(v[i]);
}

void hist_builder_destroy(hist_builder *b)
{
	if (!b)
		return;
	free_all(b->keys, b->nr_keys);
	free_all(b->vals, b->nr_vals);
	free_all(b->vars, b->nr_vars);
	free_all(b->sort, b->nr_sort);
	free_all(b->actions, b->nr_actions);
	hist__free(b->name);
	hist__free(b->clock);
	hist__free(b);
}

int hist_builder_add_key(hist_builder *b, const char *field, enum hist_mod mod,
			 uint64_t arg)
{
	int ret;

	if (!valid_expr(field) || !mod_ok(mod, true) ||
	    (mod == HIST_MOD_BUCKETS && !arg))
		return -HIST_EINVAL;
	if (b->nr_keys == HIST__KEYS_MAX)
		return -HIST_EINVAL;
	ret = field_piece(field, mod, arg, &b->keys[b->nr_keys]);
	if (!ret)
		b->nr_keys++;
	return ret;
}

int hist_builder_add_value(hist_builder *b, const char *field, enum hist_mod mod)
{
	int ret;

	bool hitcount;

	if (!valid_expr(field) || !mod_ok(mod, false))
		return -HIST_EINVAL;
	/* hitcount is always counted; naming it only places it in vals= */
	hitcount = !strcmp(field, "hitcount") && mod == HIST_MOD_NONE;
	if (hitcount ? b->has_hitcount : b->nr_vals - b->has_hitcount == VALS_MAX)
		return -HIST_EINVAL;
	ret = field_piece(field, mod, 0, &b->vals[b->nr_vals]);
	if (!ret) {
		b->nr_vals++;
		b->has_hitcount |= hitcount;
	}
	return ret;
}

int hist_builder_add_var(hist_builder *b, const char *name, const char *expr)
{
	char buf[HIST__CMD_MAX];
	struct hist__sb sb;
	int ret;

	if (!valid_name(name) || !valid_expr(expr))
		return -HIST_EINVAL;
	if (b->nr_vars == HIST__VARS_MAX)
		return -HIST_EINVAL;
	hist__sb_init_buf(&sb, buf, sizeof(buf));
	hist__sb_puts(&sb, name);
	hist__sb_putc(&sb, '=');
	hist__sb_puts(&sb, expr);
	ret = take(&sb, buf, sizeof(buf), &b->vars[b->nr_vars]);
	if (!ret)
		b->nr_vars++;
	return ret;
}

int hist_builder_add_sort_key(hist_builder *b, const char *field, int descending)
{
	char buf[HIST__CMD_MAX];
	struct hist__sb sb;
	int ret;

	if (!valid_expr(field) || strchr(field, '.'))
		return -HIST_EINVAL;
	if (b->nr_sort == HIST__SORT_MAX)
		return -HIST_EINVAL;
	hist__sb_init_buf(&sb, buf, sizeof(buf));
	hist__sb_puts(&sb, field);
	if (descending)
		hist__sb_puts(&sb, ".descending");
	ret = take(&sb, buf, sizeof(buf), &b->sort[b->nr_sort]);
	if (!ret)
		b->nr_sort++;
	return ret;
}

static int set_str(char **slot, const char *s)
{
	char *d;

	if (!valid_name(s))
		return -HIST_EINVAL;
	d = hist__strdup(s);
	if (!d)
		return -HIST_ENOMEM;
	hist__free(*slot);
	*slot = d;
	return 0;
}

int hist_builder_set_name(hist_builder *b, const char *name)
{
	return set_str(&b->name, name);
}

int hist_builder_set_clock(hist_builder *b, const char *clock)
{
	return set_str(&b->clock, clock);
}

int hist_builder_set_size(hist_builder *b, uint32_t entries)
{
	if (!entries)
		return -HIST_EINVAL;
	b->size = entries;
	return 0;
}

int hist_builder_set_nohitcount(hist_builder *b, int on)
{
	b->nohitcount = on != 0;
	return 0;
}

/* ---- filter --------------------------------------------------------- */

static bool valid_op(const char *op)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=",
					   "&", "~" };
	size_t i;

	for (i = 0; op && i < HIST__ARRAY_SIZE(ops); i++)
		if (!strcmp(op, ops[i]))
			return true;
	return false;
}

static int filter_put(hist_builder *b, const char *s)
{
	size_t n = strlen(s);

	if (b->filter_len + n + 1 > sizeof(b->filter))
		return -HIST_E2BIG;
	memcpy(b->filter + b->filter_len, s, n + 1);
	b->filter_len += n;
	return 0;
}

int hist_builder_append_filter(hist_builder *b, enum hist_filter_part part,
			       const char *field, const char *op, const char *value)
{
	size_t len = b->filter_len;
	uint32_t depth = b->depth;
	int state = b->fstate, ret = 0;

	switch (part) {
	case HIST_FILTER_COMPARE:
		if (state != EXPECT_TERM || !valid_expr(field) || !valid_op(op) ||
		    !value || !*value || strchr(value, '\n'))
			return -HIST_EINVAL;
		ret = filter_put(b, field);
		if (!ret)
			ret = filter_put(b, " ");
		if (!ret)
			ret = filter_put(b, op);
		if (!ret)
			ret = filter_put(b, " ");
		if (!ret)
			ret = filter_put(b, value);
		b->fstate = AFTER_TERM;
		break;
	case HIST_FILTER_AND:
	case HIST_FILTER_OR:
		if (state != AFTER_TERM)
			return -HIST_EINVAL;
		ret = filter_put(b, part == HIST_FILTER_AND ? " && " : " || ");
		b->fstate = EXPECT_TERM;
		break;
	case HIST_FILTER_NOT:
	case HIST_FILTER_OPEN:
		if (state != EXPECT_TERM)
			return -HIST_EINVAL;
		ret = filter_put(b, part == HIST_FILTER_NOT ? "!" : "(");
		b->depth += part == HIST_FILTER_OPEN;
		break;
	case HIST_FILTER_CLOSE:
		if (state != AFTER_TERM || !depth)
			return -HIST_EINVAL;
		ret = filter_put(b, ")");
		b->depth--;
		break;
	default:
		return -HIST_EINVAL;
	}
	if (ret) {
		/* too long: leave the filter as it was */
		b->filter_len = len;
		b->filter[len] = 0;
		b->depth = depth;
		b->fstate = state;
	}
	return ret;
}

/* ---- actions -------------------------------------------------------- */

/* "sys.event": two names and one dot. */
static bool valid_event(const char *s)
{
	const char *dot = s ? strchr(s, '.') : NULL;
	const char *p;

	if (!dot || dot == s || !dot[1] || strchr(dot + 1, '.'))
		return false;
	for (p = s; *p; p++)
		if (p != dot && !is_ident_char(*p))
			return false;
	return true;
}

static bool valid_param(const char *p)
{
	return valid_expr(p) && !strchr(p, '(') && !strchr(p, ')');
}

int hist_builder_add_action(hist_builder *b, enum hist_handler handler,
			    const char *on, enum hist_action action,
			    const char *name, const char *const *params,
			    unsigned nr_params)
{
	char buf[HIST__CMD_MAX];
	struct hist__sb sb;
	unsigned i;
	int ret;

	if (b->nr_actions == HIST__ACTIONS_MAX || (nr_params && !params))
		return -HIST_EINVAL;
	if (handler == HIST_ONMATCH ? !valid_event(on)
	    : (handler != HIST_ONMAX && handler != HIST_ONCHANGE) ||
	      !valid_name(on && on[0] == '$' ? on + 1 : on))
		return -HIST_EINVAL;
	switch (action) {
	case HIST_ACTION_TRACE:
	case HIST_ACTION_SYNTH:
		if (!valid_name(name))
			return -HIST_EINVAL;
		break;
	case HIST_ACTION_SAVE:
		if (handler == HIST_ONMATCH || !nr_params)
			return -HIST_EINVAL;
		break;
	case HIST_ACTION_SNAPSHOT:
		if (handler == HIST_ONMATCH || nr_params)
			return -HIST_EINVAL;
		break;
	default:
		return -HIST_EINVAL;
	}
	for (i = 0; i < nr_params; i++)
		if (!valid_param(params[i]))
			return -HIST_EINVAL;
	hist__sb_init_buf(&sb, buf, sizeof(buf));
	if (handler == HIST_ONMATCH) {
		hist__sb_puts(&sb, "onmatch(");
	} else {
		hist__sb_puts(&sb, handler == HIST_ONMAX ? "onmax(" : "onchange(");
		if (on[0] != '$')
			hist__sb_putc(&sb, '$');
	}
	hist__sb_puts(&sb, on);
	hist__sb_puts(&sb, ").");
	switch (action) {
	case HIST_ACTION_TRACE:
		hist__sb_puts(&sb, "trace(");
		hist__sb_puts(&sb, name);
		break;
	case HIST_ACTION_SYNTH:
		hist__sb_puts(&sb, name);
		hist__sb_putc(&sb, '(');
		break;
	case HIST_ACTION_SAVE:
		hist__sb_puts(&sb, "save(");
		break;
	default:
		hist__sb_puts(&sb, "snapshot(");
		break;
	}
	for (i = 0; i < nr_params; i++) {
		if (i || action == HIST_ACTION_TRACE)
			hist__sb_putc(&sb, ',');
		hist__sb_puts(&sb, params[i]);
	}
	hist__sb_putc(&sb, ')');
	ret = take(&sb, buf, sizeof(buf), &b->actions[b->nr_actions]);
	if (!ret)
		b->nr_actions++;
	return ret;
}

/* ---- the command ------------------------------------------------------ */

static void put_list(struct hist__sb *sb, const char *attr, char *const *v,
		     uint32_t n)
{
	uint32_t i;

	if (!n)
		return;
	hist__sb_puts(sb, attr);
	for (i = 0; i < n; i++) {
		if (i)
			hist__sb_putc(sb, ',');
		hist__sb_puts(sb, v[i]);
	}
}

const char *hist_builder_text(hist_builder *b, enum hist_builder_cmd cmd, int *err)
{
	static const char *const suffix[] = {
		[HIST_CMD_START] = "", [HIST_CMD_PAUSE] = ":pause",
		[HIST_CMD_CONT] = ":cont", [HIST_CMD_CLEAR] = ":clear",
		[HIST_CMD_REMOVE] = "",
	};
	struct hist__sb sb;
	uint32_t i;
	int ret = -HIST_EINVAL;

	if (!b->nr_keys || (unsigned)cmd >= HIST__ARRAY_SIZE(suffix) ||
	    (b->filter_len && (b->fstate != AFTER_TERM || b->depth)))
		goto fail;
	hist__sb_init_buf(&sb, b->text, sizeof(b->text));
	hist__sb_puts(&sb, cmd == HIST_CMD_REMOVE ? "!hist:" : "hist:");
	if (b->name) {
		hist__sb_puts(&sb, "name=");
		hist__sb_puts(&sb, b->name);
		hist__sb_putc(&sb, ':');
	}
	put_list(&sb, "keys=", b->keys, b->nr_keys);
	put_list(&sb, ":vals=", b->vals, b->nr_vals);
	put_list(&sb, ":", b->vars, b->nr_vars);
	put_list(&sb, ":sort=", b->sort, b->nr_sort);
	if (b->size) {
		hist__sb_puts(&sb, ":size=");
		hist__sb_u64(&sb, b->size, 0, ' ');
	}
	if (b->clock) {
		hist__sb_puts(&sb, ":clock=");
		hist__sb_puts(&sb, b->clock);
	}
	if (b->nohitcount)
		hist__sb_puts(&sb, ":nohitcount");
	for (i = 0; i < b->nr_actions; i++) {
		hist__sb_putc(&sb, ':');
		hist__sb_puts(&sb, b->actions[i]);
	}
	hist__sb_puts(&sb, suffix[cmd]);
	if (b->filter_len) {
		hist__sb_puts(&sb, " if ");
		hist__sb_puts(&sb, b->filter);
	}
	hist__sb_finish(&sb);
	/* a trigger write is shorter than HIST__CMD_MAX */
	if (strlen(b->text) >= HIST__CMD_MAX) {
		ret = -HIST_E2BIG;
		goto fail;
	}
	if (err)
		*err = 0;
	return b->text;
fail:
	if (err)
		*err = ret;
	return NULL;
}

int hist_builder_command(hist_builder *b, enum hist_builder_cmd cmd,
			 struct hist_error *err)
{
	int ret;
	const char *text = hist_builder_text(b, cmd, &ret);

	if (!text) {
		if (err) {
			memset(err, 0, sizeof(*err));
			err->code = ret;
			err->msg = -1;
		}
		return ret;
	}
	return hist_trigger_parse(b->ev, text, err);
}
