/* SPDX-License-Identifier: MIT */
/*
 * libhist: the Linux ftrace hist-trigger engine as an embeddable C library.
 *
 * A host (a tracer) creates a context, describes its events through the
 * schema callbacks, writes trigger commands with hist_trigger_parse() and
 * feeds records through hist_event_hit().  libhist aggregates them exactly
 * as the kernel's hist triggers would and prints the kernel's `hist`,
 * `trigger`, `synthetic_events` and `error_log` files byte for byte.
 *
 * Conventions
 *   - Calls return 0 or a negative errno value (-HIST_EINVAL, ...), the same
 *     numbers the kernel returns from the matching write(2).  Constructors
 *     return NULL and report the code through an out-parameter.
 *   - "Context:" in each comment says which threads may call the function
 *     concurrently with which others, and whether it allocates.
 *
 * Concurrency contract
 *   1. Control calls (everything except hist_event_hit(),
 *      hist_event_active() and hist_filter_match()) on one context must
 *      be serialised by the host: one control thread at a time.
 *   2. hist_event_hit() may run on any number of threads at once, and
 *      concurrently with every control call.  It never allocates, never
 *      blocks and never calls stdio.  It may also be called from a signal
 *      handler (an interrupt, in a kernel shim) that interrupted another
 *      hist_event_hit() on the same thread: both hits count.
 *   3. A hit sees each event's trigger list either before or after a
 *      control call changed it, never a half-built one: lists are rebuilt
 *      and published with a release store.
 *   4. Memory that a removal (a trigger, a filter, a synthetic event, a
 *      cleared table) takes away from running hits is freed only after a
 *      grace period: at once if the host supplies hist_host.synchronize
 *      (it must wait for every hit in flight), otherwise at
 *      hist_ctx_reclaim() or hist_ctx_destroy().  Retiring never
 *      allocates; a removal that cannot build the new trigger list
 *      returns -HIST_ENOMEM and changes nothing.
 *   5. Printing while hits run shows every entry published before the
 *      print started and maybe some published during it; sums are read
 *      without stopping writers, so they may be a few hits apart from the
 *      Hits total.  With no hit in flight, every number is exact.
 *   6. A clear (":clear") of a trigger swaps in an empty table; hits that
 *      raced with it land in the old table, which is retired (rule 4).
 */
#ifndef LIBHIST_H
#define LIBHIST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBHIST_VERSION_MAJOR 0
#define LIBHIST_VERSION_MINOR 1
#define LIBHIST_VERSION_PATCH 0

/* errno values, as the kernel's write(2) would report them */
enum {
	HIST_EPERM = 1,
	HIST_ENOENT = 2,
	HIST_ESRCH = 3,
	HIST_ENOMEM = 12,
	HIST_EBUSY = 16,
	HIST_EEXIST = 17,
	HIST_EINVAL = 22,
	HIST_EDOM = 33,
	HIST_ERANGE = 34,
	HIST_E2BIG = 7,
};

/*
 * error_log messages.  Three ranges, one per kernel message table: hist
 * (0..), synthetic events (100..) and filters (200..); the names are the
 * kernel's own, so tests and docs map one to one.
 */
enum hist_err_msg {
	HIST_ERR_NONE = 0,
	HIST_ERR_DUPLICATE_VAR = 1,
	HIST_ERR_VAR_NOT_UNIQUE = 2,
	HIST_ERR_TOO_MANY_VARS = 3,
	HIST_ERR_MALFORMED_ASSIGNMENT = 4,
	HIST_ERR_NAMED_MISMATCH = 5,
	HIST_ERR_TRIGGER_EEXIST = 6,
	HIST_ERR_TRIGGER_ENOENT_CLEAR = 7,
	HIST_ERR_SET_CLOCK_FAIL = 8,
	HIST_ERR_BAD_FIELD_MODIFIER = 9,
	HIST_ERR_TOO_MANY_SUBEXPR = 10,
	HIST_ERR_TIMESTAMP_MISMATCH = 11,
	HIST_ERR_TOO_MANY_FIELD_VARS = 12,
	HIST_ERR_EVENT_FILE_NOT_FOUND = 13,
	HIST_ERR_HIST_NOT_FOUND = 14,
	HIST_ERR_HIST_CREATE_FAIL = 15,
	HIST_ERR_SYNTH_VAR_NOT_FOUND = 16,
	HIST_ERR_SYNTH_EVENT_NOT_FOUND = 17,
	HIST_ERR_SYNTH_TYPE_MISMATCH = 18,
	HIST_ERR_SYNTH_COUNT_MISMATCH = 19,
	HIST_ERR_FIELD_VAR_PARSE_FAIL = 20,
	HIST_ERR_VAR_CREATE_FIND_FAIL = 21,
	HIST_ERR_ONX_NOT_VAR = 22,
	HIST_ERR_ONX_VAR_NOT_FOUND = 23,
	HIST_ERR_ONX_VAR_CREATE_FAIL = 24,
	HIST_ERR_FIELD_VAR_CREATE_FAIL = 25,
	HIST_ERR_TOO_MANY_PARAMS = 26,
	HIST_ERR_PARAM_NOT_FOUND = 27,
	HIST_ERR_INVALID_PARAM = 28,
	HIST_ERR_ACTION_NOT_FOUND = 29,
	HIST_ERR_NO_SAVE_PARAMS = 30,
	HIST_ERR_TOO_MANY_SAVE_ACTIONS = 31,
	HIST_ERR_ACTION_MISMATCH = 32,
	HIST_ERR_NO_CLOSING_PAREN = 33,
	HIST_ERR_SUBSYS_NOT_FOUND = 34,
	HIST_ERR_INVALID_SUBSYS_EVENT = 35,
	HIST_ERR_INVALID_REF_KEY = 36,
	HIST_ERR_VAR_NOT_FOUND = 37,
	HIST_ERR_FIELD_NOT_FOUND = 38,
	HIST_ERR_EMPTY_ASSIGNMENT = 39,
	HIST_ERR_INVALID_SORT_MODIFIER = 40,
	HIST_ERR_EMPTY_SORT_FIELD = 41,
	HIST_ERR_TOO_MANY_SORT_FIELDS = 42,
	HIST_ERR_INVALID_SORT_FIELD = 43,
	HIST_ERR_INVALID_STR_OPERAND = 44,
	HIST_ERR_EXPECT_NUMBER = 45,
	HIST_ERR_UNARY_MINUS_SUBEXPR = 46,
	HIST_ERR_DIVISION_BY_ZERO = 47,
	HIST_ERR_NEED_NOHC_VAL = 48,
	HIST_SYNTH_ERR_BAD_NAME = 100,
	HIST_SYNTH_ERR_INVALID_CMD = 101,
	HIST_SYNTH_ERR_INVALID_DYN_CMD = 102,
	HIST_SYNTH_ERR_EVENT_EXISTS = 103,
	HIST_SYNTH_ERR_TOO_MANY_FIELDS = 104,
	HIST_SYNTH_ERR_INCOMPLETE_TYPE = 105,
	HIST_SYNTH_ERR_INVALID_TYPE = 106,
	HIST_SYNTH_ERR_INVALID_FIELD = 107,
	HIST_SYNTH_ERR_INVALID_ARRAY_SPEC = 108,
	HIST_FILTER_ERR_NONE = 200,
	HIST_FILTER_ERR_INVALID_OP = 201,
	HIST_FILTER_ERR_TOO_MANY_OPEN = 202,
	HIST_FILTER_ERR_TOO_MANY_CLOSE = 203,
	HIST_FILTER_ERR_MISSING_QUOTE = 204,
	HIST_FILTER_ERR_MISSING_BRACE_OPEN = 205,
	HIST_FILTER_ERR_MISSING_BRACE_CLOSE = 206,
	HIST_FILTER_ERR_OPERAND_TOO_LONG = 207,
	HIST_FILTER_ERR_EXPECT_STRING = 208,
	HIST_FILTER_ERR_EXPECT_DIGIT = 209,
	HIST_FILTER_ERR_ILLEGAL_FIELD_OP = 210,
	HIST_FILTER_ERR_FIELD_NOT_FOUND = 211,
	HIST_FILTER_ERR_ILLEGAL_INTVAL = 212,
	HIST_FILTER_ERR_BAD_SUBSYS_FILTER = 213,
	HIST_FILTER_ERR_TOO_MANY_PREDS = 214,
	HIST_FILTER_ERR_INVALID_FILTER = 215,
	HIST_FILTER_ERR_INVALID_CPULIST = 216,
	HIST_FILTER_ERR_IP_FIELD_ONLY = 217,
	HIST_FILTER_ERR_INVALID_VALUE = 218,
	HIST_FILTER_ERR_NO_FUNCTION = 219,
	HIST_FILTER_ERR_ERRNO = 220,
	HIST_FILTER_ERR_NO_FILTER = 221,
};

typedef struct hist_ctx hist_ctx;
typedef struct hist_event hist_event;
typedef struct hist_filter hist_filter;

/* ------------------------------------------------------------------------
 * Event schema: how the host describes its events
 */

/* How the bytes of a field are laid out in a record. */
enum hist_field_kind {
	HIST_FIELD_INT = 0,	 /* integer of size 1, 2, 4 or 8 */
	HIST_FIELD_STRING,	 /* fixed char array, NUL-padded: char comm[16] */
	HIST_FIELD_DYN_STRING,	 /* __data_loc char[]: u32 (len << 16 | offset
				    from the record start) */
	HIST_FIELD_REL_STRING,	 /* __rel_loc char[]: like DYN_STRING but the
				    offset counts from the end of the field */
	HIST_FIELD_DYN_ARRAY,	 /* __data_loc of a non-char element type */
	HIST_FIELD_REL_ARRAY,	 /* __rel_loc of a non-char element type */
	HIST_FIELD_ARRAY,	 /* fixed non-char array: unsigned long args[6] */
	HIST_FIELD_PTR_STRING,	 /* char * pointer: an address, not a string
				    (the kernel does not follow it either) */
	HIST_FIELD_STACK,	 /* dynamic array of unsigned long frames
				    (synthetic 'unsigned long[]' fields) */
	HIST_FIELD_FLEX_STRING,	 /* char buf[] with size 0: text running to the
				    end of the record (ftrace:print) */
};

struct hist_field_desc {
	const char *name;   /* "prev_comm" */
	const char *type;   /* C type as the format file spells it, without
			       the name: "char[16]", "pid_t", "__data_loc char[]" */
	uint32_t offset;    /* from the start of the record (common_type) */
	uint32_t size;	    /* bytes the field occupies in the record */
	uint8_t is_signed;
	uint8_t kind;	    /* enum hist_field_kind */
};

struct hist_event_desc {
	const char *system;
	const char *name;
	uint32_t id;	    /* the format file's ID; 0 if the host has none */
	const struct hist_field_desc *fields;
	uint32_t nr_fields;
	void *host_event;   /* opaque, handed back to the host */
};

/* Metadata of one hit, supplied by the host with each record. */
struct hist_hit {
	uint64_t ts;	    /* event time stamp in the clock's unit (ns) */
	uint32_t cpu;	    /* CPU (or thread slot) the event fired on */
	int32_t pid;	    /* pid of the current task; -1: take common_pid */
	const char *comm;   /* comm of the current task; NULL: ask host */
	const uint64_t *stack;	/* kernel stack at the event, innermost first,
				   or NULL: ask the host's stack provider */
	uint32_t nr_stack;
	uint32_t flags;	    /* HIST_HIT_* */
};

#define HIST_HIT_NO_TS 1u   /* ts is not valid: use the clock callback */

/*
 * Host callbacks.  Every member but find_event is optional; a missing
 * resolver gives the kernel's fallback text.
 */
struct hist_host {
	void *data;	    /* first argument of every callback */

	/* Describe event SYSTEM/NAME; 0 and *out filled, or -HIST_ENOENT.
	 * The strings and field array must live as long as the context. */
	int (*find_event)(void *data, const char *system, const char *name,
			  struct hist_event_desc *out);

	/* Comm of task PID (.execname, comm); writes at most 16 bytes incl.
	 * the NUL.  Return 0 if known. */
	int (*comm)(void *data, int32_t pid, char comm[16]);

	/* Symbol of ADDR: name (with_offset 0) or name+0xoff/0xsize.
	 * Return the length written (< len), or -1 if unknown. */
	int (*sym)(void *data, uint64_t addr, int with_offset, char *buf,
		   size_t len);

	/* Name of system call NR ("sys_read"), or NULL. */
	const char *(*syscall_name)(void *data, uint64_t nr);

	/* Stack at the current event when hit->stack is NULL: frames
	 * innermost first, returns the count (at most max). */
	unsigned (*stacktrace)(void *data, const struct hist_hit *hit,
			       uint64_t *ips, unsigned max);

	/* Current time in ns (error_log stamps, hits without a time). */
	uint64_t (*clock)(void *data);

	/* A hist trigger with common_timestamp asks for this trace clock
	 * (clock= attribute, default "global").  0 or negative errno. */
	int (*set_clock)(void *data, const char *name);

	/* Wait until every hist_event_hit() that started before the call
	 * has returned (synchronize_rcu).  Without it, memory of removed
	 * triggers is kept until hist_ctx_destroy()/hist_ctx_reclaim(). */
	void (*synchronize)(void *data);

	/* An action generated synthetic event EV: its record, as the kernel
	 * lays it out.  Called on the hot path. */
	void (*synth_event)(void *data, hist_event *ev, const void *rec,
			    size_t len, const struct hist_hit *hit);

	/* Effects of the generic triggers and of snapshot() actions, run on
	 * the hot path; the tracer decides what they mean. */
	void (*traceon)(void *data, int on);
	void (*snapshot)(void *data, hist_event *ev, const struct hist_hit *hit);
	void (*stacktrace_trigger)(void *data, hist_event *ev,
				   const struct hist_hit *hit);
	void (*enable_event)(void *data, hist_event *target, int enable);
	/* The address of the kernel symbol NAME (N bytes), for a filter's
	   FIELD.function == NAME: 0, or -1 when there is none.  Without it
	   only FIELD.function == ADDRESS resolves. */
	int (*sym_addr)(void *data, const char *name, size_t n, uint64_t *addr);
};

/* ------------------------------------------------------------------------
 * Context
 */

/*
 * Where a map keeps its sums (hist_ctx_opts.sums).  Per cpu: each cpu slot
 * adds to a copy of its own without atomic instructions, and a key's
 * first slot adds next to the key; 16 bytes per entry with two values for
 * each of the nr_cpus + 1 copies, allocated with the map (64 + 16 *
 * (nr_cpus + 1) per entry for an 8-byte key).  Shared: the kernel's
 * layout, one set next to the key that every cpu updates with atomic
 * adds: 64 bytes per entry whatever nr_cpus, a locked add per value, and
 * the cpus hitting one key pass its line around.  Measured in
 * bench/README.md: per cpu is the faster in maps up to the kernel's
 * largest size=; past the last-level cache the copies cost a second
 * miss per hit from several cpus and shared is as fast or faster.  The
 * histograms print the same either way.
 */
enum hist_sums {
	HIST_SUMS_AUTO = 0,	/* per cpu for maps up to the kernel's largest
				   size= (2^17 entries), shared in the larger
				   ones a host allows (max_map_bits) */
	HIST_SUMS_PER_CPU = 1,
	HIST_SUMS_SHARED = 2,
};

/* Options for hist_ctx_create(); zero-initialise and set what you need. */
struct hist_ctx_opts {
	uint32_t max_map_bits;	/* 0: the kernel's 17 (size= 131072); a host
				   may raise it (up to 24) for large maps */
	uint32_t nr_cpus;	/* 0: 16.  Hits on cpu >= nr_cpus fold onto a
				   slot.  Each slot is owned by the first thread
				   that hits through it, which then updates the
				   sums without atomics; each slot costs one
				   more copy of the sums of every map that
				   keeps them per cpu (enum hist_sums), so
				   hosts with many CPUs trade memory for
				   contention here.  While one
				   thread owns every slot in use, an entry's
				   first slot adds next to its key; once two
				   threads own slots, every slot adds to its
				   copy, so that no thread writes a line
				   another reads */
	uint32_t sums;		/* enum hist_sums: where the maps keep their
				   sums (0: HIST_SUMS_AUTO) */
	uint32_t kernel;	/* HIST_KERNEL(6, 1), HIST_KERNEL(6, 12), ...:
				   accept, reject, log and print as that
				   kernel does (hist_kernel_recorded());
				   0: HIST_KERNEL_LATEST */
};

/*
 * Kernel versions (hist_ctx_opts.kernel).  libhist reproduces the kernels
 * it was measured on, Linux 6.1 and Linux 6.12: which commands they
 * accept, their error texts and carets, what they log, how trigger info
 * and entries print.  Any other version behaves as the nearest of those
 * at or below it (6.6 as 6.1, 6.18 as 6.12; older ones as 6.1).
 * HIST_KERNEL_LATEST is the newest language libhist knows: every command
 * libhist implements (6.1's .percent/.graph on values, 6.16's common_comm
 * too), logged and printed as the newest measured kernel does.
 */
#define HIST_KERNEL(major, minor) \
	(((uint32_t)(major) << 16) | ((uint32_t)(minor) << 8))
#define HIST_KERNEL_LATEST 0u

/*
 * Parse "latest", "6.12" or a kernel release ("6.12.95+deb12-amd64",
 * uname -r) into *KERNEL.
 * Context: any thread; never allocates.  Returns 0, or -HIST_EINVAL.
 */
int hist_kernel_parse(const char *text, uint32_t *kernel);

/*
 * The measured version whose behaviour KERNEL gets: HIST_KERNEL(6, 1),
 * HIST_KERNEL(6, 12), or HIST_KERNEL_LATEST for HIST_KERNEL_LATEST.
 * Context: any thread.
 */
uint32_t hist_kernel_recorded(uint32_t kernel);

/*
 * Create a context: one trace instance (its events, triggers, error_log,
 * synthetic events).
 * Context: any thread; allocates.  Returns NULL with *err set on failure.
 */
hist_ctx *hist_ctx_create(const struct hist_host *host,
			  const struct hist_ctx_opts *opts, int *err);

/* Destroy CTX and everything in it.
 * Context: control thread, with no hist_event_hit() in flight; frees. */
void hist_ctx_destroy(hist_ctx *ctx);

/* Free memory retired by removals (contract rule 4).
 * Context: control thread; the caller promises that no hist_event_hit()
 * is running. */
void hist_ctx_reclaim(hist_ctx *ctx);

/* ------------------------------------------------------------------------
 * Events
 */

/*
 * The event SYSTEM/NAME, asking the host's find_event the first time.
 * Context: control thread; allocates on first use.
 * Returns NULL if the host does not know it.
 */
hist_event *hist_event_lookup(hist_ctx *ctx, const char *system,
			      const char *name);

/* Register an event the host describes itself (instead of find_event).
 * DESC is copied.  Returns 0 and *OUT, or -HIST_EEXIST if the name is
 * taken, -HIST_ENOMEM.  Context: control thread; allocates. */
int hist_event_define(hist_ctx *ctx, const struct hist_event_desc *desc,
		      hist_event **out);

/* The event's description (owned by libhist).  Context: any thread. */
const struct hist_event_desc *hist_event_desc(const hist_event *ev);

/*
 * Nonzero when EV has at least one trigger: the tracer may keep its probe
 * off while this is 0 (the tracepoint static-key idea).
 * Context: any thread, lock-free; one relaxed load.
 */
int hist_event_active(const hist_event *ev);

/*
 * Feed one record of EV: REC is LEN bytes as the event's fields describe.
 * Runs every trigger of the event (filters, histograms, variables,
 * actions, synthetic events).  The record is untrusted: fields outside LEN
 * read as 0 or as empty strings.
 * Context: any thread, concurrently with everything else; never
 * allocates, never blocks, never calls stdio.
 */
void hist_event_hit(hist_event *ev, const void *rec, size_t len,
		    const struct hist_hit *hit);

/* ------------------------------------------------------------------------
 * Commands (what a tracer writes to tracefs files)
 */

/* Where an error was reported, for the error_log "loc" text. */
struct hist_error {
	int code;	    /* negative errno, 0 on success */
	int msg;	    /* HIST_ERR_* of the last logged entry, or -1 */
	uint32_t pos;	    /* caret position in the logged command */
	uint32_t nr_logged; /* error_log entries this command added */
};

/*
 * Write TEXT to EV's trigger file (append mode): hist:..., !hist:...,
 * traceon, enable_hist:... and so on, exactly one command.  Failures log
 * the kernel's error_log entries in CTX.  ERR may be NULL.
 * Context: control thread; allocates.  Returns 0 or -errno.
 */
int hist_trigger_parse(hist_event *ev, const char *text,
		       struct hist_error *err);

/* Opening EV's trigger file with O_TRUNC: removes every hist and
 * enable_hist/disable_hist trigger unless one is referenced elsewhere
 * (then nothing is removed and 0 is returned, as the kernel does).
 * Context: control thread. */
int hist_trigger_truncate(hist_event *ev);

/* Set or clear ("0") EV's own event filter (the `filter` file); a failure
 * logs an "event filter parse error" entry.  TEXT of 4096 bytes or more
 * is refused with -HIST_EINVAL and no entry, as the kernel refuses a
 * write that long.  The host applies the filter
 * to its own recording (hist_filter_match on the compiled filter).
 * Context: control thread; allocates.  Returns 0 or -errno. */
int hist_event_set_filter(hist_event *ev, const char *text,
			  struct hist_error *err);

/* ON (1): the host feeds EV only records that pass the `if` filter of
 * every trigger on EV, now and added later (it applied them itself, e.g.
 * as the kernel's event filter), so hist_event_hit() evaluates none of
 * them; the filters still print.  Synthetic events a hit generates keep
 * theirs.  0 turns it off.
 * Context: control thread.  Returns 0 or -errno. */
int hist_event_set_host_filtered(hist_event *ev, int on);

/* Write LINE to synthetic_events ("name fields..." or "!name"), or with
 * DYNAMIC set to dynamic_events ("s:..." / "-:...").  A new synthetic
 * event is an event of CTX (system "synthetic").
 * Context: control thread; allocates.  Returns 0 or -errno. */
int hist_synth_parse(hist_ctx *ctx, const char *line, int dynamic,
		     struct hist_error *err);

/* Truncating write to synthetic_events: delete every synthetic event, or
 * none and -HIST_EBUSY if one is in use.  Context: control thread. */
int hist_synth_truncate(hist_ctx *ctx);

/* ------------------------------------------------------------------------
 * Output: every printer writes through WRITE, which returns 0 or an error
 * that stops the printer and is returned.
 * Context: control thread, concurrently with hits (contract rule 5);
 * the hist printers allocate a sorted snapshot of the entries.
 */
typedef int (*hist_write_fn)(void *arg, const char *buf, size_t len);

/* The event's `hist` file: every hist trigger, in list order. */
int hist_event_print_hist(hist_event *ev, hist_write_fn write, void *arg);
/* The event's `trigger` file. */
int hist_event_print_triggers(hist_event *ev, hist_write_fn write, void *arg);
/* The event's `hist_debug` file (CONFIG_HIST_TRIGGERS_DEBUG layout, and
 * a "hit variant:" line per trigger). */
int hist_event_print_hist_debug(hist_event *ev, hist_write_fn write,
				void *arg);
/* The `error_log` file (at most 8 entries, oldest first). */
int hist_ctx_print_error_log(hist_ctx *ctx, hist_write_fn write, void *arg);
/* A truncating write to error_log. */
void hist_ctx_clear_error_log(hist_ctx *ctx);
/* The `synthetic_events` (DYNAMIC 0) or `dynamic_events` listing. */
int hist_synth_print(hist_ctx *ctx, int dynamic, hist_write_fn write,
		     void *arg);

/* The kernel's text of error_log message MSG (HIST_ERR_*,
 * HIST_SYNTH_ERR_*, HIST_FILTER_ERR_*).  Context: any thread. */
const char *hist_error_text(int msg);

/* ------------------------------------------------------------------------
 * Filters on their own: the event filter language for a tracer's own use.
 */

/*
 * Compile TEXT against EV's fields.  On error returns NULL, *err->code and
 * the caret position in TEXT.
 * Context: control thread; allocates.
 */
hist_filter *hist_filter_compile(hist_event *ev, const char *text,
				 struct hist_error *err);
/* 1 if REC matches.  Context: any thread; no allocation.  F must not be
 * destroyed while a call using it may still run. */
int hist_filter_match(const hist_filter *f, const void *rec, size_t len,
		      const struct hist_hit *hit);
void hist_filter_destroy(hist_filter *f);

/* ------------------------------------------------------------------------
 * Allocation hook (fault injection, arenas): every allocation of libhist
 * goes through it.  Set it before creating a context and keep it until
 * the last one is destroyed; NULL restores calloc/free.
 * Context: no other libhist call may run concurrently.
 */
struct hist_allocator {
	void *(*alloc)(void *data, size_t size);    /* zeroed memory */
	void (*free)(void *data, void *ptr);
	void *data;
};
void hist_set_allocator(const struct hist_allocator *a);

/* ------------------------------------------------------------------------
 * Version: the header's LIBHIST_VERSION_* macros say what a program was
 * compiled against, these calls what it runs with (a shared library may
 * be newer).  LIBHIST_VERSION_NUMBER is MAJOR * 10000 + MINOR * 100 +
 * PATCH, so `#if LIBHIST_VERSION_NUMBER >= 100` tests for 0.1.0.
 */
#define LIBHIST_VERSION_NUMBER                                                 \
	(LIBHIST_VERSION_MAJOR * 10000 + LIBHIST_VERSION_MINOR * 100 +         \
	 LIBHIST_VERSION_PATCH)
#define LIBHIST__STR2(x) #x
#define LIBHIST__STR(x) LIBHIST__STR2(x)
#define LIBHIST_VERSION_STRING                                                 \
	LIBHIST__STR(LIBHIST_VERSION_MAJOR)                                    \
	"." LIBHIST__STR(LIBHIST_VERSION_MINOR) "." LIBHIST__STR(LIBHIST_VERSION_PATCH)

/* "MAJOR.MINOR.PATCH" of the library.  Context: any thread. */
const char *hist_version(void);
/* LIBHIST_VERSION_NUMBER of the library.  Context: any thread. */
unsigned hist_version_number(void);

/* ------------------------------------------------------------------------
 * Structured read-out: the entries of one histogram as data, in the order
 * and with the numbers that the `hist` file prints, so a host never parses
 * text.  A reader is a sorted snapshot of the entry list taken at
 * hist_reader_create(); sums and variables are read when hist_reader_next()
 * reaches the entry (contract rule 5, as for printing).
 *
 * Every structure below is owned by libhist and valid until the next
 * hist_reader_next() or hist_reader_destroy(); members may be appended in
 * later versions, so never allocate or copy them by value.
 */
typedef struct hist_reader hist_reader;

/* How a key is printed, i.e. what its value means. */
enum hist_key_kind {
	HIST_KEY_NUMBER = 0,	/* plain integer: value */
	HIST_KEY_HEX,		/* .hex: value */
	HIST_KEY_SYM,		/* .sym, .sym-offset: value is the address,
				   str the symbol text */
	HIST_KEY_EXECNAME,	/* .execname: value is the pid, str the comm */
	HIST_KEY_SYSCALL,	/* .syscall: value is the number, str the name */
	HIST_KEY_LOG2,		/* .log2: the bucket 2^value */
	HIST_KEY_BUCKET,	/* .buckets=N: value .. value + width - 1 */
	HIST_KEY_STRING,	/* a string field or comm: str */
	HIST_KEY_STACKTRACE,	/* a stack: frames */
};

struct hist_read_key {
	const char *name;	/* as the hist file labels it: "common_pid",
				   "stacktrace", "ptr.stacktrace" */
	uint32_t kind;		/* enum hist_key_kind */
	uint32_t is_signed;	/* value holds a sign-extended signed field */
	uint64_t value;		/* numeric kinds */
	const char *str;	/* see the kinds; NULL for the others */
	uint64_t width;		/* HIST_KEY_BUCKET: N */
	const uint64_t *frames;	/* HIST_KEY_STACKTRACE: innermost first */
	const char *const *frame_text;	/* each frame as the hist file prints
					   it ("func+0x1a/0x40", "0x...") */
	uint32_t nr_frames;
	const char *text;	/* the key's value as the hist file prints it,
				   runs of blanks squeezed ("sh [ 124]");
				   stacks: one frame per line */
};

#define HIST_VAL_HEX 1u		/* .hex */
#define HIST_VAL_PERCENT 2u	/* .percent: percent of the column total */
#define HIST_VAL_GRAPH 4u	/* .graph: a bar scaled to the column maximum */

struct hist_read_val {
	const char *name;	/* "hitcount", "bytes_req" */
	uint64_t value;		/* the sum */
	uint32_t flags;		/* HIST_VAL_* */
	int32_t percent;	/* PERCENT: hundredths of a percent of the
				   column total; GRAPH: of the column maximum;
				   -1 where the hist file prints [ERROR] */
};

/* A variable of the entry, or a field saved by save(). */
struct hist_read_var {
	const char *name;	/* "ts0"; a saved field: "next_comm" */
	uint64_t value;		/* numbers (0 while unset) */
	const char *str;	/* string variables and fields: the text, or
				   NULL while unset; the reader's copy, one
				   hit's whole text, which later hits do not
				   change */
	uint32_t set;		/* the entry holds a value */
	uint32_t is_string;	/* a string variable or field */
};

enum hist_track_handler {
	HIST_TRACK_ONMAX = 1,
	HIST_TRACK_ONCHANGE = 2,
};

/* The per-entry block of an onmax()/onchange() handler. */
struct hist_read_track {
	uint32_t handler;	/* enum hist_track_handler */
	const char *var;	/* the tracked variable as written: "$lat" */
	uint64_t value;		/* what the hist file prints as max:/changed: */
	const struct hist_read_var *saved;	/* save() fields, in order */
	uint32_t nr_saved;
};

struct hist_read_entry {
	uint32_t index;		/* position in the sorted list, from 0 */
	const struct hist_read_key *keys;
	uint32_t nr_keys;
	const struct hist_read_val *vals;	/* the printed values, in order */
	uint32_t nr_vals;
	const struct hist_read_var *vars;	/* user variables (name=expr) */
	uint32_t nr_vars;
	const struct hist_read_track *tracks;
	uint32_t nr_tracks;
};

/* The "Snapshot taken" block of onmax()/onchange().snapshot(). */
struct hist_read_snapshot {
	uint32_t handler;	/* enum hist_track_handler */
	const char *var;	/* "$lat" */
	uint64_t value;		/* the triggering value */
	const struct hist_read_key *keys;	/* the key that triggered it */
	uint32_t nr_keys;
};

struct hist_read_info {
	const char *trigger;	/* the trigger info line, without the state
				   and newline: "hist:keys=...:size=2048" */
	uint32_t paused;
	const char *name;	/* name= of a shared table, or NULL */
	uint64_t hits;		/* Totals: Hits, Entries, Dropped */
	uint64_t entries;
	uint64_t dropped;
	/* The columns: keys with name, kind, is_signed and width set; the
	 * printed values with name, flags and, as value, the column total */
	const struct hist_read_key *key_fields;
	uint32_t nr_key_fields;
	const struct hist_read_val *val_fields;
	uint32_t nr_val_fields;
	const struct hist_read_snapshot *snapshot;	/* NULL if none taken */
};

/* Number of hist triggers of EV (sections of its hist file).
 * Context: control thread. */
unsigned hist_event_nr_hists(const hist_event *ev);

/*
 * A reader of EV's INDEX-th hist trigger (0-based, in hist file order).
 * Context: control thread, concurrently with hits; allocates the
 * snapshot.  The reader points into the live table: destroy it before a
 * control call that can remove or clear the trigger (hist_trigger_parse(),
 * hist_trigger_truncate(), hist_ctx_reclaim(), hist_ctx_destroy()).
 * Returns NULL with *err = -HIST_ENOENT (no such trigger) or -HIST_ENOMEM.
 */
hist_reader *hist_reader_create(hist_event *ev, unsigned index, int *err);
/* The trigger, its totals and its snapshot block.  Context: control
 * thread. */
const struct hist_read_info *hist_reader_info(hist_reader *r);
/* The next entry, or NULL after the last.  Context: control thread;
 * never allocates (host name callbacks are called). */
const struct hist_read_entry *hist_reader_next(hist_reader *r);
/* Start again from the first entry (same snapshot). */
void hist_reader_rewind(hist_reader *r);
void hist_reader_destroy(hist_reader *r);

/*
 * EV's histograms as one JSON array, an object per hist trigger, written
 * through WRITE.  The schema is documented in README.md ("JSON").
 * Context: control thread, like hist_event_print_hist().
 */
int hist_event_print_json(hist_event *ev, hist_write_fn write, void *arg);

/* ------------------------------------------------------------------------
 * Programmatic builder: a hist trigger by calls instead of text (the model
 * is libtracefs's tracefs_hist_*).  The builder writes the command the
 * kernel's grammar expects and runs it through hist_trigger_parse(), so a
 * built trigger is the same trigger, with the same trigger info and the
 * same error_log entries, as the equivalent text.
 *
 * The add/set calls check their arguments and limits (3 keys, 2 values
 * besides hitcount, 16 variables, 2 sort keys, 8 actions) and return 0,
 * -HIST_EINVAL or -HIST_ENOMEM; names are resolved when the command runs.
 * Context: control thread (the builder itself is not shared).
 */
typedef struct hist_builder hist_builder;

/* The kernel's field modifiers (.hex, .sym, ...). */
enum hist_mod {
	HIST_MOD_NONE = 0,
	HIST_MOD_HEX,		/* .hex */
	HIST_MOD_SYM,		/* .sym */
	HIST_MOD_SYM_OFFSET,	/* .sym-offset */
	HIST_MOD_EXECNAME,	/* .execname */
	HIST_MOD_SYSCALL,	/* .syscall */
	HIST_MOD_LOG2,		/* .log2 */
	HIST_MOD_USECS,		/* .usecs */
	HIST_MOD_BUCKETS,	/* .buckets=N (keys) */
	HIST_MOD_STACKTRACE,	/* .stacktrace */
	HIST_MOD_PERCENT,	/* .percent (values) */
	HIST_MOD_GRAPH,		/* .graph (values) */
};

enum hist_handler {
	HIST_ONMATCH = 0,	/* onmatch(SYSTEM.EVENT) */
	HIST_ONMAX,		/* onmax($VAR) */
	HIST_ONCHANGE,		/* onchange($VAR) */
};

enum hist_action {
	HIST_ACTION_TRACE = 0,	/* .trace(SYNTH,params...) */
	HIST_ACTION_SYNTH,	/* .SYNTH(params...) */
	HIST_ACTION_SAVE,	/* .save(fields...) */
	HIST_ACTION_SNAPSHOT,	/* .snapshot() */
};

/* Pieces of the trigger's filter, appended in order (like tracefs). */
enum hist_filter_part {
	HIST_FILTER_COMPARE = 0,	/* FIELD OP VALUE */
	HIST_FILTER_AND,		/* && */
	HIST_FILTER_OR,			/* || */
	HIST_FILTER_NOT,		/* ! */
	HIST_FILTER_OPEN,		/* ( */
	HIST_FILTER_CLOSE,		/* ) */
};

/* What hist_builder_command() writes. */
enum hist_builder_cmd {
	HIST_CMD_START = 0,	/* hist:...          create the trigger */
	HIST_CMD_PAUSE,		/* hist:...:pause */
	HIST_CMD_CONT,		/* hist:...:cont */
	HIST_CMD_CLEAR,		/* hist:...:clear */
	HIST_CMD_REMOVE,	/* !hist:...         remove it */
};

/* A builder for a hist trigger on EV.  NULL with *err = -HIST_ENOMEM. */
hist_builder *hist_builder_create(hist_event *ev, int *err);
void hist_builder_destroy(hist_builder *b);

/* keys=: FIELD (an event field, common_*, a stacktrace, cpu, ...) with
 * modifier MOD; ARG is N of HIST_MOD_BUCKETS and ignored otherwise. */
int hist_builder_add_key(hist_builder *b, const char *field,
			 enum hist_mod mod, uint64_t arg);
/* vals=: FIELD or an expression ("$lat", "bytes_alloc-bytes_req"). */
int hist_builder_add_value(hist_builder *b, const char *field,
			   enum hist_mod mod);
/* NAME=EXPR, e.g. ("ts0", "common_timestamp.usecs"). */
int hist_builder_add_var(hist_builder *b, const char *name, const char *expr);
/* sort=: FIELD (a key, a value or "hitcount"), optionally descending. */
int hist_builder_add_sort_key(hist_builder *b, const char *field,
			      int descending);
/* name=, size= (entries, rounded up to a power of two), clock=. */
int hist_builder_set_name(hist_builder *b, const char *name);
int hist_builder_set_size(hist_builder *b, uint32_t entries);
int hist_builder_set_clock(hist_builder *b, const char *clock);
/* nohitcount: do not print hitcount (needs another value). */
int hist_builder_set_nohitcount(hist_builder *b, int on);

/*
 * Append a piece of the filter ("if ..."): FIELD OP VALUE for
 * HIST_FILTER_COMPARE (OP one of == != < <= > >= & ~; VALUE as the
 * filter language spells it: 42, "bash", "sys_*"), nothing else for the
 * others (pass NULL).  Pieces must form a filter: -HIST_EINVAL for a
 * piece that cannot follow the previous one.
 */
int hist_builder_append_filter(hist_builder *b, enum hist_filter_part part,
			       const char *field, const char *op,
			       const char *value);

/*
 * Add a handler and its action.  ON is "SYSTEM.EVENT" for HIST_ONMATCH
 * and the tracked variable ("lat" or "$lat") otherwise; NAME is the
 * synthetic event of HIST_ACTION_TRACE and HIST_ACTION_SYNTH (NULL for
 * the others); PARAMS are the action's parameters ($vars and fields).
 */
int hist_builder_add_action(hist_builder *b, enum hist_handler handler,
			    const char *on, enum hist_action action,
			    const char *name, const char *const *params,
			    unsigned nr_params);

/*
 * The command text of CMD ("hist:keys=...", "!hist:...", ...), valid
 * until the next call on B; NULL with *err = -HIST_EINVAL if the trigger
 * has no key or an unfinished filter, -HIST_E2BIG if it is too long for a
 * trigger write.  ERR may be NULL.
 */
const char *hist_builder_text(hist_builder *b, enum hist_builder_cmd cmd,
			      int *err);
/* Write CMD's text to the event's trigger file (hist_trigger_parse()).
 * Context: control thread; allocates.  Returns what that returns. */
int hist_builder_command(hist_builder *b, enum hist_builder_cmd cmd,
			 struct hist_error *err);

/* ------------------------------------------------------------------------
 * Export: OpenMetrics text (Prometheus) and quantiles.
 * hist_event_print_openmetrics(3) documents the mapping with an example.
 */

/* Q-quantile of column NAME of R's histogram, weighed by hits: NAME is a
 * numeric key (plain, .hex, .log2, .buckets), or a value column, which
 * then weighs the first numeric key by its sums.  Nearest rank: the
 * smallest key x with at least ceil(Q * total weight) at or below x.
 * *LO..*HI holds it: LO == HI (exact) for plain keys, the bucket for .log2
 * and .buckets keys.  Signed keys: LO and HI hold sign-extended values.
 * Rewinds R (call it before or after a walk, not during one).
 * Context: control thread; allocates.  Returns 0, -HIST_EINVAL (unknown or
 * non-numeric column, no hitcount, Q outside [0, 1]), -HIST_ENOENT (no
 * hits) or -HIST_ENOMEM. */
int hist_reader_quantile(hist_reader *r, const char *name, double q,
			 uint64_t *lo, uint64_t *hi);

#define HIST_PRINT_NO_EOF 1u	/* OpenMetrics: more events follow; end the
				   text with hist_print_openmetrics_eof() */
#define HIST_PRINT_HOST_LOST 2u	/* OpenMetrics: host_lost is the host's
				   count of events lost before the triggers */
#define HIST_PRINT_PROMETHEUS_TEXT 4u	/* the Prometheus text format 0.0.4
				   (promtool, older scrapers) instead of
				   OpenMetrics 1.0: counter families named
				   with _total, info as a gauge, no # EOF */

/* Options of the OpenMetrics and JSON writers; zero them for defaults. */
struct hist_print_opts {
	const char *prefix;	/* first part of metric names; NULL: "hist" */
	uint32_t flags;		/* HIST_PRINT_* */
	uint64_t host_lost;
	const double *quantiles;	/* quantiles of every numeric key: OpenMetrics
					   summaries and JSON "quantiles" */
	uint32_t nr_quantiles;
};

/*
 * EV's histograms as OpenMetrics text: every hist trigger's columns as
 * counters labelled by the keys, a histogram of a .log2/.buckets key,
 * Totals, then "# EOF" (unless HIST_PRINT_NO_EOF).  OPTS may be NULL.
 * Context: control thread, like hist_event_print_hist().  Returns 0, the
 * first error of WRITE, or -HIST_ENOMEM.
 */
int hist_event_print_openmetrics(hist_event *ev, hist_write_fn write, void *arg,
				 const struct hist_print_opts *opts);
/* The end of an exposition made of several events: the host's losses
 * (with HIST_PRINT_HOST_LOST) and "# EOF". */
int hist_print_openmetrics_eof(hist_write_fn write, void *arg,
			       const struct hist_print_opts *opts);
/* hist_event_print_json() with OPTS: "quantiles" as asked. */
int hist_event_print_json_opts(hist_event *ev, hist_write_fn write, void *arg,
			       const struct hist_print_opts *opts);

/*
 * Merging: the histograms of one trigger from several runs or machines
 * as one, printed as the kernel prints the hist file (hist-merge(1)).
 * Entries with equal keys are added up, onmax() blocks keep the larger
 * max with its saved fields, onchange() blocks the input added last;
 * sorting, .percent, .graph and Totals are those of the merged table.
 * Context: any thread, one merge per thread at a time; allocates.
 */
typedef struct hist_merge hist_merge;

/* NULL with *err = -HIST_ENOMEM. */
hist_merge *hist_merge_create(int *err);
/* Add a histogram: INFO (trigger, totals, columns) and its N entries, as
 * a reader gives them; everything is copied.  -HIST_EINVAL if its trigger
 * is not the one of the first histogram added (a different trigger). */
int hist_merge_add(hist_merge *m, const struct hist_read_info *info,
		   const struct hist_read_entry *entries, size_t n);
/* Add the histogram of reader R (rewinds it). */
int hist_merge_add_reader(hist_merge *m, hist_reader *r);
/* The merged hist file section: header, entries, Totals. */
int hist_merge_print(hist_merge *m, hist_write_fn write, void *arg);
/* The merged histogram as one JSON object: an element of
 * hist_event_print_json()'s array, so a merge can be merged again.
 * Variables hold the value of the input added last that set them. */
int hist_merge_print_json(hist_merge *m, hist_write_fn write, void *arg);
void hist_merge_destroy(hist_merge *m);

#ifdef __cplusplus
}
#endif
#endif /* LIBHIST_H */
