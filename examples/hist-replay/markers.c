/* SPDX-License-Identifier: MIT */
/*
 * Writes attached to trace_marker lines (replay_at_marker()): a script
 * that wrote to a control file between two marker lines is replayed by
 * applying each write where its marker shows up in the recording.  With
 * replay_opts.marker_sync the write waits, as the kernel's did, for the
 * writer's write(2) entry after the marker, and a hist command with
 * `clear` waits for the writer to sleep through the grace period(s) the
 * kernel waits for.
 */
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

void replay__markers_setup(struct replay *r)
{
	const struct hist_ftrace_event *fe;

	fe = hist_tracedat_find_event(r->td, "ftrace", "print");
	if (fe && fe->desc.id < r->nr_slots) {
		const struct hist_field_desc *f = tool_find_field(&fe->desc, "buf");

		if (f) {
			r->have_print = 1;
			r->print_id = fe->desc.id;
			r->print_buf_off = f->offset;
		}
	}
	fe = hist_tracedat_find_event(r->td, "raw_syscalls", "sys_enter");
	if (fe && fe->desc.id < r->nr_slots) {
		const struct hist_field_desc *f = tool_find_field(&fe->desc, "id");

		if (f && f->size == 8) {
			r->have_sys_enter = 1;
			r->sys_enter_id = fe->desc.id;
			r->sys_enter_nr_off = f->offset;
		}
	}
	fe = hist_tracedat_find_event(r->td, "sched", "sched_switch");
	if (fe && fe->desc.id < r->nr_slots) {
		const struct hist_field_desc *pp, *np, *ps;

		pp = tool_find_field(&fe->desc, "prev_pid");
		np = tool_find_field(&fe->desc, "next_pid");
		ps = tool_find_field(&fe->desc, "prev_state");
		if (pp && np && ps && pp->size == 4 && np->size == 4 &&
		    (ps->size == 4 || ps->size == 8)) {
			r->have_switch = 1;
			r->switch_id = fe->desc.id;
			r->sw_prev_pid = pp->offset;
			r->sw_next_pid = np->offset;
			r->sw_prev_state = ps->offset;
			r->sw_state_size = ps->size;
		}
	}
	fe = hist_tracedat_find_event(r->td, "syscalls", "sys_enter_write");
	if (fe && fe->desc.id < r->nr_slots) {
		r->have_sys_write = 1;
		r->sys_write_id = fe->desc.id;
	}
}

void replay__markers_free(struct replay *r)
{
	size_t i;

	for (i = 0; i < r->nr_acts; i++) {
		free(r->acts[i].marker);
		free(r->acts[i].target);
		free(r->acts[i].text);
	}
	free(r->acts);
	free(r->pend);
}

int replay_at_marker(struct replay *r, const char *marker, const char *target,
		     const char *text)
{
	struct marker_act *a;

	if (r->nr_acts == r->acts_cap) {
		size_t ncap = r->acts_cap ? 2 * r->acts_cap : 8;
		struct marker_act *na = realloc(r->acts, ncap * sizeof(*na));

		if (!na)
			return -HIST_ENOMEM;
		r->acts = na;
		r->acts_cap = ncap;
	}
	a = &r->acts[r->nr_acts];
	a->marker = replay__strdup(marker);
	a->target = replay__strdup(target);
	a->text = replay__strdup(text);
	if (!a->marker || !a->target || !a->text) {
		free(a->marker);
		free(a->target);
		free(a->text);
		return -HIST_ENOMEM;
	}
	r->nr_acts++;
	if (r->have_print)
		r->slots[r->print_id].flags |= SLOT_PRINT;
	return 0;
}

static void apply_act(struct replay *r, const struct marker_act *a,
		      uint64_t ts)
{
	struct replay_write_res res;

	res.rc = replay_write(r, a->target, a->text);
	res.target = a->target;
	res.text = a->text;
	res.errlog = replay_last_errlog(r);
	res.msg = replay_last_msg(r);
	res.marker = a->marker;
	res.ts = ts;
	if (r->cb)
		r->cb(r->cb_arg, &res);
}

static int pend_push(struct replay *r, size_t act)
{
	if (r->pend_head + r->pend_n == r->pend_cap) {
		size_t ncap = r->pend_cap ? 2 * r->pend_cap : 8;
		size_t *np;

		if (r->pend_head) {
			memmove(r->pend, r->pend + r->pend_head,
				r->pend_n * sizeof(*r->pend));
			r->pend_head = 0;
			return pend_push(r, act);
		}
		np = realloc(r->pend, ncap * sizeof(*np));
		if (!np)
			return -1;
		r->pend = np;
		r->pend_cap = ncap;
	}
	r->pend[r->pend_head + r->pend_n++] = act;
	return 0;
}

static void set_flag(struct replay *r, int have, uint32_t id, uint8_t flag,
		     int on)
{
	if (!have)
		return;
	r->slots[id].flags &= (uint8_t)~flag;
	if (on)
		r->slots[id].flags |= flag;
}

/* Watch exactly the records the head of the queue waits for. */
static void sync_flags(struct replay *r)
{
	int wait_sys = r->pend_n && r->pend_stage == STAGE_WRITE;
	int wait_sched = r->pend_n && r->pend_stage != STAGE_WRITE;

	set_flag(r, r->have_sys_enter, r->sys_enter_id, SLOT_SYSENTER,
		 wait_sys && r->sys_by_enter);
	set_flag(r, r->have_sys_write, r->sys_write_id, SLOT_SYSWRITE,
		 wait_sys && !r->sys_by_enter);
	set_flag(r, r->have_switch, r->switch_id, SLOT_SWITCH, wait_sched);
}

/*
 * A hist command with the `clear` attribute empties the map only after
 * an RCU grace period (the kernel waits for running triggers first), so
 * the writer sleeps inside its write(2) and the clear lands when it runs
 * again.  Before the clear the write waits for SRCU, which may sleep or
 * not, then for the grace period, which sleeps; after it, it waits for
 * both again (clear_wait() below).  A recording with kernel
 * stacks and kallsyms tells which sleep is the grace period
 * (k15-clear-timing, both kernels), so a write's later waits, or the
 * waits of the writes before it, are not taken for it.  Without stacks
 * the clear lands after the number of sleeps g27-clear showed: one on
 * 6.1, two on 6.12 (cases-6.12/g27: the events between the first wake-up
 * and the second sleep are not counted), which holds when the SRCU wait
 * sleeps as it did there, and a second clear in the same marker window
 * needs the writer's write(2) entries to start counting at its own write.
 */
static int clear_sleeps(uint32_t kernel)
{
	return hist_kernel_recorded(kernel) == HIST_KERNEL(6, 1) ? 1 : 2;
}

/*
 * The writer's sleep at record r->idx (a sched_switch), by the kernel
 * stack recorded after it and the kallsyms: 1 the clear's grace period, 0
 * another wait, -1 the recording cannot tell (no stack or no kallsyms).
 * The clear follows the tracepoint_synchronize_unregister() of
 * hist_clear() (inlined into event_hist_trigger_parse()): the SRCU wait,
 * then the grace period, __wait_rcu_gp (under synchronize_rcu on 6.1,
 * synchronize_rcu_normal on 6.12); the waits after it are
 * trigger_data_free()'s.  So the sleep whose stack has __wait_rcu_gp and
 * no trigger_data_free is the clear's (k15-clear-timing, both kernels).
 */
static int clear_wait(struct replay *r)
{
	struct replay_hist_db *db = replay__db(r);
	uint64_t ips[64];
	unsigned n = db ? replay_db_stack(db, r->idx, ips, 64) : 0, i;
	int rcu = 0, named = 0;

	for (i = 0; i < n; i++) {
		char name[128];

		/* a return address: the call lies before it (as %pB) */
		if (hist_tracedat_sym(r->td, ips[i] - 1, 0, name, sizeof(name)) < 0)
			continue;
		named = 1;
		if (!strcmp(name, "trigger_data_free"))
			return 0;
		if (!strcmp(name, "__wait_rcu_gp"))
			rcu = 1;
	}
	return named ? rcu : -1;
}

static int waits_for_grace_period(const struct marker_act *a)
{
	const char *p = a->text;

	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "hist", 4))
		return 0;
	for (p = strchr(p, ':'); p; p = strchr(p + 1, ':'))
		if (!strncmp(p + 1, "clear", 5) &&
		    (p[6] == ':' || p[6] == ' ' || p[6] == 0 || p[6] == '\n'))
			return 1;
	return 0;
}

static void pend_pop_apply(struct replay *r)
{
	size_t a = r->pend[r->pend_head++];

	r->pend_n--;
	if (!r->pend_n)
		r->pend_head = 0;
	r->pend_stage = STAGE_WRITE;
	apply_act(r, &r->acts[a], r->cur_ts);
}

/* Apply what needs no further wait; leave the head waiting otherwise. */
static void pend_advance(struct replay *r)
{
	while (r->pend_n) {
		const struct marker_act *a = &r->acts[r->pend[r->pend_head]];

		if (r->pend_stage == STAGE_WRITE) {
			if (r->sys_records)
				break;		/* until the write(2) entry */
			r->pend_stage = STAGE_RUN;
		}
		if (r->pend_stage != STAGE_RUN)
			break;			/* until it sleeps and wakes */
		if (r->have_switch && waits_for_grace_period(a)) {
			r->pend_stage = STAGE_SLEEP;
			r->pend_sleeps = clear_sleeps(r->kernel);
			break;
		}
		pend_pop_apply(r);
	}
	sync_flags(r);
}

/* the writer's write(2) has been entered */
static void pend_write_seen(struct replay *r)
{
	if (r->pend_stage != STAGE_WRITE)
		return;
	r->pend_stage = STAGE_RUN;
	pend_advance(r);
}

static void pend_flush_all(struct replay *r)
{
	while (r->pend_n)
		pend_pop_apply(r);
	sync_flags(r);
}

/* Does the recording have the writer's system call entries?  Asks the
 * scan pass (only in marker_sync mode, only when a marker fires). */
static void probe_syscall_records(struct replay *r)
{
	struct replay_hist_db *db;

	if (r->sys_probed)
		return;
	r->sys_probed = 1;
	db = replay__db(r);
	if (!db)
		return;
	if (r->have_sys_enter && replay_db_count(db, r->sys_enter_id)) {
		r->sys_records = 1;
		r->sys_by_enter = 1;
	} else if (r->have_sys_write && replay_db_count(db, r->sys_write_id)) {
		r->sys_records = 1;
	}
}

static void on_print(struct replay *r, const struct hist_ftrace_record *rec,
		     int32_t pid)
{
	const char *text;
	size_t len, i;
	int queued = 0;

	if (r->print_buf_off >= rec->len)
		return;
	text = (const char *)rec->data + r->print_buf_off;
	len = strnlen(text, rec->len - r->print_buf_off);
	if (len && text[len - 1] == '\n')
		len--;
	/* anything left from an earlier marker of the same writer is late */
	if (r->pend_n && pid == r->pend_pid)
		pend_flush_all(r);
	for (i = 0; i < r->nr_acts; i++) {
		const struct marker_act *a = &r->acts[i];

		if (strlen(a->marker) != len || memcmp(a->marker, text, len))
			continue;
		if (r->opts.marker_sync) {
			if (r->pend_n && pid != r->pend_pid)
				pend_flush_all(r);
			probe_syscall_records(r);
			if (pend_push(r, i) == 0) {
				if (r->pend_n == 1)
					r->pend_stage = STAGE_WRITE;
				r->pend_pid = pid;
				queued = 1;
				continue;
			}
		}
		apply_act(r, a, rec->ts);
	}
	if (queued)
		pend_advance(r);
}

static void on_switch(struct replay *r, const struct hist_ftrace_record *rec)
{
	int64_t prev = 0, next = 0, state = 0;

	if (!r->pend_n)
		return;
	if ((uint64_t)r->sw_prev_pid + 4 <= rec->len)
		memcpy(&prev, rec->data + r->sw_prev_pid, 4);
	if ((uint64_t)r->sw_next_pid + 4 <= rec->len)
		memcpy(&next, rec->data + r->sw_next_pid, 4);
	if ((uint64_t)r->sw_prev_state + r->sw_state_size <= rec->len)
		memcpy(&state, rec->data + r->sw_prev_state, r->sw_state_size);
	prev = (int32_t)prev;
	next = (int32_t)next;
	/* TASK_UNINTERRUPTIBLE: waiting for the grace period */
	if (r->pend_stage == STAGE_SLEEP && prev == r->pend_pid && (state & 2)) {
		int w = clear_wait(r);

		if (w == 0)
			return;
		if (w == 1)
			r->pend_sleeps = 1;	/* lands when this one ends */
		r->pend_stage = STAGE_ASLEEP;
	} else if (r->pend_stage == STAGE_ASLEEP && next == r->pend_pid &&
		 --r->pend_sleeps > 0)
		r->pend_stage = STAGE_SLEEP;
	else if (r->pend_stage == STAGE_ASLEEP && next == r->pend_pid)
		pend_pop_apply(r);
	else
		return;
	pend_advance(r);
}


void replay__marker_record(struct replay *r, struct slot *s,
			   const struct hist_ftrace_record *rec, int32_t pid)
{
	if ((s->flags & SLOT_PRINT) && rec->type == r->print_id)
		on_print(r, rec, pid);
	if ((s->flags & SLOT_SYSENTER) && pid == r->pend_pid) {
		uint64_t nr = 0;

		if ((uint64_t)r->sys_enter_nr_off + 8 <= rec->len)
			memcpy(&nr, rec->data + r->sys_enter_nr_off, 8);
		/* x86_64 __NR_write: the recordings are x86_64 */
		if (nr == 1)
			pend_write_seen(r);
	}
	if ((s->flags & SLOT_SYSWRITE) && pid == r->pend_pid)
		pend_write_seen(r);
	if ((s->flags & SLOT_SWITCH) && rec->type == r->switch_id)
		on_switch(r, rec);
}

void replay__markers_flush(struct replay *r)
{
	if (r->pend_n)
		pend_flush_all(r);
}
