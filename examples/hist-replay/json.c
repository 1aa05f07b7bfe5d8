/* SPDX-License-Identifier: MIT */
/*
 * --json: the histograms as one JSON document.
 *
 * For now this parses the kernel-format text that libhist prints; it is
 * kept in this one file so that a structured iterator API can replace the
 * parsing later without touching the rest of the tool.
 *
 * Shape (every histogram of every event that was written to, events
 * sorted by system then name, histograms in the kernel's order):
 *
 *   {
 *     "trace": "TRACE.dat",
 *     "records": 12345,                    records in the recording
 *     "events": [
 *       { "system": "sched", "event": "sched_switch",
 *         "histograms": [
 *           { "trigger": "hist:keys=...:size=2048",   trigger info line
 *             "paused": false,
 *             "entries": [
 *               { "keys": [ { "name": "common_pid", "value": 124,
 *                             "text": "sh [124]" }, ... ],
 *                 "values": [ { "name": "hitcount", "value": 355 }, ... ] },
 *               ...
 *             ],
 *             "lines": [ ... ],           other lines (snapshot block)
 *             "totals": { "hits": 733, "entries": 19, "dropped": 0 } } ] } ],
 *     "error_log": "..."                   the error_log text
 *   }
 *
 * Key "value": the number when the printed key is a number (plain, .hex
 * as a string "0x...", execname/syscall/sym: the number in brackets), else
 * the trimmed text; "text" is the printed key with runs of blanks
 * squeezed.  Stack keys have "frames": [ "func+0x1/0x2", ... ].  Value
 * "value": a number, or a string for .graph bars and .hex values; names of
 * .percent values end in " (%)".  Lines of an onmax()/onchange() block
 * appear as extra values (max, changed, saved fields).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static void jstr(FILE *f, const char *s, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void jcstr(FILE *f, const char *s)
{
	jstr(f, s, strlen(s));
}

/* trim blanks on both ends: [*b, *e) */
static void trim(const char **b, const char **e)
{
	while (*b < *e && isspace((unsigned char)**b))
		(*b)++;
	while (*e > *b && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

static int all_digits(const char *b, const char *e)
{
	const char *p = b;

	if (p < e && *p == '-')
		p++;
	if (p == e)
		return 0;
	for (; p < e; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return 1;
}

static int is_decimal(const char *b, const char *e)
{
	const char *dot = memchr(b, '.', (size_t)(e - b));

	return dot && all_digits(b, dot) && all_digits(dot + 1, e);
}

/* print [b, e) with blank runs squeezed to one space */
static void jsqueezed(FILE *f, const char *b, const char *e)
{
	char *t = malloc((size_t)(e - b) + 1);
	size_t n = 0;
	int sp = 0;

	if (!t) {
		jstr(f, b, (size_t)(e - b));
		return;
	}
	for (; b < e; b++) {
		if (isspace((unsigned char)*b)) {
			sp = 1;
			continue;
		}
		if (sp && n)
			t[n++] = ' ';
		sp = 0;
		t[n++] = *b;
	}
	jstr(f, t, n);
	free(t);
}

static void key_value(FILE *f, const char *b, const char *e)
{
	const char *lb, *rb;

	trim(&b, &e);
	fputs(", \"value\": ", f);
	if (all_digits(b, e)) {
		fwrite(b, 1, (size_t)(e - b), f);
		return;
	}
	/* "comm [pid]" (execname), "sys_read [0]" (syscall) */
	if (e > b && e[-1] == ']' && (lb = memchr(b, '[', (size_t)(e - b)))) {
		const char *nb = lb + 1, *ne = e - 1;

		trim(&nb, &ne);
		if (all_digits(nb, ne)) {
			fwrite(nb, 1, (size_t)(ne - nb), f);
			return;
		}
	}
	/* "[ffffffff81000000] name" (sym, sym-offset) */
	if (e > b && *b == '[' && (rb = memchr(b, ']', (size_t)(e - b)))) {
		fputs("\"0x", f);
		fwrite(b + 1, 1, (size_t)(rb - b - 1), f);
		fputc('"', f);
		return;
	}
	jstr(f, b, (size_t)(e - b));
}

/* The end of a key's text: ", " followed by "word: " or "word.stacktrace". */
static const char *key_end(const char *p, const char *e)
{
	const char *q, *w;

	for (q = p; q + 1 < e; q++) {
		if (q[0] != ',' || q[1] != ' ')
			continue;
		for (w = q + 2; w < e && !isspace((unsigned char)*w) &&
				*w != ':' && *w != ',';
		     w++)
			;
		if (w > q + 2 && w + 1 < e && w[0] == ':' && w[1] == ' ')
			return q;
		if (w - (q + 2) >= 11 && !strncmp(w - 11, ".stacktrace", 11))
			return q;
	}
	return e;
}

/* A stack key's frames, one per line of [s, e). */
static void print_frames(FILE *f, const char *s, const char *e)
{
	int first = 1;

	fputs(", \"frames\": [", f);
	while (s < e) {
		const char *le = memchr(s, '\n', (size_t)(e - s)), *l = s;

		if (!le)
			le = e;
		s = le + (le < e);
		trim(&l, &le);
		if (l < le) {
			fputs(first ? " " : ", ", f);
			jstr(f, l, (size_t)(le - l));
			first = 0;
		}
	}
	fputs(" ]", f);
}

/*
 * Keys: "name: value, name: value" (a value may hold ", ").  Stack keys
 * are "stacktrace:" or "common_stacktrace:" or, for a field with the
 * .stacktrace modifier, "NAME.stacktrace" without a colon, followed by
 * one frame per line; a key after a stack starts its line with ", ".
 */
static void print_keys(FILE *f, const char *b, const char *e)
{
	const char *p, *q, *colon, *vend;
	int first = 1;

	trim(&b, &e);
	fputs("[", f);
	for (p = b; p < e; p = vend < e ? vend + 2 : e) {
		const char *nb = p, *ne, *vb;

		while (p < e && isspace((unsigned char)*p))
			p++;
		nb = p;
		for (q = p; q < e && !isspace((unsigned char)*q) && *q != ':' &&
			    *q != ',';
		     q++)
			;
		fputs(first ? "{ \"name\": " : ", { \"name\": ", f);
		first = 0;
		if (q - p >= 10 && !strncmp(q - 10, "stacktrace", 10)) {
			vb = q < e && *q == ':' ? q + 1 : q;
			vend = key_end(vb, e);
			jstr(f, nb, (size_t)(q - nb));
			print_frames(f, vb, vend);
			fputs(" }", f);
			continue;
		}
		colon = memchr(p, ':', (size_t)(e - p));
		if (!colon)
			colon = e;
		vend = colon < e ? key_end(colon + 1, e) : e;
		ne = colon;
		trim(&nb, &ne);
		jstr(f, nb, (size_t)(ne - nb));
		if (colon < e) {
			key_value(f, colon + 1, vend);
			fputs(", \"text\": ", f);
			vb = colon + 1;
			ne = vend;
			trim(&vb, &ne);
			jsqueezed(f, vb, ne);
		}
		fputs(" }", f);
	}
	fputs("]", f);
}

/*
 * Values after the key: " name: value" items; a name is a run without
 * blanks, ':' or braces that starts the text or follows a blank, maybe
 * followed by " (%)", then ':' and a blank.  Searches [p, e) of the text
 * starting at B; 1 and the name [*nb, *ne) and the value start *after.
 */
static int find_name(const char *b, const char *p, const char *e,
		     const char **nb, const char **ne, const char **after)
{
	for (; p < e; p++) {
		const char *q = p;

		if (p != b && !isspace((unsigned char)p[-1]))
			continue;
		while (q < e && !isspace((unsigned char)*q) && *q != ':' &&
		       *q != '{' && *q != '}')
			q++;
		if (q == p)
			continue;
		*ne = q;
		if (e - q >= 4 && !strncmp(q, " (%)", 4))
			*ne = q += 4;
		if (q + 1 < e && q[0] == ':' && isspace((unsigned char)q[1])) {
			*nb = p;
			*after = q + 1;
			return 1;
		}
	}
	return 0;
}

static void print_values(FILE *f, const char *b, const char *e)
{
	const char *p = b, *nb, *ne, *after, *vb, *ve;
	int first = 1;

	fputs("[", f);
	while (find_name(b, p, e, &nb, &ne, &after)) {
		const char *nnb, *nne, *nafter;

		/* the value runs to the next name */
		ve = e;
		if (find_name(b, after, e, &nnb, &nne, &nafter))
			ve = nnb;
		vb = after;
		p = ve;
		trim(&vb, &ve);
		fputs(first ? "{ \"name\": " : ", { \"name\": ", f);
		first = 0;
		jstr(f, nb, (size_t)(ne - nb));
		fputs(", \"value\": ", f);
		if (all_digits(vb, ve) || is_decimal(vb, ve))
			fwrite(vb, 1, (size_t)(ve - vb), f);
		else
			jstr(f, vb, (size_t)(ve - vb));
		fputs(" }", f);
	}
	fputs("]", f);
}

static const char *line_end(const char *p, const char *e)
{
	const char *n = memchr(p, '\n', (size_t)(e - p));

	return n ? n : e;
}

/* One "# event histogram" section [b, e). */
static void print_section(FILE *f, const char *b, const char *e)
{
	const char *p = b, *le;
	int first_entry = 1, first_line = 1;
	uint64_t hits = 0, entries = 0, dropped = 0;
	int in_totals = 0;

	fputs("{ \"trigger\": ", f);
	for (p = b; p < e; p = le + 1) {
		le = line_end(p, e);
		if (!strncmp(p, "# trigger info: ", 16)) {
			const char *tb = p + 16, *te = le;
			int paused = 0;

			trim(&tb, &te);
			if (te - tb >= 9 && !strncmp(te - 9, " [paused]", 9)) {
				paused = 1;
				te -= 9;
			} else if (te - tb >= 9 && !strncmp(te - 9, " [active]", 9)) {
				te -= 9;
			}
			jstr(f, tb, (size_t)(te - tb));
			fprintf(f, ",\n          \"paused\": %s", paused ? "true" :
							       "false");
			break;
		}
		if (le >= e)
			break;
	}
	fputs(",\n          \"entries\": [", f);
	for (p = b; p < e; p = le + 1) {
		le = line_end(p, e);
		if (*p == '{') {
			/* an entry: "{ keys } values", maybe spanning lines
			 * (stack keys, onmax blocks starting with a TAB) */
			const char *kb = p + 1, *ke, *ee = le;

			while (ee < e && ee + 1 < e &&
			       (ee[1] == ' ' || ee[1] == '\t' || ee[1] == '}' ||
				ee[1] == ','))
				ee = line_end(ee + 1, e);
			ke = memchr(kb, '}', (size_t)(ee - kb));
			if (!ke)
				ke = ee;
			fputs(first_entry ? "\n            { \"keys\": " :
					    ",\n            { \"keys\": ", f);
			first_entry = 0;
			print_keys(f, kb, ke);
			fputs(", \"values\": ", f);
			print_values(f, ke < ee ? ke + 1 : ee, ee);
			fputs(" }", f);
			le = ee;
		} else if (!strncmp(p, "Totals:", 7)) {
			in_totals = 1;
		} else if (in_totals) {
			unsigned long long v;

			if (sscanf(p, " Hits: %llu", &v) == 1)
				hits = v;
			else if (sscanf(p, " Entries: %llu", &v) == 1)
				entries = v;
			else if (sscanf(p, " Dropped: %llu", &v) == 1)
				dropped = v;
		}
		if (le >= e)
			break;
	}
	fputs(first_entry ? "],\n          \"lines\": [" :
			    "\n          ],\n          \"lines\": [", f);
	in_totals = 0;
	for (p = b; p < e; p = le + 1) {
		const char *tb = p, *te;

		le = line_end(p, e);
		te = le;
		if (*p == '{') {
			const char *ee = le;

			while (ee < e && ee + 1 < e &&
			       (ee[1] == ' ' || ee[1] == '\t' || ee[1] == '}' ||
				ee[1] == ','))
				ee = line_end(ee + 1, e);
			le = ee;
		} else if (!strncmp(p, "Totals:", 7)) {
			in_totals = 1;
		} else if (*p != '#' && !in_totals) {
			trim(&tb, &te);
			if (tb < te) {
				fputs(first_line ? " " : ", ", f);
				first_line = 0;
				jstr(f, p, (size_t)(le - p));
			}
		}
		if (le >= e)
			break;
	}
	fprintf(f, " ],\n          \"totals\": { \"hits\": %" PRIu64
		", \"entries\": %" PRIu64 ", \"dropped\": %" PRIu64 " } }",
		hits, entries, dropped);
}

static void print_hist(FILE *f, const char *s, size_t len)
{
	static const char head[] = "# event histogram";
	const char *e = s + len, *p = s, *next;
	int first = 1;

	fputs("[", f);
	p = strstr(s, head);
	while (p && p < e) {
		next = p + 1;
		/* the next section starts at a line with the same header */
		for (;;) {
			next = strstr(next, head);
			if (!next || next[-1] == '\n')
				break;
			next++;
		}
		if (!next)
			next = e;
		fputs(first ? "\n        " : ",\n        ", f);
		first = 0;
		print_section(f, p, next);
		p = next < e ? next : NULL;
	}
	fputs(first ? "]" : "\n      ]", f);
}

int replay_json(FILE *out, const char *trace, uint64_t records,
		const struct replay_out_ev *evs, size_t n, const char *errlog)
{
	struct replay_buf b = { 0 };
	size_t i;
	int rc = 0;

	fputs("{\n  \"trace\": ", out);
	jcstr(out, trace);
	fprintf(out, ",\n  \"records\": %" PRIu64 ",\n  \"events\": [", records);
	for (i = 0; i < n; i++) {
		replay_buf_reset(&b);
		rc = hist_event_print_hist(evs[i].ev, replay_buf_write, &b);
		if (rc) {
			fprintf(stderr, "hist-replay: printing %s/%s failed\n",
				evs[i].system, evs[i].name);
			rc = -1;
			break;
		}
		fputs(i ? ",\n    { \"system\": " : "\n    { \"system\": ", out);
		jcstr(out, evs[i].system);
		fputs(", \"event\": ", out);
		jcstr(out, evs[i].name);
		fputs(",\n      \"histograms\": ", out);
		print_hist(out, b.s ? b.s : "", b.len);
		fputs(" }", out);
	}
	fputs(n ? "\n  ],\n  \"error_log\": " : "],\n  \"error_log\": ", out);
	jcstr(out, errlog);
	fputs("\n}\n", out);
	replay_buf_free(&b);
	return rc;
}
