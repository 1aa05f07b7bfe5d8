/* SPDX-License-Identifier: MIT */
/*
 * --openmetrics and --quantiles: the histograms as OpenMetrics text
 * (libhist's hist_event_print_openmetrics(), the mapping in its man page),
 * every event in one exposition ending in "# EOF", and the quantiles that
 * --json and --openmetrics add.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "replay.h"
#include "../listen/listen.h"

#define MAX_QUANTILES 32

static double quantiles[MAX_QUANTILES];
struct hist_print_opts replay_print_opts = { .prefix = "hist" };

static int file_write(void *arg, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

int replay_parse_quantiles(const char *arg)
{
	const char *p = arg;
	uint32_t n = 0;

	while (*p) {
		char *end;
		double q;

		errno = 0;
		q = strtod(p, &end);
		if (end == p || errno || !(q >= 0.0 && q <= 1.0) ||
		    (*end && *end != ',') || n == MAX_QUANTILES) {
			fprintf(stderr, "hist-replay: --quantiles: bad list at "
				"column %zu of '%s' (up to %d numbers in [0, 1], "
				"comma-separated)\n", (size_t)(p - arg) + 1, arg,
				MAX_QUANTILES);
			return -1;
		}
		quantiles[n++] = q;
		p = *end ? end + 1 : end;
	}
	replay_print_opts.quantiles = quantiles;
	replay_print_opts.nr_quantiles = n;
	return 0;
}

/* --openmetrics's optional argument: none, or "text". */
int replay_openmetrics_format(const char *arg)
{
	if (!arg)
		return 0;
	if (strcmp(arg, "text")) {
		fprintf(stderr, "hist-replay: --openmetrics= wants 'text', got "
			"'%s'\n", arg);
		return -1;
	}
	replay_print_opts.flags |= HIST_PRINT_PROMETHEUS_TEXT;
	return 0;
}

/* Every event of EVS as one exposition into OUT, in the style of BASE. */
static int print_openmetrics(FILE *out, const struct replay_out_ev *evs, size_t n,
			     struct hist_tracedat *td, const struct hist_print_opts *base)
{
	struct hist_print_opts o = *base, end = *base;
	uint32_t cpu, nr = td ? hist_tracedat_nr_cpus(td) : 0;
	size_t i;

	/* the recording's lost events are the host's losses */
	end.flags |= HIST_PRINT_HOST_LOST;
	for (cpu = 0; cpu < nr; cpu++)
		end.host_lost += hist_tracedat_lost(td, cpu);
	o.flags |= HIST_PRINT_NO_EOF;
	for (i = 0; i < n; i++) {
		if (hist_event_print_openmetrics(evs[i].ev, file_write, out, &o)) {
			fprintf(stderr, "hist-replay: printing %s/%s failed\n",
				evs[i].system, evs[i].name);
			return -1;
		}
	}
	return hist_print_openmetrics_eof(file_write, out, &end) ? -1 : 0;
}

int replay_openmetrics(FILE *out, const struct replay_out_ev *evs, size_t n,
		       struct hist_tracedat *td)
{
	return print_openmetrics(out, evs, n, td, &replay_print_opts);
}

/* --listen: the final tables, served until SIGINT or SIGTERM. */
struct served {
	const struct replay_out_ev *evs;
	size_t n;
	struct hist_tracedat *td;
};

/*
 * Runs on the server's thread, for each request: it only reads
 * replay_print_opts (set before the server started) and renders with its
 * own copy, so it writes nothing the main thread or another request's
 * render reads (it used to flip the global's flags and put them back).
 */
static int render(void *arg, int openmetrics, char **text, size_t *len)
{
	const struct served *sv = arg;
	struct hist_print_opts o = replay_print_opts;
	FILE *f = open_memstream(text, len);
	int ret;

	if (!f)
		return -1;
	if (openmetrics)
		o.flags &= ~HIST_PRINT_PROMETHEUS_TEXT;
	else
		o.flags |= HIST_PRINT_PROMETHEUS_TEXT;
	ret = print_openmetrics(f, sv->evs, sv->n, sv->td, &o);
	if (fclose(f))
		ret = -1;
	return ret;
}

int replay_listen(const char *spec, const struct replay_out_ev *evs, size_t n,
		  struct hist_tracedat *td)
{
	struct served sv = { evs, n, td };
	struct listen_srv *s;
	sigset_t set;
	char err[256];
	int sig;

	/* block the signals before the server's thread starts, so that it
	 * inherits the mask and sigwait() here gets them */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	s = listen_start(spec, render, &sv, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "hist-replay: %s\n", err);
		return -1;
	}
	fprintf(stderr, "hist-replay: serving /metrics on port %u\n", listen_port(s));
	fflush(stderr);
	sigwait(&set, &sig);
	listen_stop(s);
	return 0;
}
