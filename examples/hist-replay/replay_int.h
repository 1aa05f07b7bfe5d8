/* SPDX-License-Identifier: MIT */
/*
 * The replay engine's own state, shared by its two files: replay.c (open,
 * the writes to the control files, the run and its windows) and
 * markers.c (writes attached to trace_marker lines and the moment each
 * one takes effect).  Not for main.c and the output files, which use
 * replay.h only.
 */
#ifndef HIST_REPLAY_INT_H
#define HIST_REPLAY_INT_H

#include "replay.h"
#include "../common/field.h"	/* tool_find_field() */

enum {
	SLOT_FEED = 1,	    /* records go to ev */
	SLOT_PRINT = 2,	    /* ftrace:print: look for markers */
	SLOT_SYSENTER = 4,  /* raw_syscalls:sys_enter: marker sync */
	SLOT_SYSWRITE = 8,  /* syscalls:sys_enter_write: marker sync */
	SLOT_SWITCH = 16,   /* sched:sched_switch: marker sync */
};

/* where the first write waiting for its moment is (marker_sync) */
enum {
	STAGE_WRITE,	/* waiting for the writer's write(2) entry */
	STAGE_RUN,	/* inside the write(2): applies now */
	STAGE_SLEEP,	/* waits for a grace period: the writer sleeps... */
	STAGE_ASLEEP,	/* ...and applies when it runs again */
};

struct slot {
	hist_event *ev;
	uint32_t pid_off;
	uint8_t flags;
};

struct target_ev {
	char *system, *name;
};

struct marker_act {
	char *marker, *target, *text;
};

struct made_cmd {
	char *system, *name, *text;
};

struct replay {
	char *path;
	const char *name;	/* for messages: opts.name or path */
	struct hist_tracedat *td;
	hist_ctx *ctx;
	struct hist_host host;
	struct replay_opts opts;
	uint32_t kernel;	/* hist_ctx_opts.kernel in use */

	struct slot *slots;
	uint64_t *counts;
	uint32_t nr_slots;

	/* the record being fed */
	uint64_t idx, cur_ts;

	struct replay_hist_db *db;
	int db_tried;
	int warned_stack, warned_clock, warned_comm;
	int syms_tried;

	struct target_ev *evs;
	size_t nr_evs, evs_cap;

	char **synth;	    /* synthetic events this replay defined */
	size_t nr_synth, synth_cap;

	struct marker_act *acts;
	size_t nr_acts, acts_cap;
	uint32_t print_id, print_buf_off;
	int have_print;

	/* marker sync: writes waiting for the writer's write(2) */
	size_t *pend;
	size_t pend_head, pend_n, pend_cap;
	int32_t pend_pid;
	int pend_stage;
	int pend_sleeps;	/* uninterruptible sleeps left before a clear */
	uint32_t sys_enter_id, sys_write_id, sys_enter_nr_off;
	int have_sys_enter, have_sys_write;
	int sys_probed, sys_records, sys_by_enter;
	uint32_t switch_id, sw_prev_pid, sw_next_pid, sw_prev_state;
	uint32_t sw_state_size;
	int have_switch;

	replay_write_cb cb;
	void *cb_arg;

	/* windows (replay_opts cpu_set, from, to, interval) */
	int filter;		/* a CPU set or a start: check before feeding */
	int started;		/* the first record set the bounds */
	uint64_t first_ts, from_ts, to_ts;	/* to_ts: UINT64_MAX none */
	uint64_t edge;		/* next time stamp that needs window_edge() */
	uint64_t win_start, win_end, win_idx, last_fed;
	uint64_t last_ts;	/* of the last record read */
	uint64_t nr_in_span;	/* records read at or after from_ts */
	replay_window_cb win_cb;
	void *win_arg;
	struct made_cmd *made;	/* hist commands that made triggers */
	size_t nr_made, made_cap;

	struct replay_buf errlog;
	char msg[2048];
	int has_msg;
	char err[512];
};

/* malloc()ed copy of S, or NULL. */
char *replay__strdup(const char *s);
/* The scan pass over the file (comm.c), built on first use; NULL if it
 * cannot be (said on stderr once). */
struct replay_hist_db *replay__db(struct replay *r);

/* markers.c: find the events marker writes watch (at open). */
void replay__markers_setup(struct replay *r);
/* A record of an event whose slot has a SLOT_PRINT, SLOT_SYS* or
 * SLOT_SWITCH flag. */
void replay__marker_record(struct replay *r, struct slot *s,
			   const struct hist_ftrace_record *rec, int32_t pid);
/* End of the run: writes still waiting for their moment happen now. */
void replay__markers_flush(struct replay *r);
void replay__markers_free(struct replay *r);

#endif
