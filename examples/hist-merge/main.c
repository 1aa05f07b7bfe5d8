/* SPDX-License-Identifier: MIT */
/*
 * hist-merge FILE.json...: the histograms of the same triggers from
 * several runs or machines (the JSON of hist-replay --json and hist-live
 * --json) merged into one, printed as the kernel prints the hist files.
 * The merging is libhist's (hist_merge_*, see hist-merge.1); this file
 * reads the JSON back into the reader's structures.
 *
 * The JSON reader is small and strict: a document that is not JSON, or
 * not of that schema, is refused with its file and byte offset.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libhist.h"
#include "../common/json.h"

#define PROG "hist-merge"

static const char usage_text[] =
	"usage: " PROG " [--json] FILE.json...\n"
	"\n"
	"Merge the histograms of hist-replay --json / hist-live --json documents\n"
	"(the same triggers, from several runs or machines) and print them as\n"
	"the kernel prints each event's hist file: sums added, entries sorted,\n"
	".percent/.graph and Totals recomputed, onmax() by the larger max,\n"
	"onchange() by the later file.  Histograms are matched by event and\n"
	"position; different triggers are refused.  Variables keep the value of\n"
	"the last file that set them.\n"
	"\n"
	"  --json   print the merged histograms as the same kind of JSON\n"
	"           document (which hist-merge reads again)\n"
	"\n"
	"Exit status: 0 success; 1 different triggers; 2 bad usage, an\n"
	"unreadable or malformed file, or an output error.\n";

/* ---- JSON ----------------------------------------------------------------- */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	char *s;		/* J_STR text, J_NUM literal, J_BOOL "true"/"false" */
	struct jv **v;		/* J_ARR items, J_OBJ values */
	char **k;		/* J_OBJ keys */
	size_t n;
};

struct jp {
	const char *p, *start, *file;
	char err[256];
};

static void jfree(struct jv *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		jfree(v->v[i]);
		if (v->k)
			free(v->k[i]);
	}
	free(v->v);
	free(v->k);
	free(v->s);
	free(v);
}

/* Out of memory ends the tool (exit status 2): callers get memory. */
static void *got(void *p)
{
	if (!p) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(2);
	}
	return p;
}

static void *xcalloc(size_t n, size_t sz)
{
	return got(calloc(n ? n : 1, sz));
}

static void *xrealloc(void *p, size_t sz)
{
	return got(realloc(p, sz));
}

static void jerr(struct jp *j, const char *what)
{
	if (!j->err[0])
		snprintf(j->err, sizeof(j->err), "%s: byte %zu: %s", j->file,
			 (size_t)(j->p - j->start), what);
}

static void ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')
		j->p++;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A string at j->p (after the quote); \u00XX gives the byte XX (how
 * libhist writes bytes that are not UTF-8), other escapes as JSON's. */
static char *jstring(struct jp *j)
{
	size_t cap = 64, n = 0;
	char *s = xcalloc(cap, 1);

	for (;;) {
		char c = *j->p++;

		if (n + 8 >= cap) {
			cap *= 2;
			s = xrealloc(s, cap);
		}
		if (!c || (unsigned char)c < 0x20) {
			j->p--;
			jerr(j, "unterminated string");
			free(s);
			return NULL;
		}
		if (c == '"')
			break;
		if (c != '\\') {
			s[n++] = c;
			continue;
		}
		c = *j->p++;
		switch (c) {
		case 'n': s[n++] = '\n'; break;
		case 't': s[n++] = '\t'; break;
		case 'r': s[n++] = '\r'; break;
		case 'b': s[n++] = '\b'; break;
		case 'f': s[n++] = '\f'; break;
		case '"': case '\\': case '/': s[n++] = c; break;
		case 'u': {
			int a = hexval(j->p[0]), b = hexval(j->p[1]), d = hexval(j->p[2]),
			    e = hexval(j->p[3]);
			unsigned cp;

			if (a < 0 || b < 0 || d < 0 || e < 0) {
				jerr(j, "bad \\u escape");
				free(s);
				return NULL;
			}
			cp = (unsigned)(a << 12 | b << 8 | d << 4 | e);
			j->p += 4;
			if (cp < 0x100) {
				s[n++] = (char)cp;
			} else if (cp < 0x800) {
				s[n++] = (char)(0xc0 | cp >> 6);
				s[n++] = (char)(0x80 | (cp & 0x3f));
			} else {
				s[n++] = (char)(0xe0 | cp >> 12);
				s[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				s[n++] = (char)(0x80 | (cp & 0x3f));
			}
			break;
		}
		default:
			j->p--;
			jerr(j, "bad escape");
			free(s);
			return NULL;
		}
	}
	s[n] = 0;
	return s;
}

static struct jv *jvalue(struct jp *j, int depth)
{
	struct jv *v;
	size_t cap = 0;

	ws(j);
	if (depth > 64) {
		jerr(j, "nested too deeply");
		return NULL;
	}
	v = xcalloc(1, sizeof(*v));
	if (*j->p == '{' || *j->p == '[') {
		char close = *j->p == '{' ? '}' : ']';

		v->t = close == '}' ? J_OBJ : J_ARR;
		j->p++;
		ws(j);
		if (*j->p == close) {
			j->p++;
			return v;
		}
		for (;;) {
			if (v->n == cap) {
				cap = cap ? cap * 2 : 8;
				v->v = xrealloc(v->v, cap * sizeof(*v->v));
				if (v->t == J_OBJ)
					v->k = xrealloc(v->k, cap * sizeof(*v->k));
			}
			if (v->t == J_OBJ) {
				ws(j);
				if (*j->p != '"') {
					jerr(j, "expected a member name");
					goto bad;
				}
				j->p++;
				v->k[v->n] = jstring(j);
				if (!v->k[v->n])
					goto bad;
				ws(j);
				if (*j->p != ':') {
					free(v->k[v->n]);
					jerr(j, "expected ':'");
					goto bad;
				}
				j->p++;
			}
			v->v[v->n] = jvalue(j, depth + 1);
			if (!v->v[v->n]) {
				if (v->k)
					free(v->k[v->n]);
				goto bad;
			}
			v->n++;
			ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p == close) {
				j->p++;
				return v;
			}
			jerr(j, "expected ',' or the end of the list");
			goto bad;
		}
	}
	if (*j->p == '"') {
		j->p++;
		v->t = J_STR;
		v->s = jstring(j);
		if (!v->s)
			goto bad;
		return v;
	}
	if (!strncmp(j->p, "null", 4)) {
		j->p += 4;
		return v;
	}
	if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
		v->t = J_BOOL;
		v->s = got(strdup(*j->p == 't' ? "true" : "false"));
		j->p += *j->p == 't' ? 4 : 5;
		return v;
	}
	if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
		const char *b = j->p;

		j->p++;
		while ((*j->p >= '0' && *j->p <= '9') || *j->p == '.' || *j->p == 'e' ||
		       *j->p == 'E' || *j->p == '+' || *j->p == '-')
			j->p++;
		v->t = J_NUM;
		v->s = got(strndup(b, (size_t)(j->p - b)));
		return v;
	}
	jerr(j, "expected a value");
bad:
	jfree(v);
	return NULL;
}

static struct jv *get(const struct jv *o, const char *key)
{
	size_t i;

	if (!o || o->t != J_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->k[i], key))
			return o->v[i];
	return NULL;
}

static const char *gets_(const struct jv *o, const char *key)
{
	struct jv *v = get(o, key);

	return v && v->t == J_STR ? v->s : NULL;
}

/* A number member as u64 (negative: two's complement, as libhist keeps
 * signed keys); false if missing. */
static bool getu(const struct jv *o, const char *key, uint64_t *out)
{
	struct jv *v = get(o, key);
	char *end;

	if (!v || v->t != J_NUM)
		return false;
	errno = 0;
	if (v->s[0] == '-')
		*out = (uint64_t)strtoll(v->s, &end, 10);
	else
		*out = strtoull(v->s, &end, 10);
	return !errno && !*end;
}

/* A boolean member that is true. */
static bool get_true(const struct jv *o, const char *key)
{
	struct jv *v = get(o, key);

	return v && v->t == J_BOOL && !strcmp(v->s, "true");
}

/* ---- documents -------------------------------------------------------------- */

struct input {
	const char *file;
	struct jv *doc;
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, r;
	char *s;

	if (!f)
		return NULL;
	s = xcalloc(cap, 1);
	while ((r = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			cap *= 2;
			s = xrealloc(s, cap);
		}
	}
	if (ferror(f)) {
		fclose(f);
		free(s);
		return NULL;
	}
	fclose(f);
	s[n] = 0;
	*len = n;
	return s;
}

/* The events array of a document: {"events": [...]} (hist-replay,
 * hist-live). */
static struct jv *events_of(const struct input *in)
{
	struct jv *e = get(in->doc, "events");

	return e && e->t == J_ARR ? e : NULL;
}

static struct jv *find_event(const struct input *in, const char *sys, const char *name)
{
	struct jv *evs = events_of(in);
	size_t i;

	for (i = 0; evs && i < evs->n; i++) {
		const char *s = gets_(evs->v[i], "system"), *n = gets_(evs->v[i], "event");

		if (s && n && !strcmp(s, sys) && !strcmp(n, name))
			return evs->v[i];
	}
	return NULL;
}

/* 1 if a later file has hist triggers on an event the first file lacks
 * (the loop below walks the first file's events only: they would be left
 * out without a word). */
static int extra_events(const struct input *in, size_t nin)
{
	size_t i, j;

	for (i = 1; i < nin; i++) {
		const struct jv *evs = events_of(&in[i]);

		for (j = 0; j < evs->n; j++) {
			const char *sys = gets_(evs->v[j], "system");
			const char *name = gets_(evs->v[j], "event");
			const struct jv *hs = get(evs->v[j], "histograms");

			if (!sys || !name || !hs || hs->t != J_ARR || !hs->n ||
			    find_event(&in[0], sys, name))
				continue;
			fprintf(stderr, PROG ": %s: %s/%s has %zu hist triggers, %s "
				"has 0: different triggers\n", in[i].file, sys, name,
				hs->n, in[0].file);
			return 1;
		}
	}
	return 0;
}

/* json.c's names of enum hist_key_kind, in its order */
static const char *const kind_names[] = {
	"number", "hex", "sym", "execname", "syscall", "log2", "buckets", "string", "stacktrace",
};

static int kind_of(const char *s)
{
	uint32_t i;

	for (i = 0; s && i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(kind_names[i], s))
			return (int)i;
	return -1;
}

/* Storage of one histogram rebuilt as read-out structures. */
struct rebuilt {
	struct hist_read_info info;
	struct hist_read_key kf[8];
	struct hist_read_val vf[8];
	struct hist_read_snapshot snap;
	struct hist_read_key snap_keys[8];
	struct hist_read_entry *e;
	size_t n;
	/* everything allocated, freed at once */
	void **mem;
	size_t nmem, capmem;
};

static void *keep(struct rebuilt *rb, void *p)
{
	if (rb->nmem == rb->capmem) {
		rb->capmem = rb->capmem ? rb->capmem * 2 : 256;
		rb->mem = xrealloc(rb->mem, rb->capmem * sizeof(*rb->mem));
	}
	rb->mem[rb->nmem++] = p;
	return p;
}

static void rebuilt_free(struct rebuilt *rb)
{
	size_t i;

	for (i = 0; i < rb->nmem; i++)
		free(rb->mem[i]);
	free(rb->mem);
	memset(rb, 0, sizeof(*rb));
}

/* The name part of an execname/syscall text "bash [ 124]" or of a sym
 * text "[ffffffff81000000] kmalloc+0x1/0x2". */
static char *name_part(struct rebuilt *rb, const char *text, uint32_t kind)
{
	const char *b = text, *e = text + strlen(text);

	if (kind == HIST_KEY_SYM) {
		const char *p = strstr(text, "] ");

		b = p ? p + 2 : text;
	} else {
		const char *p = strrchr(text, '[');

		if (p)
			e = p;
		while (e > b && e[-1] == ' ')
			e--;
	}
	return keep(rb, got(strndup(b, (size_t)(e - b))));
}

static int fill_key(struct rebuilt *rb, struct hist_read_key *k, const struct jv *o,
		    const struct hist_read_key *col, const char *file)
{
	const char *text = gets_(o, "text");
	struct jv *frames = get(o, "frames");
	size_t i;

	k->name = col->name;
	k->kind = col->kind;
	k->is_signed = col->is_signed;
	k->width = col->width;
	if (col->kind == HIST_KEY_STACKTRACE) {
		uint64_t *addr;
		const char **ft;

		if (!frames || frames->t != J_ARR)
			goto bad;
		addr = keep(rb, xcalloc(frames->n, sizeof(*addr)));
		ft = keep(rb, xcalloc(frames->n, sizeof(*ft)));
		for (i = 0; i < frames->n; i++) {
			if (!getu(frames->v[i], "addr", &addr[i]) ||
			    !(ft[i] = gets_(frames->v[i], "text")))
				goto bad;
		}
		k->frames = addr;
		k->frame_text = ft;
		k->nr_frames = (uint32_t)frames->n;
		return 0;
	}
	if (col->kind == HIST_KEY_STRING) {
		k->str = gets_(o, "value");
		if (!k->str)
			goto bad;
		return 0;
	}
	if (!getu(o, "value", &k->value) || !text)
		goto bad;
	if (col->kind == HIST_KEY_SYM || col->kind == HIST_KEY_EXECNAME ||
	    col->kind == HIST_KEY_SYSCALL)
		k->str = name_part(rb, text, col->kind);
	return 0;
bad:
	fprintf(stderr, PROG ": %s: a key of column %s is malformed\n", file, col->name);
	return -1;
}

static uint32_t handler_of(const char *s)
{
	return s && !strcmp(s, "onmax") ? HIST_TRACK_ONMAX : HIST_TRACK_ONCHANGE;
}

/* A saved field or variable: number, string or null. */
static void fill_var(struct hist_read_var *v, const struct jv *o)
{
	struct jv *val = get(o, "value");

	v->name = gets_(o, "name");
	v->set = val && val->t != J_NULL;
	v->is_string = val && val->t == J_STR;
	v->str = v->is_string ? val->s : NULL;
	if (val && val->t == J_NUM)
		getu(o, "value", &v->value);
}

static int rebuild(struct rebuilt *rb, const struct jv *h, const char *file)
{
	struct jv *kf = get(h, "key_fields"), *entries = get(h, "entries"),
		  *totals = get(h, "totals"), *snap;
	size_t i, j, t;

	memset(rb, 0, sizeof(*rb));
	rb->info.trigger = gets_(h, "trigger");
	rb->info.name = gets_(h, "name");
	rb->info.paused = get_true(h, "paused");
	if (!rb->info.trigger || !kf || kf->t != J_ARR || kf->n > 8 || !entries ||
	    entries->t != J_ARR || !totals || !getu(totals, "hits", &rb->info.hits) ||
	    !getu(totals, "dropped", &rb->info.dropped)) {
		fprintf(stderr, PROG ": %s: a histogram without trigger, key_fields, "
			"entries or totals\n", file);
		return -1;
	}
	getu(totals, "entries", &rb->info.entries);
	for (i = 0; i < kf->n; i++) {
		int kind = kind_of(gets_(kf->v[i], "kind"));

		rb->kf[i].name = gets_(kf->v[i], "name");
		if (kind < 0 || !rb->kf[i].name) {
			fprintf(stderr, PROG ": %s: a key column without name or kind\n", file);
			return -1;
		}
		rb->kf[i].kind = (uint32_t)kind;
		getu(kf->v[i], "width", &rb->kf[i].width);
		rb->kf[i].is_signed = get_true(kf->v[i], "signed");
	}
	rb->info.key_fields = rb->kf;
	rb->info.nr_key_fields = (uint32_t)kf->n;
	rb->e = keep(rb, xcalloc(entries->n, sizeof(*rb->e)));
	rb->n = entries->n;
	for (i = 0; i < entries->n; i++) {
		const struct jv *e = entries->v[i];
		struct jv *keys = get(e, "keys"), *vals = get(e, "values"),
			  *tracks = get(e, "tracks"), *vars = get(e, "vars");
		struct hist_read_key *k;
		struct hist_read_val *v;

		if (!keys || keys->t != J_ARR || keys->n != kf->n || !vals ||
		    vals->t != J_ARR || vals->n > 8) {
			fprintf(stderr, PROG ": %s: entry %zu is malformed\n", file, i);
			return -1;
		}
		k = keep(rb, xcalloc(keys->n, sizeof(*k)));
		v = keep(rb, xcalloc(vals->n, sizeof(*v)));
		for (j = 0; j < keys->n; j++) {
			/* signedness shows in the numbers: a negative one */
			struct jv *num = get(keys->v[j], "value");

			if (num && num->t == J_NUM && num->s[0] == '-')
				rb->kf[j].is_signed = 1;
			if (fill_key(rb, &k[j], keys->v[j], &rb->kf[j], file))
				return -1;
		}
		for (j = 0; j < vals->n; j++) {
			const char *name = gets_(vals->v[j], "name");
			char *nm;
			size_t len;

			if (!name || !getu(vals->v[j], "value", &v[j].value)) {
				fprintf(stderr, PROG ": %s: entry %zu: a malformed value\n", file, i);
				return -1;
			}
			len = strlen(name);
			if (len > 4 && !strcmp(name + len - 4, " (%)")) {
				nm = keep(rb, got(strndup(name, len - 4)));
				v[j].flags |= HIST_VAL_PERCENT;
			} else {
				nm = (char *)name;
			}
			if (get(vals->v[j], "graph"))
				v[j].flags |= HIST_VAL_GRAPH;
			v[j].name = nm;
			if (i == 0) {
				rb->vf[j].name = nm;
				rb->vf[j].flags = v[j].flags;
			}
		}
		rb->e[i].keys = k;
		rb->e[i].nr_keys = (uint32_t)keys->n;
		rb->e[i].vals = v;
		rb->e[i].nr_vals = (uint32_t)vals->n;
		rb->e[i].index = (uint32_t)i;
		if (i == 0)
			rb->info.nr_val_fields = (uint32_t)vals->n;
		if (vars && vars->t == J_ARR && vars->n) {
			struct hist_read_var *vv = keep(rb, xcalloc(vars->n, sizeof(*vv)));

			for (j = 0; j < vars->n; j++) {
				fill_var(&vv[j], vars->v[j]);
				if (!vv[j].name) {
					fprintf(stderr, PROG ": %s: entry %zu: a variable without "
						"a name\n", file, i);
					return -1;
				}
			}
			rb->e[i].vars = vv;
			rb->e[i].nr_vars = (uint32_t)vars->n;
		}
		if (tracks && tracks->t == J_ARR && tracks->n) {
			struct hist_read_track *tr = keep(rb, xcalloc(tracks->n, sizeof(*tr)));

			for (t = 0; t < tracks->n; t++) {
				struct jv *saved = get(tracks->v[t], "saved");

				tr[t].handler = handler_of(gets_(tracks->v[t], "handler"));
				tr[t].var = gets_(tracks->v[t], "var");
				getu(tracks->v[t], "value", &tr[t].value);
				if (saved && saved->t == J_ARR && saved->n) {
					struct hist_read_var *sv =
						keep(rb, xcalloc(saved->n, sizeof(*sv)));

					for (j = 0; j < saved->n; j++)
						fill_var(&sv[j], saved->v[j]);
					tr[t].saved = sv;
					tr[t].nr_saved = (uint32_t)saved->n;
				}
			}
			rb->e[i].tracks = tr;
			rb->e[i].nr_tracks = (uint32_t)tracks->n;
		}
	}
	/* a histogram without entries: its value columns from the trigger */
	if (!entries->n) {
		rb->vf[0].name = "hitcount";
		rb->info.nr_val_fields = strstr(rb->info.trigger, "nohitcount") ? 0 : 1;
	}
	rb->info.val_fields = rb->vf;
	snap = get(h, "snapshot");
	if (snap) {
		struct jv *keys = get(snap, "keys");
		const char *hd = gets_(snap, "handler");

		if (!keys || keys->t != J_ARR || keys->n != kf->n || !hd ||
		    !getu(snap, "value", &rb->snap.value)) {
			fprintf(stderr, PROG ": %s: a malformed snapshot block\n", file);
			return -1;
		}
		for (j = 0; j < keys->n; j++)
			if (fill_key(rb, &rb->snap_keys[j], keys->v[j], &rb->kf[j], file))
				return -1;
		rb->snap.handler = handler_of(hd);
		rb->snap.var = gets_(snap, "var");
		rb->snap.keys = rb->snap_keys;
		rb->snap.nr_keys = (uint32_t)keys->n;
		rb->info.snapshot = &rb->snap;
	}
	return 0;
}

static int out(void *arg, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

/* Merge histogram H_INDEX of event EV (from the first file) across all
 * inputs and print it.  Returns 0, 1 (different triggers) or 2. */
static int merge_one(struct input *in, size_t nin, const char *sys, const char *name,
		     size_t h_index, bool first_section, bool json)
{
	hist_merge *m;
	size_t f;
	int err, ret = 0;

	m = hist_merge_create(&err);
	if (!m) {
		fprintf(stderr, PROG ": out of memory\n");
		return 2;
	}
	for (f = 0; f < nin && !ret; f++) {
		struct jv *ev = find_event(&in[f], sys, name), *hs = get(ev, "histograms");
		struct rebuilt rb;

		if (!hs || hs->t != J_ARR || hs->n <= h_index) {
			fprintf(stderr, PROG ": %s: no histogram %zu of %s/%s: the runs "
				"had different triggers\n", in[f].file, h_index, sys, name);
			ret = 1;
			break;
		}
		if (rebuild(&rb, hs->v[h_index], in[f].file)) {
			rebuilt_free(&rb);
			ret = 2;
			break;
		}
		err = hist_merge_add(m, &rb.info, rb.e, rb.n);
		if (err == -HIST_EINVAL) {
			fprintf(stderr, PROG ": %s: %s/%s histogram %zu is a different "
				"trigger:\n  %s\n  (%s has: %s)\n", in[f].file, sys, name,
				h_index, rb.info.trigger, in[0].file,
				gets_(get(find_event(&in[0], sys, name), "histograms")->v[h_index],
				      "trigger"));
			ret = 1;
		} else if (err) {
			fprintf(stderr, PROG ": %s: merging failed (%d)\n", in[f].file, err);
			ret = 2;
		}
		rebuilt_free(&rb);
	}
	if (!ret) {
		if (!first_section)
			fputs(json ? ",\n  " : "\n\n", stdout);
		else if (json)
			fputs("\n  ", stdout);
		if ((json ? hist_merge_print_json : hist_merge_print)(m, out, stdout))
			ret = 2;
	}
	hist_merge_destroy(m);
	return ret;
}

int main(int argc, char **argv)
{
	struct input *in;
	struct jv *evs;
	size_t nin, i, j;
	bool json = false;
	int ret = 0;

	if (argc > 1 && !strcmp(argv[1], "--json")) {
		json = true;
		argv++;
		argc--;
	}
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	nin = (size_t)argc - 1;
	in = xcalloc(nin, sizeof(*in));
	for (i = 0; i < nin; i++) {
		struct jp jp = { 0 };
		bool hist_file;
		size_t len;
		char *text = slurp(argv[i + 1], &len);

		in[i].file = argv[i + 1];
		if (!text) {
			fprintf(stderr, PROG ": %s: %s\n", argv[i + 1], strerror(errno));
			ret = 2;
			goto out;
		}
		jp.p = jp.start = text;
		jp.file = argv[i + 1];
		in[i].doc = jvalue(&jp, 0);
		if (in[i].doc) {
			ws(&jp);
			if (*jp.p || (size_t)(jp.p - text) != len)
				jerr(&jp, "text after the document");
		}
		/* a hist file given as is fails on its first byte: say what to
		 * give instead */
		jp.p = text;
		ws(&jp);
		hist_file = *jp.p == '#';
		free(text);
		if (jp.err[0] || !events_of(&in[i])) {
			if (jp.err[0])
				fprintf(stderr, PROG ": %s", jp.err);
			else
				fprintf(stderr, PROG ": %s: not a hist-replay/hist-live "
					"JSON document (no \"events\")", in[i].file);
			fputs(hist_file ? " (give the output of hist-replay --json or "
			      "hist-live --json, not a hist file)\n" : "\n", stderr);
			ret = 2;
			goto out;
		}
	}
	/* every event and histogram of the first file, in its order; the
	 * others must have the same */
	evs = events_of(&in[0]);
	ret = extra_events(in, nin);
	if (json && !ret)
		printf("{\n  \"libhist\": \"%s\",\n  \"events\": [", hist_version());
	for (i = 0; i < evs->n && !ret; i++) {
		const char *sys = gets_(evs->v[i], "system"), *name = gets_(evs->v[i], "event");
		struct jv *hs = get(evs->v[i], "histograms");

		if (!sys || !name || !hs || hs->t != J_ARR) {
			fprintf(stderr, PROG ": %s: event %zu is malformed\n", in[0].file, i);
			ret = 2;
			break;
		}
		for (j = 1; j < nin; j++) {
			struct jv *o = get(find_event(&in[j], sys, name), "histograms");

			if (!o || o->n != hs->n) {
				fprintf(stderr, PROG ": %s: %s/%s has %zu hist triggers, %s "
					"has %zu: different triggers\n", in[j].file, sys,
					name, o ? o->n : 0, in[0].file, hs->n);
				ret = 1;
			}
		}
		if (json && !ret) {
			fputs(i ? ",\n    { \"system\": " : "\n    { \"system\": ", stdout);
			json_put_str(stdout, sys);
			fputs(", \"event\": ", stdout);
			json_put_str(stdout, name);
			fputs(",\n      \"histograms\": [", stdout);
		}
		for (j = 0; j < hs->n && !ret; j++)
			ret = merge_one(in, nin, sys, name, j, j == 0, json);
		if (json && !ret)
			fputs(hs->n ? "\n      ] }" : "] }", stdout);
	}
	if (json && !ret)
		fputs(evs->n ? "\n  ]\n}\n" : "]\n}\n", stdout);
	if (!ret && (fflush(stdout) || ferror(stdout))) {
		fprintf(stderr, PROG ": standard output: %s\n", strerror(errno));
		ret = 2;
	}
out:
	for (i = 0; i < nin; i++)
		jfree(in[i].doc);
	free(in);
	return ret;
}
