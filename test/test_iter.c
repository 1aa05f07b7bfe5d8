/* SPDX-License-Identifier: MIT */
/*
 * The structured read-out (hist_reader_*) and the JSON writer.
 *
 * The main check rebuilds every histogram of every kernel conformance case
 * from the reader alone (keys, values, percentages, graphs, onmax blocks,
 * the snapshot block, totals) and requires the result to equal libhist's
 * own hist file with blanks normalised: so the reader lists the entries in
 * exactly the printer's order with exactly its numbers.  Unit tests then
 * pin the typed fields (kinds, strings, signed keys, variables, saved
 * fields), the errors, and allocation failure.  The JSON writer's output
 * is parsed by a real JSON parser (python3, test/json_check.py) that also
 * checks the schema documented in README.md.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"
#include "conf.h"
#include "libhist.h"

#define CASES "test/conformance/cases"

static char tmpdir[256];

/* ---- text helpers ------------------------------------------------------ */

/* S with every run of blanks (space, tab, newline) made one space, none
 * before a comma (the padding of a key), trimmed; malloc'ed. */
static char *norm(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	size_t k = 0, i;
	int blank = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == ' ' || c == '\t' || c == '\n') {
			blank = k > 0;
			continue;
		}
		if (blank && c != ',')
			d[k++] = ' ';
		blank = 0;
		d[k++] = c;
	}
	d[k] = 0;
	return d;
}

static void bputf(struct replay_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void bputf(struct replay_buf *b, const char *fmt, ...)
{
	char tmp[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	replay_buf_puts(b, tmp);
}

/* The keys block "{ ... }" as the hist file prints it, from the reader. */
static void render_keys(struct replay_buf *b, const struct hist_read_key *k,
			uint32_t n)
{
	uint32_t i, j;
	int multiline = 0;

	replay_buf_puts(b, "{ ");
	for (i = 0; i < n; i++) {
		if (i)
			replay_buf_puts(b, ", ");
		if (k[i].kind == HIST_KEY_STACKTRACE) {
			size_t nl = strlen(k[i].name);

			/* "stacktrace:" and a newline, but "field.stacktrace"
			 * alone; a frame per line */
			bputf(b, "%s%s", k[i].name,
			      nl > 11 && !strcmp(k[i].name + nl - 11, ".stacktrace")
			      ? "" : ":\n");
			for (j = 0; j < k[i].nr_frames; j++)
				bputf(b, "         %s\n", k[i].frame_text[j]);
			multiline = 1;
			continue;
		}
		bputf(b, "%s: %s", k[i].name, k[i].text);
	}
	replay_buf_puts(b, multiline ? "}" : " }");
}

static void render_entry(struct replay_buf *b, const struct hist_read_entry *e)
{
	uint32_t i, j;

	render_keys(b, e->keys, e->nr_keys);
	for (i = 0; i < e->nr_vals; i++) {
		const struct hist_read_val *v = &e->vals[i];

		if (v->flags & HIST_VAL_PERCENT) {
			if (v->percent < 0)
				bputf(b, " %s (%%):[ERROR]", v->name);
			else
				bputf(b, " %s (%%): %d.%02d", v->name, v->percent / 100,
				      v->percent % 100);
		} else if (v->flags & HIST_VAL_GRAPH) {
			int bars = v->percent < 0 ? 0 : v->percent * 20 / 10000;

			bputf(b, " %s: ", v->name);
			if (v->percent < 0)
				replay_buf_puts(b, "[ERROR]");
			for (j = 0; (int)j < bars; j++)
				replay_buf_puts(b, "#");
		} else if (v->flags & HIST_VAL_HEX) {
			bputf(b, " %s: %llx", v->name, (unsigned long long)v->value);
		} else {
			bputf(b, " %s: %llu", v->name, (unsigned long long)v->value);
		}
	}
	for (i = 0; i < e->nr_tracks; i++) {
		const struct hist_read_track *t = &e->tracks[i];

		bputf(b, " %s: %llu", t->handler == HIST_TRACK_ONMAX ? "max" : "changed",
		      (unsigned long long)t->value);
		for (j = 0; j < t->nr_saved; j++) {
			const struct hist_read_var *s = &t->saved[j];

			if (s->is_string)
				bputf(b, " %s: %s", s->name, s->str ? s->str : "(null)");
			else
				bputf(b, " %s: %llu", s->name, (unsigned long long)s->value);
		}
	}
}

/* ---- the conformance sweep ------------------------------------------- */

struct sweep {
	int sections, entries, snapshots, failures;
	int kinds[HIST_KEY_STACKTRACE + 1];
	int percent, graph, hex, tracks, vars;
};

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/*
 * Compare one "# event histogram" section of the hist file with what
 * reader R rebuilds.  0 if equal, else prints the first difference.
 */
static int compare_section(const char *where, const char *sec, hist_reader *r,
			   struct sweep *sw)
{
	const struct hist_read_info *info = hist_reader_info(r);
	const struct hist_read_entry *e;
	const char *p = strstr(sec, "\n\n"), *end;
	unsigned long long hits, entries, dropped;
	char *want, *got, line[4096];
	int bad = 0;

	if (!p)
		return 1;
	/* the trigger info line */
	snprintf(line, sizeof(line), "# trigger info: %s %s\n", info->trigger,
		 info->paused ? "[paused]" : "[active]");
	if (!strstr(sec, line)) {
		printf("# %s: trigger info '%s' not in\n%s", where, info->trigger, sec);
		return 1;
	}
	p += 2;
	/* entries: a block runs from a line starting with '{' to the next
	 * such line or a blank line */
	while ((e = hist_reader_next(r))) {
		struct replay_buf b = { 0 };
		uint32_t i;

		if (*p != '{') {
			printf("# %s: entry %u has no line\n", where, e->index);
			return 1;
		}
		end = p + 1;
		while (*end && !(end[0] == '\n' && (end[1] == '{' || end[1] == '\n')))
			end++;
		render_entry(&b, e);
		want = norm(p, (size_t)(end - p));
		got = norm(b.s ? b.s : "", b.len);
		if (strcmp(want, got)) {
			printf("# %s: entry %u\n#   hist:   %s\n#   reader: %s\n", where,
			       e->index, want, got);
			bad = 1;
		}
		free(want);
		free(got);
		replay_buf_free(&b);
		if (bad)
			return 1;
		sw->entries++;
		for (i = 0; i < e->nr_keys; i++)
			sw->kinds[e->keys[i].kind]++;
		for (i = 0; i < e->nr_vals; i++) {
			sw->percent += !!(e->vals[i].flags & HIST_VAL_PERCENT);
			sw->graph += !!(e->vals[i].flags & HIST_VAL_GRAPH);
			sw->hex += !!(e->vals[i].flags & HIST_VAL_HEX);
		}
		sw->tracks += e->nr_tracks;
		sw->vars += e->nr_vars;
		p = *end ? end + 1 : end;
	}
	if (*p == '{') {
		printf("# %s: the hist file has more entries than the reader\n", where);
		return 1;
	}
	if (*p == '\n')
		p++;
	if (info->snapshot) {
		const struct hist_read_snapshot *s = info->snapshot;
		struct replay_buf b = { 0 };

		end = strstr(p, "\n\nTotals:");
		bputf(&b, "Snapshot taken (see tracing/snapshot). Details: "
		      "triggering value { %s(%s) }: %llu triggered by event with key: ",
		      s->handler == HIST_TRACK_ONMAX ? "onmax" : "onchange", s->var,
		      (unsigned long long)s->value);
		render_keys(&b, s->keys, s->nr_keys);
		want = norm(p, end ? (size_t)(end - p) : strlen(p));
		got = norm(b.s, b.len);
		if (strcmp(want, got)) {
			printf("# %s: snapshot\n#   hist:   %s\n#   reader: %s\n", where,
			       want, got);
			bad = 1;
		}
		free(want);
		free(got);
		replay_buf_free(&b);
		sw->snapshots++;
	} else if (starts(p, "Snapshot")) {
		printf("# %s: the reader has no snapshot block\n", where);
		bad = 1;
	}
	p = strstr(p, "Totals:");
	if (!p || sscanf(p, "Totals:\n    Hits: %llu\n    Entries: %llu\n"
			 "    Dropped: %llu", &hits, &entries, &dropped) != 3 ||
	    hits != info->hits || entries != info->entries ||
	    dropped != info->dropped) {
		printf("# %s: totals differ\n", where);
		bad = 1;
	}
	return bad;
}

static void write_lines(struct replay *r, const char *cdir, const char *file,
			int synth)
{
	char path[1024], *text, **lines;
	size_t n, i;

	snprintf(path, sizeof(path), "%s/%s", cdir, file);
	text = conf_read_file(path, NULL);
	if (!text)
		return;
	n = conf_lines(text, &lines);
	for (i = 0; i < n; i++) {
		char *l = lines[i], *sep;

		if (!*l || *l == '#')
			continue;
		if (synth) {
			replay_write(r, "synthetic_events", l);
			continue;
		}
		sep = strchr(l, '\t');
		if (!sep)
			sep = strchr(l, ' ');
		if (!sep)
			continue;
		*sep++ = 0;
		if (!strcmp(file, "settings"))
			replay_setting(r, l, sep);
		else
			replay_write(r, l, sep);
	}
	free(lines);
	free(text);
}

static void sweep_case(const char *name, struct sweep *sw)
{
	char cdir[512], path[600], err[512], where[700];
	struct replay_opts ro;
	struct replay *r;
	size_t i;

	snprintf(cdir, sizeof(cdir), CASES "/%s", name);
	snprintf(path, sizeof(path), "%s/trace.dat", cdir);
	memset(&ro, 0, sizeof(ro));
	ro.marker_sync = 1;
	r = replay_open(path, &ro, err, sizeof(err));
	if (!r) {
		printf("# %s: %s\n", name, err);
		sw->failures++;
		return;
	}
	write_lines(r, cdir, "settings", 0);
	write_lines(r, cdir, "synthetic_events", 1);
	write_lines(r, cdir, "triggers", 0);
	replay_run(r);
	for (i = 0; i < replay_nr_events(r); i++) {
		const char *sys, *evn;
		hist_event *ev = replay_event(r, i, &sys, &evn);
		struct replay_buf text = { 0 };
		char **secs;
		size_t n, k;

		if (!ev || hist_event_print_hist(ev, replay_buf_write, &text)) {
			replay_buf_free(&text);
			continue;
		}
		n = conf_split_sections(text.s ? text.s : "", &secs);
		if (n != hist_event_nr_hists(ev)) {
			printf("# %s %s/%s: %zu sections, %u hists\n", name, sys, evn, n,
			       hist_event_nr_hists(ev));
			sw->failures++;
		}
		for (k = 0; k < n && k < hist_event_nr_hists(ev); k++) {
			int rc;
			hist_reader *rd = hist_reader_create(ev, (unsigned)k, &rc);

			snprintf(where, sizeof(where), "%s %s/%s #%zu", name, sys, evn, k);
			if (!rd) {
				printf("# %s: reader: %d\n", where, rc);
				sw->failures++;
				continue;
			}
			sw->sections++;
			sw->failures += compare_section(where, secs[k], rd, sw);
			hist_reader_destroy(rd);
		}
		conf_free_strv(secs, n);
		replay_buf_free(&text);
	}
	replay_close(r);
}

static void test_conformance_sweep(void)
{
	struct sweep sw;
	struct dirent *d;
	DIR *dp = opendir(CASES);
	int k;

	memset(&sw, 0, sizeof(sw));
	T_ASSERT(dp != NULL);
	while (dp && (d = readdir(dp)))
		if (d->d_name[0] != '.')
			sweep_case(d->d_name, &sw);
	if (dp)
		closedir(dp);
	T_EQ(sw.failures, 0);
	/* the sweep saw every kind of thing it claims to check */
	T_ASSERT(sw.sections > 100);
	T_ASSERT(sw.entries > 1000);
	for (k = 0; k <= HIST_KEY_STACKTRACE; k++)
		if (!sw.kinds[k])
			printf("# no key of kind %d in the cases\n", k);
	T_ASSERT(sw.kinds[HIST_KEY_NUMBER] && sw.kinds[HIST_KEY_STRING] &&
		 sw.kinds[HIST_KEY_EXECNAME] && sw.kinds[HIST_KEY_SYSCALL] &&
		 sw.kinds[HIST_KEY_SYM] && sw.kinds[HIST_KEY_LOG2] &&
		 sw.kinds[HIST_KEY_BUCKET] && sw.kinds[HIST_KEY_HEX] &&
		 sw.kinds[HIST_KEY_STACKTRACE]);
	T_ASSERT(sw.percent && sw.graph && sw.tracks && sw.snapshots && sw.vars);
	printf("# %d sections, %d entries, %d snapshot blocks rebuilt\n",
	       sw.sections, sw.entries, sw.snapshots);
}

/* ---- a host of our own: typed fields ------------------------------------ */

struct rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	char comm[16];
	uint64_t bytes;
	uint64_t addr;
	int32_t delta;
	uint32_t nr;
	uint64_t ts_field;
};

static const struct hist_field_desc rec_fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT },
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT },
	{ "comm", "char[16]", 8, 16, 0, HIST_FIELD_STRING },
	{ "bytes", "u64", 24, 8, 0, HIST_FIELD_INT },
	{ "addr", "unsigned long", 32, 8, 0, HIST_FIELD_INT },
	{ "delta", "int", 40, 4, 1, HIST_FIELD_INT },
	{ "nr", "u32", 44, 4, 0, HIST_FIELD_INT },
	{ "ts_field", "u64", 48, 8, 0, HIST_FIELD_INT },
};

static int find_event(void *data, const char *sys, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	if (strcmp(sys, "t") || (strcmp(name, "a") && strcmp(name, "b")))
		return -HIST_ENOENT;
	out->fields = rec_fields;
	out->nr_fields = sizeof(rec_fields) / sizeof(rec_fields[0]);
	out->id = name[0] == 'a' ? 1 : 2;
	return 0;
}

static int host_comm(void *data, int32_t pid, char comm[16])
{
	(void)data;
	snprintf(comm, 16, "task-%d", (int)pid);
	return 0;
}

static int host_sym(void *data, uint64_t addr, int with_offset, char *buf,
		    size_t len)
{
	(void)data;
	if (addr < 0x1000)
		return -1;
	return with_offset ? snprintf(buf, len, "fn_%llx+0x4/0x40", (unsigned long long)addr)
			   : snprintf(buf, len, "fn_%llx", (unsigned long long)addr);
}

static const char *host_syscall(void *data, uint64_t nr)
{
	(void)data;
	return nr == 0 ? "sys_read" : nr == 1 ? "sys_write" : NULL;
}

static const struct hist_host host = {
	.find_event = find_event,
	.comm = host_comm,
	.sym = host_sym,
	.syscall_name = host_syscall,
};

static void hit(hist_event *ev, int32_t pid, const char *comm, uint64_t bytes,
		uint64_t addr, int32_t delta, uint32_t nr, uint64_t ts)
{
	struct rec r;
	struct hist_hit h;

	memset(&r, 0, sizeof(r));
	r.type = 1;
	r.pid = pid;
	strncpy(r.comm, comm, sizeof(r.comm) - 1);
	r.bytes = bytes;
	r.addr = addr;
	r.delta = delta;
	r.nr = nr;
	memset(&h, 0, sizeof(h));
	h.ts = ts;
	h.pid = -1;
	hist_event_hit(ev, &r, sizeof(r), &h);
}

static hist_ctx *new_ctx(hist_event **a, hist_event **b)
{
	int err;
	hist_ctx *ctx = hist_ctx_create(&host, NULL, &err);

	*a = ctx ? hist_event_lookup(ctx, "t", "a") : NULL;
	if (b)
		*b = ctx ? hist_event_lookup(ctx, "t", "b") : NULL;
	return ctx;
}

static void test_typed_keys(void)
{
	hist_event *ev;
	hist_ctx *ctx = new_ctx(&ev, NULL);
	const struct hist_read_entry *e;
	const struct hist_read_info *info;
	hist_reader *r;
	int err;

	T_EQ(hist_trigger_parse(ev, "hist:keys=comm,delta:vals=hitcount,bytes.percent:"
				"sort=bytes.descending", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=common_pid.execname,nr.syscall,addr.sym:"
				"vals=bytes.hex", NULL), 0);
	T_EQ(hist_trigger_parse(ev, "hist:keys=bytes.buckets=100,addr.hex:vals=bytes.graph",
				NULL), 0);
	hit(ev, 7, "cat", 150, 0x2000, -5, 1, 10);
	hit(ev, 7, "cat", 150, 0x2000, -5, 1, 20);
	hit(ev, 9, "dd", 700, 0x3000, 3, 0, 30);
	hit(ev, 9, "dd", 100, 0x10, 3, 42, 40);
	T_EQ(hist_event_nr_hists(ev), 3);

	/* 1: string and signed keys, percent of the column total */
	r = hist_reader_create(ev, 0, &err);
	T_ASSERT(r && !err);
	info = hist_reader_info(r);
	T_STREQ(info->trigger, "hist:keys=comm,delta:vals=hitcount,bytes.percent:"
			       "sort=bytes.percent.descending:size=2048");
	T_EQ(info->paused, 0);
	T_EQU(info->hits, 4);
	T_EQU(info->entries, 2);
	T_EQU(info->dropped, 0);
	T_EQ(info->nr_key_fields, 2);
	T_EQ(info->key_fields[0].kind, HIST_KEY_STRING);
	T_EQ(info->key_fields[1].kind, HIST_KEY_NUMBER);
	T_EQ(info->key_fields[1].is_signed, 1);
	T_EQ(info->nr_val_fields, 2);
	T_EQU(info->val_fields[1].value, 1100);	/* column total */
	T_EQ(info->snapshot == NULL, 1);
	e = hist_reader_next(r);
	T_ASSERT(e != NULL);
	if (e) {
		T_EQ(e->index, 0);
		T_STREQ(e->keys[0].name, "comm");
		T_STREQ(e->keys[0].str, "dd");
		T_STREQ(e->keys[0].text, "dd");
		T_EQ((int64_t)e->keys[1].value, 3);
		T_EQ(e->nr_vals, 2);
		T_STREQ(e->vals[0].name, "hitcount");
		T_EQU(e->vals[0].value, 2);
		T_STREQ(e->vals[1].name, "bytes");
		T_EQU(e->vals[1].value, 800);
		T_EQ(e->vals[1].flags, HIST_VAL_PERCENT);
		T_EQ(e->vals[1].percent, 7272);		/* 800/1100 */
		T_EQ(e->nr_vars, 0);
		T_EQ(e->nr_tracks, 0);
	}
	e = hist_reader_next(r);
	T_ASSERT(e && e->index == 1);
	if (e) {
		T_STREQ(e->keys[0].str, "cat");
		T_EQ((int64_t)e->keys[1].value, -5);
		T_STREQ(e->keys[1].text, "18446744073709551611"); /* %llu, as printed */
		T_EQ(e->vals[1].percent, 2727);
	}
	T_ASSERT(hist_reader_next(r) == NULL);
	T_ASSERT(hist_reader_next(r) == NULL);
	hist_reader_rewind(r);
	e = hist_reader_next(r);
	T_ASSERT(e && e->index == 0);
	hist_reader_destroy(r);

	/* 2: execname, syscall, sym; hex values */
	r = hist_reader_create(ev, 1, &err);
	T_ASSERT(r != NULL);
	while (r && (e = hist_reader_next(r))) {
		T_EQ(e->keys[0].kind, HIST_KEY_EXECNAME);
		T_EQ(e->keys[1].kind, HIST_KEY_SYSCALL);
		T_EQ(e->keys[2].kind, HIST_KEY_SYM);
		T_EQ(e->vals[1].flags, HIST_VAL_HEX);
		if (e->keys[1].value == 42) {
			T_STREQ(e->keys[1].str, "unknown_syscall");
			T_STREQ(e->keys[2].str, "0x10");	/* unresolved */
			T_STREQ(e->keys[2].text, "[10] 0x10");
		} else if (e->keys[0].value == 7) {
			T_STREQ(e->keys[0].str, "task-7");
			T_STREQ(e->keys[0].text, "task-7 [ 7]");
			T_STREQ(e->keys[1].str, "sys_write");
			T_STREQ(e->keys[2].str, "fn_2000");
			T_EQU(e->vals[1].value, 300);
		}
	}
	hist_reader_destroy(r);

	/* 3: buckets and graph bars */
	r = hist_reader_create(ev, 2, &err);
	T_ASSERT(r != NULL);
	e = r ? hist_reader_next(r) : NULL;
	T_ASSERT(e != NULL);
	if (e) {
		T_EQ(e->keys[0].kind, HIST_KEY_BUCKET);
		T_EQU(e->keys[0].width, 100);
		T_EQ(e->keys[1].kind, HIST_KEY_HEX);
		T_EQ(e->vals[1].flags, HIST_VAL_GRAPH);
		/* graph: percent of the column's maximum (700) */
		T_EQ(e->vals[1].percent, e->vals[1].value * 10000 / 700);
	}
	hist_reader_destroy(r);

	/* no such trigger */
	T_ASSERT(hist_reader_create(ev, 3, &err) == NULL);
	T_EQ(err, -HIST_ENOENT);
	T_ASSERT(hist_reader_create(NULL, 0, &err) == NULL);
	T_EQ(err, -HIST_ENOENT);
	hist_ctx_destroy(ctx);
}

static void test_vars_and_tracks(void)
{
	hist_event *a, *b;
	hist_ctx *ctx = new_ctx(&a, &b);
	const struct hist_read_entry *e;
	hist_reader *r;
	int err, seen = 0;

	/* a: per pid, the time of the last 'a'; b: the latency since, its
	 * maximum per pid with the comm and bytes of that hit saved */
	T_EQ(hist_trigger_parse(a, "hist:keys=common_pid:ts0=common_timestamp:"
				"who=comm", NULL), 0);
	T_EQ(hist_trigger_parse(b, "hist:keys=common_pid:lat=common_timestamp-$ts0:"
				"onmax($lat).save(comm,bytes)", NULL), 0);
	hit(a, 5, "x", 0, 0, 0, 0, 100);
	hit(b, 5, "y", 11, 0, 0, 0, 130);	/* lat 30 */
	hit(a, 5, "x", 0, 0, 0, 0, 200);
	hit(b, 5, "z", 22, 0, 0, 0, 210);	/* lat 10: not a max */
	hit(a, 6, "w", 0, 0, 0, 0, 300);	/* 6 has no b yet */

	r = hist_reader_create(a, 0, &err);
	while (r && (e = hist_reader_next(r))) {
		T_EQ(e->nr_vars, 2);
		T_STREQ(e->vars[0].name, "ts0");
		T_STREQ(e->vars[1].name, "who");
		T_EQ(e->vars[1].is_string, 1);
		T_EQ(e->vars[1].set, 1);
		if (e->keys[0].value == 5) {
			/* b's $ts0 at 210 consumed it (an expression operand
			 * reads a variable once, as in the kernel) */
			T_EQ(e->vars[0].set, 0);
			T_STREQ(e->vars[1].str, "x");
			seen++;
		} else {
			T_EQ(e->vars[0].set, 1);
			T_EQU(e->vars[0].value, 300);
			T_STREQ(e->vars[1].str, "w");
		}
	}
	hist_reader_destroy(r);
	r = hist_reader_create(b, 0, &err);
	while (r && (e = hist_reader_next(r))) {
		T_EQ(e->nr_tracks, 1);
		T_EQ(e->tracks[0].handler, HIST_TRACK_ONMAX);
		T_STREQ(e->tracks[0].var, "$lat");
		T_EQU(e->tracks[0].value, 30);
		T_EQ(e->tracks[0].nr_saved, 2);
		if (e->tracks[0].nr_saved == 2) {
			T_STREQ(e->tracks[0].saved[0].name, "comm");
			T_STREQ(e->tracks[0].saved[0].str, "y");
			T_STREQ(e->tracks[0].saved[1].name, "bytes");
			T_EQU(e->tracks[0].saved[1].value, 11);
			T_EQ(e->tracks[0].saved[1].is_string, 0);
		}
		seen++;
	}
	hist_reader_destroy(r);
	T_EQ(seen, 2);
	/* what a later hit of b reads: unset, so no new max */
	hit(b, 5, "v", 33, 0, 0, 0, 5000);
	r = hist_reader_create(b, 0, &err);
	e = r ? hist_reader_next(r) : NULL;
	T_ASSERT(e && e->tracks[0].value == 30);
	hist_reader_destroy(r);
	hist_ctx_destroy(ctx);
}

static void test_empty_and_paused(void)
{
	hist_event *ev;
	hist_ctx *ctx = new_ctx(&ev, NULL);
	hist_reader *r;
	int err;

	T_EQ(hist_event_nr_hists(ev), 0);
	T_EQ(hist_trigger_parse(ev, "traceon", NULL), 0);	/* not a hist */
	T_ASSERT(hist_reader_create(ev, 0, &err) == NULL);
	T_EQ(hist_trigger_parse(ev, "hist:keys=stacktrace:pause", NULL), 0);
	T_EQ(hist_event_nr_hists(ev), 1);
	r = hist_reader_create(ev, 0, &err);
	T_ASSERT(r != NULL);
	if (r) {
		T_EQ(hist_reader_info(r)->paused, 1);
		T_EQU(hist_reader_info(r)->entries, 0);
		T_EQ(hist_reader_info(r)->key_fields[0].kind, HIST_KEY_STACKTRACE);
		/* latest spells the key as 6.12 does (g18 in cases-6.12) */
		T_STREQ(hist_reader_info(r)->key_fields[0].name, "common_stacktrace");
		T_ASSERT(hist_reader_next(r) == NULL);
	}
	hist_reader_destroy(r);
	hist_reader_destroy(NULL);
	hist_ctx_destroy(ctx);
}

/* ---- allocation failure ------------------------------------------------- */

static int fail_after = -1;

static void *fail_alloc(void *data, size_t size)
{
	(void)data;
	if (fail_after == 0)
		return NULL;
	if (fail_after > 0)
		fail_after--;
	return calloc(1, size);
}

static void fail_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static void test_alloc_failure(void)
{
	static const struct hist_allocator a = { fail_alloc, fail_free, NULL };
	hist_event *ev;
	hist_ctx *ctx;
	int n, err, ok = 0, failed = 0;

	hist_set_allocator(&a);
	ctx = new_ctx(&ev, NULL);
	T_EQ(hist_trigger_parse(ev, "hist:keys=comm:vals=bytes", NULL), 0);
	hit(ev, 1, "a", 1, 0, 0, 0, 1);
	for (n = 0; n < 8; n++) {
		hist_reader *r;

		fail_after = n;
		r = hist_reader_create(ev, 0, &err);
		fail_after = -1;
		if (r) {
			ok++;
			T_ASSERT(hist_reader_next(r) != NULL);
			hist_reader_destroy(r);
		} else {
			failed++;
			T_EQ(err, -HIST_ENOMEM);
		}
	}
	T_ASSERT(ok && failed);
	hist_ctx_destroy(ctx);
	hist_set_allocator(NULL);
}

/* ---- JSON --------------------------------------------------------------- */

static int have_python(void)
{
	return system("python3 -c 'import json' >/dev/null 2>&1") == 0;
}

/* Run test/json_check.py on PATH with ARGS; its exit status. */
static int json_check(const char *path, const char *args)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd), "python3 test/json_check.py %s %s", args, path);
	fflush(stdout);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int file_write(void *arg, const char *s, size_t n)
{
	return fwrite(s, 1, n, arg) == n ? 0 : -1;
}

static void test_json_writer(void)
{
	hist_event *a, *b;
	hist_ctx *ctx = new_ctx(&a, &b);
	char path[512];
	FILE *f;

	T_EQ(hist_trigger_parse(a, "hist:keys=comm,delta:vals=hitcount,bytes.percent", NULL), 0);
	T_EQ(hist_trigger_parse(a, "hist:keys=bytes.log2:vals=addr.graph,nr.hex:"
				"ts0=common_timestamp", NULL), 0);
	T_EQ(hist_trigger_parse(b, "hist:keys=common_pid.execname:lat=common_timestamp-$ts0:"
				"onmax($lat).save(comm,bytes)", NULL), 0);
	T_EQ(hist_trigger_parse(b, "hist:keys=stacktrace,addr.sym-offset", NULL), 0);
	/* text that is not UTF-8, quotes, control characters */
	hit(a, 3, "q\"u\\o\te\xff\xc3\xa9", 5, 0x5000, -1, 7, 1);
	hit(a, 3, "plain", 0, 0, 2, 1, 2);
	hit(b, 3, "b", 1, 0x4000, 0, 0, 9);
	snprintf(path, sizeof(path), "%s/a.json", tmpdir);
	f = fopen(path, "w");
	T_ASSERT(f != NULL);
	if (!f)
		return;
	fputs("{ \"events\": [ { \"system\": \"t\", \"event\": \"a\", \"histograms\": ", f);
	T_EQ(hist_event_print_json(a, file_write, f), 0);
	fputs(" }, { \"system\": \"t\", \"event\": \"b\", \"histograms\": ", f);
	T_EQ(hist_event_print_json(b, file_write, f), 0);
	fputs(" } ] }\n", f);
	fclose(f);
	if (!have_python()) {
		printf("# SKIP JSON parser checks: python3 is not installed\n");
		hist_ctx_destroy(ctx);
		return;
	}
	/* the schema, and facts of this data (json_check.py --expect) */
	T_EQ(json_check(path, "--expect-comm-hex 7122755c6f0965c3bfc3a9 "
			      "--expect-entries 2,2,1,1"), 0);
	hist_ctx_destroy(ctx);
}

/* hist-replay --json over a recording with every feature, parsed. */
static void test_json_replay(void)
{
	char cmd[2048], out[512];
	int st;

	if (!have_python()) {
		printf("# SKIP hist-replay --json parser check: no python3\n");
		return;
	}
	snprintf(out, sizeof(out), "%s/replay.json", tmpdir);
	snprintf(cmd, sizeof(cmd), "%s/hist-replay --json "
		 "-t 'raw_syscalls/sys_enter hist:keys=common_pid.execname,id.syscall:"
		 "vals=hitcount:sort=hitcount.descending' "
		 "-t 'sched/sched_process_exec hist:keys=stacktrace' "
		 CASES "/g18-stacktrace-key/trace.dat > %s", getenv("HIST_BUILD"), out);
	st = system(cmd);
	T_EQ(st, 0);
	T_EQ(json_check(out, "--replay --expect-hits 13 --expect-entries 0,1 "
			     "--expect-kind stacktrace"), 0);
}

int main(int argc, char **argv)
{
	char build[512];

	/* BUILD/test/test_iter -> BUILD, for hist-replay */
	t_build_dir(build, sizeof(build), argv[0]);
	setenv("HIST_BUILD", build, 1);
	(void)argc;
	if (t_scratch(tmpdir, sizeof(tmpdir), "test_iter"))
		return 1;
	T_RUN(test_conformance_sweep);
	T_RUN(test_typed_keys);
	T_RUN(test_vars_and_tracks);
	T_RUN(test_empty_and_paused);
	T_RUN(test_alloc_failure);
	T_RUN(test_json_writer);
	T_RUN(test_json_replay);
	t_scratch_remove(tmpdir);
	return T_DONE();
}
