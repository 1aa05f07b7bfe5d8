/* SPDX-License-Identifier: MIT */
/*
 * Synthetic events as events of the context: registration with the
 * kernel's record layout, deletion and its busy rule, the listings of
 * synthetic_events / dynamic_events, the `format` file, and generation of
 * records (the hot path).
 *
 * Record layout (what the kernel writes and its format file describes):
 *
 *   0  u16 common_type   (the event ID)
 *   2  u8  common_flags  (0 here)
 *   3  u8  common_preempt_count (0 here)
 *   4  s32 common_pid
 *   8  one slot per field, in definition order:
 *        numeric          8 bytes, the value truncated to the field size
 *                         and stored in the first SIZE bytes
 *        char[N]          256 bytes whatever N is (the format says size N)
 *        char[] / long[]  8 bytes; the first 4 hold len << 16 | offset
 *   fixed_size: dynamic data, in field order (string + NUL; frames + 0)
 *
 * Concurrency: definitions change on the control thread only.  A hit
 * reaches a definition through an action that holds it (users > 0), so a
 * definition in use cannot be deleted; the memory of a deleted one is
 * still retired (hist__retire) rather than freed, for in-code callers
 * racing with a delete they were told not to do.
 */
#include "synth/synth.h"
#include "common/fmt.h"

/* ---- registration ---------------------------------------------------- */

static void synth_free(void *p)
{
	struct hist__synth *s = p;
	uint32_t i;

	for (i = 0; i < s->nr_fields; i++) {
		hist__free(s->fields[i].name);
		hist__free(s->fields[i].type);
	}
	hist__free(s->fields);
	hist__free(s->name);
	hist__free(s);
}

struct hist__synth *hist__synth_find(struct hist_ctx *ctx, const char *name,
				     size_t n)
{
	struct hist__synth *s;

	for (s = ctx->synths; s; s = s->next)
		if (strlen(s->name) == n && !memcmp(s->name, name, n))
			return s;
	return NULL;
}

/* The lowest free ID from the base: the kernel reuses the IDs of deleted
 * events the same way. */
static uint32_t pick_id(struct hist_ctx *ctx)
{
	uint32_t id = HIST__SYNTH_ID_BASE;
	struct hist_event *ev;

again:
	for (ev = ctx->events; ev; ev = ev->next) {
		if (ev->desc.id == id) {
			id++;
			goto again;
		}
	}
	return id;
}

static const struct hist_field_desc common_fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
};
#define NR_COMMON HIST__ARRAY_SIZE(common_fields)

static uint8_t field_kind(const struct hist__synth_field *f)
{
	if (f->is_stack)
		return HIST_FIELD_STACK;
	if (f->is_string)
		return f->is_dynamic ? HIST_FIELD_DYN_STRING : HIST_FIELD_STRING;
	return HIST_FIELD_INT;
}

/* Lay the fields out and register the event "synthetic/<name>". */
static int add_event(struct hist_ctx *ctx, struct hist__synth *s)
{
	struct hist_field_desc *fd;
	struct hist_event_desc desc;
	uint32_t i, off = 8, n = (uint32_t)NR_COMMON + s->nr_fields;
	char **types;
	int ret = -HIST_ENOMEM;

	fd = hist__zalloc(sizeof(*fd) * n);
	types = hist__zalloc(sizeof(*types) * s->nr_fields);
	if (!fd || !types)
		goto out;
	memcpy(fd, common_fields, sizeof(common_fields));
	for (i = 0; i < s->nr_fields; i++) {
		struct hist__synth_field *f = &s->fields[i];
		struct hist_field_desc *d = &fd[NR_COMMON + i];

		f->offset = off;
		off += f->is_string && !f->is_dynamic ? HIST__STR_VAR_LEN_MAX : 8;
		if (f->is_dynamic) {
			/* the format's type names the data_loc */
			size_t tn = strlen(f->type);

			types[i] = hist__zalloc(11 + tn + 1);
			if (!types[i])
				goto out;
			memcpy(types[i], "__data_loc ", 11);
			memcpy(types[i] + 11, f->type, tn);
		}
		d->name = f->name;
		d->type = types[i] ? types[i] : f->type;
		d->offset = f->offset;
		d->size = f->size;
		d->is_signed = f->is_signed;
		d->kind = field_kind(f);
	}
	s->fixed_size = off;
	s->id = pick_id(ctx);
	memset(&desc, 0, sizeof(desc));
	desc.system = "synthetic";
	desc.name = s->name;
	desc.id = s->id;
	desc.fields = fd;
	desc.nr_fields = n;
	ret = hist__ctx_add_event(ctx, &desc, &s->ev);
	if (!ret)
		s->ev->synth = s;
out:
	if (types)
		for (i = 0; i < s->nr_fields; i++)
			hist__free(types[i]);
	hist__free(types);
	hist__free(fd);
	return ret;
}

int hist__synth_register(struct hist_ctx *ctx, const char *name, size_t n,
			 struct hist__synth_field *fields, uint32_t nr_fields,
			 struct hist__synth **out)
{
	struct hist__synth *s = hist__zalloc(sizeof(*s)), **pp;
	int ret = -HIST_ENOMEM;

	if (!s) {
		for (; nr_fields; nr_fields--) {
			hist__free(fields[nr_fields - 1].name);
			hist__free(fields[nr_fields - 1].type);
		}
		hist__free(fields);
		return ret;
	}
	s->fields = fields;
	s->nr_fields = nr_fields;
	s->name = hist__strndup(name, n);
	if (!s->name)
		goto fail;
	if (hist__synth_find(ctx, name, n) ||
	    hist__ctx_find_event(ctx, "synthetic", s->name)) {
		ret = -HIST_EEXIST;
		goto fail;
	}
	ret = add_event(ctx, s);
	if (ret)
		goto fail;
	/* append: the listings follow definition order */
	for (pp = &ctx->synths; *pp; pp = &(*pp)->next)
		;
	*pp = s;
	if (out)
		*out = s;
	return 0;
fail:
	synth_free(s);
	return ret;
}

bool hist__synth_busy(const struct hist__synth *s)
{
	return s->users > 0 || hist__load_relaxed(&s->ev->triggers) != NULL;
}

static void unlink_synth(struct hist_ctx *ctx, struct hist__synth *s)
{
	struct hist__synth **pp;

	for (pp = &ctx->synths; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			return;
		}
	}
}

int hist__synth_delete(struct hist_ctx *ctx, struct hist__synth *s)
{
	if (hist__synth_busy(s))
		return -HIST_EBUSY;
	unlink_synth(ctx, s);
	s->ev->synth = NULL;
	hist__ctx_del_event(ctx, s->ev);
	hist__retire(ctx, &s->retire, synth_free, s);
	return 0;
}

int hist__synth_truncate(struct hist_ctx *ctx)
{
	struct hist__synth *s;
	int ret;

	/* all or nothing: nothing is deleted if one is busy */
	for (s = ctx->synths; s; s = s->next)
		if (hist__synth_busy(s))
			return -HIST_EBUSY;
	while (ctx->synths) {
		ret = hist__synth_delete(ctx, ctx->synths);
		if (ret)
			return ret;
	}
	return 0;
}

void hist__synth_free_all(struct hist_ctx *ctx)
{
	struct hist__synth *s, *next;

	/* the context frees the events themselves */
	for (s = ctx->synths; s; s = next) {
		next = s->next;
		synth_free(s);
	}
	ctx->synths = NULL;
}

/* ---- listings and the format file ----------------------------------- */

int hist__synth_print(struct hist_ctx *ctx, int dynamic, hist_write_fn write,
		      void *arg)
{
	struct hist__synth *s;
	struct hist__sb sb;
	uint32_t i;

	hist__sb_init(&sb, write, arg);
	for (s = ctx->synths; s; s = s->next) {
		if (dynamic)
			hist__sb_puts(&sb, "s:synthetic/");
		hist__sb_puts(&sb, s->name);
		hist__sb_putc(&sb, '\t');
		for (i = 0; i < s->nr_fields; i++) {
			if (i)
				hist__sb_puts(&sb, "; ");
			hist__sb_puts(&sb, s->fields[i].type);
			hist__sb_putc(&sb, ' ');
			hist__sb_puts(&sb, s->fields[i].name);
		}
		hist__sb_putc(&sb, '\n');
	}
	return hist__sb_finish(&sb);
}

/* The printf conversion the kernel's print fmt uses for TYPE (6.1:
 * strings print with plain %s). */
static const char *field_fmt(const struct hist__synth_field *f)
{
	static const struct {
		const char *type, *fmt;
	} fmts[] = {
		{ "s64", "%lld" }, { "u64", "%llu" }, { "s32", "%d" },
		{ "u32", "%u" }, { "s16", "%d" }, { "u16", "%u" },
		{ "s8", "%d" }, { "u8", "%u" }, { "char", "%d" },
		{ "unsigned char", "%u" }, { "int", "%d" },
		{ "unsigned int", "%u" }, { "long", "%ld" },
		{ "unsigned long", "%lu" }, { "bool", "%d" },
		{ "pid_t", "%d" }, { "gfp_t", "%x" },
	};
	size_t i;

	if (f->is_string || f->is_stack)
		return "%s";
	for (i = 0; i < HIST__ARRAY_SIZE(fmts); i++)
		if (!strcmp(f->type, fmts[i].type))
			return fmts[i].fmt;
	return "%llu";
}

/* "\tfield:TYPE NAME;\toffset:O;\tsize:S;\tsigned:X;\n"; TYPE is the first
 * TN bytes of PRE + TYPE, NAME is followed by SUFFIX. */
static void put_field_line(struct hist__sb *sb, const char *pre,
			   const char *type, size_t tn, const char *name,
			   const char *suffix, uint32_t off, uint32_t size,
			   bool is_signed)
{
	hist__sb_puts(sb, "\tfield:");
	hist__sb_puts(sb, pre);
	hist__sb_putn(sb, type, tn);
	hist__sb_putc(sb, ' ');
	hist__sb_puts(sb, name);
	hist__sb_puts(sb, suffix);
	hist__sb_puts(sb, ";\toffset:");
	hist__sb_u64(sb, off, 0, ' ');
	hist__sb_puts(sb, ";\tsize:");
	hist__sb_u64(sb, size, 0, ' ');
	hist__sb_puts(sb, ";\tsigned:");
	hist__sb_putc(sb, is_signed ? '1' : '0');
	hist__sb_puts(sb, ";\n");
}

int hist__synth_print_format(struct hist__synth *s, hist_write_fn write,
			     void *arg)
{
	struct hist__sb sb;
	uint32_t i;

	hist__sb_init(&sb, write, arg);
	hist__sb_puts(&sb, "name: ");
	hist__sb_puts(&sb, s->name);
	hist__sb_puts(&sb, "\nID: ");
	hist__sb_u64(&sb, s->id, 0, ' ');
	hist__sb_puts(&sb, "\nformat:\n");
	for (i = 0; i < NR_COMMON; i++)
		put_field_line(&sb, "", common_fields[i].type,
			       strlen(common_fields[i].type),
			       common_fields[i].name, "", common_fields[i].offset,
			       common_fields[i].size, common_fields[i].is_signed);
	hist__sb_putc(&sb, '\n');
	for (i = 0; i < s->nr_fields; i++) {
		const struct hist__synth_field *f = &s->fields[i];
		const char *br = strchr(f->type, '[');

		/*
		 * A fixed array defined without a length of its own (as the
		 * kernel defines synthetic fields) prints as "char name[]",
		 * whatever N its type has; data_loc types print whole.
		 */
		if (f->is_dynamic)
			put_field_line(&sb, "__data_loc ", f->type,
				       strlen(f->type), f->name, "", f->offset,
				       f->size, f->is_signed);
		else
			put_field_line(&sb, "", f->type,
				       br ? (size_t)(br - f->type) : strlen(f->type),
				       f->name, br ? "[]" : "", f->offset,
				       f->size, f->is_signed);
	}
	hist__sb_puts(&sb, "\nprint fmt: \"");
	for (i = 0; i < s->nr_fields; i++) {
		if (i)
			hist__sb_puts(&sb, ", ");
		hist__sb_puts(&sb, s->fields[i].name);
		hist__sb_putc(&sb, '=');
		hist__sb_puts(&sb, field_fmt(&s->fields[i]));
	}
	hist__sb_putc(&sb, '"');
	for (i = 0; i < s->nr_fields; i++) {
		const struct hist__synth_field *f = &s->fields[i];

		if (f->is_string && f->is_dynamic)
			hist__sb_puts(&sb, ", __get_str(");
		else if (f->is_stack)
			hist__sb_puts(&sb, ", __get_stacktrace(");
		else
			hist__sb_puts(&sb, ", REC->");
		hist__sb_puts(&sb, f->name);
		if (f->is_dynamic)
			hist__sb_putc(&sb, ')');
	}
	hist__sb_putc(&sb, '\n');
	return hist__sb_finish(&sb);
}

/* ---- generation (hot path) ------------------------------------------ */

/* Length of S before its NUL, at most MAX (never reads past the NUL). */
static size_t str_len(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put_num(uint8_t *p, uint32_t size, uint64_t v)
{
	switch (size) {
	case 1:
		*p = (uint8_t)v;
		break;
	case 2: {
		uint16_t x = (uint16_t)v;

		memcpy(p, &x, 2);
		break;
	}
	case 4:
		put_u32(p, (uint32_t)v);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/*
 * A dynamic string: at most 255 characters and the NUL (the longest
 * string a hist variable holds), appended at LEN.  Returns the new length.
 */
static uint32_t put_dyn_str(uint8_t *rec, uint32_t len, uint8_t *slot,
			    const char *str)
{
	size_t n = str ? str_len(str, HIST__STR_VAR_LEN_MAX - 1) : 0;

	if (n)
		memcpy(rec + len, str, n);
	rec[len + n] = 0;
	put_u32(slot, (uint32_t)(n + 1) << 16 | len);
	return len + (uint32_t)n + 1;
}

/* Up to 16 frames, and the terminating 0 if there are fewer. */
static uint32_t put_stack(uint8_t *rec, uint32_t len, uint8_t *slot,
			  const uint64_t *ips)
{
	uint32_t n = 0, bytes;
	uint64_t zero = 0;

	while (ips && n < HIST__SYNTH_STACK_DEPTH && ips[n])
		n++;
	if (n)
		memcpy(rec + len, ips, n * 8u);
	bytes = n * 8u;
	if (n < HIST__SYNTH_STACK_DEPTH) {
		memcpy(rec + len + bytes, &zero, 8);
		bytes += 8;
	}
	put_u32(slot, bytes << 16 | len);
	return len + bytes;
}

void hist__synth_emit(struct hist__synth *s, const uint64_t *vals,
		      struct hist__rec *parent)
{
	/* Largest record: 64 fields of 256-byte strings (or 8-byte slots and
	 * 256 bytes of dynamic data each); no allocation on this path. */
	uint8_t rec[HIST__SYNTH_REC_MAX];
	struct hist_event *ev = s->ev;
	const struct hist_host *host = ev->host;
	const struct hist_hit *hit = parent ? parent->hit : NULL;
	uint32_t i, len = s->fixed_size;
	uint16_t type = (uint16_t)s->id;
	int32_t pid = parent ? hist__rec_pid(parent) : 0;

	/* Nobody would see it: the kernel does not generate events that
	 * are neither enabled nor triggered. */
	if (!host->synth_event && !hist__load_relaxed(&ev->active))
		return;
	memset(rec, 0, s->fixed_size);
	memcpy(rec, &type, 2);
	memcpy(rec + 4, &pid, 4);
	for (i = 0; i < s->nr_fields; i++) {
		const struct hist__synth_field *f = &s->fields[i];
		uint8_t *slot = rec + f->offset;
		const void *ptr = (const void *)(uintptr_t)vals[i];

		if (f->is_stack) {
			len = put_stack(rec, len, slot, ptr);
		} else if (f->is_dynamic) {
			len = put_dyn_str(rec, len, slot, ptr);
		} else if (f->is_string) {
			/* the kernel copies into the whole 256-byte slot,
			 * not just the declared N */
			size_t n = ptr ? str_len(ptr, HIST__STR_VAR_LEN_MAX - 1) : 0;

			if (n)
				memcpy(slot, ptr, n);
		} else {
			put_num(slot, f->size, vals[i]);
		}
	}
	if (host->synth_event)
		host->synth_event(host->data, ev, rec, len, hit);
	hist__event_hit(ev, rec, len, hit, parent ? parent->depth + 1 : 0,
			parent ? parent->slot : HIST__SLOT_SHARED);
}

/* ---- public wrappers -------------------------------------------------- */

int hist_synth_parse(hist_ctx *ctx, const char *line, int dynamic,
		     struct hist_error *err)
{
	if (!ctx || !line)
		return -HIST_EINVAL;
	return hist__synth_cmd(ctx, line, dynamic, err);
}

int hist_synth_truncate(hist_ctx *ctx)
{
	if (!ctx)
		return -HIST_EINVAL;
	return hist__synth_truncate(ctx);
}

int hist_synth_print(hist_ctx *ctx, int dynamic, hist_write_fn write,
		     void *arg)
{
	if (!ctx || !write)
		return -HIST_EINVAL;
	return hist__synth_print(ctx, dynamic, write, arg);
}
