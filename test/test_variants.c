/* SPDX-License-Identifier: MIT */
/*
 * Every hit variant (src/core/variants.c) against the general hit path.
 *
 * A lone plain hist takes a variant, one cell of the table in variants.c
 * (hist_debug names it).  Each trigger below runs on two events of one
 * schema: as is (the variant) and with a string term added to its filter
 * that passes every record (the general path, which reads every field
 * through its evaluator).  The same random records go to both, and the
 * two histograms must agree entry by entry (through hist_reader: every
 * key's text, every value, the totals).  The records have strings with
 * and without a NUL, garbage after the NUL, every integer size and sign,
 * and some are cut short anywhere.  .execname keys take the host's comm
 * of the pid when an entry is created, the same on both paths.
 * test_every_cell builds a trigger for each combination of the table's
 * dimensions and fails unless every cell of the table was taken by some
 * trigger.
 */
#include "harness.h"
#include "libhist.h"
#include "core/trigger.h"
#include "common/fmt.h"

#include <stdlib.h>

static const struct hist_field_desc fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	{ "u8", "u8", 8, 1, 0, HIST_FIELD_INT },
	{ "s8", "s8", 9, 1, 1, HIST_FIELD_INT },
	{ "s16", "s16", 10, 2, 1, HIST_FIELD_INT },
	{ "s32", "int", 12, 4, 1, HIST_FIELD_INT },
	{ "u64", "u64", 16, 8, 0, HIST_FIELD_INT },
	{ "u32", "u32", 24, 4, 0, HIST_FIELD_INT },
	{ "c16", "char[16]", 28, 16, 1, HIST_FIELD_STRING },
	{ "c20", "char[20]", 44, 20, 1, HIST_FIELD_STRING },
	{ "c31", "char[31]", 64, 31, 1, HIST_FIELD_STRING },
	{ "c40", "char[40]", 95, 40, 1, HIST_FIELD_STRING },
	{ "c8", "char[8]", 135, 8, 1, HIST_FIELD_STRING },
	{ "c3", "char[3]", 143, 3, 1, HIST_FIELD_STRING },
	{ "v64", "u64", 146, 8, 0, HIST_FIELD_INT },
	{ "w64", "u64", 154, 8, 0, HIST_FIELD_INT },
};
#define REC_LEN 162

static int find_event(void *data, const char *sys, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	if (strcmp(sys, "w") || (strcmp(name, "fast") && strcmp(name, "gen")))
		return -HIST_ENOENT;
	out->fields = fields;
	out->nr_fields = sizeof(fields) / sizeof(fields[0]);
	return 0;
}

/* Names that repeat across pids, so that .execname keys print the same
 * name for different pids; pid 0 never gets here (<idle>). */
static int comm_of(void *data, int32_t pid, char comm[16])
{
	(void)data;
	snprintf(comm, 16, "task-%d", (int)(pid % 7));
	return 0;
}

/* ---- records --------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return t_xorshift(&rng);
}

/* A string field of SIZE bytes: text from a small alphabet (so that keys
 * repeat), a NUL somewhere or nowhere, garbage after it. */
static void put_str(uint8_t *p, uint32_t size)
{
	/* mostly short texts, so that keys repeat; now and then one that
	 * fills the array, with or without a NUL */
	uint32_t len = (uint32_t)(rnd() % 8 ? rnd() % 3 : size - rnd() % 3), i;

	if (len > size)
		len = size;
	for (i = 0; i < size; i++)
		p[i] = i < len ? (uint8_t)"abc"[rnd() % 3] : rnd() % 4 ? (uint8_t)rnd() : 0;
	if (len < size)
		p[len] = 0;
}

/* Integer fields take values below this (and their negatives). */
static uint64_t int_range = 4;
/* common_pid: 0 (the default), or 0..PID_RANGE-1 */
static uint32_t pid_range;

static size_t make_rec(uint8_t *r)
{
	uint32_t i;
	size_t len = REC_LEN;

	memset(r, 0, REC_LEN + 64);
	for (i = 4; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct hist_field_desc *f = &fields[i];

		if (f->kind == HIST_FIELD_STRING) {
			put_str(r + f->offset, f->size);
		} else {
			/* few distinct values: 0..3, their negatives
			 * (INT_RANGE: more) */
			uint64_t v = rnd() % int_range;

			if (rnd() % 2)
				v = -v;
			memcpy(r + f->offset, &v, f->size);
		}
	}
	if (pid_range) {
		int32_t pid = (int32_t)(rnd() % pid_range);

		memcpy(r + 4, &pid, 4);
	}
	/* the bytes past the record are never part of a key */
	for (i = REC_LEN; i < REC_LEN + 64; i++)
		r[i] = (uint8_t)rnd();
	if (rnd() % 16 == 0)
		len = (size_t)(rnd() % REC_LEN);
	return len;
}

/* ---- output ---------------------------------------------------------------- */

/*
 * The entries of FAST's and GEN's histograms, in printed order, key text
 * by key text and value by value, and their totals; the first difference
 * is reported.  Returns the number of entries.
 */
static uint64_t same_hists(const char *cmd, hist_event *fast, hist_event *gen)
{
	int err = 0;
	hist_reader *a = hist_reader_create(fast, 0, &err);
	hist_reader *b = hist_reader_create(gen, 0, &err);
	const struct hist_read_entry *x, *y;
	uint64_t n = 0;
	uint32_t i;

	T_ASSERT(a && b);
	if (!a || !b)
		goto out;
	T_EQU(hist_reader_info(a)->hits, hist_reader_info(b)->hits);
	T_EQU(hist_reader_info(a)->entries, hist_reader_info(b)->entries);
	T_EQU(hist_reader_info(a)->dropped, hist_reader_info(b)->dropped);
	for (;; n++) {
		x = hist_reader_next(a);
		y = hist_reader_next(b);
		if (!x || !y) {
			T_ASSERT(!x && !y);
			break;
		}
		for (i = 0; i < x->nr_keys; i++)
			if (strcmp(x->keys[i].text, y->keys[i].text))
				break;
		if (i < x->nr_keys || x->vals[0].value != y->vals[0].value ||
		    (x->nr_vals > 1 && x->vals[1].value != y->vals[1].value) ||
		    (x->nr_vals > 2 && x->vals[2].value != y->vals[2].value)) {
			T_FAILF("%s: entry %llu differs: key '%s' %llu hits (variant), '%s' %llu hits (general)",
				cmd, (unsigned long long)n, x->keys[i < x->nr_keys ? i : 0].text,
				(unsigned long long)x->vals[0].value,
				y->keys[i < x->nr_keys ? i : 0].text,
				(unsigned long long)y->vals[0].value);
			break;
		}
	}
out:
	hist_reader_destroy(a);
	hist_reader_destroy(b);
	return n;
}

/* ---- the comparison -------------------------------------------------------- */

static uint32_t records = 30000;

/* The cells the triggers took (hist_debug's "hit variant:" lines). */
static char taken[256][128];
static uint32_t nr_taken;

struct text {
	char s[1 << 16];
	size_t n;
};

static int to_text(void *arg, const char *s, size_t n)
{
	struct text *b = arg;

	if (b->n + n >= sizeof(b->s))
		return -1;
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
	return 0;
}

/* The hit variant EV's first trigger takes, as hist_debug names it. */
static void variant_of(hist_event *ev, char *out, size_t n)
{
	static struct text b;
	const char *v, *e;

	b.n = 0;
	b.s[0] = 0;
	out[0] = 0;
	if (hist_event_print_hist_debug(ev, to_text, &b))
		return;
	v = strstr(b.s, "  hit variant: ");
	if (!v)
		return;
	v += 15;
	e = strchr(v, '\n');
	snprintf(out, n, "%.*s", (int)(e ? e - v : (long)strlen(v)), v);
}

static void compare_opts(const char *cmd, const struct hist_ctx_opts *opts)
{
	struct hist_host host = { .find_event = find_event, .comm = comm_of };
	hist_ctx *ctx = hist_ctx_create(&host, opts, NULL);
	hist_event *fast = ctx ? hist_event_lookup(ctx, "w", "fast") : NULL;
	hist_event *gen = ctx ? hist_event_lookup(ctx, "w", "gen") : NULL;
	uint8_t rec[REC_LEN + 64];
	char gcmd[512], v[128];
	uint32_t i;

	T_ASSERT(fast && gen);
	if (!fast || !gen) {
		hist_ctx_destroy(ctx);
		return;
	}
	/* a string term keeps the general path (no variant reads strings
	 * in filters), and is always true: c8 never holds "zzzz" */
	snprintf(gcmd, sizeof(gcmd), "%s %s c8 != \"zzzz\"", cmd, strstr(cmd, " if ") ? "&&" : "if");
	T_EQ(hist_trigger_parse(fast, cmd, NULL), 0);
	T_EQ(hist_trigger_parse(gen, gcmd, NULL), 0);
	variant_of(gen, v, sizeof(v));
	T_STREQ(v, "general");
	variant_of(fast, v, sizeof(v));
	for (i = 0; i < nr_taken && strcmp(taken[i], v); i++)
		;
	if (i == nr_taken && nr_taken < sizeof(taken) / sizeof(taken[0]))
		snprintf(taken[nr_taken++], sizeof(taken[0]), "%s", v);
	for (i = 0; i < records; i++) {
		size_t len = make_rec(rec);
		/* cpus 0..3 own their slots; 7 folds onto 3 */
		struct hist_hit h = { .ts = i, .cpu = (uint32_t)(rnd() % 5 == 4 ? 7 : rnd() % 4),
				      .pid = -1 };

		hist_event_hit(fast, rec, len, &h);
		hist_event_hit(gen, rec, len, &h);
	}
	/* the keys really differ */
	T_ASSERT(same_hists(cmd, fast, gen) > 1);
	hist_ctx_destroy(ctx);
}

static void compare(const char *cmd)
{
	compare_opts(cmd, &(struct hist_ctx_opts){ .nr_cpus = 4 });
}

/* One string: 2, 3 and 4 words unrolled, 5 words general. */
static void test_string_keys(void)
{
	compare("hist:keys=c16");
	compare("hist:keys=c20");
	compare("hist:keys=c31");
	compare("hist:keys=c40");
}

/* Strings that do not make a wide key (8 bytes and less) still agree. */
static void test_short_string_keys(void)
{
	compare("hist:keys=c8");
	compare("hist:keys=c3:vals=u64");
}

/* Values: none, one, two; every integer size as a value. */
static void test_values(void)
{
	compare("hist:keys=c16:vals=u64");
	compare("hist:keys=c16:vals=s8,u32");
	compare("hist:keys=c20:vals=s16,s32:sort=s16");
}

/* Integer keys: two and three fields of every size and sign. */
static void test_integer_keys(void)
{
	compare("hist:keys=u8,s16");
	compare("hist:keys=s8,u32:vals=u64");
	compare("hist:keys=s32,u64,s16:vals=u8,s8");
	compare("hist:keys=common_pid,s8,u32");
}

/* Strings and integers together, in either order, and modifiers that
 * keep the key's bytes (.hex, .sym print differently). */
static void test_mixed_keys(void)
{
	compare("hist:keys=c16,s32");
	compare("hist:keys=s32,c16:vals=u64");
	compare("hist:keys=c16,c20,u8");
	compare("hist:keys=u64.hex,c31");
	compare("hist:keys=c3,s16");
}

/* Filters of integer fields on a plain hist: its filtered variant,
 * every operator, signed and unsigned, and records cut short. */
static void test_filtered(void)
{
	compare("hist:keys=s32:vals=u64 if s16 < 2");
	compare("hist:keys=u64 if u8 >= 1 && s8 != -1");
	compare("hist:keys=u32:vals=s8,s16 if s32 <= 0 || u64 == 3");
	compare("hist:keys=s8 if u32 > 1");
	compare("hist:keys=s32:vals=u8 if s16 & 1");
}

/*
 * One integer key (the simple variants), with values over a
 * range wide enough to fill the map: keys found at their start slot or
 * further on, keys hit from several cpu slots, new keys, drops.
 */
static void test_plain_keys(void)
{
	int_range = 3000;
	compare("hist:keys=u64");
	compare("hist:keys=s32:vals=u64");
	compare("hist:keys=u32:vals=s8,s16");
	compare("hist:keys=s16:vals=u64:size=256");
	compare("hist:keys=u64:vals=u32 if u8 < 100");
	int_range = 4;
}

/*
 * .execname: the comm variants (a new key saves the comm through the
 * short half), over pids enough to fill the map and to meet keys past
 * their start slot; with a filter, the general simple path.
 */
static void test_execname_keys(void)
{
	pid_range = 3000;
	compare("hist:keys=common_pid.execname");
	compare("hist:keys=common_pid.execname:vals=u64");
	compare("hist:keys=common_pid.execname:vals=u64,s8:sort=u64");
	compare("hist:keys=common_pid.execname:vals=u32:size=256");
	compare("hist:keys=common_pid.execname if u8 < 100");
	pid_range = 0;
}

/* Keys the variant does not take: a modifier that changes the value. */
static void test_other_keys(void)
{
	compare("hist:keys=u64.log2,c16");
	compare("hist:keys=c16,s32.buckets=2");
}

/*
 * A trigger for every combination of the table's dimensions: simple keys
 * (u64, s32, any other integer) with every value kind and count, each
 * with and without a filter of integer fields, on a small map (32-byte
 * slots, line32), a map past the last-level cache (first32) and shared
 * sums; wide keys of 2 and 3 integers, strings of 2, 3 and 4 words and a
 * mix, with every value count, per-cpu and shared sums.  Then every cell
 * of the table must have been taken.
 */
static void test_every_cell(void)
{
	static const char *const simple_keys[] = { "u64", "s32", "u32" };
	/* hitcount only; u64 values (1, 2); other sizes (1, 2) */
	static const char *const simple_vals[] = { "", ":vals=v64", ":vals=v64,w64",
						   ":vals=s16", ":vals=v64,s16" };
	static const char *const wide_keys[] = { "u8,s16", "s32,u64,s16", "c16", "c20",
						 "c31",	   "c16,s32" };
	static const char *const wide_vals[] = { "", ":vals=v64", ":vals=v64,s16" };
	/* small per-cpu map, 2^18 entries per cpu, shared sums */
	const struct hist_ctx_opts looks[] = {
		{ .nr_cpus = 4, .sums = HIST_SUMS_PER_CPU },
		{ .nr_cpus = 4, .sums = HIST_SUMS_PER_CPU, .max_map_bits = 18 },
		{ .nr_cpus = 4, .sums = HIST_SUMS_SHARED },
	};
	static const char *const sizes[] = { "", ":size=262144", "" };
	char cmd[256], name[128];
	const struct hist__variant *v;
	struct hist__sb sb;
	uint32_t k, n, l, f, i, missing = 0;

	records = 3000;
	int_range = 3000;
	for (k = 0; k < 3; k++)
		for (n = 0; n < 5; n++)
			for (l = 0; l < 3; l++)
				for (f = 0; f < 2; f++) {
					snprintf(cmd, sizeof(cmd), "hist:keys=%s%s%s%s",
						 simple_keys[k], simple_vals[n], sizes[l],
						 f ? " if u8 < 1000" : "");
					compare_opts(cmd, &looks[l]);
				}
	int_range = 4;
	for (k = 0; k < 6; k++)
		for (n = 0; n < 3; n++)
			for (l = 0; l < 3; l += 2) {
				snprintf(cmd, sizeof(cmd), "hist:keys=%s%s", wide_keys[k],
					 wide_vals[n]);
				compare_opts(cmd, &looks[l]);
			}
	/* .execname: the comm cells */
	pid_range = 3000;
	for (n = 0; n < 3; n++)
		for (l = 0; l < 3; l++) {
			snprintf(cmd, sizeof(cmd), "hist:keys=common_pid.execname%s%s",
				 simple_vals[n], sizes[l]);
			compare_opts(cmd, &looks[l]);
		}
	pid_range = 0;
	records = 30000;
	for (i = 0; (v = hist__variant_at(i)) != NULL; i++) {
		hist__sb_init_buf(&sb, name, sizeof(name));
		hist__variant_name(&sb, v);
		hist__sb_finish(&sb);
		for (n = 0; n < nr_taken && strcmp(taken[n], name); n++)
			;
		if (n == nr_taken) {
			T_FAILF("cell '%s' of the table: no trigger takes it", name);
			missing++;
		}
	}
	printf("# %u cells, %u taken by the triggers above, %u never\n", i, nr_taken, missing);
}

int main(void)
{
	T_RUN(test_string_keys);
	T_RUN(test_short_string_keys);
	T_RUN(test_values);
	T_RUN(test_integer_keys);
	T_RUN(test_mixed_keys);
	T_RUN(test_other_keys);
	T_RUN(test_filtered);
	T_RUN(test_plain_keys);
	T_RUN(test_execname_keys);
	T_RUN(test_every_cell);
	return T_DONE();
}
