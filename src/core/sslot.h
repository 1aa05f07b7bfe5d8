/* SPDX-License-Identifier: MIT */
/*
 * Seqlocked byte slots of a map element: the text of a string variable,
 * of a string field variable or save() field, the frames of a stack-trace
 * variable.  Any number of hits may write one slot while other hits and
 * the control thread read it; a plain memcpy there is a data race and a
 * reader could take half of one text and half of the next (issue 18's
 * "rule 5" of actions.c).
 *
 * Layout: DATA (the address a variable's value holds, 8-byte aligned) is
 * preceded by one header word: (length in bytes << 32) | sequence.  The
 * sequence is odd while a writer copies.  Every data word is an atomic.
 *
 * Contract:
 * 1. A writer claims the slot by CAS of an even header to sequence + 1;
 *    a writer that finds it odd, or loses the CAS, gives its text up and
 *    returns false (a hit never waits: the text another hit is writing
 *    at that moment stands, as if it had come second).
 * 2. The claimed writer stores the data words with release, then the
 *    header (sequence + 2, the new length) with release.
 * 3. A reader loads the header with acquire, the words with acquire
 *    (each pairs with the writer's release store of that word: a reader
 *    that sees a new word sees the odd sequence of 1 on its second load),
 *    then the header again: equal and even, the copy is one writer's
 *    text.  Hits retry a bounded number of times and then give up (the
 *    value counts as unset for that hit); the control thread retries
 *    until it succeeds, like snap_read() in actions.c.
 * Neither side locks or allocates; readers never write the slot.
 */
#ifndef HIST_SSLOT_H
#define HIST_SSLOT_H

#include "common/platform.h"

#define HIST__SSLOT_HDR 8u		/* bytes before DATA */
#define HIST__SSLOT_TRIES_HIT 64u	/* reads a hit tries */

static inline uint64_t *hist__sslot_hdr(const void *data)
{
	return (uint64_t *)(uintptr_t)((const uint8_t *)data - HIST__SSLOT_HDR);
}

/* Copy N bytes of SRC into the slot at DATA, followed by zeros up to LEN
 * bytes (N <= LEN, LEN at most its size): a text goes straight from the
 * record with its terminating 0 (LEN = N + 1), no copy of it first.
 * Returns false if another writer holds it (nothing written).
 * Context: any thread; lock-free, never waits. */
static inline bool hist__sslot_write(void *data, const void *src, uint32_t n, uint32_t len)
{
	uint64_t *hdr = hist__sslot_hdr(data), *w = data;
	uint64_t h = hist__load_relaxed(hdr), word;
	uint32_t i, at, nw = (len + 7) / 8;

	if (h & 1)
		return false;
	/* acq_rel: the claim; the release stores below stay after it */
	if (!hist__cas_acq_rel(hdr, &h, h + 1))
		return false;
	for (i = 0, at = 0; i < nw; i++, at += 8) {
		/* whole words in one load; only the last bytes of SRC
		 * are copied one by one */
		if (at + 8 <= n) {
			memcpy(&word, (const uint8_t *)src + at, 8);
		} else if (at < n && n >= 8) {
			/* the last N - AT bytes: one load of the word ending
			 * at SRC + N, shifted to the front in memory order */
			memcpy(&word, (const uint8_t *)src + n - 8, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			word <<= 8 * (8 - (n - at));
#else
			word >>= 8 * (8 - (n - at));
#endif
		} else {
			word = 0;
			if (at < n)
				memcpy(&word, (const uint8_t *)src + at, n - at);
		}
		/* release: a reader that sees this word sees the odd header */
		hist__store_release(&w[i], word);
	}
	/* release: the words are complete before the header is even */
	hist__store_release(hdr, ((uint64_t)len << 32) | (uint32_t)(h + 2));
	return true;
}

/* Copy the slot at DATA into DST (CAP bytes, a multiple of 8 at least
 * the slot's size) as one writer left it; TRIES attempts (0: until it
 * succeeds).  Returns the length written last (0 for a slot never
 * written), or -1 if every attempt overlapped a writer.
 * Context: any thread; never writes the slot. */
static inline int32_t hist__sslot_read(const void *data, void *dst, uint32_t cap,
				       uint32_t tries)
{
	const uint64_t *hdr = hist__sslot_hdr(data), *w = data;
	uint32_t t, i, n;

	for (t = 0; !tries || t < tries; t++, hist__cpu_relax()) {
		/* acquire: pairs with the release that made it even */
		uint64_t h = hist__load_acquire(hdr);

		if (h & 1)
			continue;
		n = (uint32_t)(h >> 32);
		if (n > cap)
			n = cap;
		for (i = 0; i < (n + 7) / 8; i++) {
			/* acquire: pairs with the writer's release of the
			 * word, and keeps the header's second load after */
			uint64_t word = hist__load_acquire(&w[i]);

			memcpy((uint8_t *)dst + 8 * i, &word, 8);
		}
		if (hist__load_relaxed(hdr) == h)
			return (int32_t)n;
	}
	return -1;
}

#endif
