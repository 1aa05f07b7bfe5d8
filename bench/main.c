/* SPDX-License-Identifier: MIT */
/*
 * hist-bench: the driver.  See bench/README.md for what is measured and
 * how to read the table.
 *
 *   hist-bench [-n events] [-r rounds] [-w wl,...] [-c contender,...]
 *   hist-bench --once -w WL -c C [-n events]     one verified run (callgrind)
 *   hist-bench --callgrind [-n events] [-w ...]  instructions per event
 *   hist-bench --readout | --replay              those sections alone
 *
 * Environment: BENCH_EVENTS, BENCH_ROUNDS, BENCH_WORKLOADS,
 * BENCH_CONTENDERS set the defaults of -n, -r, -w, -c; BENCH_TRACE names
 * the recording for the replay row (default: the largest trace.dat under
 * ../shared/data); BENCH_REPLAY=0 / BENCH_READOUT=0 skip those sections.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libhist.h"
#include "bench.h"

extern char **environ;

static const struct bench_contender *const contenders[] = {
	&bench_libhist, &bench_libhist_pcpu, &bench_libhist_shared, &bench_libhist_map,
	&bench_libhist_map_atomic, &bench_tmap, &bench_urcu, &bench_ck, &bench_mutex,
	&bench_floor,
};
#define NR_CONTENDERS ((int)(sizeof(contenders) / sizeof(contenders[0])))

/*
 * The rows.  Capacity is 2^map_bits for every contender; 2^11 is the
 * kernel's default size=2048, 2^20 needs the host's opt-in above 2^17.
 */
static const struct bench_workload workloads[] = {
	{ "u1k", "1 thread, 1K keys (in cache)", WK_UNIFORM, BK_U64, 1, 1024, 11, false, true },
	/* 2t_disj's map on one thread: its 2K keys fill the 2K entries, so
	 * probe chains are those of a table half full, where u1k's are a
	 * quarter full (the floor's private tables in 2t_disj are too) */
	{ "u2k", "1 thread, 2K keys filling 2K entries", WK_UNIFORM, BK_U64, 1, 2048, 11, false, true },
	{ "u1m", "1 thread, 1M keys (past the LLC)", WK_UNIFORM, BK_U64, 1, 1000000, 20, false, true },
	{ "zipf1m", "1 thread, Zipf s=1 over 1M keys", WK_ZIPF, BK_U64, 1, 1000000, 20, false, true },
	{ "comm", "1 thread, string key comm, 1K", WK_UNIFORM, BK_COMM, 1, 1024, 11, false, true },
	{ "key3", "1 thread, 3-field key, 1K", WK_UNIFORM, BK_KEY3, 1, 1024, 11, false, true },
	{ "filter", "1 thread, 1K keys, filter drops 1/2", WK_UNIFORM, BK_U64, 1, 1024, 11, true, true },
	{ "chain", "1 thread, 2-event var chain + synth", WK_CHAIN, BK_U64, 1, 1024, 11, false, true },
	{ "full", "1 thread, 8K keys into 2K: drops", WK_UNIFORM, BK_U64, 1, 8192, 11, false, true },
	{ "2t_disj", "2 threads, 1K disjoint keys each", WK_DISJOINT, BK_U64, 2, 1024, 11, false, false },
	{ "2t_onekey", "2 threads, one hot key", WK_ONEKEY, BK_U64, 2, 1, 11, false, false },
	/* 2t_disj at scale: the map at the kernel's largest size= (its
	 * 128K entries filled by both threads' keys), and one past the LLC */
	{ "2t_d64k", "2 threads, 64K disjoint keys each", WK_DISJOINT, BK_U64, 2, 65536, 17,
	  false, false },
	{ "2t_d512k", "2 threads, 512K disjoint keys each", WK_DISJOINT, BK_U64, 2, 524288, 20,
	  false, false },
	/* zipf1m on two threads: hot keys hit from both, a tail past the LLC */
	{ "2t_zipf1m", "2 threads, Zipf s=1 over 1M keys", WK_ZIPF, BK_U64, 2, 1000000, 20,
	  false, false },
};
#define NR_WORKLOADS ((int)(sizeof(workloads) / sizeof(workloads[0])))

/* ---- helpers --------------------------------------------------------- */

void bench_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "\n*** BENCH FAILURE: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

void *bench_zalloc(size_t bytes)
{
	size_t sz = (bytes + 63) & ~(size_t)63;
	void *p = aligned_alloc(64, sz ? sz : 64);

	if (!p)
		bench_die("out of memory (%zu bytes)", bytes);
	/* Zero and fault in outside the timed section. */
	memset(p, 0, sz);
	return p;
}

void bench_free(void *p)
{
	free(p);
}

bool bench_supports_plain(const struct bench_workload *w, const char **why)
{
	if (w->kind == WK_CHAIN) {
		*why = "n/a (no variables/actions)";
		return false;
	}
	return true;
}

/*
 * libhist allocates through this hook: calloc, then every page touched,
 * so its tables are faulted in before the timed section like the other
 * contenders' (bench_zalloc) rather than on first use inside it.
 */
static void *prefault_alloc(void *data, size_t size)
{
	char *p = calloc(1, size);
	size_t i;

	(void)data;
	if (p && size >= 65536)
		for (i = 0; i < size; i += 4096)
			((volatile char *)p)[i] = 0;
	return p;
}

static void prefault_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static bool in_list(const char *list, const char *name)
{
	size_t l = strlen(name);
	const char *p = list;

	if (!list || !*list)
		return true;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == l && !strncmp(p, name, l))
			return true;
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- records ---------------------------------------------------------- */

static uint64_t rng_state;

static inline uint64_t rng64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A bijection of the key id: distinct ids give distinct, scattered keys. */
static inline uint64_t id_key(uint64_t id)
{
	uint64_t z = id + 0x51ed270b27a3c8f1ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t uniform(uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng64() * n) >> 64);
}

struct dataset {
	struct brec *recs;
	size_t n;
	struct bench_expect exp;
};

static void fill_key(const struct bench_workload *w, struct brec *r, uint64_t id)
{
	static const char *const base[] = { "kworker/", "systemd-", "cc1-", "bash-",
					    "ld-", "make-", "python3-", "git-" };

	r->key = id_key(id);
	if (r->key == 0 || r->key == ~0ull)
		bench_die("generated a reserved key");
	switch (w->key) {
	case BK_U64:
		snprintf(r->comm, sizeof(r->comm), "task");
		break;
	case BK_COMM:
		snprintf(r->comm, sizeof(r->comm), "%s%llu", base[id % 8],
			 (unsigned long long)id);
		break;
	case BK_KEY3:
		/* (key, k2) is distinct per id; k3 a function of it. */
		r->key = id_key(id >> 4);
		r->k2 = (uint32_t)(id & 15);
		r->k3 = (uint32_t)(id * 2654435761u);
		snprintf(r->comm, sizeof(r->comm), "task");
		break;
	}
}

/* Key id state for the reference totals. */
enum { ID_UNSEEN, ID_IN, ID_DROPPED };

static void gen_dataset(const struct bench_workload *w, size_t n, uint32_t capacity,
			struct dataset *d)
{
	uint64_t ids = w->kind == WK_DISJOINT ? w->nkeys * (uint64_t)w->nthreads : w->nkeys;
	uint8_t *state = calloc(ids, 1);
	uint64_t *ts0 = NULL;
	double *cdf = NULL;
	uint64_t admitted = 0, i;

	if (!state)
		bench_die("out of memory");
	if (w->kind == WK_ZIPF) {
		double acc = 0;

		cdf = malloc(sizeof(*cdf) * w->nkeys);
		if (!cdf)
			bench_die("out of memory");
		for (i = 0; i < w->nkeys; i++) {
			acc += 1.0 / (double)(i + 1);
			cdf[i] = acc;
		}
		for (i = 0; i < w->nkeys; i++)
			cdf[i] /= acc;
	}
	if (w->kind == WK_CHAIN) {
		ts0 = calloc(ids, sizeof(*ts0));
		if (!ts0)
			bench_die("out of memory");
	}
	d->recs = bench_zalloc(sizeof(*d->recs) * n);
	d->n = n;
	memset(&d->exp, 0, sizeof(d->exp));
	rng_state = 0x243f6a8885a308d3ull ^ (uint64_t)w->kind << 32 ^ w->nkeys;
	for (i = 0; i < n; i++) {
		struct brec *r = &d->recs[i];
		int t = (int)(i * (uint64_t)w->nthreads / n);
		uint64_t id = 0;

		switch (w->kind) {
		case WK_UNIFORM:
		case WK_CHAIN:
			id = uniform(w->nkeys);
			break;
		case WK_DISJOINT:
			id = (uint64_t)t * w->nkeys + uniform(w->nkeys);
			break;
		case WK_ONEKEY:
			id = 0;
			break;
		case WK_ZIPF: {
			double u = (double)(rng64() >> 11) * (1.0 / 9007199254740992.0);
			uint64_t lo = 0, hi = w->nkeys - 1;

			while (lo < hi) {
				uint64_t mid = (lo + hi) / 2;

				if (cdf[mid] > u)
					hi = mid;
				else
					lo = mid + 1;
			}
			id = lo;
			break;
		}
		}
		r->common_type = BREC_TYPE_PLAIN;
		r->common_pid = 1000 + t;
		fill_key(w, r, id);
		r->val = rng64() & 1023;
		r->flt = (uint32_t)(rng64() & 1023);
		r->ts = 1000 + i * 64 + (rng64() & 63);	/* never 0: 0 is "unset" */

		if (w->kind == WK_CHAIN) {
			/* wake stores ts0; switch consumes it (read-once). */
			if (rng64() & 1) {
				r->common_type = BREC_TYPE_WAKE;
				ts0[id] = r->ts;
			} else {
				r->common_type = BREC_TYPE_SWITCH;
				if (ts0[id]) {
					if (state[id] == ID_UNSEEN)
						d->exp.entries++;
					state[id] = ID_IN;
					d->exp.hits++;
					d->exp.sum += r->ts - ts0[id];
					ts0[id] = 0;
				}
			}
			continue;
		}
		if (w->filter && r->flt >= BENCH_FLT_PASS)
			continue;
		if (state[id] == ID_UNSEEN) {
			/* Single-threaded rows fill the map in record order. */
			state[id] = admitted < capacity ? ID_IN : ID_DROPPED;
			admitted += state[id] == ID_IN;
		}
		if (state[id] == ID_IN) {
			d->exp.hits++;
			d->exp.sum += r->val;
		} else {
			d->exp.drops++;
		}
	}
	if (w->kind != WK_CHAIN)
		d->exp.entries = admitted;
	if (w->nthreads > 1 && d->exp.drops)
		bench_die("%s: multi-threaded rows must not fill the map", w->name);
	free(state);
	free(ts0);
	free(cdf);
}

/* ---- one timed run ------------------------------------------------------ */

/*
 * The measured loop: one indirect call per record.  noinline with a
 * stable name so callgrind can count exactly this (--toggle-collect).
 */
__attribute__((noinline)) void bench_loop(bench_hit_fn hit, void *h,
					  const struct brec *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		hit(h, &r[i]);
	__asm__ volatile("" ::: "memory");
}

struct worker {
	const struct bench_contender *c;
	void *map;
	bench_hit_fn hit;
	const struct brec *recs;
	size_t n;
	int tid;
	pthread_barrier_t *bar;
	double t0, t1;
};

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	void *h = wk->c->thread_init(wk->map, wk->tid);

	pthread_barrier_wait(wk->bar);
	wk->t0 = now_ns();
	bench_loop(wk->hit, h, wk->recs, wk->n);
	wk->t1 = now_ns();
	pthread_barrier_wait(wk->bar);
	if (wk->c->thread_fini)
		wk->c->thread_fini(wk->map, h);
	return NULL;
}

struct run_result {
	double ns;		/* per event, all threads' events */
	double bytes;		/* heap bytes of the map per capacity entry */
};

static int nr_cpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static void run_one(const struct bench_contender *c, const struct bench_workload *w,
		    const struct dataset *d, struct run_result *res)
{
	struct bench_cfg cfg = { w, 1u << w->map_bits, w->nthreads, nr_cpus_online() };
	struct worker wk[8];
	pthread_t th[8];
	pthread_barrier_t bar;
	struct bench_readout o;
	const char *why = "unknown";
	size_t heap0 = heap_bytes(), heap1;
	double t0, t1;
	void *map;
	int t;

	map = c->create(&cfg, &why);
	if (!map)
		bench_die("%s on %s: create: %s", c->name, w->name, why);
	pthread_barrier_init(&bar, NULL, (unsigned)w->nthreads);
	for (t = 0; t < w->nthreads; t++) {
		size_t lo = d->n * (size_t)t / (size_t)w->nthreads;
		size_t hi = d->n * (size_t)(t + 1) / (size_t)w->nthreads;

		wk[t] = (struct worker){ c, map, c->hit_fn(w), d->recs + lo, hi - lo, t,
					 &bar, 0, 0 };
		if (pthread_create(&th[t], NULL, worker_main, &wk[t]))
			bench_die("pthread_create");
	}
	for (t = 0; t < w->nthreads; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&bar);
	heap1 = heap_bytes();
	t0 = wk[0].t0;
	t1 = wk[0].t1;
	for (t = 1; t < w->nthreads; t++) {
		if (wk[t].t0 < t0)
			t0 = wk[t].t0;
		if (wk[t].t1 > t1)
			t1 = wk[t].t1;
	}
	memset(&o, 0, sizeof(o));
	if (c->read_out(map, &o, &why))
		bench_die("%s on %s: read-out: %s", c->name, w->name, why);
	if (o.entries != d->exp.entries || o.hits != d->exp.hits || o.sum != d->exp.sum ||
	    o.drops != d->exp.drops || o.total_hits != d->exp.hits)
		bench_die("%s on %s: wrong result: entries %llu (want %llu), hits %llu "
			  "(want %llu), total hits %llu, sum %llu (want %llu), drops %llu "
			  "(want %llu)", c->name, w->name,
			  (unsigned long long)o.entries, (unsigned long long)d->exp.entries,
			  (unsigned long long)o.hits, (unsigned long long)d->exp.hits,
			  (unsigned long long)o.total_hits,
			  (unsigned long long)o.sum, (unsigned long long)d->exp.sum,
			  (unsigned long long)o.drops, (unsigned long long)d->exp.drops);
	c->destroy(map);
	res->ns = (t1 - t0) / (double)d->n;
	res->bytes = heap1 > heap0 ? (double)(heap1 - heap0) / cfg.capacity : 0;
}

/* ---- the table ------------------------------------------------------------ */

#define ROUNDS_MAX 99

struct cell {
	bool ran;
	const char *na;
	double ns[ROUNDS_MAX];
	double med, min, max, bytes;
};

static void print_header(size_t n, int rounds)
{
	printf("\n%zu events per run, %d rounds, contenders interleaved (rotating start); "
	       "ns/event = wall time / events (2-thread rows: both threads' events)\n\n",
	       n, rounds);
	printf("| workload | contender | median ns/ev | min | max | Mev/s | B/entry | x libhist |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
	fflush(stdout);
}

static void run_workload(const struct bench_workload *w, size_t n, int rounds,
			 const char *csel)
{
	struct cell cells[NR_CONTENDERS];
	struct dataset d;
	double t0 = now_ns();
	int r, k, ci;

	memset(cells, 0, sizeof(cells));
	fprintf(stderr, "[%s] generating %zu records...", w->name, n);
	gen_dataset(w, n, 1u << w->map_bits, &d);
	fprintf(stderr, " %.1f s; expect entries %llu hits %llu drops %llu\n",
		(now_ns() - t0) / 1e9, (unsigned long long)d.exp.entries,
		(unsigned long long)d.exp.hits, (unsigned long long)d.exp.drops);
	for (ci = 0; ci < NR_CONTENDERS; ci++) {
		const char *why = "n/a";

		if (!in_list(csel, contenders[ci]->name))
			cells[ci].na = "skipped";
		else if (!contenders[ci]->supports(w, &why))
			cells[ci].na = why;
	}
	/* A contender that cannot set the row up says so instead of failing. */
	if (!cells[0].na && w->kind == WK_CHAIN) {
		struct bench_cfg cfg = { w, 1u << w->map_bits, w->nthreads, nr_cpus_online() };
		const char *why = NULL;
		void *m = contenders[0]->create(&cfg, &why);

		if (m)
			contenders[0]->destroy(m);
		else
			cells[0].na = why;
	}
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < NR_CONTENDERS; k++) {
			struct run_result res;

			ci = (k + r) % NR_CONTENDERS;
			if (cells[ci].na)
				continue;
			run_one(contenders[ci], w, &d, &res);
			cells[ci].ns[r] = res.ns;
			cells[ci].bytes = res.bytes;
			cells[ci].ran = true;
		}
		fprintf(stderr, "[%s] round %d/%d done\n", w->name, r + 1, rounds);
	}
	for (ci = 0; ci < NR_CONTENDERS; ci++) {
		struct cell *c = &cells[ci];

		if (!c->ran)
			continue;
		c->med = median(c->ns, rounds);
		c->min = c->ns[0];
		c->max = c->ns[rounds - 1];
	}
	for (ci = 0; ci < NR_CONTENDERS; ci++) {
		struct cell *c = &cells[ci];
		char ratio[32] = "-";

		if (c->na && !strcmp(c->na, "skipped"))
			continue;
		if (!c->ran) {
			printf("| %s | %s | %s | | | | | |\n", w->name, contenders[ci]->name, c->na);
			continue;
		}
		if (cells[0].ran)
			snprintf(ratio, sizeof(ratio), "%.2f", c->med / cells[0].med);
		printf("| %s | %s | %.2f | %.2f | %.2f | %.1f | %.0f | %s |\n", w->name,
		       contenders[ci]->name, c->med, c->min, c->max, 1e3 / c->med, c->bytes,
		       ratio);
	}
	fflush(stdout);
	bench_free(d.recs);
}

/* ---- callgrind ------------------------------------------------------------- */

/* Run ARGV, wait; returns the exit status (-1 if it could not run). */
static int run_argv(char *const argv[], const char *out_path)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The "summary:" (or "totals:") Ir of a callgrind output file. */
static double callgrind_ir(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	double ir = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7))
			ir = strtod(strchr(line, ':') + 1, NULL);
	fclose(f);
	return ir;
}

static int callgrind_section(const char *self, size_t n, const char *wsel,
			     const char *csel)
{
	char out[64], nbuf[32], once_out[64];
	int wi, ci, failed = 0;

	snprintf(out, sizeof(out), "/tmp/hist-bench-cg.%d", (int)getpid());
	snprintf(once_out, sizeof(once_out), "/tmp/hist-bench-once.%d", (int)getpid());
	snprintf(nbuf, sizeof(nbuf), "%zu", n);
	printf("\ncallgrind: instructions per event inside bench_loop (driver loop and "
	       "indirect call included), %zu events, fresh map\n\n", n);
	printf("| workload |");
	for (ci = 0; ci < NR_CONTENDERS; ci++)
		if (in_list(csel, contenders[ci]->name))
			printf(" %s |", contenders[ci]->name);
	printf("\n|---|");
	for (ci = 0; ci < NR_CONTENDERS; ci++)
		if (in_list(csel, contenders[ci]->name))
			printf("---:|");
	printf("\n");
	fflush(stdout);
	for (wi = 0; wi < NR_WORKLOADS; wi++) {
		const struct bench_workload *w = &workloads[wi];

		if (!w->single || !in_list(wsel, w->name))
			continue;
		printf("| %s |", w->name);
		for (ci = 0; ci < NR_CONTENDERS; ci++) {
			const struct bench_contender *c = contenders[ci];
			char outfile[96];
			char *argv[] = { "valgrind", "--tool=callgrind",
					 "--toggle-collect=bench_loop", outfile,
					 (char *)self, "--once", "-w", (char *)w->name,
					 "-c", (char *)c->name, "-n", nbuf, NULL };
			const char *why = NULL;
			double ir;
			int st;

			if (!in_list(csel, c->name))
				continue;
			if (!c->supports(w, &why)) {
				printf(" n/a |");
				continue;
			}
			snprintf(outfile, sizeof(outfile), "--callgrind-out-file=%s", out);
			fprintf(stderr, "[callgrind] %s %s\n", w->name, c->name);
			st = run_argv(argv, once_out);
			ir = st == 0 ? callgrind_ir(out) : -1;
			if (st == 3) {
				printf(" n/a |");	/* the row could not be set up */
			} else if (ir < 0) {
				printf(" FAILED |");
				failed = 1;
			} else {
				printf(" %.1f |", ir / (double)n);
			}
			fflush(stdout);
			unlink(out);
		}
		printf("\n");
	}
	unlink(once_out);
	return failed;
}

/* ---- main ---------------------------------------------------------------- */

static size_t env_size(const char *name, size_t def)
{
	const char *v = getenv(name);

	return v && *v ? (size_t)strtoull(v, NULL, 0) : def;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "callgrind", no_argument, NULL, 'g' },
		{ "readout", no_argument, NULL, 'R' },
		{ "replay", no_argument, NULL, 'P' },
		{ "perf", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hist_allocator alloc = { prefault_alloc, prefault_free, NULL };
	size_t n = env_size("BENCH_EVENTS", 0);
	int rounds = (int)env_size("BENCH_ROUNDS", 5);
	const char *wsel = getenv("BENCH_WORKLOADS"), *csel = getenv("BENCH_CONTENDERS");
	bool once = false, cg = false, only_readout = false, only_replay = false;
	bool only_perf = false;
	int opt, wi, failed = 0;

	while ((opt = getopt_long(argc, argv, "n:r:w:c:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			n = (size_t)strtoull(optarg, NULL, 0);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'w':
			wsel = optarg;
			break;
		case 'c':
			csel = optarg;
			break;
		case 'o':
			once = true;
			break;
		case 'g':
			cg = true;
			break;
		case 'R':
			only_readout = true;
			break;
		case 'P':
			only_replay = true;
			break;
		case 'F':
			only_perf = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-n events] [-r rounds] [-w wl,..] "
				"[-c contender,..] [--once|--callgrind|--readout|--replay|--perf]\n"
				"workloads:", argv[0]);
			for (wi = 0; wi < NR_WORKLOADS; wi++)
				fprintf(stderr, " %s", workloads[wi].name);
			fprintf(stderr, "\ncontenders:");
			for (wi = 0; wi < NR_CONTENDERS; wi++)
				fprintf(stderr, " %s", contenders[wi]->name);
			fprintf(stderr, "\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > ROUNDS_MAX)
		bench_die("rounds must be 1..%d", ROUNDS_MAX);
	hist_set_allocator(&alloc);

	if (once) {
		const struct bench_workload *w = NULL;
		const struct bench_contender *c = NULL;
		struct run_result res;
		struct dataset d;
		const char *why = NULL;

		for (wi = 0; wi < NR_WORKLOADS; wi++)
			if (wsel && !strcmp(wsel, workloads[wi].name))
				w = &workloads[wi];
		for (wi = 0; wi < NR_CONTENDERS; wi++)
			if (csel && !strcmp(csel, contenders[wi]->name))
				c = contenders[wi];
		if (!w || !c)
			bench_die("--once needs one -w workload and one -c contender");
		if (!c->supports(w, &why))
			return 3;
		if (w->kind == WK_CHAIN) {
			struct bench_cfg cfg = { w, 1u << w->map_bits, w->nthreads,
						 nr_cpus_online() };
			void *m = c->create(&cfg, &why);

			if (!m) {
				printf("%s\n", why);
				return 3;
			}
			c->destroy(m);
		}
		gen_dataset(w, n ? n : 2000000, 1u << w->map_bits, &d);
		run_one(c, w, &d, &res);
		printf("ONCE %s %s events=%zu ns/event=%.2f verified\n", c->name, w->name,
		       d.n, res.ns);
		return 0;
	}
	if (cg)
		return callgrind_section(argv[0], n ? n : 2000000, wsel, csel);
	if (only_readout)
		return bench_readout_section(1000000);
	if (only_replay)
		return bench_replay_section(argv[0]);
	if (only_perf)
		return bench_perf_section(argv[0]);

	if (!n)
		n = 10000000;
	printf("# hist-bench: %d online cpus\n", nr_cpus_online());
	print_header(n, rounds);
	for (wi = 0; wi < NR_WORKLOADS; wi++)
		if (in_list(wsel, workloads[wi].name))
			run_workload(&workloads[wi], n, rounds, csel);
	if (env_size("BENCH_READOUT", 1))
		failed |= bench_readout_section(1000000);
	if (env_size("BENCH_REPLAY", 1))
		failed |= bench_replay_section(argv[0]);
	if (env_size("BENCH_PERF", 1))
		failed |= bench_perf_section(argv[0]);
	return failed;
}
