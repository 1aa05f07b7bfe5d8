/* SPDX-License-Identifier: MIT */
/*
 * Kernel conformance: replay every recorded case of test/conformance/cases
 * (recorded on Linux 6.1) and test/conformance/cases-6.12 (Linux 6.12)
 * through libhist and compare with what that kernel printed for the same
 * events (see test/conformance/README.md for the layout and the rules).
 *
 * Per case: the `settings`, `synthetic_events` and `triggers` writes are
 * applied in order and each result is compared with expected/writes.tsv
 * (OK or the errno) and the error_log it left with expected/errlog/SEQ.txt
 * (time stamps ignored); writes the workload made between two trace_marker
 * lines are applied when the replay reaches them; then the recording is
 * replayed and every expected/hist/ section is compared with ours by
 * the tie-tolerant rule (test/conf_compare.c), and the number of records
 * per event with expected/event-counts.tsv.
 *
 * test/conformance/xfail.txt lists the failures that are expected for
 * now (inter-event features only, both sets) and kernel-xfail.txt those
 * that come from the kernel version (per set); a listed item that passes
 * is reported as a failure so that the lists only shrink.
 * test/conformance/overrides.txt documents where a recording cannot be
 * reproduced exactly (only the format is compared).
 *
 * Every case runs twice: with the default layout of the sums (per cpu,
 * for maps of the kernel's sizes), and again with HIST_SUMS_SHARED (the
 * kernel's layout), whose hist text must be the same.
 *
 * usage: test_conformance [-v] [CASE-SUBSTRING...]
 *   -v also shows the details of expected failures.
 *   HIST_CONFORMANCE_DIR overrides test/conformance; HIST_CONF_NOFORK=1
 *   runs the cases in-process (for a debugger).
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"

struct rule {
	char *pattern;	/* CASE or CASE/ITEM (fnmatch pattern for ITEM) */
	char *action;	/* overrides: OK, format; xfail: NULL */
	char *reason;
};

struct rules {
	struct rule *v;
	size_t n;
};

struct failure {
	char *item;
	struct replay_buf text;
};

struct outcome {
	struct failure *v;
	size_t n, cap;
};

struct runner {
	const char *dir;
	struct rules xfail, overrides;
	int verbose;
	int passed, failed, nr;
	/* this pass's hist_ctx_opts.sums and .kernel, and what its lines say */
	uint32_t sums, kernel;
	const char *mode;
};

static void oom(void)
{
	fprintf(stderr, "test_conformance: out of memory\n");
	exit(2);
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (!d)
		oom();
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

static char *dup0(const char *s)
{
	return dupn(s, strlen(s));
}

static char *pathf(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + (c ? strlen(c) : 0) + 3;
	char *p = malloc(n);

	if (!p)
		oom();
	snprintf(p, n, "%s/%s%s%s", a, b, c ? "/" : "", c ? c : "");
	return p;
}

static struct replay_buf *fail(struct outcome *o, const char *item)
{
	struct failure *f;

	if (o->n == o->cap) {
		size_t ncap = o->cap ? 2 * o->cap : 8;
		struct failure *nv = realloc(o->v, ncap * sizeof(*nv));

		if (!nv)
			oom();
		o->v = nv;
		o->cap = ncap;
	}
	f = &o->v[o->n++];
	memset(f, 0, sizeof(*f));
	f->item = dup0(item);
	return &f->text;
}

static void failf(struct outcome *o, const char *item, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void failf(struct outcome *o, const char *item, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	replay_buf_puts(fail(o, item), buf);
}

static void outcome_free(struct outcome *o)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		free(o->v[i].item);
		replay_buf_free(&o->v[i].text);
	}
	free(o->v);
}

/* ---- rule files ------------------------------------------------------- */

/* Lines "PATTERN<TAB>[ACTION<TAB>]REASON"; '#' comments. */
static void load_rules(const char *path, int with_action, struct rules *r)
{
	char *text = conf_read_file(path, NULL), **lines;
	size_t n, i;

	memset(r, 0, sizeof(*r));
	if (!text)
		return;
	n = conf_lines(text, &lines);
	r->v = calloc(n + 1, sizeof(*r->v));
	if (!r->v)
		oom();
	for (i = 0; i < n; i++) {
		char *l = lines[i], *t1, *t2;
		struct rule *ru;

		if (!l[0] || l[0] == '#')
			continue;
		ru = &r->v[r->n];
		t1 = strchr(l, '\t');
		ru->pattern = dupn(l, t1 ? (size_t)(t1 - l) : strlen(l));
		if (with_action && t1) {
			t2 = strchr(t1 + 1, '\t');
			ru->action = dupn(t1 + 1, t2 ? (size_t)(t2 - t1 - 1) :
						       strlen(t1 + 1));
			ru->reason = dup0(t2 ? t2 + 1 : "");
		} else {
			ru->action = NULL;
			ru->reason = dup0(t1 ? t1 + 1 : "");
		}
		r->n++;
	}
	free(lines);
	free(text);
}

static void free_rules(struct rules *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].pattern);
		free(r->v[i].action);
		free(r->v[i].reason);
	}
	free(r->v);
}

/* Rule for CASE/ITEM: a rule without "/" covers the whole case. */
static const struct rule *find_rule(const struct rules *r, const char *cname,
				    const char *item)
{
	size_t i, cl = strlen(cname);

	for (i = 0; i < r->n; i++) {
		const char *p = r->v[i].pattern;

		if (strncmp(p, cname, cl))
			continue;
		if (!p[cl])
			return item ? NULL : &r->v[i];
		if (p[cl] == '/' && item && !fnmatch(p + cl + 1, item, 0))
			return &r->v[i];
	}
	return NULL;
}

/* ---- expected/writes.tsv --------------------------------------------- */

struct ewrite {
	int seq;
	char *kind, *target, *text;
	int err;	/* 0: OK, else the errno */
};

static size_t load_writes(const char *path, struct ewrite **out)
{
	char *text = conf_read_file(path, NULL), **lines;
	struct ewrite *v;
	size_t n, i, k = 0;

	*out = NULL;
	if (!text)
		return 0;
	n = conf_lines(text, &lines);
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		oom();
	for (i = 0; i < n; i++) {
		char *f[5], *p = lines[i];
		int j;

		for (j = 0; j < 5 && p; j++) {
			f[j] = p;
			p = j < 4 ? strchr(p, '\t') : NULL;
			if (p)
				*p++ = 0;
		}
		if (j < 5)
			continue;
		v[k].seq = atoi(f[0]);
		v[k].kind = dup0(f[1]);
		v[k].target = dup0(f[2]);
		v[k].text = dup0(f[4]);
		v[k].err = !strncmp(f[3], "ERR ", 4) ? atoi(f[3] + 4) : 0;
		k++;
	}
	free(lines);
	free(text);
	*out = v;
	return k;
}

static void free_writes(struct ewrite *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].kind);
		free(v[i].target);
		free(v[i].text);
	}
	free(v);
}

/* ---- one case --------------------------------------------------------- */

struct mywrite {
	const char *kind;	/* setting, synth, trigger, file */
	char *target, *text;
};

struct casectx {
	struct runner *rn;
	const char *name;
	char *cdir;
	struct outcome out;
	struct replay *r;
	struct ewrite *ew;
	size_t nr_ew, next_ew;
	int nr_mid;
};

/* Lines of a case file, '#' and blank lines skipped (strings in TEXT). */
static size_t case_lines(struct casectx *c, const char *file, char **text,
			 char ***lines)
{
	char *p = pathf(c->cdir, file, NULL);
	size_t n, i, k = 0;

	*text = conf_read_file(p, NULL);
	free(p);
	*lines = NULL;
	if (!*text)
		return 0;
	n = conf_lines(*text, lines);
	for (i = 0; i < n; i++) {
		char *l = (*lines)[i];

		while (*l == ' ' || *l == '\t')
			l++;
		if (*l && *l != '#')
			(*lines)[k++] = (*lines)[i];
	}
	return k;
}

static const struct ewrite *next_expected(struct casectx *c)
{
	while (c->next_ew < c->nr_ew) {
		const struct ewrite *e = &c->ew[c->next_ew++];

		if (!strcmp(e->kind, "setting") || !strcmp(e->kind, "synth") ||
		    !strcmp(e->kind, "trigger") || !strcmp(e->kind, "file"))
			return e;
	}
	return NULL;
}

static void check_write(struct casectx *c, const char *kind,
			const char *target, const char *text, int rc)
{
	const struct ewrite *e = next_expected(c);
	char item[64], *ep, *exp_log, *got_log;
	int want;

	if (!e || strcmp(e->kind, kind) || strcmp(e->target, target) ||
	    strcmp(e->text, text)) {
		failf(&c->out, "setup", "writes.tsv does not list the %s write "
		      "%s '%s' here", kind, target, text);
		return;
	}
	if (!strcmp(kind, "setting"))
		return;
	snprintf(item, sizeof(item), "write/%d", e->seq);
	want = -e->err;
	if (rc != want)
		failf(&c->out, item, "%s '%s': got %s%s (%d), kernel %s%s (%d)%s%s",
		      target, text, rc ? "error " : "OK", rc ? strerror(-rc) : "",
		      rc, want ? "error " : "OK", want ? strerror(-want) : "", want,
		      replay_last_msg(c->r) ? ": " : "",
		      replay_last_msg(c->r) ? replay_last_msg(c->r) : "");
	/* the error_log this write left */
	snprintf(item, sizeof(item), "errlog/%d", e->seq);
	{
		char f[64];

		snprintf(f, sizeof(f), "expected/errlog/%d.txt", e->seq);
		ep = pathf(c->cdir, f, NULL);
	}
	exp_log = conf_read_file(ep, NULL);
	free(ep);
	{
		char *a = conf_errlog_norm(exp_log ? exp_log : "");

		got_log = conf_errlog_norm(replay_last_errlog(c->r));
		if (strcmp(a, got_log))
			failf(&c->out, item, "%s '%s': error_log differs\n"
			      "--- kernel:\n%s--- libhist:\n%s", target, text,
			      a, got_log);
		free(a);
	}
	free(got_log);
	free(exp_log);
}

static void on_mid_write(void *arg, const struct replay_write_res *res)
{
	struct casectx *c = arg;
	char item[32];

	c->nr_mid++;
	if (res->rc == 0)
		return;
	snprintf(item, sizeof(item), "midrun/%d", c->nr_mid);
	failf(&c->out, item, "at '%s': %s '%s' failed: %s\n%s", res->marker,
	      res->target, res->text, strerror(-res->rc), res->errlog);
}

static void add_mid(void *arg, const char *marker, const char *target,
		    const char *cmd)
{
	struct casectx *c = arg;

	if (replay_at_marker(c->r, marker, target, cmd))
		oom();
}

static char *event_hist(struct casectx *c, const char *sys, const char *ev)
{
	hist_event *e = hist_event_lookup(replay_ctx(c->r), sys, ev);
	struct replay_buf b = { 0 };
	char *s;
	int rc;

	if (!e)
		return NULL;
	rc = hist_event_print_hist(e, replay_buf_write, &b);
	if (rc) {
		replay_buf_free(&b);
		return NULL;
	}
	s = dup0(b.s ? b.s : "");
	replay_buf_free(&b);
	return s;
}

struct ehist {
	char *file, *sys, *ev;
	int index;
};

static void check_hists(struct casectx *c)
{
	char *p = pathf(c->cdir, "expected/hists.tsv", NULL);
	char *text = conf_read_file(p, NULL), **lines = NULL;
	struct ehist *eh = NULL;
	size_t n = 0, i, j, neh = 0;
	int format_only = 0;

	free(p);
	if (text)
		n = conf_lines(text, &lines);
	eh = calloc(n + 1, sizeof(*eh));
	if (!eh)
		oom();
	for (i = 1; i < n; i++) {	/* line 0 is the header */
		char *f[4], *q = lines[i];
		int k;

		for (k = 0; k < 4 && q; k++) {
			f[k] = q;
			q = strchr(q, '\t');
			if (q)
				*q++ = 0;
		}
		if (k < 4)
			continue;
		eh[neh].file = f[0];
		eh[neh].sys = f[1];
		eh[neh].ev = f[2];
		eh[neh].index = atoi(f[3]);
		neh++;
	}
	for (i = 0; i < neh; i++) {
		char item[300], *kt, *ct, **ks = NULL, **cs = NULL;
		size_t nk, nc;
		const struct rule *ov;

		snprintf(item, sizeof(item), "hist/%s", eh[i].file);
		ov = find_rule(&c->rn->overrides, c->name, item);
		format_only = ov && ov->action && !strcmp(ov->action, "format");
		p = pathf(c->cdir, "expected/hist", eh[i].file);
		kt = conf_read_file(p, NULL);
		free(p);
		ct = event_hist(c, eh[i].sys, eh[i].ev);
		if (!kt || !ct) {
			failf(&c->out, item, "%s", !kt ? "expected file missing" :
			      "no such event in libhist");
			free(kt);
			free(ct);
			continue;
		}
		nk = conf_split_sections(kt, &ks);
		nc = conf_split_sections(ct, &cs);
		if (nk != 1) {
			failf(&c->out, item, "expected file has %zu sections", nk);
		} else if ((size_t)eh[i].index > nc || eh[i].index < 1) {
			failf(&c->out, item, "libhist prints %zu hist section%s for "
			      "%s/%s, the kernel's is number %d", nc,
			      nc == 1 ? "" : "s", eh[i].sys, eh[i].ev,
			      eh[i].index);
		} else {
			struct replay_buf d = { 0 };

			if (conf_compare_section(ks[0], cs[eh[i].index - 1],
						 format_only, &d))
				failf(&c->out, item, "%s", d.s ? d.s : "");
			replay_buf_free(&d);
		}
		conf_free_strv(ks, nk);
		conf_free_strv(cs, nc);
		free(kt);
		free(ct);
	}
	/*
	 * No more sections than the kernel's: a rejected trigger must not
	 * leave a histogram behind.
	 */
	for (i = 0; i < replay_nr_events(c->r); i++) {
		const char *sys, *ev;
		char *ct, **cs = NULL, item[300];
		size_t nc, want = 0;

		replay_event(c->r, i, &sys, &ev);
		for (j = 0; j < neh; j++)
			if (!strcmp(eh[j].sys, sys) && !strcmp(eh[j].ev, ev))
				want++;
		ct = event_hist(c, sys, ev);
		if (!ct)
			continue;
		nc = conf_split_sections(ct, &cs);
		if (nc > want) {
			snprintf(item, sizeof(item), "hist-extra/%s_%s", sys, ev);
			failf(&c->out, item, "libhist prints %zu hist section%s "
			      "for %s/%s, the kernel %zu", nc, nc == 1 ? "" : "s",
			      sys, ev, want);
		}
		conf_free_strv(cs, nc);
		free(ct);
	}
	free(eh);
	free(lines);
	free(text);
}

static void check_counts(struct casectx *c)
{
	char *p = pathf(c->cdir, "expected/event-counts.tsv", NULL);
	char *text = conf_read_file(p, NULL), **lines = NULL;
	size_t n = 0, i, k;
	struct replay_buf d = { 0 };
	uint64_t total_exp = 0, total_got = 0;

	free(p);
	if (!text) {
		failf(&c->out, "counts", "expected/event-counts.tsv missing");
		return;
	}
	n = conf_lines(text, &lines);
	for (i = 0; i < n; i++) {
		char *tab = strchr(lines[i], '\t');
		uint64_t want, got = 0, cnt;
		const char *sys, *name;

		if (!tab)
			continue;
		*tab = 0;
		want = strtoull(tab + 1, NULL, 10);
		total_exp += want;
		for (k = 0; k < replay_nr_counts(c->r); k++)
			if (replay_count(c->r, k, &sys, &name, &cnt) &&
			    !strcmp(name, lines[i]))
				got += cnt;
		if (got != want) {
			char line[256];

			snprintf(line, sizeof(line), "%s: %llu records, kernel %llu\n",
				 lines[i], (unsigned long long)got,
				 (unsigned long long)want);
			replay_buf_puts(&d, line);
		}
	}
	for (k = 0; k < replay_nr_counts(c->r); k++) {
		const char *sys, *name;
		uint64_t cnt;

		if (replay_count(c->r, k, &sys, &name, &cnt))
			total_got += cnt;
	}
	if (total_got != total_exp) {
		char line[128];

		snprintf(line, sizeof(line), "total: %llu records, kernel %llu\n",
			 (unsigned long long)total_got,
			 (unsigned long long)total_exp);
		replay_buf_puts(&d, line);
	}
	if (d.len)
		failf(&c->out, "counts", "%s", d.s);
	replay_buf_free(&d);
	free(lines);
	free(text);
}

static void run_case(struct casectx *c)
{
	struct replay_opts ro;
	char err[1024], *p, *text, **lines;
	size_t n, i;
	int rc;

	memset(&ro, 0, sizeof(ro));
	/* the workloads' `echo CMD >> trigger` act inside their write(2) */
	ro.marker_sync = 1;
	ro.sums = c->rn->sums;
	ro.kernel = c->rn->kernel;
	p = pathf(c->cdir, "trace.dat", NULL);
	c->r = replay_open(p, &ro, err, sizeof(err));
	free(p);
	if (!c->r) {
		failf(&c->out, "setup", "cannot open trace.dat: %s", err);
		return;
	}
	p = pathf(c->cdir, "expected/writes.tsv", NULL);
	c->nr_ew = load_writes(p, &c->ew);
	free(p);

	n = case_lines(c, "settings", &text, &lines);
	for (i = 0; i < n; i++) {
		char *tab = strchr(lines[i], '\t');

		if (!tab)
			tab = strchr(lines[i], ' ');
		if (!tab)
			continue;
		*tab = 0;
		rc = replay_setting(c->r, lines[i], tab + 1);
		check_write(c, "setting", lines[i], tab + 1, rc);
	}
	free(lines);
	free(text);

	n = case_lines(c, "synthetic_events", &text, &lines);
	for (i = 0; i < n; i++) {
		rc = replay_write(c->r, "synthetic_events", lines[i]);
		check_write(c, "synth", "synthetic_events", lines[i], rc);
	}
	free(lines);
	free(text);

	n = case_lines(c, "triggers", &text, &lines);
	for (i = 0; i < n; i++) {
		char *l = lines[i], *sep = strchr(l, '\t');
		const char *kind;

		if (!sep)
			sep = strchr(l, ' ');
		if (!sep)
			continue;
		*sep++ = 0;
		kind = (l[0] != '/' && strchr(l, '/')) ? "trigger" : "file";
		rc = replay_write(c->r, l, sep);
		check_write(c, kind, l, sep, rc);
	}
	free(lines);
	free(text);

	p = pathf(c->cdir, "workload", NULL);
	text = conf_read_file(p, NULL);
	free(p);
	if (text)
		conf_workload_writes(text, add_mid, c);
	free(text);
	replay_set_write_cb(c->r, on_mid_write, c);

	if (replay_run(c->r))
		failf(&c->out, "run", "%s", replay_error(c->r));
	check_hists(c);
	check_counts(c);
}

static void report_case(struct runner *rn, struct casectx *c)
{
	const struct rule *whole = find_rule(&rn->xfail, c->name, NULL);
	size_t i, j, bad = 0, tolerated = 0;
	struct outcome extra = { 0 };

	rn->nr++;
	/* items of the case listed in xfail.txt that did not fail */
	for (i = 0; i < rn->xfail.n; i++) {
		const char *pat = rn->xfail.v[i].pattern;
		size_t cl = strlen(c->name);
		int hit = 0;

		if (strncmp(pat, c->name, cl) || pat[cl] != '/')
			continue;
		for (j = 0; j < c->out.n; j++)
			if (!fnmatch(pat + cl + 1, c->out.v[j].item, 0))
				hit = 1;
		if (!hit)
			failf(&extra, "xfail", "'%s' is listed as an expected failure but passes: "
			      "remove it", pat);
	}
	for (i = 0; i < c->out.n; i++) {
		if (whole || find_rule(&rn->xfail, c->name, c->out.v[i].item))
			tolerated++;
		else
			bad++;
	}
	if (whole && !c->out.n)
		failf(&extra, "xfail", "'%s' is listed as an expected failure but passes: remove "
		      "it", c->name);
	bad += extra.n;
	if (bad) {
		rn->failed++;
		printf("not ok %d - %s%s\n", rn->nr, c->name, rn->mode);
	} else {
		rn->passed++;
		if (tolerated)
			printf("ok %d - %s%s # xfail %zu item%s\n", rn->nr, c->name,
			       rn->mode, tolerated, tolerated == 1 ? "" : "s");
		else
			printf("ok %d - %s%s\n", rn->nr, c->name, rn->mode);
	}
	for (i = 0; i < c->out.n + extra.n; i++) {
		struct failure *f = i < c->out.n ? &c->out.v[i] :
						   &extra.v[i - c->out.n];
		int tol = i < c->out.n &&
			  (whole || find_rule(&rn->xfail, c->name, f->item));
		const char *s = f->text.s ? f->text.s : "";

		if (tol && !rn->verbose)
			continue;
		printf("#   %s%s:", tol ? "(xfail) " : "", f->item);
		/* indent the diff */
		while (*s) {
			const char *nl = strchr(s, '\n');
			size_t l = nl ? (size_t)(nl - s) : strlen(s);

			printf("\n#     %.*s", (int)l, s);
			s += l + (nl ? 1 : 0);
		}
		printf("\n");
	}
	fflush(stdout);
	outcome_free(&extra);
}

static int one_case(struct runner *rn, const char *name, const char *cdir)
{
	struct casectx c;
	int before = rn->failed;

	memset(&c, 0, sizeof(c));
	c.rn = rn;
	c.name = name;
	c.cdir = dup0(cdir);
	run_case(&c);
	report_case(rn, &c);
	replay_close(c.r);
	free_writes(c.ew, c.nr_ew);
	outcome_free(&c.out);
	free(c.cdir);
	return rn->failed != before;
}

/*
 * Each case runs in a child process: a crash in the library under test
 * is then one failed case with its signal, not the end of the run (and
 * under ASan each child's leak check covers one case).
 */
static void forked_case(struct runner *rn, const char *name, const char *cdir)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		one_case(rn, name, cdir);
		return;
	}
	if (pid == 0) {
		int failed = one_case(rn, name, cdir);

		fflush(stdout);
		free_rules(&rn->xfail);
		free_rules(&rn->overrides);
		exit(failed ? 1 : 0);
	}
	rn->nr++;
	while (waitpid(pid, &st, 0) < 0)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		rn->passed++;
	} else if (WIFEXITED(st) && WEXITSTATUS(st) == 1) {
		rn->failed++;
	} else {
		rn->failed++;
		if (WIFSIGNALED(st))
			printf("not ok %d - %s%s # crashed: signal %d (%s)\n", rn->nr,
			       name, rn->mode, WTERMSIG(st), strsignal(WTERMSIG(st)));
		else
			printf("not ok %d - %s%s # exit status %d (leak or "
			       "sanitizer report above)\n", rn->nr, name, rn->mode,
			       WEXITSTATUS(st));
		fflush(stdout);
	}
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The case names under CASES that match the arguments, sorted. */
static size_t list_cases(const char *cases, char **argv, int first_arg,
			 int argc, char ***out)
{
	char **names = NULL;
	size_t nn = 0, cap = 0;
	DIR *d = opendir(cases);
	struct dirent *de;
	int a;

	*out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int want = first_arg >= argc;

		if (de->d_name[0] == '.')
			continue;
		for (a = first_arg; a < argc; a++)
			if (strstr(de->d_name, argv[a]))
				want = 1;
		if (!want)
			continue;
		if (nn == cap) {
			char **nv;

			cap = cap ? 2 * cap : 128;
			nv = realloc(names, cap * sizeof(*nv));
			if (!nv)
				oom();
			names = nv;
		}
		names[nn++] = dup0(de->d_name);
	}
	closedir(d);
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_names);
	*out = names;
	return nn;
}

/*
 * The expected failures of one set: xfail.txt (both sets) plus the lines
 * of kernel-xfail.txt that start with "SETDIR/", without that prefix.
 */
static void load_set_xfail(const char *base, const char *setdir,
			   struct rules *r)
{
	struct rules k;
	size_t i, sl = strlen(setdir);
	char *p = pathf(base, "xfail.txt", NULL);
	struct rule *nv;

	load_rules(p, 0, r);
	free(p);
	p = pathf(base, "kernel-xfail.txt", NULL);
	load_rules(p, 0, &k);
	free(p);
	nv = realloc(r->v, (r->n + k.n + 1) * sizeof(*nv));
	if (!nv)
		oom();
	r->v = nv;
	for (i = 0; i < k.n; i++) {
		char *pat = k.v[i].pattern;

		if (strncmp(pat, setdir, sl) || pat[sl] != '/') {
			free(pat);
			free(k.v[i].reason);
			continue;
		}
		memmove(pat, pat + sl + 1, strlen(pat + sl + 1) + 1);
		r->v[r->n].pattern = pat;
		r->v[r->n].action = NULL;
		r->v[r->n].reason = k.v[i].reason;
		r->n++;
	}
	free(k.v);
}

/*
 * The recorded sets and the kernel each was recorded on: every case of a
 * set runs with that kernel's behaviour.
 */
static const struct conf_set {
	const char *dir;
	const char *kernel;	/* what the lines say */
	uint32_t version;	/* hist_ctx_opts.kernel */
} sets[] = {
	{ "cases", "6.1", HIST_KERNEL(6, 1) },
	{ "cases-6.12", "6.12", HIST_KERNEL(6, 12) },
};

int main(int argc, char **argv)
{
	struct runner rn;
	const char *base = getenv("HIST_CONFORMANCE_DIR");
	char *cases, *p, **names = NULL, mode[64];
	size_t nn, i, si;
	int first_arg = 1, nofork, pass, nsets = 0;

	memset(&rn, 0, sizeof(rn));
	if (argc > 1 && !strcmp(argv[1], "-v")) {
		rn.verbose = 1;
		first_arg = 2;
	}
	if (!base)
		base = "test/conformance";
	p = pathf(base, "overrides.txt", NULL);
	load_rules(p, 1, &rn.overrides);
	free(p);
	nofork = getenv("HIST_CONF_NOFORK") != NULL;
	rn.mode = mode;

	for (si = 0; si < sizeof(sets) / sizeof(sets[0]); si++) {
		cases = pathf(base, sets[si].dir, NULL);
		nn = list_cases(cases, argv, first_arg, argc, &names);
		if (!nn) {
			free(cases);
			continue;
		}
		nsets++;
		load_set_xfail(base, sets[si].dir, &rn.xfail);
		rn.kernel = sets[si].version;
		for (pass = 0; pass < 2; pass++) {
			rn.sums = pass ? HIST_SUMS_SHARED : HIST_SUMS_AUTO;
			snprintf(mode, sizeof(mode), " [%s%s]", sets[si].kernel,
				 pass ? " sums=shared" : "");
			for (i = 0; i < nn; i++) {
				char *cdir = pathf(cases, names[i], NULL);

				if (nofork)
					one_case(&rn, names[i], cdir);
				else
					forked_case(&rn, names[i], cdir);
				free(cdir);
			}
		}
		for (i = 0; i < nn; i++)
			free(names[i]);
		free(names);
		free(cases);
		free_rules(&rn.xfail);
	}
	free_rules(&rn.overrides);
	if (!nsets) {
		printf("not ok 1 - no cases under %s (run from the repository "
		       "root or set HIST_CONFORMANCE_DIR)\n0 passed, 1 failed\n",
		       base);
		return 1;
	}
	printf("%d passed, %d failed\n", rn.passed, rn.failed);
	return rn.failed ? 1 : 0;
}
