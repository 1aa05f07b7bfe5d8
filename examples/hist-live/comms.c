/* SPDX-License-Identifier: MIT */
/*
 * Task names as the kernel had them at each record.
 *
 * The kernel's filter field `comm` (and `common_comm`) is current->comm
 * at the event, and a hist entry's .execname is current->comm when the
 * entry is created; a reader that asks /proc later gets the name a task
 * has *now* (or nothing, once it is gone).  So the private instance also
 * records the events that change a name, and their records are applied
 * in record order, between the records that the triggers see:
 *
 *   task/task_newtask      pid, comm: a new task (fork, clone, threads
 *                          too) starts with its parent's name
 *   task/task_rename       pid, newcomm: every change of current->comm
 *                          goes through __set_task_comm(), which records
 *                          it before the copy: prctl(PR_SET_NAME), writes
 *                          to /proc/PID/comm and exec alike.  At exec the
 *                          name is the kernel's own choice (the file's
 *                          basename, or the dentry's name for fexecve),
 *                          cut to 15 bytes, so sched_process_exec (whose
 *                          filename is "/dev/fd/3" for fexecve) is not
 *                          needed: this record says the result.  Its pid
 *                          is the exec'ing task's after de_thread(), the
 *                          leader's.
 *   sched/sched_process_exit  the task's last records follow within
 *                          microseconds; its entry is dropped EXIT_DRAINS
 *                          drains later.  Recorded in the exiting task's
 *                          context (sched_process_free is not: an RCU
 *                          callback's, which set_event_pid of -p filters
 *                          out, and entries would never go).
 *
 * A task_rename record is applied after it is fed: at that event current
 * still has the old name (oldcomm).  The table is seeded from
 * /proc/PID/task/TID/comm once the tracking events are on and before any
 * trigger's event is: a task that changes its name in between is in both,
 * and the records, applied later in order, end at its newest name.
 *
 * When the kernel loses records (its buffer overflowed), a name change
 * may be among them: entries older than the loss are "unsure" (lookup
 * returns 1) until a record of theirs is read again.
 *
 * Data: an open-addressing table keyed by pid (linear probing, deletion
 * by backward shift, at most half full), and a queue of exited pids with
 * the drain they exited in.  Single-threaded: the caller serialises.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"

/* An exited task's entry is kept this many drains after its exit record:
 * unordered reading feeds CPU by CPU, and the task's last records on
 * another CPU may come after its exit record (a drain may also stop
 * before a CPU is read to the end). */
#define EXIT_DRAINS 4

/* common_pid (after common_type u16, flags u8, preempt_count u8) */
#define COMMON_PID_OFF 4

struct comm_ent {
	int32_t pid;		/* 0: empty slot */
	uint32_t gen;		/* the loss generation it was learned in */
	uint32_t exited;	/* its exit record was read (queued in q) */
	char comm[16];
};

struct exited {
	int32_t pid;
	uint32_t drain;
};

struct live_comms {
	struct comm_ent *tab;
	size_t cap, nr;		/* cap a power of two */
	struct exited *q;	/* exited pids, oldest first from qhead */
	size_t qhead, qlen, qcap;
	uint32_t drains, gen;
	uint64_t lost;
	/* record types (-1: no such event) and field offsets */
	int id_newtask, id_rename, id_exit;
	uint32_t nt_pid, nt_comm, rn_pid, rn_comm;
};

static size_t slot_of(const struct live_comms *c, int32_t pid)
{
	/* Fibonacci hashing: pids come in runs */
	return (size_t)(((uint32_t)pid * 2654435761u) >> 8) & (c->cap - 1);
}

static struct comm_ent *find(const struct live_comms *c, int32_t pid)
{
	size_t i;

	if (!c->cap)
		return NULL;
	for (i = slot_of(c, pid); c->tab[i].pid; i = (i + 1) & (c->cap - 1))
		if (c->tab[i].pid == pid)
			return &c->tab[i];
	return NULL;
}

static int grow(struct live_comms *c)
{
	size_t cap = c->cap ? 2 * c->cap : 1024, i, j;
	struct comm_ent *t = calloc(cap, sizeof(*t)), *old = c->tab;
	size_t ocap = c->cap;

	if (!t)
		return -1;
	c->tab = t;
	c->cap = cap;
	for (i = 0; i < ocap; i++) {
		if (!old[i].pid)
			continue;
		for (j = slot_of(c, old[i].pid); t[j].pid; j = (j + 1) & (cap - 1))
			;
		t[j] = old[i];
	}
	free(old);
	return 0;
}

static void set(struct live_comms *c, int32_t pid, const char *name, size_t max)
{
	struct comm_ent *e = find(c, pid);
	size_t n;

	if (pid <= 0)
		return;
	if (!e) {
		size_t i;

		if (2 * (c->nr + 1) > c->cap && grow(c))
			return;	/* no memory: /proc answers for it */
		for (i = slot_of(c, pid); c->tab[i].pid; i = (i + 1) & (c->cap - 1))
			;
		e = &c->tab[i];
		e->pid = pid;
		c->nr++;
	}
	n = strnlen(name, max < 15 ? max : 15);
	memcpy(e->comm, name, n);
	memset(e->comm + n, 0, 16 - n);
	e->gen = c->gen;
	e->exited = 0;
}

static void drop(struct live_comms *c, int32_t pid)
{
	struct comm_ent *e = find(c, pid);
	size_t i, j, k;

	if (!e)
		return;
	/* backward shift: move up each later entry of the run that may
	 * sit at or before the hole */
	i = (size_t)(e - c->tab);
	c->tab[i].pid = 0;
	c->nr--;
	for (j = (i + 1) & (c->cap - 1); c->tab[j].pid; j = (j + 1) & (c->cap - 1)) {
		k = slot_of(c, c->tab[j].pid);
		/* the entry at J belongs in (I, J] cyclically: leave it */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		c->tab[i] = c->tab[j];
		c->tab[j].pid = 0;
		i = j;
	}
}

struct live_comms *comms_create(void)
{
	struct live_comms *c = calloc(1, sizeof(*c));

	if (c)
		c->id_newtask = c->id_rename = c->id_exit = -1;
	return c;
}

void comms_free(struct live_comms *c)
{
	if (!c)
		return;
	free(c->tab);
	free(c->q);
	free(c);
}

/* The ID of SYS/NAME and the offsets of fields F1, F2 (F2 may be NULL);
 * -1 if the event or a field is missing. */
static int event_fields(struct live_tfs *t, const char *sys, const char *name,
			const char *f1, uint32_t *o1, const char *f2, uint32_t *o2)
{
	struct hist_ftrace_event *e;
	char rel[128], err[128];
	size_t len;
	char *text;
	uint32_t i;
	int id = -1, found = 0;

	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	text = tfs_read(t, rel, 0, &len);
	if (!text)
		return -1;
	if (hist_ftrace_parse_format(text, len, sys, &e, err, sizeof(err))) {
		free(text);
		return -1;
	}
	free(text);
	for (i = 0; i < e->desc.nr_fields; i++) {
		const struct hist_field_desc *f = &e->desc.fields[i];

		if (f1 && !strcmp(f->name, f1) && f->size >= 4) {
			*o1 = f->offset;
			found |= 1;
		}
		if (f2 && !strcmp(f->name, f2) && f->size >= 16) {
			*o2 = f->offset;
			found |= 2;
		}
	}
	if (found == (f1 ? 1 : 0) + (f2 ? 2 : 0))
		id = (int)e->desc.id;
	hist_ftrace_event_free(e);
	return id;
}

/* Every thread's name from /proc. */
static void seed(struct live_comms *c)
{
	DIR *pd = opendir("/proc"), *td;
	struct dirent *p, *d;
	char path[600], name[32];

	while (pd && (p = readdir(pd))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		td = opendir(path);
		while (td && (d = readdir(td))) {
			FILE *f;
			size_t n;

			if (d->d_name[0] < '1' || d->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", p->d_name,
				 d->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;	/* gone meanwhile */
			n = fread(name, 1, 16, f);
			fclose(f);
			while (n && name[n - 1] == '\n')
				n--;
			set(c, (int32_t)atoi(d->d_name), name, n);
		}
		if (td)
			closedir(td);
	}
	if (pd)
		closedir(pd);
}

int comms_start(struct live_comms *c, struct live_tfs *t, int remember)
{
	static const char *const rels[] = {
		"events/task/task_newtask/enable",
		"events/task/task_rename/enable",
		"events/sched/sched_process_exit/enable",
	};
	size_t i;
	int ret;

	c->id_newtask = event_fields(t, "task", "task_newtask", "pid", &c->nt_pid, "comm",
				     &c->nt_comm);
	c->id_rename = event_fields(t, "task", "task_rename", "pid", &c->rn_pid, "newcomm",
				    &c->rn_comm);
	c->id_exit = event_fields(t, "sched", "sched_process_exit", NULL, NULL, NULL, NULL);
	if (c->id_newtask < 0 || c->id_rename < 0 || c->id_exit < 0) {
		c->id_newtask = c->id_rename = c->id_exit = -1;
		return -ENOENT;
	}
	for (i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
		ret = tfs_write(t, rels[i], "1", remember);
		if (ret) {
			c->id_newtask = c->id_rename = c->id_exit = -1;
			return ret;
		}
	}
	seed(c);
	return 0;
}

int comms_event(const struct live_comms *c, const char *sys, const char *name)
{
	(void)c;
	return (!strcmp(sys, "task") && (!strcmp(name, "task_newtask") ||
					 !strcmp(name, "task_rename"))) ||
	       (!strcmp(sys, "sched") && !strcmp(name, "sched_process_exit"));
}

int comms_type(const struct live_comms *c, uint32_t type)
{
	return c && c->id_newtask >= 0 &&
	       ((int)type == c->id_newtask || (int)type == c->id_rename ||
		(int)type == c->id_exit);
}

static int32_t rd_pid(const struct hist_ftrace_record *rec, uint32_t off)
{
	int32_t v;

	memcpy(&v, rec->data + off, 4);
	return v;
}

void comms_record(struct live_comms *c, const struct hist_ftrace_record *rec)
{
	int32_t pid;

	if ((int)rec->type == c->id_exit) {
		struct comm_ent *e;
		struct exited *q;

		if (rec->len < COMMON_PID_OFF + 4)
			return;
		pid = rd_pid(rec, COMMON_PID_OFF);
		e = pid > 0 ? find(c, pid) : NULL;
		if (!e || e->exited)
			return;
		e->exited = 1;
		if (c->qlen == c->qcap) {
			size_t cap = c->qcap ? 2 * c->qcap : 256, i;

			q = malloc(cap * sizeof(*q));
			if (!q) {
				drop(c, pid);	/* no memory: forget it now */
				return;
			}
			for (i = 0; i < c->qlen; i++)
				q[i] = c->q[(c->qhead + i) % c->qcap];
			free(c->q);
			c->q = q;
			c->qcap = cap;
			c->qhead = 0;
		}
		c->q[(c->qhead + c->qlen++) % c->qcap] = (struct exited){ pid, c->drains };
		return;
	}
	if ((int)rec->type == c->id_newtask) {
		if (rec->len >= c->nt_comm + 16 && rec->len >= c->nt_pid + 4)
			set(c, rd_pid(rec, c->nt_pid), (const char *)rec->data + c->nt_comm, 16);
	} else if ((int)rec->type == c->id_rename) {
		if (rec->len >= c->rn_comm + 16 && rec->len >= c->rn_pid + 4)
			set(c, rd_pid(rec, c->rn_pid), (const char *)rec->data + c->rn_comm, 16);
	}
}

void comms_drained(struct live_comms *c, uint64_t lost)
{
	if (!c)
		return;
	c->drains++;
	if (lost > c->lost) {
		c->lost = lost;
		c->gen++;
	}
	while (c->qlen && c->drains - c->q[c->qhead].drain >= EXIT_DRAINS) {
		struct comm_ent *e = find(c, c->q[c->qhead].pid);

		/* a pid used again (a task_newtask since the exit) stays:
		 * its entry is the new task's */
		if (e && e->exited)
			drop(c, c->q[c->qhead].pid);
		c->qhead = (c->qhead + 1) % c->qcap;
		c->qlen--;
	}
}

int comms_lookup(const struct live_comms *c, int32_t pid, char out[16])
{
	const struct comm_ent *e = c && pid > 0 ? find(c, pid) : NULL;

	if (!e)
		return -1;
	memcpy(out, e->comm, 16);
	return e->gen == c->gen ? 0 : 1;
}

size_t comms_size(const struct live_comms *c)
{
	return c ? c->nr : 0;
}
