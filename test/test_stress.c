/* SPDX-License-Identifier: MIT */
/* HIST_TEST_TSAN */
/*
 * Concurrency stress: hitter threads call hist_event_hit() on two events
 * while a control thread adds and removes triggers, pauses, continues and
 * clears them, and reads every histogram.  Run under TSan by
 * `make check-tsan`.
 *
 * Checked while the hitters run (every read):
 *   - every printed entry is whole: its key is one the hitters generate
 *     and its sum is a multiple of what each hit adds for that key (a
 *     half-published element would show a zero or foreign key);
 *   - no key is printed twice in one histogram.
 * Checked at rest (hitters joined):
 *   - triggers the control thread never touches: Hits equals the events
 *     they accepted (all of them, or those their filter passes), Hits +
 *     Dropped equals it for a map too small for the keys, every entry's
 *     hitcount and sum are exact;
 *   - every histogram, touched or not: Hits equals the sum of the
 *     entries' hitcounts, and no key is duplicated.
 * Each scenario runs with a host synchronize callback (an epoch per
 * hitter, RCU-like) and without one (memory retired until
 * hist_ctx_reclaim()).
 * And: an onmax() snapshot's block, read while hitters take new
 * snapshots, always shows a value and a key of one and the same event.
 */
#include "harness.h"
#include "util.h"
#include "libhist.h"
#include "test_events.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define NR_HITTERS 3
#define NR_KEYS 200		/* > 128: the size=128 map drops */
#define HITS_PER_THREAD 20000	/* at least; they run until told to stop */
#define HITS_MAX 150000	/* per thread: then they wait for the stop */
#define CONTROL_OPS 400		/* control operations, at least */
#define FILTER_BELOW 50

/* ---- the host: an epoch per hitter for synchronize ---------------------- */

struct hitter {
	pthread_t thread;
	unsigned id;
	_Atomic uint64_t epoch;	/* odd while inside hist_event_hit() */
	uint64_t fed[2];	/* records per event */
	uint64_t per_key[2][NR_KEYS + 1];
};

static struct hitter hitters[NR_HITTERS];
static hist_event *evs[2];
static atomic_int go, stop_hitters, hitters_done;
static atomic_long syncs;

static void host_synchronize(void *data)
{
	unsigned i;

	(void)data;
	atomic_fetch_add(&syncs, 1);
	for (i = 0; i < NR_HITTERS; i++) {
		uint64_t e = atomic_load(&hitters[i].epoch);

		if (!(e & 1))
			continue;
		while (atomic_load(&hitters[i].epoch) == e)
			sched_yield();
	}
}

static int find_event(void *data, const char *sys, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	if (strcmp(sys, "stress") || (strcmp(name, "a") && strcmp(name, "b")))
		return -HIST_ENOENT;
	out->fields = kv_fields;
	out->nr_fields = sizeof(kv_fields) / sizeof(kv_fields[0]);
	return 0;
}

static void *hitter_main(void *arg)
{
	struct hitter *h = arg;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (h->id + 1);
	unsigned i;

	while (!atomic_load(&go))
		sched_yield();
	for (i = 0; i < HITS_PER_THREAD || !atomic_load(&stop_hitters); i++) {
		if (i >= HITS_MAX) {
			sched_yield();
			continue;
		}
		struct hist_hit hit = { .ts = i, .cpu = h->id, .pid = -1 };
		unsigned e = (unsigned)(t_xorshift(&seed) & 1);
		uint64_t key = 1 + t_xorshift(&seed) % NR_KEYS;
		struct kv_rec r;

		memset(&r, 0, sizeof(r));
		r.pid = (int32_t)(100 + h->id);
		r.key = key;
		r.val = key * 3;
		snprintf(r.name, sizeof(r.name), "k%llu", (unsigned long long)key);
		atomic_fetch_add(&h->epoch, 1);	/* odd: inside */
		hist_event_hit(evs[e], &r, sizeof(r), &hit);
		atomic_fetch_add(&h->epoch, 1);
		h->fed[e]++;
		h->per_key[e][key]++;
	}
	atomic_fetch_add(&hitters_done, 1);
	return NULL;
}

/* ---- reading a printed histogram ---------------------------------------- */

struct entry {
	uint64_t key, hitcount, val;
	int has_val;
};

struct hist_read {
	char info[256];		/* the trigger-info line */
	struct entry e[2048];
	unsigned n;
	uint64_t hits, entries, dropped;
	int bad;		/* a line that did not parse */
};

/* "k12" or "12" */
static int parse_key(const char *s, uint64_t *key)
{
	char *end;

	while (*s == ' ')
		s++;
	if (*s == 'k')
		s++;
	*key = strtoull(s, &end, 10);
	return end != s;
}

/*
 * Parse one "# event histogram" block starting at S; returns the end.
 * Entries are "{ key: N } hitcount: N  val: N" or, with the string key
 * first, "{ name: kN , key: N } ...".
 */
static const char *parse_block(const char *s, struct hist_read *r)
{
	const char *info = strstr(s, "# trigger info: "), *line, *next;

	memset(r, 0, sizeof(*r));
	if (!info)
		return NULL;
	info += 16;
	snprintf(r->info, sizeof(r->info), "%.*s", (int)strcspn(info, "\n"), info);
	next = strstr(info, "# event histogram");
	for (line = info; line && *line && (!next || line < next);
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p;

		if (line[0] == '{') {
			struct entry *e = &r->e[r->n < 2048 ? r->n : 2047];
			const char *close = strchr(line, '}');

			if (strstr(r->info, ".log2")) {
				p = line;	/* "{ key: ~ 2^5 }": not checked */
				e->key = 0;
			} else if ((p = strstr(line, "common_pid:")) && p < close) {
				p = parse_key(p + 11, &e->key) ? p : NULL;
			} else if ((p = strstr(line, "key:")) && p < close) {
				p = parse_key(p + 4, &e->key) ? p : NULL;
			}
			if (!close || !p || p > close || !(p = strstr(close, "hitcount:"))) {
				r->bad++;
				continue;
			}
			e->hitcount = strtoull(p + 9, NULL, 10);
			p = strstr(close, "val:");
			e->has_val = p && p < strchr(close, '\n');
			if (e->has_val)
				e->val = strtoull(p + 4, NULL, 10);
			r->n++;
		} else if ((p = strstr(line, "    Hits: ")) == line) {
			r->hits = strtoull(p + 10, NULL, 10);
		} else if ((p = strstr(line, "    Entries: ")) == line) {
			r->entries = strtoull(p + 13, NULL, 10);
		} else if ((p = strstr(line, "    Dropped: ")) == line) {
			r->dropped = strtoull(p + 13, NULL, 10);
		}
	}
	return next;
}

/* Invariants any read must satisfy, hitters running or not. */
static int check_whole(const struct hist_read *r, const char *when)
{
	static unsigned char seen[NR_KEYS + 1];
	int log2 = strstr(r->info, ".log2") != NULL;
	int keyed_pid = strstr(r->info, "keys=common_pid") != NULL;
	unsigned i;

	memset(seen, 0, sizeof(seen));
	if (r->bad) {
		T_FAILF("%s: %d unparsable lines in %s", when, r->bad, r->info);
		return 0;
	}
	if (r->entries != r->n) {
		T_FAILF("%s: Entries: %llu but %u printed (%s)", when,
			(unsigned long long)r->entries, r->n, r->info);
		return 0;
	}
	for (i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (keyed_pid) {
			if (e->key < 100 || e->key >= 100 + NR_HITTERS) {
				T_FAILF("%s: foreign pid key %llu (%s)", when,
					(unsigned long long)e->key, r->info);
				return 0;
			}
			continue;
		}
		if (log2)
			continue;
		if (e->key < 1 || e->key > NR_KEYS) {
			T_FAILF("%s: foreign key %llu (half-published entry?) in %s", when,
				(unsigned long long)e->key, r->info);
			return 0;
		}
		if (seen[e->key]++) {
			T_FAILF("%s: key %llu printed twice in %s", when,
				(unsigned long long)e->key, r->info);
			return 0;
		}
		if (e->has_val && e->val % (3 * e->key)) {
			T_FAILF("%s: key %llu has val %llu, not a multiple of %llu (%s)",
				when, (unsigned long long)e->key, (unsigned long long)e->val,
				(unsigned long long)(3 * e->key), r->info);
			return 0;
		}
	}
	return 1;
}

/* Read every histogram of EV, check each; returns how many were read. */
static unsigned read_event(hist_event *ev, const char *when,
			   void (*each)(const struct hist_read *r, void *arg), void *arg)
{
	static struct hist_read r;
	struct t_text t = { NULL, 0, 0 };
	const char *p;
	unsigned n = 0;
	int ret = hist_event_print_hist(ev, t_text_write, &t);

	if (ret) {
		T_FAILF("%s: print_hist returned %d", when, ret);
		free(t.s);
		return 0;
	}
	for (p = t.s; p && *p; n++) {
		p = parse_block(p, &r);
		if (!r.info[0])
			break;
		if (!check_whole(&r, when))
			break;
		if (each)
			each(&r, arg);
	}
	free(t.s);
	return n;
}

/* ---- the control thread ------------------------------------------------- */

static const char *const churn[] = {
	"hist:keys=common_pid:vals=val",
	"hist:keys=key:vals=val:sort=val.descending:size=256",
	"hist:keys=key.log2",
	"hist:name=shared:keys=key:vals=val",
};

struct control_stats {
	long added, removed, paused, cleared, reads;
};

static int cmd(hist_event *ev, const char *fmt, const char *arg)
{
	char buf[256];

	snprintf(buf, sizeof(buf), fmt, arg);
	return hist_trigger_parse(ev, buf, NULL);
}

static void control(struct control_stats *cs)
{
	uint64_t seed = 12345;
	int active[2][4] = { { 0 } };

	long ops;

	for (ops = 0; ops < CONTROL_OPS || atomic_load(&hitters_done) < NR_HITTERS; ops++) {
		if (ops == CONTROL_OPS)
			atomic_store(&stop_hitters, 1);
		unsigned e = (unsigned)(t_xorshift(&seed) & 1);
		unsigned c = (unsigned)(t_xorshift(&seed) % 4);
		unsigned op = (unsigned)(t_xorshift(&seed) % 8);

		if (!active[e][c]) {
			if (cmd(evs[e], "%s", churn[c]) == 0) {
				active[e][c] = 1;
				cs->added++;
			}
		} else if (op == 0) {
			if (cmd(evs[e], "!%s", churn[c]) == 0) {
				active[e][c] = 0;
				cs->removed++;
			}
		} else if (op == 1) {
			cs->paused += cmd(evs[e], "%s:pause", churn[c]) == 0;
		} else if (op == 2) {
			cmd(evs[e], "%s:cont", churn[c]);
		} else if (op == 3) {
			cs->cleared += cmd(evs[e], "%s:clear", churn[c]) == 0;
		} else if (op == 4) {
			/* the stable triggers, read mid-flight */
			read_event(evs[0], "mid-run", NULL, NULL);
			read_event(evs[1], "mid-run", NULL, NULL);
			cs->reads += 2;
		} else if (op == 5) {
			struct t_text t = { NULL, 0, 0 };

			hist_event_print_triggers(evs[e], t_text_write, &t);
			free(t.s);
		}
		if (t__cur_failed)
			break;
	}
	/* leave every churn trigger running, so the rest checks see them */
	{
		unsigned e, c;

		for (e = 0; e < 2; e++)
			for (c = 0; c < 4; c++)
				if (active[e][c])
					cmd(evs[e], "%s:cont", churn[c]);
	}
}

/* ---- checks at rest ----------------------------------------------------- */

struct expect {
	uint64_t fed[2];
	uint64_t per_key[2][NR_KEYS + 1];
	int ev;
	unsigned checked;
};

static void check_at_rest(const struct hist_read *r, void *arg)
{
	struct expect *x = arg;
	uint64_t sum = 0, want;
	unsigned i;

	for (i = 0; i < r->n; i++)
		sum += r->e[i].hitcount;
	/* every histogram: the totals agree with the entries */
	if (sum != r->hits) {
		T_FAILF("at rest: entries add up to %llu hits, Hits: %llu (%s)",
			(unsigned long long)sum, (unsigned long long)r->hits, r->info);
		return;
	}
	for (i = 0; i < r->n; i++)
		if (r->e[i].has_val && r->e[i].val != 3 * r->e[i].key * r->e[i].hitcount &&
		    !strstr(r->info, "common_pid") && !strstr(r->info, ".log2"))
			T_FAILF("at rest: key %llu: val %llu for %llu hits (%s)",
				(unsigned long long)r->e[i].key, (unsigned long long)r->e[i].val,
				(unsigned long long)r->e[i].hitcount, r->info);
	/* the triggers nobody touched: exact */
	if (!strncmp(r->info, "hist:keys=key:vals=hitcount,val:sort=hitcount:size=2048", 55)) {
		want = x->fed[x->ev];
		T_EQU(r->hits, want);
		T_EQU(r->dropped, 0);
		T_EQU(r->n, NR_KEYS);
		for (i = 0; i < r->n; i++)
			if (r->e[i].hitcount != x->per_key[x->ev][r->e[i].key])
				T_FAILF("key %llu: hitcount %llu, fed %llu",
					(unsigned long long)r->e[i].key,
					(unsigned long long)r->e[i].hitcount,
					(unsigned long long)x->per_key[x->ev][r->e[i].key]);
		x->checked++;
	} else if (strstr(r->info, "keys=name,key:") && strstr(r->info, "size=128")) {
		want = x->fed[x->ev];
		T_EQU(r->hits + r->dropped, want);
		T_EQU(r->n, 128);
		T_ASSERT(r->dropped > 0);
		for (i = 0; i < r->n; i++)
			if (r->e[i].hitcount != x->per_key[x->ev][r->e[i].key])
				T_FAILF("key %llu: hitcount %llu, fed %llu",
					(unsigned long long)r->e[i].key,
					(unsigned long long)r->e[i].hitcount,
					(unsigned long long)x->per_key[x->ev][r->e[i].key]);
		x->checked++;
	} else if (strstr(r->info, "if key < 50")) {
		for (want = 0, i = 1; i < FILTER_BELOW; i++)
			want += x->per_key[x->ev][i];
		T_EQU(r->hits, want);
		T_EQU(r->dropped, 0);
		x->checked++;
	}
}

static void run(int use_sync)
{
	struct hist_host host = { .find_event = find_event };
	struct control_stats cs;
	static struct expect x;
	hist_ctx *ctx;
	unsigned i, e, k;

	if (use_sync)
		host.synchronize = host_synchronize;
	memset(hitters, 0, sizeof(hitters));
	memset(&cs, 0, sizeof(cs));
	memset(&x, 0, sizeof(x));
	atomic_store(&go, 0);
	atomic_store(&stop_hitters, 0);
	atomic_store(&hitters_done, 0);
	atomic_store(&syncs, 0);
	ctx = hist_ctx_create(&host, NULL, NULL);
	T_ASSERT(ctx != NULL);
	if (!ctx)
		return;
	evs[0] = hist_event_lookup(ctx, "stress", "a");
	evs[1] = hist_event_lookup(ctx, "stress", "b");
	T_ASSERT(evs[0] && evs[1]);
	/* the stable triggers */
	T_EQ(hist_trigger_parse(evs[0], "hist:keys=key:vals=val", NULL), 0);
	T_EQ(hist_trigger_parse(evs[0], "hist:keys=name,key:vals=val:size=128", NULL), 0);
	T_EQ(hist_trigger_parse(evs[1], "hist:keys=key:vals=val", NULL), 0);
	T_EQ(hist_trigger_parse(evs[1], "hist:keys=key:vals=hitcount if key < 50", NULL), 0);

	for (i = 0; i < NR_HITTERS; i++) {
		hitters[i].id = i;
		T_EQ(pthread_create(&hitters[i].thread, NULL, hitter_main, &hitters[i]), 0);
	}
	atomic_store(&go, 1);
	control(&cs);
	for (i = 0; i < NR_HITTERS; i++)
		pthread_join(hitters[i].thread, NULL);
	for (i = 0; i < NR_HITTERS; i++)
		for (e = 0; e < 2; e++) {
			x.fed[e] += hitters[i].fed[e];
			for (k = 0; k <= NR_KEYS; k++)
				x.per_key[e][k] += hitters[i].per_key[e][k];
		}
	T_ASSERT(x.fed[0] + x.fed[1] >= (uint64_t)NR_HITTERS * HITS_PER_THREAD);
	hist_ctx_reclaim(ctx);	/* hitters joined: nothing in flight */
	for (e = 0; e < 2; e++) {
		x.ev = (int)e;
		read_event(evs[e], "at rest", check_at_rest, &x);
	}
	T_EQ(x.checked, 4);
	printf("# sync=%d: %llu hits; control: %ld adds, %ld removes, %ld pauses, "
	       "%ld clears, %ld reads, %ld synchronize calls\n", use_sync,
	       (unsigned long long)(x.fed[0] + x.fed[1]), cs.added, cs.removed, cs.paused,
	       cs.cleared, cs.reads, (long)atomic_load(&syncs));
	T_ASSERT(cs.added > 0 && cs.removed > 0 && cs.cleared > 0 && cs.reads > 0);
	hist_ctx_destroy(ctx);
}

static void test_stress_synchronize(void)
{
	run(1);
}

static void test_stress_retired(void)
{
	run(0);
}

/* ---- onmax().snapshot(): the block read while hits take snapshots ------- */

#define SNAP_READS 200		/* reads while the hitters run */

static void *snap_hitter(void *arg)
{
	struct hitter *h = arg;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (h->id + 1);
	unsigned i;

	while (!atomic_load(&go))
		sched_yield();
	for (i = 0; !atomic_load(&stop_hitters); i++) {
		struct hist_hit hit = { .ts = i, .cpu = h->id, .pid = -1 };
		struct kv_rec r;

		memset(&r, 0, sizeof(r));
		r.key = 1 + t_xorshift(&seed) % 997;
		/* rising: most hits take a new snapshot; the key is in the
		 * value's last three digits */
		r.val = ((uint64_t)i * NR_HITTERS + h->id) * 1000 + r.key;
		hist_event_hit(evs[0], &r, sizeof(r), &hit);
		if (!i)
			atomic_fetch_add(&hitters_done, 1);	/* started */
	}
	return NULL;
}

static void test_stress_snapshot(void)
{
	struct hist_host host = { .find_event = find_event };
	struct t_text t = { 0 };
	unsigned i, reads = 0, seen = 0, torn = 0;
	hist_ctx *ctx = hist_ctx_create(&host, NULL, NULL);

	T_ASSERT(ctx != NULL);
	if (!ctx)
		return;
	memset(hitters, 0, sizeof(hitters));
	atomic_store(&go, 0);
	atomic_store(&stop_hitters, 0);
	atomic_store(&hitters_done, 0);
	evs[0] = hist_event_lookup(ctx, "stress", "a");
	T_EQ(hist_trigger_parse(evs[0], "hist:keys=key:v=val:onmax($v).snapshot()", NULL), 0);
	for (i = 0; i < NR_HITTERS; i++) {
		hitters[i].id = i;
		T_EQ(pthread_create(&hitters[i].thread, NULL, snap_hitter, &hitters[i]), 0);
	}
	atomic_store(&go, 1);
	while (atomic_load(&hitters_done) < NR_HITTERS)
		sched_yield();
	for (reads = 0; reads < SNAP_READS; reads++) {
		const char *v, *k;
		unsigned long long val, key;

		t.n = 0;
		T_EQ(hist_event_print_hist(evs[0], t_text_write, &t), 0);
		v = t.s ? strstr(t.s, "triggering value { onmax($v) }: ") : NULL;
		k = v ? strstr(v, "triggered by event with key: { key: ") : NULL;
		if (!v || !k)
			continue;
		seen++;
		if (sscanf(v + 32, "%llu", &val) != 1 || sscanf(k + 36, "%llu", &key) != 1 ||
		    val % 1000 != key)
			torn++;
	}
	atomic_store(&stop_hitters, 1);
	for (i = 0; i < NR_HITTERS; i++)
		pthread_join(hitters[i].thread, NULL);
	printf("# snapshot: %u reads, %u with a snapshot, %u torn\n", reads, seen, torn);
	T_EQU(torn, 0);
	T_EQU(seen, SNAP_READS);
	free(t.s);
	hist_ctx_destroy(ctx);
}

int main(void)
{
	T_RUN(test_stress_synchronize);
	T_RUN(test_stress_retired);
	T_RUN(test_stress_snapshot);
	return T_DONE();
}
