/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the tools' /metrics server (examples/listen/listen.c) as a
 * client reaches it.  The input's first line is a --listen SPEC for
 * parse_spec(); the rest is what a client sends on one connection.
 * libmicrohttpd parses the HTTP; the target runs the tools' daemon (the
 * same handler and connection bounds) without a listen socket and hands
 * it one end of a socketpair per input, so the bytes go through
 * libmicrohttpd's parser into our handler (method, URL, Accept, a body
 * dropped) and its answer comes back.  The daemon is polled by the
 * target (external select(): level-triggered, so a client's FIN is seen
 * at once; hist-live's epoll mode can miss a FIN that arrives with an
 * unfinished request and then holds the connection to its 10 s timeout,
 * the bound any slow client gets).
 *
 * Checked beyond crashes and leaks: the connection is answered or closed
 * within 64 turns of the server after the client closed its side (no
 * connection lingers to hold one of the 4 per address), an answer starts
 * with a status line, and a 200 is given only to GET or HEAD of /metrics.
 * The render callback fails when the request's Accept asks for
 * OpenMetrics and the input's last byte is odd, to reach the 500 path.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef HIST_HAVE_MHD
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../examples/listen/listen.c"

static int fl_fail;

static int fl_render(void *arg, int openmetrics, char **text, size_t *len)
{
	static const char doc[] = "# TYPE x counter\nx_total 1\n";

	(void)arg;
	if (openmetrics && fl_fail)
		return -1;
	*text = malloc(sizeof(doc) - 1);
	if (!*text)
		return -1;
	memcpy(*text, doc, sizeof(doc) - 1);
	*len = sizeof(doc) - 1;
	return 0;
}

static struct listen_srv fl_srv = { .fn = fl_render };

static int fl_hex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ?
	       (c | 0x20) - 'a' + 10 : -1;
}

/* The request was GET or HEAD of /metrics, as libmicrohttpd reads the
 * request line: after the empty lines it skips (one that starts with a
 * NUL is empty: it reads lines as C strings), up to the newline (a CR
 * before it dropped); the method up to the first space and the URI up to
 * the next, each as a C string; the path up to '?', %XX decoded. */
static int fl_may_200(const uint8_t *req, size_t n)
{
	const uint8_t *p = req, *end = req + n, *sp;
	char path[16];
	size_t k = 0;

	while (p < end && (*p == '\r' || *p == '\n' || !*p)) {
		if (!*p) {
			const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));

			if (!nl)
				return 0;
			p = nl;
		}
		p++;
	}
	{
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));

		if (nl)
			end = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
	}
	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp)
		return 0;
	if (!((sp - p >= 3 && !memcmp(p, "GET", 3) && (sp - p == 3 || !p[3])) ||
	      (sp - p >= 4 && !memcmp(p, "HEAD", 4) && (sp - p == 4 || !p[4]))))
		return 0;
	p = sp;
	while (p < end && *p == ' ')
		p++;
	while (p < end && *p && *p != ' ' && *p != '?' && k < 15) {
		int c = *p++;

		if (c == '%' && end - p >= 2 && fl_hex(p[0]) >= 0 && fl_hex(p[1]) >= 0) {
			c = fl_hex(p[0]) << 4 | fl_hex(p[1]);
			p += 2;
		}
		path[k++] = (char)c;
	}
	path[k] = 0;
	return !strcmp(path, "/metrics");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_in peer = { .sin_family = AF_INET };
	struct sockaddr_storage ss;
	const uint8_t *nl = memchr(data, '\n', size < 200 ? size : 200);
	const uint8_t *req = nl ? nl + 1 : data;
	size_t n = size - (size_t)(req - data), off = 0, got = 0;
	char spec[201], resp[512];
	int sv[2], turns, closed = 0;

	/* the SPEC: any bytes, up to the first newline */
	if (nl) {
		memcpy(spec, data, (size_t)(nl - data));
		spec[nl - data] = 0;
		parse_spec(spec, &ss);
	}
	fl_fail = size && (data[size - 1] & 1);
	if (!fl_srv.d) {
		/* one daemon for the whole run: it keeps no state between
		 * connections (checked below: none is left open) */
		fl_srv.d = daemon_start(&fl_srv, MHD_USE_NO_LISTEN_SOCKET, NULL);
		if (!fl_srv.d)
			abort();
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	peer.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (MHD_add_connection(fl_srv.d, sv[1], (struct sockaddr *)&peer, sizeof(peer)) !=
	    MHD_YES) {
		close(sv[0]);
		abort();	/* a connection of an earlier input still open */
	}
	if (!n)
		shutdown(sv[0], SHUT_WR);	/* a client that sends nothing */
	for (turns = 0; turns < 4096 && !closed; turns++) {
		ssize_t r;

		if (off < n) {
			r = send(sv[0], req + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (r > 0)
				off += (size_t)r;
			else if (r < 0 && errno != EAGAIN)
				off = n;	/* the server closed on us */
			if (off == n)
				shutdown(sv[0], SHUT_WR);
		}
		MHD_run(fl_srv.d);
		for (;;) {
			char buf[4096];

			r = recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT);
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
				closed = 1;
				break;
			}
			if (r < 0)
				break;
			if (got < sizeof(resp) - 1) {
				size_t k = (size_t)r < sizeof(resp) - 1 - got ?
					   (size_t)r : sizeof(resp) - 1 - got;

				memcpy(resp + got, buf, k);
				got += k;
			}
		}
		/* all sent and the server has had its turns: it must be done */
		if (off == n && turns > 64 + (int)(n / 4096))
			break;
	}
	resp[got] = 0;
	close(sv[0]);
	if (!closed) {
		fprintf(stderr, "fuzz_listen: connection still open after the client closed\n");
		abort();
	}
	if (got && strncmp(resp, "HTTP/1.", 7)) {
		fprintf(stderr, "fuzz_listen: answer without a status line: %.40s\n", resp);
		abort();
	}
	if (got >= 12 && !memcmp(resp + 9, "200", 3) && !fl_may_200(req, n)) {
		fprintf(stderr, "fuzz_listen: 200 for a request that is not GET /metrics\n");
		abort();
	}
	/* the server end is closed by the daemon; let it finish */
	MHD_run(fl_srv.d);
	return 0;
}

#else /* built without libmicrohttpd: nothing to fuzz */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	return 0;
}
#endif
