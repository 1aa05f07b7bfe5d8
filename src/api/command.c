/* SPDX-License-Identifier: MIT */
/*
 * Trigger commands: what a write to an event's `trigger` or `filter` file
 * does, and what reading `trigger` prints.  Parses (parse/), resolves the
 * actions (actions/) and registers the result in the event's lists
 * (core/trigger.c), which publish it to the hits.
 */
#include "api/api.h"
#include "common/kversion.h"
#include "filter/filter.h"
#include "parse/parse.h"
#include "common/fmt.h"
#include "actions/actions.h"
#include "output/output.h"

static const char *const kind_names[] = {
	[HIST__T_HIST] = "hist",
	[HIST__T_TRACEON] = "traceon",
	[HIST__T_TRACEOFF] = "traceoff",
	[HIST__T_SNAPSHOT] = "snapshot",
	[HIST__T_STACKTRACE] = "stacktrace",
	[HIST__T_ENABLE_EVENT] = "enable_event",
	[HIST__T_DISABLE_EVENT] = "disable_event",
	[HIST__T_ENABLE_HIST] = "enable_hist",
	[HIST__T_DISABLE_HIST] = "disable_hist",
};


/* Triggers that share one slot per event (the kernel's trigger_type). */
static int slot_of(enum hist__tkind k)
{
	switch (k) {
	case HIST__T_TRACEON:
	case HIST__T_TRACEOFF:
		return 1;
	case HIST__T_ENABLE_EVENT:
	case HIST__T_DISABLE_EVENT:
		return 2;
	case HIST__T_ENABLE_HIST:
	case HIST__T_DISABLE_HIST:
		return 3;
	default:
		return 10 + (int)k;
	}
}


/* ---- commands ------------------------------------------------------ */

static void log_perr(struct hist_event *ev, struct hist__perr *pe,
		     const char *echo, size_t n, struct hist_error *err)
{
	char loc[HIST__LOC_MAX];
	struct hist__sb sb;
	uint32_t i;

	hist__sb_init_buf(&sb, loc, sizeof(loc));
	hist__sb_puts(&sb, "hist:");
	hist__sb_puts(&sb, ev->desc.system);
	hist__sb_putc(&sb, ':');
	hist__sb_puts(&sb, ev->desc.name);
	hist__sb_finish(&sb);
	for (i = 0; i < pe->nr; i++)
		hist__errlog_add(ev->ctx, loc, echo, n, pe->log[i].msg,
				 pe->log[i].pos);
	if (err) {
		err->nr_logged = pe->nr;
		if (pe->nr) {
			err->msg = pe->log[pe->nr - 1].msg;
			err->pos = pe->log[pe->nr - 1].pos;
		}
	}
}

/* Compile FILTER (N bytes, text after "if") for trigger T. */
static int set_trigger_filter(struct hist__trigger *t, const char *filter,
			      size_t n)
{
	struct hist__filter_err fe;

	if (!filter)
		return 0;
	t->filter = hist__filter_compile(t->ev, filter, n, &fe);
	if (!t->filter) {
		if (fe.code != -HIST_ENOMEM &&
		    hist__kv_new(t->ev->ctx->opts.kernel, HIST__KV_TRIGGER_FILTER_LOG))
			hist__errlog_add(t->ev->ctx, "event filter parse error",
					 filter, n, fe.msg, fe.pos);
		return fe.code ? fe.code : -HIST_EINVAL;
	}
	t->filter_text = hist__strndup(filter, n);
	return t->filter_text ? 0 : -HIST_ENOMEM;
}

static int apply_update(struct hist__trigger *x, const struct hist__parsed *p)
{
	if (p->pause) {
		hist__store_relaxed(&x->paused, 1u);
	} else if (p->cont) {
		hist__store_relaxed(&x->paused, 0u);
	} else if (p->clear) {
		return hist__hist_clear(x->hist);
	}
	return 0;
}

/* Would removing H break a reference from another trigger? */
static bool hist_is_referenced(const struct hist__hist *h)
{
	return h->nr_referrers != 0;
}

static int hist_register(struct hist_event *ev, struct hist__trigger *t,
			 const struct hist__parsed *p, struct hist__perr *pe)
{
	struct hist_ctx *ctx = ev->ctx;
	struct hist__named *g = NULL;
	struct hist__trigger *x;
	int ret;

	if (t->hist->name) {
		g = hist__named_find(ctx, t->hist->name);
		if (g && g->first && !hist__hist_match(t, g->first->t, true)) {
			hist__perr_add(pe, -HIST_EINVAL, HIST_ERR_NAMED_MISMATCH,
				       t->hist->name, strlen(t->hist->name));
			return -HIST_EINVAL;
		}
	}
	if (!t->hist->name || g) {
		x = hist__tlist_find_match(ev, t);
		if (x) {
			if (p->pause || p->cont || p->clear) {
				ret = apply_update(x, p);
				return ret ? ret : 1;
			}
			hist__perr_add(pe, -HIST_EEXIST, HIST_ERR_TRIGGER_EEXIST,
				       NULL, 0);
			return -HIST_EEXIST;
		}
	}
	if (p->cont || p->clear) {
		hist__perr_add(pe, -HIST_ENOENT, HIST_ERR_TRIGGER_ENOENT_CLEAR,
			       NULL, 0);
		return -HIST_ENOENT;
	}
	if (p->pause)
		t->paused = 1;
	if (t->hist->uses_ts && ctx->host.set_clock &&
	    ctx->host.set_clock(ctx->host.data, t->hist->clock)) {
		hist__perr_add(pe, -HIST_EINVAL, HIST_ERR_SET_CLOCK_FAIL,
			       t->hist->clock, strlen(t->hist->clock));
		return -HIST_EINVAL;
	}
	/* A named trigger shares the first member's actions. */
	if (!(g && g->first)) {
		ret = hist__actions_create(t->hist, pe);
		if (ret)
			return ret;
	}
	if (t->hist->name && !g) {
		g = hist__named_add(ctx, t->hist->name);
		if (!g)
			return -HIST_ENOMEM;
	}
	if (g)
		t->hist->map = g->map; /* NULL for the first member */
	ret = hist__hist_setup(t->hist);
	if (ret) {
		if (g && !g->refs)	/* no member: the group goes */
			hist__named_del(ctx, g);
		return ret;
	}
	if (g) {
		g->map = t->hist->map;
		g->refs++;
		if (!g->first)
			g->first = t->hist;
		t->hist->group = g;
	}
	/* hist triggers go to the tail, in creation order */
	ret = hist__tlist_add(ev, t, false);
	if (ret)
		return ret;
	ret = hist__triggers_publish(ev);
	if (ret) {
		hist__tlist_unlink(ev, t);
		return ret;
	}
	return 0;
}

int hist__hist_command(struct hist_event *ev, const char *params, size_t n,
		       bool remove, const char *echo, size_t echo_n,
		       struct hist__perr *pe, struct hist__trigger **out)
{
	struct hist__parsed p;
	struct hist__trigger *t = NULL, *x;
	int ret;

	if (out)
		*out = NULL;
	ret = hist__hist_parse(ev, params, n, remove, &p, pe, echo, echo_n);
	if (ret)
		return ret;
	t = hist__zalloc(sizeof(*t));
	if (!t) {
		hist__hist_free(p.hist);
		return -HIST_ENOMEM;
	}
	t->kind = HIST__T_HIST;
	t->ev = ev;
	t->count = -1;
	t->hist = p.hist;
	p.hist->t = t;
	ret = set_trigger_filter(t, p.filter, p.filter_n);
	if (ret)
		goto out;
	if (remove) {
		x = hist__tlist_find_match(ev, t);
		if (x) {
			if (hist_is_referenced(x->hist)) {
				ret = -HIST_EBUSY;
				goto out;
			}
			ret = hist__trigger_remove(ev, x);
			goto out;
		}
		ret = 0;
		goto out;
	}
	ret = hist_register(ev, t, &p, pe);
	if (ret == 0) {
		if (out)
			*out = t;
		t = NULL; /* registered: owned by the event */
	}
out:
	/* carets first: error tokens may point into T's strings */
	hist__perr_resolve(pe, echo, echo_n);
	if (t) {
		hist__actions_release(t->hist);
		hist__trigger_free(t);
	}
	return ret;
}

static int hist_command(struct hist_event *ev, const char *param, size_t n,
			bool remove, struct hist_error *err)
{
	char echo[HIST__CMD_MAX + 8];
	size_t echo_n;
	struct hist__perr pe;
	int ret;

	memcpy(echo, "hist:", 5);
	memcpy(echo + 5, param, n);
	echo_n = n + 5;
	echo[echo_n] = 0;
	memset(&pe, 0, sizeof(pe));
	ret = hist__hist_command(ev, param, n, remove, echo, echo_n, &pe, NULL);
	if (ret > 0)
		ret = 0;
	log_perr(ev, &pe, echo, echo_n, err);
	if (err)
		err->code = ret;
	return ret;
}

static int parse_kind(const char *w, size_t n, enum hist__tkind *k)
{
	size_t i;

	for (i = 0; i < HIST__ARRAY_SIZE(kind_names); i++) {
		if (strlen(kind_names[i]) == n && !memcmp(w, kind_names[i], n)) {
			*k = (enum hist__tkind)i;
			return 0;
		}
	}
	return -HIST_EINVAL;
}

static const char *span_chr(const char *s, const char *end, char c)
{
	return memchr(s, c, (size_t)(end - s));
}

/* traceon[:count][ if filter], enable_event:sys:ev[:count][ if filter] */
static int generic_command(struct hist_event *ev, enum hist__tkind kind,
			   const char *param, size_t n, bool remove)
{
	bool needs_target = kind >= HIST__T_ENABLE_EVENT;
	const char *p = param, *end = param ? param + n : NULL, *filter = NULL;
	const char *count_s = NULL;
	size_t count_n = 0, filter_n = 0;
	struct hist__trigger *t, *x;
	struct hist_event *target = NULL;
	int ret;

	/* separate "param" from " if filter": without a required param only
	 * a leading digit starts one (the :count) */
	if (param && (needs_target || (n && p[0] >= '0' && p[0] <= '9'))) {
		const char *sp = p;

		while (sp < end && *sp != ' ' && *sp != '\t')
			sp++;
		if (sp < end) {
			filter = sp;
			while (filter < end && (*filter == ' ' || *filter == '\t'))
				filter++;
			filter_n = (size_t)(end - filter);
			if (!filter_n)
				filter = NULL;
		}
		end = sp;
	} else if (param) {
		filter = p;
		filter_n = n;
		end = p;
	} else if (needs_target) {
		return -HIST_EINVAL;
	}
	if (needs_target) {
		const char *c1 = span_chr(p, end, ':'), *c2;
		char sys[128], evn[128];

		if (!c1)
			return -HIST_EINVAL;
		c2 = span_chr(c1 + 1, end, ':');
		if ((size_t)(c1 - p) >= sizeof(sys))
			return -HIST_EINVAL;
		memcpy(sys, p, (size_t)(c1 - p));
		sys[c1 - p] = 0;
		{
			const char *ee = c2 ? c2 : end;

			if ((size_t)(ee - c1 - 1) >= sizeof(evn))
				return -HIST_EINVAL;
			memcpy(evn, c1 + 1, (size_t)(ee - c1 - 1));
			evn[ee - c1 - 1] = 0;
		}
		target = hist_event_lookup(ev->ctx, sys, evn);
		if (!target)
			return -HIST_EINVAL;
		if (c2) {
			count_s = c2 + 1;
			count_n = (size_t)(end - count_s);
		}
	} else if (p != end) {
		count_s = p;
		count_n = (size_t)(end - p);
	}
	if (remove) {
		for (x = ev->trig_head; x; x = x->next) {
			if (slot_of(x->kind) == slot_of(kind) &&
			    (!needs_target || x->target == target))
				return hist__trigger_remove(ev, x);
		}
		return 0;
	}
	t = hist__zalloc(sizeof(*t));
	if (!t)
		return -HIST_ENOMEM;
	t->kind = kind;
	t->ev = ev;
	t->target = target;
	t->count = -1;
	if (count_s) {
		const char *c = span_chr(count_s, count_s + count_n, ':');
		uint64_t v;

		if (c)
			count_n = (size_t)(c - count_s);
		if (!count_n || hist__parse_u64(count_s, count_n, 0, &v) ||
		    v > INT64_MAX) {
			hist__trigger_free(t);
			return -HIST_EINVAL;
		}
		t->count = (int64_t)v;
	}
	if (filter) {
		/* the filter must be "if" then a non-empty filter */
		if (filter_n < 3 || memcmp(filter, "if", 2) ||
		    (filter[2] != ' ' && filter[2] != '\t')) {
			hist__trigger_free(t);
			return -HIST_EINVAL;
		}
		filter += 3;
		filter_n -= 3;
		ret = set_trigger_filter(t, filter, filter_n);
		if (ret) {
			hist__trigger_free(t);
			return ret;
		}
	}
	for (x = ev->trig_head; x; x = x->next) {
		if (slot_of(x->kind) == slot_of(kind) &&
		    (!needs_target || x->target == target)) {
			hist__trigger_free(t);
			return -HIST_EEXIST;
		}
	}
	/* generic triggers go to the head: newest first */
	ret = hist__tlist_add(ev, t, true);
	if (ret) {
		hist__trigger_free(t);
		return ret;
	}
	ret = hist__triggers_publish(ev);
	if (ret) {
		hist__tlist_unlink(ev, t);
		hist__trigger_free(t);
	}
	return ret;
}

int hist_trigger_parse(hist_event *ev, const char *text,
		       struct hist_error *err)
{
	const char *s = text, *w, *end;
	const char *param = NULL;
	size_t n = text ? strlen(text) : 0, wn, pn = 0;
	enum hist__tkind kind;
	bool remove = false;
	int ret;

	if (err) {
		memset(err, 0, sizeof(*err));
		err->msg = -1;
	}
	if (!ev || !text)
		return -HIST_EINVAL;
	if (n == 0)
		return 0;
	if (n >= HIST__CMD_MAX) {
		ret = -HIST_EINVAL;
		goto out;
	}
	end = s + n;
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\n'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
		end--;
	w = s;
	while (s < end && *s != ':' && *s != ' ' && *s != '\t')
		s++;
	wn = (size_t)(s - w);
	if (s < end) {
		s++;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s < end) {
			param = s;
			pn = (size_t)(end - s);
		}
	}
	if (wn && w[0] == '!') {
		remove = true;
		w++;
		wn--;
	}
	if (parse_kind(w, wn, &kind)) {
		ret = -HIST_EINVAL;
		goto out;
	}
	if (kind == HIST__T_HIST) {
		if (!param) {
			ret = -HIST_EINVAL;
			goto out;
		}
		return hist_command(ev, param, pn, remove, err);
	}
	ret = generic_command(ev, kind, param, pn, remove);
out:
	if (err)
		err->code = ret;
	return ret;
}

int hist_trigger_truncate(hist_event *ev)
{
	struct hist__trigger *t, *next;
	int ret;

	/* nothing is removed if any hist is referenced elsewhere */
	for (t = ev->trig_head; t; t = t->next)
		if (t->kind == HIST__T_HIST && hist_is_referenced(t->hist))
			return 0;
	for (t = ev->trig_head; t; t = next) {
		next = t->next;
		if ((t->kind == HIST__T_HIST || t->kind == HIST__T_ENABLE_HIST ||
		     t->kind == HIST__T_DISABLE_HIST) &&
		    (ret = hist__trigger_remove(ev, t)))
			return ret;
	}
	return 0;
}

static void filter_free(void *p)
{
	hist__filter_destroy(p);
}

int hist_event_set_filter(hist_event *ev, const char *text,
			  struct hist_error *err)
{
	struct hist__filter_err fe;
	struct hist_filter *f;
	size_t n = strlen(text);
	struct hist_filter *old = ev->filter;
	char *old_text = ev->filter_text;

	if (err) {
		memset(err, 0, sizeof(*err));
		err->msg = -1;
	}
	/* the kernel refuses a filter write of PAGE_SIZE or more before
	 * parsing it (event_filter_write()): EINVAL, nothing logged */
	if (n >= HIST__CMD_MAX) {
		if (err)
			err->code = -HIST_EINVAL;
		return -HIST_EINVAL;
	}
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		n--;
	if (n == 1 && text[0] == '0') {
		ev->filter = NULL;
		ev->filter_text = NULL;
		goto retire;
	}
	f = hist__filter_compile(ev, text, n, &fe);
	if (!f) {
		hist__errlog_add(ev->ctx, "event filter parse error", text, n,
				 fe.msg, fe.pos);
		if (err) {
			err->code = fe.code;
			err->msg = fe.msg;
			err->pos = fe.pos;
			err->nr_logged = 1;
		}
		return fe.code;
	}
	ev->filter_text = hist__strndup(text, n);
	if (!ev->filter_text) {
		ev->filter_text = old_text;
		hist__filter_destroy(f);
		return -HIST_ENOMEM;
	}
	ev->filter = f;
retire:
	if (old)
		hist__retire(ev->ctx, hist__filter_retire_node(old), filter_free, old);
	hist__free(old_text);
	return 0;
}

int hist_event_set_host_filtered(hist_event *ev, int on)
{
	uint32_t old = ev->host_filtered;
	int ret;

	ev->host_filtered = on != 0;
	hist__triggers_set_host_filtered(ev);
	/* and the variant of a lone trigger with the list published */
	ret = hist__triggers_publish(ev);
	if (ret) {
		ev->host_filtered = old;
		hist__triggers_set_host_filtered(ev);
	}
	return ret;
}

/* ---- the trigger file ---------------------------------------------- */

static void print_generic(struct hist__sb *sb, const struct hist__trigger *t)
{
	int64_t c = hist__load_relaxed(&t->count);

	hist__sb_puts(sb, kind_names[t->kind]);
	if (t->target) {
		hist__sb_putc(sb, ':');
		hist__sb_puts(sb, t->target->desc.system);
		hist__sb_putc(sb, ':');
		hist__sb_puts(sb, t->target->desc.name);
	}
	if (c == -1) {
		hist__sb_puts(sb, ":unlimited");
	} else {
		hist__sb_puts(sb, ":count=");
		hist__sb_s64(sb, c, 0);
	}
	if (t->filter_text) {
		hist__sb_puts(sb, " if ");
		hist__sb_puts(sb, t->filter_text);
	}
	hist__sb_putc(sb, '\n');
}

int hist_event_print_triggers(hist_event *ev, hist_write_fn write, void *arg)
{
	struct hist__trigger *t;
	struct hist__sb sb;

	hist__sb_init(&sb, write, arg);
	if (!ev->trig_head)
		hist__sb_puts(&sb, "# Available triggers:\n"
				   "# traceon traceoff snapshot stacktrace "
				   "enable_event disable_event enable_hist "
				   "disable_hist hist\n");
	for (t = ev->trig_head; t; t = t->next) {
		if (t->kind == HIST__T_HIST)
			hist__hist_print_info(&sb, t);
		else
			print_generic(&sb, t);
	}
	return hist__sb_finish(&sb);
}
