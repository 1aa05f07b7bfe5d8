/* SPDX-License-Identifier: MIT */
/*
 * The pieces of a trace.dat walk that both a stream (stream.c) and the
 * decompression worker (prefetch.c) use: one zstd chunk decompressed, a
 * stream's next chunk loaded in place, the error message of a walk.  In a
 * file of their own, below both, so that stream.c calls down into
 * prefetch.c and prefetch.c never calls back up.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#include "ftrace_int.h"

int hist__td_err(struct hist_tracedat *td, int code, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(td->err, sizeof(td->err), "trace.dat: ");

	va_start(ap, fmt);
	vsnprintf(td->err + n, sizeof(td->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

int hist__chunk_inflate(const struct hist_tracedat *td, void *dctx, uint32_t cpu,
			uint32_t chunk, uint64_t pos, uint8_t **buf, size_t *cap,
			size_t *len, char *msg, size_t msglen)
{
	const uint8_t *h = td->map + pos;
	uint32_t clen = hist__get32(h, td->big_endian);
	uint32_t ulen = hist__get32(h + 4, td->big_endian);
	size_t got;

	/* Sizes were checked against the file when it was opened. */
	*len = 0;
	if (*cap < ulen || !*buf) {
		uint8_t *b = realloc(*buf, ulen ? ulen : 1);

		if (!b) {
			snprintf(msg, msglen,
				 "trace.dat: out of memory (CPU %u chunk of %u bytes)",
				 cpu, ulen);
			return -HIST_ENOMEM;
		}
		*buf = b;
		*cap = ulen;
	}
	got = ZSTD_decompressDCtx(dctx, *buf, ulen, h + 8, clen);
	if (ZSTD_isError(got) || got != ulen) {
		snprintf(msg, msglen, "trace.dat: CPU %u: zstd chunk %u at offset %llu: %s",
			 cpu, chunk, (unsigned long long)pos,
			 ZSTD_isError(got) ? ZSTD_getErrorName(got) :
					     "decompressed size mismatch");
		return -HIST_EINVAL;
	}
	*len = ulen;
	return 0;
}

int hist__stream_load(struct hist_tracedat *td, struct hist__stream *s)
{
	/* The private buffer that does not hold the record handed out
	 * last, which may still be read. */
	int nb = s->held == 0 ? 1 : 0, ret;
	uint64_t pos = s->chunk_pos;
	size_t len;

	s->buf_off = pos;
	s->chunk_pos = pos + 8 + hist__get32(td->map + pos, td->big_endian);
	s->chunk++;
	s->buf = NULL;
	s->buf_len = 0;
	s->page_pos = 0;
	ret = hist__chunk_inflate(td, td->zstd, s->cpu, s->chunk - 1, pos, &s->cbuf[nb],
				  &s->ccap[nb], &len, td->err, sizeof(td->err));
	if (ret)
		return ret;
	s->cur = nb;
	s->buf = s->cbuf[nb];
	s->buf_len = len;
	return 0;
}
