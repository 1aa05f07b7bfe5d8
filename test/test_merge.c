/* SPDX-License-Identifier: MIT */
/*
 * Merging histograms (hist_merge_*, hist-merge).
 *
 *  - the JSON of one run, merged alone, prints exactly the run's hist
 *    files, for every g* kernel conformance case (every key kind, .sym,
 *    .percent/.graph/.hex, stacks, onmax()/onchange() blocks, snapshots,
 *    several triggers per event): the printer is the kernel's;
 *  - real recordings replayed one CPU at a time (hist-replay --cpu) merge
 *    to exactly the replay of the whole, order and ties included; the one
 *    difference allowed is the comm printed for a .execname pid, which is
 *    not part of the key (hist-merge.1);
 *  - N copies of a run multiply every sum and the Hits and Dropped by N,
 *    keep Entries, keys and percentages;
 *  - onmax() keeps the larger max with its saved fields whatever the
 *    order of the inputs, onchange() the last input's, through
 *    hist_merge_add_reader() on live tables;
 *  - different triggers and malformed JSON are refused with a message and
 *    the documented exit status; allocation failure at every step.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "libhist.h"
#include "test_events.h"
#include "util.h"

static char tmp[256];
#include "test_shell.h"

static bool same_files(const char *a, const char *b)
{
	return sh(1, "cmp -s %s/%s %s/%s || diff %s/%s %s/%s | head -20; cmp -s %s/%s %s/%s",
		  tmp, a, tmp, b, tmp, a, tmp, b, tmp, a, tmp, b) == 0;
}

/* ---- one run merged alone is the run ------------------------------------ */

static void test_single_cases(void)
{
	const char *base = "test/conformance/cases";
	DIR *d = opendir(base);
	struct dirent *de;
	unsigned done = 0;

	T_ASSERT(d);
	while (d && (de = readdir(d))) {
		char synth[600] = "";
		char dir[300];

		if (de->d_name[0] != 'g')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, de->d_name);
		if (sh(0, "test -f %s/trace.dat && test -f %s/triggers", dir, dir))
			continue;
		if (!sh(0, "test -f %s/synthetic_events", dir))
			snprintf(synth, sizeof(synth), "-S %s/synthetic_events", dir);
		sh(0, "hist-replay %s -T %s/triggers --json %s/trace.dat > %s/one.json",
		   synth, dir, dir, tmp);
		sh(0, "hist-replay %s -T %s/triggers %s/trace.dat > %s/one.txt",
		   synth, dir, dir, tmp);
		if (sh(1, "hist-merge %s/one.json > %s/merged.txt", tmp, tmp) ||
		    !same_files("one.txt", "merged.txt"))
			T_FAILF("%s: the merge of one run is not the run", de->d_name);
		/* --json: the run's own histograms (keys, texts, values,
		 * variables, onmax/onchange blocks, snapshot, totals), which
		 * merge again to the run */
		if (sh(1, "hist-merge --json %s/one.json > %s/merged.json && python3 "
		       "test/json_check.py --merge --same-hists %s/one.json %s/merged.json",
		       tmp, tmp, tmp, tmp) ||
		    sh(1, "hist-merge %s/merged.json > %s/merged.txt", tmp, tmp) ||
		    !same_files("one.txt", "merged.txt"))
			T_FAILF("%s: hist-merge --json of one run is not the run", de->d_name);
		done++;
	}
	if (d)
		closedir(d);
	printf("# %u conformance cases merged alone\n", done);
	T_ASSERT(done > 40);
}

/* ---- per-CPU replays merge to the whole ----------------------------------- */

struct split {
	const char *trace;
	const char *triggers[4];
};

static const struct split splits[] = {
	{ "test/data/sched.v7-zstd.dat", {
		"sched/sched_switch hist:keys=next_comm:vals=hitcount,prev_prio:sort=hitcount.descending",
		"sched/sched_switch hist:keys=prev_pid.log2,common_pid.execname",
		"sched/sched_wakeup hist:keys=pid:vals=prio:sort=prio.descending,pid",
		"sched/sched_switch hist:keys=prev_prio.buckets=10,next_pid" } },
	{ "test/data/syscalls.v7-zstd.dat", {
		"raw_syscalls/sys_enter hist:keys=id.syscall:vals=hitcount:sort=hitcount.descending",
		"raw_syscalls/sys_exit hist:keys=ret.hex:size=65536",
		"raw_syscalls/sys_enter hist:keys=common_pid.execname,id.syscall:sort=common_pid,id:size=65536",
		NULL } },
	{ "test/data/g08-kmalloc-sym.v7-zstd.dat", {
		"kmem/kmalloc hist:keys=call_site.sym:vals=bytes_req.percent,bytes_alloc.graph:"
		"sort=bytes_alloc.descending",
		"kmem/kmalloc hist:keys=call_site.sym-offset:vals=bytes_req.hex",
		NULL } },
	{ "test/data/g18-stacktrace.v7-zstd.dat", {
		"sched/sched_process_exec hist:keys=stacktrace:vals=hitcount:sort=hitcount.descending",
		NULL } },
};

/* The -t options of SPLIT. */
static void trig_args(const struct split *s, char *buf, size_t cap)
{
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < 4 && s->triggers[i]; i++)
		n += (size_t)snprintf(buf + n, cap - n, " -t '%s'", s->triggers[i]);
}

static void test_cpu_split(void)
{
	static const char *const norm =
		"sed -E 's/(common_pid: )[^[]*\\[/\\1[/'";
	size_t i;

	for (i = 0; i < sizeof(splits) / sizeof(splits[0]); i++) {
		const struct split *s = &splits[i];
		char t[2048];

		trig_args(s, t, sizeof(t));
		T_EQ(sh(1, "hist-replay %s %s > %s/whole.txt", t, s->trace, tmp), 0);
		T_EQ(sh(1, "hist-replay --json --cpu 0 %s %s > %s/c0.json", t, s->trace, tmp), 0);
		T_EQ(sh(1, "hist-replay --json --cpu 1-4095 %s %s > %s/c1.json", t, s->trace, tmp), 0);
		T_EQ(sh(1, "hist-merge %s/c0.json %s/c1.json > %s/merged.txt", tmp, tmp, tmp), 0);
		/* the split is real: each part has fewer hits than the whole */
		T_EQ(sh(1, "test \"$(grep -c . %s/c0.json)\" -gt 5 && ! cmp -s %s/c0.json %s/c1.json",
			tmp, tmp, tmp), 0);
		T_EQ(sh(1, "%s %s/whole.txt > %s/w.n && %s %s/merged.txt > %s/m.n", norm, tmp, tmp,
			norm, tmp, tmp), 0);
		if (!same_files("w.n", "m.n"))
			T_FAILF("%s: the per-CPU merge is not the whole", s->trace);
	}
}

/* ---- time windows merge to the whole, variables included ------------------ */

/*
 * A recording replayed in three time windows (--to, --from/--to, --from)
 * merges to the replay of the whole, JSON member for member: the sums,
 * the variables (each entry's p, ts and the string c hold what the last
 * window that set them wrote, as one table fed in time order holds the
 * last write), the onmax() blocks with their saved fields (the larger
 * max; on a tie the earlier window's, as the kernel keeps the first) and
 * Totals.  Merging the merge of the first two windows with the third
 * gives the same: a merge's JSON merges again.
 */
static void test_time_windows(void)
{
	static const char *const trig =
		"-t 'sched/sched_switch hist:keys=next_pid:p=prev_prio,ts=common_timestamp,"
		"c=prev_comm:onmax($p).save(prev_comm,prev_pid)' "
		"-t 'sched/sched_wakeup hist:keys=pid:vals=prio:w=common_timestamp:"
		"onmax($w).save(comm,target_cpu)'";
	const char *tr = "test/data/sched.v7-zstd.dat";

	T_EQ(sh(1, "hist-replay --json %s %s > %s/w.json", trig, tr, tmp), 0);
	T_EQ(sh(1, "hist-replay --json --to 0.05 %s %s > %s/t1.json", trig, tr, tmp), 0);
	T_EQ(sh(1, "hist-replay --json --from 0.05 --to 0.2 %s %s > %s/t2.json", trig, tr,
		tmp), 0);
	T_EQ(sh(1, "hist-replay --json --from 0.2 %s %s > %s/t3.json", trig, tr, tmp), 0);
	/* the windows are real: each has entries, and the variables show */
	T_EQ(sh(1, "for f in t1 t2 t3; do grep -q '\"vars\": \\[ { \"name\": \"p\"' "
		"%s/$f.json || exit 1; done", tmp), 0);
	T_EQ(sh(1, "hist-merge --json %s/t1.json %s/t2.json %s/t3.json > %s/m.json && "
		"python3 test/json_check.py --merge --same-hists %s/w.json %s/m.json",
		tmp, tmp, tmp, tmp, tmp, tmp), 0);
	T_EQ(sh(1, "hist-merge --json %s/t1.json %s/t2.json > %s/m12.json && "
		"hist-merge --json %s/m12.json %s/t3.json > %s/m3.json && "
		"python3 test/json_check.py --merge --same-hists %s/w.json %s/m3.json",
		tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp), 0);
	/* and as text, the kernel's */
	T_EQ(sh(1, "hist-replay %s %s > %s/w.txt && hist-merge %s/t1.json %s/t2.json "
		"%s/t3.json > %s/m.txt", trig, tr, tmp, tmp, tmp, tmp, tmp), 0);
	T_ASSERT(same_files("w.txt", "m.txt"));
	/* the later window wins a variable: the reverse order differs */
	T_EQ(sh(0, "hist-merge --json %s/t3.json %s/t2.json %s/t1.json > %s/r.json && "
		"python3 test/json_check.py --merge --same-hists %s/w.json %s/r.json",
		tmp, tmp, tmp, tmp, tmp, tmp), 1);
}

/*
 * A signed key column sorts as signed whichever input says so: the
 * return values of sys_exit split into a document of the non-negative
 * ones and one of the negative ones, both without "signed" (as older
 * documents are), merge to the whole, errors first.
 */
static void test_signed_column(void)
{
	static const char *const split =
		"import json,sys\n"
		"d=json.load(open(sys.argv[1]))\n"
		"for part,keep in (('pos',lambda v:v>=0),('neg',lambda v:v<0)):\n"
		"  o=json.loads(json.dumps(d))\n"
		"  for ev in o['events']:\n"
		"    for h in ev['histograms']:\n"
		"      for f in h['key_fields']: f.pop('signed',None)\n"
		"      h['entries']=[e for e in h['entries'] if keep(e['keys'][0]['value'])]\n"
		"      h['totals']['hits']=sum(e['values'][0]['value'] for e in h['entries'])\n"
		"      h['totals']['entries']=len(h['entries'])\n"
		"  json.dump(o,open(sys.argv[2]+'/'+part+'.json','w'))\n";
	const char *t = "-t 'raw_syscalls/sys_exit hist:keys=ret:sort=ret:size=65536'";
	char py[300];
	FILE *f;

	snprintf(py, sizeof(py), "%s/split.py", tmp);

	T_EQ(sh(1, "hist-replay --json %s test/data/syscalls.v7-zstd.dat > %s/s.json && "
		"hist-replay %s test/data/syscalls.v7-zstd.dat > %s/s.txt", t, tmp, t, tmp), 0);
	T_EQ(sh(1, "grep -q '\"value\": -' %s/s.json && grep -q '\"signed\": true' %s/s.json",
		tmp, tmp), 0);
	f = fopen(py, "w");
	T_ASSERT(f && fputs(split, f) >= 0);
	if (f)
		fclose(f);
	T_EQ(sh(1, "python3 %s %s/s.json %s", py, tmp, tmp), 0);
	T_EQ(sh(1, "hist-merge %s/pos.json %s/neg.json > %s/sm.txt", tmp, tmp, tmp), 0);
	T_ASSERT(same_files("s.txt", "sm.txt"));
}

/* ---- N copies ------------------------------------------------------------ */

/* Every "name: NUMBER" of line A times N must be line B's; percentages
 * and graphs the same; keys the same. */
static bool scaled_line(const char *a, const char *b, unsigned n)
{
	const char *ka = strchr(a, '}'), *kb = strchr(b, '}');

	if (strncmp(a, "    Entries:", 12) == 0 || a[0] != '{')
		return !strcmp(a, b) || (!strncmp(a, "    Hits: ", 10) &&
					 strtoull(a + 10, NULL, 10) * n ==
						 strtoull(b + 10, NULL, 10)) ||
		       (!strncmp(a, "    Dropped: ", 13) &&
			strtoull(a + 13, NULL, 10) * n == strtoull(b + 13, NULL, 10));
	if (!ka || !kb || ka - a != kb - b || strncmp(a, b, (size_t)(ka - a)))
		return false;
	while (*ka && *kb) {
		const char *ca = strstr(ka, ": "), *cb = strstr(kb, ": ");
		char *ea, *eb;
		unsigned long long x, y;

		if (!ca || !cb)
			return !ca && !cb;
		ka = ca + 2;
		kb = cb + 2;
		while (*ka == ' ')
			ka++;
		while (*kb == ' ')
			kb++;
		x = strtoull(ka, &ea, 10);
		y = strtoull(kb, &eb, 10);
		if (*ea == '.' || ca[-1] == ')') {	/* a percentage */
			if (strncmp(ka, kb, 6))
				return false;
		} else if (ea != ka && x * n != y &&
			   strtoull(ka, NULL, 16) * n != strtoull(kb, &eb, 16)) {
			return false;	/* neither decimal nor .hex */
		} else if (ea != ka) {
			strtoull(ka, &ea, 16);
			strtoull(kb, &eb, 16);
		}
		ka = ea;
		kb = eb;
	}
	return true;
}

static void test_copies(void)
{
	const struct split *s = &splits[2];	/* sym, percent, graph, hex */
	char t[2048], *one, *three, *pa, *pb;
	unsigned lines = 0;

	trig_args(s, t, sizeof(t));
	T_EQ(sh(1, "hist-replay --json %s %s > %s/a.json", t, s->trace, tmp), 0);
	T_EQ(sh(1, "hist-replay %s %s > %s/a.txt", t, s->trace, tmp), 0);
	T_EQ(sh(1, "hist-merge %s/a.json %s/a.json %s/a.json > %s/a3.txt", tmp, tmp, tmp,
		tmp), 0);
	one = t_readf("%s/a.txt", tmp);
	three = t_readf("%s/a3.txt", tmp);
	T_ASSERT(one && three);
	for (pa = one, pb = three; one && three && *pa && *pb; lines++) {
		char *na = strchr(pa, '\n'), *nb = strchr(pb, '\n');

		if (!na || !nb)
			break;
		*na = *nb = 0;
		/* .graph bars scale with the maximum: the same */
		if (!scaled_line(pa, pb, 3))
			T_FAILF("not 3x:\n  %s\n  %s", pa, pb);
		pa = na + 1;
		pb = nb + 1;
	}
	T_ASSERT(lines > 20);
	free(one);
	free(three);
}

/* ---- refusals ------------------------------------------------------------ */

static void test_refusals(void)
{
	const char *tr = "test/data/sched.v7-zstd.dat";
	char *err;

	T_EQ(sh(0, "hist-replay --json -t 'sched/sched_switch hist:keys=next_pid' %s > %s/p.json",
		tr, tmp), 0);
	T_EQ(sh(0, "hist-replay --json -t 'sched/sched_switch hist:keys=prev_pid' %s > %s/q.json",
		tr, tmp), 0);
	T_EQ(sh(0, "hist-merge %s/p.json %s/q.json", tmp, tmp), 1);
	err = t_readf("%s/out", tmp);
	T_ASSERT(err && strstr(err, "different trigger") && strstr(err, "keys=prev_pid"));
	free(err);
	/* malformed and truncated JSON: exit 2 with the byte offset */
	T_EQ(sh(0, "head -c 500 %s/p.json > %s/cut.json && hist-merge %s/cut.json",
		tmp, tmp, tmp), 2);
	err = t_readf("%s/out", tmp);
	T_ASSERT(err && strstr(err, "cut.json: byte "));
	free(err);
	T_EQ(sh(0, "echo '{\"events\": [ { \"system\": 1 } ] }' > %s/bad.json && "
		"hist-merge %s/bad.json", tmp, tmp), 2);
	T_EQ(sh(0, "echo '[1,2' > %s/bad2.json && hist-merge %s/bad2.json", tmp, tmp), 2);
	T_EQ(sh(0, "hist-merge %s/nonexistent.json", tmp), 2);
	T_EQ(sh(0, "hist-merge"), 2);
	/* deep nesting is refused, not a stack overflow */
	T_EQ(sh(0, "python3 -c 'print(\"[\"*100000)' > %s/deep.json && hist-merge %s/deep.json",
		tmp, tmp), 2);
}

/* ---- onmax / onchange on live tables --------------------------------------- */

static hist_ctx *run(const char *trigger, const uint64_t *vals, const uint64_t *keys,
		     unsigned n, hist_event **ev)
{
	struct hist_error herr;
	hist_ctx *ctx;
	unsigned i;
	int err;

	ctx = hist_ctx_create(&kv_host, NULL, &err);
	*ev = ctx ? hist_event_lookup(ctx, "t", "kv") : NULL;
	if (!*ev || hist_trigger_parse(*ev, trigger, &herr))
		return ctx;
	for (i = 0; i < n; i++) {
		struct kv_rec r = { .type = 1, .pid = 7, .key = keys[i], .val = vals[i] };
		struct hist_hit h = { .pid = -1 };

		memcpy(r.name, "a", 2);
		hist_event_hit(*ev, &r, sizeof(r), &h);
	}
	return ctx;
}

/* A and B merged, printed as the hist file or (JSON) as JSON. */
static char *merged(hist_event *a, hist_event *b, bool json)
{
	struct buf *out = calloc(1, sizeof(*out));
	hist_reader *ra, *rb;
	hist_merge *m;
	char *s;
	int err;

	m = hist_merge_create(&err);
	ra = hist_reader_create(a, 0, &err);
	rb = hist_reader_create(b, 0, &err);
	T_EQ(hist_merge_add_reader(m, ra), 0);
	T_EQ(hist_merge_add_reader(m, rb), 0);
	T_EQ((json ? hist_merge_print_json : hist_merge_print)(m, buf_write, out), 0);
	hist_reader_destroy(ra);
	hist_reader_destroy(rb);
	hist_merge_destroy(m);
	s = strdup(out->s);
	free(out);
	return s;
}

static void test_tracks(void)
{
	static const uint64_t va[] = { 10, 50, 20 }, ka[] = { 1, 2, 3 };
	static const uint64_t vb[] = { 30, 80, 5 }, kb[] = { 4, 5, 6 };
	const char *tmax = "hist:keys=name:m=val:onmax($m).save(key)";
	const char *tchg = "hist:keys=name:m=val:onchange($m).save(key)";
	hist_event *a, *b;
	hist_ctx *ca = run(tmax, va, ka, 3, &a), *cb = run(tmax, vb, kb, 3, &b);
	char *s1, *s2;

	T_ASSERT(a && b);
	if (!a || !b)
		goto out;
	s1 = merged(a, b, false);
	s2 = merged(b, a, false);
	/* the larger max (80, saved key 5), in either order */
	T_ASSERT(s1 && strstr(s1, "max:         80  key:          5"));
	T_ASSERT(s2 && strstr(s2, "max:         80  key:          5"));
	T_ASSERT(s1 && strstr(s1, "hitcount:          6"));
	free(s1);
	free(s2);
	hist_ctx_destroy(ca);
	hist_ctx_destroy(cb);
	ca = run(tchg, va, ka, 3, &a);
	cb = run(tchg, vb, kb, 3, &b);
	if (!a || !b)
		goto out;
	/* onchange: the later input's block (its last change: 5, key 6) */
	s1 = merged(a, b, false);
	s2 = merged(b, a, false);
	T_ASSERT(s1 && strstr(s1, "changed:          5  key:          6"));
	T_ASSERT(s2 && strstr(s2, "changed:         20  key:          3"));
	free(s1);
	free(s2);
	/* a different trigger is refused by the library too */
	{
		hist_ctx *cc;
		hist_event *c;
		hist_merge *m = hist_merge_create(NULL);
		hist_reader *ra, *rc;
		int err;

		cc = run("hist:keys=key", va, ka, 3, &c);
		ra = hist_reader_create(a, 0, &err);
		rc = hist_reader_create(c, 0, &err);
		T_EQ(hist_merge_add_reader(m, ra), 0);
		T_EQ(hist_merge_add_reader(m, rc), -HIST_EINVAL);
		T_EQ(hist_merge_print(NULL, buf_write, NULL), -HIST_EINVAL);
		hist_reader_destroy(ra);
		hist_reader_destroy(rc);
		hist_merge_destroy(m);
		hist_ctx_destroy(cc);
	}
out:
	hist_ctx_destroy(ca);
	hist_ctx_destroy(cb);
}

/* ---- allocation failures ------------------------------------------------- */

static void test_enomem(void)
{
	static const uint64_t va[] = { 10, 50, 20, 7 }, ka[] = { 1, 2, 3, 4 };
	const char *tr = "hist:keys=name,key:m=val:vals=val.percent:onmax($m).save(key)";
	hist_event *a;
	hist_ctx *ca;
	char *ref, *refj;
	long n;

	hist_set_allocator(&t_fail_alloc);
	ca = run(tr, va, ka, 4, &a);
	T_ASSERT(a);
	if (!a)
		goto out;
	ref = merged(a, a, false);
	refj = merged(a, a, true);
	for (n = 0; ref && refj; n++) {
		struct buf *o = calloc(1, sizeof(*o)), *oj = calloc(1, sizeof(*oj));
		hist_reader *r;
		hist_merge *m;
		long live = t_fa_live;
		int err, ret = 0;

		t_fa_count = 0;
		t_fa_fail_at = n;
		m = hist_merge_create(&err);
		r = m ? hist_reader_create(a, 0, &err) : NULL;
		if (!m || !r)
			ret = -HIST_ENOMEM;
		if (!ret)
			ret = hist_merge_add_reader(m, r);
		if (!ret)
			ret = hist_merge_add_reader(m, r);
		if (!ret)
			ret = hist_merge_print(m, buf_write, o);
		if (!ret)
			ret = hist_merge_print_json(m, buf_write, oj);
		hist_reader_destroy(r);
		hist_merge_destroy(m);
		t_fa_fail_at = -1;
		T_EQ(t_fa_live, live);
		if (!ret) {
			T_STREQ(o->s, ref);
			T_STREQ(oj->s, refj);
			free(o);
			free(oj);
			break;
		}
		T_EQ(ret, -HIST_ENOMEM);
		free(o);
		free(oj);
		if (n > 5000) {
			T_FAILF("never succeeds");
			break;
		}
	}
	free(ref);
	free(refj);
	hist_ctx_destroy(ca);
out:
	hist_set_allocator(NULL);
}

int main(int argc, char **argv)
{
	(void)argc;
	t_tools_on_path(argv[0]);
	if (t_scratch(tmp, sizeof(tmp), "test_merge"))
		return 1;
	T_RUN(test_single_cases);
	T_RUN(test_cpu_split);
	T_RUN(test_time_windows);
	T_RUN(test_signed_column);
	T_RUN(test_copies);
	T_RUN(test_refusals);
	T_RUN(test_tracks);
	T_RUN(test_enomem);
	t_scratch_remove(tmp);
	return T_DONE();
}
