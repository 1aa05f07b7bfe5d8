/* SPDX-License-Identifier: MIT */
/*
 * Private to src/filter/: the compiled form of a filter, shared by the
 * compiler (filter.c) and the evaluator (filter_match.c).
 */
#ifndef HIST_FILTER_INT_H
#define HIST_FILTER_INT_H

#include "filter/filter.h"

#define FILTER_STR_MAX	 256	/* a quoted value holds at most 255 bytes */
#define FILTER_NUM_MAX	 24	/* a number is shorter than 24 characters */
#define FILTER_CPU_BITS	 1024	/* highest CPU a CPUS{} list may name + 1 */
#define FILTER_CPU_WORDS (FILTER_CPU_BITS / 64)
#define FILTER_SYM_MAX	 256

/* Operators, in the order they are tried ("<=" before "<"). */
enum { OP_GLOB, OP_NE, OP_EQ, OP_LE, OP_LT, OP_GE, OP_GT, OP_BAND, OP_COUNT };

/* What the kernel's filter_assign_type() would call a field. */
enum { FT_OTHER, FT_STATIC_STR, FT_DYN_STR, FT_PTR_STR, FT_CPUMASK, FT_CPU,
       FT_COMM };

/* Compiled predicate kinds. */
enum {
	PK_FALSE,	/* never true: field of no comparable size, char * */
	PK_INT,		/* numeric field vs constant */
	PK_INT_MASK,	/* numeric field (a cpu number) vs several cpus */
	PK_CPU,		/* current cpu vs constant */
	PK_CPU_MASK,	/* current cpu vs several cpus */
	PK_MASK,	/* cpumask field vs several cpus */
	PK_MASK_CPU,	/* cpumask field vs one cpu */
	PK_STR,		/* string field vs pattern */
	PK_COMM,	/* current comm vs pattern */
	PK_FUNC,	/* address field inside a function */
};

/* How a string pattern matches (the kernel's regex types). */
enum { M_FULL, M_FRONT, M_MIDDLE, M_END, M_GLOB };

struct fpred {
	uint8_t kind;
	uint8_t op;
	uint8_t match;		/* M_* for strings */
	uint8_t neg;		/* string result inverted (!=, "!pattern") */
	uint32_t t, f;		/* next predicate when true / when false */
	uint32_t plen;
	uint64_t val;		/* constant, cpu, or function start */
	uint64_t val2;		/* function size */
	char *pat;		/* NUL-terminated, plen bytes */
	uint64_t *mask;		/* FILTER_CPU_WORDS words */
	struct hist_field_desc fd; /* private copy; kind picks the accessor */
};

/*
 * A predicate of a plain filter (an integer field against a constant)
 * compiled to one unsigned range test, so that evaluating it takes no
 * branch on the operator, the field's size or its sign:
 *
 *	match = ((((v & AND) ^ FLIP) - LO) < SPAN) != NEG
 *
 * V is the field's value as the general evaluator reads it (sign
 * extended).  FLIP (the sign bit, for a signed comparison) turns signed
 * order into unsigned order; [LO, LO + SPAN) is the interval of matching
 * values, modulo 2^64; NEG inverts (!=, <=, >=).  '&' is AND = the
 * constant, LO = 1, SPAN = 2^64 - 1: any bit in common.
 * FAST_END: OFF + 8 for a field of 1, 2, 4 or 8 bytes (read with one
 * 8-byte load while the record holds 8 bytes from OFF, shifted into
 * place by SHL with its sign extended, and masked by ZMASK, which keeps
 * an unsigned field's own bits), else UINT64_MAX (always read by the
 * general reader).
 */
struct fplain {
	uint64_t and_mask, flip, lo, span;
	uint64_t fast_end, zmask;
	uint32_t t, f;		/* as in struct fpred */
	uint32_t off;
	uint8_t shl;		/* 64 - 8 * size */
	bool neg;
	const struct hist_field_desc *fd;	/* the predicate's own copy */
};

struct hist_filter {
	const struct hist_event *ev;
	char *text;
	uint32_t nr;
	struct fpred *preds;
	/* when every predicate compares an integer field of the record with
	 * a constant (a plain filter: hist__filter_match_data() needs no
	 * hist__rec), the predicates compiled; else NULL */
	struct fplain *plain_preds;
	struct hist__retired retire;	/* replaced event filters */
};

static inline bool mask_test(const uint64_t *m, uint64_t cpu)
{
	return cpu < FILTER_CPU_BITS && ((m[cpu / 64] >> (cpu % 64)) & 1);
}

#endif
