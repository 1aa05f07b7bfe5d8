/* SPDX-License-Identifier: MIT */
/* Event descriptors and per-kind field accessors. */
#include "schema/schema.h"

static bool in_record(const struct hist__rec *r, uint32_t off, uint32_t size)
{
	return (uint64_t)off + size <= r->len;
}

static uint64_t int_read_int(const struct hist_field_desc *f,
			     const struct hist__rec *r)
{
	return hist__int_at(f, r->data, r->len);
}

static size_t no_str(const struct hist_field_desc *f, const struct hist__rec *r,
		     const char **s)
{
	(void)f;
	(void)r;
	*s = "";
	return 0;
}

/* Length of the text at P before the first NUL, at most MAX bytes. */
static size_t bounded_strlen(const uint8_t *p, size_t max)
{
	const void *nul = memchr(p, 0, max);

	return nul ? (size_t)((const uint8_t *)nul - p) : max;
}

static size_t fixed_read_str(const struct hist_field_desc *f,
			     const struct hist__rec *r, const char **s)
{
	uint32_t size = f->size;

	if (f->offset >= r->len)
		return no_str(f, r, s);
	if ((uint64_t)f->offset + size > r->len)
		size = (uint32_t)(r->len - f->offset);
	*s = (const char *)r->data + f->offset;
	return bounded_strlen(r->data + f->offset, size);
}

/*
 * The address of a char array reads as an integer when such a field is used
 * as a value: the kernel sums the string's kernel address (b16).  There is
 * no address in userspace that means anything, so use the offset; the sum
 * is as meaningless, and deterministic.
 */
static uint64_t str_read_int(const struct hist_field_desc *f,
			     const struct hist__rec *r)
{
	(void)r;
	return f->offset;
}

int hist__field_loc(const struct hist_field_desc *f, const struct hist__rec *r,
		    uint32_t *off, uint32_t *len)
{
	uint32_t word, o, l;

	if (f->size < 4 || !in_record(r, f->offset, 4))
		return -1;
	word = (uint32_t)hist__read_le(r->data + f->offset, 4);
	o = word & 0xffff;
	l = word >> 16;
	if (f->kind == HIST_FIELD_REL_STRING || f->kind == HIST_FIELD_REL_ARRAY)
		o += f->offset + f->size;
	if (!in_record(r, o, l))
		return -1;
	*off = o;
	*len = l;
	return 0;
}

static size_t loc_read_str(const struct hist_field_desc *f,
			   const struct hist__rec *r, const char **s)
{
	uint32_t off, len;

	if (hist__field_loc(f, r, &off, &len))
		return no_str(f, r, s);
	*s = (const char *)r->data + off;
	return bounded_strlen(r->data + off, len);
}

static size_t flex_read_str(const struct hist_field_desc *f,
			    const struct hist__rec *r, const char **s)
{
	if (f->offset >= r->len)
		return no_str(f, r, s);
	*s = (const char *)r->data + f->offset;
	return bounded_strlen(r->data + f->offset, r->len - f->offset);
}

const struct hist__field_ops hist__field_ops[] = {
	[HIST_FIELD_INT] = { int_read_int, no_str },
	[HIST_FIELD_STRING] = { str_read_int, fixed_read_str },
	[HIST_FIELD_DYN_STRING] = { str_read_int, loc_read_str },
	[HIST_FIELD_REL_STRING] = { str_read_int, loc_read_str },
	[HIST_FIELD_DYN_ARRAY] = { str_read_int, no_str },
	[HIST_FIELD_REL_ARRAY] = { str_read_int, no_str },
	[HIST_FIELD_ARRAY] = { str_read_int, no_str },
	[HIST_FIELD_PTR_STRING] = { int_read_int, no_str },
	[HIST_FIELD_STACK] = { str_read_int, no_str },
	[HIST_FIELD_FLEX_STRING] = { str_read_int, flex_read_str },
};

bool hist__field_is_string(const struct hist_field_desc *f)
{
	return f->kind == HIST_FIELD_STRING || f->kind == HIST_FIELD_DYN_STRING ||
	       f->kind == HIST_FIELD_REL_STRING ||
	       f->kind == HIST_FIELD_FLEX_STRING;
}

unsigned hist__read_stack(const struct hist_field_desc *f,
			  const struct hist__rec *r, uint64_t *ips, unsigned max)
{
	uint32_t off, len;
	unsigned n = 0;

	if (f->kind == HIST_FIELD_ARRAY) {
		off = f->offset;
		len = f->size;
		if (!in_record(r, off, len))
			return 0;
	} else if (hist__field_loc(f, r, &off, &len)) {
		return 0;
	}
	while (n < max && (n + 1) * 8 <= len) {
		uint64_t v = hist__read_le(r->data + off + n * 8, 8);

		if (!v)
			break;
		ips[n++] = v;
	}
	return n;
}

struct hist_event *hist__event_new(struct hist_ctx *ctx,
				   const struct hist_host *host,
				   const struct hist_event_desc *desc)
{
	struct hist_event *ev = hist__zalloc(sizeof(*ev));
	uint32_t i;

	if (!ev)
		return NULL;
	ev->ctx = ctx;
	ev->host = host;
	ev->common_pid = -1;
	ev->desc = *desc;
	/* nothing below may point at the host's memory: the failure path
	 * frees what was copied so far */
	ev->desc.nr_fields = 0;
	ev->desc.fields = NULL;
	ev->desc.system = hist__strdup(desc->system ? desc->system : "");
	ev->desc.name = hist__strdup(desc->name ? desc->name : "");
	ev->fields = hist__zalloc(sizeof(*ev->fields) * (desc->nr_fields + 1));
	if (!ev->desc.system || !ev->desc.name || !ev->fields)
		goto fail;
	ev->desc.fields = ev->fields;
	for (i = 0; i < desc->nr_fields; i++) {
		struct hist_field_desc *f = &ev->fields[i];

		*f = desc->fields[i];
		f->name = hist__strdup(desc->fields[i].name ? desc->fields[i].name : "");
		f->type = hist__strdup(desc->fields[i].type ? desc->fields[i].type : "");
		ev->desc.nr_fields = i + 1;
		if (!f->name || !f->type)
			goto fail;
		if (f->kind > HIST_FIELD_FLEX_STRING)
			f->kind = HIST_FIELD_ARRAY;
		if (!strcmp(f->name, "common_pid"))
			ev->common_pid = (int32_t)i;
	}
	return ev;
fail:
	hist__event_free(ev);
	return NULL;
}

void hist__event_free(struct hist_event *ev)
{
	uint32_t i;

	if (!ev)
		return;
	for (i = 0; i < ev->desc.nr_fields; i++) {
		hist__free((void *)ev->fields[i].name);
		hist__free((void *)ev->fields[i].type);
	}
	hist__free(ev->fields);
	hist__free((void *)ev->desc.system);
	hist__free((void *)ev->desc.name);
	hist__free(ev->filter_text);
	hist__free(ev);
}

const struct hist_field_desc *hist__event_field(const struct hist_event *ev,
						const char *name, size_t n)
{
	uint32_t i;

	for (i = 0; i < ev->desc.nr_fields; i++) {
		const char *fn = ev->fields[i].name;

		if (strlen(fn) == n && !memcmp(fn, name, n))
			return &ev->fields[i];
	}
	return NULL;
}

int32_t hist__rec_pid(const struct hist__rec *r)
{
	if (r->hit && r->hit->pid >= 0)
		return r->hit->pid;
	if (r->ev->common_pid >= 0)
		return (int32_t)hist__read_int(&r->ev->fields[r->ev->common_pid], r);
	return 0;
}

/* "swapper/CPU" into OUT (HIST__COMM_LEN bytes).  Not hist__sb_u64():
 * a hist__sb carries a 1 KiB buffer, stack a hit (perhaps in a signal
 * handler) should not pay for 16 bytes. */
static void idle_comm(char *out, uint32_t cpu)
{
	char digits[10];
	size_t n = 0, i;

	do {
		digits[n++] = (char)('0' + cpu % 10);
		cpu /= 10;
	} while (cpu);
	memcpy(out, "swapper/", 8);
	for (i = 0; i < n; i++)
		out[8 + i] = digits[n - 1 - i];
	out[8 + n] = 0;
}

const char *hist__rec_comm(struct hist__rec *r)
{
	if (r->comm)
		return r->comm;
	if (r->hit && r->hit->comm) {
		size_t n = bounded_strlen((const uint8_t *)r->hit->comm,
					  HIST__COMM_LEN - 1);

		memcpy(r->comm_buf, r->hit->comm, n);
		r->comm_buf[n] = 0;
	} else {
		int32_t pid = hist__rec_pid(r);

		/* The idle task of the record's CPU, as a filter on comm
		 * reads current->comm in the kernel (k20-idle-comm); no
		 * host's table has it (saved_cmdlines says "<idle>", which
		 * only .execname shows: hist.c, elt_init()). */
		if (pid == 0 && r->hit)
			idle_comm(r->comm_buf, r->hit->cpu);
		else if (!r->host || !r->host->comm ||
			 r->host->comm(r->host->data, pid, r->comm_buf))
			memcpy(r->comm_buf, "<...>", 6);
	}
	r->comm_buf[HIST__COMM_LEN - 1] = 0;
	r->comm = r->comm_buf;
	return r->comm;
}

unsigned hist__rec_stack(struct hist__rec *r, const uint64_t **ips)
{
	if (!r->stack) {
		if (r->hit && r->hit->stack) {
			r->stack = r->hit->stack;
			r->nr_stack = r->hit->nr_stack;
		} else {
			r->nr_stack = 0;
			if (r->host && r->host->stacktrace)
				r->nr_stack = r->host->stacktrace(
					r->host->data, r->hit, r->stack_buf,
					HIST__STACK_MAX);
			r->stack = r->stack_buf;
		}
		/* either source: the key slot and a variable's slot hold
		 * HIST__STACK_MAX frames, and a host's hit may give more */
		if (r->nr_stack > HIST__STACK_MAX)
			r->nr_stack = HIST__STACK_MAX;
	}
	*ips = r->stack;
	return r->nr_stack;
}
