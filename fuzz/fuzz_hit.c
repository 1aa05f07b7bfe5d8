/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the hit path.  Input: command lines up to the first NUL
 * byte, then records (fz_hits_run() in fuzz_common.h).  Every command
 * runs, every record goes through hist_event_hit(), a few control
 * commands are interleaved (pause, cont, clear of what the commands
 * created is up to the input), and then every histogram is printed.
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
	hist_ctx *ctx = fz_hits_run(data, size, sums, HIT_MAX_RECORDS);

	if (!ctx)
		return;
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
