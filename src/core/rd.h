/* SPDX-License-Identifier: MIT */
/*
 * Record readers of the plain hists' hit paths: a field read straight
 * from the record at an offset and size fixed at parse time, with no
 * evaluator call, for the hit variants (variants.c); what a reader
 * returns is exactly what the field's evaluator (expr.c) would.
 */
#ifndef HIST_CORE_RD_H
#define HIST_CORE_RD_H

#include "core/trigger.h"

/* How a field is read: known at parse time, so a variant that is told
 * a constant kind reads it without a size test. */
enum rd_kind { RD_ANY, RD_U64, RD_S32 };

/* Fill RD for F when F is a plain integer field of the record. */
static inline bool set_rd(struct hist__rd *rd, const struct hist__field *f)
{
	uint32_t off, size;
	bool sgn;

	if (!hist__field_plain_int(f, &off, &size, &sgn))
		return false;
	rd->off = off;
	rd->end = (uint64_t)off + size;
	rd->size = (uint8_t)size;
	rd->is_signed = sgn;
	return true;
}

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * Whether H is a plain aggregation, whatever its key: no time stamps,
 * variable references, variables, saved fields or actions, so that a hit
 * only adds its values under its key.  What every hit variant requires
 * before looking at the key (variants.c: simple_dims(), wide_dims()).
 */
static inline bool plain_aggregation(const struct hist__hist *h)
{
	return !h->uses_ts && !h->nr_refs && !h->nr_vars && !h->nr_fvars &&
	       !h->nr_save_vars && !h->nr_actions && !h->has_self_refs;
}

/* A hit's adds (1, V1, V2 for NV values) to SUMS of a map without
 * per-cpu sums: atomic, as every thread adds to them. */
static HIST__ALWAYS_INLINE void shared_add(uint64_t *sums, const uint32_t nv, uint64_t v1,
					   uint64_t v2)
{
	/* Relaxed: a sum orders nothing (contract 7 in map.c). */
	hist__add_relaxed(&sums[0], 1);
	if (nv > 1)
		hist__add_relaxed(&sums[1], v1);
	if (nv > 2)
		hist__add_relaxed(&sums[2], v2);
}

/* H's value readers (values 1.. of a hit variant), *END raised to
 * the end of each; false if a value is not a plain integer field. */
static inline bool set_val_rds(struct hist__hist *h, uint64_t *end)
{
	uint32_t i;

	for (i = 1; i < h->nr_vals; i++) {
		if (!set_rd(&h->rd_vals[i], h->vals[i]))
			return false;
		*end = max_u64(*end, h->rd_vals[i].end);
	}
	return true;
}

/* Field RD of a record that holds it (LEN >= RD->end), read as KIND
 * says when that is a constant. */
static HIST__ALWAYS_INLINE uint64_t rd_field_in(const struct hist__rd *rd, const uint8_t *data,
						const enum rd_kind kind)
{
	data += rd->off;
	if (kind == RD_U64 || (kind == RD_ANY && rd->size == 8)) {
		uint64_t v;

		memcpy(&v, data, 8);
		return v;
	}
	if (kind == RD_S32 || rd->size == 4) {
		uint32_t v;

		memcpy(&v, data, 4);
		return kind == RD_S32 || rd->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	if (rd->size == 2) {
		uint16_t v;

		memcpy(&v, data, 2);
		return rd->is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	return rd->is_signed ? (uint64_t)(int64_t)(int8_t)data[0] : data[0];
}

/* What the field's evaluator returns (ev_field_int), without the call:
 * 0 for a field the record is too short to hold. */
static inline uint64_t rd_field(const struct hist__rd *rd, const uint8_t *data, size_t len)
{
	return len < rd->end ? 0 : rd_field_in(rd, data, RD_ANY);
}

#endif
