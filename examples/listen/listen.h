/* SPDX-License-Identifier: MIT */
/*
 * The tools' /metrics server (hist-replay --listen, hist-live --listen):
 * libmicrohttpd, one internal thread, GET and HEAD of /metrics only.
 */
#ifndef HIST_LISTEN_H
#define HIST_LISTEN_H

#include <stddef.h>

/*
 * Render the exposition into *TEXT (malloc'ed, *LEN bytes): OpenMetrics
 * 1.0 when OPENMETRICS, else the Prometheus text format.  Called on the
 * server's thread, one request at a time; returns 0 or -1 (answered 500).
 */
typedef int (*listen_render_fn)(void *arg, int openmetrics, char **text, size_t *len);

struct listen_srv;

/*
 * Listen on SPEC: "PORT" (127.0.0.1, loopback by default), "ADDR:PORT"
 * or "[ADDR6]:PORT".  NULL with a message in ERR on a bad SPEC or a
 * socket that cannot be bound.
 */
struct listen_srv *listen_start(const char *spec, listen_render_fn fn, void *arg,
				char *err, size_t errlen);
/*
 * The same without a thread, for a tool's own poll loop: wait for
 * listen_fd() to be readable (or listen_timeout_ms() to pass), then call
 * listen_run(), which answers on the caller's thread (so a tool brings
 * its tables up to date first and renders them with no lock).
 */
struct listen_srv *listen_start_polled(const char *spec, listen_render_fn fn, void *arg,
				       char *err, size_t errlen);
int listen_fd(const struct listen_srv *s);
/* Milliseconds until listen_run() is due for timeouts; -1: none. */
int listen_timeout_ms(const struct listen_srv *s);
void listen_run(struct listen_srv *s);
/* The port bound (SPEC's port 0 picks a free one). */
unsigned listen_port(const struct listen_srv *s);
void listen_stop(struct listen_srv *s);

#endif
