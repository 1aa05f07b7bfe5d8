/* SPDX-License-Identifier: MIT */
/*
 * Limits and exhaustion, each with the kernel's error (code, error_log
 * message) or a documented result: a full map, too many keys / values /
 * variables / sort keys / actions / synthetic fields, 4 KiB commands,
 * deep expressions and parentheses, size= out of range, strings of 255,
 * 256 and 257 bytes, records shorter than their schema and __data_loc
 * words pointing outside the record.
 */
#include "harness.h"
#include "test_events.h"
#include "libhist.h"
#include "hist_synth.h"

#include <stdlib.h>

/* ---- an event with one field of each shape ------------------------------- */

#define OFF_DSTR 64
#define OFF_DSTR2 68
#define OFF_DATA 72

static const struct hist_field_desc fields[] = {
	T_COMMON_FIELDS,
	{ "pid", "pid_t", 8, 4, 1, HIST_FIELD_INT },
	{ "a", "u64", 16, 8, 0, HIST_FIELD_INT },
	{ "b", "u64", 24, 8, 0, HIST_FIELD_INT },
	{ "c", "u64", 32, 8, 0, HIST_FIELD_INT },
	{ "d", "u64", 40, 8, 0, HIST_FIELD_INT },
	{ "comm", "char[16]", 48, 16, 1, HIST_FIELD_STRING },
	{ "dstr", "__data_loc char[]", OFF_DSTR, 4, 1, HIST_FIELD_DYN_STRING },
	{ "dstr2", "__data_loc char[]", OFF_DSTR2, 4, 1, HIST_FIELD_DYN_STRING },
};

static int find_event(void *data, const char *sys, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	if (strcmp(sys, "lim") || strcmp(name, "ev"))
		return -HIST_ENOENT;
	out->fields = fields;
	out->nr_fields = sizeof(fields) / sizeof(fields[0]);
	return 0;
}

static hist_ctx *ctx;
static hist_event *ev;

static void setup(void)
{
	struct hist_host host = { .find_event = find_event };

	ctx = hist_ctx_create(&host, NULL, NULL);
	ev = ctx ? hist_event_lookup(ctx, "lim", "ev") : NULL;
	T_ASSERT(ev != NULL);
}

static void teardown(void)
{
	hist_ctx_destroy(ctx);
	ctx = NULL;
	ev = NULL;
}

/* A record: PID, A..D, COMM, and DSTR/DSTR2 (NULL: empty) in the data area. */
struct rec {
	uint8_t b[8192];
	size_t len;
};

static void rec_init(struct rec *r, int32_t pid, uint64_t a)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->b + 8, &pid, 4);
	memcpy(r->b + 16, &a, 8);
	r->len = OFF_DATA;
}

static void rec_dstr(struct rec *r, uint32_t field_off, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t loc = (uint32_t)(n << 16 | r->len);

	memcpy(r->b + r->len, s, n);
	memcpy(r->b + field_off, &loc, 4);
	r->len += n;
}

static void hit(const struct rec *r)
{
	struct hist_hit h = { .ts = 1, .cpu = 0, .pid = -1 };

	hist_event_hit(ev, r->b, r->len, &h);
}

/* ---- output -------------------------------------------------------------- */

struct text {
	char b[1 << 20];
	size_t len;
};

static struct text out;

static int to_text(void *arg, const char *buf, size_t len)
{
	struct text *t = arg;

	if (len > sizeof(t->b) - 1 - t->len)
		return -HIST_E2BIG;
	memcpy(t->b + t->len, buf, len);
	t->len += len;
	t->b[t->len] = 0;
	return 0;
}

static const char *hist_text(void)
{
	out.len = 0;
	out.b[0] = 0;
	T_EQ(hist_event_print_hist(ev, to_text, &out), 0);
	return out.b;
}

static uint64_t total(const char *what)
{
	const char *p = strstr(out.b, what);

	return p ? strtoull(p + strlen(what), NULL, 10) : ~0ull;
}

/* Is there a line of the output that starts with A and ends with B? */
static int line_with(const char *a, const char *b)
{
	const char *l;

	for (l = out.b; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n"), nb = strlen(b);
		const char *sp = l + strlen(a);

		if (strncmp(l, a, strlen(a)) || n < strlen(a) + nb || strncmp(l + n - nb, b, nb))
			continue;
		while (sp < l + n - nb && *sp == ' ')
			sp++;
		if (sp == l + n - nb)	/* only padding between: an empty string */
			return 1;
	}
	return 0;
}

/* Parse CMD on EV; check the code and the last error_log message (-1: none
 * logged, -2: not checked). */
static void expect(const char *cmd, int code, int msg)
{
	struct hist_error err;
	int r = hist_trigger_parse(ev, cmd, &err);

	if (r != code || err.code != code || (code && msg != -2 && err.msg != msg))
		T_FAILF("%.60s...: got %d (msg %d), expected %d (msg %d)", cmd, r, err.msg,
			code, msg);
}

/* ---- the map -------------------------------------------------------------- */

static void test_map_full(void)
{
	struct rec r;
	int i;

	setup();
	expect("hist:keys=a:size=128", 0, -1);
	for (i = 0; i < 200; i++) {
		rec_init(&r, 1, (uint64_t)i);
		hit(&r);
		hit(&r);	/* the second hit of a dropped key drops too */
	}
	hist_text();
	T_EQU(total("Entries: "), 128);
	T_EQU(total("Hits: "), 256);
	T_EQU(total("Dropped: "), 144);
	/* what is in the map keeps counting */
	rec_init(&r, 1, 0);
	hit(&r);
	hist_text();
	T_EQU(total("Hits: "), 257);
	/* a clear gives the capacity back */
	expect("hist:keys=a:size=128:clear", 0, -1);
	for (i = 500; i < 600; i++) {
		rec_init(&r, 1, (uint64_t)i);
		hit(&r);
	}
	hist_text();
	T_EQU(total("Entries: "), 100);
	T_EQU(total("Dropped: "), 0);
	teardown();
}

static void test_size(void)
{
	setup();
	/* rounded up to a power of two, 128 .. 131072 */
	expect("hist:keys=a:size=100", 0, -1);
	T_ASSERT(strstr(hist_text(), ":size=128 [active]") != NULL);
	expect("hist:keys=b:size=131072", 0, -1);
	expect("hist:keys=c:size=131073", -HIST_EINVAL, -1);
	expect("hist:keys=c:size=262144", -HIST_EINVAL, -1);
	expect("hist:keys=c:size=0", -HIST_EINVAL, -1);
	expect("hist:keys=c:size=1", -HIST_EINVAL, -1);	/* 2^0 < 2^7 */
	expect("hist:keys=c:size=65", 0, -1);
	T_ASSERT(strstr(hist_text(), "keys=c:vals=hitcount:sort=hitcount:size=128 [active]") != NULL);
	/* past 64 bits: kstrtoul's ERANGE (b83-size-range) */
	expect("hist:keys=d:size=18446744073709551616", -HIST_ERANGE, -1);
	expect("hist:keys=d:size=4294967296", -HIST_EINVAL, -1);
	expect("hist:keys=d:size=-1", -HIST_EINVAL, -1);
	expect("hist:keys=d:size=", -HIST_EINVAL, -2);
	teardown();
}

/* opts.max_map_bits lets a host go past the kernel's 2^17, up to 2^24. */
static void test_size_host_limit(void)
{
	struct hist_host host = { .find_event = find_event };
	struct hist_ctx_opts opts = { .max_map_bits = 20 };

	ctx = hist_ctx_create(&host, &opts, NULL);
	ev = hist_event_lookup(ctx, "lim", "ev");
	expect("hist:keys=a:size=1048576", 0, -1);
	expect("hist:keys=b:size=2097152", -HIST_EINVAL, -1);
	teardown();
}

/* ---- how many of each ----------------------------------------------------- */

static void test_too_many(void)
{
	char cmd[1024];
	int i, len;

	setup();
	/* keys: 3, a fourth is a silent EINVAL (no error_log entry) */
	expect("hist:keys=a,b,c", 0, -1);
	expect("hist:keys=a,b,c,d", -HIST_EINVAL, -1);
	/* values: hitcount + 2 */
	expect("hist:keys=pid:vals=a,b", 0, -1);
	expect("hist:keys=pid:vals=a,b,c", -HIST_EINVAL, -1);
	/* sort keys: 2 */
	expect("hist:keys=a:vals=b,c:sort=b,c", 0, -1);
	expect("hist:keys=a:vals=b,c:sort=b,c,a", -HIST_EINVAL, HIST_ERR_TOO_MANY_SORT_FIELDS);
	/* variables: 16.  Like the kernel's parse_var_defs(), one
	 * comma list stops reading at 16 and ignores the rest... */
	len = snprintf(cmd, sizeof(cmd), "hist:keys=comm:");
	for (i = 0; i < 17; i++)
		len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, "%sv%d=a", i ? "," : "", i);
	expect(cmd, 0, -1);
	hist_text();
	T_ASSERT(strstr(out.b, ",v15=a:") != NULL && strstr(out.b, "v16") == NULL);
	/* ...17 assignment attributes fail... */
	len = snprintf(cmd, sizeof(cmd), "hist:keys=pid");
	for (i = 0; i < 17; i++)
		len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, ":w%d=a", i);
	expect(cmd, -HIST_EINVAL, HIST_ERR_TOO_MANY_VARS);
	/* ...and so does a 17th variable in a second attribute */
	len = snprintf(cmd, sizeof(cmd), "hist:keys=pid:");
	for (i = 0; i < 16; i++)
		len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, "%sx%d=a", i ? "," : "", i);
	snprintf(cmd + len, sizeof(cmd) - (size_t)len, ":x16=a");
	expect(cmd, -HIST_EINVAL, HIST_ERR_TOO_MANY_VARS);
	teardown();
}

static void test_too_many_actions(void)
{
	char cmd[4000];
	int i, n;

	setup();
	T_EQ(hist_synth_parse(ctx, "lim_synth u64 v", 0, NULL), 0);
	expect("hist:keys=pid:t0=a", 0, -1);
	/* 8 actions per hist; a 9th is a silent EINVAL */
	for (n = 8; n <= 9; n++) {
		int len = snprintf(cmd, sizeof(cmd), "hist:keys=pid:d%d=a-$t0", n);

		for (i = 0; i < n; i++)
			len += snprintf(cmd + len, sizeof(cmd) - (size_t)len,
					":onmatch(lim.ev).trace(lim_synth,$d%d)", n);
		expect(cmd, n == 8 ? 0 : -HIST_EINVAL, -1);
	}
	teardown();
}

static void test_too_many_synth_fields(void)
{
	struct hist_synth_field_desc f[65];
	char names[65][16], line[2048];
	struct hist_error err;
	int i, len;

	setup();
	for (i = 0; i < 65; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		f[i].type = "u64";
		f[i].name = names[i];
	}
	T_EQ(hist_synth_create(ctx, "s64", f, 64, NULL), 0);
	T_EQ(hist_synth_create(ctx, "s65", f, 65, &err), -HIST_EINVAL);
	len = snprintf(line, sizeof(line), "t65");
	for (i = 0; i < 65; i++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, "%s u64 f%d",
				i ? ";" : "", i);
	T_EQ(hist_synth_parse(ctx, line, 0, &err), -HIST_EINVAL);
	T_EQ(err.msg, HIST_SYNTH_ERR_TOO_MANY_FIELDS);
	teardown();
}

/* ---- long commands -------------------------------------------------------- */

/* "hist:keys=pid if pid ==<spaces>1", exactly LEN bytes */
static char *long_cmd(size_t len)
{
	static const char head[] = "hist:keys=pid if pid ==";
	char *c = malloc(len + 1);

	memcpy(c, head, sizeof(head) - 1);
	memset(c + sizeof(head) - 1, ' ', len - sizeof(head));
	c[len - 1] = '1';
	c[len] = 0;
	return c;
}

static void test_4k_commands(void)
{
	char *c;

	setup();
	c = long_cmd(4095);	/* < PAGE_SIZE: accepted */
	expect(c, 0, -1);
	free(c);
	c = long_cmd(4096);	/* a write of PAGE_SIZE or more: EINVAL */
	T_EQ(hist_trigger_parse(ev, c, NULL), -HIST_EINVAL);
	free(c);
	c = long_cmd(100000);
	T_EQ(hist_trigger_parse(ev, c, NULL), -HIST_EINVAL);
	free(c);
	teardown();
}

static void test_long_synth_lines(void)
{
	struct hist_synth_cmd cmd;
	char *line = malloc(8192), buf[HIST_SYNTH_CMD_LEN];
	int i, len;

	setup();
	/* a 4000-byte line of valid fields, each a long name */
	len = snprintf(line, 8192, "longev");
	for (i = 0; len < 3900; i++)
		len += snprintf(line + len, 8192 - (size_t)len, "%s u64 field_with_a_long_name_%d",
				i ? ";" : "", i);
	/* over 64 fields: rejected for the count, not the length */
	T_EQ(hist_synth_parse(ctx, line, 0, NULL), -HIST_EINVAL);
	/* the builder's buffer overflows: E2BIG, nothing defined */
	hist_synth_cmd_init(&cmd, ctx, buf, sizeof(buf));
	T_EQ(hist_synth_cmd_start(&cmd, "built"), 0);
	for (i = 0; i < 200; i++) {
		char name[64];

		snprintf(name, sizeof(name), "a_rather_long_field_name_number_%d", i);
		if (hist_synth_cmd_add_field(&cmd, "u64", name))
			break;
	}
	T_ASSERT(i < 200);
	T_EQ(hist_synth_cmd_end(&cmd, NULL), -HIST_E2BIG);
	T_ASSERT(hist_synth_event_get(ctx, "built") == NULL);
	free(line);
	teardown();
}

/* ---- deep expressions ----------------------------------------------------- */

static void test_deep_expressions(void)
{
	char *c = malloc(4096);
	int i, len;

	setup();
	expect("hist:keys=pid:x=a+b+c+d", 0, -1);
	expect("hist:keys=pid:y=a+b+c+d+a", -HIST_EINVAL, HIST_ERR_TOO_MANY_SUBEXPR);
	expect("hist:keys=pid:z=a+b+c+-(d)", -HIST_EINVAL, -2);
	/* 1000 parentheses around a field: refused, no stack exhaustion */
	len = snprintf(c, 4096, "hist:keys=pid:w=");
	for (i = 0; i < 1000; i++)
		c[len++] = '(';
	len += snprintf(c + len, 4096 - (size_t)len, "a");
	for (i = 0; i < 1000; i++)
		c[len++] = ')';
	c[len] = 0;
	T_EQ(hist_trigger_parse(ev, c, NULL), -HIST_EINVAL);
	/* a filter nested 1000 deep */
	len = snprintf(c, 4096, "hist:keys=comm if ");
	for (i = 0; i < 1000; i++)
		c[len++] = '(';
	len += snprintf(c + len, 4096 - (size_t)len, "pid == 1");
	for (i = 0; i < 1000; i++)
		c[len++] = ')';
	c[len] = 0;
	T_EQ(hist_trigger_parse(ev, c, NULL), 0);
	/* and 1000 terms */
	len = snprintf(c, 4096, "hist:keys=a if pid == 0");
	for (i = 0; len < 4000; i++)
		len += snprintf(c + len, 4096 - (size_t)len, " || pid == %d", i % 10);
	T_EQ(hist_trigger_parse(ev, c, NULL), 0);
	free(c);
	teardown();
}

/* ---- strings -------------------------------------------------------------- */

static void filter_literal(size_t n, int code)
{
	struct hist_error err;
	char *f = malloc(n + 32);
	hist_filter *hf;

	memcpy(f, "dstr == \"", 9);
	memset(f + 9, 'x', n);
	memcpy(f + 9 + n, "\"", 2);
	hf = hist_filter_compile(ev, f, &err);
	if (code) {
		T_ASSERT(hf == NULL);
		T_EQ(err.code, code);
		T_EQ(err.msg, HIST_FILTER_ERR_OPERAND_TOO_LONG);
	} else {
		T_ASSERT(hf != NULL);
	}
	hist_filter_destroy(hf);
	free(f);
}

static void test_strings_255_256_257(void)
{
	char s[300], want[300];
	struct rec r;
	const char *p;
	int n;

	setup();
	/* filter literals: 255 characters accepted, 256 rejected */
	filter_literal(255, 0);
	filter_literal(256, -HIST_EINVAL);
	filter_literal(257, -HIST_EINVAL);

	/* a string key keeps 255 bytes and a NUL: 255/256/257-byte strings
	 * that share their first 255 bytes are one entry */
	expect("hist:keys=dstr", 0, -1);
	for (n = 255; n <= 257; n++) {
		memset(s, 'y', (size_t)n);
		s[n] = 0;
		rec_init(&r, 1, 0);
		rec_dstr(&r, OFF_DSTR, s);
		hit(&r);
	}
	hist_text();
	T_EQU(total("Entries: "), 1);
	T_EQU(total("Hits: "), 3);
	memset(want, 'y', 255);
	want[255] = 0;
	p = strstr(out.b, "{ dstr: ");
	T_ASSERT(p && !strncmp(p + 8, want, 255) && p[8 + 255] != 'y');
	T_ASSERT(strstr(out.b, "hitcount:          3") != NULL);
	teardown();

	/* synthetic char[N]: N <= 256 */
	setup();
	T_EQ(hist_synth_parse(ctx, "s256 char str[256]", 0, NULL), 0);
	T_EQ(hist_synth_parse(ctx, "s257 char str[257]", 0, NULL), -HIST_EINVAL);
	T_EQ(hist_synth_parse(ctx, "s1000 char str[1000]", 0, NULL), -HIST_EINVAL);
	teardown();

	/* a string variable keeps 255 bytes too */
	setup();
	expect("hist:keys=pid:sv=dstr", 0, -1);
	memset(s, 'z', 257);
	s[257] = 0;
	rec_init(&r, 1, 0);
	rec_dstr(&r, OFF_DSTR, s);
	hit(&r);
	hist_text();
	T_EQU(total("Hits: "), 1);
	teardown();

	/* two 256-byte string keys exceed the 384-byte key: silent EINVAL */
	setup();
	expect("hist:keys=dstr,dstr2", -HIST_EINVAL, -1);
	expect("hist:keys=dstr,comm,pid", 0, -1);
	teardown();
}

/* ---- hostile records ------------------------------------------------------ */

static void test_short_records(void)
{
	struct rec r;

	setup();
	expect("hist:keys=a,comm:vals=b", 0, -1);
	/* the record stops before b and comm: they read as 0 and "" */
	rec_init(&r, 1, 7);
	memset(r.b + 24, 0xff, 8);
	memcpy(r.b + 48, "name", 5);
	r.len = 24;
	hit(&r);
	/* cut in the middle of a: 0 too (no partial read) */
	rec_init(&r, 1, 0x0102030405060708ull);
	r.len = 20;
	hit(&r);
	/* nothing at all */
	hist_event_hit(ev, NULL, 0, NULL);
	hist_text();
	T_ASSERT(line_with("{ a:          7, comm:       ", "   } hitcount:          1  b:          0"));
	T_ASSERT(line_with("{ a:          0, comm:       ", "   } hitcount:          2  b:          0"));
	T_EQU(total("Hits: "), 3);
	teardown();
}

/* The same through a lone plain hist (its variant: short records take
 * the variant's whole-hit half, the rest the inline path). */
static void test_short_records_simple(void)
{
	struct rec r;

	setup();
	expect("hist:keys=a:vals=b,c", 0, -1);
	rec_init(&r, 1, 7);
	memset(r.b + 24, 0x01, 8);
	memset(r.b + 32, 0x02, 8);
	hit(&r);
	/* the record stops before c: b reads, c is 0 */
	r.len = 32;
	hit(&r);
	/* before b: the key alone */
	r.len = 24;
	hit(&r);
	/* in the middle of a: key 0 */
	rec_init(&r, 1, 0x0102030405060708ull);
	r.len = 20;
	hit(&r);
	hist_text();
	T_ASSERT(line_with("{ a:          7 }",
			   "hitcount:          3  b: 144680345676153346  c: 144680345676153346"));
	T_ASSERT(line_with("{ a:          0 }", "hitcount:          1  b:          0  c:          0"));
	T_EQU(total("Hits: "), 4);
	teardown();
}

static void test_data_loc_out_of_range(void)
{
	static const uint32_t bad[] = {
		0xffffu << 16 | 4000,		/* offset past the end */
		200u << 16 | OFF_DATA,		/* length past the end */
		0xffffu << 16 | 0xffffu,	/* both */
		4u << 16 | 2,			/* overlaps the header */
		0,				/* empty */
	};
	struct rec r;
	size_t i;

	setup();
	expect("hist:keys=dstr", 0, -1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rec_init(&r, 1, 0);
		memcpy(r.b + OFF_DATA, "abcdefgh", 8);
		r.len = OFF_DATA + 8;
		memcpy(r.b + OFF_DSTR, &bad[i], 4);
		hit(&r);
	}
	/* a string without its NUL inside the record: cut at the record end */
	rec_init(&r, 1, 0);
	{
		uint32_t loc = 8u << 16 | OFF_DATA;

		memcpy(r.b + OFF_DSTR, &loc, 4);
		memcpy(r.b + OFF_DATA, "abcdefgh", 8);
		r.len = OFF_DATA + 8;
	}
	hit(&r);
	hist_text();
	/* out of range reads as the empty string; the overlapping one reads
	 * the bytes it names, which are inside the record */
	T_ASSERT(strstr(out.b, "{ dstr: abcdefgh") != NULL);
	T_EQU(total("Hits: "), 6);
	T_ASSERT(total("Entries: ") <= 3);
	teardown();
}

int main(void)
{
	T_RUN(test_map_full);
	T_RUN(test_size);
	T_RUN(test_size_host_limit);
	T_RUN(test_too_many);
	T_RUN(test_too_many_actions);
	T_RUN(test_too_many_synth_fields);
	T_RUN(test_4k_commands);
	T_RUN(test_long_synth_lines);
	T_RUN(test_deep_expressions);
	T_RUN(test_strings_255_256_257);
	T_RUN(test_short_records);
	T_RUN(test_short_records_simple);
	T_RUN(test_data_loc_out_of_range);
	return T_DONE();
}
