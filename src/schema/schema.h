/* SPDX-License-Identifier: MIT */
/*
 * Events as the host describes them, and the accessors that read a field
 * out of an untrusted record.
 *
 * Every read is bounded by the record length: a field (or a __data_loc
 * target) that lies outside the record reads as 0 or as an empty string,
 * never past the end.  Decisions that depend on the field kind are made
 * once, by picking an accessor from hist__field_ops[] at parse time.
 *
 * Layers (README "Architecture"): common < map [schema] < filter expr <
 * core < synth < actions < parse output < api < ftrace.
 * schema/ calls only common/.
 */
#ifndef HIST_SCHEMA_H
#define HIST_SCHEMA_H

#include "libhist.h"
#include "common/platform.h"

#define HIST__COMM_LEN 16
/*
 * The bytes of a string slot (the kernel's STR_VAR_LEN_MAX): what a
 * string variable or saved field keeps of its text in an element, the
 * size of comm and of a dynamic string as fields, and of a synthetic
 * event's static string field whatever its char[N] says.
 */
#define HIST__STR_VAR_LEN_MAX 256
#define HIST__STACK_MAX 16

struct hist__tlist;
struct hist__trigger;
struct hist__tindex;
struct hist__synth;

/* One hit's inputs, handed down to every evaluator of every trigger. */
struct hist__rec {
	const uint8_t *data;
	size_t len;
	const struct hist_hit *hit;
	const struct hist_host *host;
	const struct hist_event *ev;
	uint32_t depth;		 /* synthetic events generated above this one */
	uint32_t slot;		 /* cpu slot owned by this hit, or UINT32_MAX
				    (the maps' shared path), see
				    hist__slot_own() in core/ctx.h */
	const char *comm;	 /* resolved on first use, see hist__rec_comm() */
	char comm_buf[HIST__COMM_LEN];
	const uint64_t *stack;	 /* resolved on first use */
	uint32_t nr_stack;
	uint64_t stack_buf[HIST__STACK_MAX];
};

struct hist_event {
	struct hist_ctx *ctx;
	const struct hist_host *host;	/* the context's callbacks */
	uint32_t kernel;		/* the context's hist_ctx_opts.kernel, for
					   the layers below core/ */
	struct hist_event_desc desc;	/* strings and fields owned here */
	struct hist_field_desc *fields;
	int32_t common_pid;		/* index of common_pid, or -1 */
	/* Triggers in list order.  Written by the control thread with a
	 * release store after the list is fully built; read by hits with an
	 * acquire load (pairs with it), so a hit sees a complete list. */
	struct hist__tlist *triggers;
	uint32_t active;		/* relaxed mirror: triggers != NULL */
	struct hist__trigger *trig_head;  /* control-side list (list order) */
	struct hist__tindex *tindex;	/* its index (core/index.c), or NULL */
	uint32_t soft_disabled;		/* enable_event/disable_event state */
	uint32_t host_filtered;		/* hist_event_set_host_filtered(): the
					   host applied the triggers' filters */
	struct hist__synth *synth;	/* set for synthetic events */
	struct hist_event *next;	/* context's list */
	char *filter_text;		/* the event's own filter file */
	hist_filter *filter;
	struct hist__retired retire;	/* removal of a synthetic event */
};

/* Accessors of one field kind: read as integer / as string view. */
struct hist__field_ops {
	uint64_t (*read_int)(const struct hist_field_desc *f,
			     const struct hist__rec *r);
	/* *s points into the record; returns the length before the NUL. */
	size_t (*read_str)(const struct hist_field_desc *f,
			   const struct hist__rec *r, const char **s);
};
extern const struct hist__field_ops hist__field_ops[] HIST__INTERNAL;

/* Copy DESC (strings, fields) into a new event owned by CTX. */
struct hist_event *hist__event_new(struct hist_ctx *ctx,
				   const struct hist_host *host,
				   const struct hist_event_desc *desc) HIST__INTERNAL;
void hist__event_free(struct hist_event *ev) HIST__INTERNAL;

/* The field called NAME (N bytes), or NULL. */
const struct hist_field_desc *hist__event_field(const struct hist_event *ev,
						const char *name, size_t n) HIST__INTERNAL;

/* True for the kinds that hold text. */
bool hist__field_is_string(const struct hist_field_desc *f) HIST__INTERNAL;

/* SIZE (1, 2, 4 or 8; else 0) bytes at P as an unsigned integer: records
 * are in host byte order, like the kernel's own reads. */
static inline uint64_t hist__read_le(const uint8_t *p, uint32_t size)
{
	switch (size) {
	case 1:
		return p[0];
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return v;
	}
	case 8: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
	return 0;
}

static inline uint64_t hist__sign_extend(uint64_t v, uint32_t size, bool is_signed)
{
	unsigned shift;

	if (!is_signed || size >= 8)
		return v;
	shift = 64 - size * 8;
	return (uint64_t)((int64_t)(v << shift) >> shift);
}

/* What hist__read_int() returns for an integer field F (HIST_FIELD_INT)
 * of the record DATA, LEN bytes: 0 when the record does not hold it. */
static inline uint64_t hist__int_at(const struct hist_field_desc *f, const uint8_t *data,
				    size_t len)
{
	if ((uint64_t)f->offset + f->size > len)
		return 0;
	return hist__sign_extend(hist__read_le(data + f->offset, f->size), f->size,
				 f->is_signed);
}

static inline uint64_t hist__read_int(const struct hist_field_desc *f,
				      const struct hist__rec *r)
{
	return hist__field_ops[f->kind].read_int(f, r);
}

static inline size_t hist__read_str(const struct hist_field_desc *f,
				    const struct hist__rec *r, const char **s)
{
	return hist__field_ops[f->kind].read_str(f, r, s);
}

/* Bounds of a __data_loc / __rel_loc payload: 0 and *off, *len set when
 * inside the record, -1 otherwise. */
int hist__field_loc(const struct hist_field_desc *f, const struct hist__rec *r,
		    uint32_t *off, uint32_t *len) HIST__INTERNAL;

/* Frames of a stack field (HIST_FIELD_STACK / long arrays), at most MAX. */
unsigned hist__read_stack(const struct hist_field_desc *f,
			  const struct hist__rec *r, uint64_t *ips,
			  unsigned max) HIST__INTERNAL;

/* Prepare R for one hit (inline: every hit starts here). */
static inline void hist__rec_init(struct hist__rec *r, const struct hist_event *ev,
				  const void *data, size_t len, const struct hist_hit *hit)
{
	r->data = data;
	r->len = data ? len : 0;
	r->hit = hit;
	r->host = ev->host;
	r->ev = ev;
	r->depth = 0;
	r->slot = UINT32_MAX;
	r->comm = NULL;
	r->stack = NULL;
	r->nr_stack = 0;
}

/* Pid of the current task: hit->pid, else the common_pid field. */
int32_t hist__rec_pid(const struct hist__rec *r) HIST__INTERNAL;
/* Comm of the current task (hit->comm, else host->comm(pid), else
 * "<...>"), NUL-terminated, at most 15 characters. */
const char *hist__rec_comm(struct hist__rec *r) HIST__INTERNAL;
/* The kernel stack at this hit (hit->stack or the host provider). */
unsigned hist__rec_stack(struct hist__rec *r, const uint64_t **ips) HIST__INTERNAL;

#endif
