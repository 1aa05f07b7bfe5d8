/* SPDX-License-Identifier: MIT */
/*
 * The libhist host of hist-live: what the kernel's hist triggers would
 * know about the running system.
 *
 *   find_event    events/SYSTEM/EVENT/format, parsed by libhist-ftrace
 *   comm          the name the task had at the record being fed, from
 *                 the tracker of comms.c once it runs; for a task it
 *                 never saw (or unsure after losses, and alive),
 *                 /proc/PID/comm, cached for a second per pid; for a
 *                 task that is gone, its last name seen, else the
 *                 kernel's saved_cmdlines
 *   sym           /proc/kallsyms, loaded on first use (.sym, .sym-offset)
 *   syscall_name  the x86_64 table hist-replay uses
 *   set_clock     the instance's trace_clock (clock= of a trigger)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live.h"

#define COMM_CACHE 4096

struct ksym {
	uint64_t addr;
	char *name;		/* "name" or "name [module]" split at ' ' */
	const char *module;	/* NULL for the kernel proper */
};

struct comm_slot {
	int32_t pid;
	uint32_t alive;		/* comm is from /proc (else a gone task's) */
	uint64_t when;		/* seconds (CLOCK_MONOTONIC) */
	char comm[16];
};

struct live_host {
	struct live_tfs *tfs;
	struct hist_ftrace_event **fmts;	/* formats read so far */
	size_t nr_fmts, cap_fmts;
	hist_event **bound;			/* events we feed */
	size_t nr_bound;
	hist_event **by_id;			/* record type -> event */
	uint32_t nr_ids;
	struct ksym *syms;
	size_t nr_syms;
	int syms_loaded;
	char *clock;
	uint64_t now;		/* host_tick()'s second: no clock call per hit */
	struct comm_slot *cmdlines;		/* saved_cmdlines, as of ... */
	size_t nr_cmdlines, cap_cmdlines;
	uint64_t cmdlines_at;			/* ... this second, */
	uint64_t cmdlines_ms;			/* ... this millisecond */
	struct live_comms *tracker;		/* names as at the record */
	struct comm_slot comms[COMM_CACHE];
};

static int find_event(void *data, const char *system, const char *name,
		      struct hist_event_desc *out)
{
	struct live_host *h = data;
	struct hist_ftrace_event *e;
	char rel[512], err[256];
	size_t len;
	char *text;
	int ret;

	snprintf(rel, sizeof(rel), "events/%s/%s/format", system, name);
	text = tfs_read(h->tfs, rel, 0, &len);
	if (!text)
		return -HIST_ENOENT;
	ret = hist_ftrace_parse_format(text, len, system, &e, err, sizeof(err));
	free(text);
	if (ret) {
		fprintf(stderr, PROG ": %s: %s\n", rel, err);
		return -HIST_ENOENT;
	}
	if (h->nr_fmts == h->cap_fmts) {
		size_t cap = h->cap_fmts ? 2 * h->cap_fmts : 16;
		struct hist_ftrace_event **v = realloc(h->fmts, cap * sizeof(*v));

		if (!v) {
			hist_ftrace_event_free(e);
			return -HIST_ENOMEM;
		}
		h->fmts = v;
		h->cap_fmts = cap;
	}
	h->fmts[h->nr_fmts++] = e;
	*out = e->desc;
	return 0;
}

static uint64_t now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* saved_cmdlines ("PID COMM" lines): the kernel keeps the names of the
 * tasks whose events it recorded, as the kernel's .execname uses them. */
static void load_cmdlines(struct live_host *h)
{
	char *text = tfs_read(h->tfs, "saved_cmdlines", 0, NULL);
	char *line, *save = NULL;
	size_t n = 0;

	h->cmdlines_at = h->now;
	h->cmdlines_ms = now_ms();
	h->nr_cmdlines = 0;
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		int p, k = 0;

		if (sscanf(line, "%d %n", &p, &k) != 1 || !k)
			continue;
		if (n == h->cap_cmdlines) {
			size_t cap = n ? 2 * n : 256;
			struct comm_slot *v = realloc(h->cmdlines, cap * sizeof(*v));

			if (!v)
				break;
			h->cmdlines = v;
			h->cap_cmdlines = cap;
		}
		h->cmdlines[n].pid = p;
		snprintf(h->cmdlines[n].comm, 16, "%s", line + k);
		n++;
	}
	h->nr_cmdlines = n;
	free(text);
}

/*
 * A miss re-reads the table when the copy is CMDLINES_MISS_MS old: a task
 * of a few milliseconds (a build's shells) has exited before its records
 * are read, and its name reached saved_cmdlines after the last read.
 * With one read a second, a 3 s raw_syscalls run during a make printed
 * <...> for 155 of 391 pids that saved_cmdlines named.  A read of 6,552
 * lines takes about 4 ms (`time cat saved_cmdlines`): at most 4 a second.
 */
#define CMDLINES_MISS_MS 250

static int saved_comm(struct live_host *h, int32_t pid, char out[16])
{
	int pass;
	size_t i;

	if (!h->cmdlines || h->cmdlines_at != h->now)
		load_cmdlines(h);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < h->nr_cmdlines; i++) {
			if (h->cmdlines[i].pid == pid &&
			    strcmp(h->cmdlines[i].comm, "<...>")) {
				memcpy(out, h->cmdlines[i].comm, 16);
				return 0;
			}
		}
		if (pass || now_ms() - h->cmdlines_ms < CMDLINES_MISS_MS)
			break;
		load_cmdlines(h);
	}
	return -1;
}

static int comm(void *data, int32_t pid, char out[16])
{
	struct live_host *h = data;
	struct comm_slot *s = &h->comms[(uint32_t)pid % COMM_CACHE];
	uint64_t now = h->now;
	char path[64], known[16];
	int sure;
	FILE *f;
	size_t n;

	if (pid <= 0)
		return -1;
	/* 0: as the kernel had it at this record; 1: the kernel lost
	 * records since, a rename may be among them (/proc knows better
	 * while the task lives) */
	sure = comms_lookup(h->tracker, pid, known);
	if (sure == 0) {
		memcpy(out, known, 16);
		return 0;
	}
	/* an empty name: not known (asked this second already) */
	if (s->pid == pid && s->when + 1 >= now) {
		memcpy(out, sure > 0 && !s->alive ? known : s->comm, 16);
		return out[0] ? 0 : -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		int ret;

		if (sure > 0) {
			memcpy(s->comm, known, 16);
			ret = 0;
			goto gone;
		}
		/* gone: the name it had when last seen, else the one the
		 * kernel saved when it recorded its events */
		if (s->pid == pid && s->comm[0]) {
			memcpy(out, s->comm, 16);
			return 0;
		}
		/* the answer, unknown too, holds for the second: a task that
		 * is gone leaves many records, and a failed open each was
		 * slower than the kernel writes them (the reader fell behind
		 * for minutes) */
		ret = saved_comm(h, pid, s->comm);
		if (ret)
			s->comm[0] = 0;
gone:
		s->pid = pid;
		s->when = now;
		s->alive = 0;
		memcpy(out, s->comm, 16);
		return ret;
	}
	n = fread(s->comm, 1, 15, f);
	fclose(f);
	while (n && (s->comm[n - 1] == '\n'))
		n--;
	s->comm[n] = 0;
	s->pid = pid;
	s->when = now;
	s->alive = 1;
	memcpy(out, s->comm, 16);
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* /proc/kallsyms: "ffffffff81000000 T _stext" or "... name\t[module]". */
static void load_syms(struct live_host *h)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	size_t cap = 0;

	h->syms_loaded = 1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256], mod[128];
		int k = sscanf(line, "%llx %c %255s %127s", &addr, &type, name, mod);
		struct ksym *s;

		if (k < 3 || !addr || (type != 't' && type != 'T' && type != 'w' &&
				       type != 'W'))
			continue;
		if (h->nr_syms == cap) {
			cap = cap ? 2 * cap : 65536;
			s = realloc(h->syms, cap * sizeof(*s));
			if (!s)
				break;
			h->syms = s;
		}
		s = &h->syms[h->nr_syms];
		s->addr = addr;
		s->name = malloc(strlen(name) + (k == 4 ? strlen(mod) + 2 : 1));
		if (!s->name)
			break;
		strcpy(s->name, name);
		s->module = NULL;
		if (k == 4) {
			char *m = s->name + strlen(name) + 1;

			strcpy(m, mod);
			s->module = m;
		}
		h->nr_syms++;
	}
	fclose(f);
	qsort(h->syms, h->nr_syms, sizeof(*h->syms), cmp_sym);
}

/* The kernel's %ps / %pS: "name" or "name+0xoff/0xsize", " [module]". */
static int sym(void *data, uint64_t addr, int with_offset, char *buf, size_t len)
{
	struct live_host *h = data;
	size_t lo = 0, hi;
	const struct ksym *s;
	uint64_t size;
	int n;

	if (!h->syms_loaded)
		load_syms(h);
	hi = h->nr_syms;
	if (!hi || addr < h->syms[0].addr)
		return -1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	s = &h->syms[lo];
	/* the last symbol has no known end: only exact matches */
	size = lo + 1 < h->nr_syms ? h->syms[lo + 1].addr - s->addr : 1;
	if (addr - s->addr >= size)
		return -1;
	if (with_offset)
		n = snprintf(buf, len, "%s+0x%llx/0x%llx%s%s%s", s->name,
			     (unsigned long long)(addr - s->addr),
			     (unsigned long long)size, s->module ? " [" : "",
			     s->module ? s->module : "", s->module ? "]" : "");
	else
		n = snprintf(buf, len, "%s%s%s%s", s->name, s->module ? " [" : "",
			     s->module ? s->module : "", s->module ? "]" : "");
	return n < 0 || (size_t)n >= len ? -1 : n;
}

static int set_clock(void *data, const char *name)
{
	struct live_host *h = data;
	char *c = strdup(name);

	if (!c)
		return -HIST_ENOMEM;
	if (h->clock && strcmp(h->clock, name))
		fprintf(stderr, PROG ": triggers ask for clocks %s and %s; using %s\n",
			h->clock, name, name);
	free(h->clock);
	h->clock = c;
	return 0;
}

struct live_host *host_create(struct live_tfs *t)
{
	struct live_host *h = calloc(1, sizeof(*h));

	if (h) {
		h->tfs = t;
		h->now = now_sec();
		h->tracker = comms_create();
		if (!h->tracker) {
			free(h);
			return NULL;
		}
	}
	return h;
}

void host_tick(struct live_host *h)
{
	h->now = now_sec();
}

void host_free(struct live_host *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->nr_fmts; i++)
		hist_ftrace_event_free(h->fmts[i]);
	for (i = 0; i < h->nr_syms; i++)
		free(h->syms[i].name);
	free(h->fmts);
	free(h->bound);
	free(h->by_id);
	free(h->syms);
	free(h->cmdlines);
	free(h->clock);
	comms_free(h->tracker);
	free(h);
}

struct live_comms *host_comms(struct live_host *h)
{
	return h->tracker;
}

void host_fill(struct live_host *h, struct hist_host *out)
{
	memset(out, 0, sizeof(*out));
	out->data = h;
	out->find_event = find_event;
	out->comm = comm;
	out->sym = sym;
	out->syscall_name = replay_syscall_name;
	out->set_clock = set_clock;
}

size_t host_bind(struct live_host *h, hist_ctx *ctx)
{
	uint32_t max_id = 0;
	size_t i;

	free(h->bound);
	free(h->by_id);
	h->nr_bound = 0;
	h->bound = calloc(h->nr_fmts ? h->nr_fmts : 1, sizeof(*h->bound));
	for (i = 0; i < h->nr_fmts; i++)
		if (h->fmts[i]->desc.id > max_id)
			max_id = h->fmts[i]->desc.id;
	h->nr_ids = max_id + 1;
	h->by_id = calloc(h->nr_ids, sizeof(*h->by_id));
	if (!h->bound || !h->by_id)
		return 0;
	for (i = 0; i < h->nr_fmts; i++) {
		const struct hist_event_desc *d = &h->fmts[i]->desc;
		hist_event *ev = hist_event_lookup(ctx, d->system, d->name);

		if (!ev || !hist_event_active(ev) || h->by_id[d->id])
			continue;
		h->by_id[d->id] = ev;
		h->bound[h->nr_bound++] = ev;
	}
	return h->nr_bound;
}

size_t host_nr_bound(const struct live_host *h)
{
	return h->nr_bound;
}

hist_event *host_bound(const struct live_host *h, size_t i, const char **system,
		       const char **name)
{
	const struct hist_event_desc *d = hist_event_desc(h->bound[i]);

	*system = d->system;
	*name = d->name;
	return h->bound[i];
}

hist_event *host_event_by_id(const struct live_host *h, uint32_t id)
{
	return id < h->nr_ids ? h->by_id[id] : NULL;
}

const char *host_clock(const struct live_host *h)
{
	return h->clock;
}
