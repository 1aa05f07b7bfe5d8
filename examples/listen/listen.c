/* SPDX-License-Identifier: MIT */
/*
 * The /metrics server of the tools, on libmicrohttpd: it parses HTTP,
 * which is the part hostile clients attack, and bounds what a client can
 * take: 16 connections at once, 4 from one address, 64 KiB of memory per
 * connection (request line and headers), 10 s to send a request and 60 s
 * in all (counted from the connection's start, not from its last byte:
 * libmicrohttpd's own timeout is one of idleness, which a client sending
 * a byte every few seconds never reaches, and four such clients held
 * their address's four connections for ever).  Only
 * GET and HEAD of /metrics are served (404 and 405 otherwise; a request
 * body is read and dropped).  Prometheus's Accept header chooses the
 * format: application/openmetrics-text gets OpenMetrics 1.0, anything
 * else the text format 0.0.4.
 */
#ifdef HIST_HAVE_MHD
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <pthread.h>
#include <time.h>

#include <dlfcn.h>
#include <microhttpd.h>

#include "listen.h"

/*
 * libmicrohttpd is opened when a server starts, not linked: it brings
 * twelve libraries with it (gnutls and its own), whose loading was a
 * quarter of hist-replay's start-up on a small recording (bench/README,
 * start-up) for every run, --listen or not.  The names below stand for
 * the table's pointers from here on; mhd_load() fills it once.
 */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_run) *run;
	__typeof__(MHD_get_timeout) *get_timeout;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_add_connection) *add_connection;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_get_connection_info) *get_connection_info;
} mhd;

#define MHD_start_daemon (*mhd.start_daemon)
#define MHD_stop_daemon (*mhd.stop_daemon)
#define MHD_run (*mhd.run)
#define MHD_get_timeout (*mhd.get_timeout)
#define MHD_get_daemon_info (*mhd.get_daemon_info)
#define MHD_add_connection (*mhd.add_connection)
#define MHD_lookup_connection_value (*mhd.lookup_connection_value)
#define MHD_create_response_from_buffer (*mhd.create_response_from_buffer)
#define MHD_add_response_header (*mhd.add_response_header)
#define MHD_queue_response (*mhd.queue_response)
#define MHD_destroy_response (*mhd.destroy_response)
#define MHD_get_connection_info (*mhd.get_connection_info)

/* 0, or -1 with the loader's message in ERR (when ERR is not NULL).
 * Tools start their server from one thread, before any other uses it. */
static int mhd_load(char *err, size_t errlen)
{
	static const char *const names[] = { "libmicrohttpd.so.12", "libmicrohttpd.so" };
	void *h = NULL, **slot = (void **)&mhd;
	static const char *const syms[] = {
		"MHD_start_daemon", "MHD_stop_daemon", "MHD_run", "MHD_get_timeout",
		"MHD_get_daemon_info", "MHD_add_connection", "MHD_lookup_connection_value",
		"MHD_create_response_from_buffer", "MHD_add_response_header",
		"MHD_queue_response", "MHD_destroy_response", "MHD_get_connection_info",
	};
	size_t i;

	_Static_assert(sizeof(syms) / sizeof(syms[0]) * sizeof(void *) == sizeof(mhd),
		       "one name per pointer of the table, in its order");
	if (mhd.get_connection_info)
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	for (i = 0; h && i < sizeof(syms) / sizeof(syms[0]); i++)
		if (!(slot[i] = dlsym(h, syms[i])))
			break;
	if (h && i == sizeof(syms) / sizeof(syms[0]))
		return 0;
	if (err)
		snprintf(err, errlen, "--listen needs libmicrohttpd (Debian: libmicrohttpd12): %s",
			 dlerror());
	memset(&mhd, 0, sizeof(mhd));
	return -1;
}

#if MHD_VERSION < 0x00097002
typedef int mhd_result;
#else
typedef enum MHD_Result mhd_result;
#endif

#define MAX_CONNS 16		/* MHD_OPTION_CONNECTION_LIMIT */
#define REQUEST_MS 10000	/* to send the whole request */
#define CONN_MS 60000		/* for the whole connection */

/*
 * The connections open now, from libmicrohttpd's notification (its
 * thread), and the time each started.  sweep() shuts down the socket of
 * one past its deadline: libmicrohttpd then sees the end of the stream
 * and closes it (the notification of its close comes before the socket
 * is closed, so a slot never names a descriptor reused by another file).
 * LOCK guards the table: the notification and the handler run in the
 * daemon's thread, sweep() in the reaper thread or the tool's loop.
 */
struct listen_conn {
	int fd;			/* -1: free */
	int answered;		/* the request is in: CONN_MS applies */
	int cut;
	uint64_t start_ms;
};

struct listen_srv {
	struct MHD_Daemon *d;
	listen_render_fn fn;
	void *arg;
	unsigned port;
	pthread_mutex_t lock;
	int lock_ready;
	struct listen_conn conns[MAX_CONNS * 2];
	/* the reaper thread of a daemon with its own thread */
	pthread_t reaper;
	int reaper_on;
	pthread_cond_t stop_cv;
	int stopping;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct listen_conn *conn_of(struct listen_srv *s, int fd)
{
	size_t i;

	for (i = 0; i < sizeof(s->conns) / sizeof(s->conns[0]); i++)
		if (s->conns[i].fd == fd)
			return &s->conns[i];
	return NULL;
}

static int conn_fd(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

	return ci ? (int)ci->connect_fd : -1;
}

static void on_conn(void *cls, struct MHD_Connection *c, void **ctx,
		    enum MHD_ConnectionNotificationCode code)
{
	struct listen_srv *s = cls;
	int fd = conn_fd(c);
	struct listen_conn *k;

	(void)ctx;
	if (fd < 0)
		return;
	pthread_mutex_lock(&s->lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		k = conn_of(s, -1);
		if (k) {
			k->fd = fd;
			k->answered = k->cut = 0;
			k->start_ms = now_ms();
		}
	} else if ((k = conn_of(s, fd))) {
		k->fd = -1;
	}
	pthread_mutex_unlock(&s->lock);
}

/* Shut down the connections past their deadline; whether any is open. */
static int sweep(struct listen_srv *s)
{
	uint64_t t = now_ms();
	int open = 0;
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < sizeof(s->conns) / sizeof(s->conns[0]); i++) {
		struct listen_conn *k = &s->conns[i];

		if (k->fd < 0)
			continue;
		open = 1;
		if (!k->cut && t - k->start_ms > (k->answered ? CONN_MS : REQUEST_MS)) {
			shutdown(k->fd, SHUT_RDWR);
			k->cut = 1;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return open;
}

static void *reaper_main(void *arg)
{
	struct listen_srv *s = arg;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&s->stop_cv, &s->lock, &ts);
		if (s->stopping)
			break;
		pthread_mutex_unlock(&s->lock);
		sweep(s);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static mhd_result reply(struct MHD_Connection *c, unsigned status, const char *type,
			char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	mhd_result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	/*
	 * One request per connection.  In the polled (epoll, edge-triggered)
	 * mode libmicrohttpd 0.9.75 misses a client's FIN that came with its
	 * request, so a kept-alive connection lingered until the 10 s timeout
	 * and held one of the 4 per address; a scrape every few seconds
	 * loses nothing by reconnecting.
	 */
	MHD_add_response_header(r, "Connection", "close");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static mhd_result handle(void *cls, struct MHD_Connection *c, const char *url,
			 const char *method, const char *version, const char *upload,
			 size_t *upload_size, void **state)
{
	static int first;
	struct listen_srv *s = cls;
	const char *accept;
	char *text = NULL;
	size_t len = 0;
	int om;

	(void)version;
	(void)upload;
	if (!*state) {
		/* the headers are in; answer once the request is complete */
		*state = &first;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;	/* a body: read and dropped */
		return MHD_YES;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     "method not allowed\n", 19, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain",
			     "not found: try /metrics\n", 24, MHD_RESPMEM_PERSISTENT);
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	om = accept && strstr(accept, "application/openmetrics-text") != NULL;
	{
		struct listen_conn *k;
		int fd = conn_fd(c);

		pthread_mutex_lock(&s->lock);
		if (fd >= 0 && (k = conn_of(s, fd)))
			k->answered = 1;
		pthread_mutex_unlock(&s->lock);
	}
	if (s->fn(s->arg, om, &text, &len)) {
		free(text);
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
			     "rendering failed\n", 17, MHD_RESPMEM_PERSISTENT);
	}
	return reply(c, MHD_HTTP_OK,
		     om ? "application/openmetrics-text; version=1.0.0; charset=utf-8" :
			  "text/plain; version=0.0.4; charset=utf-8",
		     text, len, MHD_RESPMEM_MUST_FREE);
}

/* The daemon of S with the bounds above; ADDR NULL with
 * MHD_USE_NO_LISTEN_SOCKET (connections given by MHD_add_connection(), as
 * fuzz/fuzz_listen.c does). */
static struct MHD_Daemon *daemon_start(struct listen_srv *s, unsigned flags,
				       const struct sockaddr *addr)
{
	uint16_t port = addr ? ntohs(((const struct sockaddr_in *)addr)->sin_port) : 0;
	size_t i;

	if (mhd_load(NULL, 0))
		return NULL;
	if (!s->lock_ready) {
		if (pthread_mutex_init(&s->lock, NULL))
			return NULL;
		s->lock_ready = 1;
		for (i = 0; i < sizeof(s->conns) / sizeof(s->conns[0]); i++)
			s->conns[i].fd = -1;
	}
	return MHD_start_daemon(flags, port, NULL, NULL, handle, s,
				MHD_OPTION_NOTIFY_CONNECTION, on_conn, s,
				MHD_OPTION_SOCK_ADDR, addr,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)16,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)4,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)65536,
				MHD_OPTION_END);
}

/* SPEC into a socket address; 0 or -1. */
static int parse_spec(const char *spec, struct sockaddr_storage *ss)
{
	char host[128] = "127.0.0.1";
	const char *port = spec, *colon;
	char *end;
	unsigned long p;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close[1] != ':' || (size_t)(close - spec - 1) >= sizeof(host))
			return -1;
		memcpy(host, spec + 1, (size_t)(close - spec - 1));
		host[close - spec - 1] = 0;
		port = close + 2;
	} else if ((colon = strrchr(spec, ':'))) {
		if ((size_t)(colon - spec) >= sizeof(host) || colon == spec)
			return -1;
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = 0;
		port = colon + 1;
	}
	errno = 0;
	p = strtoul(port, &end, 10);
	if (!*port || *end || errno || p > 65535)
		return -1;
	memset(ss, 0, sizeof(*ss));
	if (strchr(host, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)p);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -1;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)p);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -1;
	}
	return 0;
}

static struct listen_srv *start(const char *spec, listen_render_fn fn, void *arg,
				char *err, size_t errlen, unsigned flags)
{
	struct sockaddr_storage ss;
	struct listen_srv *s;
	const union MHD_DaemonInfo *info;

	if (parse_spec(spec, &ss)) {
		snprintf(err, errlen, "--listen wants PORT, ADDR:PORT or [ADDR6]:PORT, got '%s'",
			 spec);
		return NULL;
	}
	if (mhd_load(err, errlen))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->fn = fn;
	s->arg = arg;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s->d = daemon_start(s, flags, (struct sockaddr *)&ss);
	if (!s->d) {
		snprintf(err, errlen, "cannot listen on %s (address in use or not local?)", spec);
		free(s);
		return NULL;
	}
	info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : 0;
	/* the daemon's own thread serves: a thread of ours keeps the
	 * deadlines (a polled server keeps them in listen_run()) */
	if ((flags & MHD_USE_INTERNAL_POLLING_THREAD) && !pthread_cond_init(&s->stop_cv, NULL)) {
		if (!pthread_create(&s->reaper, NULL, reaper_main, s))
			s->reaper_on = 1;
		else
			pthread_cond_destroy(&s->stop_cv);
	}
	if (!s->reaper_on && (flags & MHD_USE_INTERNAL_POLLING_THREAD)) {
		snprintf(err, errlen, "cannot start the server's timer thread");
		MHD_stop_daemon(s->d);
		free(s);
		return NULL;
	}
	return s;
}

struct listen_srv *listen_start(const char *spec, listen_render_fn fn, void *arg,
				char *err, size_t errlen)
{
	return start(spec, fn, arg, err, errlen,
		     MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG);
}

struct listen_srv *listen_start_polled(const char *spec, listen_render_fn fn, void *arg,
				       char *err, size_t errlen)
{
	return start(spec, fn, arg, err, errlen, MHD_USE_EPOLL | MHD_USE_ERROR_LOG);
}

int listen_fd(const struct listen_srv *s)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);

	return info ? info->epoll_fd : -1;
}

int listen_timeout_ms(const struct listen_srv *s)
{
	MHD_UNSIGNED_LONG_LONG t;

	/* back within a second to listen_run(), whose sweep() keeps the
	 * deadlines of the connections open */
	if (MHD_get_timeout(s->d, &t) != MHD_YES)
		return 1000;
	return t > 1000 ? 1000 : (int)t;
}

void listen_run(struct listen_srv *s)
{
	MHD_run(s->d);
	sweep(s);
}

unsigned listen_port(const struct listen_srv *s)
{
	return s->port;
}

void listen_stop(struct listen_srv *s)
{
	if (!s)
		return;
	if (s->reaper_on) {
		pthread_mutex_lock(&s->lock);
		s->stopping = 1;
		pthread_cond_signal(&s->stop_cv);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->reaper, NULL);
		pthread_cond_destroy(&s->stop_cv);
	}
	MHD_stop_daemon(s->d);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

#else /* built without libmicrohttpd: --listen says so */
#include <stdio.h>

#include "listen.h"

struct listen_srv *listen_start(const char *spec, listen_render_fn fn, void *arg,
				char *err, size_t errlen)
{
	(void)spec;
	(void)fn;
	(void)arg;
	snprintf(err, errlen, "--listen: built without libmicrohttpd "
		 "(Debian: libmicrohttpd-dev)");
	return NULL;
}

struct listen_srv *listen_start_polled(const char *spec, listen_render_fn fn, void *arg,
				       char *err, size_t errlen)
{
	return listen_start(spec, fn, arg, err, errlen);
}

int listen_fd(const struct listen_srv *s)
{
	(void)s;
	return -1;
}

int listen_timeout_ms(const struct listen_srv *s)
{
	(void)s;
	return -1;
}

void listen_run(struct listen_srv *s)
{
	(void)s;
}

unsigned listen_port(const struct listen_srv *s)
{
	(void)s;
	return 0;
}

void listen_stop(struct listen_srv *s)
{
	(void)s;
}
#endif
