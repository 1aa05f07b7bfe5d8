/* SPDX-License-Identifier: MIT */
/*
 * Ring-buffer sub-buffers ("pages"), as trace_pipe_raw hands them out and
 * as trace.dat stores them.
 *
 * A page is a header (time stamp, commit word) and commit bytes of
 * records.  The record walk itself is hist__page_next() in ftrace_int.h;
 * this file checks the header once so that the walk can trust
 * pos <= size <= page data, and drives whole captures page by page.
 */
#include <string.h>

#include "ftrace_int.h"

int hist_ftrace_page_init(struct hist_ftrace_page_iter *it,
			  const struct hist_ftrace_page_fmt *fmt,
			  const void *page, size_t page_size, uint32_t cpu)
{
	const uint8_t *p = page;
	uint64_t commit;
	uint32_t size;

	memset(it, 0, sizeof(*it));
	it->fmt = fmt;
	it->page = p;
	it->cpu = cpu;
	if (!p || (fmt->commit_size != 4 && fmt->commit_size != 8) ||
	    page_size < fmt->data_offset ||
	    page_size < (uint64_t)fmt->commit_offset + fmt->commit_size ||
	    page_size < 8)
		return -HIST_EINVAL;
	it->ts = hist__get64(p, fmt->big_endian);
	commit = hist__get_n(p + fmt->commit_offset, fmt->commit_size,
			     fmt->big_endian);
	size = (uint32_t)commit & HIST__RB_COMMIT_MASK;
	if (size > page_size - fmt->data_offset)
		return -HIST_EINVAL;
	it->size = size;
	if (commit & HIST__RB_MISSED_EVENTS) {
		it->missed = 1;
		/* The count sits right after the data, as a kernel long,
		 * when the kernel had room for it. */
		if ((commit & HIST__RB_MISSED_STORED) &&
		    (uint64_t)fmt->data_offset + size + fmt->commit_size <= page_size)
			it->lost = hist__get_n(p + fmt->data_offset + size,
					       fmt->commit_size, fmt->big_endian);
	}
	return 0;
}

int hist_ftrace_page_next(struct hist_ftrace_page_iter *it,
			  struct hist_ftrace_record *rec)
{
	return hist__page_next(it, rec);
}

long hist_ftrace_raw_walk(const struct hist_ftrace_page_fmt *fmt, const void *buf,
			  size_t len, uint32_t cpu,
			  int (*cb)(void *arg, const struct hist_ftrace_record *rec),
			  void *arg, char *errbuf, size_t errlen)
{
	const uint8_t *p = buf;
	size_t ps = fmt->page_size, off;
	long n = 0;

	if (!ps || ps < (size_t)fmt->data_offset + 4) {
		hist__msg(errbuf, errlen, "raw pages: bad page size %zu", ps);
		return -HIST_EINVAL;
	}
	if (len % ps) {
		hist__msg(errbuf, errlen,
			  "raw pages: %zu bytes is not a whole number of %zu-byte pages"
			  " (%zu bytes left at offset %zu)",
			  len, ps, len % ps, len - len % ps);
		return -HIST_EINVAL;
	}
	for (off = 0; off < len; off += ps) {
		struct hist_ftrace_page_iter it;
		struct hist_ftrace_record rec;
		int r;

		if (hist_ftrace_page_init(&it, fmt, p + off, ps, cpu)) {
			hist__msg(errbuf, errlen,
				  "raw pages: cpu %u: bad page header at offset %zu",
				  cpu, off);
			return -HIST_EINVAL;
		}
		while ((r = hist__page_next(&it, &rec)) > 0) {
			rec.file_offset += off;
			n++;
			if (cb) {
				int c = cb(arg, &rec);

				if (c)
					return c < 0 ? c : n;
			}
		}
		if (r < 0) {
			hist__msg(errbuf, errlen,
				  "raw pages: cpu %u: corrupt record at offset %zu",
				  cpu, off + fmt->data_offset + it.pos);
			return r;
		}
	}
	return n;
}
