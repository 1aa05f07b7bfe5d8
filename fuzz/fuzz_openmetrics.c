/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the exporters.  Input as fuzz_hit's: command lines up to
 * the first NUL byte, then 4-byte-headed records (fz_hits_run()).  After the hits, every
 * hist trigger of every event goes through the OpenMetrics writer (both
 * formats, with quantiles), the JSON writer with quantiles,
 * hist_reader_quantile() of every column at several Q, and a merge of
 * the table with itself, whose printed Hits must be twice the table's,
 * printed as the hist file and as JSON.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OM_MAX_RECORDS 2048

static int om_count(void *arg, const char *buf, size_t len)
{
	(void)buf;
	*(size_t *)arg += len;
	return 0;
}

/* The number after the last "Hits: " of the text written. */
struct om_text {
	char s[32];
	size_t n, match;
	int in_number;
};

static int om_hits(void *arg, const char *buf, size_t len)
{
	static const char key[] = "Hits: ";
	struct om_text *t = arg;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = buf[i];

		if (t->in_number) {
			if (c >= '0' && c <= '9' && t->n + 1 < sizeof(t->s)) {
				t->s[t->n++] = c;
				t->s[t->n] = 0;
				continue;
			}
			t->in_number = 0;
		}
		t->match = c == key[t->match] ? t->match + 1 : c == key[0];
		if (t->match == sizeof(key) - 1) {
			t->match = 0;
			t->in_number = 1;
			t->n = 0;
			t->s[0] = 0;
		}
	}
	return 0;
}

static void om_check(hist_event *ev)
{
	static const double q[] = { 0, 0.25, 0.5, 0.99, 1 };
	struct hist_print_opts o = { .prefix = "fz", .quantiles = q, .nr_quantiles = 5,
				     .flags = HIST_PRINT_HOST_LOST, .host_lost = 3 };
	unsigned i, n = hist_event_nr_hists(ev);
	size_t bytes = 0;

	hist_event_print_openmetrics(ev, om_count, &bytes, &o);
	o.flags |= HIST_PRINT_PROMETHEUS_TEXT;
	hist_event_print_openmetrics(ev, om_count, &bytes, &o);
	hist_event_print_json_opts(ev, om_count, &bytes, &o);
	for (i = 0; i < n; i++) {
		int err;
		hist_reader *r = hist_reader_create(ev, i, &err);
		const struct hist_read_info *info;
		struct om_text t;
		hist_merge *m;
		uint32_t k, j;

		if (!r)
			continue;
		info = hist_reader_info(r);
		for (k = 0; k < info->nr_key_fields + info->nr_val_fields; k++) {
			const char *name = k < info->nr_key_fields ? info->key_fields[k].name :
					   info->val_fields[k - info->nr_key_fields].name;

			for (j = 0; j < 5; j++) {
				uint64_t lo, hi;

				if (!hist_reader_quantile(r, name, q[j], &lo, &hi) &&
				    !info->key_fields[0].is_signed && lo > hi)
					abort();	/* a bucket upside down */
			}
		}
		m = hist_merge_create(&err);
		if (m && !hist_merge_add_reader(m, r) && !hist_merge_add_reader(m, r)) {
			memset(&t, 0, sizeof(t));
			if (!hist_merge_print(m, om_hits, &t) &&
			    strtoull(t.s, NULL, 10) != 2 * info->hits) {
				fprintf(stderr, "fuzz_openmetrics: merged Hits %s, table %llu\n",
					t.s, (unsigned long long)info->hits);
				abort();
			}
			hist_merge_print_json(m, om_count, &bytes);
		}
		hist_merge_destroy(m);
		hist_reader_destroy(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hist_ctx *ctx = fz_hits_run(data, size, HIST_SUMS_PER_CPU, OM_MAX_RECORDS);
	size_t i;

	if (!ctx)
		return 0;
	for (i = 0; i < FZ_NR_EVENTS; i++) {
		hist_event *ev = hist_event_lookup(ctx, fz_events[i].system,
						   fz_events[i].name);

		if (ev)
			om_check(ev);
	}
	hist_ctx_destroy(ctx);
	return 0;
}
