/* SPDX-License-Identifier: MIT */
/*
 * What the recording tells about tasks, gathered in one pass over it
 * before (or while) the replay needs it:
 *
 *  - the comm of each task at each point of the record stream.  The
 *    kernel's `.execname` key and the `comm` filter field read
 *    current->comm at the moment of the hit, and a task's comm changes at
 *    exec and prctl(PR_SET_NAME); trace-cmd's saved_cmdlines only keeps the
 *    last one.  Events that carry a task's comm next to its pid (sched_switch
 *    prev_/next_, sched_process_fork parent_/child_, sched_wakeup, ...) are
 *    observations; task_rename and sched_process_exec are change points.
 *    Only task_rename sees every change at its moment: it fires for exec
 *    (inside the exec, before sched_process_exec) and for prctl, which
 *    shows no other record (busybox names its applets that way: `ls` runs
 *    in the forked shell renamed by prctl, `cat` re-executes
 *    /proc/self/exe, named "exe", then renames itself; k13, k14).
 *    Without it a new name holds from the next record that shows it, so
 *    the replay warns (replay_db_names_uncertain()).
 *
 *  - the kernel stacks that options/stacktrace records as ftrace:kernel_stack
 *    right after an event on the same CPU, attached to that event.
 *
 *  - the number of records of each event.
 *
 * Positions: record number IDX (1-based, replay order) maps to 2*IDX+1.
 * An observation made by record IDX holds at 2*IDX+1.  task_rename fires
 * before the kernel copies the new name (the renamed task still has the
 * old comm while the event runs), so its change holds from 2*IDX+2;
 * sched_process_exec fires after the exec renamed the task, so its change
 * holds at 2*IDX+1 already.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "../common/field.h"

/*
 * The hist key `stacktrace` is saved from inside the hist trigger, the
 * recorded kernel_stack from the ring-buffer commit: on the recorded
 * kernel (g18) the hist stack equals the recorded one without its first
 * two frames (trace_event_raw_event_<event> and the tracepoint's caller
 * or __traceiter_<event>), for fork and exec alike.
 */
#define STACK_SKIP 2
#define STACK_MAX 64

enum { ENT_OBS = 0, ENT_CHANGE = 1 };

struct comm_ent {
	uint64_t pos;
	char comm[16];	 /* comm from pos on */
	char old[16];	 /* CHANGE: comm before pos, if has_old */
	uint8_t kind;
	uint8_t has_old;
};

struct comm_tl {
	int32_t pid;
	uint32_t n, cap, cur;
	struct comm_ent *e;
};

struct stack_ent {
	uint64_t owner;	 /* record number of the event the stack belongs to */
	uint32_t start, n;
};

struct str_field {
	uint32_t off, size;
	uint8_t kind;
	uint8_t ok;
};

struct int_field {
	uint32_t off, size;
	uint8_t ok;
};

enum {
	PLAN_UNSET = 0,
	PLAN_NONE,
	PLAN_PAIRS,
	PLAN_RENAME,
	PLAN_EXEC,
	PLAN_STACK,
};

#define MAX_PAIRS 4

struct plan {
	uint8_t kind;
	uint8_t nr_pairs;
	struct {
		struct int_field pid;
		struct str_field comm;
	} pair[MAX_PAIRS];
	struct int_field pid;	  /* rename, exec */
	struct str_field a, b;	  /* rename: oldcomm, newcomm; exec: filename */
	struct int_field size;	  /* stack */
	uint32_t caller_off;
};

struct replay_hist_db {
	/* pid -> timeline, open addressing */
	struct comm_tl *tl;
	uint32_t tl_cap, tl_used;

	struct stack_ent *st;
	size_t nr_st, st_cap;
	uint64_t *frames;
	size_t nr_frames, frames_cap;

	uint64_t *counts;	/* by event id */
	uint32_t nr_ids;
	uint64_t nr_renames;	/* task_rename records */
	uint64_t nr_changes;	/* names a task took after its first one */
	int oom;
};

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return p;
	while (ncap < need)
		ncap *= 2;
	np = realloc(p, ncap * elem);
	if (!np)
		return NULL;
	*cap = ncap;
	return np;
}

static uint32_t pid_hash(int32_t pid)
{
	return (uint32_t)pid * 2654435761u;
}

static struct comm_tl *tl_get(struct replay_hist_db *db, int32_t pid, int create)
{
	uint32_t i, mask;

	if (db->tl_cap) {
		mask = db->tl_cap - 1;
		for (i = pid_hash(pid) & mask;; i = (i + 1) & mask) {
			if (db->tl[i].e == NULL && db->tl[i].cap == 0)
				break;
			if (db->tl[i].pid == pid)
				return &db->tl[i];
		}
	}
	if (!create)
		return NULL;
	if ((db->tl_used + 1) * 2 > db->tl_cap) {
		uint32_t ncap = db->tl_cap ? db->tl_cap * 2 : 1024, j;
		struct comm_tl *nt = calloc(ncap, sizeof(*nt));

		if (!nt) {
			db->oom = 1;
			return NULL;
		}
		for (j = 0; j < db->tl_cap; j++) {
			struct comm_tl *o = &db->tl[j];

			if (!o->cap)
				continue;
			for (i = pid_hash(o->pid) & (ncap - 1); nt[i].cap;
			     i = (i + 1) & (ncap - 1))
				;
			nt[i] = *o;
		}
		free(db->tl);
		db->tl = nt;
		db->tl_cap = ncap;
	}
	mask = db->tl_cap - 1;
	for (i = pid_hash(pid) & mask; db->tl[i].cap; i = (i + 1) & mask)
		;
	db->tl[i].pid = pid;
	db->tl[i].e = calloc(4, sizeof(struct comm_ent));
	if (!db->tl[i].e) {
		db->oom = 1;
		return NULL;
	}
	db->tl[i].cap = 4;
	db->tl_used++;
	return &db->tl[i];
}

static struct comm_ent *tl_append(struct replay_hist_db *db, struct comm_tl *t)
{
	if (t->n == t->cap) {
		struct comm_ent *ne = realloc(t->e, 2 * t->cap * sizeof(*ne));

		if (!ne) {
			db->oom = 1;
			return NULL;
		}
		t->e = ne;
		t->cap *= 2;
	}
	memset(&t->e[t->n], 0, sizeof(t->e[0]));
	return &t->e[t->n++];
}

/* A task had COMM at POS.  Only changes are stored: an observation that
 * repeats the comm already known adds nothing to any answer. */
static void tl_obs(struct replay_hist_db *db, int32_t pid, uint64_t pos,
		   const char *comm)
{
	struct comm_tl *t;
	struct comm_ent *e;

	if (pid <= 0 || !comm[0])
		return;
	t = tl_get(db, pid, 1);
	if (!t)
		return;
	if (t->n && !strcmp(t->e[t->n - 1].comm, comm))
		return;
	e = tl_append(db, t);
	if (!e)
		return;
	if (t->n > 1)
		db->nr_changes++;
	e->pos = pos;
	e->kind = ENT_OBS;
	memcpy(e->comm, comm, 16);
}

static void tl_change(struct replay_hist_db *db, int32_t pid, uint64_t pos,
		      const char *old, const char *comm)
{
	struct comm_tl *t;
	struct comm_ent *e;

	if (pid <= 0 || !comm[0])
		return;
	t = tl_get(db, pid, 1);
	if (!t)
		return;
	if (!old && t->n && !strcmp(t->e[t->n - 1].comm, comm))
		return;
	e = tl_append(db, t);
	if (!e)
		return;
	if (t->n > 1 || old)
		db->nr_changes++;
	e->pos = pos;
	e->kind = ENT_CHANGE;
	memcpy(e->comm, comm, 16);
	if (old && old[0]) {
		memcpy(e->old, old, 16);
		e->has_old = 1;
	}
}

/* ---- record decoding ---------------------------------------------- */

static struct int_field int_field(const struct hist_event_desc *d,
				  const char *name)
{
	const struct hist_field_desc *f = tool_find_field(d, name);
	struct int_field r = { 0, 0, 0 };

	if (f && f->kind == HIST_FIELD_INT &&
	    (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)) {
		r.off = f->offset;
		r.size = f->size;
		r.ok = 1;
	}
	return r;
}

static int str_kind(uint8_t kind)
{
	return kind == HIST_FIELD_STRING || kind == HIST_FIELD_DYN_STRING ||
	       kind == HIST_FIELD_REL_STRING;
}

static struct str_field str_field_of(const struct hist_field_desc *f)
{
	struct str_field r = { 0, 0, 0, 0 };

	if (f && str_kind(f->kind)) {
		r.off = f->offset;
		r.size = f->size;
		r.kind = f->kind;
		r.ok = 1;
	}
	return r;
}

static int64_t read_int(const uint8_t *rec, uint32_t len, struct int_field f)
{
	uint64_t v = 0;

	if (!f.ok || f.off > len || f.size > len - f.off)
		return -1;
	switch (f.size) {
	case 1:
		return (int8_t)rec[f.off];
	case 2: {
		int16_t x;

		memcpy(&x, rec + f.off, 2);
		return x;
	}
	case 4: {
		int32_t x;

		memcpy(&x, rec + f.off, 4);
		return x;
	}
	default:
		memcpy(&v, rec + f.off, 8);
		return (int64_t)v;
	}
}

/* Copy the string field into OUT (at most CAP - 1 chars, NUL-terminated).
 * Returns 0, or -1 if the field lies outside the record. */
static int read_str(const uint8_t *rec, uint32_t len, struct str_field f,
		    char *out, size_t cap)
{
	const uint8_t *p;
	size_t n, max, i;

	out[0] = 0;
	if (!f.ok || f.off > len)
		return -1;
	if (f.kind == HIST_FIELD_STRING) {
		if (f.size > len - f.off)
			return -1;
		p = rec + f.off;
		max = f.size;
	} else {
		uint32_t loc, off;

		if (len - f.off < 4)
			return -1;
		memcpy(&loc, rec + f.off, 4);
		off = loc & 0xffff;
		max = loc >> 16;
		if (f.kind == HIST_FIELD_REL_STRING)
			off += f.off + 4;
		if (off > len || max > len - off)
			return -1;
		p = rec + off;
	}
	for (n = 0; n < max && p[n]; n++)
		;
	if (n > cap - 1)
		n = cap - 1;
	for (i = 0; i < n; i++)
		out[i] = (char)p[i];
	out[n] = 0;
	return 0;
}

static void make_plan(const struct hist_ftrace_event *ev, struct plan *p)
{
	const struct hist_event_desc *d = &ev->desc;
	uint32_t i;

	memset(p, 0, sizeof(*p));
	p->kind = PLAN_NONE;
	if (!d->system || !d->name)
		return;
	if (!strcmp(d->system, "ftrace") && !strcmp(d->name, "kernel_stack")) {
		const struct hist_field_desc *c = tool_find_field(d, "caller");

		p->size = int_field(d, "size");
		if (p->size.ok && c) {
			p->caller_off = c->offset;
			p->kind = PLAN_STACK;
		}
		return;
	}
	if (!strcmp(d->system, "task") && !strcmp(d->name, "task_rename")) {
		p->a = str_field_of(tool_find_field(d, "oldcomm"));
		p->b = str_field_of(tool_find_field(d, "newcomm"));
		/* newer kernels dropped the pid field: the task renames itself */
		p->pid = int_field(d, "pid");
		if (!p->pid.ok)
			p->pid = int_field(d, "common_pid");
		if (p->a.ok && p->b.ok && p->pid.ok)
			p->kind = PLAN_RENAME;
		return;
	}
	if (!strcmp(d->system, "sched") &&
	    !strcmp(d->name, "sched_process_exec")) {
		p->a = str_field_of(tool_find_field(d, "filename"));
		p->pid = int_field(d, "pid");
		if (p->a.ok && p->pid.ok)
			p->kind = PLAN_EXEC;
		return;
	}
	/* any "<prefix>comm" string next to an integer "<prefix>pid" */
	for (i = 0; i < d->nr_fields && p->nr_pairs < MAX_PAIRS; i++) {
		const struct hist_field_desc *f = &d->fields[i];
		size_t l = strlen(f->name);
		char pname[128];
		struct int_field pf;

		if (l < 4 || strcmp(f->name + l - 4, "comm") ||
		    !str_kind(f->kind) || l - 4 + 4 >= sizeof(pname))
			continue;
		memcpy(pname, f->name, l - 4);
		memcpy(pname + l - 4, "pid", 4);
		pf = int_field(d, pname);
		if (!pf.ok)
			continue;
		p->pair[p->nr_pairs].pid = pf;
		p->pair[p->nr_pairs].comm = str_field_of(f);
		p->nr_pairs++;
	}
	if (p->nr_pairs)
		p->kind = PLAN_PAIRS;
}

static void add_stack(struct replay_hist_db *db, uint64_t owner,
		      const struct plan *p, const struct hist_ftrace_record *rec)
{
	int64_t size = read_int(rec->data, rec->len, p->size);
	uint64_t avail, n, i;
	struct stack_ent *e;

	if (size <= STACK_SKIP || p->caller_off > rec->len)
		return;
	avail = (rec->len - p->caller_off) / 8;
	n = (uint64_t)size < avail ? (uint64_t)size : avail;
	if (n <= STACK_SKIP)
		return;
	n -= STACK_SKIP;
	if (n > STACK_MAX)
		n = STACK_MAX;
	db->frames = grow(db->frames, &db->frames_cap, db->nr_frames + n,
			  sizeof(uint64_t));
	db->st = grow(db->st, &db->st_cap, db->nr_st + 1, sizeof(*db->st));
	if (!db->frames || !db->st) {
		db->oom = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t ip;

		memcpy(&ip, rec->data + p->caller_off + (STACK_SKIP + i) * 8, 8);
		if (!ip)
			break;
		db->frames[db->nr_frames + i] = ip;
	}
	e = &db->st[db->nr_st++];
	e->owner = owner;
	e->start = (uint32_t)db->nr_frames;
	e->n = (uint32_t)i;
	db->nr_frames += i;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct stack_ent *x = a, *y = b;

	return x->owner < y->owner ? -1 : x->owner > y->owner;
}

struct replay_hist_db *replay_db_build(const char *path, const char *buffer,
				       char *err, size_t errlen)
{
	struct replay_hist_db *db;
	struct hist_tracedat *td;
	struct hist_ftrace_record rec;
	struct plan *plans = NULL;
	uint64_t *last = NULL, idx = 0, nr_err = 0;
	uint32_t nr_cpus, i, n;
	int ret;

	td = hist_tracedat_open(path, err, errlen);
	if (!td)
		return NULL;
	/* the buffer the replay walks: the same records, the same numbers */
	if (buffer && hist_tracedat_select_buffer(td, buffer)) {
		snprintf(err, errlen, "%s", hist_tracedat_error(td));
		hist_tracedat_close(td);
		return NULL;
	}
	db = calloc(1, sizeof(*db));
	nr_cpus = hist_tracedat_nr_cpus(td);
	last = calloc(nr_cpus ? nr_cpus : 1, sizeof(*last));
	n = hist_tracedat_nr_events(td);
	if (db)
		for (i = 0; i < n; i++) {
			const struct hist_ftrace_event *ev =
				hist_tracedat_event(td, i);

			if (ev && ev->desc.id >= db->nr_ids && ev->desc.id < 65536)
				db->nr_ids = ev->desc.id + 1;
		}
	if (db) {
		db->counts = calloc(db->nr_ids + 1, sizeof(uint64_t));
		plans = calloc(db->nr_ids + 1, sizeof(*plans));
	}
	if (!db || !last || !db->counts || !plans) {
		snprintf(err, errlen, "out of memory");
		free(last);
		free(plans);
		replay_db_free(db);
		hist_tracedat_close(td);
		return NULL;
	}
	/* the same record numbers as the replay: skip damaged places the
	 * same way (see replay_run()) */
	while ((ret = hist_tracedat_next(td, &rec)) != 0) {
		struct plan *p;
		char a[16], b[256];
		int64_t pid;
		uint32_t k;

		if (ret < 0) {
			if (++nr_err >= 1000)
				break;
			continue;
		}
		idx++;
		if (rec.type >= db->nr_ids) {
			if (rec.cpu < nr_cpus)
				last[rec.cpu] = idx;
			continue;
		}
		db->counts[rec.type]++;
		p = &plans[rec.type];
		if (p->kind == PLAN_UNSET) {
			const struct hist_ftrace_event *ev =
				hist_tracedat_event_by_id(td, rec.type);

			if (ev)
				make_plan(ev, p);
			else
				p->kind = PLAN_NONE;
		}
		if (p->kind == PLAN_STACK) {
			/* belongs to the previous record of this CPU */
			if (rec.cpu < nr_cpus && last[rec.cpu]) {
				add_stack(db, last[rec.cpu], p, &rec);
				last[rec.cpu] = 0;
			}
			continue;
		}
		if (rec.cpu < nr_cpus)
			last[rec.cpu] = idx;
		switch (p->kind) {
		case PLAN_PAIRS:
			for (k = 0; k < p->nr_pairs; k++) {
				pid = read_int(rec.data, rec.len, p->pair[k].pid);
				if (read_str(rec.data, rec.len, p->pair[k].comm,
					     a, sizeof(a)) == 0)
					tl_obs(db, (int32_t)pid, 2 * idx + 1, a);
			}
			break;
		case PLAN_RENAME:
			db->nr_renames++;
			pid = read_int(rec.data, rec.len, p->pid);
			if (read_str(rec.data, rec.len, p->a, a, sizeof(a)) ||
			    read_str(rec.data, rec.len, p->b, b, 16))
				break;
			tl_obs(db, (int32_t)pid, 2 * idx + 1, a);
			tl_change(db, (int32_t)pid, 2 * idx + 2, a, b);
			break;
		case PLAN_EXEC: {
			const char *base;
			char nc[16];
			size_t bl;

			pid = read_int(rec.data, rec.len, p->pid);
			if (read_str(rec.data, rec.len, p->a, b, sizeof(b)))
				break;
			/* exec names the task after the last path component
			 * of the file name, cut to TASK_COMM_LEN - 1 */
			base = strrchr(b, '/');
			base = base ? base + 1 : b;
			bl = strlen(base);
			if (bl > sizeof(nc) - 1)
				bl = sizeof(nc) - 1;
			memcpy(nc, base, bl);
			nc[bl] = 0;
			tl_change(db, (int32_t)pid, 2 * idx + 1, NULL, nc);
			break;
		}
		default:
			break;
		}
	}
	/* damage is reported by the replay itself when it gets there */
	free(last);
	free(plans);
	hist_tracedat_close(td);
	if (db->oom) {
		snprintf(err, errlen, "out of memory");
		replay_db_free(db);
		return NULL;
	}
	if (db->nr_st)
		qsort(db->st, db->nr_st, sizeof(*db->st), cmp_stack);
	return db;
}

void replay_db_free(struct replay_hist_db *db)
{
	uint32_t i;

	if (!db)
		return;
	for (i = 0; i < db->tl_cap; i++)
		free(db->tl[i].e);
	free(db->tl);
	free(db->st);
	free(db->frames);
	free(db->counts);
	free(db);
}

int replay_db_comm(struct replay_hist_db *db, int32_t pid, uint64_t idx,
		   char comm[16])
{
	struct comm_tl *t = tl_get(db, pid, 0);
	uint64_t q = 2 * idx + 1;
	uint32_t c;

	if (!t || !t->n)
		return 0;
	/* queries come in record order: continue from the last answer */
	c = t->cur;
	if (c >= t->n || t->e[c].pos > q)
		c = 0;
	while (c + 1 < t->n && t->e[c + 1].pos <= q)
		c++;
	t->cur = c;
	if (t->e[c].pos <= q) {
		memcpy(comm, t->e[c].comm, 16);
		return 1;
	}
	/*
	 * Before anything was seen of the task: its first observation holds
	 * unless the first thing seen is a change, whose old comm then does.
	 */
	if (t->e[0].kind == ENT_OBS) {
		memcpy(comm, t->e[0].comm, 16);
		return 1;
	}
	if (t->e[0].has_old) {
		memcpy(comm, t->e[0].old, 16);
		return 1;
	}
	return 0;
}

int replay_db_names_uncertain(const struct replay_hist_db *db)
{
	return !db->nr_renames && db->nr_changes;
}

unsigned replay_db_stack(const struct replay_hist_db *db, uint64_t idx,
			 uint64_t *ips, unsigned max)
{
	size_t lo = 0, hi = db->nr_st;
	unsigned n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (db->st[mid].owner < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == db->nr_st || db->st[lo].owner != idx)
		return 0;
	n = db->st[lo].n < max ? db->st[lo].n : max;
	for (i = 0; i < n; i++)
		ips[i] = db->frames[db->st[lo].start + i];
	return n;
}

int replay_db_has_stacks(const struct replay_hist_db *db)
{
	return db->nr_st != 0;
}

uint64_t replay_db_count(const struct replay_hist_db *db, uint32_t id)
{
	return id < db->nr_ids ? db->counts[id] : 0;
}
