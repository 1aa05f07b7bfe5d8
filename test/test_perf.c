/* SPDX-License-Identifier: MIT */
/*
 * perf.data through libhist-ftrace and the replay engine, on real
 * recordings of this kind of machine (test/data/perf/, recorded by
 * test/data/perf/record.sh with perf 6.1 on Linux 6.18).
 *
 * The reference is perf itself: when perf is installed, `perf script`
 * decodes each bundled file at test time and the counts per event, per
 * system call and the losses must be the ones libhist reads.  Without
 * perf those comparisons say SKIP and the rest still runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <zstd.h>

#include "harness.h"
#include "hist_ftrace.h"
#include "conf.h"

#define DATA "test/data/perf/"

static const char *const files[] = {
	"sched.perf.data",	   /* file mode, -a, 5 events */
	"syscalls.pipe.perf.data", /* pipe mode (perf record -o -) */
	"stack.perf.data",	   /* -g callchains */
	"zstd.perf.data",	   /* -z, per-task */
	"lost.perf.data",	   /* LOST and LOST_SAMPLES */
	"threads.perf.data",	   /* --threads: a directory, data.N per thread */
	"threads-zstd.perf.data",  /* --threads -z: a zstd stream per data.N */
};
#define NR_FILES (sizeof(files) / sizeof(files[0]))

static int have_perf = -1;

static int perf_installed(void)
{
	if (have_perf < 0) {
		have_perf = system("perf version >/dev/null 2>&1") == 0;
		if (!have_perf)
			printf("# SKIP perf script comparisons: perf is not installed\n");
	}
	return have_perf;
}

/* The output of CMD (NULL if it could not run or failed). */
static char *run(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap);
	int st;

	if (!f || !buf) {
		if (f)
			pclose(f);
		free(buf);
		return NULL;
	}
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	buf[n] = '\0';
	st = pclose(f);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- counts per event ------------------------------------------------ */

#define MAX_EV 32

struct counts {
	char name[MAX_EV][64];
	uint64_t n[MAX_EV];
	int nr;
};

static void count_add(struct counts *c, const char *name, uint64_t k)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->name[i], name)) {
			c->n[i] += k;
			return;
		}
	if (c->nr == MAX_EV)
		return;
	snprintf(c->name[c->nr], sizeof(c->name[0]), "%s", name);
	c->n[c->nr++] = k;
}

static uint64_t count_get(const struct counts *c, const char *name)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->name[i], name))
			return c->n[i];
	return 0;
}

struct walk_res {
	struct counts ev;
	uint64_t records, errors, lost, unordered, bad_cpu;
	char err[400];
};

static int walk_file(const char *path, struct walk_res *w)
{
	char msg[400];
	struct hist_tracedat *td = hist_tracedat_open(path, msg, sizeof(msg));
	struct hist_ftrace_record rec;
	uint64_t last = 0;
	uint32_t c;
	int ret;

	memset(w, 0, sizeof(*w));
	if (!td) {
		T_FAILF("%s: %s", path, msg);
		return -1;
	}
	while ((ret = hist_tracedat_next(td, &rec)) != 0) {
		const struct hist_ftrace_event *e;
		char name[64];

		if (ret < 0) {
			if (!w->errors++)
				snprintf(w->err, sizeof(w->err), "%s", hist_tracedat_error(td));
			continue;
		}
		w->records++;
		if (rec.ts < last)
			w->unordered++;
		last = rec.ts;
		if (rec.cpu >= hist_tracedat_nr_cpus(td))
			w->bad_cpu++;
		e = hist_tracedat_event_by_id(td, rec.type);
		snprintf(name, sizeof(name), "%s:%s", e ? e->desc.system : "?",
			 e ? e->desc.name : "?");
		count_add(&w->ev, name, 1);
	}
	for (c = 0; c < hist_tracedat_nr_cpus(td); c++)
		w->lost += hist_tracedat_lost(td, c);
	hist_tracedat_close(td);
	return 0;
}

/* Every record in time order, on a known CPU, no error; and, with perf,
 * the same number of records per event as `perf script`. */
static void test_counts_vs_perf_script(void)
{
	size_t i;

	for (i = 0; i < NR_FILES; i++) {
		char path[256], cmd[512];
		struct walk_res w;
		struct counts ps;
		char *out, *line, *save;
		int k;

		snprintf(path, sizeof(path), DATA "%s", files[i]);
		if (walk_file(path, &w))
			continue;
		if (w.errors)
			T_FAILF("%s: %llu errors, first: %s", files[i],
				(unsigned long long)w.errors, w.err);
		T_ASSERT(w.records > 0);
		T_EQU(w.unordered, 0);
		T_EQU(w.bad_cpu, 0);
		if (!perf_installed())
			continue;
		/* -f: the files belong to whoever checked them out */
		snprintf(cmd, sizeof(cmd), "perf script -f -i %s -F event 2>/dev/null", path);
		out = run(cmd);
		if (!out) {
			T_FAILF("%s: perf script failed", files[i]);
			continue;
		}
		memset(&ps, 0, sizeof(ps));
		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char name[64];
			size_t n;

			if (sscanf(line, " %63s", name) != 1)
				continue;
			n = strlen(name);
			if (n && name[n - 1] == ':')
				name[n - 1] = '\0';
			count_add(&ps, name, 1);
		}
		free(out);
		T_EQ(ps.nr, w.ev.nr);
		for (k = 0; k < ps.nr; k++)
			if (count_get(&w.ev, ps.name[k]) != ps.n[k])
				T_FAILF("%s: %s: libhist %llu, perf script %llu", files[i],
					ps.name[k], (unsigned long long)count_get(&w.ev, ps.name[k]),
					(unsigned long long)ps.n[k]);
	}
}

/* The losses are the kernel's LOST records, as perf script -D lists them. */
static void test_lost_vs_perf(void)
{
	struct walk_res w;
	char *out, *p;
	uint64_t sum = 0;

	if (walk_file(DATA "lost.perf.data", &w))
		return;
	T_ASSERT(w.lost > 0);
	if (!perf_installed())
		return;
	out = run("perf script -f -D -i " DATA "lost.perf.data 2>/dev/null");
	T_ASSERT(out != NULL);
	if (!out)
		return;
	for (p = out; (p = strstr(p, "PERF_RECORD_LOST: ")); p++) {
		const char *l = strstr(p, "lost:");

		if (l)
			sum += strtoull(l + 5, NULL, 10);
	}
	free(out);
	T_ASSERT(sum > 0);
	T_EQU(w.lost, sum);
}

/* ---- through the replay engine ---------------------------------------- */

static char *replay_hist(const char *path, const char *target, const char *trigger)
{
	char err[512];
	struct replay_opts o = { 0 };
	struct replay *r = replay_open(path, &o, err, sizeof(err));
	struct replay_buf b = { 0 };
	size_t i;

	if (!r) {
		T_FAILF("%s: %s", path, err);
		return NULL;
	}
	T_EQ(replay_write(r, target, trigger), 0);
	if (replay_run(r))
		T_FAILF("%s: %s", path, replay_error(r));
	for (i = 0; i < replay_nr_events(r); i++)
		hist_event_print_hist(replay_event(r, i, NULL, NULL), replay_buf_write, &b);
	replay_close(r);
	return b.s;
}

/* keys=id over raw_syscalls:sys_enter: the per-id counts of perf script's
 * "NR n (...)" lines. */
static void test_syscall_hist_vs_perf(void)
{
	char *hist = replay_hist(DATA "syscalls.pipe.perf.data", "raw_syscalls/sys_enter",
				 "hist:keys=id:vals=hitcount:sort=id");
	char *out, *p;
	uint64_t want[512] = { 0 }, got[512] = { 0 };
	unsigned id;
	unsigned long long n;
	int k, nr = 0;

	T_ASSERT(hist != NULL);
	if (!hist)
		return;
	for (p = hist; (p = strstr(p, "{ id:")); p++)
		if (sscanf(p, "{ id: %u } hitcount: %llu", &id, &n) == 2 && id < 512) {
			got[id] = n;
			nr++;
		}
	T_ASSERT(nr > 5);
	free(hist);
	if (!perf_installed())
		return;
	out = run("perf script -f -i " DATA "syscalls.pipe.perf.data -F event,trace 2>/dev/null");
	T_ASSERT(out != NULL);
	if (!out)
		return;
	for (p = out; (p = strstr(p, "raw_syscalls:sys_enter:")); p++)
		if (sscanf(p, "raw_syscalls:sys_enter: NR %u", &id) == 1 && id < 512)
			want[id]++;
	free(out);
	for (k = 0; k < 512; k++)
		if (want[k] != got[k])
			T_FAILF("syscall %d: libhist %llu, perf script %llu", k,
				(unsigned long long)got[k], (unsigned long long)want[k]);
}

/*
 * The same events recorded at once by perf and by trace-cmd (clock mono
 * on both, trace-cmd in an instance): a workload that runs only while
 * both record is in both files whole, so the same triggers over its
 * events must print the same histograms.  Needs root, perf, trace-cmd and
 * tracefs; otherwise SKIP.
 */
static void test_pair_live(void)
{
	static const char *const trig[][2] = {
		{ "raw_syscalls/sys_enter", "hist:keys=id.syscall:vals=hitcount:sort=id" },
		{ "raw_syscalls/sys_enter", "hist:keys=common_pid.execname,id:vals=hitcount:sort=id" },
		{ "sched/sched_switch", "hist:keys=prev_comm,next_comm:vals=hitcount:sort=prev_comm,next_comm" },
	};
	char dir[] = "/tmp/test_perf.XXXXXX", cmd[4096], path[2][256], err[512];
	char *out[2] = { NULL, NULL };
	int k, i;

	if (geteuid() || system("perf version >/dev/null 2>&1 && command -v trace-cmd "
				">/dev/null 2>&1 && test -d /sys/kernel/tracing/events")) {
		printf("# SKIP perf/trace-cmd pair: needs root, perf, trace-cmd and tracefs\n");
		return;
	}
	if (!mkdtemp(dir)) {
		T_FAILF("mkdtemp");
		return;
	}
	snprintf(path[0], sizeof(path[0]), "%s/pair.perf.data", dir);
	snprintf(path[1], sizeof(path[1]), "%s/pair.dat", dir);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && cp /bin/dd ./hwpair && "
		 "(trace-cmd record -q -k -d --no-filter -B hwpair$$ -C mono -o pair.dat "
		 "-e raw_syscalls:sys_enter -f 'common_pid != 0 && comm == \"hwpair\"' "
		 "-e sched:sched_switch -f 'prev_comm == \"hwpair\" || next_comm == \"hwpair\"' "
		 "sleep 2 >/dev/null 2>&1 & tc=$!; "
		 "perf record -q -B -N --synth=task -a -k mono -o pair.perf.data "
		 "-e raw_syscalls:sys_enter --filter 'comm == \"hwpair\"' "
		 "-e sched:sched_switch --filter 'prev_comm == \"hwpair\" || next_comm == \"hwpair\"' -- "
		 "sh -c 'sleep 0.6; for i in 1 2 3 4 5; do ./hwpair if=/dev/zero of=/dev/null "
		 "bs=512 count=40 2>/dev/null; done; sleep 0.3' >/dev/null 2>&1; r=$?; "
		 "wait $tc; t=$?; rmdir /sys/kernel/tracing/instances/hwpair$$ 2>/dev/null; "
		 "exit $((r | t)))",
		 dir);
	if (system(cmd)) {
		printf("# SKIP perf/trace-cmd pair: recording failed here\n");
		goto out;
	}
	for (k = 0; k < 2; k++) {
		struct replay_opts o = { 0 };
		struct replay *r = replay_open(path[k], &o, err, sizeof(err));
		struct replay_buf b = { 0 };

		if (!r) {
			T_FAILF("%s: %s", path[k], err);
			goto out;
		}
		for (i = 0; i < 3; i++)
			T_EQ(replay_write(r, trig[i][0], trig[i][1]), 0);
		T_EQ(replay_run(r), 0);
		for (i = 0; i < (int)replay_nr_events(r); i++)
			hist_event_print_hist(replay_event(r, (size_t)i, NULL, NULL),
					      replay_buf_write, &b);
		replay_close(r);
		out[k] = b.s;
	}
	T_ASSERT(out[0] && strstr(out[0], "sys_write") && strstr(out[0], "hwpair"));
	T_STREQ(out[0], out[1]);
out:
	free(out[0]);
	free(out[1]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
}

/* ---- the kernel's own hists (test/conformance/cases-perf) -------------- */

#define CASES "test/conformance/cases-perf/"

/*
 * A packed case (test/oracle/tools/pack-perf-cases) keeps its trace.dat,
 * perf.data and kallsyms as NAME.zpatch: a zstd frame compressed with
 * the set's ref/NAME (ref/NAME.zst, plain zstd) as its prefix, since the
 * event formats and the core kernel's symbols are the same in every
 * case.  A case added by tools/to-conformance has the plain files.
 */
struct unpacked {
	char dir[64];		/* mkdtemp'ed, "" until the first unpack */
	char *ref[3];		/* the set's decompressed ref/NAME.zst */
	size_t ref_len[3];
};

static const char *const packed_names[3] = { "trace.dat", "perf.data", "kallsyms" };

/* Decompress the frame of PATH with REF as its prefix; malloc'ed. */
static char *read_zpatch(const char *path, const char *ref, size_t ref_len, size_t *len)
{
	size_t clen, got;
	char *c = conf_read_file(path, &clen), *out = NULL;
	unsigned long long n = c ? ZSTD_getFrameContentSize(c, clen) : ZSTD_CONTENTSIZE_ERROR;
	ZSTD_DCtx *d = ZSTD_createDCtx();

	if (d && n != ZSTD_CONTENTSIZE_ERROR && n != ZSTD_CONTENTSIZE_UNKNOWN &&
	    (out = malloc((size_t)n + 1)) != NULL) {
		/* a raw-content dictionary is the prefix zstd --patch-from used */
		got = ZSTD_decompress_usingDict(d, out, (size_t)n, c, clen, ref, ref_len);
		if (ZSTD_isError(got) || got != n) {
			free(out);
			out = NULL;
		} else {
			*len = (size_t)n;
		}
	}
	ZSTD_freeDCtx(d);
	free(c);
	return out;
}

/*
 * The path of case DIR's FILE ("trace.dat", "perf.data", "kallsyms.zst")
 * in OUT: the file itself, or its NAME.zpatch of set SET unpacked into
 * U's directory.  -1 (with a failure reported) when neither can be had,
 * 1 when the case has neither (no kallsyms), 0 on success.
 */
static int case_file(struct unpacked *u, const char *set, const char *dir, const char *file,
		     char *out, size_t outlen)
{
	char path[600];
	size_t k, len = 0;
	char *text;
	FILE *f;
	int ok;

	snprintf(out, outlen, "%s/%s", dir, file);
	if (!access(out, R_OK))
		return 0;
	for (k = 0; k < 3 && strncmp(file, packed_names[k], strlen(packed_names[k])); k++)
		;
	if (k == 3)
		return 1;
	snprintf(path, sizeof(path), "%s/%s.zpatch", dir, packed_names[k]);
	if (access(path, R_OK))
		return 1;
	if (!u->ref[k]) {
		char rpath[600];

		snprintf(rpath, sizeof(rpath), "%s/ref/%s.zst", set, packed_names[k]);
		u->ref[k] = conf_read_zst(rpath, &u->ref_len[k]);
		if (!u->ref[k]) {
			T_FAILF("%s: cannot read the reference of %s", rpath, path);
			return -1;
		}
	}
	if (!u->dir[0]) {
		snprintf(u->dir, sizeof(u->dir), "/tmp/test_perf.XXXXXX");
		if (!mkdtemp(u->dir)) {
			u->dir[0] = 0;
			T_FAILF("mkdtemp");
			return -1;
		}
	}
	text = read_zpatch(path, u->ref[k], u->ref_len[k], &len);
	if (!text) {
		T_FAILF("%s: not a zstd patch of %s/ref/%s", path, set, packed_names[k]);
		return -1;
	}
	/* one file per name: the previous case's copy is overwritten */
	snprintf(out, outlen, "%s/%s", u->dir, packed_names[k]);
	f = fopen(out, "wb");
	ok = f && fwrite(text, 1, len, f) == len;
	if (f && fclose(f))
		ok = 0;
	free(text);
	if (!ok) {
		T_FAILF("%s: cannot write", out);
		return -1;
	}
	return 0;
}

static void unpacked_free(struct unpacked *u)
{
	size_t k;
	char path[600];

	for (k = 0; k < 3; k++) {
		free(u->ref[k]);
		u->ref[k] = NULL;
		if (u->dir[0]) {
			snprintf(path, sizeof(path), "%s/%s", u->dir, packed_names[k]);
			unlink(path);
		}
	}
	if (u->dir[0] && rmdir(u->dir))
		printf("# could not remove %s\n", u->dir);
	u->dir[0] = 0;
}

/* Apply a case's settings, synthetic events and triggers to R. */
static int conf_setup(struct replay *r, const char *dir)
{
	static const char *const cfiles[] = { "settings", "synthetic_events", "triggers" };
	size_t f, n, i;

	for (f = 0; f < 3; f++) {
		char path[512], **lines;
		char *text;

		snprintf(path, sizeof(path), "%s/%s", dir, cfiles[f]);
		text = conf_read_file(path, NULL);
		if (!text)
			continue;
		n = conf_lines(text, &lines);
		for (i = 0; i < n; i++) {
			char *l = lines[i], *tab;

			if (!*l || *l == '#')
				continue;
			if (f == 1) {
				replay_write(r, "synthetic_events", l);
				continue;
			}
			tab = strchr(l, '\t');
			if (!tab)
				tab = strchr(l, ' ');
			if (!tab)
				continue;
			*tab = '\0';
			if (f == 0)
				replay_setting(r, l, tab + 1);
			else
				replay_write(r, l, tab + 1);
		}
		free(lines);
		free(text);
	}
	return 0;
}

/* Every hist of case DIR's expected/hists.tsv ("file system event index",
 * index 1-based) against libhist's replay of RECORDING; the number of
 * sections compared, -1 on a difference. */
static int conf_check(struct unpacked *u, const char *set, const char *dir,
		      const char *recording)
{
	char path[512], err[512], syms[512], *tsv, **lines = NULL;
	struct replay_opts o = { 0 };
	struct replay *r;
	size_t n, l;
	int compared = 0, bad = 0;

	/* the kernel the recording names (perf's osrelease feature, the
	 * trace.dat's uname): 6.1's trigger info and error texts */
	o.kernel = REPLAY_KERNEL_AUTO;

	/* the guest's /proc/kallsyms, saved next to a perf.data that needs
	 * symbols (test/oracle: perf.data holds none), as --kallsyms takes it */
	switch (case_file(u, set, dir, "kallsyms.zst", syms, sizeof(syms))) {
	case 0:
		o.kallsyms = syms;
		break;
	case -1:
		return -1;
	}
	/* perf recorded system-wide: the oracle's pid gate, applied here */
	snprintf(path, sizeof(path), "%s/perf.pid", dir);
	if (!strcmp(recording, "perf.data") && (tsv = conf_read_file(path, NULL))) {
		o.pid_gate = atoi(tsv);
		free(tsv);
	}
	if (case_file(u, set, dir, recording, path, sizeof(path))) {
		T_FAILF("%s: no %s", dir, recording);
		return -1;
	}
	r = replay_open(path, &o, err, sizeof(err));
	if (!r) {
		T_FAILF("%s: %s", path, err);
		return -1;
	}
	/* the -mono cases: the trace.dat's clock, and perf record -k
	 * monotonic, whose attributes (use_clockid, clockid 1) must give
	 * the clock the triggers ask for (README.md "Time stamps") */
	if (strlen(dir) > 5 && !strcmp(dir + strlen(dir) - 5, "-mono"))
		T_STREQ(hist_tracedat_clock(replay_tracedat(r)), "mono");
	conf_setup(r, dir);
	if (replay_run(r))
		T_FAILF("%s: %s", path, replay_error(r));
	snprintf(path, sizeof(path), "%s/expected/hists.tsv", dir);
	tsv = conf_read_file(path, NULL);
	n = tsv ? conf_lines(tsv, &lines) : 0;
	for (l = 1; l < n; l++) {	/* line 0 is the header */
		char *f[4], *q = lines[l], kpath[1024], *ktext, **ks = NULL, **cs = NULL;
		struct replay_buf b = { 0 }, diff = { 0 };
		size_t i, nk, nc, idx;
		const char *sys, *name;
		int k;

		for (k = 0; k < 4 && q; k++) {
			f[k] = q;
			q = strchr(q, '\t');
			if (q)
				*q++ = 0;
		}
		if (k < 4)
			continue;
		idx = (size_t)atoi(f[3]);
		for (i = 0; i < replay_nr_events(r); i++) {
			hist_event *ev = replay_event(r, i, &sys, &name);

			if (!strcmp(sys, f[1]) && !strcmp(name, f[2]))
				hist_event_print_hist(ev, replay_buf_write, &b);
		}
		snprintf(kpath, sizeof(kpath), "%s/expected/hist/%s", dir, f[0]);
		ktext = conf_read_file(kpath, NULL);
		nk = ktext ? conf_split_sections(ktext, &ks) : 0;
		nc = b.s ? conf_split_sections(b.s, &cs) : 0;
		if (!nk || idx < 1 || idx > nc) {
			T_FAILF("%s %s: no section %zu in libhist's hist", dir, recording, idx);
			bad++;
		} else if (conf_compare_section(ks[0], cs[idx - 1], 0, &diff)) {
			T_FAILF("%s %s: %s differs from the kernel's:\n%s", dir, recording, f[0],
				diff.s ? diff.s : "");
			bad++;
		} else {
			compared++;
		}
		conf_free_strv(ks, nk);
		conf_free_strv(cs, nc);
		free(ktext);
		replay_buf_free(&b);
		replay_buf_free(&diff);
	}
	free(lines);
	free(tsv);
	replay_close(r);
	return bad ? -1 : compared;
}

/*
 * Cases recorded by the oracle (test/oracle, Linux 6.1 under qemu) with
 * perf as well as trace-cmd, under the same pid gate: hist-replay over
 * the perf.data must print what the kernel printed (and so must the
 * trace.dat, as in test_conformance).
 */
static void test_kernel_cases(void)
{
	/* HIST_PERF_CASES: another set laid out alike (new oracle runs) */
	const char *set = getenv("HIST_PERF_CASES") ? getenv("HIST_PERF_CASES") : CASES;
	DIR *d = opendir(set);
	struct dirent *de;
	struct unpacked u = { 0 };
	int cases = 0;

	T_ASSERT(d != NULL);
	while (d && (de = readdir(d))) {
		char dir[512];
		int a, b;

		/* ref/: the files packed cases are patches of */
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "README.md") ||
		    !strcmp(de->d_name, "ref"))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", set, de->d_name);
		a = conf_check(&u, set, dir, "perf.data");
		b = conf_check(&u, set, dir, "trace.dat");
		T_ASSERT(a > 0 && a == b);
		printf("# %s: perf.data %d hist sections as the kernel's, trace.dat %d\n",
		       de->d_name, a, b);
		cases++;
	}
	if (d)
		closedir(d);
	unpacked_free(&u);
	T_ASSERT(cases > 0);
}

/* .execname from COMM records: an exec'd task has its new name at its
 * sched_process_exec, and the name it had before just before it. */
static void test_comm_at_exec(void)
{
	char msg[400];
	struct hist_tracedat *td = hist_tracedat_open(DATA "sched.perf.data", msg, sizeof(msg));
	const struct hist_ftrace_event *ex, *fk;
	const struct hist_field_desc *fn = NULL, *pidf = NULL, *child = NULL;
	static uint64_t fork_ts[1024];
	static int32_t fork_pid[1024];
	struct hist_ftrace_record rec;
	uint32_t i;
	int ret, seen = 0, renamed = 0;

	T_ASSERT(td != NULL);
	if (!td)
		return;
	ex = hist_tracedat_find_event(td, "sched", "sched_process_exec");
	T_ASSERT(ex != NULL);
	for (i = 0; ex && i < ex->desc.nr_fields; i++) {
		if (!strcmp(ex->desc.fields[i].name, "filename"))
			fn = &ex->desc.fields[i];
		if (!strcmp(ex->desc.fields[i].name, "common_pid"))
			pidf = &ex->desc.fields[i];
	}
	T_ASSERT(fn && pidf);
	fk = hist_tracedat_find_event(td, "sched", "sched_process_fork");
	for (i = 0; fk && i < fk->desc.nr_fields; i++)
		if (!strcmp(fk->desc.fields[i].name, "child_pid"))
			child = &fk->desc.fields[i];
	T_ASSERT(child != NULL);
	while (fn && pidf && child && (ret = hist_tracedat_next(td, &rec)) != 0) {
		char now[16], before[16], want[16];
		const char *name, *base;
		uint32_t loc, off;
		int32_t pid;

		if (ret > 0 && rec.type == fk->desc.id) {
			memcpy(&pid, rec.data + child->offset, 4);
			fork_pid[pid & 1023] = pid;
			fork_ts[pid & 1023] = rec.ts;
			continue;
		}
		if (ret < 0 || rec.type != ex->desc.id)
			continue;
		memcpy(&pid, rec.data + pidf->offset, 4);
		memcpy(&loc, rec.data + fn->offset, 4);	/* __data_loc */
		off = loc & 0xffff;
		if (off >= rec.len)
			continue;
		name = (const char *)rec.data + off;
		base = strrchr(name, '/');
		snprintf(want, sizeof(want), "%s", base ? base + 1 : name);
		seen++;
		T_ASSERT(hist_tracedat_comm_at(td, pid, rec.ts, now) == 1);
		T_STREQ(now, want);
		/* the child had its parent's name from its fork to the exec */
		if (fork_ts[pid & 1023] && fork_pid[pid & 1023] == pid &&
		    hist_tracedat_comm_at(td, pid, fork_ts[pid & 1023], before) == 1 &&
		    strcmp(before, now))
			renamed++;
	}
	T_ASSERT(seen > 3);
	T_ASSERT(renamed > 3);
	hist_tracedat_close(td);
}

/* Every sched_switch says the comm of the task leaving (prev_comm, the
 * kernel's current->comm): the COMM/FORK timeline must agree. */
static void test_comm_at_switch(void)
{
	char msg[400];
	struct hist_tracedat *td = hist_tracedat_open(DATA "sched.perf.data", msg, sizeof(msg));
	const struct hist_ftrace_event *sw;
	const struct hist_field_desc *pc = NULL, *pp = NULL;
	struct hist_ftrace_record rec;
	uint32_t i;
	int ret, checked = 0;

	T_ASSERT(td != NULL);
	if (!td)
		return;
	sw = hist_tracedat_find_event(td, "sched", "sched_switch");
	for (i = 0; sw && i < sw->desc.nr_fields; i++) {
		if (!strcmp(sw->desc.fields[i].name, "prev_comm"))
			pc = &sw->desc.fields[i];
		if (!strcmp(sw->desc.fields[i].name, "prev_pid"))
			pp = &sw->desc.fields[i];
	}
	T_ASSERT(pc && pp);
	while (pc && pp && (ret = hist_tracedat_next(td, &rec)) != 0) {
		char got[16], want[17];
		int32_t pid;

		if (ret < 0 || rec.type != sw->desc.id)
			continue;
		memcpy(&pid, rec.data + pp->offset, 4);
		memcpy(want, rec.data + pc->offset, 16);
		want[16] = '\0';
		if (!pid || hist_tracedat_comm_at(td, pid, rec.ts, got) != 1)
			continue;
		checked++;
		if (strcmp(got, want))
			T_FAILF("pid %d at %llu: %s, the switch says %s", pid,
				(unsigned long long)rec.ts, got, want);
	}
	T_ASSERT(checked > 20);
	hist_tracedat_close(td);
}

/* Callchains: kernel frames for stacktrace keys; none on a trace.dat. */
static void test_stack(void)
{
	char msg[400];
	struct hist_tracedat *td = hist_tracedat_open(DATA "stack.perf.data", msg, sizeof(msg));
	struct hist_ftrace_record rec;
	uint64_t ips[64];
	int ret, n, with = 0, recs = 0, k;

	T_ASSERT(td != NULL);
	if (!td)
		return;
	while ((ret = hist_tracedat_next(td, &rec)) > 0) {
		recs++;
		n = hist_tracedat_stack(td, ips, 64);
		T_ASSERT(n >= 0);
		if (n > 2)
			with++;
		for (k = 0; k < n; k++)
			if (ips[k] < UINT64_C(0xffff800000000000))
				T_FAILF("frame %d %llx is not a kernel address", k,
					(unsigned long long)ips[k]);
	}
	T_EQ(recs, with);
	T_ASSERT(recs > 10);
	/* MAX bounds the frames */
	hist_tracedat_rewind(td);
	T_EQ(hist_tracedat_next(td, &rec), 1);
	T_EQ(hist_tracedat_stack(td, ips, 2), 2);
	hist_tracedat_close(td);

	td = hist_tracedat_open("test/data/sched.v7-zstd.dat", msg, sizeof(msg));
	T_ASSERT(td != NULL);
	if (!td)
		return;
	T_EQ(hist_tracedat_next(td, &rec), 1);
	T_EQ(hist_tracedat_stack(td, ips, 64), -1);
	T_STREQ(hist_tracedat_format(td), "trace.dat");
	hist_tracedat_close(td);
}

static void test_formats(void)
{
	char msg[400];
	struct hist_tracedat *td = hist_tracedat_open(DATA "syscalls.pipe.perf.data", msg,
						      sizeof(msg));

	T_ASSERT(td != NULL);
	if (!td)
		return;
	T_STREQ(hist_tracedat_format(td), "perf.data (pipe)");
	T_STREQ(hist_tracedat_clock(td), "perf");
	T_ASSERT(!strncmp(hist_tracedat_uname(td), "Linux ", 6));
	T_ASSERT(hist_tracedat_find_event(td, "raw_syscalls", "sys_enter") != NULL);
	T_EQ(hist_tracedat_sampled(td), 0);
	hist_tracedat_close(td);
	td = hist_tracedat_open(DATA "sched.perf.data", msg, sizeof(msg));
	T_ASSERT(td != NULL);
	if (!td)
		return;
	T_STREQ(hist_tracedat_format(td), "perf.data");
	T_EQ(hist_tracedat_nr_cpus(td), 2);
	hist_tracedat_close(td);
}

/* ---- damaged files ------------------------------------------------------ */

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Walk BUF; records, errors and the last message. */
static int walk_mem(const uint8_t *buf, size_t len, uint64_t *recs, uint64_t *errs,
		    char *msg, size_t msglen)
{
	struct hist_tracedat *td = hist_tracedat_open_mem(buf, len, msg, msglen);
	struct hist_ftrace_record rec;
	int ret;

	*recs = *errs = 0;
	if (!td)
		return -1;
	while ((ret = hist_tracedat_next(td, &rec)) != 0) {
		if (ret < 0) {
			++*errs;
			snprintf(msg, msglen, "%s", hist_tracedat_error(td));
		} else {
			++*recs;
		}
	}
	hist_tracedat_close(td);
	return 0;
}

/* A pipe-mode file cut anywhere: the records before the cut, then one
 * error naming the offset.  A file-mode file loses its features (they
 * follow the data), so it does not open, and says why. */
static void test_truncated(void)
{
	size_t len, cut;
	uint8_t *b = slurp(DATA "syscalls.pipe.perf.data", &len);
	uint64_t full, recs, errs, prev = 0;
	char msg[400];

	T_ASSERT(b != NULL);
	if (!b)
		return;
	T_EQ(walk_mem(b, len, &full, &errs, msg, sizeof(msg)), 0);
	T_EQU(errs, 0);
	for (cut = len / 2; cut < len; cut += len / 11) {
		T_EQ(walk_mem(b, cut, &recs, &errs, msg, sizeof(msg)), 0);
		T_ASSERT(recs < full && recs >= prev);
		T_EQU(errs, 1);
		T_ASSERT(strstr(msg, "perf.data: ") && strstr(msg, "at offset "));
		prev = recs;
	}
	free(b);

	b = slurp(DATA "sched.perf.data", &len);
	T_ASSERT(b != NULL);
	if (!b)
		return;
	/* in the features, or in the data (then the features are gone) */
	T_EQ(walk_mem(b, len * 2 / 3, &recs, &errs, msg, sizeof(msg)), -1);
	T_ASSERT(strstr(msg, "cut short") != NULL);
	T_EQ(walk_mem(b, len / 4, &recs, &errs, msg, sizeof(msg)), -1);
	T_ASSERT(strstr(msg, "cut short") != NULL);
	if (!strstr(msg, "cut short"))
		printf("# %s\n", msg);
	free(b);
}

/*
 * A file-mode file cut in its feature sections, after the data: every
 * record is there, then one error says what is lost (the kernel release
 * --kernel defaults to, among others), where hist-replay exited 0 without
 * a word.  Feature 4 (osrelease) of sched.perf.data sits at
 * 151374..151442; its last section ends at the file's end.
 */
static void test_features_cut(void)
{
	static const size_t cuts[] = { 151400, 155000, 157393 };
	size_t len, i;
	uint8_t *b = slurp(DATA "sched.perf.data", &len);
	uint64_t full, recs, errs;
	char msg[400];

	T_ASSERT(b != NULL && len == 157494);
	if (!b || len != 157494)
		return;
	T_EQ(walk_mem(b, len, &full, &errs, msg, sizeof(msg)), 0);
	T_EQU(errs, 0);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		T_EQ(walk_mem(b, cuts[i], &recs, &errs, msg, sizeof(msg)), 0);
		T_EQU(recs, full);
		T_EQU(errs, 1);
		T_ASSERT(strstr(msg, "perf.data: the file is cut short") != NULL);
		if (!strstr(msg, "cut short"))
			printf("# cut at %zu: %s\n", cuts[i], msg);
	}
	T_EQ(walk_mem(b, 151400, &recs, &errs, msg, sizeof(msg)), 0);
	T_ASSERT(strstr(msg, "feature 4, the kernel release,") != NULL);
	/* the tool: the histograms, the warning, exit 3 (damage) */
	{
		char path[] = "/tmp/test_perf_cut.XXXXXX", cmd[600];
		int fd = mkstemp(path), st;
		FILE *f;

		T_ASSERT(fd >= 0);
		if (fd < 0)
			goto out;
		T_ASSERT(write(fd, b, 155000) == 155000);
		close(fd);
		if (access("build/hist-replay", X_OK)) {
			printf("# SKIP the tool: build/hist-replay is not built\n");
			unlink(path);
			goto out;
		}
		snprintf(cmd, sizeof(cmd), "build/hist-replay -t 'sched/sched_switch "
			 "hist:keys=common_cpu' %s 2>&1", path);
		f = popen(cmd, "r");
		T_ASSERT(f != NULL);
		if (f) {
			char out[8192];
			size_t n = fread(out, 1, sizeof(out) - 1, f);

			out[n] = 0;
			st = pclose(f);
			T_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 3);
			T_ASSERT(strstr(out, "    Hits: 58\n") != NULL);
			T_ASSERT(strstr(out, "the file is cut short") != NULL);
		}
		unlink(path);
	}
out:
	free(b);
}

/* A sample whose RAW size runs past it is skipped and reported with its
 * offset after the others; the rest are all there. */
static void test_corrupt_sample(void)
{
	size_t len, i;
	uint8_t *b = slurp(DATA "sched.perf.data", &len);
	uint64_t full, recs, errs;
	struct hist_ftrace_record rec;
	struct hist_tracedat *td;
	char msg[400], want[64];
	uint8_t *raw;

	T_ASSERT(b != NULL);
	if (!b)
		return;
	T_EQ(walk_mem(b, len, &full, &errs, msg, sizeof(msg)), 0);
	td = hist_tracedat_open_mem(b, len, msg, sizeof(msg));
	T_ASSERT(td != NULL);
	if (!td) {
		free(b);
		return;
	}
	for (i = 0; i < 10; i++)
		T_EQ(hist_tracedat_next(td, &rec), 1);
	/* find the payload in our copy, within its record */
	raw = memmem(b + rec.file_offset, 512, rec.data, rec.len);
	hist_tracedat_close(td);
	T_ASSERT(raw != NULL);
	if (!raw) {
		free(b);
		return;
	}
	raw[-4] = 0xff;
	raw[-3] = 0x7f;
	T_EQ(walk_mem(b, len, &recs, &errs, msg, sizeof(msg)), 0);
	T_EQU(recs, full - 1);
	T_EQU(errs, 1);
	snprintf(want, sizeof(want), "at offset %llu", (unsigned long long)rec.file_offset);
	T_ASSERT(strstr(msg, "raw data longer than the sample") && strstr(msg, want));
	if (!strstr(msg, want))
		printf("# %s\n", msg);
	free(b);
}

/*
 * perf record --threads: the directory's data.N files are merged by time
 * with the header file's records; its header file alone is refused with
 * a message that says what to open.
 */
static void test_threads_dir(void)
{
	char msg[400];
	struct hist_tracedat *td = hist_tracedat_open(DATA "threads.perf.data", msg, sizeof(msg));
	struct hist_ftrace_record rec;
	uint64_t per_cpu[2] = { 0, 0 }, last = 0;
	int ret;

	T_ASSERT(td != NULL);
	if (!td)
		return;
	T_STREQ(hist_tracedat_format(td), "perf.data");
	while ((ret = hist_tracedat_next(td, &rec)) > 0) {
		T_ASSERT(rec.ts >= last);
		last = rec.ts;
		if (rec.cpu < 2)
			per_cpu[rec.cpu]++;
	}
	T_EQ(ret, 0);
	/* recorded on 2 CPUs, one thread (and file) each: both files read */
	T_ASSERT(per_cpu[0] > 0 && per_cpu[1] > 0);
	/* a rewind reads the files again */
	hist_tracedat_rewind(td);
	T_EQ(hist_tracedat_next(td, &rec), 1);
	hist_tracedat_close(td);

	td = hist_tracedat_open(DATA "threads.perf.data/data", msg, sizeof(msg));
	T_ASSERT(td == NULL);
	T_ASSERT(strstr(msg, "--threads") && strstr(msg, "open the directory"));
	hist_tracedat_close(td);
}

/* The records of a walk of TD (-1 on an error), per CPU in PER_CPU[2]. */
static int64_t walk_count(struct hist_tracedat *td, uint64_t per_cpu[2])
{
	struct hist_ftrace_record rec;
	int64_t n = 0;
	int ret;

	per_cpu[0] = per_cpu[1] = 0;
	while ((ret = hist_tracedat_next(td, &rec)) > 0) {
		n++;
		if (rec.cpu < 2)
			per_cpu[rec.cpu]++;
	}
	return ret ? -1 : n;
}

/*
 * perf record --threads -z: every data.N file starts a zstd stream of
 * its own (read on with the previous file's stream, data.1 failed at
 * offset 0 and its records were lost); a rewind reads the same records
 * from the chunks decompressed on the first pass.
 */
static void test_threads_zstd(void)
{
	char msg[400];
	struct hist_tracedat *td = hist_tracedat_open(DATA "threads-zstd.perf.data", msg,
						      sizeof(msg));
	uint64_t a[2], b[2];
	int64_t n;

	T_ASSERT(td != NULL);
	if (!td) {
		printf("# %s\n", msg);
		return;
	}
	n = walk_count(td, a);
	if (n < 0)
		printf("# %s\n", hist_tracedat_error(td));
	/* record.sh: the workload's system calls ran on both CPUs */
	T_ASSERT(n > 0 && a[0] > 0 && a[1] > 0);
	T_EQ(hist_tracedat_rewind(td), 0);
	T_EQ(walk_count(td, b), n);
	T_EQU(b[0], a[0]);
	T_EQU(b[1], a[1]);
	hist_tracedat_close(td);
}

/* The execs a walk of sched.perf.data hands out: how many, and how many
 * of the workload's programs (sh -c of ls, cat and sleep: record.sh). */
static void count_execs(struct hist_tracedat *td, int *all, int *wl, int32_t *first_pid)
{
	const struct hist_ftrace_event *ev = hist_tracedat_find_event(td, "sched",
								     "sched_process_exec");
	struct hist_ftrace_record rec;
	uint32_t i, foff = 0;

	*all = *wl = 0;
	T_ASSERT(ev != NULL);
	if (!ev)
		return;
	for (i = 0; i < ev->desc.nr_fields; i++)
		if (!strcmp(ev->desc.fields[i].name, "filename"))
			foff = ev->desc.fields[i].offset;
	while (hist_tracedat_next(td, &rec) > 0) {
		uint32_t loc;
		char name[64];

		if (rec.type != ev->desc.id || rec.len < foff + 4)
			continue;
		if (!*all && first_pid)
			memcpy(first_pid, rec.data + 4, 4);
		memcpy(&loc, rec.data + foff, 4);
		snprintf(name, sizeof(name), "%.*s", (int)(loc >> 16),
			 (const char *)rec.data + (loc & 0xffff));
		(*all)++;
		*wl += !strcmp(name, "/usr/bin/ls") || !strcmp(name, "/usr/bin/cat") ||
		       !strcmp(name, "/usr/bin/sh") || !strcmp(name, "/usr/bin/sleep");
	}
}

/*
 * --pid over a system-wide recording (sched.perf.data, made while other
 * builds ran): the gate keeps the workload's tree (the sh perf started,
 * its ls and cat) and drops everyone else's execs; a trace.dat refuses
 * it.  The kernel's own gated hists are the oracle's cases-perf.
 */
static void test_pid_gate(void)
{
	char msg[400];
	struct hist_tracedat *td = hist_tracedat_open(DATA "sched.perf.data", msg, sizeof(msg));
	int all, wl, gall, gwl;
	int32_t root = 0;

	T_ASSERT(td != NULL);
	if (!td)
		return;
	count_execs(td, &all, &wl, &root);
	T_ASSERT(root > 0 && wl >= 8 && all > wl);
	T_EQ(hist_tracedat_set_pid_gate(td, root), 0);
	hist_tracedat_rewind(td);
	count_execs(td, &gall, &gwl, NULL);
	/* sh, 3 x (ls, cat), sleep: the workload's, nothing else */
	T_EQ(gall, 8);
	T_EQ(gwl, 8);
	printf("# sched.perf.data: %d execs, %d under --pid %d\n", all, gall, (int)root);
	hist_tracedat_close(td);

	/* a trace.dat takes the gate too (test_ftrace checks what passes) */
	td = hist_tracedat_open("test/data/sched.v7-zstd.dat", msg, sizeof(msg));
	T_ASSERT(td != NULL);
	if (td) {
		T_EQ(hist_tracedat_set_pid_gate(td, 1), 0);
		T_EQ(hist_tracedat_set_pid_gate(td, -1), -HIST_EINVAL);
	}
	hist_tracedat_close(td);
}

/*
 * The command line: --kallsyms with the case's kallsyms names g08's
 * call sites (without it they stay addresses, with a warning), --pid
 * over a trace.dat without sched_process_fork records warns that the
 * children of the pid are not followed.
 */
static void test_cli_options(void)
{
	const char *c = CASES "g08-vals-sums-sym";
	char cmd[1400], *out, syms[512], data[512];
	struct unpacked u = { 0 };

	if (access("build/hist-replay", X_OK)) {
		printf("# SKIP hist-replay options: build/hist-replay is not built\n");
		return;
	}
	if (case_file(&u, CASES, c, "kallsyms.zst", syms, sizeof(syms)) ||
	    case_file(&u, CASES, c, "perf.data", data, sizeof(data))) {
		T_FAILF("%s: no kallsyms or perf.data", c);
		unpacked_free(&u);
		return;
	}
	snprintf(cmd, sizeof(cmd), "build/hist-replay --kallsyms %s --pid 1 "
		 "-t 'kmem/kmalloc hist:keys=call_site.sym' %s 2>&1", syms, data);
	out = run(cmd);
	T_ASSERT(out && strstr(out, "] proc_pid_readlink "));
	free(out);
	snprintf(cmd, sizeof(cmd), "HIST_REPLAY_KALLSYMS= build/hist-replay "
		 "-t 'kmem/kmalloc hist:keys=call_site.sym' %s 2>&1", data);
	out = run(cmd);
	T_ASSERT(out && strstr(out, "--kallsyms") && !strstr(out, "] proc_pid_readlink "));
	free(out);
	unpacked_free(&u);
	/* a trace.dat without fork records: said, as the children go unseen */
	snprintf(cmd, sizeof(cmd), "build/hist-replay --pid 1 -t 'raw_syscalls/sys_enter "
		 "hist:keys=common_pid' test/data/syscalls.v7-zstd.dat 2>&1 >/dev/null; "
		 "echo rc=$?");
	out = run(cmd);
	T_ASSERT(out && strstr(out, "rc=0") &&
		 strstr(out, "warning: --pid 1: the recording has no sched:sched_process_fork"));
	free(out);
}

static void test_not_perf(void)
{
	uint8_t b[64];
	char msg[200];
	uint64_t recs, errs;

	memset(b, 0, sizeof(b));
	memcpy(b, "PERFILE2", 8);
	b[8] = 104;	/* file mode header size, but only 64 bytes */
	T_EQ(walk_mem(b, sizeof(b), &recs, &errs, msg, sizeof(msg)), -1);
	T_ASSERT(strstr(msg, "perf.data: truncated file header") != NULL);
	b[8] = 16;	/* pipe mode, no records at all */
	T_EQ(walk_mem(b, 16, &recs, &errs, msg, sizeof(msg)), -1);
	T_ASSERT(strstr(msg, "no tracing data") != NULL);
}

/* Flip bytes all over each file: never a crash, a hang or a leak (ASan). */
/* A copy of the --threads directory with bits of its data.N files flipped
 * (the header file is flipped by test_flips through the single files). */
static void flip_dir(uint64_t *seed)
{
	char tmp[] = "/tmp/test_perf.XXXXXX", path[512], msg[400];
	static const char *const names[] = { "data", "data.0", "data.1" };
	uint8_t *b[3];
	size_t len[3], k, n;
	int it;

	T_ASSERT(mkdtemp(tmp) != NULL);
	for (n = 0; n < 3; n++) {
		snprintf(path, sizeof(path), DATA "threads.perf.data/%s", names[n]);
		b[n] = slurp(path, &len[n]);
		T_ASSERT(b[n] != NULL);
	}
	for (it = 0; it < 20 && b[0] && b[1] && b[2]; it++) {
		struct hist_tracedat *td;
		struct hist_ftrace_record rec;

		for (n = 0; n < 3; n++) {
			uint8_t *c = malloc(len[n]);
			FILE *fp;

			memcpy(c, b[n], len[n]);
			for (k = 0; n && k < 8; k++)
				c[t_xorshift(seed) % len[n]] ^= (uint8_t)(1u << (t_xorshift(seed) % 8));
			snprintf(path, sizeof(path), "%s/%s", tmp, names[n]);
			fp = fopen(path, "wb");
			T_ASSERT(fp && fwrite(c, 1, len[n], fp) == len[n]);
			if (fp)
				fclose(fp);
			free(c);
		}
		td = hist_tracedat_open(tmp, msg, sizeof(msg));
		T_ASSERT(td != NULL);
		while (td && hist_tracedat_next(td, &rec) != 0)
			;
		hist_tracedat_close(td);
	}
	for (n = 0; n < 3; n++) {
		free(b[n]);
		snprintf(path, sizeof(path), "%s/%s", tmp, names[n]);
		unlink(path);
	}
	rmdir(tmp);
}

static void test_flips(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t f;

	flip_dir(&seed);
	for (f = 0; f < NR_FILES; f++) {
		char path[256], msg[400];
		size_t len, k;
		uint8_t *b;
		int it;

		snprintf(path, sizeof(path), DATA "%s", files[f]);
		if (strstr(files[f], "threads"))
			snprintf(path, sizeof(path), DATA "%s/data", files[f]);
		b = slurp(path, &len);
		T_ASSERT(b != NULL);
		if (!b)
			continue;
		for (it = 0; it < 40; it++) {
			uint8_t *c = malloc(len);
			uint64_t recs, errs;

			memcpy(c, b, len);
			for (k = 0; k < 8; k++)
				c[t_xorshift(&seed) % len] ^= (uint8_t)(1u << (t_xorshift(&seed) % 8));
			walk_mem(c, len, &recs, &errs, msg, sizeof(msg));
			free(c);
		}
		free(b);
	}
}

int main(void)
{
	T_RUN(test_counts_vs_perf_script);
	T_RUN(test_lost_vs_perf);
	T_RUN(test_syscall_hist_vs_perf);
	T_RUN(test_pair_live);
	T_RUN(test_kernel_cases);
	T_RUN(test_comm_at_exec);
	T_RUN(test_comm_at_switch);
	T_RUN(test_stack);
	T_RUN(test_formats);
	T_RUN(test_truncated);
	T_RUN(test_features_cut);
	T_RUN(test_corrupt_sample);
	T_RUN(test_threads_dir);
	T_RUN(test_threads_zstd);
	T_RUN(test_pid_gate);
	T_RUN(test_cli_options);
	T_RUN(test_not_perf);
	T_RUN(test_flips);
	return T_DONE();
}
