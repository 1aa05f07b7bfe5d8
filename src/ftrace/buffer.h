/* SPDX-License-Identifier: MIT */
/*
 * buffer.c's interface, for tracedat.c (which reads the CPU tables out of
 * a file's headers and options) only.  Context: open and
 * hist_tracedat_select_buffer(), one thread, as the trace.dat API says.
 */
#ifndef HIST_FTRACE_BUFFER_H
#define HIST_FTRACE_BUFFER_H

#include "ftrace_int.h"

/* Sanity limits against corrupt sizes. */
#define HIST__MAX_CPUS 65536
#define HIST__MAX_PAGE_SIZE (UINT32_C(1) << 26)
#define HIST__MAX_CHUNK_BYTES (UINT32_C(1) << 27)	/* one zstd chunk of pages */

/*
 * Append a buffer named NAME (copied; "" is the top one) with NR_CPUS
 * zeroed CPU entries for the caller to fill, into *OUT (valid until the
 * next add).  0, or a negative errno (out of memory, past 4096 buffers)
 * with td->err set.
 */
int hist__buf_add(struct hist_tracedat *td, const char *name, const char *clock,
		  uint32_t page_size, uint32_t nr_cpus, struct hist__buffer **out) HIST__INTERNAL;

/* The sub-buffer size PS, checked against header_page: 0 or -HIST_EINVAL. */
int hist__buf_page_size(struct hist_tracedat *td, uint32_t ps) HIST__INTERNAL;

/*
 * Check the NR CPU entries CPUS of a buffer against the file and set up
 * the streams over them (none set up before), and the lost-event tables.
 * Data the file was cut inside of keeps its whole pages or chunks and
 * leaves a message in the stream's cut[].  0, or a negative errno with
 * td->err set.
 */
int hist__buf_setup_cpus(struct hist_tracedat *td, const struct hist__cpu_ent *cpus,
			 uint32_t nr, int compressed) HIST__INTERNAL;

/* Use buffer K of td->bufs: its page size, clock and streams. */
int hist__buf_use(struct hist_tracedat *td, uint32_t k) HIST__INTERNAL;

/*
 * A cut v7 file lost its BUFFER option: find the CPU data by its layout,
 * from BODY (the file offset of the compressed buffer section's body).
 * 0 with *CPUS (malloc()ed) and *NR set and td->damage extended, or -1.
 */
int hist__buf_recover(struct hist_tracedat *td, uint64_t body,
		      struct hist__cpu_ent **cpus, uint32_t *nr) HIST__INTERNAL;

/* Note the first open-time damage (records can still be read). */
void hist__note_damage(struct hist_tracedat *td, const char *fmt, ...)
	__attribute__((format(printf, 2, 3))) HIST__INTERNAL;

#endif
