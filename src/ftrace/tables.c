/* SPDX-License-Identifier: MIT */
/*
 * The tables of a trace.dat loaded on first use: kallsyms, printk formats
 * and saved cmdlines (see struct hist__lazy).  tracedat.c locates and
 * checks them at open; the lookups (lookup.c) call hist__td_load() before
 * reading one.  Below both in the file order: it only decompresses and
 * hands the text to kallsyms.c and meta.c.
 */
#include <stdlib.h>
#include <zstd.h>

#include "ftrace_int.h"

/* The body of the lazy item: decompressed into *OWNED when it is zstd. */
static int lazy_body(const struct hist_tracedat *td, const struct hist__lazy *lz,
		     const uint8_t **body, size_t *len, uint8_t **owned)
{
	uint32_t clen, ulen;
	size_t got;

	*owned = NULL;
	if (!lz->compressed) {
		*body = lz->p;
		*len = (size_t)lz->len;
		return 0;
	}
	/* checked at open: 8 header bytes, clen within the section */
	clen = hist__get32(lz->p, td->big_endian);
	ulen = hist__get32(lz->p + 4, td->big_endian);
	*owned = malloc(ulen ? ulen : 1);
	if (!*owned)
		return -1;
	/* a one-shot context: the stream's belongs to the reader thread */
	got = ZSTD_decompress(*owned, ulen, lz->p + 8, clen);
	if (ZSTD_isError(got) || got != ulen) {
		free(*owned);
		*owned = NULL;
		return -1;
	}
	*body = *owned;
	*len = ulen;
	return 0;
}

/*
 * Parse table WHICH from its blob (length prefix, text).  Touches nothing
 * but the table: it may run on a lookup thread while another walks the
 * records (so no td->err).
 */
static int lazy_parse(struct hist_tracedat *td, int which)
{
	const struct hist__lazy *lz = &td->lazy[which];
	const uint8_t *body;
	const char *text;
	uint8_t *owned;
	uint64_t n;
	size_t len, hl = lz->wide ? 8 : 4;
	int ret = -1;

	if (which == HIST__LZ_KSYMS && td->ksyms.nr)
		return 0;	/* hist_tracedat_set_kallsyms() came first */
	if (lazy_body(td, lz, &body, &len, &owned))
		return -1;
	if (len < hl)
		goto out;
	n = lz->wide ? hist__get64(body, td->big_endian) : hist__get32(body, td->big_endian);
	if (n > len - hl)
		goto out;
	text = (const char *)body + hl;
	switch (which) {
	case HIST__LZ_KSYMS:
		ret = hist__ksyms_init(&td->ksyms, text, (size_t)n);
		break;
	case HIST__LZ_PRINTK:
		ret = hist__printk_init(&td->printk, text, (size_t)n);
		break;
	default:
		ret = hist__cmdlines_init(&td->cmdlines, text, (size_t)n);
		break;
	}
out:
	free(owned);
	return ret;
}

void hist__td_load(const struct hist_tracedat *ctd, int which)
{
	/* the tables are the object's cache: loading them is not a change
	 * callers can see, so the const lookups may fill them */
	struct hist_tracedat *td = (struct hist_tracedat *)ctd;
	struct hist__lazy *lz = &td->lazy[which];

	/* pairs with the release store below */
	if (hist__load_acquire(&lz->ready) || !lz->p)
		return;
	if (td->lazy_lock_ok)
		pthread_mutex_lock(&td->lazy_lock);
	if (!lz->ready) {
		/* a failed table stays empty: lookups fall back as the
		 * kernel does for what it cannot resolve */
		lz->failed = lazy_parse(td, which) != 0;
		/* publishes the table to lock-free readers above */
		hist__store_release(&lz->ready, 1);
	}
	if (td->lazy_lock_ok)
		pthread_mutex_unlock(&td->lazy_lock);
}
