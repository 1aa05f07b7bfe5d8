/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the trace.dat reader the way the tools use it, on a file:
 * hist_tracedat_open() (the mapping and its SIGBUS guard) with the
 * prefetch thread on (zstd chunks are decompressed by the worker), the
 * whole walk; then a second walk during which the file is cut to half
 * its length, which must end with the reader's "changed while being
 * read" error and never a signal.  The input is the file (the
 * `tracedat` target's inputs serve as seeds).
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "hist_ftrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TDF_MAX_RECORDS 100000

/* Walk up to MAX records, reading each one's bytes; the records walked. */
static uint32_t tdf_walk(struct hist_tracedat *td, uint32_t max)
{
	struct hist_ftrace_record rec;
	uint32_t n = 0;
	int r;

	while (n < max && (r = hist_tracedat_next(td, &rec)) != 0) {
		n++;
		if (r < 0) {
			fz_touch(hist_tracedat_error(td), strlen(hist_tracedat_error(td)));
			continue;
		}
		fz_touch(rec.data, rec.len);
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hist_tracedat *td;
	char err[512], path[64];
	int fd = memfd_create("fuzz_tracedat_file", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	td = hist_tracedat_open(path, err, sizeof(err));
	if (!td) {
		fz_touch(err, strnlen(err, sizeof(err)));
		close(fd);
		return 0;
	}
	/* the prefetch worker is on by default: keep it so */
	tdf_walk(td, TDF_MAX_RECORDS);
	if (hist_tracedat_rewind(td) == 0) {
		tdf_walk(td, 16);
		/* cut under the mapping: what is left reads as zeros, the
		 * walk ends with an error */
		if (ftruncate(fd, (off_t)(size / 2)) == 0)
			tdf_walk(td, TDF_MAX_RECORDS);
	}
	hist_tracedat_close(td);
	close(fd);
	return 0;
}
