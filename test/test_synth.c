/* SPDX-License-Identifier: MIT */
/*
 * Synthetic events: every recorded 6.1 case s01..s22 (errno, error_log
 * text and caret, entries per write), definitions of every type and their
 * listings, the format file against the kernel's (from the g33/g44/g54
 * trace.dat files), the record layout of generated events, deletion and
 * busy rules, the write-buffer line limits, and the in-code API.
 */
#include "harness.h"
#include "hist_synth.h"
#include "synth/synth.h"

#include <stdlib.h>

/* ---- helpers ---------------------------------------------------------- */

struct sbuf {
	char d[1 << 16];
	size_t n;
};

static int sbuf_write(void *arg, const char *b, size_t n)
{
	struct sbuf *s = arg;

	if (s->n + n >= sizeof(s->d))
		return -HIST_ENOMEM;
	memcpy(s->d + s->n, b, n);
	s->n += n;
	s->d[s->n] = 0;
	return 0;
}

/* Records the host saw through synth_event. */
static struct {
	int calls;
	hist_event *ev;
	const struct hist_hit *hit;
	size_t len;
	uint8_t rec[HIST__SYNTH_REC_MAX];
} seen;

static void on_synth(void *data, hist_event *ev, const void *rec, size_t len,
		     const struct hist_hit *hit)
{
	(void)data;
	seen.calls++;
	seen.ev = ev;
	seen.hit = hit;
	seen.len = len;
	memcpy(seen.rec, rec, len);
}

static uint64_t fixed_clock(void *data)
{
	(void)data;
	return 5643919000ull;
}

static hist_ctx *new_ctx(int with_cb)
{
	struct hist_host host;
	hist_ctx *ctx;
	int err;

	memset(&host, 0, sizeof(host));
	host.clock = fixed_clock;
	if (with_cb)
		host.synth_event = on_synth;
	ctx = hist_ctx_create(&host, NULL, &err);
	memset(&seen, 0, sizeof(seen));
	return ctx;
}

/* The error_log without the "[    5.643919] " stamps. */
static const char *errlog(hist_ctx *ctx)
{
	static struct sbuf raw, out;
	const char *p;

	raw.n = out.n = 0;
	raw.d[0] = out.d[0] = 0;
	hist_ctx_print_error_log(ctx, sbuf_write, &raw);
	for (p = raw.d; *p;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p + 1) : strlen(p);

		if (*p == '[') {
			const char *rb = strstr(p, "] ");

			if (rb && rb < p + n) {
				n -= (size_t)(rb + 2 - p);
				p = rb + 2;
			}
		}
		memcpy(out.d + out.n, p, n);
		out.n += n;
		out.d[out.n] = 0;
		p += n;
	}
	return out.d;
}

static const char *listing(hist_ctx *ctx, int dynamic)
{
	static struct sbuf s;

	s.n = 0;
	s.d[0] = 0;
	hist_synth_print(ctx, dynamic, sbuf_write, &s);
	return s.d;
}

static const char *format_of(hist_ctx *ctx, const char *name)
{
	static struct sbuf s;

	s.n = 0;
	s.d[0] = 0;
	if (hist_synth_print_format(ctx, name, sbuf_write, &s))
		return NULL;
	return s.d;
}

/* One write on a fresh context: return code, log entries, log text. */
static void check_write(const char *line, int dynamic, int exp_ret,
			const char *exp_log)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist_error err;
	int ret = hist_synth_parse(ctx, line, dynamic, &err);

	T_EQ(ret, exp_ret);
	T_EQ(err.code, exp_ret);
	T_STREQ(errlog(ctx), exp_log ? exp_log : "");
	T_EQ(err.nr_logged, exp_log ? 1 : 0);
	if (!exp_log)
		T_EQ(err.msg, -1);
	T_STREQ(listing(ctx, 0), "");
	hist_ctx_destroy(ctx);
}

static const struct hist_field_desc *field(hist_event *ev, const char *name)
{
	const struct hist_event_desc *d = hist_event_desc(ev);
	uint32_t i;

	for (i = 0; i < d->nr_fields; i++)
		if (!strcmp(d->fields[i].name, name))
			return &d->fields[i];
	return NULL;
}

static hist_event *synth_ev(hist_ctx *ctx, const char *name)
{
	return hist_event_lookup(ctx, "synthetic", name);
}

static uint64_t rd(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	memcpy(&v, p, size);	/* little-endian hosts */
	return v;
}

/* ---- recorded kernel cases (6.1) ------------------------------------- */

static void test_s01_invalid_type(void)
{
	check_write("myevent chr arg", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid type\n"
		    "  Command: myevent chr arg\n"
		    "                   ^\n");
}

static void test_s02_incomplete_type(void)
{
	check_write("myevent unsigned arg", 0, -HIST_EINVAL,
		    "synthetic_events: error: Incomplete type\n"
		    "  Command: myevent unsigned arg\n"
		    "                   ^\n");
}

static void test_s04_bad_event_name(void)
{
	check_write("mye-vent char str[]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Illegal name\n"
		    "  Command: mye-vent char str[]\n"
		    "           ^\n");
}

static void test_s05_bad_field_name(void)
{
	check_write("myevent char st-r[]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Illegal name\n"
		    "  Command: myevent char st-r[]\n"
		    "                        ^\n");
}

static void test_s07_type_only_field(void)
{
	check_write("myevent char str; int", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid field\n"
		    "  Command: myevent char str; int\n"
		    "                             ^\n");
}

static void test_s08_array_unterminated(void)
{
	check_write("myevent char str[; int v", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid array specification\n"
		    "  Command: myevent char str[; int v\n"
		    "                        ^\n");
}

static void test_s10_array_too_big(void)
{
	check_write("myevent char str[257]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid array specification\n"
		    "  Command: myevent char str[257]\n"
		    "                        ^\n");
}

static void test_s11_semicolon_in_name(void)
{
	check_write("mye;vent char str[]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Command must be of the form: <name> field[;field] ...\n"
		    "  Command: mye;vent char str[]\n"
		    "           ^\n");
}

static void test_s13_semicolon_after_name(void)
{
	check_write("myevent; char str[]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Command must be of the form: <name> field[;field] ...\n"
		    "  Command: myevent; char str[]\n"
		    "           ^\n");
}

static void test_s14_leading_semicolon(void)
{
	check_write("; char str[]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Command must be of the form: <name> field[;field] ...\n"
		    "  Command: ; char str[]\n"
		    "           ^\n");
	check_write(";myevent char str[]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Command must be of the form: <name> field[;field] ...\n"
		    "  Command: ;myevent char str[]\n"
		    "           ^\n");
}

static void test_s16_exists(void)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist_error err;

	T_EQ(hist_synth_parse(ctx, "myevent u64 var1", 0, &err), 0);
	T_EQ(err.nr_logged, 0);
	T_EQ(hist_synth_parse(ctx, "myevent u64 var2", 0, &err), -HIST_EEXIST);
	T_EQ(err.nr_logged, 1);
	T_EQ(err.msg, HIST_SYNTH_ERR_EVENT_EXISTS);
	T_STREQ(errlog(ctx),
		"synthetic_events: error: Event already exists\n"
		"  Command: myevent u64 var2\n"
		"           ^\n");
	/* the first definition stands */
	T_STREQ(listing(ctx, 0), "myevent\tu64 var1\n");
	hist_ctx_destroy(ctx);
}

static void test_s17_remove_busy(void)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist_error err;
	hist_event *ev;

	T_EQ(hist_synth_parse(ctx, "myevent u64 lat; pid_t pid", 0, &err), 0);
	ev = synth_ev(ctx, "myevent");
	T_ASSERT(ev != NULL);
	T_EQ(hist_trigger_parse(ev, "hist:keys=pid", NULL), 0);
	hist_ctx_clear_error_log(ctx);
	T_EQ(hist_synth_parse(ctx, "!myevent", 0, &err), -HIST_EBUSY);
	T_EQ(err.nr_logged, 0);
	T_STREQ(errlog(ctx), "");
	T_EQ(hist_synth_truncate(ctx), -HIST_EBUSY);
	T_STREQ(listing(ctx, 0), "myevent\tu64 lat; pid_t pid\n");
	/* once the trigger is gone it can go */
	T_EQ(hist_trigger_parse(ev, "!hist:keys=pid", NULL), 0);
	T_EQ(hist_synth_parse(ctx, "!myevent", 0, &err), 0);
	T_STREQ(listing(ctx, 0), "");
	hist_ctx_destroy(ctx);
}

static void test_s19_dynevent_invalid(void)
{
	check_write("s:junk/myevent char str[", 1, -HIST_EINVAL,
		    "synthetic_events: error: Command must be of the form: s or -:[synthetic/]<name> field[;field] ...\n"
		    "  Command: s:junk/myevent char str[\n"
		    "           ^\n");
}

static void test_s20_too_many_fields(void)
{
	char line[2048], exp[4096];
	size_t n = 0;
	int i;

	n += (size_t)snprintf(line + n, sizeof(line) - n, "bigevent");
	for (i = 0; i <= 64; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s u64 f%d",
				      i ? ";" : "", i);
	snprintf(exp, sizeof(exp),
		 "synthetic_events: error: Too many fields\n"
		 "  Command: %s\n"
		 "           ^\n", line);
	check_write(line, 0, -HIST_EINVAL, exp);
	/* the recorded command, to be sure the generator matches it */
	T_ASSERT(strstr(line, "bigevent u64 f0; u64 f1; u64 f2;") == line);
	T_ASSERT(strstr(line, "; u64 f63; u64 f64") != NULL);
}

static void test_s22_remove_wrong_fields(void)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist_error err;

	T_EQ(hist_synth_parse(ctx, "myevent u64 lat; pid_t pid", 0, &err), 0);
	/* 6.1 deletes by name whatever fields follow */
	T_EQ(hist_synth_parse(ctx, "!myevent u64 lat", 0, &err), 0);
	T_EQ(err.nr_logged, 0);
	T_STREQ(listing(ctx, 0), "");
	T_ASSERT(synth_ev(ctx, "myevent") == NULL);
	hist_ctx_destroy(ctx);
}

/* ---- more grammar ---------------------------------------------------- */

static void test_64_fields_ok(void)
{
	hist_ctx *ctx = new_ctx(0);
	char line[2048];
	size_t n = 0;
	int i;

	n += (size_t)snprintf(line + n, sizeof(line) - n, "bigevent");
	for (i = 0; i < 64; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s u64 f%d",
				      i ? ";" : "", i);
	T_EQ(hist_synth_parse(ctx, line, 0, NULL), 0);
	T_EQ(hist_event_desc(synth_ev(ctx, "bigevent"))->nr_fields, 4 + 64);
	T_EQ(field(synth_ev(ctx, "bigevent"), "f63")->offset, 8 + 63 * 8);
	hist_ctx_destroy(ctx);
}

static void test_all_types_listing(void)
{
	hist_ctx *ctx = new_ctx(0);
	static const char *def =
		"alltypes u64 a; s64 b; u32 c; s32 d; u16 e; s16 f; u8 g; "
		"s8 h; char i; unsigned char j; int k; unsigned int l; long m; "
		"unsigned long n; bool o; pid_t p; gfp_t q; char r[16]; "
		"char[8] s; char t[]; long[] u; unsigned long[] v";
	static const char *list =
		"alltypes\tu64 a; s64 b; u32 c; s32 d; u16 e; s16 f; u8 g; "
		"s8 h; char i; unsigned char j; int k; unsigned int l; long m; "
		"unsigned long n; bool o; pid_t p; gfp_t q; char[16] r; "
		"char[8] s; char[] t; long[] u; unsigned long[] v\n";
	static const struct {
		const char *name;
		uint32_t size;
		int sign;
		int kind;
	} exp[] = {
		{ "a", 8, 0, HIST_FIELD_INT }, { "b", 8, 1, HIST_FIELD_INT },
		{ "c", 4, 0, HIST_FIELD_INT }, { "d", 4, 1, HIST_FIELD_INT },
		{ "e", 2, 0, HIST_FIELD_INT }, { "f", 2, 1, HIST_FIELD_INT },
		{ "g", 1, 0, HIST_FIELD_INT }, { "h", 1, 1, HIST_FIELD_INT },
		{ "i", 1, 1, HIST_FIELD_INT }, { "j", 1, 0, HIST_FIELD_INT },
		{ "k", 4, 1, HIST_FIELD_INT }, { "l", 4, 0, HIST_FIELD_INT },
		{ "m", 8, 1, HIST_FIELD_INT }, { "n", 8, 0, HIST_FIELD_INT },
		{ "o", 1, 1, HIST_FIELD_INT }, { "p", 4, 1, HIST_FIELD_INT },
		{ "q", 4, 0, HIST_FIELD_INT },
		{ "r", 16, 1, HIST_FIELD_STRING },
		{ "s", 8, 1, HIST_FIELD_STRING },
		{ "t", 8, 1, HIST_FIELD_DYN_STRING },
		{ "u", 8, 1, HIST_FIELD_STACK },
		{ "v", 8, 1, HIST_FIELD_STACK },
	};
	uint32_t off = 8;
	hist_event *ev;
	size_t i;

	T_EQ(hist_synth_parse(ctx, def, 0, NULL), 0);
	T_STREQ(listing(ctx, 0), list);
	T_ASSERT(strncmp(listing(ctx, 1), "s:synthetic/alltypes\t", 21) == 0);
	T_STREQ(listing(ctx, 1) + 12, list);
	ev = synth_ev(ctx, "alltypes");
	T_ASSERT(ev != NULL);
	for (i = 0; i < HIST__ARRAY_SIZE(exp); i++) {
		const struct hist_field_desc *f = field(ev, exp[i].name);

		T_ASSERT(f != NULL);
		if (!f)
			continue;
		T_EQ(f->size, exp[i].size);
		T_EQ(f->is_signed, exp[i].sign);
		T_EQ(f->kind, exp[i].kind);
		T_EQ(f->offset, off);
		off += exp[i].kind == HIST_FIELD_STRING ? 256 : 8;
	}
	T_STREQ(field(ev, "t")->type, "__data_loc char[]");
	T_STREQ(field(ev, "v")->type, "__data_loc unsigned long[]");
	T_STREQ(field(ev, "r")->type, "char[16]");
	T_STREQ(field(ev, "common_pid")->type, "int");
	T_EQ(field(ev, "common_pid")->offset, 4);
	T_EQ(field(ev, "common_type")->size, 2);
	hist_ctx_destroy(ctx);
}

static void test_legacy_fields_per_segment(void)
{
	hist_ctx *ctx = new_ctx(0);

	/* several fields between semicolons, and a trailing ';' */
	T_EQ(hist_synth_parse(ctx, "ev u64 a u32 b; unsigned int c int d;", 0,
			      NULL), 0);
	T_STREQ(listing(ctx, 0), "ev\tu64 a; u32 b; unsigned int c; int d\n");
	hist_ctx_destroy(ctx);
}

static void test_array_specs(void)
{
	hist_ctx *ctx = new_ctx(0);
	hist_event *ev;

	T_EQ(hist_synth_parse(ctx,
			      "arr char a[010]; char b[+5]; char c[256]; "
			      "char d[0]; unsigned char e[4]", 0, NULL), 0);
	T_STREQ(listing(ctx, 0), "arr\tchar[010] a; char[+5] b; char[256] c; "
				 "char[0] d; unsigned char[4] e\n");
	ev = synth_ev(ctx, "arr");
	T_EQ(field(ev, "a")->size, 8);
	T_EQ(field(ev, "b")->size, 5);
	T_EQ(field(ev, "c")->size, 256);
	T_EQ(field(ev, "d")->kind, HIST_FIELD_DYN_STRING);
	T_STREQ(field(ev, "d")->type, "__data_loc char[0]");
	T_EQ(field(ev, "e")->is_signed, 0);
	hist_ctx_destroy(ctx);

	check_write("ev char a[0x10]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid array specification\n"
		    "  Command: ev char a[0x10]\n"
		    "                   ^\n");
	check_write("ev char a[x]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid array specification\n"
		    "  Command: ev char a[x]\n"
		    "                   ^\n");
	check_write("ev char a[16]x", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid array specification\n"
		    "  Command: ev char a[16]x\n"
		    "                   ^\n");
	/* a bad length in the type itself is an invalid type */
	check_write("ev char[300] a", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid type\n"
		    "  Command: ev char[300] a\n"
		    "              ^\n");
	/* only char and long arrays exist */
	check_write("ev int a[4]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid type\n"
		    "  Command: ev int a[4]\n"
		    "              ^\n");
}

static void test_unsigned_forms(void)
{
	hist_ctx *ctx = new_ctx(0);
	hist_event *ev;

	T_EQ(hist_synth_parse(ctx, "uns unsigned int a; unsigned char b; "
			      "unsigned long c", 0, NULL), 0);
	ev = synth_ev(ctx, "uns");
	T_EQ(field(ev, "a")->size, 4);
	T_EQ(field(ev, "b")->size, 1);
	T_EQ(field(ev, "c")->size, 8);
	T_EQ(field(ev, "a")->is_signed + field(ev, "b")->is_signed +
	     field(ev, "c")->is_signed, 0);
	hist_ctx_destroy(ctx);

	check_write("ev unsigned int", 0, -HIST_EINVAL,
		    "synthetic_events: error: Incomplete type\n"
		    "  Command: ev unsigned int\n"
		    "              ^\n");
	check_write("ev unsigned u64 a", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid type\n"
		    "  Command: ev unsigned u64 a\n"
		    "                       ^\n");
}

static void test_caret_first_occurrence(void)
{
	/* the type-only field is the second "u64", the caret marks the
	 * first one: the kernel searches the token in the command */
	check_write("ev u64 a; int b u64", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid field\n"
		    "  Command: ev u64 a; int b u64\n"
		    "              ^\n");
	/* the type, even when the name after it is a type word */
	check_write("ev u64 a; 9x u64", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid type\n"
		    "  Command: ev u64 a; 9x u64\n"
		    "                     ^\n");
}

static void test_names(void)
{
	hist_ctx *ctx = new_ctx(0);

	T_EQ(hist_synth_parse(ctx, "_e9 u64 _x1", 0, NULL), 0);
	/* the kernel's ctype counts Latin-1 letters as letters */
	T_EQ(hist_synth_parse(ctx, "\xe9v u64 a", 0, NULL), 0);
	T_STREQ(listing(ctx, 0), "_e9\tu64 _x1\n\xe9v\tu64 a\n");
	hist_ctx_destroy(ctx);

	check_write("1ev u64 a", 0, -HIST_EINVAL,
		    "synthetic_events: error: Illegal name\n"
		    "  Command: 1ev u64 a\n"
		    "           ^\n");
	check_write("ev u64 1a", 0, -HIST_EINVAL,
		    "synthetic_events: error: Illegal name\n"
		    "  Command: ev u64 1a\n"
		    "                  ^\n");
	/* an array part with no name before it */
	check_write("ev char [16]", 0, -HIST_EINVAL,
		    "synthetic_events: error: Illegal name\n"
		    "  Command: ev char [16]\n"
		    "                   ^\n");
}

static void test_short_commands(void)
{
	check_write("ev", 0, -HIST_EINVAL,
		    "synthetic_events: error: Command must be of the form: <name> field[;field] ...\n"
		    "  Command: ev\n"
		    "           ^\n");
	check_write("ev u64", 0, -HIST_EINVAL,
		    "synthetic_events: error: Command must be of the form: <name> field[;field] ...\n"
		    "  Command: ev u64\n"
		    "           ^\n");
	/* empty, blank and comment-only writes do nothing */
	check_write("", 0, 0, NULL);
	check_write("   \t ", 0, 0, NULL);
	check_write("# just a comment", 0, 0, NULL);
	check_write("\n\n", 0, 0, NULL);
}

static void test_echo_trimming(void)
{
	/* leading spaces and the comment go, trailing spaces stay */
	check_write("   ev chr a  # a comment", 0, -HIST_EINVAL,
		    "synthetic_events: error: Invalid type\n"
		    "  Command: ev chr a  \n"
		    "              ^\n");
}

static void test_multi_line_write(void)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist_error err;

	T_EQ(hist_synth_parse(ctx, "# defs\nev1 u64 a # first\n\n  ev2 s32 b\n",
			      0, &err), 0);
	T_STREQ(listing(ctx, 0), "ev1\tu64 a\nev2\ts32 b\n");
	/* the lines before a failing one stay, the ones after never run */
	T_EQ(hist_synth_parse(ctx, "ev3 u64 a\nev4 chr b\nev5 u64 c", 0, &err),
	     -HIST_EINVAL);
	T_EQ(err.nr_logged, 1);
	T_STREQ(listing(ctx, 0), "ev1\tu64 a\nev2\ts32 b\nev3\tu64 a\n");
	T_STREQ(errlog(ctx),
		"synthetic_events: error: Invalid type\n"
		"  Command: ev4 chr b\n"
		"               ^\n");
	hist_ctx_destroy(ctx);
}

/* A valid definition padded with spaces to LEN characters. */
static char *padded_def(size_t len)
{
	char *s = malloc(len + 2);

	memset(s, ' ', len);
	memcpy(s, "longev u64 a", 12);
	s[len] = 0;
	return s;
}

static void test_line_length_limit(void)
{
	hist_ctx *ctx;
	struct hist_error err;
	char *s;

	/* 4094 characters and the newline fit in one 4095-byte chunk */
	ctx = new_ctx(0);
	s = padded_def(4094);
	strcat(s, "\n");
	T_EQ(hist_synth_parse(ctx, s, 0, &err), 0);
	T_STREQ(listing(ctx, 0), "longev\tu64 a\n");
	free(s);
	hist_ctx_destroy(ctx);

	/* 4095 and the newline do not: EINVAL, nothing logged */
	ctx = new_ctx(0);
	s = padded_def(4095);
	strcat(s, "\n");
	T_EQ(hist_synth_parse(ctx, s, 0, &err), -HIST_EINVAL);
	T_EQ(err.nr_logged, 0);
	T_STREQ(errlog(ctx), "");
	T_STREQ(listing(ctx, 0), "");
	free(s);
	hist_ctx_destroy(ctx);

	/* the last line of a write needs no newline: 4095 is the end */
	ctx = new_ctx(0);
	s = padded_def(4095);
	T_EQ(hist_synth_parse(ctx, s, 0, &err), 0);
	free(s);
	s = padded_def(4096);
	memcpy(s, "other", 5);
	T_EQ(hist_synth_parse(ctx, s, 0, &err), -HIST_EINVAL);
	T_STREQ(listing(ctx, 0), "longev\tu64 a\n");
	free(s);
	hist_ctx_destroy(ctx);
}

static void test_long_write_many_lines(void)
{
	hist_ctx *ctx = new_ctx(0);
	char *buf = malloc(40000);
	size_t n = 0;
	int i;

	/* lines crossing the 4095-byte chunk boundaries are re-read */
	for (i = 0; i < 900; i++)
		n += (size_t)sprintf(buf + n, "ev%d u64 field_%d\n", i, i);
	T_ASSERT(n > 3 * 4095);
	T_EQ(hist_synth_parse(ctx, buf, 0, NULL), 0);
	T_ASSERT(synth_ev(ctx, "ev0") != NULL);
	T_ASSERT(synth_ev(ctx, "ev899") != NULL);
	free(buf);
	hist_ctx_destroy(ctx);
}

/* ---- deletion -------------------------------------------------------- */

static void test_delete(void)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist_error err;

	T_EQ(hist_synth_parse(ctx, "!nosuch", 0, &err), -HIST_ENOENT);
	T_EQ(err.nr_logged, 0);
	T_EQ(hist_synth_parse(ctx, "!", 0, &err), -HIST_ENOENT);
	T_EQ(hist_synth_parse(ctx, "ev u64 a", 0, NULL), 0);
	T_EQ(hist_synth_parse(ctx, "! ev", 0, &err), -HIST_ENOENT);
	T_EQ(hist_synth_parse(ctx, "  !ev", 0, &err), 0);
	T_STREQ(listing(ctx, 0), "");
	T_ASSERT(synth_ev(ctx, "ev") == NULL);
	T_STREQ(errlog(ctx), "");
	/* and it can be defined again */
	T_EQ(hist_synth_parse(ctx, "ev s64 b", 0, NULL), 0);
	T_STREQ(listing(ctx, 0), "ev\ts64 b\n");
	hist_ctx_destroy(ctx);
}

static void test_busy_users(void)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist__synth *s;

	T_EQ(hist_synth_parse(ctx, "ev u64 a", 0, NULL), 0);
	s = hist__synth_find(ctx, "ev", 2);
	T_ASSERT(s != NULL);
	s->users++;	/* an action generates it */
	T_EQ(hist_synth_parse(ctx, "!ev", 0, NULL), -HIST_EBUSY);
	T_EQ(hist_synth_parse(ctx, "-:ev", 1, NULL), -HIST_EBUSY);
	s->users--;
	T_EQ(hist_synth_parse(ctx, "-:ev", 1, NULL), 0);
	hist_ctx_destroy(ctx);
}

static void test_truncate(void)
{
	hist_ctx *ctx = new_ctx(0);
	hist_event *held;

	T_EQ(hist_synth_truncate(ctx), 0);
	T_EQ(hist_synth_parse(ctx, "a u64 x\nb u64 y\nc u64 z", 0, NULL), 0);
	held = hist_synth_event_get(ctx, "b");
	T_ASSERT(held != NULL);
	/* all or nothing */
	T_EQ(hist_synth_truncate(ctx), -HIST_EBUSY);
	T_STREQ(listing(ctx, 0), "a\tu64 x\nb\tu64 y\nc\tu64 z\n");
	hist_synth_event_put(held);
	T_EQ(hist_synth_truncate(ctx), 0);
	T_STREQ(listing(ctx, 0), "");
	T_ASSERT(synth_ev(ctx, "a") == NULL);
	hist_ctx_destroy(ctx);
}

static void test_ids(void)
{
	hist_ctx *ctx = new_ctx(0);

	T_EQ(hist_synth_parse(ctx, "a u64 x\nb u64 y", 0, NULL), 0);
	T_EQ(hist_event_desc(synth_ev(ctx, "a"))->id, HIST__SYNTH_ID_BASE);
	T_EQ(hist_event_desc(synth_ev(ctx, "b"))->id, HIST__SYNTH_ID_BASE + 1);
	/* a freed ID is handed out again, as the kernel does */
	T_EQ(hist_synth_parse(ctx, "!a", 0, NULL), 0);
	T_EQ(hist_synth_parse(ctx, "c u64 z", 0, NULL), 0);
	T_EQ(hist_event_desc(synth_ev(ctx, "c"))->id, HIST__SYNTH_ID_BASE);
	hist_ctx_destroy(ctx);
}

static void test_host_event_name_taken(void)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist_field_desc f = { "x", "u64", 8, 8, 0, HIST_FIELD_INT };
	struct hist_event_desc d = { "synthetic", "taken", 5, &f, 1, NULL };
	struct hist_error err;

	T_EQ(hist_event_define(ctx, &d, NULL), 0);
	T_EQ(hist_synth_parse(ctx, "taken u64 a", 0, &err), -HIST_EEXIST);
	T_EQ(err.msg, HIST_SYNTH_ERR_EVENT_EXISTS);
	T_STREQ(listing(ctx, 0), "");
	hist_ctx_destroy(ctx);
}

/* ---- dynamic_events -------------------------------------------------- */

static void test_dynevent_define_delete(void)
{
	hist_ctx *ctx = new_ctx(0);

	T_EQ(hist_synth_parse(ctx, "s:synthetic/d1 u64 a; char b[]", 1, NULL), 0);
	T_EQ(hist_synth_parse(ctx, "s:d2 pid_t p", 1, NULL), 0);
	T_STREQ(listing(ctx, 1), "s:synthetic/d1\tu64 a; char[] b\n"
				 "s:synthetic/d2\tpid_t p\n");
	T_STREQ(listing(ctx, 0), "d1\tu64 a; char[] b\nd2\tpid_t p\n");
	/* other systems do not match; fields after the name are ignored */
	T_EQ(hist_synth_parse(ctx, "-:junk/d1", 1, NULL), -HIST_ENOENT);
	T_EQ(hist_synth_parse(ctx, "-:synthetic/d1 u64 a", 1, NULL), 0);
	T_EQ(hist_synth_parse(ctx, "-:d1", 1, NULL), -HIST_ENOENT);
	T_EQ(hist_synth_parse(ctx, "!s:d2", 1, NULL), 0);
	T_STREQ(listing(ctx, 1), "");
	T_EQ(hist_synth_parse(ctx, "-:", 1, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_parse(ctx, "-x", 1, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_parse(ctx, "!d2", 1, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_parse(ctx, "-:synthetic/", 1, NULL), -HIST_ENOENT);
	/* "!name" is not a dynamic_events removal of synthetic_events' kind */
	T_STREQ(errlog(ctx), "");
	hist_ctx_destroy(ctx);
}

static void test_dynevent_errors(void)
{
	/* other dynamic event kinds: nobody claims them here */
	check_write("p:myprobe do_sys_open", 1, -HIST_EINVAL, NULL);
	check_write("s:ev", 1, -HIST_EINVAL,
		    "synthetic_events: error: Command must be of the form: <name> field[;field] ...\n"
		    "  Command: s:ev\n"
		    "           ^\n");
	check_write("s:ev u64", 1, -HIST_EINVAL,
		    "synthetic_events: error: Command must be of the form: <name> field[;field] ...\n"
		    "  Command: s:ev u64\n"
		    "           ^\n");
	/* a '/' anywhere on the line asks for the system prefix */
	check_write("s:ev u64 a/b", 1, -HIST_EINVAL,
		    "synthetic_events: error: Command must be of the form: s or -:[synthetic/]<name> field[;field] ...\n"
		    "  Command: s:ev u64 a/b\n"
		    "           ^\n");
	/* carets count the "s:" prefix, since it is part of the command */
	check_write("s:myevent chr arg", 1, -HIST_EINVAL,
		    "synthetic_events: error: Invalid type\n"
		    "  Command: s:myevent chr arg\n"
		    "                     ^\n");
	check_write("  s:synthetic/my-ev u64 a", 1, -HIST_EINVAL,
		    "synthetic_events: error: Illegal name\n"
		    "  Command: s:synthetic/my-ev u64 a\n"
		    "                       ^\n");
}

/* ---- format files (the kernel's, from trace.dat) ---------------------- */

static void test_format_wakeup_latency(void)
{
	hist_ctx *ctx = new_ctx(0);

	/* g33-onmatch-trace/trace.dat, ID changed from the kernel's 1359 */
	T_EQ(hist_synth_parse(ctx, "wakeup_latency u64 lat; pid_t pid; char comm[16]",
			      0, NULL), 0);
	T_STREQ(format_of(ctx, "wakeup_latency"),
		"name: wakeup_latency\n"
		"ID: 1000\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:pid_t pid;\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:char comm[];\toffset:24;\tsize:16;\tsigned:1;\n"
		"\n"
		"print fmt: \"lat=%llu, pid=%d, comm=%s\", REC->lat, REC->pid, REC->comm\n");
	T_ASSERT(format_of(ctx, "nosuch") == NULL);
	T_EQ(hist_synth_print_format(ctx, "nosuch", sbuf_write, NULL),
	     -HIST_ENOENT);
	hist_ctx_destroy(ctx);
}

static void test_format_dynstring_and_ints(void)
{
	hist_ctx *ctx = new_ctx(0);

	/* g44-dynstring-synthetic and g54-expr-vars-in-synthetic */
	T_EQ(hist_synth_parse(ctx, "exec_latency u64 lat; char filename[]\n"
			      "calc_event u64 d; int q; int m; int r; pid_t pid",
			      0, NULL), 0);
	T_STREQ(format_of(ctx, "exec_latency"),
		"name: exec_latency\n"
		"ID: 1000\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] filename;\toffset:16;\tsize:8;\tsigned:1;\n"
		"\n"
		"print fmt: \"lat=%llu, filename=%s\", REC->lat, __get_str(filename)\n");
	T_STREQ(format_of(ctx, "calc_event"),
		"name: calc_event\n"
		"ID: 1001\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:u64 d;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:int q;\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:int m;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:int r;\toffset:32;\tsize:4;\tsigned:1;\n"
		"\tfield:pid_t pid;\toffset:40;\tsize:4;\tsigned:1;\n"
		"\n"
		"print fmt: \"d=%llu, q=%d, m=%d, r=%d, pid=%d\", REC->d, REC->q, REC->m, REC->r, REC->pid\n");
	hist_ctx_destroy(ctx);
}

static void test_format_other_types(void)
{
	hist_ctx *ctx = new_ctx(0);

	T_EQ(hist_synth_parse(ctx, "misc s8 a; unsigned char b; long c; "
			      "unsigned long d; gfp_t e; bool f; char[8] g; "
			      "unsigned long[] st", 0, NULL), 0);
	T_STREQ(format_of(ctx, "misc"),
		"name: misc\n"
		"ID: 1000\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:s8 a;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield:unsigned char b;\toffset:16;\tsize:1;\tsigned:0;\n"
		"\tfield:long c;\toffset:24;\tsize:8;\tsigned:1;\n"
		"\tfield:unsigned long d;\toffset:32;\tsize:8;\tsigned:0;\n"
		"\tfield:gfp_t e;\toffset:40;\tsize:4;\tsigned:0;\n"
		"\tfield:bool f;\toffset:48;\tsize:1;\tsigned:1;\n"
		"\tfield:char g[];\toffset:56;\tsize:8;\tsigned:1;\n"
		"\tfield:__data_loc unsigned long[] st;\toffset:312;\tsize:8;\tsigned:1;\n"
		"\n"
		"print fmt: \"a=%d, b=%u, c=%ld, d=%lu, e=%x, f=%d, g=%s, st=%s\", "
		"REC->a, REC->b, REC->c, REC->d, REC->e, REC->f, REC->g, "
		"__get_stacktrace(st)\n");
	hist_ctx_destroy(ctx);
}

/* ---- generated records ----------------------------------------------- */

static void test_record_layout_static(void)
{
	hist_ctx *ctx = new_ctx(1);
	struct hist_hit hit = { 0 };
	uint64_t vals[3];
	hist_event *ev;

	T_EQ(hist_synth_parse(ctx, "wakeup_latency u64 lat; pid_t pid; char comm[16]",
			      0, NULL), 0);
	ev = hist_synth_event_get(ctx, "wakeup_latency");
	hit.pid = 77;
	hit.cpu = 1;
	vals[0] = 123456789012ull;
	vals[1] = 4242;
	vals[2] = (uint64_t)(uintptr_t)"sleep";
	T_EQ(hist_synth_trace_array(ev, vals, 3, &hit), 0);
	T_EQ(seen.calls, 1);
	T_ASSERT(seen.ev == ev);
	T_ASSERT(seen.hit == &hit);
	T_EQ(seen.len, 8 + 8 + 8 + 256);
	T_EQ(rd(seen.rec, 2), HIST__SYNTH_ID_BASE);
	T_EQ(seen.rec[2], 0);
	T_EQ(seen.rec[3], 0);
	T_EQ(rd(seen.rec + 4, 4), 77);
	T_EQU(rd(seen.rec + 8, 8), 123456789012ull);
	T_EQ(rd(seen.rec + 16, 8), 4242);	/* u32 store, upper half 0 */
	T_STREQ((const char *)seen.rec + 24, "sleep");
	T_EQ(seen.rec[24 + 255], 0);
	hist_synth_event_put(ev);
	hist_ctx_destroy(ctx);
}

static void test_record_truncation(void)
{
	hist_ctx *ctx = new_ctx(1);
	char long_str[400];
	uint64_t vals[5];
	hist_event *ev;

	T_EQ(hist_synth_parse(ctx, "tr u8 a; s16 b; int c; char s[16]; char d[]",
			      0, NULL), 0);
	ev = hist_synth_event_get(ctx, "tr");
	memset(long_str, 'x', sizeof(long_str) - 1);
	long_str[sizeof(long_str) - 1] = 0;
	vals[0] = 0x1234;
	vals[1] = (uint64_t)-1;
	vals[2] = 0x1122334455667788ull;
	vals[3] = (uint64_t)(uintptr_t)long_str;
	vals[4] = (uint64_t)(uintptr_t)long_str;
	T_EQ(hist_synth_trace_array(ev, vals, 5, NULL), 0);
	T_EQ(rd(seen.rec + 8, 8), 0x34);
	T_EQ(rd(seen.rec + 16, 8), 0xffff);
	T_EQ(rd(seen.rec + 24, 8), 0x55667788);
	/* a static string fills its 256-byte slot, not just N: 255 + NUL */
	T_EQ(strlen((const char *)seen.rec + 32), 255);
	/* a dynamic string holds at most 255 characters and the NUL */
	T_EQ(rd(seen.rec + 288, 4), (256u << 16) | 296);
	T_EQ(seen.len, 296 + 256);
	T_EQ(strlen((const char *)seen.rec + 296), 255);
	/* no pid in the hit, no parent record: 0 */
	T_EQ(rd(seen.rec + 4, 4), 0);
	hist_synth_event_put(ev);
	hist_ctx_destroy(ctx);
}

static void test_record_dynamic_and_stack(void)
{
	hist_ctx *ctx = new_ctx(1);
	uint64_t st3[] = { 0xffffffff81000010ull, 0xffffffff81000020ull,
			   0xffffffff81000030ull, 0 };
	uint64_t st20[20];
	uint64_t vals[4];
	hist_event *ev;
	unsigned i;

	for (i = 0; i < 20; i++)
		st20[i] = 0xffffffff82000000ull + i;
	T_EQ(hist_synth_parse(ctx, "dyn u64 lat; char f[]; unsigned long[] st; "
			      "char g[]", 0, NULL), 0);
	ev = hist_synth_event_get(ctx, "dyn");
	vals[0] = 5;
	vals[1] = (uint64_t)(uintptr_t)"/bin/sleep";
	vals[2] = (uint64_t)(uintptr_t)st3;
	vals[3] = (uint64_t)(uintptr_t)"";
	T_EQ(hist_synth_trace_array(ev, vals, 4, NULL), 0);
	/* fixed part: 8 + 4 slots; then "/bin/sleep\0", 3 frames + 0, "\0" */
	T_EQ(rd(seen.rec + 16, 8), (11u << 16) | 40);
	T_STREQ((const char *)seen.rec + 40, "/bin/sleep");
	T_EQ(rd(seen.rec + 24, 8), (32u << 16) | 51);
	T_EQU(rd(seen.rec + 51, 8), st3[0]);
	T_EQU(rd(seen.rec + 67, 8), st3[2]);
	T_EQU(rd(seen.rec + 75, 8), 0);
	T_EQ(rd(seen.rec + 32, 8), (1u << 16) | 83);
	T_EQ(seen.rec[83], 0);
	T_EQ(seen.len, 84);

	/* 16 frames at most, then no terminator */
	vals[2] = (uint64_t)(uintptr_t)st20;
	T_EQ(hist_synth_trace_array(ev, vals, 4, NULL), 0);
	T_EQ(rd(seen.rec + 24, 4), (128u << 16) | 51);
	T_EQU(rd(seen.rec + 51 + 15 * 8, 8), st20[15]);
	T_EQ(seen.len, 51 + 128 + 1);
	/* NULL string and stack pointers make empty values */
	vals[1] = 0;
	vals[2] = 0;
	T_EQ(hist_synth_trace_array(ev, vals, 4, NULL), 0);
	T_EQ(rd(seen.rec + 16, 4), (1u << 16) | 40);
	T_EQ(rd(seen.rec + 24, 4), (8u << 16) | 41);
	hist_synth_event_put(ev);
	hist_ctx_destroy(ctx);
}

static void test_record_read_back(void)
{
	hist_ctx *ctx = new_ctx(1);
	struct hist__synth *s;
	struct hist__rec r;
	uint64_t vals[3], ips[16];
	uint64_t st[] = { 0x1000, 0x2000, 0 };
	const char *str;
	hist_event *ev;

	/* the schema's own accessors read what emit wrote */
	T_EQ(hist_synth_parse(ctx, "rb char c[16]; char d[]; long[] st", 0,
			      NULL), 0);
	s = hist__synth_find(ctx, "rb", 2);
	ev = s->ev;
	vals[0] = (uint64_t)(uintptr_t)"comm-name";
	vals[1] = (uint64_t)(uintptr_t)"dynamic";
	vals[2] = (uint64_t)(uintptr_t)st;
	hist__synth_emit(s, vals, NULL);
	hist__rec_init(&r, ev, seen.rec, seen.len, NULL);
	T_EQ(hist__read_str(field(ev, "c"), &r, &str), 9);
	T_ASSERT(!strncmp(str, "comm-name", 9));
	T_EQ(hist__read_str(field(ev, "d"), &r, &str), 7);
	T_ASSERT(!strncmp(str, "dynamic", 7));
	T_EQ(hist__read_stack(field(ev, "st"), &r, ips, 16), 2);
	T_EQU(ips[1], 0x2000);
	hist_ctx_destroy(ctx);
}

static void test_emit_parent_pid(void)
{
	hist_ctx *ctx = new_ctx(1);
	struct hist_field_desc f[] = {
		{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	};
	struct hist_event_desc d = { "sched", "parent", 1, f, 1, NULL };
	struct hist__synth *s;
	struct hist__rec r;
	hist_event *parent;
	uint8_t prec[8] = { 0 };
	int32_t pid = 4321;
	uint64_t v = 9;

	T_EQ(hist_event_define(ctx, &d, &parent), 0);
	T_EQ(hist_synth_parse(ctx, "pp u64 v", 0, NULL), 0);
	s = hist__synth_find(ctx, "pp", 2);
	memcpy(prec + 4, &pid, 4);
	/* no pid in the hit: the parent's common_pid */
	hist__rec_init(&r, parent, prec, sizeof(prec), NULL);
	hist__synth_emit(s, &v, &r);
	T_EQ(seen.calls, 1);
	T_EQ(rd(seen.rec + 4, 4), 4321);
	T_EQ(rd(seen.rec + 8, 8), 9);
	T_ASSERT(seen.ev == s->ev);
	hist_ctx_destroy(ctx);
}

static void test_emit_disabled(void)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist_synth_trace_state st;
	uint64_t v = 1;
	hist_event *ev;

	/* no callback and no trigger: the kernel's disabled event */
	T_EQ(hist_synth_parse(ctx, "off u64 v", 0, NULL), 0);
	ev = hist_synth_event_get(ctx, "off");
	T_EQ(hist_synth_trace_array(ev, &v, 1, NULL), 0);
	T_EQ(hist_synth_trace_array(ev, &v, 7, NULL), 0);
	T_EQ(hist_synth_trace_start(ev, &st, NULL), 0);
	T_EQ(hist_synth_add_next_val(&st, 1), 0);
	T_EQ(hist_synth_add_val(&st, "v", 1), -HIST_EINVAL);
	T_EQ(hist_synth_trace_end(&st), 0);
	T_EQ(seen.calls, 0);
	hist_synth_event_put(ev);
	hist_ctx_destroy(ctx);
}

/*
 * Generated records through the real hist engine: the g33 histogram on
 * synthetic/wakeup_latency, fed the values the kernel's actions passed.
 */
static void test_hist_on_synthetic_event(void)
{
	static const struct {
		uint64_t lat;
		int32_t pid;
	} rows[] = {
		{ 861, 155 }, { 207, 157 }, { 79, 156 }, { 70, 158 },
		{ 55, 159 }, { 90, 160 }, { 119, 161 }, { 89, 162 },
	};
	hist_ctx *ctx = new_ctx(0);
	struct sbuf *out = calloc(1, sizeof(*out));
	struct hist_hit hit = { 0 };
	uint64_t vals[3];
	hist_event *ev;
	size_t i;

	T_EQ(hist_synth_parse(ctx, "wakeup_latency u64 lat; pid_t pid; char comm[16]",
			      0, NULL), 0);
	ev = synth_ev(ctx, "wakeup_latency");
	T_EQ(hist_trigger_parse(ev, "hist:keys=comm,pid,lat:wakeup_lat=lat:sort=lat",
				NULL), 0);
	ev = hist_synth_event_get(ctx, "wakeup_latency");
	for (i = 0; i < HIST__ARRAY_SIZE(rows); i++) {
		hit.pid = rows[i].pid;
		hit.ts = 1000 * (i + 1);
		vals[0] = rows[i].lat;
		vals[1] = (uint64_t)rows[i].pid;
		vals[2] = (uint64_t)(uintptr_t)"sleep";
		T_EQ(hist_synth_trace_array(ev, vals, 3, &hit), 0);
	}
	T_EQ(hist_event_print_hist(ev, sbuf_write, out), 0);
	T_STREQ(out->d,
		"# event histogram\n"
		"#\n"
		"# trigger info: hist:keys=comm,pid,lat:vals=hitcount:wakeup_lat=lat:sort=lat:size=2048 [active]\n"
		"#\n"
		"\n"
		"{ comm: sleep                                             , pid:        159, lat:         55 } hitcount:          1\n"
		"{ comm: sleep                                             , pid:        158, lat:         70 } hitcount:          1\n"
		"{ comm: sleep                                             , pid:        156, lat:         79 } hitcount:          1\n"
		"{ comm: sleep                                             , pid:        162, lat:         89 } hitcount:          1\n"
		"{ comm: sleep                                             , pid:        160, lat:         90 } hitcount:          1\n"
		"{ comm: sleep                                             , pid:        161, lat:        119 } hitcount:          1\n"
		"{ comm: sleep                                             , pid:        157, lat:        207 } hitcount:          1\n"
		"{ comm: sleep                                             , pid:        155, lat:        861 } hitcount:          1\n"
		"\n"
		"Totals:\n"
		"    Hits: 8\n"
		"    Entries: 8\n"
		"    Dropped: 0\n");
	hist_synth_event_put(ev);
	free(out);
	hist_ctx_destroy(ctx);
}

/* ---- in-code API ----------------------------------------------------- */

static const struct hist_synth_field_desc sched_fields[] = {
	{ "pid_t", "next_pid_field" },
	{ "char[16]", "next_comm_field" },
	{ "u64", "ts_ns" },
	{ "u64", "ts_ms" },
	{ "unsigned int", "cpu" },
	{ "char[64]", "my_string_field" },
	{ "int", "my_int_field" },
};

static const char *sched_listing =
	"schedtest\tpid_t next_pid_field; char[16] next_comm_field; u64 ts_ns; "
	"u64 ts_ms; unsigned int cpu; char[64] my_string_field; int my_int_field\n";

static void test_api_create(void)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist_error err;

	T_EQ(hist_synth_create(ctx, "schedtest", sched_fields, 7, &err), 0);
	T_STREQ(listing(ctx, 0), sched_listing);
	T_EQ(hist_synth_create(ctx, "schedtest", sched_fields, 7, &err),
	     -HIST_EEXIST);
	/* the echo is the generated command, leading space skipped */
	T_STREQ(errlog(ctx),
		"synthetic_events: error: Event already exists\n"
		"  Command: schedtest  pid_t next_pid_field; char[16] next_comm_field; "
		"u64 ts_ns; u64 ts_ms; unsigned int cpu; char[64] my_string_field; "
		"int my_int_field;\n"
		"           ^\n");
	T_EQ(hist_synth_delete(ctx, "schedtest"), 0);
	T_EQ(hist_synth_delete(ctx, "schedtest"), -HIST_ENOENT);
	hist_ctx_destroy(ctx);
}

static void test_api_steps_match_create(void)
{
	hist_ctx *a = new_ctx(0), *b = new_ctx(0);
	struct hist_synth_cmd cmd;
	char buf[HIST_SYNTH_CMD_LEN];
	char fa[4096], fb[4096];

	T_EQ(hist_synth_create(a, "schedtest", sched_fields, 7, NULL), 0);
	hist_synth_cmd_init(&cmd, b, buf, sizeof(buf));
	T_EQ(hist_synth_cmd_array_start(&cmd, "schedtest", sched_fields, 2), 0);
	T_EQ(hist_synth_cmd_add_field(&cmd, "u64", "ts_ns"), 0);
	T_EQ(hist_synth_cmd_add_fields(&cmd, sched_fields + 3, 2), 0);
	T_EQ(hist_synth_cmd_add_field_str(&cmd, "char my_string_field[64]"), 0);
	T_EQ(hist_synth_cmd_add_field(&cmd, "int", "my_int_field"), 0);
	T_STREQ(buf, " schedtest  pid_t next_pid_field; char[16] next_comm_field; "
		     "u64 ts_ns; u64 ts_ms; unsigned int cpu; "
		     "char my_string_field[64]; int my_int_field;");
	T_EQ(hist_synth_cmd_end(&cmd, NULL), 0);
	T_STREQ(listing(b, 0), sched_listing);
	snprintf(fa, sizeof(fa), "%s", format_of(a, "schedtest"));
	snprintf(fb, sizeof(fb), "%s", format_of(b, "schedtest"));
	T_STREQ(fa, fb);
	hist_ctx_destroy(a);
	hist_ctx_destroy(b);
}

static void test_api_errors(void)
{
	hist_ctx *ctx = new_ctx(0);
	struct hist_synth_field_desc many[65];
	struct hist_synth_cmd cmd;
	struct hist_error err;
	char small[24];
	int i;

	for (i = 0; i < 65; i++) {
		many[i].type = "u64";
		many[i].name = "f";
	}
	T_EQ(hist_synth_create(ctx, "big", many, 65, NULL), -HIST_EINVAL);
	/* NULL and unknown types are refused before anything runs */
	hist_synth_cmd_init(&cmd, ctx, small, sizeof(small));
	T_EQ(hist_synth_cmd_start(&cmd, "ev"), 0);
	T_EQ(hist_synth_cmd_add_field(&cmd, "chr", "x"), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_add_field(&cmd, NULL, "x"), -HIST_EINVAL);
	T_EQ(hist_synth_cmd_add_field(&cmd, "u64", "a"), 0);
	/* the buffer fills up: E2BIG, and it stays overflowed */
	T_EQ(hist_synth_cmd_add_field(&cmd, "u64", "bbbbbbbbbbbbbb"), -HIST_E2BIG);
	T_EQ(hist_synth_cmd_add_field(&cmd, "u8", "c"), -HIST_E2BIG);
	T_EQ(hist_synth_cmd_end(&cmd, NULL), -HIST_E2BIG);
	/* a bad array length passes the type check and fails at the end,
	 * through the error_log like a written command */
	hist_synth_cmd_init(&cmd, ctx, (char[256]){ 0 }, 256);
	T_EQ(hist_synth_cmd_start(&cmd, "ev2"), 0);
	T_EQ(hist_synth_cmd_add_field(&cmd, "char[300]", "x"), 0);
	T_EQ(hist_synth_cmd_end(&cmd, &err), -HIST_EINVAL);
	T_EQ(err.msg, HIST_SYNTH_ERR_INVALID_TYPE);
	T_STREQ(errlog(ctx),
		"synthetic_events: error: Invalid type\n"
		"  Command: ev2  char[300] x;\n"
		"                ^\n");
	T_STREQ(listing(ctx, 0), "");
	hist_ctx_destroy(ctx);
}

static void test_api_trace_ways_identical(void)
{
	hist_ctx *ctx = new_ctx(1);
	struct hist_synth_trace_state st;
	struct hist_hit hit = { 0 };
	uint8_t first[HIST__SYNTH_REC_MAX];
	size_t first_len;
	uint64_t vals[7];
	hist_event *ev;

	T_EQ(hist_synth_create(ctx, "schedtest", sched_fields, 7, NULL), 0);
	ev = hist_synth_event_get(ctx, "schedtest");
	T_ASSERT(ev != NULL);
	hit.pid = 444;
	vals[0] = 444;
	vals[1] = (uint64_t)(uintptr_t)"clackers";
	vals[2] = 1000000;
	vals[3] = 1000;
	vals[4] = 3;
	vals[5] = (uint64_t)(uintptr_t)"Thneed";
	vals[6] = 999;
	T_EQ(hist_synth_trace_array(ev, vals, 7, &hit), 0);
	T_EQ(hist_synth_trace_array(ev, vals, 6, &hit), -HIST_EINVAL);
	T_EQ(seen.calls, 1);
	first_len = seen.len;
	memcpy(first, seen.rec, seen.len);

	/* piecewise, in order */
	T_EQ(hist_synth_trace_start(ev, &st, &hit), 0);
	for (int i = 0; i < 7; i++)
		T_EQ(hist_synth_add_next_val(&st, vals[i]), 0);
	T_EQ(hist_synth_add_next_val(&st, 1), -HIST_EINVAL);
	T_EQ(hist_synth_add_val(&st, "cpu", 1), -HIST_EINVAL);
	T_EQ(hist_synth_trace_end(&st), 0);
	T_EQ(seen.calls, 2);
	T_EQ(seen.len, first_len);
	T_ASSERT(!memcmp(seen.rec, first, first_len));

	/* piecewise, by name in any order */
	T_EQ(hist_synth_trace_start(ev, &st, &hit), 0);
	T_EQ(hist_synth_add_val(&st, "my_int_field", vals[6]), 0);
	T_EQ(hist_synth_add_val(&st, "cpu", vals[4]), 0);
	T_EQ(hist_synth_add_val(&st, "next_pid_field", vals[0]), 0);
	T_EQ(hist_synth_add_val(&st, "ts_ms", vals[3]), 0);
	T_EQ(hist_synth_add_val(&st, "next_comm_field", vals[1]), 0);
	T_EQ(hist_synth_add_val(&st, "ts_ns", vals[2]), 0);
	T_EQ(hist_synth_add_val(&st, "my_string_field", vals[5]), 0);
	T_EQ(hist_synth_add_val(&st, "nosuch", 1), -HIST_EINVAL);
	T_EQ(hist_synth_add_next_val(&st, 1), -HIST_EINVAL);
	T_EQ(hist_synth_trace_end(&st), 0);
	T_EQ(seen.calls, 3);
	T_ASSERT(!memcmp(seen.rec, first, first_len));
	T_EQ(hist_synth_trace_end(&st), -HIST_EINVAL);	/* already ended */

	/* held: cannot be deleted */
	T_EQ(hist_synth_delete(ctx, "schedtest"), -HIST_EBUSY);
	hist_synth_event_put(ev);
	T_EQ(hist_synth_delete(ctx, "schedtest"), 0);
	T_ASSERT(hist_synth_event_get(ctx, "schedtest") == NULL);
	hist_ctx_destroy(ctx);
}

static void test_api_not_synthetic(void)
{
	hist_ctx *ctx = new_ctx(1);
	struct hist_field_desc f = { "x", "u64", 8, 8, 0, HIST_FIELD_INT };
	struct hist_event_desc d = { "sched", "plain", 5, &f, 1, NULL };
	struct hist_synth_trace_state st;
	hist_event *ev;
	uint64_t v = 1;

	T_EQ(hist_event_define(ctx, &d, &ev), 0);
	T_EQ(hist_synth_trace_array(ev, &v, 1, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_trace_start(ev, &st, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_add_next_val(&st, 1), -HIST_EINVAL);
	T_EQ(hist_synth_trace_end(&st), -HIST_EINVAL);
	T_EQ(hist_synth_trace_array(NULL, &v, 1, NULL), -HIST_EINVAL);
	T_EQ(seen.calls, 0);
	hist_ctx_destroy(ctx);
}

static void test_teardown_with_definitions(void)
{
	hist_ctx *ctx = new_ctx(0);

	/* destroy frees definitions still registered (ASan checks) */
	T_EQ(hist_synth_parse(ctx, "a u64 x; char s[]\nb long[] st", 0, NULL), 0);
	T_EQ(hist_synth_parse(ctx, "!a", 0, NULL), 0);
	T_EQ(hist_synth_event_get(ctx, "b") != NULL, 1);
	hist_ctx_destroy(ctx);
}

int main(void)
{
	T_RUN(test_s01_invalid_type);
	T_RUN(test_s02_incomplete_type);
	T_RUN(test_s04_bad_event_name);
	T_RUN(test_s05_bad_field_name);
	T_RUN(test_s07_type_only_field);
	T_RUN(test_s08_array_unterminated);
	T_RUN(test_s10_array_too_big);
	T_RUN(test_s11_semicolon_in_name);
	T_RUN(test_s13_semicolon_after_name);
	T_RUN(test_s14_leading_semicolon);
	T_RUN(test_s16_exists);
	T_RUN(test_s17_remove_busy);
	T_RUN(test_s19_dynevent_invalid);
	T_RUN(test_s20_too_many_fields);
	T_RUN(test_s22_remove_wrong_fields);
	T_RUN(test_64_fields_ok);
	T_RUN(test_all_types_listing);
	T_RUN(test_legacy_fields_per_segment);
	T_RUN(test_array_specs);
	T_RUN(test_unsigned_forms);
	T_RUN(test_caret_first_occurrence);
	T_RUN(test_names);
	T_RUN(test_short_commands);
	T_RUN(test_echo_trimming);
	T_RUN(test_multi_line_write);
	T_RUN(test_line_length_limit);
	T_RUN(test_long_write_many_lines);
	T_RUN(test_delete);
	T_RUN(test_busy_users);
	T_RUN(test_truncate);
	T_RUN(test_ids);
	T_RUN(test_host_event_name_taken);
	T_RUN(test_dynevent_define_delete);
	T_RUN(test_dynevent_errors);
	T_RUN(test_format_wakeup_latency);
	T_RUN(test_format_dynstring_and_ints);
	T_RUN(test_format_other_types);
	T_RUN(test_record_layout_static);
	T_RUN(test_record_truncation);
	T_RUN(test_record_dynamic_and_stack);
	T_RUN(test_record_read_back);
	T_RUN(test_emit_parent_pid);
	T_RUN(test_emit_disabled);
	T_RUN(test_hist_on_synthetic_event);
	T_RUN(test_api_create);
	T_RUN(test_api_steps_match_create);
	T_RUN(test_api_errors);
	T_RUN(test_api_trace_ways_identical);
	T_RUN(test_api_not_synthetic);
	T_RUN(test_teardown_with_definitions);
	return T_DONE();
}
