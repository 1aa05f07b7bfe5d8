/* SPDX-License-Identifier: MIT */
/*
 * libhist synthetic events from code: the in-kernel API of
 * trace_events_synth (synth_event_create(), synth_event_gen_cmd_*(),
 * synth_event_trace*()) for a host that defines and generates synthetic
 * events itself, plus the `format` file of a synthetic event.
 *
 * Definitions made here are the same objects as those written to
 * synthetic_events: they list, delete and accept hist triggers alike.
 * The step-by-step builder produces the kernel's command text
 * (" name  type field; type field;") and runs it as a synthetic_events
 * command, so errors reach the error_log exactly as the kernel's do.
 *
 * Generated records go to host->synth_event and then through the
 * synthetic event's own triggers (hist_event_hit()).  A generation is a
 * no-op when there is neither a synth_event callback nor a trigger (the
 * kernel's "not enabled").
 */
#ifndef LIBHIST_SYNTH_H
#define LIBHIST_SYNTH_H

#include "libhist.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HIST_SYNTH_FIELDS_MAX 64
/* Buffer size hist_synth_create() builds its command in
 * (the kernel's MAX_DYNEVENT_CMD_LEN). */
#define HIST_SYNTH_CMD_LEN 2048

/* One field: TYPE as in synthetic_events ("u64", "char[16]", "char[]",
 * "unsigned long[]"), NAME possibly with an array part ("comm[16]"). */
struct hist_synth_field_desc {
	const char *type;
	const char *name;
};

/*
 * Define synthetic event NAME with N_FIELDS fields in one call.
 * Context: control thread; allocates.  Returns 0, -HIST_EINVAL (bad
 * field, more than 64 fields; the error_log says which), -HIST_EEXIST,
 * -HIST_E2BIG (command longer than HIST_SYNTH_CMD_LEN) or -HIST_ENOMEM.
 */
int hist_synth_create(hist_ctx *ctx, const char *name,
		      const struct hist_synth_field_desc *fields,
		      unsigned n_fields, struct hist_error *err);

/* Delete NAME.  -HIST_ENOENT if unknown, -HIST_EBUSY while an action or a
 * trigger uses it or an hist_synth_event_get() reference is held. */
int hist_synth_delete(hist_ctx *ctx, const char *name);

/* ---- building a definition step by step (caller's buffer) ---- */

struct hist_synth_cmd {
	hist_ctx *ctx;
	char *buf;
	size_t cap, len;	/* len == cap: overflowed */
	const char *name;	/* event name, from hist_synth_cmd_start() */
	unsigned n_fields;
};

/* Start an empty command in BUF (CAP bytes).  Context: any thread. */
void hist_synth_cmd_init(struct hist_synth_cmd *cmd, hist_ctx *ctx, char *buf,
			 size_t cap);
/* Name the event (NAME must stay valid until hist_synth_cmd_end()); fields
 * follow with the add calls.  0 or -HIST_E2BIG. */
int hist_synth_cmd_start(struct hist_synth_cmd *cmd, const char *name);
/* Name the event and add N fields (-HIST_EINVAL if N > 64). */
int hist_synth_cmd_array_start(struct hist_synth_cmd *cmd, const char *name,
			       const struct hist_synth_field_desc *fields,
			       unsigned n);
/* Add "TYPE NAME;".  -HIST_EINVAL for a NULL or unknown type (checked
 * like the kernel: only TYPE, by its size) or a 65th field. */
int hist_synth_cmd_add_field(struct hist_synth_cmd *cmd, const char *type,
			     const char *name);
/* Add "TYPE_NAME;" as given, unchecked. */
int hist_synth_cmd_add_field_str(struct hist_synth_cmd *cmd,
				 const char *type_name);
int hist_synth_cmd_add_fields(struct hist_synth_cmd *cmd,
			      const struct hist_synth_field_desc *fields,
			      unsigned n);
/*
 * Run the built command: defines the event.  Context: control thread;
 * allocates.  Returns what writing the command to synthetic_events
 * returns, -HIST_E2BIG if the buffer overflowed.
 */
int hist_synth_cmd_end(struct hist_synth_cmd *cmd, struct hist_error *err);

/*
 * The `format` file of synthetic event NAME (name, ID, fields with
 * offset/size/signed, print fmt), byte for byte as tracefs shows it.
 * Context: control thread.  0, -HIST_ENOENT or the writer's error.
 */
int hist_synth_print_format(hist_ctx *ctx, const char *name,
			    hist_write_fn write, void *arg);

/* ---- generating events ---- */

/*
 * The event of synthetic event NAME, held: it cannot be deleted until
 * hist_synth_event_put() (like trace_get_event_file()).  NULL if unknown.
 * Context: control thread.
 */
hist_event *hist_synth_event_get(hist_ctx *ctx, const char *name);
void hist_synth_event_put(hist_event *ev);

/*
 * Generate one event of EV from VALS, one per field in order: the
 * integer value, a string field's `const char *` cast through uintptr_t,
 * a stack field's 0-terminated `const uint64_t *` likewise.  HIT is the
 * current task's hit (pid, cpu, time), or NULL.
 * Context: any thread; no allocation.  0, or -HIST_EINVAL if EV is not a
 * synthetic event or N_VALS is not its field count.
 */
int hist_synth_trace_array(hist_event *ev, const uint64_t *vals,
			   unsigned n_vals, const struct hist_hit *hit);

/*
 * Piecewise generation: start, set every field with add_next_val (in
 * order) or add_val (by name) but not both, end.  Values are kept in the
 * state and the record is built at end, so strings passed as values must
 * stay valid until then; fields never set are 0.  Unlike the kernel,
 * dynamic strings and stacks may be set piecewise too.
 * Context: any thread; no allocation; the state is the caller's.
 */
struct hist_synth_trace_state {
	hist_event *ev;
	const struct hist_hit *hit;
	uint64_t vals[HIST_SYNTH_FIELDS_MAX];
	unsigned cur_field;
	unsigned char add_next, add_name, disabled;
};

int hist_synth_trace_start(hist_event *ev, struct hist_synth_trace_state *st,
			   const struct hist_hit *hit);
/* -HIST_EINVAL when mixed with add_val or past the last field. */
int hist_synth_add_next_val(struct hist_synth_trace_state *st, uint64_t val);
/* -HIST_EINVAL when mixed with add_next_val or FIELD is unknown. */
int hist_synth_add_val(struct hist_synth_trace_state *st, const char *field,
		       uint64_t val);
int hist_synth_trace_end(struct hist_synth_trace_state *st);

#ifdef __cplusplus
}
#endif
#endif /* LIBHIST_SYNTH_H */
