/* SPDX-License-Identifier: MIT */
/*
 * Compiled hist fields: keys, values, variables and the expressions that
 * combine them.  A field is a small tree of nodes; each node carries the
 * accessor chosen for it at parse time (fn / str), so evaluating a field
 * on the hot path is a few indirect calls and no decisions on strings.
 *
 * Layers (README "Architecture"): common < map schema < filter [expr] <
 * core < synth < actions < parse output < api < ftrace.
 * expr/ calls schema/ and common/; variables through hist__var_ops.
 */
#ifndef HIST_EXPR_H
#define HIST_EXPR_H

#include "schema/schema.h"
#include "common/fmt.h"

struct hist__hist;
struct hist__field;

/* Per-hit evaluation state, shared by every field of one trigger. */
struct hist__eval {
	struct hist__rec *r;
	const struct hist__hist *h;
	uint8_t *payload;	   /* current map element's payload, or NULL */
	uint64_t *refs;		   /* resolved variable references */
	/* the hit's own copies of the texts and stacks its references
	 * name, HIST__STR_VAR_LEN_MAX bytes per reference (core/sslot.h),
	 * or NULL when the hist references none */
	uint8_t *texts;
	uint64_t ts;		   /* common_timestamp in this hist's unit */
};

enum hist__ffl {
	HIST__F_HITCOUNT = 1u << 0,
	HIST__F_KEY = 1u << 1,
	HIST__F_STRING = 1u << 2,
	HIST__F_HEX = 1u << 3,
	HIST__F_SYM = 1u << 4,
	HIST__F_SYM_OFFSET = 1u << 5,
	HIST__F_EXECNAME = 1u << 6,
	HIST__F_SYSCALL = 1u << 7,
	HIST__F_STACKTRACE = 1u << 8,
	HIST__F_LOG2 = 1u << 9,
	HIST__F_TIMESTAMP = 1u << 10,
	HIST__F_TIMESTAMP_USECS = 1u << 11,
	HIST__F_VAR = 1u << 12,
	HIST__F_EXPR = 1u << 13,
	HIST__F_VAR_REF = 1u << 14,
	HIST__F_CPU = 1u << 15,
	HIST__F_ALIAS = 1u << 16,
	HIST__F_BUCKET = 1u << 17,
	HIST__F_CONST = 1u << 18,
	HIST__F_PERCENT = 1u << 19,
	HIST__F_GRAPH = 1u << 20,
	HIST__F_COMM = 1u << 21,	/* common_comm / comm */
	HIST__F_READ_ONCE = 1u << 22,	/* consuming var ref (expr operand) */
};

enum hist__op { HIST__OP_NONE, HIST__OP_PLUS, HIST__OP_MINUS, HIST__OP_MULT,
		HIST__OP_DIV, HIST__OP_UNARY_MINUS };

struct hist__field {
	uint64_t (*fn)(const struct hist__field *f, struct hist__eval *e);
	/* strings: view of the text (points into record/element/buffer) */
	size_t (*str)(const struct hist__field *f, struct hist__eval *e,
		      const char **s);
	uint32_t flags;			/* HIST__F_* */
	uint32_t size;			/* bytes of the value (key slot sizing) */
	bool is_signed;
	uint8_t op;			/* enum hist__op for expressions */
	const struct hist_field_desc *ef; /* event field, or NULL */
	char *name;			/* display name: "prev_pid", "common_timestamp" */
	char *type;			/* C type: "pid_t", "u64", "char[16]" */
	char *var_name;			/* for variables: "ts0" */
	struct hist__field *operands[2];
	uint64_t constant;		/* constants; divisor multiplier */
	uint64_t bucket;		/* .buckets=N */
	int32_t var_idx;		/* slot of this variable in the element */
	int32_t ref_idx;		/* for refs: index into eval->refs */
	struct hist__hist *ref_hist;	/* for refs: the defining hist */
	int32_t ref_var_idx;		/* ... and the variable's slot there */
	const struct hist__field *ref_var; /* ... and the variable's field */
	char *ref_system, *ref_event;	/* for refs: as written (qualified) */
	uint32_t key_offset;		/* keys: offset in the compound key */
	/* string and stack variables: their slot in the element's payload
	 * (core/sslot.h), given by layout() at install; storage, not
	 * identity, so hist__hist_match() never compares it */
	uint32_t slot_off;
	uint32_t key_size;		/* keys: slot bytes in the compound key */
};

/*
 * Errors found while parsing.  Like the kernel, one failing command can log
 * several error_log entries (an unknown $var logs "Couldn't find variable"
 * and then "Couldn't find field"), so every report is appended; the caret
 * token of each is located in the echoed command afterwards.
 */
#define HIST__PERR_MAX 4
struct hist__perr {
	int code;		/* negative errno of the failure (first one) */
	uint32_t nr;		/* logged entries */
	struct {
		int msg;	/* HIST_ERR_* */
		const char *tok; /* caret token (first occurrence) or NULL */
		size_t tok_len;
		uint32_t pos;	/* resolved position */
	} log[HIST__PERR_MAX];
};

/* Record a failure: CODE (kept if one is already set) and, when MSG >= 0,
 * an error_log entry with the caret on TOK (N bytes; NULL: position 0). */
void hist__perr_add(struct hist__perr *e, int code, int msg, const char *tok,
		    size_t n) HIST__INTERNAL;

struct hist__fctx;

/*
 * What the field parser needs of the histograms: variables live in the
 * triggers' histograms, which the runtime owns, so expr/ reaches them
 * through this table on its context (core/vars.c's hist__var_ops), as
 * core/ reaches actions through hist__hist.aops.  Context: control
 * thread, while a command is parsed.
 */
struct hist__var_ops {
	/* $VAR (VLEN bytes, the '$' excluded) of SYS.EVN (SYS NULL: of this
	 * command's onmatch() events first, then of any event): the field
	 * that defines it, with *DEF its hist and *IDX its slot there.
	 * NULL if unknown, or ambiguous (then fc->err says so). */
	const struct hist__field *(*find)(struct hist__fctx *fc, const char *sys, size_t slen,
					  const char *evn, size_t elen, const char *var,
					  size_t vlen, struct hist__hist **def, int *idx);
	/* $VAR (VLEN bytes with the '$') naming a plain-field variable of
	 * this command, which then stands for that field: true with its
	 * text in *FIELD (*FLEN bytes). */
	bool (*local_field)(struct hist__fctx *fc, const char *sys, size_t slen,
			    const char *evn, size_t elen, const char *var, size_t vlen,
			    const char **field, size_t *flen);
	/* Record REF as a reference of fc->h: sets REF->ref_idx (one per
	 * distinct variable); read as an operand (fc->in_expr), the
	 * variable is consumed when read.  0, or -HIST_EINVAL when fc->h
	 * has no room for another. */
	int (*add_ref)(struct hist__fctx *fc, struct hist__field *ref);
	/* What a field of fc->h needs on every hit: HIST__NEED_*. */
	void (*need)(struct hist__fctx *fc, uint32_t what);
};
#define HIST__NEED_TS 1u	 /* common_timestamp */
#define HIST__NEED_TS_USECS 2u	 /* ... as .usecs */
#define HIST__NEED_COMM 4u	 /* .execname: the element keeps the comm */

/* What a field parser needs to know about where it is. */
struct hist__fctx {
	const struct hist__var_ops *vars;	/* never NULL */
	const struct hist_event *ev;
	struct hist__hist *h;	 /* the hist being built (opaque here) */
	struct hist__perr *err;
	uint32_t flags;		 /* HIST__F_KEY / HIST__F_VAR context */
	int n_subexprs;
	bool in_expr;		 /* parsing an operand (no alias, read-once) */
	bool remove;		 /* parsing a !hist removal */
	/* this command's variable definitions, for the $x -> field rule */
	struct {
		const char *name, *expr;
		size_t name_n, expr_n;
	} defs[16];
	uint32_t nr_defs;
	/* defs[0..nr_split_defs) are parsed: the kernel parses an
	 * expression in place, cutting its text at the operators, and a
	 * later $x of this command reads that cut text */
	uint32_t nr_split_defs;
	/* this command's action texts (onmatch(...)...) */
	const char *action_text[8];
	size_t action_n[8];
	uint32_t nr_actions;
};

/* Parse TEXT (N bytes) into a field tree.  NULL with ctx->err filled. */
struct hist__field *hist__field_parse(struct hist__fctx *fc, const char *text,
				      size_t n) HIST__INTERNAL;
/* Parse TEXT as one atom (no operators): action params. */
struct hist__field *hist__field_parse_atom(struct hist__fctx *fc, const char *text,
					   size_t n) HIST__INTERNAL;
void hist__field_free(struct hist__field *f) HIST__INTERNAL;

/* Canonical text of F as the trigger info line prints it (no var name). */
void hist__field_print(struct hist__sb *sb, const struct hist__field *f) HIST__INTERNAL;
/* The name used in sort= resolution and in entry lines. */
const char *hist__field_name(const struct hist__field *f) HIST__INTERNAL;

/* True if F is an integer field read as is (no modifier that changes the
 * value): *OFF, *SIZE and *IS_SIGNED then say how to read it. */
bool hist__field_plain_int(const struct hist__field *f, uint32_t *off, uint32_t *size,
			   bool *is_signed) HIST__INTERNAL;

/* True if F is a fixed-size char array of the record read as is: *OFF
 * and *SIZE are the array's (its text ends at the first NUL or SIZE). */
bool hist__field_plain_str(const struct hist__field *f, uint32_t *off,
			   uint32_t *size) HIST__INTERNAL;

/* Evaluate as u64 / as string. */
static inline uint64_t hist__field_val(const struct hist__field *f,
				       struct hist__eval *e)
{
	return f->fn(f, e);
}

bool hist__hfield_is_string(const struct hist__field *f) HIST__INTERNAL;
/* True if F or any operand uses common_timestamp.usecs. */
bool hist__field_has_usecs(const struct hist__field *f) HIST__INTERNAL;
bool hist__field_has_timestamp(const struct hist__field *f) HIST__INTERNAL;

/* The kernel's division by a constant (multiply-shift for small values). */
uint64_t hist__div_const(uint64_t a, uint64_t c) HIST__INTERNAL;

#endif
