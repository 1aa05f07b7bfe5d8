/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the ring-buffer sub-buffer decoder.  Byte 0 picks the
 * layout: bit 0 big endian, bit 1 the 32-bit kernel header (4-byte
 * commit, data at 12), bits 2-3 the page size (4096, 64, 256, 1024).
 * The rest is a capture: its first page is walked with the iterator, and
 * the whole (cut to whole pages) with hist_ftrace_raw_walk().
 */
#include "fuzz_common.h"
#include "hist_ftrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int page_cb(void *arg, const struct hist_ftrace_record *rec)
{
	(void)arg;
	fz_touch(rec->data, rec->len);
	fz_sum += rec->ts + rec->type;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t sizes[] = { 4096, 64, 256, 1024 };
	struct hist_ftrace_page_fmt fmt;
	struct hist_ftrace_page_iter it;
	struct hist_ftrace_record rec;
	char err[256];
	size_t n;
	int r;

	if (size < 1)
		return 0;
	memset(&fmt, 0, sizeof(fmt));
	fmt.big_endian = data[0] & 1;
	fmt.commit_offset = 8;
	fmt.commit_size = data[0] & 2 ? 4 : 8;
	fmt.data_offset = data[0] & 2 ? 12 : 16;
	fmt.page_size = sizes[(data[0] >> 2) & 3];
	data++;
	size--;

	n = size < fmt.page_size ? size : fmt.page_size;
	if (hist_ftrace_page_init(&it, &fmt, data, n, 2) == 0) {
		while ((r = hist_ftrace_page_next(&it, &rec)) > 0)
			page_cb(NULL, &rec);
		fz_sum += it.lost + (uint64_t)it.missed;
	}
	n = size - size % fmt.page_size;
	hist_ftrace_raw_walk(&fmt, data, n, 1, page_cb, NULL, err, sizeof(err));
	return 0;
}
