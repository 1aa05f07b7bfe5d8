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
#include "../common/json.h"

static int file_write(void *arg, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
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
	json_put_str(out, doc->trace);
	if (doc->window)
		fprintf(out, ",\n  \"window\": { \"index\": %" PRIu64 ", \"start\": %" PRIu64
			", \"end\": %" PRIu64 " }", doc->win_index, doc->win_start, doc->win_end);
	fputs(",\n  \"instance\": ", out);
	json_put_str(out, doc->instance ? doc->instance : "");
	fprintf(out, ",\n  \"records\": %" PRIu64 ",\n  \"events\": [", doc->records);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n    { \"system\": " : "\n    { \"system\": ", out);
		json_put_str(out, evs[i].system);
		fputs(", \"event\": ", out);
		json_put_str(out, evs[i].name);
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
	json_put_str(out, doc->errlog);
	lost_json(out, doc->td);
	fputs(",\n  \"damage\": ", out);
	if (doc->damage)
		json_put_str(out, doc->damage);
	else
		fputs("null", out);
	fputs("\n}\n", out);
	return rc;
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
	/* --interval: NDJSON, a window's document per line, so that a
	 * consumer reading a pipe parses each as it comes */
	if (!rc) {
		struct json_line l = { out, 0 };

		rc = json_line_write(&l, s, n) || putc('\n', out) == EOF ? -1 : 0;
	}
	free(s);
	return rc;
}
