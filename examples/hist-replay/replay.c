/* SPDX-License-Identifier: MIT */
/*
 * The replay engine: a libhist host over a trace.dat (see replay.h).
 *
 * The hot loop does as little as possible per record: one array lookup by
 * event id (common_type) gives the hist_event of the events that were
 * written to, everything else is counted and skipped.  What the host
 * callbacks need about the past and future of the recording (comm changes,
 * recorded stacks) comes from a separate pass over the file, made only the
 * first time a callback asks (see comm.c).  Writes attached to
 * trace_marker lines, and when each takes effect, are markers.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"
#include "../common/hint.h"

/* ---- text buffer -------------------------------------------------- */

int replay_buf_write(void *arg, const char *buf, size_t len)
{
	struct replay_buf *b = arg;

	if (b->oom)
		return -HIST_ENOMEM;
	if (b->len + len + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;
		char *ns;

		while (ncap < b->len + len + 1)
			ncap *= 2;
		ns = realloc(b->s, ncap);
		if (!ns) {
			b->oom = 1;
			return -HIST_ENOMEM;
		}
		b->s = ns;
		b->cap = ncap;
	}
	memcpy(b->s + b->len, buf, len);
	b->len += len;
	b->s[b->len] = 0;
	return 0;
}

int replay_buf_puts(struct replay_buf *b, const char *s)
{
	return replay_buf_write(b, s, strlen(s));
}

void replay_buf_reset(struct replay_buf *b)
{
	b->len = 0;
	b->oom = 0;
	if (b->s)
		b->s[0] = 0;
}

void replay_buf_free(struct replay_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/* ---- host callbacks ----------------------------------------------- */

struct replay_hist_db *replay__db(struct replay *r)
{
	char err[256];

	if (!r->db && !r->db_tried) {
		r->db_tried = 1;
		r->db = replay_db_build(r->path, hist_tracedat_buffer(r->td), err,
					sizeof(err));
		if (!r->db)
			fprintf(stderr, "hist-replay: %s: cannot scan for task "
				"names and stacks: %s\n", r->name, err);
	}
	return r->db;
}

static int cb_find_event(void *data, const char *system, const char *name,
			 struct hist_event_desc *out)
{
	struct replay *r = data;

	return hist_tracedat_find_event_cb(r->td, system, name, out);
}

void replay_comm_at(struct replay *r, int32_t pid, uint64_t idx, char comm[16])
{
	struct replay_hist_db *db;
	const char *c;

	if (pid == 0) {
		memcpy(comm, "<idle>", 7);
		return;
	}
	/* perf.data: its COMM and FORK records tell it at the record's time */
	if (hist_tracedat_comm_at(r->td, pid, r->cur_ts, comm))
		return;
	db = replay__db(r);
	if (db && r->opts.warn && !r->warned_comm &&
	    replay_db_names_uncertain(db)) {
		r->warned_comm = 1;
		fprintf(stderr, "hist-replay: %s: warning: task names change in "
			"the recording, which has no task:task_rename records: "
			".execname and comm see a new name only from the next "
			"record that shows it (record task:task_rename)\n",
			r->name);
	}
	if (db && replay_db_comm(db, pid, idx, comm))
		return;
	c = hist_tracedat_cmdline(r->td, pid);
	snprintf(comm, 16, "%s", c ? c : "<...>");
}

static int cb_comm(void *data, int32_t pid, char comm[16])
{
	struct replay *r = data;

	replay_comm_at(r, pid, r->idx, comm);
	return 0;
}

static int cb_sym(void *data, uint64_t addr, int with_offset, char *buf,
		  size_t len)
{
	struct replay *r = data;

	if (!r->syms_tried) {
		r->syms_tried = 1;
		replay_perf_kallsyms(r->td, r->path, r->opts.kallsyms, r->opts.warn);
	}
	return hist_tracedat_sym(r->td, addr, with_offset, buf, len);
}

static int cb_sym_addr(void *data, const char *name, size_t n, uint64_t *addr)
{
	struct replay *r = data;

	if (!r->syms_tried) {
		r->syms_tried = 1;
		replay_perf_kallsyms(r->td, r->path, r->opts.kallsyms, r->opts.warn);
	}
	return hist_tracedat_sym_addr(r->td, name, n, addr);
}

static unsigned cb_stacktrace(void *data, const struct hist_hit *hit,
			      uint64_t *ips, unsigned max)
{
	struct replay *r = data;
	struct replay_hist_db *db;
	int n;

	/* perf.data: the symbols tell perf's tracepoint frame (perf.c) */
	if (!r->syms_tried) {
		r->syms_tried = 1;
		replay_perf_kallsyms(r->td, r->path, r->opts.kallsyms, r->opts.warn);
	}
	n = hist_tracedat_stack(r->td, ips, max);

	(void)hit;
	if (n >= 0)
		return (unsigned)n;	/* perf.data recorded with -g */
	db = replay__db(r);
	if (db && !replay_db_has_stacks(db) && r->opts.warn && !r->warned_stack) {
		r->warned_stack = 1;
		fprintf(stderr, "hist-replay: %s: warning: the recording has no "
			"kernel stacks (record with options/stacktrace=1, or "
			"perf record -g): stacktrace keys are empty\n", r->name);
	}
	return db ? replay_db_stack(db, r->idx, ips, max) : 0;
}

static uint64_t cb_clock(void *data)
{
	struct replay *r = data;

	return r->cur_ts;
}

static const char *const clocks[] = {
	"local", "global", "counter", "uptime", "perf", "mono", "mono_raw",
	"boot", "tai", "x86-tsc",
};

static int valid_clock(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcmp(name, clocks[i]))
			return 1;
	return 0;
}

static int cb_set_clock(void *data, const char *name)
{
	struct replay *r = data;
	const char *rec = hist_tracedat_clock(r->td);

	if (!valid_clock(name))
		return -HIST_EINVAL;
	/* The recording's time stamps are what they are: say so once if
	 * a trigger asks for another clock than the one recorded. */
	if (r->opts.warn && rec[0] && strcmp(rec, name) && !r->warned_clock) {
		r->warned_clock = 1;
		fprintf(stderr, "hist-replay: %s: warning: recorded with "
			"trace_clock %s, a trigger asks for %s: time stamps "
			"stay the recorded ones\n", r->name, rec, name);
	}
	return 0;
}

static void cb_synchronize(void *data)
{
	/* single-threaded: no hit is ever in flight during a write */
	(void)data;
}

/* ---- open/close --------------------------------------------------- */

char *replay__strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

static uint32_t pid_offset(const struct hist_event_desc *d)
{
	const struct hist_field_desc *f = tool_find_field(d, "common_pid");

	return f && f->size == 4 ? f->offset : 4;
}

/*
 * The kernel version of UNAME, trace-cmd's uname option ("Linux HOST
 * RELEASE MACHINE"...): its third word, else latest.
 */
static uint32_t uname_kernel(const char *uname)
{
	char rel[64];
	uint32_t k;
	size_t n;
	int w;

	for (w = 0; w < 2 && uname; w++) {
		uname = strchr(uname, ' ');
		if (uname)
			uname++;
	}
	if (!uname)
		return HIST_KERNEL_LATEST;
	n = strcspn(uname, " ");
	if (n >= sizeof(rel))
		return HIST_KERNEL_LATEST;
	memcpy(rel, uname, n);
	rel[n] = 0;
	return hist_kernel_parse(rel, &k) ? HIST_KERNEL_LATEST : k;
}

uint32_t replay_kernel(const struct replay *r)
{
	return r->kernel;
}

/* 1 if the selected buffer has a record (rewinds it either way). */
static int has_records(struct hist_tracedat *td)
{
	struct hist_ftrace_record rec;
	int ret, tries = 0;

	while ((ret = hist_tracedat_next(td, &rec)) < 0 && ++tries < 1000)
		;
	hist_tracedat_rewind(td);
	return ret > 0;
}

const char *replay_buffer_named(const struct hist_tracedat *td, const char *inst,
				char *err, size_t errlen)
{
	uint32_t i, n = hist_tracedat_nr_buffers(td);

	for (i = 0; i < n; i++)
		if (!strcmp(hist_tracedat_buffer_name(td, i), inst))
			return hist_tracedat_buffer_name(td, i);
	/* "top" names the top buffer unless an instance has that name */
	if (!strcmp(inst, "top"))
		for (i = 0; i < n; i++)
			if (!hist_tracedat_buffer_name(td, i)[0])
				return "";
	snprintf(err, errlen, "no buffer '%s' in the recording; it has: ", inst);
	for (i = 0; i < n; i++) {
		const char *name = hist_tracedat_buffer_name(td, i);
		size_t l = strlen(err);

		snprintf(err + l, errlen - l, "%s%s", i ? ", " : "",
			 name[0] ? name : "\"\" (top)");
	}
	return NULL;
}

/* The buffer to replay (replay_opts.instance): 0, or -1 with ERR. */
static int pick_buffer(struct replay *r, char *err, size_t errlen)
{
	struct hist_tracedat *td = r->td;
	uint32_t i, n = hist_tracedat_nr_buffers(td), with = 0, pick = 0;
	const char *inst = r->opts.instance;

	if (inst) {
		const char *name = replay_buffer_named(td, inst, err, errlen);

		if (!name)
			return -1;
		if (hist_tracedat_select_buffer(td, name) == 0)
			return 0;
		/* it is there, but its data is not */
		snprintf(err, errlen, "%s", hist_tracedat_error(td));
		return -1;
	}
	if (n < 2 || hist_tracedat_buffer(td)[0] || has_records(td))
		return 0;
	for (i = 0; i < n; i++) {
		const char *name = hist_tracedat_buffer_name(td, i);

		if (!name[0] || hist_tracedat_select_buffer(td, name))
			continue;
		if (has_records(td)) {
			with++;
			pick = i;
		}
	}
	if (with == 1) {
		hist_tracedat_select_buffer(td, hist_tracedat_buffer_name(td, pick));
		if (r->opts.warn)
			fprintf(stderr, "hist-replay: %s: note: the top buffer has no "
				"records: replaying instance '%s' (--instance picks "
				"another, --list shows them)\n", r->name,
				hist_tracedat_buffer(td));
		return 0;
	}
	hist_tracedat_select_buffer(td, "");
	if (with && r->opts.warn)
		fprintf(stderr, "hist-replay: %s: note: the top buffer has no records "
			"but %u instances have: pick one with --instance (--list "
			"shows them)\n", r->name, with);
	return 0;
}

const char *replay_instance(const struct replay *r)
{
	return hist_tracedat_buffer(r->td);
}

struct replay *replay_open(const char *path, const struct replay_opts *opts,
			   char *err, size_t errlen)
{
	struct replay *r = calloc(1, sizeof(*r));
	struct hist_ctx_opts copts;
	const struct hist_ftrace_event *fe;
	uint32_t i, n;
	int e = 0;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (opts)
		r->opts = *opts;
	r->path = replay__strdup(path);
	r->name = r->opts.name ? r->opts.name : r->path;
	if (!r->path) {
		snprintf(err, errlen, "out of memory");
		free(r);
		return NULL;
	}
	r->td = hist_tracedat_open(path, err, errlen);
	if (!r->td || pick_buffer(r, err, errlen)) {
		replay_close(r);
		return NULL;
	}
	if (r->opts.pid_gate && hist_tracedat_set_pid_gate(r->td, r->opts.pid_gate)) {
		snprintf(err, errlen, "--pid %d: out of memory", (int)r->opts.pid_gate);
		replay_close(r);
		return NULL;
	}
	/* a trace.dat says who forked whom only in sched_process_fork records */
	if (r->opts.pid_gate && r->opts.warn && !strcmp(hist_tracedat_format(r->td), "trace.dat") &&
	    !hist_tracedat_find_event(r->td, "sched", "sched_process_fork"))
		fprintf(stderr, "hist-replay: %s: warning: --pid %d: the recording has no "
			"sched:sched_process_fork, so the tasks %d forks are not followed "
			"(trace-cmd record -e sched:sched_process_fork ...)\n", path,
			(int)r->opts.pid_gate, (int)r->opts.pid_gate);
	if (r->opts.warn && hist_tracedat_sampled(r->td))
		fprintf(stderr, "hist-replay: %s: warning: perf sampled the tracepoints "
			"(-F or -c N): hitcounts count samples, not hits\n", path);
	n = hist_tracedat_nr_events(r->td);
	for (i = 0; i < n; i++) {
		fe = hist_tracedat_event(r->td, i);
		if (fe && fe->desc.id < 65536 && fe->desc.id >= r->nr_slots)
			r->nr_slots = fe->desc.id + 1;
	}
	r->slots = calloc(r->nr_slots + 1, sizeof(*r->slots));
	r->counts = calloc(r->nr_slots + 1, sizeof(*r->counts));
	if (!r->slots || !r->counts) {
		snprintf(err, errlen, "out of memory");
		replay_close(r);
		return NULL;
	}
	/* where each event keeps common_pid (4 on every kernel so far) */
	for (i = 0; i < n; i++) {
		fe = hist_tracedat_event(r->td, i);
		if (fe && fe->desc.id < r->nr_slots)
			r->slots[fe->desc.id].pid_off = pid_offset(&fe->desc);
	}

	replay__markers_setup(r);

	r->host.data = r;
	r->host.find_event = cb_find_event;
	r->host.comm = cb_comm;
	r->host.sym = cb_sym;
	r->host.sym_addr = cb_sym_addr;
	r->host.syscall_name = replay_syscall_name;
	r->host.stacktrace = cb_stacktrace;
	r->host.clock = cb_clock;
	r->host.set_clock = cb_set_clock;
	r->host.synchronize = cb_synchronize;

	memset(&copts, 0, sizeof(copts));
	copts.max_map_bits = r->opts.max_map_bits;
	copts.sums = r->opts.sums;
	copts.nr_cpus = hist_tracedat_nr_cpus(r->td);
	copts.kernel = r->opts.kernel;
	if (copts.kernel == REPLAY_KERNEL_AUTO)
		copts.kernel = uname_kernel(hist_tracedat_uname(r->td));
	r->kernel = copts.kernel;
	r->ctx = hist_ctx_create(&r->host, &copts, &e);
	if (!r->ctx) {
		snprintf(err, errlen, "cannot create the libhist context: %s",
			 strerror(e < 0 ? -e : e));
		replay_close(r);
		return NULL;
	}
	return r;
}

void replay_close(struct replay *r)
{
	size_t i;

	if (!r)
		return;
	if (r->ctx)
		hist_ctx_destroy(r->ctx);
	if (r->td)
		hist_tracedat_close(r->td);
	replay_db_free(r->db);
	for (i = 0; i < r->nr_evs; i++) {
		free(r->evs[i].system);
		free(r->evs[i].name);
	}
	free(r->evs);
	for (i = 0; i < r->nr_synth; i++)
		free(r->synth[i]);
	free(r->synth);
	replay__markers_free(r);
	for (i = 0; i < r->nr_made; i++) {
		free(r->made[i].system);
		free(r->made[i].name);
		free(r->made[i].text);
	}
	free(r->made);
	free(r->slots);
	free(r->counts);
	replay_buf_free(&r->errlog);
	free(r->path);
	free(r);
}

hist_ctx *replay_ctx(struct replay *r)
{
	return r->ctx;
}

struct hist_tracedat *replay_tracedat(struct replay *r)
{
	return r->td;
}

const char *replay_last_errlog(const struct replay *r)
{
	return r->errlog.s ? r->errlog.s : "";
}

const char *replay_last_msg(const struct replay *r)
{
	return r->has_msg ? r->msg : NULL;
}

const char *replay_error(const struct replay *r)
{
	return r->err;
}

uint64_t replay_nr_records(const struct replay *r)
{
	return r->idx;
}

void replay_set_write_cb(struct replay *r, replay_write_cb cb, void *arg)
{
	r->cb = cb;
	r->cb_arg = arg;
}

void replay_set_window_cb(struct replay *r, replay_window_cb cb, void *arg)
{
	r->win_cb = cb;
	r->win_arg = arg;
}

uint64_t replay_first_ts(const struct replay *r)
{
	return r->first_ts;
}

/* ---- writes ------------------------------------------------------- */

static void set_msg(struct replay *r, const char *fmt, const char *a,
		    const char *b)
{
	snprintf(r->msg, sizeof(r->msg), fmt, a, b ? b : "");
	r->has_msg = 1;
}

static int is_replay_synth(const struct replay *r, const char *system,
			   const char *name)
{
	size_t i;

	if (strcmp(system, "synthetic"))
		return 0;
	for (i = 0; i < r->nr_synth; i++)
		if (!strcmp(r->synth[i], name))
			return 1;
	return 0;
}

/* Point the slot of SYSTEM/NAME's recorded id at EV (NULL: stop feeding). */
static void map_event(struct replay *r, hist_event *ev, const char *system,
		      const char *name)
{
	const struct hist_ftrace_event *fe;
	struct slot *s;

	fe = hist_tracedat_find_event(r->td, system, name);
	if (!fe || fe->desc.id >= r->nr_slots)
		return;
	s = &r->slots[fe->desc.id];
	if (is_replay_synth(r, system, name)) {
		/* libhist raises these itself during the replay: the
		 * recorded copies must not count twice */
		ev = NULL;
	}
	s->ev = ev;
	s->pid_off = pid_offset(&fe->desc);
	if (ev)
		s->flags |= SLOT_FEED;
	else
		s->flags &= (uint8_t)~SLOT_FEED;
}

/*
 * The event a write goes to.  Looked up again on every write (and when
 * printing) instead of cached: removing a synthetic event frees its
 * hist_event, and a new definition makes a new one.
 */
static hist_event *target_event(struct replay *r, const char *system,
				const char *name)
{
	hist_event *ev = hist_event_lookup(r->ctx, system, name);
	size_t i;

	if (!ev)
		return NULL;
	map_event(r, ev, system, name);
	for (i = 0; i < r->nr_evs; i++)
		if (!strcmp(r->evs[i].system, system) &&
		    !strcmp(r->evs[i].name, name))
			return ev;
	if (r->nr_evs == r->evs_cap) {
		size_t ncap = r->evs_cap ? 2 * r->evs_cap : 16;
		struct target_ev *ne = realloc(r->evs, ncap * sizeof(*ne));

		if (!ne)
			return ev;
		r->evs = ne;
		r->evs_cap = ncap;
	}
	r->evs[r->nr_evs].system = replay__strdup(system);
	r->evs[r->nr_evs].name = replay__strdup(name);
	if (!r->evs[r->nr_evs].system || !r->evs[r->nr_evs].name) {
		free(r->evs[r->nr_evs].system);
		free(r->evs[r->nr_evs].name);
		return ev;
	}
	r->nr_evs++;
	return ev;
}

size_t replay_nr_events(const struct replay *r)
{
	return r->nr_evs;
}

hist_event *replay_event(const struct replay *r, size_t i,
			 const char **system, const char **name)
{
	if (i >= r->nr_evs)
		return NULL;
	if (system)
		*system = r->evs[i].system;
	if (name)
		*name = r->evs[i].name;
	/* NULL if it went away (a removed synthetic event) */
	return hist_event_lookup(r->ctx, r->evs[i].system, r->evs[i].name);
}

/* Split "SYS/EVENT" (or perf's and trace-cmd's "SYS:EVENT") into the two
 * buffers; 0 or -1. */
static int split_event(const char *s, size_t len, char *sys, char *ev,
		       size_t cap)
{
	const char *slash = memchr(s, '/', len);
	size_t a, b;

	if (!slash)
		slash = memchr(s, ':', len);
	if (!slash)
		return -1;
	a = (size_t)(slash - s);
	b = len - a - 1;
	if (!a || !b || a >= cap || b >= cap || memchr(slash + 1, '/', b))
		return -1;
	memcpy(sys, s, a);
	sys[a] = 0;
	memcpy(ev, slash + 1, b);
	ev[b] = 0;
	return 0;
}

static void synth_track(struct replay *r, const char *line, int dynamic)
{
	char name[256];
	const char *p = line;
	int remove = 0;
	size_t n, i;

	while (*p == ' ' || *p == '\t')
		p++;
	if (dynamic) {
		if (p[0] == '-' && p[1] == ':')
			remove = 1;
		else if (!(p[0] == 's' && p[1] == ':'))
			return;
		p += 2;
		/* optional group: s:synthetic/name */
		for (n = 0; p[n] && p[n] != ' ' && p[n] != '\t'; n++)
			if (p[n] == '/') {
				p += n + 1;
				n = 0;
				break;
			}
	} else if (*p == '!') {
		remove = 1;
		p++;
	}
	for (n = 0; p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != ';' &&
		    p[n] != '\n';
	     n++)
		;
	if (!n || n >= sizeof(name))
		return;
	memcpy(name, p, n);
	name[n] = 0;
	for (i = 0; i < r->nr_synth; i++)
		if (!strcmp(r->synth[i], name))
			break;
	if (remove) {
		if (i < r->nr_synth) {
			free(r->synth[i]);
			r->synth[i] = r->synth[--r->nr_synth];
		}
		/* its hist_event is gone: forget the pointer */
		map_event(r, NULL, "synthetic", name);
		return;
	}
	if (i < r->nr_synth)
		return;
	if (r->nr_synth == r->synth_cap) {
		size_t ncap = r->synth_cap ? 2 * r->synth_cap : 8;
		char **ns = realloc(r->synth, ncap * sizeof(*ns));

		if (!ns)
			return;
		r->synth = ns;
		r->synth_cap = ncap;
	}
	r->synth[r->nr_synth] = replay__strdup(name);
	if (!r->synth[r->nr_synth])
		return;
	r->nr_synth++;
	/* stop feeding recorded copies if the event was mapped before */
	map_event(r, NULL, "synthetic", name);
}

/* kprobe/uprobe definitions: the recording already has the formats of
 * the events they made, so they are accepted as no-ops. */
static int probe_def(struct replay *r, const char *text)
{
	const char *p = text;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		set_msg(r, "empty probe definition%s%s", "", NULL);
		return -HIST_EINVAL;
	}
	return 0;
}

static int synth_write(struct replay *r, const char *text, int dynamic)
{
	struct hist_error herr;
	const char *p = text;
	int rc;

	while (*p == ' ' || *p == '\t')
		p++;
	if (dynamic && !(p[0] == 's' && p[1] == ':') &&
	    !(p[0] == '-' && p[1] == ':'))
		return probe_def(r, text);
	if (dynamic && p[0] == '-') {
		/* "-:name" removes a synthetic event or a probe */
		char name[256];
		const char *q = p + 2, *slash;
		size_t n;

		for (n = 0; q[n] && q[n] != ' ' && q[n] != '\t'; n++)
			;
		if (n < sizeof(name)) {
			memcpy(name, q, n);
			name[n] = 0;
			slash = strchr(name, '/');
			if (!is_replay_synth(r, "synthetic",
					     slash ? slash + 1 : name))
				return probe_def(r, text);
		}
	}
	memset(&herr, 0, sizeof(herr));
	rc = hist_synth_parse(r->ctx, text, dynamic, &herr);
	if (rc == 0)
		synth_track(r, text, dynamic);
	return rc;
}

/*
 * The message and caret of a filter the kernel rejects without an
 * error_log entry (a trigger's `if`): the library keeps the error_log
 * exactly the kernel's, so the reason goes into the tool's own message,
 * with the caret under the command text at offset AT + the position.
 * 1 if the filter was the problem.
 */
static int filter_hint(struct replay *r, hist_event *ev, const char *cmd,
		       size_t at)
{
	struct hist_error ferr;
	hist_filter *f;
	const char *what;
	size_t len = strlen(cmd), n;

	memset(&ferr, 0, sizeof(ferr));
	f = hist_filter_compile(ev, cmd + at, &ferr);
	if (f) {
		hist_filter_destroy(f);
		return 0;
	}
	what = ferr.msg >= 0 ? hist_error_text(ferr.msg) : NULL;
	n = (size_t)snprintf(r->msg, sizeof(r->msg), "bad filter: %s\n  Command: %s\n",
			     what && what[0] ? what : strerror(-ferr.code), cmd);
	/* an error at the end of the text has its caret right after it */
	if (n < sizeof(r->msg))
		snprintf(r->msg + n, sizeof(r->msg) - n, "%*s^",
			 (int)(11 + (at + ferr.pos < len ? at + ferr.pos : len)), "");
	r->has_msg = 1;
	return 1;
}

/* The largest map this replay allows, in bits (hist_ctx_opts). */
static uint32_t map_bits_max(const struct replay *r)
{
	return r->opts.max_map_bits ? r->opts.max_map_bits : 17;
}

/*
 * A trigger refused with a bare EINVAL or ERANGE (the kernel logs nothing
 * for a bad size= or a bad filter): say why when we can tell.  size= is
 * read first, with the other attributes, before the filter.
 */
static void explain_einval(struct replay *r, hist_event *ev, const char *text)
{
	const char *p;

	if (hint_map_size(text, map_bits_max(r), "--map-bits", r->msg,
			  sizeof(r->msg))) {
		r->has_msg = 1;
		return;
	}
	/* " if FILTER" ends a hist command (the kernel splits it there) */
	p = strstr(text, " if ");
	if (p) {
		size_t at = (size_t)(p - text) + 4;

		while (text[at] == ' ')
			at++;
		filter_hint(r, ev, text, at);
	}
}

static void remember_made(struct replay *r, const char *sys, const char *name,
			  const char *text);

static int event_file_write(struct replay *r, const char *sys,
			    const char *name, const char *file,
			    const char *text)
{
	struct hist_error herr;
	hist_event *ev;
	int rc;

	if (strcmp(file, "trigger") && strcmp(file, "filter") &&
	    strcmp(file, "enable")) {
		set_msg(r, "events/%s: not a writable event file%s", file, NULL);
		return -HIST_EINVAL;
	}
	/*
	 * The kernel's own ftrace/ events have neither enable nor filter
	 * files, and of them only print has a trigger file (trace_marker
	 * writes run its triggers): Linux 6.1 and 6.12 list format, hist
	 * (and id) for bprint, function, kernel_stack and the others
	 * (conformance case k19-bprint-no-trigger).
	 */
	if (!strcmp(sys, "ftrace") &&
	    (strcmp(file, "trigger") || strcmp(name, "print"))) {
		set_msg(r, "the kernel has no events/ftrace/%s/%s", name, file);
		return -HIST_ENOENT;
	}
	ev = target_event(r, sys, name);
	if (!ev) {
		set_msg(r, "no event %s/%s in the recording (--list shows its events)",
			sys, name);
		return -HIST_ENOENT;
	}
	memset(&herr, 0, sizeof(herr));
	if (!strcmp(file, "trigger")) {
		rc = hist_trigger_parse(ev, text, &herr);
		if (rc == 0)
			remember_made(r, sys, name, text);
		if ((rc == -HIST_EINVAL || rc == -HIST_ERANGE) && !herr.nr_logged)
			explain_einval(r, ev, text);
		return rc;
	}
	if (!strcmp(file, "filter")) {
		rc = hist_event_set_filter(ev, text, &herr);
		if (rc == -HIST_EINVAL && strlen(text) >= 4096) {
			/* refused by length before parsing, as the kernel does */
			snprintf(r->msg, sizeof(r->msg), "a write of 4096 bytes or more is "
				 "refused (the kernel's limit)");
			r->has_msg = 1;
		} else if (rc == -HIST_EINVAL) {
			filter_hint(r, ev, text, 0);
		}
		return rc;
	}
	/* enable: recording is decided by the trace.dat, nothing to do */
	return 0;
}

static int do_write(struct replay *r, const char *target, const char *text)
{
	char sys[128], ev[128];
	const char *t = target;
	size_t len;

	while (*t == '/')
		t++;
	if (!strcmp(t, "synthetic_events"))
		return synth_write(r, text, 0);
	if (!strcmp(t, "dynamic_events"))
		return synth_write(r, text, 1);
	if (!strcmp(t, "kprobe_events") || !strcmp(t, "uprobe_events"))
		return probe_def(r, text);
	if (!strcmp(t, "trace_clock") || !strncmp(t, "options/", 8) ||
	    !strcmp(t, "buffer_size_kb") || !strcmp(t, "tracing_on") ||
	    !strcmp(t, "saved_cmdlines_size") || !strcmp(t, "trace_marker"))
		return replay_setting(r, t, text);
	if (!strncmp(t, "events/", 7)) {
		const char *p = t + 7, *file = strrchr(p, '/');

		if (file && split_event(p, (size_t)(file - p), sys, ev,
					sizeof(sys)) == 0)
			return event_file_write(r, sys, ev, file + 1, text);
		set_msg(r, "unknown tracefs file %s%s", target, NULL);
		return -HIST_ENOENT;
	}
	len = strlen(t);
	if (t == target && split_event(t, len, sys, ev, sizeof(sys)) == 0)
		return event_file_write(r, sys, ev, "trigger", text);
	set_msg(r, "unknown write target %s%s", target, NULL);
	return -HIST_ENOENT;
}

int replay_write(struct replay *r, const char *target, const char *text)
{
	int rc;

	r->has_msg = 0;
	replay_buf_reset(&r->errlog);
	hist_ctx_clear_error_log(r->ctx);
	rc = do_write(r, target, text);
	if (hist_ctx_print_error_log(r->ctx, replay_buf_write, &r->errlog))
		replay_buf_reset(&r->errlog);
	return rc;
}

int replay_setting(struct replay *r, const char *path, const char *value)
{
	char v[64];
	size_t n;

	while (*path == '/')
		path++;
	if (!strcmp(path, "trace_clock")) {
		/* "echo global > trace_clock": trim the newline and blanks */
		while (*value == ' ' || *value == '\t')
			value++;
		n = strcspn(value, " \t\n");
		if (n >= sizeof(v)) {
			set_msg(r, "invalid trace clock %s%s", value, NULL);
			return -HIST_EINVAL;
		}
		memcpy(v, value, n);
		v[n] = 0;
		if (!valid_clock(v)) {
			set_msg(r, "invalid trace clock %s%s", v, NULL);
			return -HIST_EINVAL;
		}
		/* the recording already shows the clock's effect */
		return 0;
	}
	/* options/stacktrace, buffer sizes...: the recording already shows
	 * their effect (kernel_stack records, no lost events) */
	return 0;
}

/* ---- the run ------------------------------------------------------ */

/*
 * Progress on a terminal: records so far.  No percentage: the per-CPU
 * streams lie in different parts of the file, so the offset of the
 * current record says little about how much is left.
 */
static void progress(struct replay *r, int done)
{
	if (done)
		fprintf(stderr, "\r%*s\r", 40, "");
	else
		fprintf(stderr, "\rhist-replay: %llu records...",
			(unsigned long long)r->idx);
}

/*
 * Every hist trigger of every event written to starts empty again: each
 * command that made one is written again with :clear (before its
 * " if ...", which is part of what names the trigger).  The command as
 * written, not the trigger info line: that spells out defaults (an
 * explicit sort=hitcount) that do not name the same trigger.  Commands
 * whose trigger went away fail harmlessly.
 */
static void clear_hists(struct replay *r)
{
	struct replay_buf b = { 0 };
	size_t i;

	for (i = 0; i < r->nr_made; i++) {
		const char *t = r->made[i].text, *cond = strstr(t, " if ");
		size_t head = cond ? (size_t)(cond - t) : strlen(t);
		hist_event *ev = hist_event_lookup(r->ctx, r->made[i].system, r->made[i].name);

		while (head && (t[head - 1] == '\n' || t[head - 1] == ' '))
			head--;
		if (!ev)
			continue;
		replay_buf_reset(&b);
		replay_buf_write(&b, t, head);
		replay_buf_puts(&b, ":clear");
		if (cond)
			replay_buf_puts(&b, cond);
		if (!b.oom)
			hist_trigger_parse(ev, b.s, NULL);
	}
	replay_buf_free(&b);
}

/* Remember a hist command that made a trigger (for clear_hists()). */
static void remember_made(struct replay *r, const char *sys, const char *name,
			  const char *text)
{
	const char *p = text;
	struct made_cmd *m;

	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "hist", 4) || !r->opts.interval)
		return;
	if (r->nr_made == r->made_cap) {
		size_t ncap = r->made_cap ? 2 * r->made_cap : 8;

		m = realloc(r->made, ncap * sizeof(*m));
		if (!m)
			return;
		r->made = m;
		r->made_cap = ncap;
	}
	m = &r->made[r->nr_made];
	m->system = replay__strdup(sys);
	m->name = replay__strdup(name);
	m->text = replay__strdup(p);
	if (!m->system || !m->name || !m->text) {
		free(m->system);
		free(m->name);
		free(m->text);
		return;
	}
	r->nr_made++;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A time stamp as trace-cmd report shows it (with the file's DATE and
 * OFFSET options added) back to the raw clock of the records. */
static uint64_t shown_to_raw(const struct replay *r, uint64_t shown)
{
	int64_t off = hist_tracedat_ts_offset(r->td);

	if (off >= 0)
		return shown > (uint64_t)off ? shown - (uint64_t)off : 0;
	return sat_add(shown, (uint64_t)-off);
}

/* The next time stamp window_edge() must see. */
static void set_edge(struct replay *r)
{
	r->edge = r->to_ts;
	if (r->opts.interval && r->win_end < r->edge)
		r->edge = r->win_end;
}

/*
 * A record at TS reached r->edge: the first record (set the bounds), the
 * end of an interval window (report it, clear, next), or `to`.  1: stop.
 */
static int window_edge(struct replay *r, uint64_t ts)
{
	if (!r->started) {
		r->started = 1;
		r->first_ts = ts;
		r->from_ts = r->opts.from_abs ? shown_to_raw(r, r->opts.from) :
						sat_add(ts, r->opts.from);
		r->to_ts = !r->opts.to && !r->opts.to_abs ? UINT64_MAX :
			   r->opts.to_abs ? shown_to_raw(r, r->opts.to) : sat_add(ts, r->opts.to);
		r->win_start = r->from_ts > ts ? r->from_ts : ts;
		r->win_end = r->opts.interval ? sat_add(r->win_start, r->opts.interval) :
						UINT64_MAX;
		r->last_fed = r->win_start;
	}
	while (r->opts.interval && ts >= r->win_end && r->win_end < r->to_ts) {
		if (r->win_cb)
			r->win_cb(r->win_arg, r->win_idx, r->win_start, r->win_end);
		clear_hists(r);
		r->win_idx++;
		r->win_start = r->win_end;
		r->win_end = sat_add(r->win_end, r->opts.interval);
	}
	set_edge(r);
	return ts >= r->to_ts;
}

/* Does the record go to the triggers (CPU set, start)? */
static int wanted(const struct replay *r, const struct hist_ftrace_record *rec)
{
	if (rec->ts < r->from_ts)
		return 0;
	if (r->opts.cpu_set && (rec->cpu >= r->opts.nr_cpu_set || !r->opts.cpu_set[rec->cpu]))
		return 0;
	return 1;
}

/* give up on a file that is damaged beyond this many places */
#define MAX_ERRORS 1000

int replay_run(struct replay *r)
{
	struct hist_ftrace_record rec;
	struct hist_hit hit;
	uint64_t nr_err = 0;
	int ret;

	memset(&hit, 0, sizeof(hit));
	memset(&rec, 0, sizeof(rec));
	r->filter = r->opts.cpu_set || r->opts.from;
	r->edge = 0;		/* the first record sets the bounds */
	r->to_ts = UINT64_MAX;
	for (;;) {
		struct slot *s;
		int32_t pid = -1;

		ret = hist_tracedat_next(r->td, &rec);
		if (ret == 0)
			break;
		if (ret < 0) {
			/*
			 * The reader skips what it cannot decode and carries
			 * on; keep the first message and replay the rest.
			 */
			if (!nr_err++) {
				const char *e = hist_tracedat_error(r->td);

				snprintf(r->err, sizeof(r->err), "%s: %s",
					 r->name, e && e[0] ? e :
					 "corrupt record stream");
			}
			if (nr_err >= MAX_ERRORS)
				break;
			continue;
		}
		if (__builtin_expect(rec.ts >= r->edge, 0) && window_edge(r, rec.ts))
			break;
		r->idx++;
		r->last_ts = rec.ts;
		r->nr_in_span += rec.ts >= r->from_ts;
		if (r->opts.progress && !(r->idx & 0xfffff))
			progress(r, 0);
		if (rec.type >= r->nr_slots)
			continue;
		r->counts[rec.type]++;
		s = &r->slots[rec.type];
		if (!s->flags)
			continue;
		r->cur_ts = rec.ts;
		if ((uint64_t)s->pid_off + 4 <= rec.len)
			memcpy(&pid, rec.data + s->pid_off, 4);
		if ((s->flags & SLOT_FEED) && hist_event_active(s->ev) &&
		    (!r->filter || wanted(r, &rec))) {
			r->last_fed = rec.ts;
			hit.ts = rec.ts;
			hit.cpu = rec.cpu;
			hit.pid = pid;
			hist_event_hit(s->ev, rec.data, rec.len, &hit);
		}
		if (s->flags & (SLOT_PRINT | SLOT_SYSENTER | SLOT_SYSWRITE |
				SLOT_SWITCH))
			replay__marker_record(r, s, &rec, pid);
	}
	if (r->opts.progress)
		progress(r, 1);
	/* writes still waiting for their moment happen now */
	replay__markers_flush(r);
	/* the last window ends at the last record fed (or at `to`); its
	 * tables stay for the caller, as without windows */
	if (r->opts.interval && r->started && r->win_cb)
		r->win_cb(r->win_arg, r->win_idx, r->win_start,
			  r->to_ts != UINT64_MAX ? r->to_ts : r->last_fed + 1);
	if (nr_err > 1) {
		size_t l = strlen(r->err);

		snprintf(r->err + l, sizeof(r->err) - l, " (and %llu more damaged "
			 "place%s%s)", (unsigned long long)nr_err - 1, nr_err > 2 ? "s" : "",
			 nr_err >= MAX_ERRORS ? ": gave up" : "");
	}
	return nr_err ? -HIST_EINVAL : 0;
}

uint64_t replay_span(const struct replay *r, uint64_t *first, uint64_t *last)
{
	*first = r->started ? r->first_ts : 0;
	*last = r->started ? r->last_ts : 0;
	return r->nr_in_span;
}

uint64_t replay_records_of(const struct replay *r, uint32_t id)
{
	return id < r->nr_slots ? r->counts[id] : 0;
}

size_t replay_nr_counts(const struct replay *r)
{
	return r->nr_slots;
}

int replay_count(const struct replay *r, size_t i, const char **system,
		 const char **name, uint64_t *count)
{
	const struct hist_ftrace_event *fe;

	if (i >= r->nr_slots || !r->counts[i])
		return 0;
	fe = hist_tracedat_event_by_id(r->td, (uint32_t)i);
	if (!fe)
		return 0;
	*system = fe->desc.system;
	*name = fe->desc.name;
	*count = r->counts[i];
	return 1;
}
