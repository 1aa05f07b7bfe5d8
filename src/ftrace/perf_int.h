/* SPDX-License-Identifier: MIT */
/*
 * Private parts of the perf.data reader, shared by its two files only:
 *   perf_header.c  what the file says about itself: the file header, the
 *                  attributes and their ids, the feature sections (tracing
 *                  data, host, CPU count), pipe mode's attribute records
 *   perf.c         the records: the walk a round at a time, the per-CPU
 *                  queues and their merge, task names, callchains
 * perf_header.c is below perf.c (README "ftrace files:" order): it never
 * calls into the walk.
 */
#ifndef HIST_FTRACE_PERF_INT_H
#define HIST_FTRACE_PERF_INT_H

#include <zstd.h>

#include "ftrace_int.h"

/* perf_event_attr.type, .sample_type and .read_format bits (uapi
 * perf_event.h). */
#define ATTR_TYPE_TRACEPOINT 2
#define S_IP (1u << 0)
#define S_TID (1u << 1)
#define S_TIME (1u << 2)
#define S_ADDR (1u << 3)
#define S_READ (1u << 4)
#define S_CALLCHAIN (1u << 5)
#define S_ID (1u << 6)
#define S_CPU (1u << 7)
#define S_PERIOD (1u << 8)
#define S_STREAM_ID (1u << 9)
#define S_RAW (1u << 10)
#define S_IDENTIFIER (1u << 16)
#define RF_ENABLED 1u
#define RF_RUNNING 2u
#define RF_ID 4u
#define RF_GROUP 8u
#define RF_LOST 16u

/* Record types: the kernel's, then perf's own (64 and up). */
enum {
	R_LOST = 2,
	R_COMM = 3,
	R_EXIT = 4,
	R_FORK = 7,
	R_SAMPLE = 9,
	R_LOST_SAMPLES = 13,
	R_HEADER_ATTR = 64,
	R_HEADER_TRACING_DATA = 66,
	R_FINISHED_ROUND = 68,
	R_ID_INDEX = 69,
	R_HEADER_FEATURE = 80,
	R_COMPRESSED = 81,
};

/* Feature bits of the file header (header.h numbering). */
#define FEAT_TRACING_DATA 1
#define FEAT_HOSTNAME 3
#define FEAT_OSRELEASE 4
#define FEAT_ARCH 6
#define FEAT_NRCPUS 7
#define FEAT_DIR_FORMAT 24
#define FEAT_BITS 256

/* Callchain context markers are the top 4095 values of a u64. */
#define CTX_MAX ((uint64_t)-4095)
#define CTX_KERNEL ((uint64_t)-128)

/*
 * An index entry: the record's offset in the data (bits 0-46), whether
 * it is a LOST/LOST_SAMPLES record rather than a sample (bit 47) and its
 * attribute (bits 48-63).  Offsets past the mapped file point into the
 * per-thread files of a directory (xbuf: perf record --threads), then
 * into the decompressed buffer (dbuf: perf record -z).
 */
#define E_OFF_MASK ((UINT64_C(1) << 47) - 1)
#define E_LOST (UINT64_C(1) << 47)
#define E_ATTR(e) ((uint32_t)((e) >> 48))
#define MAX_ATTRS 65535u
#define MAX_CPUS 65536u

struct pattr {
	uint64_t sample_type, read_format, period, config;
	uint32_t type;
	int freq, sample_id_all;
	int clockid, use_clockid;
	/* fixed offsets in a sample (from the record start), -1: absent */
	int32_t s_tid, s_time, s_cpu, s_id;
	uint32_t s_var;		/* where READ/CALLCHAIN/RAW start */
	/* sample_id trailer of other records: offsets back from the end */
	int32_t t_tid, t_time, t_cpu, t_id;
	uint32_t t_size;
	int feed;		/* tracepoint with RAW: its samples are records */
};

/* One COMM or FORK record: what a task was called from TS on. */
struct pid_ent {
	uint64_t off;		/* where the record is: its order among
				   records of the same time stamp */
	int32_t pid;
	int32_t parent;		/* FORK: the parent (ptid), else -1 */
	uint64_t ts;
	uint32_t next;		/* the task's next entry + 1, 0: none */
	char comm[16];
	uint8_t exec;
};

struct qent {
	uint64_t ts, e;
};

/* One CPU's records read but not yet handed out, in time order. */
struct pstream {
	uint32_t cpu;
	struct qent *q;
	size_t head, n, cap;	/* pending: q[head..n) */
	uint32_t hpos;		/* place in the heap, or UINT32_MAX */
	uint64_t drop_next;	/* lost before q[head] */
};

struct hist__perf {
	int pipe;
	int be;
	const uint8_t *map;	/* td->map */
	size_t map_len;
	/*
	 * perf record --threads: the directory's data.N files, read one
	 * after the other into xbuf (offsets map_len..dbase); the walk takes
	 * segs[0] (the header file's data section), then one seg per file.
	 */
	uint8_t *xbuf;
	uint64_t dbase;		/* map_len + the bytes in xbuf */
	uint64_t (*segs)[2];	/* [start, end) of each data range */
	size_t nr_segs, cap_segs, seg_i;
	int dir_format;		/* the header says: a directory's header file */
	uint8_t *dbuf;		/* decompressed COMPRESSED records */
	size_t dlen, dcap;
	ZSTD_DStream *zs;
	size_t dwalk;		/* dbuf walked up to here: a record may
				   continue in the next compressed chunk */
	size_t *chunk_end;	/* dbuf end after each COMPRESSED record */
	size_t nr_chunks, cap_chunks, chunk_i;
	int replay_chunk;	/* walking a chunk decompressed on an earlier pass */

	/* the walk: [wpos, dend) of the data is still to be read */
	uint64_t dstart, dend, wpos;
	uint64_t seen_to;	/* metadata records before this were taken */
	int eof;
	/*
	 * perf record writes FINISHED_ROUND after each pass over the CPUs'
	 * buffers; perf's own reader relies on this: once round R has been
	 * read, nothing later is older than the newest record of round R-1.
	 * So a record at or before `safe` can go out.
	 */
	uint64_t max_ts, round_max, safe;
	uint64_t rounds;

	struct pattr *attrs;
	uint32_t nr_attrs;
	/* id -> attr, open addressing; id 0 is never a key */
	uint64_t *id_key;
	uint32_t *id_val;
	uint32_t id_cap, id_used;
	uint64_t idc_key[16];	/* id_get()'s cache of recent ids */
	uint32_t idc_val[16];
	int have_tracing_data;
	const uint8_t *tdata;	/* the tracing data, in the mapped file */
	size_t tdata_len;
	uint64_t tdata_off;
	int same_type;		/* every attr has attrs[0]'s sample_type */
	int sampled;		/* a tracepoint attr samples (-F or -c N > 1) */
	char host[65], release[65], arch[33];	/* features, for td->uname */

	struct pstream *st;
	uint32_t nr_st;
	uint32_t *cpu_st;	/* cpu -> stream + 1, 0: none */
	uint32_t nr_cpu_st;
	struct pstream **heap;	/* streams with pending records, by front */
	uint32_t nr_heap, cap_heap;
	struct pstream *last_st;	/* queue_push()'s stream of last_cpu */
	uint32_t last_cpu;

	/* task names: entries in file order, chained per pid */
	struct pid_ent *pids;
	size_t nr_pids, cap_pids;
	int32_t *ph_key;	/* pid -> first entry + 1, open addressing */
	uint32_t *ph_first, *ph_last;
	uint32_t ph_cap, ph_used;

	/* the record returned last */
	uint64_t last_ts, last_off;
	const uint8_t *chain;
	uint32_t chain_nr;
	int have_chains;

	uint64_t nr_lost_recs;
	uint64_t (*idx)[2];	/* ID_INDEX: id, cpu */
	size_t nr_idx, cap_idx;

	/*
	 * hist_tracedat_set_pid_gate(): only the records the kernel's pid
	 * filter passes for the tree of gate_root; the fields it reads
	 * (offset + 1, 0: the event lacks it) and the last answer.
	 */
	int gate_on;
	int32_t gate_root;
	struct hist__gate_ev gate_ev;
	int32_t g_last_pid;
	int g_last_in;
	size_t g_last_nr;	/* nr_pids when g_last_* was found */

	/*
	 * walk()'s fast path (take_fast()): the attribute of a sample taken
	 * before, its id (at f_idpos; f_idpos 0: the only attribute) and
	 * where its fields are; a sample shorter than f_min (UINT32_MAX:
	 * none set) takes the general path.
	 */
	uint32_t f_min, f_idpos, f_raw, f_cpu, f_time;
	uint64_t f_id, f_attr;	/* f_attr: the attribute index << 48 */

	uint64_t nr_bad;	/* samples skipped */
	char bad[200];		/* message for the first of them */
	int bad_pending;
	char trunc[200];	/* where the data stopped making sense */
	int trunc_pending;
	/* A file-mode file cut in its feature sections (after the data): the
	 * records are whole, but what the lost features said (the kernel
	 * release --kernel defaults to, the host, the arch, the CPU count)
	 * is not; told once per walk, after its last record.  Set at open. */
	char feat_cut[200];
	int feat_cut_said;
};

/* ---- perf_header.c ---------------------------------------------------- */

/* Set td->err to "perf.data: " and the message; returns CODE. */
int hist__perf_err(struct hist_tracedat *td, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4))) HIST__INTERNAL;
/* Grow *PTR (ELEM-byte items, *CAP of them) to hold NEED: 0 or -1. */
int hist__perf_grow(void **ptr, size_t *cap, size_t need, size_t elem) HIST__INTERNAL;
/*
 * File mode: the header's attribute section (attributes and their ids)
 * and feature sections; *DSTART, *DEND: the data section (cut at the end
 * of the file, with p->trunc said, when the file is short).  0, or a
 * negative errno with td->err set.
 */
int hist__perf_file_header(struct hist_tracedat *td, uint64_t *dstart,
			   uint64_t *dend) HIST__INTERNAL;
/* Pipe mode: a HEADER_ATTR record R of SIZE bytes at OFF. */
int hist__perf_pipe_attr(struct hist_tracedat *td, const uint8_t *r, uint32_t size,
			 uint64_t off) HIST__INTERNAL;
/* Feature FEAT's LEN bytes at B (file offset WHERE); unknown ones are
 * skipped.  Pipe mode's HEADER_FEATURE records come here too. */
int hist__perf_feature(struct hist_tracedat *td, uint32_t feat, const uint8_t *b,
		       uint64_t len, uint64_t where) HIST__INTERNAL;
/* Note the tracing data (LEN bytes at B, file offset WHERE); the first
 * one wins (perf inject may repeat it). */
void hist__perf_note_tdata(struct hist_tracedat *td, const uint8_t *b, uint64_t len,
			   uint64_t where) HIST__INTERNAL;
/* The id in the sample_id trailer of a non-sample record R, 0 if none. */
uint64_t hist__perf_trailer_id(const struct hist__perf *p, const uint8_t *r,
			       uint32_t size) HIST__INTERNAL;
/*
 * perf record --threads: read the data.N files of directory td->perf_dir
 * into p->xbuf, one data range each after the header file's.  0, or a
 * negative errno with td->err set.
 */
int hist__perf_load_dir(struct hist_tracedat *td) HIST__INTERNAL;
/* "offset N" or "data.K offset N": where offset OFF of the data is. */
const char *hist__perf_where(const struct hist__perf *p, uint64_t off, char *buf,
			     size_t len) HIST__INTERNAL;
/* The CPU the ID_INDEX records give event id ID; 0 if none. */
uint32_t hist__perf_id_cpu(const struct hist__perf *p, uint64_t id) HIST__INTERNAL;

/* ---- the hot path's helpers (every sample) ------------------------------ */

static inline uint64_t g64(const struct hist__perf *p, const uint8_t *b)
{
	return hist__get64(b, p->be);
}

static inline uint32_t g32(const struct hist__perf *p, const uint8_t *b)
{
	return hist__get32(b, p->be);
}

/* Offset OFF of the data: in the mapped file, or past it in xbuf, dbuf. */
static inline const uint8_t *at(const struct hist__perf *p, uint64_t off)
{
	if (hist__likely(off < p->map_len))
		return p->map + off;
	return off < p->dbase ? p->xbuf + (off - p->map_len) : p->dbuf + (off - p->dbase);
}

/* The slot of ID in the id table (id_key[slot] == 0: not there). */
static inline uint32_t hist__perf_id_slot(const uint64_t *key, uint32_t cap, uint64_t id)
{
	uint32_t i, mask = cap - 1;

	for (i = (uint32_t)(id * 0x9e3779b97f4a7c15ull >> 40) & mask; key[i] && key[i] != id;
	     i = (i + 1) & mask)
		;
	return i;
}

/* The attribute of ID; UINT32_MAX if none. */
static inline uint32_t id_get(const struct hist__perf *p, uint64_t id)
{
	uint32_t i;

	/* ids are per event and CPU: a handful take turns */
	if (hist__likely(p->idc_key[id & 15] == id && id))
		return p->idc_val[id & 15];
	if (!p->id_cap)
		return UINT32_MAX;
	i = hist__perf_id_slot(p->id_key, p->id_cap, id);
	if (!p->id_key[i])
		return UINT32_MAX;
	/* a cache, not the truth: written from a const reader */
	((struct hist__perf *)p)->idc_key[id & 15] = id;
	((struct hist__perf *)p)->idc_val[id & 15] = p->id_val[i];
	return p->id_val[i];
}

/* The attribute a record belongs to; UINT32_MAX if it cannot be told. */
static inline uint32_t rec_attr(const struct hist__perf *p, const uint8_t *r, uint32_t size,
			 int sample)
{
	const struct pattr *a0 = &p->attrs[0];

	if (p->nr_attrs == 1)
		return 0;
	/*
	 * perf record gives several events IDENTIFIER (right after the
	 * header of a sample, last in a trailer); older ones, and per-task
	 * recordings, give them all the same sample_type with ID, at a
	 * place that layout fixes.
	 */
	if (a0->sample_type & S_IDENTIFIER) {
		if (sample)
			return size >= 16 ? id_get(p, g64(p, r + 8)) : UINT32_MAX;
		if (!a0->sample_id_all || size < 16)
			return UINT32_MAX;
		return id_get(p, g64(p, r + size - 8));
	}
	if (!p->same_type || !(a0->sample_type & S_ID))
		return UINT32_MAX;
	if (sample)
		return size >= (uint32_t)a0->s_id + 8 ? id_get(p, g64(p, r + a0->s_id)) :
							UINT32_MAX;
	if (!a0->t_size || size < 8 + a0->t_size)
		return UINT32_MAX;
	return id_get(p, g64(p, r + size - (uint32_t)a0->t_id));
}

#endif
