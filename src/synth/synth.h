/* SPDX-License-Identifier: MIT */
/*
 * Synthetic events: definitions (synthetic_events / dynamic_events text and
 * the in-code API), their record layout (the kernel's: common header, then
 * one 8-byte slot per numeric field, 256 bytes per static string, u32
 * data_loc slots for dynamic strings and stacks with the data appended),
 * listings, format files, and generation of records from action params.
 *
 * A synthetic event is a full event of the context (system "synthetic"):
 * triggers attach to it, and each generated record runs them.
 *
 * Layers (README "Architecture"): common < map schema < filter expr < core
 * < [synth] < actions < parse output < api < ftrace.
 * synth/ calls core/ (events, hits) and below.
 */
#ifndef HIST_SYNTH_H
#define HIST_SYNTH_H

#include "core/ctx.h"

#define HIST__SYNTH_FIELDS_MAX 64
/* Frames a stack field holds (the kernel's HIST_STACKTRACE_DEPTH) */
#define HIST__SYNTH_STACK_DEPTH 16
/* First event ID handed out; the lowest free ID from here is used */
#define HIST__SYNTH_ID_BASE 1000
/* Largest record a definition can produce (64 static strings) */
#define HIST__SYNTH_REC_MAX (8 + HIST__SYNTH_FIELDS_MAX * (HIST__STR_VAR_LEN_MAX + 8))

struct hist__synth_field {
	char *name;
	char *type;		/* as listed: "u64", "pid_t", "char[16]",
				   "char[]", "unsigned long[]" */
	uint32_t size;		/* declared size: 8 u64, 4 pid_t, 16 char[16];
				   8 for dynamic fields (the data_loc slot) */
	uint32_t offset;	/* byte offset of the field's slot in a record */
	bool is_signed;
	bool is_string;
	bool is_dynamic;	/* char[] / unsigned long[]: data_loc slot */
	bool is_stack;		/* unsigned long[] / long[] */
};

struct hist__synth {
	struct hist__synth *next;	/* context's list, definition order */
	char *name;
	struct hist__synth_field *fields;
	uint32_t nr_fields;
	struct hist_event *ev;		/* "synthetic/<name>" in the context */
	uint32_t users;			/* actions that generate it */
	uint32_t id;			/* common_type of its records */
	uint32_t fixed_size;		/* header + slots; dynamic data
					   starts here */
	struct hist__retired retire;
};

/*
 * One write to synthetic_events (DYNAMIC 0) or dynamic_events (1): define,
 * or delete with "!name" / "-:name".  Logs error_log entries like the
 * kernel (loc "synthetic_events" / "dynamic_events").
 * Context: control thread; allocates.
 */
int hist__synth_cmd(struct hist_ctx *ctx, const char *line, int dynamic,
		    struct hist_error *err) HIST__INTERNAL;
/* Truncating write: delete every synthetic event unless one is busy. */
int hist__synth_truncate(struct hist_ctx *ctx) HIST__INTERNAL;
int hist__synth_print(struct hist_ctx *ctx, int dynamic, hist_write_fn write,
		      void *arg) HIST__INTERNAL;
struct hist__synth *hist__synth_find(struct hist_ctx *ctx, const char *name,
				     size_t n) HIST__INTERNAL;
/* Free every definition (context teardown). */
void hist__synth_free_all(struct hist_ctx *ctx) HIST__INTERNAL;

/*
 * Generate one record of S from VALS (one per field: the u64 value, or for
 * string fields a pointer to NUL-terminated text cast to uintptr_t, or for
 * stack fields a pointer to a 0-terminated u64 array), as current task
 * PARENT's event: hands the record to host->synth_event and runs S's
 * triggers through hist_event_hit().  Nothing is built when there is
 * neither a callback nor a trigger.  PARENT may be NULL (pid 0, no hit).
 * Context: hot path; no allocation (the record is built on the stack).
 */
void hist__synth_emit(struct hist__synth *s, const uint64_t *vals,
		      struct hist__rec *parent) HIST__INTERNAL;

/*
 * The event's `format` file, as tracefs shows it for a synthetic event.
 * Context: control thread; does not allocate.
 */
int hist__synth_print_format(struct hist__synth *s, hist_write_fn write,
			     void *arg) HIST__INTERNAL;

/* Busy: an action generates it or a trigger is attached (EBUSY). */
bool hist__synth_busy(const struct hist__synth *s) HIST__INTERNAL;

/*
 * Register a parsed definition: takes ownership of FIELDS (array and
 * strings, freed on failure too).  0 or -errno; *OUT set on success.
 */
int hist__synth_register(struct hist_ctx *ctx, const char *name, size_t n,
			 struct hist__synth_field *fields, uint32_t nr_fields,
			 struct hist__synth **out) HIST__INTERNAL;

/* Delete S: -HIST_EBUSY if busy, else unregister its event and free it. */
int hist__synth_delete(struct hist_ctx *ctx, struct hist__synth *s) HIST__INTERNAL;

/*
 * Run one synthetic_events command without the write-buffer handling
 * (no line splitting, no comment stripping): the path the in-code API's
 * generated commands take.
 */
int hist__synth_run(struct hist_ctx *ctx, const char *cmd,
		    struct hist_error *err) HIST__INTERNAL;

/* Size a field type string has (the kernel's synth_field_size): > 0 the
 * size, 0 a dynamic string/stack or an unknown type, < 0 a bad array. */
int hist__synth_type_size(const char *type) HIST__INTERNAL;

#endif
