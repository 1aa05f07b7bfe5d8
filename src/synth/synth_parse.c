/* SPDX-License-Identifier: MIT */
/*
 * Synthetic event definitions: the text written to synthetic_events and
 * dynamic_events, parsed the way the kernel parses it, so that one write
 * fails with the same errno, the same error_log message and the same
 * caret, and logs the same number of entries.
 *
 * Things users can see, and that this file keeps on purpose:
 *   - A write is handled in chunks of 4095 bytes; a line that does not fit
 *     in one chunk fails the whole remaining write with EINVAL, without
 *     an error_log entry.  Lines before it have already taken effect.
 *   - The caret is the FIRST occurrence of the offending token anywhere in
 *     the command (a plain substring search), not where the token is.
 *   - Several fields may share one ';' segment ("u64 a u64 b"), the legacy
 *     syntax the kernel still accepts.
 *   - "!name anything" deletes NAME whatever follows (case s22).
 *
 * Logging an error never allocates (the error_log ring is preallocated);
 * what a failed definition allocated is freed on every error path.
 */
#include "synth/synth.h"

#define WRITE_BUFSIZE 4096	/* trace_parse_run_command's chunk + NUL */
#define SYNTH_LOC "synthetic_events"
#define SYNTH_SYSTEM_PREFIX "synthetic/"

/* A token: a view into the command, not NUL-terminated. */
struct tok {
	const char *s;
	size_t n;
};

/* The command being parsed and where its errors go. */
struct synth_perr {
	struct hist_ctx *ctx;
	const char *cmd;	/* the echo: the line after leading spaces */
	size_t cmd_len;
	struct hist_error *err;
};

/* The kernel's ctype: NBSP (0xa0) is a space and Latin-1 letters are
 * letters, which decides what argv_split() and is_good_name() accept. */
static bool k_isspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static bool k_isalpha(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return true;
	return c >= 0xc0 && c != 0xd7 && c != 0xf7;
}

static bool k_isdigit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool good_name(const char *s, size_t n)
{
	size_t i;

	if (!n || (!k_isalpha((unsigned char)s[0]) && s[0] != '_'))
		return false;
	for (i = 1; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!k_isalpha(c) && !k_isdigit(c) && c != '_')
			return false;
	}
	return true;
}

static bool tok_is(const struct tok *t, const char *s)
{
	return strlen(s) == t->n && !memcmp(t->s, s, t->n);
}

static const char *skip_spaces(const char *s, const char *end)
{
	while (s < end && k_isspace((unsigned char)*s))
		s++;
	return s;
}

/* The next whitespace-separated token of [*p, end), as argv_split()
 * splits; false when none is left. */
static bool next_tok(const char **p, const char *end, struct tok *t)
{
	const char *s = skip_spaces(*p, end);

	if (s == end) {
		*p = s;
		return false;
	}
	t->s = s;
	while (s < end && !k_isspace((unsigned char)*s))
		s++;
	t->n = (size_t)(s - t->s);
	*p = s;
	return true;
}

static const char *find_chr(const char *s, const char *end, char c)
{
	return memchr(s, c, (size_t)(end - s));
}

/* ---- errors ---------------------------------------------------------- */

/* First occurrence of S (N bytes) in the command, as err_pos() does. */
static uint32_t errpos(const struct synth_perr *pe, const char *s, size_t n)
{
	size_t i;

	if (!n || n > pe->cmd_len)
		return 0;
	for (i = 0; i + n <= pe->cmd_len; i++)
		if (pe->cmd[i] == s[0] && !memcmp(pe->cmd + i, s, n))
			return (uint32_t)(i & 0xffff);	/* the kernel's u16 */
	return 0;
}

static int synth_err(struct synth_perr *pe, int msg, uint32_t pos, int code)
{
	hist__errlog_add(pe->ctx, SYNTH_LOC, pe->cmd, pe->cmd_len, msg, pos);
	if (pe->err) {
		pe->err->msg = msg;
		pe->err->pos = pos;
		pe->err->nr_logged++;
	}
	return code;
}

/* ---- types ----------------------------------------------------------- */

static const struct {
	const char *type;
	int size;
} num_types[] = {
	{ "s64", 8 }, { "u64", 8 }, { "s32", 4 }, { "u32", 4 },
	{ "s16", 2 }, { "u16", 2 }, { "s8", 1 }, { "u8", 1 },
	{ "char", 1 }, { "unsigned char", 1 }, { "int", 4 },
	{ "unsigned int", 4 }, { "long", 8 }, { "unsigned long", 8 },
	{ "bool", 1 }, { "pid_t", 4 }, { "gfp_t", 4 },
};

/* "char[N]": N of 1-3 characters, base 0 like kstrtouint, at most 256;
 * 0 for "char[]" (and "char[0]"), which make a dynamic string. */
static int string_size(const char *type)
{
	const char *start = strstr(type, "char["), *end;
	uint64_t v;
	size_t len;

	start += 5;
	end = strchr(type, ']');
	if (!end || end < start || end[1])
		return -1;
	len = (size_t)(end - start);
	if (len > 3)
		return -1;
	if (!len)
		return 0;
	/* kstrtouint() takes one leading '+' */
	if (*start == '+') {
		start++;
		len--;
	}
	if (hist__parse_u64(start, len, 0, &v) || v > HIST__STR_VAR_LEN_MAX)
		return -1;
	return (int)v;
}

int hist__synth_type_size(const char *type)
{
	size_t i;

	for (i = 0; i < HIST__ARRAY_SIZE(num_types); i++)
		if (!strcmp(type, num_types[i].type))
			return num_types[i].size;
	if (strstr(type, "char["))
		return string_size(type);
	return 0;	/* "long[]" stacks, and unknown types */
}

/* ---- one field ------------------------------------------------------- */

static void field_free(struct hist__synth_field *f)
{
	hist__free(f->name);
	hist__free(f->type);
	memset(f, 0, sizeof(*f));
}

static char *join3(const char *a, size_t an, const char *b, size_t bn,
		   const char *c, size_t cn)
{
	char *s = hist__zalloc(an + bn + cn + 1);

	if (!s)
		return NULL;
	memcpy(s, a, an);
	memcpy(s + an, b, bn);
	memcpy(s + an + bn, c, cn);
	return s;
}

/*
 * Parse the field at *P in the segment ending at END: "[unsigned] type
 * name[array]".  Consumes its tokens and fills F.
 */
static int parse_field(struct synth_perr *pe, const char **p, const char *end,
		       struct hist__synth_field *f)
{
	const char *q = *p, *array;
	struct tok t0, type, name;
	bool has_name, has_prefix = false;
	size_t fname_len;
	int size;

	next_tok(&q, end, &t0);
	if (tok_is(&t0, "unsigned")) {
		if (!next_tok(&q, end, &type) || !next_tok(&q, end, &name))
			return synth_err(pe, HIST_SYNTH_ERR_INCOMPLETE_TYPE,
					 errpos(pe, t0.s, t0.n), -HIST_EINVAL);
		has_prefix = true;
		has_name = true;
	} else {
		type = t0;
		has_name = next_tok(&q, end, &name);
	}
	*p = q;
	if (!has_name)
		return synth_err(pe, HIST_SYNTH_ERR_INVALID_FIELD,
				 errpos(pe, type.s, type.n), -HIST_EINVAL);

	array = memchr(name.s, '[', name.n);
	fname_len = array ? (size_t)(array - name.s) : name.n;
	if (!good_name(name.s, fname_len))
		return synth_err(pe, HIST_SYNTH_ERR_BAD_NAME,
				 errpos(pe, name.s, name.n), -HIST_EINVAL);

	memset(f, 0, sizeof(*f));
	f->name = hist__strndup(name.s, fname_len);
	/* The type is "unsigned " + type + the array part of the name. */
	f->type = join3("unsigned ", has_prefix ? 9 : 0, type.s, type.n,
			array ? array : "",
			array ? name.n - fname_len : 0);
	if (!f->name || !f->type) {
		field_free(f);
		return -HIST_ENOMEM;
	}

	size = hist__synth_type_size(f->type);
	if (size < 0) {
		field_free(f);
		if (array)
			return synth_err(pe, HIST_SYNTH_ERR_INVALID_ARRAY_SPEC,
					 errpos(pe, name.s, name.n), -HIST_EINVAL);
		return synth_err(pe, HIST_SYNTH_ERR_INVALID_TYPE,
				 errpos(pe, type.s, type.n), -HIST_EINVAL);
	}
	f->is_string = strstr(f->type, "char[") != NULL;
	f->is_stack = !f->is_string && strstr(f->type, "long[") != NULL;
	if (size == 0) {
		if (!f->is_string && !f->is_stack) {
			field_free(f);
			return synth_err(pe, HIST_SYNTH_ERR_INVALID_TYPE,
					 errpos(pe, type.s, type.n), -HIST_EINVAL);
		}
		f->is_dynamic = true;
		size = 8;	/* the data_loc slot */
	}
	f->size = (uint32_t)size;
	/*
	 * Signedness is decided on the kernel's type string, which for a
	 * dynamic field starts with "__data_loc": those are all signed.
	 */
	f->is_signed = f->is_dynamic ||
		       (f->type[0] != 'u' && strcmp(f->type, "gfp_t") != 0);
	return 0;
}

/* ---- one definition ------------------------------------------------- */

static void fields_free(struct hist__synth_field *fs, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		field_free(&fs[i]);
	hist__free(fs);
}

/* NAME then the ';'-separated fields in [fields, end). */
static int create(struct synth_perr *pe, struct tok name, const char *fields,
		  const char *end)
{
	struct hist__synth_field *fs, f;
	const char *seg = fields, *seg_end, *q;
	uint32_t n = 0;
	struct tok t;
	int ret;

	if (!name.n)
		return synth_err(pe, HIST_SYNTH_ERR_INVALID_CMD, 0, -HIST_EINVAL);
	if (!good_name(name.s, name.n))
		return synth_err(pe, HIST_SYNTH_ERR_BAD_NAME,
				 errpos(pe, name.s, name.n), -HIST_EINVAL);
	if (hist__synth_find(pe->ctx, name.s, name.n))
		return synth_err(pe, HIST_SYNTH_ERR_EVENT_EXISTS,
				 errpos(pe, name.s, name.n), -HIST_EEXIST);

	fs = hist__zalloc(sizeof(*fs) * HIST__SYNTH_FIELDS_MAX);
	if (!fs)
		return -HIST_ENOMEM;
	for (;;) {
		seg_end = find_chr(seg, end, ';');
		if (!seg_end)
			seg_end = end;
		q = seg;
		for (;;) {
			const char *peek = q;

			if (!next_tok(&peek, seg_end, &t))
				break;
			ret = parse_field(pe, &q, seg_end, &f);
			if (ret)
				goto fail;
			/* checked after the field parsed: a bad 65th field
			 * reports its own error first */
			if (n == HIST__SYNTH_FIELDS_MAX) {
				field_free(&f);
				ret = synth_err(pe, HIST_SYNTH_ERR_TOO_MANY_FIELDS,
						0, -HIST_EINVAL);
				goto fail;
			}
			fs[n++] = f;
		}
		if (seg_end == end)
			break;
		seg = seg_end + 1;
	}
	if (!n) {
		ret = synth_err(pe, HIST_SYNTH_ERR_INVALID_CMD, 0, -HIST_EINVAL);
		goto fail;
	}
	/* the fields belong to the definition from here, even on failure */
	ret = hist__synth_register(pe->ctx, name.s, name.n, fs, n, NULL);
	if (ret == -HIST_EEXIST)	/* the host defined synthetic/NAME */
		return synth_err(pe, HIST_SYNTH_ERR_EVENT_EXISTS,
				 errpos(pe, name.s, name.n), ret);
	return ret;
fail:
	fields_free(fs, n);
	return ret;
}

/*
 * The first ';' segment must hold at least "name type field", unless the
 * command deletes ('!').
 */
static bool check_command(const char *s, const char *end)
{
	const char *seg_end = find_chr(s, end, ';');
	unsigned n = 0;
	struct tok t;

	if (!seg_end)
		seg_end = end;
	if (s < end && s[0] == '!')
		return true;
	while (n < 3 && next_tok(&s, seg_end, &t))
		n++;
	return n >= 3;
}

static int delete_name(struct hist_ctx *ctx, const char *name, size_t n)
{
	struct hist__synth *s = hist__synth_find(ctx, name, n);

	if (!s)
		return -HIST_ENOENT;
	return hist__synth_delete(ctx, s);
}

/* One synthetic_events command in [s, end): define, or delete with '!'. */
static int synth_line(struct hist_ctx *ctx, const char *s, const char *end,
		      struct hist_error *err)
{
	struct synth_perr pe = { ctx, NULL, 0, err };
	const char *p;
	struct tok name;

	s = skip_spaces(s, end);
	if (s == end)
		return 0;
	pe.cmd = s;
	pe.cmd_len = (size_t)(end - s);
	if (!check_command(s, end))
		return synth_err(&pe, HIST_SYNTH_ERR_INVALID_CMD, 0, -HIST_EINVAL);
	for (p = s; p < end && *p != ' ' && *p != '\t'; p++)
		;
	if (p == end && s[0] != '!')
		return synth_err(&pe, HIST_SYNTH_ERR_INVALID_CMD, 0, -HIST_EINVAL);
	if (s[0] == '!')
		return delete_name(ctx, s + 1, (size_t)(p - s - 1));
	name.s = s;
	name.n = (size_t)(p - s);
	return create(&pe, name, skip_spaces(p, end), end);
}

/*
 * dynamic_events "-:[system/]name [anything]" or "!...:[system/]name":
 * deletes every synthetic event called NAME when SYSTEM is absent or
 * "synthetic".  Never logs.
 */
static int dyn_release(struct hist_ctx *ctx, const char *s, const char *end)
{
	const char *q = s, *ev, *ev_end, *slash, *colon;
	const char *sys = NULL;
	size_t sys_n = 0;
	struct hist__synth *sy;
	struct tok t0;

	next_tok(&q, end, &t0);
	ev_end = t0.s + t0.n;
	if (t0.s[0] == '-') {
		if (t0.n < 2 || t0.s[1] != ':')
			return -HIST_EINVAL;
		ev = t0.s + 2;
	} else {
		colon = find_chr(t0.s, ev_end, ':');
		if (!colon)
			return -HIST_EINVAL;
		ev = colon + 1;
	}
	slash = find_chr(ev, ev_end, '/');
	if (slash) {
		sys = ev;
		sys_n = (size_t)(slash - ev);
		ev = slash + 1;
	}
	if (!sys && ev == ev_end)
		return -HIST_EINVAL;
	if (sys && (sys_n != 9 || memcmp(sys, "synthetic", 9)))
		return -HIST_ENOENT;
	sy = hist__synth_find(ctx, ev, (size_t)(ev_end - ev));
	if (!sy)
		return -HIST_ENOENT;
	return hist__synth_delete(ctx, sy);
}

/* One dynamic_events command in [s, end). */
static int dyn_line(struct hist_ctx *ctx, const char *s, const char *end,
		    struct hist_error *err)
{
	struct synth_perr pe = { ctx, NULL, 0, err };
	const char *p, *name;
	struct tok n;

	/* the removal check looks at the raw first byte, before any
	 * leading spaces are skipped */
	if (s < end && (s[0] == '-' || s[0] == '!'))
		return dyn_release(ctx, s, end);
	s = skip_spaces(s, end);
	if (s == end)
		return 0;
	pe.cmd = s;
	pe.cmd_len = (size_t)(end - s);
	/* Not "s:": a kprobe/uprobe/eprobe command, none of ours.  With no
	 * other dynamic event type to claim it the kernel says EINVAL. */
	if (end - s < 2 || s[0] != 's' || s[1] != ':')
		return -HIST_EINVAL;
	name = s + 2;
	for (p = s; p < end && *p != ' ' && *p != '\t'; p++)
		;
	if (p == end)
		return synth_err(&pe, HIST_SYNTH_ERR_INVALID_CMD, 0, -HIST_EINVAL);
	/* any '/' up to the end of the line, fields included, asks for the
	 * system prefix */
	if (find_chr(name, end, '/')) {
		size_t plen = sizeof(SYNTH_SYSTEM_PREFIX) - 1;

		if ((size_t)(end - name) < plen ||
		    memcmp(name, SYNTH_SYSTEM_PREFIX, plen))
			return synth_err(&pe, HIST_SYNTH_ERR_INVALID_DYN_CMD, 0,
					 -HIST_EINVAL);
		name += plen;
	}
	if (!check_command(name, end))
		return synth_err(&pe, HIST_SYNTH_ERR_INVALID_CMD, 0, -HIST_EINVAL);
	n.s = name;
	n.n = (size_t)(p - name);
	return create(&pe, n, skip_spaces(p, end), end);
}

static void err_init(struct hist_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg = -1;
	err->pos = 0;
	err->nr_logged = 0;
}

int hist__synth_run(struct hist_ctx *ctx, const char *cmd,
		    struct hist_error *err)
{
	int ret;

	err_init(err);
	ret = synth_line(ctx, cmd, cmd + strlen(cmd), err);
	if (err)
		err->code = ret;
	return ret;
}

/*
 * A write: lines split on '\n', '#' comments cut, each line run in turn
 * until one fails.  The buffer is taken in chunks of WRITE_BUFSIZE - 1
 * bytes like the kernel's copy from user space: a line must end inside
 * the chunk it starts in, unless it is the end of the write.
 */
int hist__synth_cmd(struct hist_ctx *ctx, const char *line, int dynamic,
		    struct hist_error *err)
{
	size_t count = strlen(line), done = 0;
	int ret = 0;

	err_init(err);
	while (done < count && !ret) {
		size_t size = count - done;
		const char *kbuf = line + done, *kend, *buf;

		if (size >= WRITE_BUFSIZE)
			size = WRITE_BUFSIZE - 1;
		kend = kbuf + size;
		buf = kbuf;
		do {
			const char *nl = find_chr(buf, kend, '\n');
			const char *lend = nl ? nl : kend, *hash;
			size_t lsize = (size_t)(lend - buf) + (nl ? 1 : 0);

			if (!nl && done + lsize < count) {
				if (buf != kbuf)
					break;	/* read on from this line */
				ret = -HIST_EINVAL;	/* line too long */
				break;
			}
			done += lsize;
			hash = find_chr(buf, lend, '#');
			if (hash)
				lend = hash;
			ret = dynamic ? dyn_line(ctx, buf, lend, err) :
					synth_line(ctx, buf, lend, err);
			buf += lsize;
		} while (!ret && done < count);
	}
	if (err)
		err->code = ret;
	return ret;
}
