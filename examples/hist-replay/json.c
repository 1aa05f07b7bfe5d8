/* SPDX-License-Identifier: MIT */
/*
 * --json: the histograms as one JSON document.  Each event's histograms
 * come from libhist's JSON writer (hist_event_print_json(), schema in
 * README.md "JSON"); this file only wraps them:
 *
 *   {
 *     "libhist": "0.1.0",
 *     "trace": "TRACE.dat",
 *     "window": { "index": 0,              --interval only: the window's
 *                 "start": N, "end": N },  raw time stamps, [start, end)
 *     "instance": "",                      the ring buffer replayed ("": top)
 *     "records": 12345,                    records in the recording
 *     "events": [
 *       { "system": "sched", "event": "sched_switch",
 *         "histograms": [ ... ] },          hist_event_print_json()
 *       ...
 *     ],
 *     "error_log": "...",                  the error_log text
 *     "lost": { "total": 15458,            events the kernel lost while
 *               "unknown": 0,              recording (pages that lost an
 *               "cpus": [ { "cpu": 0,      unknown number: "unknown"),
 *                           "events": 15458,  every CPU of the buffer
 *                           "unknown": 0 }, ... ] },
 *     "damage": null                       or the message when the trace
 *   }                                      is damaged (exit status 3)
 *
 * Events are sorted by system then name, as `cat events/ * / * /hist`.
 * With --interval each window's document is one line (NDJSON); its
 * "records" and "lost" count from the start of the recording to the
 * window's end, and "damage" is set from the window where the damage
 * was met on.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static int file_write(void *arg, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

/* Length of the valid UTF-8 sequence at S (N bytes left), or 0: the
 * rules of the library's hist__utf8_len() (src/common/fmt.c), which a
 * tool linked against the shared library cannot call. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/*
 * A JSON string of the texts here (paths, event names, error_log), as
 * libhist writes its own: valid UTF-8 is copied, any other byte is the
 * code point of the same value (\u00XX), so the output is valid JSON and
 * a UTF-8 path reads as itself.
 */
static void jstr(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), k;

	fputc('"', f);
	while (n) {
		unsigned char c = *p;

		k = 1;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, f);
		else if (utf8_len(p, n))
			fwrite(p, 1, k = utf8_len(p, n), f);
		else
			fprintf(f, "\\u%04x", c);
		p += k;
		n -= k;
	}
	fputc('"', f);
}

static void lost_json(FILE *out, struct hist_tracedat *td)
{
	uint32_t cpu, nr = td ? hist_tracedat_nr_cpus(td) : 0;
	uint64_t total = 0, unknown = 0;

	for (cpu = 0; cpu < nr; cpu++) {
		total += hist_tracedat_lost(td, cpu);
		unknown += hist_tracedat_lost_unknown(td, cpu);
	}
	fprintf(out, ",\n  \"lost\": { \"total\": %" PRIu64 ", \"unknown\": %" PRIu64
		", \"cpus\": [", total, unknown);
	for (cpu = 0; cpu < nr; cpu++)
		fprintf(out, "%s{ \"cpu\": %u, \"events\": %" PRIu64 ", \"unknown\": %"
			PRIu64 " }", cpu ? ", " : " ", cpu, hist_tracedat_lost(td, cpu),
			hist_tracedat_lost_unknown(td, cpu));
	fputs(nr ? " ] }" : "] }", out);
}

static int json_doc(FILE *out, const struct replay_doc *doc)
{
	const struct replay_out_ev *evs = doc->evs;
	size_t i, n = doc->n;
	int rc = 0;

	fprintf(out, "{\n  \"libhist\": \"%s\",\n  \"trace\": ", hist_version());
	jstr(out, doc->trace);
	if (doc->window)
		fprintf(out, ",\n  \"window\": { \"index\": %" PRIu64 ", \"start\": %" PRIu64
			", \"end\": %" PRIu64 " }", doc->win_index, doc->win_start, doc->win_end);
	fputs(",\n  \"instance\": ", out);
	jstr(out, doc->instance ? doc->instance : "");
	fprintf(out, ",\n  \"records\": %" PRIu64 ",\n  \"events\": [", doc->records);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n    { \"system\": " : "\n    { \"system\": ", out);
		jstr(out, evs[i].system);
		fputs(", \"event\": ", out);
		jstr(out, evs[i].name);
		fputs(",\n      \"histograms\": ", out);
		rc = hist_event_print_json_opts(evs[i].ev, file_write, out,
						&replay_print_opts);
		if (rc) {
			fprintf(stderr, "hist-replay: printing %s/%s failed\n",
				evs[i].system, evs[i].name);
			rc = -1;
			break;
		}
		fputs(" }", out);
	}
	fputs(n ? "\n  ],\n  \"error_log\": " : "],\n  \"error_log\": ", out);
	jstr(out, doc->errlog);
	lost_json(out, doc->td);
	fputs(",\n  \"damage\": ", out);
	if (doc->damage)
		jstr(out, doc->damage);
	else
		fputs("null", out);
	fputs("\n}\n", out);
	return rc;
}

/*
 * --json --interval writes NDJSON, a document per window on one line, so
 * that a consumer reading a pipe parses each as it comes: the document's
 * newlines and the indentation after them go (a raw newline is never
 * inside a JSON string: jstr() and libhist escape it).
 */
static int one_line(FILE *out, const char *s, size_t n)
{
	size_t i;
	int indent = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '\n') {
			indent = 1;
			continue;
		}
		if (indent && s[i] == ' ')
			continue;
		indent = 0;
		if (putc(s[i], out) == EOF)
			return -1;
	}
	return putc('\n', out) == EOF ? -1 : 0;
}

int replay_json(FILE *out, const struct replay_doc *doc)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m;
	int rc;

	if (!doc->window)
		return json_doc(out, doc);
	m = open_memstream(&s, &n);
	if (!m) {
		fprintf(stderr, "hist-replay: out of memory\n");
		return -1;
	}
	rc = json_doc(m, doc);
	if (fclose(m) || !s) {
		free(s);
		fprintf(stderr, "hist-replay: out of memory\n");
		return -1;
	}
	if (!rc)
		rc = one_line(out, s, n);
	free(s);
	return rc;
}
