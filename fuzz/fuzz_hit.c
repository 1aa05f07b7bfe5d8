/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the hit path.  Input: command lines (fuzz_common.h) up to
 * the first NUL byte, then records, each a 4-byte header
 *
 *	u8 event (index into fz_events)  u8 cpu  u8 time step  u8 length
 *
 * and LENGTH bytes (fewer if the input ends).  Every command runs, every
 * record goes through hist_event_hit(), a few control commands are
 * interleaved (pause, cont, clear of what the commands created is up to
 * the input), and then every histogram is printed.
 *
 * The whole run is made twice, with HIST_SUMS_PER_CPU and with
 * HIST_SUMS_SHARED, which take different hit paths (the shared sums'
 * variants, the general path for wide keys): what the two print must be
 * the same lines, or the target aborts.  Lines, not text: entries print in slot order, and the
 * two layouts may place a key in different slots (ties of sort= keep
 * that order).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HIT_MAX_RECORDS 4096

/* One run of the input in a context of SUMS (see the top). */
static void hit_run(const uint8_t *data, size_t size, uint32_t sums)
{
	hist_event *evs[FZ_NR_EVENTS];
	const uint8_t *p, *end = data + size;
	uint64_t ts = 1000000;
	unsigned nr = 0;
	hist_ctx *ctx;
	size_t tn, i;

	for (tn = 0; tn < size && data[tn]; tn++)
		;
	ctx = fz_ctx_create_sums(sums);
	if (!ctx)
		return;
	fz_commands(ctx, data, tn);
	for (i = 0; i < FZ_NR_EVENTS; i++)
		evs[i] = hist_event_lookup(ctx, fz_events[i].system, fz_events[i].name);
	p = tn < size ? data + tn + 1 : end;
	while (end - p >= 4 && nr++ < HIT_MAX_RECORDS) {
		struct hist_hit hit;
		hist_event *ev = evs[p[0] % FZ_NR_EVENTS];
		size_t len = p[3];

		memset(&hit, 0, sizeof(hit));
		ts += p[2];
		hit.ts = ts;
		hit.cpu = p[1] & 0x7f;
		hit.pid = p[1] & 0x80 ? (int32_t)p[2] : -1;
		if (p[0] & 0x80) {
			/* the host supplies the stack with the hit */
			hit.stack = fz_frames;
			hit.nr_stack = p[2] % 21;
		}
		if (p[1] & 0x40)
			hit.flags = HIST_HIT_NO_TS;
		p += 4;
		if (len > (size_t)(end - p))
			len = (size_t)(end - p);
		if (ev)
			hist_event_hit(ev, p, len, &hit);
		p += len;
	}
	fz_print_all(ctx);
	hist_ctx_destroy(ctx);
}

static int hit_cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of C's text (cut there), sorted; *N of them.  NULL: no memory. */
static char **hit_sorted_lines(struct fz_cap *c, size_t *n)
{
	char **v, *p;
	size_t i = 0;

	*n = 0;
	for (p = c->p; p && *p; p++)
		*n += *p == '\n';
	v = malloc((*n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (p = c->p; p && *p && i < *n; i++) {
		v[i] = p;
		p = strchr(p, '\n');
		*p++ = 0;
	}
	*n = i;
	qsort(v, *n, sizeof(*v), hit_cmp_lines);
	return v;
}

/* Abort when the two runs printed different lines. */
static void hit_compare(struct fz_cap *pcpu, struct fz_cap *shared)
{
	size_t na, nb, i;
	char **a = hit_sorted_lines(pcpu, &na), **b = hit_sorted_lines(shared, &nb);

	if (a && b) {
		for (i = 0; i < na && i < nb && !strcmp(a[i], b[i]); i++)
			;
		if (i < na || i < nb) {
			fprintf(stderr, "fuzz_hit: per-cpu and shared sums differ:\n< %s\n> %s\n",
				i < na ? a[i] : "(end)", i < nb ? b[i] : "(end)");
			abort();
		}
	}
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_cap pcpu = { NULL, 0, 0 }, shared = { NULL, 0, 0 };

	fz_cap = &pcpu;
	hit_run(data, size, HIST_SUMS_PER_CPU);
	fz_cap = &shared;
	hit_run(data, size, HIST_SUMS_SHARED);
	fz_cap = NULL;
	if (!pcpu.cut && !shared.cut)
		hit_compare(&pcpu, &shared);
	free(pcpu.p);
	free(shared.p);
	return 0;
}
