/* SPDX-License-Identifier: MIT */
/*
 * The one table of what differs between kernel versions (kversion.h says
 * how it is used).  Every row names the recorded cases that show it:
 * test/conformance/cases/NAME was recorded on Linux 6.1 (Debian
 * 6.1.192), cases-6.12/NAME on Linux 6.12 (Debian 6.12.95), both under
 * the oracle (test/oracle/).  A row without such a case does not belong
 * here: record one first.
 */
#include "common/kversion.h"

#define NEW	{ HIST__KV_NEW, 0, 0 }
#define OLD	{ HIST__KV_OLD, 0, 0 }
#define REJECT(msg, at)	{ HIST__KV_REJECT, HIST__KV_AT_##at, HIST_ERR_##msg }
#define SILENT	{ HIST__KV_REJECT_SILENT, 0, 0 }

/* The columns; col_version[] has the recorded ones. */
enum { COL_6_1, COL_6_12, COL_LATEST, NR_COLS };

static const uint32_t col_version[NR_COLS - 1] = {
	[COL_6_1] = HIST_KERNEL(6, 1),
	[COL_6_12] = HIST_KERNEL(6, 12),
};

static const struct hist__kv_cell table[HIST__KV_NR][NR_COLS] = {
	/*
	 * 6.1 knows hitcount only as the bare word of vals= and sort=: with
	 * a modifier, as a key, as a variable or as an operand it is a
	 * field it cannot find (caret at "hitcount"); 6.12 has the field
	 * (vals=hitcount.hex, keys=hitcount, h=hitcount, t=bytes_req+hitcount),
	 * but rejects .percent/.graph on it (next row).
	 * b57-hitcount-percent, k12-newer-vals, k16-hitcount-var.
	 */
	[HIST__KV_HITCOUNT_FIELD] = {
		REJECT(FIELD_NOT_FOUND, FIELD), NEW, NEW },
	/*
	 * .percent and .graph on values: 6.1 has them (a Debian 6.1.y
	 * backport), 6.12 rejects them on every value, hitcount too, with
	 * the caret at the field rather than the modifier.  On keys and
	 * variables both reject them at the modifier (b55-percent-on-key,
	 * b56-graph-on-var, same in both sets).
	 * g16-percent-graph, b57-hitcount-percent (cases-6.12).
	 */
	[HIST__KV_VAL_PERCENT] = {
		NEW, REJECT(BAD_FIELD_MODIFIER, FIELD), NEW },
	/*
	 * :nohitcount is an unknown attribute to 6.1: EINVAL, no log.
	 * b58-nohitcount.
	 */
	[HIST__KV_NOHITCOUNT] = {
		SILENT, NEW, NEW },
	/*
	 * common_stacktrace is no field in 6.1 (the key is spelled
	 * stacktrace).  b59-common-stacktrace.
	 */
	[HIST__KV_COMMON_STACKTRACE] = {
		REJECT(FIELD_NOT_FOUND, FIELD), NEW, NEW },
	/*
	 * FIELD.stacktrace is an unknown modifier to 6.1.
	 * b60-stacktrace-modifier.
	 */
	[HIST__KV_STACKTRACE_MOD] = {
		REJECT(BAD_FIELD_MODIFIER, MODIFIER), NEW, NEW },
	/*
	 * 6.1 knows the word stacktrace only as a key: as a variable (or
	 * anything else) it is a field it cannot find.  b80-stacktrace-var.
	 */
	[HIST__KV_STACKTRACE_NOT_KEY] = {
		REJECT(FIELD_NOT_FOUND, FIELD), NEW, NEW },
	/*
	 * keys=stacktrace: 6.12 calls the key common_stacktrace in the
	 * trigger info line, in every entry and in sort= (sort=common_stacktrace
	 * sorts by it; sort=stacktrace is "Sort field must be a key or a val"
	 * in both), 6.1 stacktrace, which no sort= can name.
	 * g18-stacktrace-key, k03-alias-stacktrace, k17-sort-common-stacktrace.
	 */
	[HIST__KV_STACKTRACE_LABEL] = {
		OLD, NEW, NEW },
	/*
	 * A hist trigger whose filter does not compile fails with the
	 * filter's errno in both; 6.12 also logs the filter's error
	 * ("event filter parse error", the filter text as the command, the
	 * caret of the event filter file), 6.1 logs nothing.
	 * b68-filter-unknown-field, b70-filter-string-vs-number,
	 * b71-filter-missing-quote, b73-filter-field-vs-field,
	 * b74-filter-unquoted-path, b77-filter-too-many-close.
	 */
	[HIST__KV_TRIGGER_FILTER_LOG] = {
		OLD, NEW, NEW },
	/*
	 * common_comm and the aliases comm/COMM (for events without a comm
	 * field) came with 6.16: neither measured kernel has them.
	 * k05-alias-comm.
	 */
	[HIST__KV_COMM_FIELD] = {
		REJECT(FIELD_NOT_FOUND, FIELD), REJECT(FIELD_NOT_FOUND, FIELD), NEW },
	/*
	 * keys=STACKTRACE: 6.1 knows only the lower-case word.  6.12 finds
	 * the generic field STACKTRACE and reads it as a FIELD.stacktrace:
	 * labelled STACKTRACE.stacktrace, every stack empty, so all hits
	 * share one entry.  k03-alias-stacktrace.
	 */
	[HIST__KV_STACKTRACE_UPPER] = {
		REJECT(FIELD_NOT_FOUND, FIELD), NEW, NEW },
	/*
	 * CPUS{list} in filters (6.6): to 6.1 the value is no number
	 * ("Invalid value (did you forget quotes)?"; a trigger's filter
	 * fails with EINVAL, unlogged).  k13-newer-filters.
	 */
	[HIST__KV_FILTER_CPUS] = {
		OLD, NEW, NEW },
	/*
	 * FIELD.function (6.3): to 6.1 the '.' ends the field name where an
	 * operator must follow ("Invalid operator").  k13-newer-filters.
	 */
	[HIST__KV_FILTER_FUNCTION] = {
		OLD, NEW, NEW },
};

/* The column of KERNEL: the nearest recorded version at or below it. */
static int column(uint32_t kernel)
{
	int c;

	if (kernel == HIST_KERNEL_LATEST)
		return COL_LATEST;
	for (c = COL_LATEST - 1; c > 0; c--)
		if (kernel >= col_version[c])
			return c;
	return 0;
}

const struct hist__kv_cell *hist__kv(uint32_t kernel, enum hist__kv_row row)
{
	static const struct hist__kv_cell none = NEW;

	if ((unsigned)row >= HIST__KV_NR)
		return &none;
	return &table[row][column(kernel)];
}

uint32_t hist_kernel_recorded(uint32_t kernel)
{
	int c = column(kernel);

	return c == COL_LATEST ? HIST_KERNEL_LATEST : col_version[c];
}

static int digits(const char **p, uint32_t *v)
{
	const char *s = *p;
	uint32_t n = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		if (n > 255)
			return -1;
		n = n * 10 + (uint32_t)(*s++ - '0');
	}
	if (n > 255)
		return -1;
	*p = s;
	*v = n;
	return 0;
}

int hist_kernel_parse(const char *text, uint32_t *kernel)
{
	const char *p = text;
	uint32_t maj, min;

	if (!text || !kernel)
		return -HIST_EINVAL;
	if (!strcmp(text, "latest") || !strcmp(text, "0")) {
		*kernel = HIST_KERNEL_LATEST;
		return 0;
	}
	if (digits(&p, &maj) || *p++ != '.' || digits(&p, &min) || !maj)
		return -HIST_EINVAL;
	/* a release goes on: "6.12.95+deb12-amd64", "6.1.0-56-amd64" */
	if (*p && *p != '.' && *p != '-' && *p != '+' && *p != '~' && *p != '_')
		return -HIST_EINVAL;
	*kernel = HIST_KERNEL(maj, min);
	return 0;
}
