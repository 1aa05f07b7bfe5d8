/* SPDX-License-Identifier: MIT */
/* HIST_TEST_TSAN */
/*
 * String variables and saved text under concurrent hits (core/sslot.h):
 * two writer threads hit event a on one key, each with its own comm, which
 * a string variable (s=comm) and an onmax() save(comm) copy into the
 * element; a reader thread hits event b, whose onmatch(t.a) reads $s of
 * that element and generates strs(s); the control thread prints a's hist
 * (the saved comm) meanwhile.  Under `make check-tsan` any unordered
 * access to the texts is a report (the run fails); in every build each
 * text that comes out, the strs keys and the saved comm, must be one
 * writer's whole comm, never a mix of the two.
 */
#include "harness.h"
#include "libhist.h"
#include "hist_synth.h"
#include "test_events.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>


static const char *const texts[2] = { "aaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbb" };

#define HITS 20000

static hist_ctx *ctx;
static hist_event *ev_a, *ev_b;
static atomic_int stop;

struct writer {
	pthread_t th;
	unsigned id;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct kv_rec rec = { .key = 1 };
	struct hist_hit hit = { .pid = 1, .comm = "w", .cpu = w->id };
	uint64_t i;

	memcpy(rec.name, texts[w->id], 16);
	for (i = 0; i < HITS; i++) {
		rec.val = 2 * i + w->id;	/* a new max, often */
		hist_event_hit(ev_a, &rec, sizeof(rec), &hit);
	}
	return NULL;
}

static void *reader_main(void *arg)
{
	struct kv_rec rec = { .key = 1 };
	struct hist_hit hit = { .pid = 1, .comm = "r", .cpu = 2 };

	(void)arg;
	/* until the writers are done: overlapping them whatever the
	 * scheduler does */
	while (!atomic_load(&stop))
		hist_event_hit(ev_b, &rec, sizeof(rec), &hit);
	return NULL;
}

/* Every "WHAT<text>" in BUF is one writer's whole text. */
static bool texts_whole(const char *buf, const char *what, unsigned *seen)
{
	const char *p = buf;

	while ((p = strstr(p, what)) != NULL) {
		p += strlen(what);
		while (*p == ' ')
			p++;
		/* a max whose save() has not stored its text yet */
		if (!strncmp(p, "(null)", 6))
			continue;
		if (!strncmp(p, texts[0], 15) && p[15] != texts[0][0]) {
			(*seen)++;
		} else if (!strncmp(p, texts[1], 15) && p[15] != texts[1][0]) {
			(*seen)++;
		} else {
			printf("# a mixed text: %.40s\n", p);
			return false;
		}
	}
	return true;
}

static void test_string_vars_concurrent(void)
{
	struct hist_host host = { 0 };
	struct hist_event_desc da = { .system = "t", .name = "a", .fields = kv_fields,
				      .nr_fields = 7 };
	struct hist_event_desc db = { .system = "t", .name = "b", .fields = kv_fields,
				      .nr_fields = 5 };
	struct writer w[2];
	pthread_t reader;
	static struct buf t;
	unsigned i, saved = 0, keys = 0, reads = 0;
	hist_event *strs;

	ctx = hist_ctx_create(&host, NULL, NULL);
	T_ASSERT(ctx != NULL);
	T_EQ(hist_event_define(ctx, &da, &ev_a), 0);
	T_EQ(hist_event_define(ctx, &db, &ev_b), 0);
	T_EQ(hist_synth_parse(ctx, "strs char s[16]", 0, NULL), 0);
	strs = hist_event_lookup(ctx, "synthetic", "strs");
	T_ASSERT(strs != NULL);
	if (!strs)
		return;
	T_EQ(hist_trigger_parse(strs, "hist:keys=s", NULL), 0);
	T_EQ(hist_trigger_parse(ev_a, "hist:keys=key:s=name:m=val:onmax($m).save(name)", NULL), 0);
	T_EQ(hist_trigger_parse(ev_b, "hist:keys=key:x=$s:onmatch(t.a).strs($x)", NULL), 0);
	atomic_store(&stop, 0);
	for (i = 0; i < 2; i++) {
		w[i].id = i;
		T_EQ(pthread_create(&w[i].th, NULL, writer_main, &w[i]), 0);
	}
	T_EQ(pthread_create(&reader, NULL, reader_main, NULL), 0);
	for (i = 0; i < 200; i++) {
		t.n = 0;
		T_EQ(hist_event_print_hist(ev_a, buf_write, &t), 0);
		T_ASSERT(texts_whole(t.s, "name: ", &saved));
		reads++;
	}
	for (i = 0; i < 2; i++)
		pthread_join(w[i].th, NULL);
	atomic_store(&stop, 1);
	pthread_join(reader, NULL);
	/* and once at rest, so that strs has at least one key */
	{
		struct kv_rec rec = { .key = 1 };
		struct hist_hit hit = { .pid = 1, .comm = "r" };

		hist_event_hit(ev_b, &rec, sizeof(rec), &hit);
	}
	t.n = 0;
	T_EQ(hist_event_print_hist(strs, buf_write, &t), 0);
	T_ASSERT(texts_whole(t.s, "{ s: ", &keys));
	T_ASSERT(keys >= 1 && keys <= 2);
	printf("# %u prints, %u saved texts, %u strs keys\n", reads, saved, keys);
	hist_ctx_destroy(ctx);
}

/* y=$x of a string variable passes x's text on: it read the reference
 * slot of the alias itself (always 0: another reference's value, taken
 * for an address; a crash when that one is a number). */
static void test_string_alias(void)
{
	struct hist_host host = { 0 };
	struct hist_event_desc da = { .system = "t", .name = "a", .fields = kv_fields,
				      .nr_fields = 7 };
	struct hist_event_desc db = { .system = "t", .name = "b", .fields = kv_fields,
				      .nr_fields = 6 };
	struct kv_rec rec = { .key = 1, .val = 17 };
	struct hist_hit hit = { .pid = 1, .comm = "w" };
	static struct buf t;
	hist_event *strs;

	ctx = hist_ctx_create(&host, NULL, NULL);
	T_ASSERT(ctx != NULL);
	T_EQ(hist_event_define(ctx, &da, &ev_a), 0);
	T_EQ(hist_event_define(ctx, &db, &ev_b), 0);
	T_EQ(hist_synth_parse(ctx, "strs char s[16]; u64 v", 0, NULL), 0);
	strs = hist_event_lookup(ctx, "synthetic", "strs");
	T_ASSERT(strs != NULL);
	if (!strs)
		return;
	T_EQ(hist_trigger_parse(strs, "hist:keys=s,v", NULL), 0);
	T_EQ(hist_trigger_parse(ev_a, "hist:keys=key:m=val:s=name", NULL), 0);
	/* $m first: the alias's slot 0 would be the number 17 */
	T_EQ(hist_trigger_parse(ev_b, "hist:keys=key:n=$m:x=$s:onmatch(t.a).strs($x,$n)",
				NULL), 0);
	memcpy(rec.name, texts[0], 16);
	hist_event_hit(ev_a, &rec, sizeof(rec), &hit);
	hist_event_hit(ev_b, &rec, sizeof(rec), &hit);
	t.n = 0;
	T_EQ(hist_event_print_hist(strs, buf_write, &t), 0);
	T_ASSERT(strstr(t.s, "{ s: aaaaaaaaaaaaaaa") != NULL);
	T_ASSERT(strstr(t.s, "v:         17 }") != NULL);
	if (!strstr(t.s, "{ s: aaaaaaaaaaaaaaa"))
		printf("%s", t.s);
	hist_ctx_destroy(ctx);
}

/* Texts of two lengths: a read that took part of each shows. */
static const char *const rtexts[2] = { "aaaaaaaaaaaaaaa", "bbbbbbb" };

static void *rwriter_main(void *arg)
{
	struct writer *w = arg;
	struct kv_rec rec = { .key = 1 };
	struct hist_hit hit = { .pid = 1, .comm = "w", .cpu = w->id };
	uint64_t i;

	strcpy(rec.name, rtexts[w->id]);
	/* until the reads are done: overlapping them whatever the
	 * scheduler does */
	for (i = 0; !atomic_load(&stop); i++) {
		rec.val = 2 * i + w->id;	/* a new max, often */
		hist_event_hit(ev_a, &rec, sizeof(rec), &hit);
	}
	return NULL;
}

/* V's text is NULL (unset) or one writer's whole text.  *SEEN counts
 * the texts. */
static bool var_whole(const struct hist_read_var *v, unsigned *seen)
{
	if (!v->is_string)
		return false;
	if (!v->str)
		return !v->set;
	if (strcmp(v->str, rtexts[0]) && strcmp(v->str, rtexts[1])) {
		printf("# a mixed text: %.40s\n", v->str);
		return false;
	}
	(*seen)++;
	return true;
}

/* hist_reader_next() while hits write the texts: the strings of the
 * read-out (a variable, a save() field) are the reader's copies, each
 * one writer's whole text (sslot.h rule 3), and stay so while the hits
 * go on; TSan sees no unordered access to the element's slots. */
static void test_reader_concurrent(void)
{
	struct hist_host host = { 0 };
	struct hist_event_desc da = { .system = "t", .name = "a", .fields = kv_fields,
				      .nr_fields = 7 };
	struct writer w[2];
	unsigned i, seen = 0, reads = 0;

	ctx = hist_ctx_create(&host, NULL, NULL);
	T_ASSERT(ctx != NULL);
	T_EQ(hist_event_define(ctx, &da, &ev_a), 0);
	T_EQ(hist_trigger_parse(ev_a, "hist:keys=key:s=name:m=val:onmax($m).save(name)", NULL), 0);
	atomic_store(&stop, 0);
	for (i = 0; i < 2; i++) {
		w[i].id = i;
		T_EQ(pthread_create(&w[i].th, NULL, rwriter_main, &w[i]), 0);
	}
	while (reads < 300) {
		const struct hist_read_entry *e;
		hist_reader *r = hist_reader_create(ev_a, 0, NULL);
		char keep[2][32];

		T_ASSERT(r != NULL);
		if (!r)
			break;
		while ((e = hist_reader_next(r)) != NULL) {
			T_EQU(e->nr_vars, 2);
			T_EQU(e->nr_tracks, 1);
			T_ASSERT(var_whole(&e->vars[0], &seen));
			T_ASSERT(var_whole(&e->tracks[0].saved[0], &seen));
			/* the copies do not move while the hits go on */
			snprintf(keep[0], 32, "%s", e->vars[0].str ? e->vars[0].str : "");
			snprintf(keep[1], 32, "%s", e->tracks[0].saved[0].str ?
				 e->tracks[0].saved[0].str : "");
			sched_yield();
			T_STREQ(keep[0], e->vars[0].str ? e->vars[0].str : "");
			T_STREQ(keep[1], e->tracks[0].saved[0].str ?
				 e->tracks[0].saved[0].str : "");
			reads++;
		}
		hist_reader_destroy(r);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(w[i].th, NULL);
	T_ASSERT(reads > 0);
	printf("# %u entries read, %u texts\n", reads, seen);
	hist_ctx_destroy(ctx);
}

int main(void)
{
	T_RUN(test_string_alias);
	T_RUN(test_string_vars_concurrent);
	T_RUN(test_reader_concurrent);
	return T_DONE();
}
