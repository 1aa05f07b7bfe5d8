/* SPDX-License-Identifier: MIT */
/*
 * perf.data, as `perf record -e SYSTEM:EVENT` writes it, to a file (file
 * mode: a header with attribute, data and feature sections) or to a pipe
 * (pipe mode: a 16-byte header, then one stream of records in which the
 * attributes, the tracing data and the features travel as records of
 * their own).  Both end up as the same hist_tracedat: the event formats,
 * saved cmdlines and printk formats come from the tracing-data blob,
 * which holds the same items as a trace.dat v6 head (tracedat.c parses
 * it), and the records are the RAW payloads of the tracepoint samples,
 * which start with common_type exactly like a ring-buffer record.
 *
 * Records are read as hist_tracedat_next() needs them, a round at a
 * time: perf record writes each CPU's mmap buffer in turn and then a
 * FINISHED_ROUND record, and, as perf's own reader relies on, nothing
 * after round R is older than the newest record of round R-1.  Every
 * tracepoint sample and LOST/LOST_SAMPLES record read is checked and
 * queued on its CPU in time order; COMM and FORK records go to a
 * task-name timeline.  The queues are merged by time stamp as the
 * trace.dat streams are (ties: the lower CPU), and a record goes out once
 * it is at or before the newest record of the round before last.  So the
 * file is read once, and each record is decoded a round or two after it
 * was read, which for perf record's multi-megabyte rounds is past L2: the
 * merge prefetches records ahead in each stream (PF_AHEAD).  3M samples,
 * 385 MB: the replay of `hist-bench --perf` takes 0.12 s of CPU (bench/
 * README.md); indexing the whole file first took 0.04 s more.  A file
 * without rounds is one round: it is read whole before the first record
 * goes out.
 *
 * Invariant: every queued entry points at a record that was checked whole
 * when it was read (size within the data, every field up to the RAW
 * payload within the record), so the merge reads without checking again.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "perf_int.h"

/* ---- per-CPU queues --------------------------------------------------------- */

static struct pstream *stream_of(struct hist_tracedat *td, uint32_t cpu)
{
	struct hist__perf *p = td->perf;
	struct pstream *ns;
	uint32_t k;

	if (cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= p->nr_cpu_st) {
		uint32_t n = cpu + 1 > p->nr_cpu_st * 2 ? cpu + 1 : p->nr_cpu_st * 2;
		uint32_t *m = realloc(p->cpu_st, n * sizeof(*m));

		if (!m)
			return NULL;
		memset(m + p->nr_cpu_st, 0, (n - p->nr_cpu_st) * sizeof(*m));
		p->cpu_st = m;
		p->nr_cpu_st = n;
	}
	if (p->cpu_st[cpu])
		return &p->st[p->cpu_st[cpu] - 1];
	ns = realloc(p->st, (p->nr_st + 1) * sizeof(*ns));
	if (!ns)
		return NULL;
	/* the heap points into the array: move its pointers along */
	for (k = 0; k < p->nr_heap; k++)
		p->heap[k] = ns + (p->heap[k] - p->st);
	p->st = ns;
	p->last_st = NULL;
	memset(&ns[p->nr_st], 0, sizeof(*ns));
	ns[p->nr_st].cpu = cpu;
	ns[p->nr_st].hpos = UINT32_MAX;
	p->cpu_st[cpu] = ++p->nr_st;
	return &ns[p->nr_st - 1];
}

static inline int before(const struct pstream *a, const struct pstream *b)
{
	uint64_t x = a->q[a->head].ts, y = b->q[b->head].ts;

	return x < y || (x == y && a->cpu < b->cpu);
}

static HIST__ALWAYS_INLINE void heap_set(struct hist__perf *p, uint32_t i, struct pstream *s)
{
	p->heap[i] = s;
	s->hpos = i;
}

static void sift_up(struct hist__perf *p, uint32_t i)
{
	struct pstream *s = p->heap[i];

	while (i && before(s, p->heap[(i - 1) / 2])) {
		heap_set(p, i, p->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(p, i, s);
}

static HIST__ALWAYS_INLINE void sift_down(struct hist__perf *p, uint32_t i)
{
	struct pstream *s = p->heap[i];

	for (;;) {
		uint32_t l = 2 * i + 1, m = l;

		if (l >= p->nr_heap)
			break;
		if (l + 1 < p->nr_heap && before(p->heap[l + 1], p->heap[l]))
			m = l + 1;
		if (!before(p->heap[m], s))
			break;
		heap_set(p, i, p->heap[m]);
		i = m;
	}
	heap_set(p, i, s);
}

/*
 * Queue entry E (time TS) on CPU's stream: queue_push()'s general case.
 * A CPU's records come in time order from its buffer; one that does not
 * (a per-thread recording, whose buffers are per task) goes back to its
 * place among the pending ones.
 */
static HIST__NOINLINE int queue_push_slow(struct hist_tracedat *td, uint32_t cpu, uint64_t e,
					  uint64_t ts)
{
	struct hist__perf *p = td->perf;
	struct pstream *s;
	size_t k;

	if (cpu == p->last_cpu && p->last_st)
		s = p->last_st;
	else if (!(s = stream_of(td, cpu)))
		return hist__perf_err(td, -HIST_ENOMEM, "out of memory (record queue)");
	if (s->n == s->cap) {
		if (s->head > s->cap / 2) {
			/* most of it went out: slide the pending part down */
			memmove(s->q, s->q + s->head, (s->n - s->head) * sizeof(*s->q));
			s->n -= s->head;
			s->head = 0;
		} else if (hist__perf_grow((void **)&s->q, &s->cap, s->n + 1, sizeof(*s->q))) {
			return hist__perf_err(td, -HIST_ENOMEM, "out of memory (record queue)");
		}
	}
	k = s->n++;
	while (k > s->head && s->q[k - 1].ts > ts) {
		s->q[k] = s->q[k - 1];
		k--;
	}
	s->q[k].ts = ts;
	s->q[k].e = e;
	if (ts > p->max_ts)
		p->max_ts = ts;
	p->last_cpu = cpu;
	p->last_st = s;
	if (s->hpos == UINT32_MAX) {
		if (p->nr_heap == p->cap_heap) {
			uint32_t nc = p->cap_heap ? p->cap_heap * 2 : 16;
			struct pstream **nh = realloc(p->heap, nc * sizeof(*nh));

			if (!nh)
				return hist__perf_err(td, -HIST_ENOMEM, "out of memory (record queue)");
			p->heap = nh;
			p->cap_heap = nc;
		}
		heap_set(p, p->nr_heap++, s);
		sift_up(p, s->hpos);
	} else if (k == s->head) {
		sift_up(p, s->hpos);	/* a new front, earlier than the old */
	}
	return 0;
}

/*
 * Queue entry E (time TS) on CPU's stream.  Every sample comes here: the
 * common case (the CPU of the record before, room in its queue, pending
 * records there, none later than TS) is an append that changes neither
 * the stream's front nor the heap; the rest goes out of line.
 */
static HIST__ALWAYS_INLINE int queue_push(struct hist_tracedat *td, uint32_t cpu, uint64_t e,
					  uint64_t ts)
{
	struct hist__perf *p = td->perf;
	struct pstream *s = p->last_st;

	if (hist__likely(cpu == p->last_cpu && s && s->n < s->cap && s->hpos != UINT32_MAX &&
			 s->q[s->n - 1].ts <= ts)) {
		s->q[s->n].ts = ts;
		s->q[s->n++].e = e;
		if (ts > p->max_ts)
			p->max_ts = ts;
		return 0;
	}
	return queue_push_slow(td, cpu, e, ts);
}

/* Time stamp of a LOST/LOST_SAMPLES entry (0 without a sample_id trailer). */
static uint64_t lost_ts(const struct hist__perf *p, uint64_t e)
{
	const struct pattr *a = &p->attrs[E_ATTR(e)];
	const uint8_t *r = at(p, e & E_OFF_MASK);
	uint32_t size = hist__get16(r + 6, p->be);
	uint32_t need = g32(p, r) == R_LOST ? 24 : 16;

	if (a->t_time < 0 || !a->t_size || size < need + a->t_size)
		return 0;
	return g64(p, r + size - (uint32_t)a->t_time);
}

/* Count N events lost on CPU (td->lost grows for a CPU past nr_cpus). */
static void add_lost(struct hist_tracedat *td, uint32_t cpu, uint64_t n)
{
	if (cpu >= td->nr_lost) {
		uint32_t nn = cpu + 1;
		uint64_t *l = realloc(td->lost, nn * sizeof(*l));
		uint64_t *u = l ? realloc(td->lost_unknown, nn * sizeof(*u)) : NULL;

		if (l)
			td->lost = l;
		if (!l || !u)
			return;		/* the count is lost, the records are not */
		memset(l + td->nr_lost, 0, (nn - td->nr_lost) * sizeof(*l));
		memset(u + td->nr_lost, 0, (nn - td->nr_lost) * sizeof(*u));
		td->lost_unknown = u;
		td->nr_lost = nn;
	}
	td->lost[cpu] += n;
}

/* ---- task names ---------------------------------------------------------- */

static uint32_t ph_find(const struct hist__perf *p, int32_t pid)
{
	uint32_t i, mask = p->ph_cap - 1;

	for (i = ((uint32_t)pid * 2654435761u) & mask; p->ph_first[i]; i = (i + 1) & mask)
		if (p->ph_key[i] == pid)
			return i;
	return i;
}

static int pid_add(struct hist_tracedat *td, uint64_t off, int32_t pid, int32_t parent,
		   uint64_t ts, const char *comm, size_t clen, int exec)
{
	struct hist__perf *p = td->perf;
	struct pid_ent *e;
	uint32_t h;

	if (hist__perf_grow((void **)&p->pids, &p->cap_pids, p->nr_pids + 1, sizeof(*p->pids)))
		return hist__perf_err(td, -HIST_ENOMEM, "out of memory (task names)");
	if ((p->ph_used + 1) * 2 > p->ph_cap) {
		uint32_t oc = p->ph_cap, k, nc = oc ? oc * 2 : 256;
		int32_t *ok = p->ph_key;
		uint32_t *of = p->ph_first, *ol = p->ph_last;

		p->ph_key = calloc(nc, sizeof(*p->ph_key));
		p->ph_first = calloc(nc, sizeof(*p->ph_first));
		p->ph_last = calloc(nc, sizeof(*p->ph_last));
		if (!p->ph_key || !p->ph_first || !p->ph_last) {
			free(p->ph_key);
			free(p->ph_first);
			free(p->ph_last);
			p->ph_key = ok;
			p->ph_first = of;
			p->ph_last = ol;
			return hist__perf_err(td, -HIST_ENOMEM, "out of memory (task names)");
		}
		p->ph_cap = nc;
		for (k = 0; k < oc; k++) {
			if (!of[k])
				continue;
			h = ph_find(p, ok[k]);
			p->ph_key[h] = ok[k];
			p->ph_first[h] = of[k];
			p->ph_last[h] = ol[k];
		}
		free(ok);
		free(of);
		free(ol);
	}
	e = &p->pids[p->nr_pids++];
	memset(e, 0, sizeof(*e));
	e->off = off;
	e->pid = pid;
	e->parent = parent;
	e->ts = ts;
	e->exec = (uint8_t)exec;
	if (clen > 15)
		clen = 15;
	/*
	 * perf synthesizes the COMM of a task that was running before it
	 * started (time 0) from /proc/PID/comm, which for a workqueue worker
	 * is its comm, '-' and what it works on (fs/proc/array.c,
	 * proc_task_name(), wq_worker_comm()): "kworker/1:0-events" where
	 * the kernel's tracing says "kworker/1:0".  Such a comm has no '-'
	 * of its own (a rescuer's "kworker/R-NAME" keeps its '-').
	 */
	if (comm && !ts && !exec && clen > 8 && !memcmp(comm, "kworker/", 8) &&
	    !(clen > 9 && comm[8] == 'R' && comm[9] == '-')) {
		const char *dash = memchr(comm + 8, '-', clen - 8);

		if (dash)
			clen = (size_t)(dash - comm);
	}
	if (comm)
		memcpy(e->comm, comm, clen);
	h = ph_find(p, pid);
	if (!p->ph_first[h]) {
		p->ph_key[h] = pid;
		p->ph_first[h] = (uint32_t)p->nr_pids;
		p->ph_used++;
	} else {
		p->pids[p->ph_last[h] - 1].next = (uint32_t)p->nr_pids;
	}
	p->ph_last[h] = (uint32_t)p->nr_pids;
	return 0;
}

/* (TS, OFF) is at or after entry E: time order, and where the times are
 * equal (a coarse clock: the 6.1 guest's stamps a whole exec alike) the
 * order of the records in the data. */
static int after(const struct pid_ent *e, uint64_t ts, uint64_t off)
{
	return e->ts < ts || (e->ts == ts && e->off <= off);
}

static int comm_at(const struct hist__perf *p, int32_t pid, uint64_t ts, uint64_t off,
		   char comm[16], int depth)
{
	const struct pid_ent *best = NULL, *first = NULL, *e;
	uint32_t h, k;

	if (!p->ph_cap)
		return 0;
	h = ph_find(p, pid);
	if (!p->ph_first[h])
		return 0;
	/* the last entry at or before (TS, OFF) */
	for (k = p->ph_first[h]; k; k = e->next) {
		e = &p->pids[k - 1];
		if (after(e, ts, off) && (!best || after(best, e->ts, e->off)))
			best = e;
		if (!first || e->ts < first->ts)
			first = e;
	}
	if (!best) {
		/* before anything was said of the task: a name it had from
		 * the start (not set by exec or fork) held already */
		if (first->exec || first->parent >= 0)
			return 0;
		best = first;
	}
	if (best->parent >= 0)
		return depth < 8 &&
		       comm_at(p, best->parent, best->ts, best->off, comm, depth + 1);
	memcpy(comm, best->comm, 16);
	return 1;
}

/* ---- the pid gate ------------------------------------------------------------ */

/* PID is the gate's root or forked from it (FORK records read so far). */
static int in_tree(void *arg, int32_t pid)
{
	struct hist__perf *p = arg;
	int32_t at_pid = pid;
	int depth;

	if (pid == p->g_last_pid && p->nr_pids == p->g_last_nr)
		return p->g_last_in;
	p->g_last_pid = pid;
	p->g_last_nr = p->nr_pids;
	/* up the FORK records: pids do not come back within a recording */
	for (depth = 0; depth < 256 && at_pid > 0; depth++) {
		const struct pid_ent *e;
		uint32_t h, k;
		int32_t parent = -1;

		if (at_pid == p->gate_root)
			return p->g_last_in = 1;
		if (!p->ph_cap)
			break;
		h = ph_find(p, at_pid);
		for (k = p->ph_first[h]; k && parent < 0; k = e->next) {
			e = &p->pids[k - 1];
			parent = e->parent;
		}
		at_pid = parent;
	}
	return p->g_last_in = 0;
}

/* What the kernel's pid filter passes (gate.c), the set read from the
 * FORK records. */
static int gate_pass(struct hist__perf *p, const struct hist_ftrace_record *rec)
{
	return hist__gate_pass(&p->gate_ev, rec, p->be, in_tree, p);
}

int hist_tracedat_set_pid_gate(struct hist_tracedat *td, int32_t pid)
{
	struct hist__perf *p = td->perf;

	if (pid < 0)
		return -HIST_EINVAL;
	if (!p) {
		/* a trace.dat: the set follows its sched_process_fork records */
		hist__gate_free(td->gate);
		td->gate = NULL;
		if (pid && !(td->gate = hist__gate_create(td, pid)))
			return -HIST_ENOMEM;
		return 0;
	}
	p->gate_on = pid > 0;
	p->gate_root = pid;
	p->g_last_pid = -1;
	p->g_last_nr = (size_t)-1;
	hist__gate_ev_init(td, &p->gate_ev);
	return 0;
}

/* ---- the data ------------------------------------------------------------ */

/* Check a sample of attribute A (record R of SIZE bytes) up to its RAW
 * payload.  NULL if good, else what is wrong. */
static const char *check_sample(const struct hist__perf *p, const struct pattr *a,
				const uint8_t *r, uint32_t size)
{
	uint64_t pos = a->s_var, n;

	if (size < pos)
		return "sample shorter than its fixed fields";
	if (a->sample_type & S_READ) {
		uint64_t per = 1 + !!(a->read_format & RF_ID) + !!(a->read_format & RF_LOST);

		if (a->read_format & RF_GROUP) {
			if (size - pos < 8)
				return "truncated read values";
			n = g64(p, r + pos);
			if (n > 4096)
				return "implausible read group size";
			pos += 8 * (1 + !!(a->read_format & RF_ENABLED) +
				    !!(a->read_format & RF_RUNNING) + n * per);
		} else {
			pos += 8 * (per + !!(a->read_format & RF_ENABLED) +
				    !!(a->read_format & RF_RUNNING));
		}
	}
	if (a->sample_type & S_CALLCHAIN) {
		if (pos + 8 > size)
			return "truncated callchain";
		n = g64(p, r + pos);
		if (n > (size - pos - 8) / 8)
			return "callchain longer than the sample";
		pos += 8 + 8 * n;
	}
	if (pos + 4 > size)
		return "truncated raw data size";
	n = g32(p, r + pos);
	if (n > size - pos - 4)
		return "raw data longer than the sample";
	if (n < 8)
		return "raw data shorter than the common fields";
	return NULL;
}

static void note_bad(struct hist_tracedat *td, uint64_t off, const char *why)
{
	struct hist__perf *p = td->perf;
	char w[48];

	if (!p->nr_bad++) {
		snprintf(p->bad, sizeof(p->bad), "%s at %s", why,
			 hist__perf_where(p, off, w, sizeof(w)));
		p->bad_pending = 1;
	}
}


static int walk(struct hist_tracedat *td, uint64_t start, uint64_t end, int nested,
		uint64_t *stop, uint64_t round_stop);

/*
 * perf record -z: each COMPRESSED record holds a zstd frame of records,
 * and the record stream runs on across them (a record may start in one
 * and end in the next).  They are decompressed once, one after the
 * other, into dbuf and walked there (index offsets past the file point
 * into dbuf).
 */
static int compressed(struct hist_tracedat *td, const uint8_t *r, uint32_t size, uint64_t off)
{
	struct hist__perf *p = td->perf;
	ZSTD_inBuffer in = { r + 8, size - 8, 0 };
	uint64_t stop;
	int err;

	if (p->chunk_i < p->nr_chunks) {
		/* decompressed on an earlier pass (before a rewind) */
		size_t end = p->chunk_end[p->chunk_i++];

		p->replay_chunk = 1;
		stop = p->dbase + end;
		err = walk(td, p->dbase + p->dwalk, p->dbase + end, 1, &stop, 0);
		p->replay_chunk = 0;
		p->dwalk = (size_t)(stop - p->dbase);
		return err;
	}
	/* one zstd stream runs through all the COMPRESSED records */
	if (!p->zs) {
		p->zs = ZSTD_createDStream();
		if (!p->zs)
			return hist__perf_err(td, -HIST_ENOMEM, "out of memory");
		ZSTD_initDStream(p->zs);
	}
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret;

		if (hist__perf_grow((void **)&p->dbuf, &p->dcap, p->dlen + 65536, 1))
			return hist__perf_err(td, -HIST_ENOMEM, "out of memory (decompressing)");
		out.dst = p->dbuf;
		out.size = p->dcap;
		out.pos = p->dlen;
		ret = ZSTD_decompressStream(p->zs, &out, &in);
		p->dlen = out.pos;
		if (ZSTD_isError(ret)) {
			note_bad(td, off, "compressed records that do not decompress");
			/* start afresh with the next record, the partial one dropped */
			ZSTD_initDStream(p->zs);
			p->dlen = p->dwalk;
			break;
		}
		if (p->dbase + p->dlen > E_OFF_MASK)
			return hist__perf_err(td, -HIST_EINVAL, "decompressed data too large");
		/* done when the input is used up and the output had room */
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	if (hist__perf_grow((void **)&p->chunk_end, &p->cap_chunks, p->nr_chunks + 1, sizeof(*p->chunk_end)))
		return hist__perf_err(td, -HIST_ENOMEM, "out of memory (decompressing)");
	p->chunk_end[p->nr_chunks++] = p->dlen;
	p->chunk_i = p->nr_chunks;
	stop = p->dbase + p->dlen;
	err = walk(td, p->dbase + p->dwalk, p->dbase + p->dlen, 1, &stop, 0);
	p->dwalk = (size_t)(stop - p->dbase);
	return err;
}

/*
 * Let take_fast() read the next samples of attribute AI (A), whose sample
 * R was just taken: when the file is little-endian (as every machine perf
 * records on today) and A's samples hold neither read values nor a
 * callchain, so that its RAW data is at a fixed place.
 */
static void fast_set(struct hist__perf *p, const struct pattr *a, uint32_t ai,
		     const uint8_t *r)
{
	const struct pattr *a0 = &p->attrs[0];
	uint32_t idpos = 0, min;

	p->f_min = UINT32_MAX;
	if (p->be || (a->sample_type & (S_READ | S_CALLCHAIN)) || a->s_cpu < 0 || a->s_time < 0)
		return;
	/* where rec_attr() finds the id; fast_set() follows a sample it
	 * placed, so the layout is one it knows */
	if (p->nr_attrs > 1)
		idpos = a0->sample_type & S_IDENTIFIER ? 8 : (uint32_t)a0->s_id;
	/* RAW's size and its common fields (check_sample()), the id, CPU
	 * and time: all within a sample of f_min bytes */
	min = a->s_var + 4 + 8;
	if (idpos && idpos + 8 > min)
		min = idpos + 8;
	p->f_idpos = idpos;
	p->f_id = idpos ? hist__get64(r + idpos, 0) : 0;
	p->f_raw = a->s_var;
	p->f_cpu = (uint32_t)a->s_cpu;
	p->f_time = (uint32_t)a->s_time;
	p->f_attr = (uint64_t)ai << 48;
	p->f_min = min;
}

/*
 * The common sample, before walk()'s general switch: one of the attribute
 * fast_set() noted (perf writes a CPU's buffer at a time, so runs of one
 * event id are long), taken with the checks check_sample() makes of it.
 * 1 if it was taken (*RET: queue_push()'s answer), 0 for the general path,
 * which also says what is wrong with a bad one.
 */
static HIST__ALWAYS_INLINE int take_fast(struct hist_tracedat *td, const uint8_t *r,
					 uint32_t type, uint32_t size, uint64_t off, int *ret)
{
	struct hist__perf *p = td->perf;
	uint32_t n, cpu;

	if (type != R_SAMPLE || size < p->f_min ||
	    (p->f_idpos && hist__get64(r + p->f_idpos, 0) != p->f_id))
		return 0;
	n = hist__get32(r + p->f_raw, 0);
	cpu = hist__get32(r + p->f_cpu, 0);
	if (n < 8 || n > size - p->f_raw - 4 || cpu >= MAX_CPUS)
		return 0;
	*ret = queue_push(td, cpu, off | p->f_attr, hist__get64(r + p->f_time, 0));
	return 1;
}

/* The metadata record at OFF was taken on an earlier pass (a rewind). */
static int seen(const struct hist__perf *p, int nested, uint64_t off)
{
	return nested ? p->replay_chunk : off < p->seen_to;
}

/*
 * Walk the records in [START, END) (offsets in the file, or past it in
 * dbuf); *STOP is where the walk stopped.  A record whose size makes no
 * sense ends it at END: what follows cannot be found.  NESTED
 * (decompressed data): a record that runs past END is left for the next
 * chunk.  Top level: the walk stops after the record that completes
 * round ROUND_STOP (0: never).
 */
static int walk(struct hist_tracedat *td, uint64_t start, uint64_t end, int nested,
		uint64_t *stop, uint64_t round_stop)
{
	struct hist__perf *p = td->perf;
	uint64_t off = start;
	int ret;

	for (; off < end; *stop = off) {
		const uint8_t *r;
		uint32_t type, size, ai, cpu;
		const struct pattr *a;
		uint64_t e, ts;

		if (nested && (end - off < 8 || hist__get16(at(p, off) + 6, p->be) > end - off)) {
			*stop = off;
			return 0;
		}
		if (end - off < 8) {
			char w[48];

			snprintf(p->trunc, sizeof(p->trunc), "truncated record header at %s",
				 hist__perf_where(p, off, w, sizeof(w)));
			p->trunc_pending = 1;
			*stop = end;
			return 0;
		}
		r = at(p, off);
		/* a few records ahead: the walk is a stream of small reads */
		__builtin_prefetch(r + 2048);
		type = g32(p, r);
		size = hist__get16(r + 6, p->be);
		if (size < 8 || size > end - off) {
			char w[48];

			snprintf(p->trunc, sizeof(p->trunc),
				 "%s record (type %u, %u bytes) at %s%s",
				 size < 8 ? "bad" : "truncated", type, size,
				 hist__perf_where(p, off, w, sizeof(w)),
				 size < 8 ? "" : ": the data ends before it");
			p->trunc_pending = 1;
			*stop = end;
			return 0;
		}
		if (take_fast(td, r, type, size, off, &ret)) {
			if (ret)
				return ret;
			off += size;
			continue;
		}
		switch (type) {
		case R_SAMPLE:
			if (!p->nr_attrs)
				return hist__perf_err(td, -HIST_EINVAL, "sample at offset %llu before any attribute",
					    (unsigned long long)off);
			ai = rec_attr(p, r, size, 1);
			if (ai >= p->nr_attrs) {
				note_bad(td, off, "sample of an unknown event id");
				break;
			}
			a = &p->attrs[ai];
			if (!a->feed)
				break;
			{
				const char *why = check_sample(p, a, r, size);

				if (why) {
					note_bad(td, off, why);
					break;
				}
			}
			if (a->sample_type & S_CALLCHAIN)
				p->have_chains = 1;
			cpu = a->s_cpu >= 0 ? g32(p, r + a->s_cpu) : 0;
			if (cpu >= MAX_CPUS) {
				note_bad(td, off, "sample with an impossible CPU number");
				break;
			}
			if ((ret = queue_push(td, cpu, off | (uint64_t)ai << 48,
					      a->s_time >= 0 ? g64(p, r + a->s_time) : 0)))
				return ret;
			fast_set(p, a, ai, r);
			break;
		case R_LOST:
		case R_LOST_SAMPLES: {
			uint32_t need = type == R_LOST ? 24 : 16;

			if (size < need || !p->nr_attrs)
				break;
			if (!g64(p, r + need - 8))
				break;
			ai = rec_attr(p, r, size, 0);
			if (ai >= p->nr_attrs)
				ai = 0;
			a = &p->attrs[ai];
			/* without a sample_id trailer: CPU 0, time 0 */
			cpu = 0;
			if (a->t_size && a->t_cpu >= 0 && size >= need + a->t_size)
				cpu = g32(p, r + size - (uint32_t)a->t_cpu);
			if (cpu >= MAX_CPUS)
				break;
			e = off | E_LOST | (uint64_t)ai << 48;
			ts = lost_ts(p, e);
			if (type == R_LOST_SAMPLES && !ts) {
				/* perf record's own count, written at the end from
				 * the events' lost counters: the losses the kernel's
				 * LOST records already told, if there are any */
				if (!p->nr_lost_recs)
					add_lost(td, hist__perf_id_cpu(p, hist__perf_trailer_id(p, r, size)),
						 g64(p, r + 8));
				break;
			}
			p->nr_lost_recs += type == R_LOST;
			if ((ret = queue_push(td, cpu, e, ts)))
				return ret;
			break;
		}
		case R_COMM:
			if (size >= 16) {
				const char *c = (const char *)r + 16;
				size_t max = size - 16, cl;

				ts = 0;
				ai = p->nr_attrs ? rec_attr(p, r, size, 0) : UINT32_MAX;
				if (ai < p->nr_attrs) {
					a = &p->attrs[ai];
					if (a->t_size && a->t_time >= 0 && size >= 16 + a->t_size) {
						ts = g64(p, r + size - (uint32_t)a->t_time);
						max = size - 16 - a->t_size;
					}
				}
				cl = strnlen(c, max);
				if ((ret = pid_add(td, off, (int32_t)g32(p, r + 12), -1, ts, c, cl,
						   !!(hist__get16(r + 4, p->be) & (1u << 13)))))
					return ret;
			}
			break;
		case R_FORK:
			if (size >= 32) {
				int32_t tid = (int32_t)g32(p, r + 16), ptid = (int32_t)g32(p, r + 20);

				if (tid != ptid &&
				    (ret = pid_add(td, off, tid, ptid, g64(p, r + 24), NULL, 0, 0)))
					return ret;
			}
			break;
		case R_FINISHED_ROUND:
			/* the rounds of one thread's file say nothing of another's:
			 * a directory is read whole before the first record goes out */
			if (p->nr_segs > 1)
				break;
			/* what round R-1 held is now complete (see struct hist__perf) */
			p->safe = p->round_max;
			p->round_max = p->max_ts;
			p->rounds++;
			goto round_done;
		case R_ID_INDEX:
			if (size >= 16 && !seen(p, nested, off)) {
				uint64_t n = g64(p, r + 8), k;

				if (n > (size - 16) / 32)
					n = (size - 16) / 32;
				if (hist__perf_grow((void **)&p->idx, &p->cap_idx, p->nr_idx + n + 1,
					 sizeof(*p->idx)))
					return hist__perf_err(td, -HIST_ENOMEM, "out of memory");
				for (k = 0; k < n; k++) {
					p->idx[p->nr_idx][0] = g64(p, r + 16 + 32 * k);
					p->idx[p->nr_idx++][1] = g64(p, r + 16 + 32 * k + 16);
				}
			}
			break;
		case R_HEADER_ATTR:
			if (!seen(p, nested, off) &&
			    (ret = hist__perf_pipe_attr(td, r, size, off)))
				return ret;
			/* a new attribute may move where rec_attr() finds ids */
			p->f_min = UINT32_MAX;
			break;
		case R_HEADER_TRACING_DATA: {
			uint64_t n;

			if (size < 12)
				break;
			n = g32(p, r + 8);
			if (n > end - off - size)
				return hist__perf_err(td, -HIST_EINVAL,
					    "tracing data of %llu bytes at offset %llu runs past the end",
					    (unsigned long long)n, (unsigned long long)off);
			hist__perf_note_tdata(td, r + size, n, off + size);
			/* the blob follows the record, outside its size */
			off += n;
			break;
		}
		case R_HEADER_FEATURE:
			if (size >= 16 &&
			    (ret = hist__perf_feature(td, (uint32_t)g64(p, r + 8), r + 16, size - 16, off + 16)))
				return ret;
			break;
		case R_COMPRESSED:
			if (nested) {
				note_bad(td, off, "compressed record inside compressed data");
				break;
			}
			if ((ret = compressed(td, r, size, off)))
				return ret;
			/* compressed() may move dbuf; r is not used again */
			goto round_done;
		default:
			break;
		}
		off += size;
		continue;
round_done:
		/* a round ends here, or in the compressed records just read */
		off += size;
		if (round_stop && p->rounds >= round_stop)
			break;
	}
	*stop = off;
	return 0;
}

/* ---- open / stream ---------------------------------------------------------- */

/* Read on to the end of the next round (or of the data). */
static int walk_some(struct hist_tracedat *td)
{
	struct hist__perf *p = td->perf;
	uint64_t end = p->segs[p->seg_i][1], stop = end;
	int ret;

	ret = walk(td, p->wpos, end, 0, &stop, p->rounds + 1);
	p->wpos = stop;
	if (stop > p->seen_to)
		p->seen_to = stop;
	if (!ret && stop >= end && p->seg_i + 1 < p->nr_segs) {
		size_t upto = p->chunk_i ? p->chunk_end[p->chunk_i - 1] : 0;

		p->wpos = p->segs[++p->seg_i][0];	/* the next thread's file */
		/*
		 * perf record --threads -z: each thread compresses with a zstd
		 * stream of its own, so the next file's first COMPRESSED record
		 * starts a stream (decompressed on with this one it failed
		 * from data.1 offset 0), and a record the file left unfinished
		 * does not continue in another thread's records.
		 */
		if (p->zs)
			ZSTD_initDStream(p->zs);
		if (p->dwalk < upto) {
			if (!p->trunc[0]) {
				char w[48];

				snprintf(p->trunc, sizeof(p->trunc), "the compressed records "
					 "before %s end inside a record (%zu bytes left over)",
					 hist__perf_where(p, p->wpos, w, sizeof(w)), upto - p->dwalk);
				p->trunc_pending = 1;
			}
			p->dwalk = upto;
		}
		return 0;
	}
	if (ret || stop >= end) {
		p->eof = 1;
		p->safe = UINT64_MAX;
		if (p->zs) {
			ZSTD_freeDStream(p->zs);
			p->zs = NULL;
		}
		if (!ret && p->dwalk < p->dlen && !p->trunc[0]) {
			snprintf(p->trunc, sizeof(p->trunc),
				 "the compressed records end inside a record (%zu bytes left over)",
				 p->dlen - p->dwalk);
			p->trunc_pending = 1;
		}
	}
	return ret;
}

int hist__perf_open(struct hist_tracedat *td)
{
	struct hist__perf *p = calloc(1, sizeof(*p));
	uint32_t i;
	int ret;

	if (!p)
		return hist__perf_err(td, -HIST_ENOMEM, "out of memory");
	td->perf = p;
	p->map = td->map;
	p->map_len = td->map_len;
	p->be = !memcmp(td->map, "2ELIFREP", 8);
	td->version = 2;
	p->pipe = g64(p, td->map + 8) == 16;
	p->last_cpu = UINT32_MAX;
	p->last_off = UINT64_MAX;
	p->f_min = UINT32_MAX;
	p->dbase = p->map_len;
	if (p->pipe) {
		p->dstart = 16;
		p->dend = td->map_len;
	} else if ((ret = hist__perf_file_header(td, &p->dstart, &p->dend))) {
		return ret;
	}
	if (hist__perf_grow((void **)&p->segs, &p->cap_segs, 1, sizeof(*p->segs)))
		return hist__perf_err(td, -HIST_ENOMEM, "out of memory");
	p->segs[0][0] = p->dstart;
	p->segs[0][1] = p->dend;
	p->nr_segs = 1;
	if (p->dir_format && !td->perf_dir)
		return hist__perf_err(td, -HIST_EINVAL, "this is the header file of a perf record --threads directory (its records are in data.N next to it): open the directory");
	if (p->dir_format && (ret = hist__perf_load_dir(td)))
		return ret;
	/*
	 * Records are read a round at a time as hist_tracedat_next() needs
	 * them, while the file is still in the cache.  Pipe mode has its
	 * attributes, features and tracing data in the first records.
	 */
	p->wpos = p->dstart;
	while (!p->eof && p->pipe && !p->have_tracing_data)
		if ((ret = walk_some(td)))
			return ret;
	if (!p->have_tracing_data)
		return hist__perf_err(td, -HIST_EINVAL, "no tracing data: record tracepoints (perf record -e SYSTEM:EVENT)%s",
			    p->trunc_pending || p->feat_cut[0] ? "; the file is cut short" : "");
	if (!td->nr_cpus) {
		/* no NRCPUS feature (not perf record's file): count them */
		while (!p->eof)
			if ((ret = walk_some(td)))
				return ret;
		for (i = 0; i < p->nr_st; i++)
			if (p->st[i].cpu + 1 > td->nr_cpus)
				td->nr_cpus = p->st[i].cpu + 1;
	}
	/* a count per CPU (the walk may have counted some already); perf
	 * always says how many, so lost_unknown stays 0 */
	add_lost(td, td->nr_cpus ? td->nr_cpus - 1 : 0, 0);
	if (td->nr_lost < (td->nr_cpus ? td->nr_cpus : 1))
		return hist__perf_err(td, -HIST_ENOMEM, "out of memory");
	if (p->release[0]) {
		size_t n = strlen(p->host) + strlen(p->release) + strlen(p->arch) + 16;

		td->uname = malloc(n);
		if (!td->uname)
			return hist__perf_err(td, -HIST_ENOMEM, "out of memory");
		snprintf(td->uname, n, "Linux %s %s %s", p->host, p->release, p->arch);
	}
	/* the clock of the tracepoint events (perf's default: local_clock,
	 * ftrace's "perf" clock) */
	snprintf(td->clock, sizeof(td->clock), "perf");
	for (i = 0; i < p->nr_attrs; i++) {
		static const char *const names[] = {
			[0] = "realtime", [1] = "mono", [4] = "mono_raw", [7] = "boot", [11] = "tai",
		};
		const struct pattr *a = &p->attrs[i];

		if (!a->feed || !a->use_clockid)
			continue;
		snprintf(td->clock, sizeof(td->clock), "%s",
			 a->clockid >= 0 && a->clockid < 12 && names[a->clockid] ?
				 names[a->clockid] : "");
		break;
	}
	return 0;
}

void hist__perf_reset(struct hist_tracedat *td)
{
	struct hist__perf *p = td->perf;
	uint32_t i;

	/* everything read so far is read again: the walk starts over */
	for (i = 0; i < p->nr_st; i++) {
		p->st[i].head = p->st[i].n = 0;
		p->st[i].hpos = UINT32_MAX;
		p->st[i].drop_next = 0;
	}
	p->nr_heap = 0;
	p->wpos = p->dstart;
	p->seg_i = 0;
	p->eof = p->nr_segs == 1 && p->dstart >= p->dend;
	p->max_ts = p->round_max = p->rounds = 0;
	p->safe = p->eof ? UINT64_MAX : 0;
	p->dwalk = 0;
	p->chunk_i = 0;
	p->nr_pids = 0;
	p->g_last_nr = (size_t)-1;
	p->last_off = UINT64_MAX;
	if (p->ph_cap) {
		memset(p->ph_first, 0, p->ph_cap * sizeof(*p->ph_first));
		p->ph_used = 0;
	}
	p->nr_lost_recs = 0;
	p->nr_bad = 0;
	p->bad[0] = p->trunc[0] = '\0';
	p->bad_pending = p->trunc_pending = p->feat_cut_said = 0;
	p->chain = NULL;
	p->chain_nr = 0;
}

/*
 * Where the RAW data of sample R of attribute A starts when it has read
 * values or a callchain before it (notes the callchain).
 */
static HIST__NOINLINE uint32_t var_raw_pos(struct hist__perf *p, const struct pattr *a,
					   const uint8_t *r)
{
	uint32_t pos = a->s_var, n;

	if (a->sample_type & S_READ) {
		uint64_t per = 1 + !!(a->read_format & RF_ID) + !!(a->read_format & RF_LOST);
		uint64_t more = !!(a->read_format & RF_ENABLED) + !!(a->read_format & RF_RUNNING);

		if (a->read_format & RF_GROUP)
			pos += (uint32_t)(8 * (1 + more + g64(p, r + pos) * per));
		else
			pos += (uint32_t)(8 * (per + more));
	}
	if (a->sample_type & S_CALLCHAIN) {
		n = (uint32_t)g64(p, r + pos);
		p->chain = r + pos + 8;
		p->chain_nr = n;
		pos += 8 + 8 * n;
	}
	return pos;
}

/*
 * Decode the sample E at time TS (checked when it was queued) into REC.
 * BE is p->be, a constant in each of the two copies the callers make.
 */
static HIST__ALWAYS_INLINE void decode(struct hist__perf *p, uint64_t e, uint64_t ts,
				       uint32_t cpu, struct hist_ftrace_record *rec, const int be)
{
	const struct pattr *a = &p->attrs[E_ATTR(e)];
	uint64_t off = e & E_OFF_MASK;
	const uint8_t *r = at(p, off);
	uint32_t pos = a->s_var;

	if (hist__unlikely(a->sample_type & (S_READ | S_CALLCHAIN)))
		pos = var_raw_pos(p, a, r);
	rec->data = r + pos + 4;
	rec->len = hist__get32(r + pos, be);
	rec->type = hist__get16(r + pos + 4, be);
	rec->cpu = cpu;
	rec->ts = ts;		/* read from the sample when it was queued */
	rec->file_offset = off;
}

/*
 * hist__perf_next()'s slow path: read on until the front record may go
 * out.  1: it may; 0: the end of the records (after the message kept for
 * it); negative: an error.
 */
static HIST__NOINLINE int next_refill(struct hist_tracedat *td)
{
	struct hist__perf *p = td->perf;
	int ret;

	while (!p->eof && (!p->nr_heap || p->heap[0]->q[p->heap[0]->head].ts > p->safe))
		if ((ret = walk_some(td)))
			return ret;
	if (p->nr_heap)
		return 1;	/* at the end everything may go (safe is the maximum) */
	/* what went wrong, once, after every good record */
	if (p->bad_pending) {
		p->bad_pending = 0;
		return hist__perf_err(td, -HIST_EINVAL, "%s%s", p->bad,
				      p->nr_bad > 1 ? " (and more samples like it)" : "");
	}
	if (p->trunc_pending) {
		p->trunc_pending = 0;
		return hist__perf_err(td, -HIST_EINVAL, "%s", p->trunc);
	}
	if (p->feat_cut[0] && !p->feat_cut_said) {
		p->feat_cut_said = 1;
		return hist__perf_err(td, -HIST_EINVAL, "%s", p->feat_cut);
	}
	return 0;
}

/*
 * How many records ahead in its stream the merge prefetches one.  A
 * record is read again by the merge a round after the walk touched it,
 * and perf record's rounds run to megabytes (half the bytes of the file
 * `hist-bench --perf` records are in rounds of 4 MB or more, past L2):
 * without it the load of the RAW size in decode() took half of
 * hist__perf_next()'s time (perf record -e cpu-clock; perf annotate).
 * The two lines: the RAW size and common fields, and the payload after.
 */
#define PF_AHEAD 8

/* A LOST or LOST_SAMPLES entry E of stream S went out. */
static HIST__NOINLINE void take_lost(struct hist_tracedat *td, struct pstream *s, uint64_t e)
{
	struct hist__perf *p = td->perf;
	const uint8_t *r = at(p, e & E_OFF_MASK);
	uint64_t n = g64(p, r + (g32(p, r) == R_LOST ? 16 : 8));

	/* LOST counts events the kernel could not write; LOST_SAMPLES (the
	 * kernel's) samples it dropped: both are losses */
	add_lost(td, s->cpu, n);
	s->drop_next += n;
}

int hist__perf_next(struct hist_tracedat *td, struct hist_ftrace_record *rec)
{
	struct hist__perf *p = td->perf;
	int ret;

	for (;;) {
		struct pstream *s;
		struct qent q;

		if (hist__unlikely(!p->nr_heap || p->heap[0]->q[p->heap[0]->head].ts > p->safe) &&
		    (ret = next_refill(td)) <= 0)
			return ret;
		s = p->heap[0];
		q = s->q[s->head++];
		if (hist__likely(s->head < s->n)) {
			sift_down(p, 0);
			if (hist__likely(s->head + PF_AHEAD < s->n)) {
				const uint8_t *ahead = at(p, s->q[s->head + PF_AHEAD].e & E_OFF_MASK);

				__builtin_prefetch(ahead + 56);
				__builtin_prefetch(ahead + 56 + 48);
			}
		} else {
			s->head = s->n = 0;
			s->hpos = UINT32_MAX;
			if (--p->nr_heap) {
				heap_set(p, 0, p->heap[p->nr_heap]);
				sift_down(p, 0);
			}
		}
		if (hist__unlikely(q.e & E_LOST)) {
			take_lost(td, s, q.e);
			continue;
		}
		p->chain = NULL;
		p->chain_nr = 0;
		if (hist__likely(!p->be))
			decode(p, q.e, q.ts, s->cpu, rec, 0);
		else
			decode(p, q.e, q.ts, s->cpu, rec, 1);
		/* gated out: the CPU's losses stay for its next record */
		if (hist__unlikely(p->gate_on) && !gate_pass(p, rec))
			continue;
		td->last_dropped = s->drop_next;
		s->drop_next = 0;
		p->last_ts = rec->ts;
		p->last_off = rec->file_offset;
		return 1;
	}
}

int hist__perf_peek_cpu(const struct hist_tracedat *td, uint32_t cpu,
			struct hist_ftrace_record *rec)
{
	struct hist__perf *p = td->perf;
	const uint8_t *chain = p->chain;
	uint32_t nr = p->chain_nr;
	struct pstream *s;
	size_t i;

	/* among the records read so far */
	if (cpu >= p->nr_cpu_st || !p->cpu_st[cpu])
		return 0;
	s = &p->st[p->cpu_st[cpu] - 1];
	for (i = s->head; i < s->n; i++) {
		if (s->q[i].e & E_LOST)
			continue;
		/* decode() notes the callchain; peeking must not */
		decode(p, s->q[i].e, s->q[i].ts, cpu, rec, p->be);
		p->chain = chain;
		p->chain_nr = nr;
		if (p->gate_on && !gate_pass(p, rec))
			continue;
		return 1;
	}
	return 0;
}

const uint8_t *hist__perf_tracing_data(const struct hist_tracedat *td, size_t *len,
					uint64_t *off)
{
	*len = td->perf->tdata_len;
	*off = td->perf->tdata_off;
	return td->perf->tdata;
}

void hist__perf_free(struct hist_tracedat *td)
{
	struct hist__perf *p = td->perf;
	uint32_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_st; i++)
		free(p->st[i].q);
	free(p->st);
	free(p->cpu_st);
	free(p->heap);
	free(p->attrs);
	free(p->id_key);
	free(p->id_val);
	free(p->pids);
	free(p->ph_key);
	free(p->ph_first);
	free(p->ph_last);
	free(p->chunk_end);
	free(p->idx);
	free(p->dbuf);
	free(p->xbuf);
	free(p->segs);
	if (p->zs)
		ZSTD_freeDStream(p->zs);
	free(p);
	td->perf = NULL;
}

/* ---- public queries ------------------------------------------------------- */

const char *hist_tracedat_format(const struct hist_tracedat *td)
{
	if (!td->perf)
		return "trace.dat";
	return td->perf->pipe ? "perf.data (pipe)" : "perf.data";
}

/*
 * perf's callchain of a tracepoint starts where its probe was called
 * from: the event's __traceiter_ function when the tracepoint has more
 * than one probe (ftrace's and perf's), the traced function itself when
 * perf's is the only one.  The kernel's stacktrace key starts at the
 * traced function (k03: kernel_clone+0x1ab for sched_process_fork), so an
 * iterator frame, told by its symbol, is not a frame of the stack.
 */
static int is_iterator(const struct hist_tracedat *td, uint64_t ip)
{
	char name[64];

	return td->ksyms.nr && hist__ksyms_lookup(&td->ksyms, ip, 0, name, sizeof(name)) >= 0 &&
	       !strncmp(name, "__traceiter_", 12);
}

int hist_tracedat_stack(const struct hist_tracedat *td, uint64_t *ips, unsigned max)
{
	const struct hist__perf *p = td->perf;
	uint32_t i;
	unsigned n = 0;
	int kernel = 1;

	if (!p || !p->have_chains)
		return -1;
	/* kernel frames: from the start or a KERNEL marker to the next marker */
	for (i = 0; i < p->chain_nr; i++) {
		uint64_t ip = g64(p, p->chain + 8 * i);

		if (ip >= CTX_MAX) {
			kernel = ip == CTX_KERNEL;
			continue;
		}
		if (!kernel)
			continue;
		if (!n && is_iterator(td, ip))
			continue;
		if (n < max)
			ips[n++] = ip;
	}
	return (int)n;
}

int hist_tracedat_comm_at(const struct hist_tracedat *td, int32_t pid, uint64_t ts,
			  char comm[16])
{
	if (!td->perf || !td->perf->nr_pids)
		return 0;
	/* at the time of the record returned last: after the records before
	 * it that have its time stamp */
	return comm_at(td->perf, pid, ts,
		       ts == td->perf->last_ts ? td->perf->last_off : UINT64_MAX, comm, 0);
}

int hist_tracedat_sampled(const struct hist_tracedat *td)
{
	return td->perf ? td->perf->sampled : 0;
}

int hist_tracedat_set_kallsyms(struct hist_tracedat *td, const char *text, size_t len)
{
	if (td->ksyms.nr)
		return -HIST_EEXIST;
	hist__ksyms_fini(&td->ksyms);
	if (hist__ksyms_init(&td->ksyms, text, len))
		return -HIST_ENOMEM;
	return 0;
}
