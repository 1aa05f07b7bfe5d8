/* SPDX-License-Identifier: MIT */
/*
 * The kernel's event pid filter (kernel/trace/trace_events.c: set_event_pid
 * with options/event-fork = 1) over recorded records, for
 * hist_tracedat_set_pid_gate(): which events and fields it looks at, what
 * it passes, and, for a trace.dat, the set of tasks it follows.  A
 * perf.data knows who forked whom from its FORK records (perf.c); a
 * trace.dat only from its sched_process_fork records, so its set grows
 * as they go by, in time order, as the kernel's did when it recorded.
 */
#include <stdlib.h>
#include <string.h>

#include "ftrace_int.h"

/* The id of sched:NAME + 1 and the offset + 1 of its 4-byte field F (0: none). */
static uint32_t gate_event(const struct hist_tracedat *td, const char *name, const char *f,
			   uint32_t *off1)
{
	const struct hist_ftrace_event *ev = NULL;
	uint32_t i;

	*off1 = 0;
	for (i = 0; i < td->nr_events && !ev; i++)
		if (!strcmp(td->events[i]->desc.system, "sched") &&
		    !strcmp(td->events[i]->desc.name, name))
			ev = td->events[i];
	if (!ev)
		return 0;
	for (i = 0; i < ev->desc.nr_fields; i++)
		if (!strcmp(ev->desc.fields[i].name, f) && ev->desc.fields[i].size == 4)
			*off1 = ev->desc.fields[i].offset + 1;
	return ev->desc.id + 1;
}

void hist__gate_ev_init(const struct hist_tracedat *td, struct hist__gate_ev *g)
{
	g->sw = gate_event(td, "sched_switch", "prev_pid", &g->sw_prev);
	gate_event(td, "sched_switch", "next_pid", &g->sw_next);
	g->wake[0] = gate_event(td, "sched_waking", "pid", &g->wake_pid[0]);
	g->wake[1] = gate_event(td, "sched_wakeup", "pid", &g->wake_pid[1]);
	g->wake[2] = gate_event(td, "sched_wakeup_new", "pid", &g->wake_pid[2]);
	g->fork = gate_event(td, "sched_process_fork", "parent_pid", &g->fork_parent);
	gate_event(td, "sched_process_fork", "child_pid", &g->fork_child);
}

/* The 4-byte field at offset OFF1 - 1 of REC; -1 if the event lacks it. */
int32_t hist__gate_field(const struct hist_ftrace_record *rec, uint32_t off1, int be)
{
	if (!off1 || off1 - 1 + 4 > rec->len)
		return -1;
	return (int32_t)hist__get32(rec->data + off1 - 1, be);
}

int hist__gate_pass(const struct hist__gate_ev *g, const struct hist_ftrace_record *rec, int be,
		    int (*in)(void *arg, int32_t pid), void *arg)
{
	uint32_t id1 = (uint32_t)rec->type + 1, k;

	if (rec->len >= 8 && in(arg, (int32_t)hist__get32(rec->data + 4, be)))
		return 1;
	if (id1 == g->sw)
		return in(arg, hist__gate_field(rec, g->sw_prev, be)) ||
		       in(arg, hist__gate_field(rec, g->sw_next, be));
	for (k = 0; k < 3; k++)
		if (id1 == g->wake[k])
			return in(arg, hist__gate_field(rec, g->wake_pid[k], be));
	return 0;
}

/* ---- a trace.dat's set ---------------------------------------------------- */

struct hist__gate {
	struct hist__gate_ev ev;
	int32_t root;
	int32_t *set;		/* the pids in the set, open addressing; 0: empty
				   (pid 0, the idle task, is never forked) */
	uint32_t cap, used;
	uint64_t *carry;	/* per CPU: losses before records gated out */
	uint32_t nr_carry;
};

static uint32_t set_slot(const struct hist__gate *g, int32_t pid)
{
	uint32_t i, mask = g->cap - 1;

	for (i = ((uint32_t)pid * 2654435761u) & mask; g->set[i] && g->set[i] != pid;
	     i = (i + 1) & mask)
		;
	return i;
}

static int set_has(void *arg, int32_t pid)
{
	const struct hist__gate *g = arg;

	return pid > 0 && g->set[set_slot(g, pid)] == pid;
}

/* Add PID (> 0); the set stays at most half full.  -1: out of memory. */
static int set_add(struct hist__gate *g, int32_t pid)
{
	uint32_t i;

	if ((g->used + 1) * 2 > g->cap) {
		int32_t *old = g->set;
		uint32_t oc = g->cap, k;

		g->set = calloc((size_t)oc * 2, sizeof(*g->set));
		if (!g->set) {
			g->set = old;
			return -1;
		}
		g->cap = oc * 2;
		for (k = 0; k < oc; k++)
			if (old[k])
				g->set[set_slot(g, old[k])] = old[k];
		free(old);
	}
	i = set_slot(g, pid);
	if (!g->set[i]) {
		g->set[i] = pid;
		g->used++;
	}
	return 0;
}

void hist__gate_free(struct hist__gate *g)
{
	if (!g)
		return;
	free(g->set);
	free(g->carry);
	free(g);
}

void hist__gate_reset(struct hist__gate *g)
{
	memset(g->set, 0, g->cap * sizeof(*g->set));
	memset(g->carry, 0, g->nr_carry * sizeof(*g->carry));
	g->used = 0;
	set_add(g, g->root);	/* cannot fail: the table has room */
}

struct hist__gate *hist__gate_create(const struct hist_tracedat *td, int32_t root)
{
	struct hist__gate *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->root = root;
	g->cap = 64;
	g->nr_carry = td->nr_cpus ? td->nr_cpus : 1;
	g->set = calloc(g->cap, sizeof(*g->set));
	g->carry = calloc(g->nr_carry, sizeof(*g->carry));
	if (!g->set || !g->carry) {
		hist__gate_free(g);
		return NULL;
	}
	hist__gate_ev_init(td, &g->ev);
	hist__gate_reset(g);
	return g;
}

int hist__gate_take(struct hist_tracedat *td, struct hist_ftrace_record *rec)
{
	struct hist__gate *g = td->gate;
	int be = td->big_endian;
	uint64_t *carry = rec->cpu < g->nr_carry ? &g->carry[rec->cpu] : NULL;

	/* a fork by a task of the set brings its child in (event-fork) */
	if ((uint32_t)rec->type + 1 == g->ev.fork) {
		int32_t parent = hist__gate_field(rec, g->ev.fork_parent, be);
		int32_t child = hist__gate_field(rec, g->ev.fork_child, be);

		if (child > 0 && set_has(g, parent) && set_add(g, child))
			return -HIST_ENOMEM;
	}
	if (!hist__gate_pass(&g->ev, rec, be, set_has, g)) {
		/* the CPU's losses stay for its next record that passes */
		if (carry)
			*carry += td->last_dropped;
		return 0;
	}
	if (carry) {
		td->last_dropped += *carry;
		*carry = 0;
	}
	return 1;
}
