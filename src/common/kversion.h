/* SPDX-License-Identifier: MIT */
/*
 * Kernel versions: what differs between the kernels libhist reproduces
 * (hist_ctx_opts.kernel).  The differences are the rows of one table in
 * kversion.c, each with what every recorded kernel does and the recorded
 * case that shows it; the parser, the filter and the printers ask the
 * table (hist__kv()) at the one place where each difference acts, never
 * compare version numbers themselves.
 *
 * Columns: Linux 6.1 and Linux 6.12 (the recorded kernels,
 * test/conformance/cases and cases-6.12) and "latest" (kernel == 0).  A
 * version between two recorded ones behaves as the nearest recorded one
 * below it (6.6 as 6.1, 6.18 as 6.12), a version below 6.1 as 6.1.
 * "latest" is the newest language libhist knows: every command libhist
 * implements (6.1's .percent/.graph on values, 6.16's common_comm),
 * printed and logged as the newest recorded kernel does.
 *
 * Depends on nothing but libhist.h: every layer may ask.
 */
#ifndef HIST_COMMON_KVERSION_H
#define HIST_COMMON_KVERSION_H

#include <stdint.h>

#include "libhist.h"
#include "platform.h"

/* The rows of the table (kversion.c has each one's cases). */
enum hist__kv_row {
	HIST__KV_HITCOUNT_FIELD,	/* hitcount as a field: with a modifier,
					   as a key, variable or operand */
	HIST__KV_VAL_PERCENT,		/* .percent / .graph on a value */
	HIST__KV_NOHITCOUNT,		/* :nohitcount, :NOHC */
	HIST__KV_COMMON_STACKTRACE,	/* the field common_stacktrace */
	HIST__KV_STACKTRACE_MOD,	/* FIELD.stacktrace */
	HIST__KV_STACKTRACE_NOT_KEY,	/* the alias stacktrace outside keys= */
	HIST__KV_STACKTRACE_LABEL,	/* keys=stacktrace prints as
					   common_stacktrace */
	HIST__KV_TRIGGER_FILTER_LOG,	/* a trigger's filter errors go to
					   error_log */
	HIST__KV_COMM_FIELD,		/* common_comm, comm, COMM in hists */
	HIST__KV_STACKTRACE_UPPER,	/* the alias STACKTRACE */
	HIST__KV_FILTER_CPUS,		/* filters: FIELD op CPUS{list} */
	HIST__KV_FILTER_FUNCTION,	/* filters: FIELD.function == SYMBOL */
	HIST__KV_NR
};

/* What one kernel does (a cell of the table). */
enum hist__kv_how {
	HIST__KV_NEW = 0,	/* as latest: accepted, the newer spelling,
				   logged */
	HIST__KV_OLD,		/* the older printing or logging */
	HIST__KV_REJECT,	/* -EINVAL and MSG in error_log, caret AT */
	HIST__KV_REJECT_SILENT,	/* -EINVAL, nothing logged */
};

/* Where the caret of a rejection points. */
enum hist__kv_at {
	HIST__KV_AT_FIELD = 0,	/* the field name (start of the atom) */
	HIST__KV_AT_MODIFIER,	/* the text after the field's '.' */
};

struct hist__kv_cell {
	uint8_t how;	/* enum hist__kv_how */
	uint8_t at;	/* enum hist__kv_at, for HIST__KV_REJECT */
	int16_t msg;	/* enum hist_err_msg, for HIST__KV_REJECT */
};

/* What KERNEL (hist_ctx_opts.kernel) does about ROW.  Never NULL. */
const struct hist__kv_cell *hist__kv(uint32_t kernel, enum hist__kv_row row) HIST__INTERNAL;

/* True when KERNEL does ROW as latest does. */
static inline int hist__kv_new(uint32_t kernel, enum hist__kv_row row)
{
	return hist__kv(kernel, row)->how == HIST__KV_NEW;
}

#endif
