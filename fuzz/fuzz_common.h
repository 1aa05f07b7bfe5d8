/* SPDX-License-Identifier: MIT */
/*
 * What every fuzz target shares: an in-memory host that knows the events
 * of the conformance recordings (Linux 6.1 layouts) plus one event with a
 * field of every kind, the command mini-language of the seed corpora, and
 * a write sink that reads every byte it is given (so a sanitizer sees any
 * bad byte a printer produces).
 *
 * Each target is a libFuzzer entry point, LLVMFuzzerTestOneInput(), built
 * for AFL++ by fuzz/fuzz.mk and replayed over its corpus by
 * test/test_corpus.c, which includes every target in one program (so the
 * helpers here are static and each target prefixes its own statics).
 *
 * Command lines (the format of test/conformance/cases/ * /triggers):
 *
 *	SYS/EVENT<TAB>text		hist_trigger_parse() on the event
 *	SYS/EVENT:filter<TAB>text	hist_event_set_filter()
 *	SYS/EVENT:truncate		hist_trigger_truncate()
 *	synthetic_events<TAB>text	hist_synth_parse(..., 0)
 *	dynamic_events<TAB>text		hist_synth_parse(..., 1)
 *	synthetic_events:truncate	hist_synth_truncate()
 *	error_log:clear			hist_ctx_clear_error_log()
 *	text				hist_trigger_parse() on sched/sched_switch
 *
 * Lines starting with '#' are comments.  SYS may be "synthetic".
 */
#ifndef HIST_FUZZ_COMMON_H
#define HIST_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libhist.h"
#include "hist_synth.h"

/* Bounds that keep one input's work small (AFL's time budget). */
#define FZ_MAX_COMMANDS 48
#define FZ_LINE_MAX 8192

/* The four fields every ftrace event starts with (struct trace_entry). */
#define FZ_COMMON_FIELDS                                                     \
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },        \
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },        \
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT }, \
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT }

static const struct hist_field_desc fz_sched_switch[] = {
	FZ_COMMON_FIELDS,
	{ "prev_comm", "char[16]", 8, 16, 1, HIST_FIELD_STRING },
	{ "prev_pid", "pid_t", 24, 4, 1, HIST_FIELD_INT },
	{ "prev_prio", "int", 28, 4, 1, HIST_FIELD_INT },
	{ "prev_state", "long", 32, 8, 1, HIST_FIELD_INT },
	{ "next_comm", "char[16]", 40, 16, 1, HIST_FIELD_STRING },
	{ "next_pid", "pid_t", 56, 4, 1, HIST_FIELD_INT },
	{ "next_prio", "int", 60, 4, 1, HIST_FIELD_INT },
};

/* sched_waking, sched_wakeup */
static const struct hist_field_desc fz_sched_wake[] = {
	FZ_COMMON_FIELDS,
	{ "comm", "char[16]", 8, 16, 1, HIST_FIELD_STRING },
	{ "pid", "pid_t", 24, 4, 1, HIST_FIELD_INT },
	{ "prio", "int", 28, 4, 1, HIST_FIELD_INT },
	{ "target_cpu", "int", 32, 4, 1, HIST_FIELD_INT },
};

static const struct hist_field_desc fz_sched_fork[] = {
	FZ_COMMON_FIELDS,
	{ "parent_comm", "char[16]", 8, 16, 1, HIST_FIELD_STRING },
	{ "parent_pid", "pid_t", 24, 4, 1, HIST_FIELD_INT },
	{ "child_comm", "char[16]", 28, 16, 1, HIST_FIELD_STRING },
	{ "child_pid", "pid_t", 44, 4, 1, HIST_FIELD_INT },
};

static const struct hist_field_desc fz_sched_exec[] = {
	FZ_COMMON_FIELDS,
	{ "filename", "__data_loc char[]", 8, 4, 1, HIST_FIELD_DYN_STRING },
	{ "pid", "pid_t", 12, 4, 1, HIST_FIELD_INT },
	{ "old_pid", "pid_t", 16, 4, 1, HIST_FIELD_INT },
};

static const struct hist_field_desc fz_sched_exit[] = {
	FZ_COMMON_FIELDS,
	{ "comm", "char[16]", 8, 16, 1, HIST_FIELD_STRING },
	{ "pid", "pid_t", 24, 4, 1, HIST_FIELD_INT },
	{ "prio", "int", 28, 4, 1, HIST_FIELD_INT },
};

static const struct hist_field_desc fz_kmalloc[] = {
	FZ_COMMON_FIELDS,
	{ "call_site", "unsigned long", 8, 8, 0, HIST_FIELD_INT },
	{ "ptr", "const void *", 16, 8, 0, HIST_FIELD_INT },
	{ "bytes_req", "size_t", 24, 8, 0, HIST_FIELD_INT },
	{ "bytes_alloc", "size_t", 32, 8, 0, HIST_FIELD_INT },
	{ "gfp_flags", "unsigned long", 40, 8, 0, HIST_FIELD_INT },
	{ "node", "int", 48, 4, 1, HIST_FIELD_INT },
};

static const struct hist_field_desc fz_sys_enter[] = {
	FZ_COMMON_FIELDS,
	{ "id", "long", 8, 8, 1, HIST_FIELD_INT },
	{ "args", "unsigned long[6]", 16, 48, 0, HIST_FIELD_ARRAY },
};

static const struct hist_field_desc fz_sys_exit[] = {
	FZ_COMMON_FIELDS,
	{ "id", "long", 8, 8, 1, HIST_FIELD_INT },
	{ "ret", "long", 16, 8, 1, HIST_FIELD_INT },
};

static const struct hist_field_desc fz_openat[] = {
	FZ_COMMON_FIELDS,
	{ "__syscall_nr", "int", 8, 4, 1, HIST_FIELD_INT },
	{ "dfd", "int", 16, 8, 0, HIST_FIELD_INT },
	{ "filename", "const char *", 24, 8, 0, HIST_FIELD_PTR_STRING },
	{ "flags", "int", 32, 8, 0, HIST_FIELD_INT },
	{ "mode", "umode_t", 40, 8, 0, HIST_FIELD_INT },
};

static const struct hist_field_desc fz_print[] = {
	FZ_COMMON_FIELDS,
	{ "ip", "unsigned long", 8, 8, 0, HIST_FIELD_INT },
	{ "buf", "char[]", 16, 0, 1, HIST_FIELD_FLEX_STRING },
};

/* Not a real event: one field of every kind and size, for the accessors. */
static const struct hist_field_desc fz_kinds[] = {
	FZ_COMMON_FIELDS,
	{ "s8", "s8", 8, 1, 1, HIST_FIELD_INT },
	{ "u8", "u8", 9, 1, 0, HIST_FIELD_INT },
	{ "s16", "s16", 10, 2, 1, HIST_FIELD_INT },
	{ "s32", "s32", 12, 4, 1, HIST_FIELD_INT },
	{ "u64", "u64", 16, 8, 0, HIST_FIELD_INT },
	{ "str", "char[8]", 24, 8, 1, HIST_FIELD_STRING },
	{ "dstr", "__data_loc char[]", 32, 4, 1, HIST_FIELD_DYN_STRING },
	{ "rstr", "__rel_loc char[]", 36, 4, 1, HIST_FIELD_REL_STRING },
	{ "darr", "__data_loc unsigned int[]", 40, 4, 0, HIST_FIELD_DYN_ARRAY },
	{ "rarr", "__rel_loc u16[]", 44, 4, 0, HIST_FIELD_REL_ARRAY },
	{ "arr", "u32[2]", 48, 8, 0, HIST_FIELD_ARRAY },
	{ "ptr", "char *", 56, 8, 0, HIST_FIELD_PTR_STRING },
	{ "stack", "unsigned long[]", 64, 4, 0, HIST_FIELD_STACK },
	{ "flex", "char[]", 68, 0, 1, HIST_FIELD_FLEX_STRING },
};

struct fz_event {
	const char *system, *name;
	uint32_t id;
	const struct hist_field_desc *fields;
	uint32_t nr_fields;
};

#define FZ_EV(sys, name, id, f) { sys, name, id, f, sizeof(f) / sizeof(f[0]) }
static const struct fz_event fz_events[] = {
	FZ_EV("sched", "sched_switch", 319, fz_sched_switch),
	FZ_EV("sched", "sched_waking", 322, fz_sched_wake),
	FZ_EV("sched", "sched_wakeup", 321, fz_sched_wake),
	FZ_EV("sched", "sched_process_fork", 313, fz_sched_fork),
	FZ_EV("sched", "sched_process_exec", 312, fz_sched_exec),
	FZ_EV("sched", "sched_process_exit", 316, fz_sched_exit),
	FZ_EV("kmem", "kmalloc", 552, fz_kmalloc),
	FZ_EV("raw_syscalls", "sys_enter", 351, fz_sys_enter),
	FZ_EV("raw_syscalls", "sys_exit", 350, fz_sys_exit),
	FZ_EV("syscalls", "sys_enter_openat", 659, fz_openat),
	FZ_EV("ftrace", "print", 5, fz_print),
	FZ_EV("fuzz", "kinds", 900, fz_kinds),
};
#undef FZ_EV
#define FZ_NR_EVENTS (sizeof(fz_events) / sizeof(fz_events[0]))

static inline int fz_find_event(void *data, const char *sys, const char *name,
				struct hist_event_desc *out)
{
	size_t i;

	(void)data;
	for (i = 0; i < FZ_NR_EVENTS; i++) {
		if (!strcmp(fz_events[i].system, sys) &&
		    !strcmp(fz_events[i].name, name)) {
			out->id = fz_events[i].id;
			out->fields = fz_events[i].fields;
			out->nr_fields = fz_events[i].nr_fields;
			return 0;
		}
	}
	return -HIST_ENOENT;
}

static inline int fz_comm(void *data, int32_t pid, char comm[16])
{
	(void)data;
	if (pid == 7)
		return -1; /* an unknown task: the "<...>" fallback */
	snprintf(comm, 16, "task-%d", (int)pid);
	return 0;
}

static inline int fz_sym(void *data, uint64_t addr, int with_offset, char *buf,
			 size_t len)
{
	int n;

	(void)data;
	if (addr < 0xffffffff81000000ull)
		return -1;
	if (with_offset)
		n = snprintf(buf, len, "fn_%llx+0x%llx/0x100",
			     (unsigned long long)(addr >> 8),
			     (unsigned long long)(addr & 0xff));
	else
		n = snprintf(buf, len, "fn_%llx", (unsigned long long)(addr >> 8));
	return n >= 0 && (size_t)n < len ? n : -1;
}

static inline const char *fz_syscall_name(void *data, uint64_t nr)
{
	static const char *const names[] = { "sys_read", "sys_write", "sys_open" };

	(void)data;
	return nr < 3 ? names[nr] : NULL;
}

static const uint64_t fz_frames[] = {
	0xffffffff81000010ull, 0xffffffff81000120ull, 0xffffffff81000230ull,
	0xffffffff81000340ull, 0xffffffff81000450ull, 0xffffffff81000560ull,
	0xffffffff81000670ull, 0xffffffff81000780ull, 0xffffffff81000890ull,
	0xffffffff810009a0ull, 0xffffffff81000ab0ull, 0xffffffff81000bc0ull,
	0xffffffff81000cd0ull, 0xffffffff81000de0ull, 0xffffffff81000ef0ull,
	0xffffffff81000f00ull, 0xffffffff81001010ull, 0xffffffff81001120ull,
	0xffffffff81001230ull, 0xffffffff81001340ull,
};

static inline unsigned fz_stacktrace(void *data, const struct hist_hit *hit,
				     uint64_t *ips, unsigned max)
{
	unsigned n = (unsigned)(hit->ts % 21), i;

	(void)data;
	if (n > max)
		n = max;
	if (n > sizeof(fz_frames) / sizeof(fz_frames[0]))
		n = sizeof(fz_frames) / sizeof(fz_frames[0]);
	for (i = 0; i < n; i++)
		ips[i] = fz_frames[i];
	return n;
}

static inline uint64_t fz_clock(void *data)
{
	(void)data;
	return 1234567890123ull;
}

static inline int fz_set_clock(void *data, const char *name)
{
	(void)data;
	return strcmp(name, "bogus") ? 0 : -HIST_EINVAL;
}

/* Reads every byte, so a sanitizer flags uninitialised or stray bytes. */
static uint64_t fz_sum;

static inline void fz_touch(const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		fz_sum = fz_sum * 31 + b[i];
}

static inline void fz_synth_event(void *data, hist_event *ev, const void *rec,
				  size_t len, const struct hist_hit *hit)
{
	(void)data;
	(void)ev;
	(void)hit;
	fz_touch(rec, len);
}

static inline void fz_traceon(void *data, int on)
{
	(void)data;
	fz_sum += (uint64_t)on;
}

static inline void fz_snapshot(void *data, hist_event *ev, const struct hist_hit *hit)
{
	(void)data;
	(void)ev;
	fz_sum += hit ? hit->ts : 1;
}

static inline void fz_enable_event(void *data, hist_event *target, int enable)
{
	(void)data;
	(void)target;
	fz_sum += (uint64_t)enable;
}

/* Where printers' output goes besides the checksum: set to see it (debugging). */
static FILE *fz_echo;

/* Printers' output kept for a target that compares two runs (NULL: not
 * kept); FZ_CAP_MAX bounds it, and a longer output is only marked cut. */
#define FZ_CAP_MAX (4u << 20)
struct fz_cap {
	char *p;
	size_t len;
	int cut;
};
static struct fz_cap *fz_cap;

static inline void fz_cap_add(const char *buf, size_t len)
{
	char *np;

	if (fz_cap->cut || fz_cap->len + len > FZ_CAP_MAX) {
		fz_cap->cut = 1;
		return;
	}
	np = realloc(fz_cap->p, fz_cap->len + len + 1);
	if (!np) {
		fz_cap->cut = 1;
		return;
	}
	memcpy(np + fz_cap->len, buf, len);
	fz_cap->p = np;
	fz_cap->len += len;
	np[fz_cap->len] = 0;
}

static inline int fz_sink(void *arg, const char *buf, size_t len)
{
	(void)arg;
	fz_touch(buf, len);
	if (fz_echo)
		fwrite(buf, 1, len, fz_echo);
	if (fz_cap)
		fz_cap_add(buf, len);
	return 0;
}

/*
 * The tools' parsers print their messages on stderr: fz_quiet() sends
 * them to /dev/null for one input (unless fz_echo is set), fz_loud()
 * restores stderr.  A fuzzer's speed and make check's log both need it.
 */
static int fz_saved_stderr = -1;

static inline void fz_quiet(void)
{
	int null;

	if (fz_echo || fz_saved_stderr >= 0)
		return;
	fflush(stderr);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null < 0)
		return;
	fz_saved_stderr = dup(2);
	dup2(null, 2);
	close(null);
}

static inline void fz_loud(void)
{
	if (fz_saved_stderr < 0)
		return;
	fflush(stderr);
	dup2(fz_saved_stderr, 2);
	close(fz_saved_stderr);
	fz_saved_stderr = -1;
}

/*
 * The input N bytes at P as a file: a memfd, named by *PATH
 * ("/proc/self/fd/N"); returns the descriptor (close it after), or -1.
 */
static inline int fz_memfile(const uint8_t *p, size_t n, char *path, size_t len)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (n && write(fd, p, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* A context with 4 cpu slots and SUMS (enum hist_sums). */
static inline hist_ctx *fz_ctx_create_sums(uint32_t sums)
{
	static const struct hist_host host = {
		.find_event = fz_find_event,
		.comm = fz_comm,
		.sym = fz_sym,
		.syscall_name = fz_syscall_name,
		.stacktrace = fz_stacktrace,
		.clock = fz_clock,
		.set_clock = fz_set_clock,
		.synth_event = fz_synth_event,
		.traceon = fz_traceon,
		.snapshot = fz_snapshot,
		.stacktrace_trigger = fz_snapshot,
		.enable_event = fz_enable_event,
	};
	struct hist_ctx_opts opts = { .nr_cpus = 4, .sums = sums };

	return hist_ctx_create(&host, &opts, NULL);
}

static inline hist_ctx *fz_ctx_create(void)
{
	return fz_ctx_create_sums(HIST_SUMS_AUTO);
}

/* Event SYS/NAME given as "sys/name" (N bytes). */
static inline hist_event *fz_event_by_path(hist_ctx *ctx, const char *path, size_t n)
{
	char sys[64], name[128];
	const char *slash = memchr(path, '/', n);
	size_t sn, nn;

	if (!slash)
		return NULL;
	sn = (size_t)(slash - path);
	nn = n - sn - 1;
	if (sn >= sizeof(sys) || nn >= sizeof(name))
		return NULL;
	memcpy(sys, path, sn);
	sys[sn] = 0;
	memcpy(name, slash + 1, nn);
	name[nn] = 0;
	return hist_event_lookup(ctx, sys, name);
}

static inline int fz_word_is(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(w, lit, n);
}

/* Run one command line (see the top of this file).  LINE is NUL-terminated. */
static inline void fz_command(hist_ctx *ctx, const char *line)
{
	const char *tab = strchr(line, '\t'), *colon;
	struct hist_error err;
	size_t tn;
	hist_event *ev;

	if (line[0] == '#' || !line[0])
		return;
	if (!tab) {
		if (!strcmp(line, "synthetic_events:truncate")) {
			hist_synth_truncate(ctx);
		} else if (!strcmp(line, "error_log:clear")) {
			hist_ctx_clear_error_log(ctx);
		} else if ((colon = strchr(line, ':')) && !strcmp(colon, ":truncate")) {
			ev = fz_event_by_path(ctx, line, (size_t)(colon - line));
			if (ev)
				hist_trigger_truncate(ev);
		} else {
			ev = hist_event_lookup(ctx, "sched", "sched_switch");
			if (ev)
				hist_trigger_parse(ev, line, &err);
		}
		return;
	}
	tn = (size_t)(tab - line);
	if (fz_word_is(line, tn, "synthetic_events")) {
		hist_synth_parse(ctx, tab + 1, 0, &err);
		return;
	}
	if (fz_word_is(line, tn, "dynamic_events")) {
		hist_synth_parse(ctx, tab + 1, 1, &err);
		return;
	}
	colon = memchr(line, ':', tn);
	ev = fz_event_by_path(ctx, line, colon ? (size_t)(colon - line) : tn);
	if (!ev)
		return;
	if (colon && fz_word_is(colon, (size_t)(tab - colon), ":filter"))
		hist_event_set_filter(ev, tab + 1, &err);
	else if (!colon)
		hist_trigger_parse(ev, tab + 1, &err);
}

/*
 * Run every line of TEXT (N bytes, not NUL-terminated) as a command, at
 * most FZ_MAX_COMMANDS of them.  A NUL byte ends a line too.
 */
static inline void fz_commands(hist_ctx *ctx, const uint8_t *text, size_t n)
{
	static char line[FZ_LINE_MAX];
	size_t i = 0, nr = 0;

	while (i < n && nr < FZ_MAX_COMMANDS) {
		size_t j = i, len;

		while (j < n && text[j] != '\n' && text[j] != 0)
			j++;
		len = j - i;
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, text + i, len);
		line[len] = 0;
		fz_command(ctx, line);
		nr++;
		i = j + 1;
	}
}

/*
 * The input of the targets that hit events (fuzz_hit.c, fuzz_openmetrics.c):
 * command lines up to the first NUL byte, then records, each a 4-byte
 * header
 *
 *	u8 event (index into fz_events)  u8 cpu  u8 time step  u8 length
 *
 * and LENGTH bytes (fewer if the input ends).  The event byte's 0x80
 * gives the hit a stack of (time step % 21) frames, as a host supplies
 * it; the cpu byte's 0x80 makes the time step the hit's pid, its 0x40
 * sets HIST_HIT_NO_TS.  Returns a context of SUMS in which the commands
 * ran and at most MAX_RECORDS records went through hist_event_hit(), or
 * NULL (no memory).
 */
static inline hist_ctx *fz_hits_run(const uint8_t *data, size_t size, uint32_t sums,
				    unsigned max_records)
{
	hist_event *evs[FZ_NR_EVENTS];
	const uint8_t *p, *end = data + size;
	uint64_t ts = 1000000;
	unsigned nr = 0;
	hist_ctx *ctx;
	size_t tn, i;

	for (tn = 0; tn < size && data[tn]; tn++)
		;
	ctx = fz_ctx_create_sums(sums);
	if (!ctx)
		return NULL;
	fz_commands(ctx, data, tn);
	for (i = 0; i < FZ_NR_EVENTS; i++)
		evs[i] = hist_event_lookup(ctx, fz_events[i].system, fz_events[i].name);
	p = tn < size ? data + tn + 1 : end;
	while (end - p >= 4 && nr++ < max_records) {
		struct hist_hit hit;
		hist_event *ev = evs[p[0] % FZ_NR_EVENTS];
		size_t len = p[3];

		memset(&hit, 0, sizeof(hit));
		ts += p[2];
		hit.ts = ts;
		hit.cpu = p[1] & 0x7f;
		hit.pid = p[1] & 0x80 ? (int32_t)p[2] : -1;
		if (p[0] & 0x80) {
			hit.stack = fz_frames;
			hit.nr_stack = p[2] % 21;
		}
		if (p[1] & 0x40)
			hit.flags = HIST_HIT_NO_TS;
		p += 4;
		if (len > (size_t)(end - p))
			len = (size_t)(end - p);
		if (ev)
			hist_event_hit(ev, p, len, &hit);
		p += len;
	}
	return ctx;
}

/* hist_synth_print()'s list of definitions, kept (its first 4 KiB). */
struct fz_names {
	char buf[4096];
	size_t len;
};

static inline int fz_names_sink(void *arg, const char *buf, size_t len)
{
	struct fz_names *nm = arg;

	if (len > sizeof(nm->buf) - 1 - nm->len)
		len = sizeof(nm->buf) - 1 - nm->len;
	memcpy(nm->buf + nm->len, buf, len);
	nm->len += len;
	nm->buf[nm->len] = 0;
	return 0;
}

/* The names of CTX's synthetic events in V (at most MAX - 1 of them, in
 * NM's buffer), NULL-terminated; returns V. */
static inline char **fz_synth_names(hist_ctx *ctx, struct fz_names *nm, char **v,
				    size_t max)
{
	char *line, *save = NULL;
	size_t n = 0;

	memset(nm, 0, sizeof(*nm));
	hist_synth_print(ctx, 0, fz_names_sink, nm);
	for (line = strtok_r(nm->buf, "\n", &save); line && n + 1 < max;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " \t")] = 0;
		v[n++] = line;
	}
	v[n] = NULL;
	return v;
}

/* Print everything CTX can print, and every synthetic event's format. */
static inline void fz_print_all(hist_ctx *ctx)
{
	struct fz_names nm;
	char *names[64];
	size_t i;

	for (i = 0; i < FZ_NR_EVENTS; i++) {
		hist_event *ev = hist_event_lookup(ctx, fz_events[i].system,
						   fz_events[i].name);

		if (!ev)
			continue;
		hist_event_print_triggers(ev, fz_sink, NULL);
		if (hist_event_active(ev)) {
			struct fz_cap *keep = fz_cap;

			hist_event_print_hist(ev, fz_sink, NULL);
			/* not kept: it prints addresses, which differ between runs */
			fz_cap = NULL;
			hist_event_print_hist_debug(ev, fz_sink, NULL);
			fz_cap = keep;
		}
	}
	hist_ctx_print_error_log(ctx, fz_sink, NULL);
	hist_synth_print(ctx, 1, fz_sink, NULL);
	fz_synth_names(ctx, &nm, names, sizeof(names) / sizeof(names[0]));
	for (i = 0; names[i]; i++) {
		hist_event *ev;

		hist_synth_print_format(ctx, names[i], fz_sink, NULL);
		ev = hist_event_lookup(ctx, "synthetic", names[i]);
		if (ev) {
			hist_event_print_triggers(ev, fz_sink, NULL);
			if (hist_event_active(ev))
				hist_event_print_hist(ev, fz_sink, NULL);
		}
	}
}

#endif /* HIST_FUZZ_COMMON_H */
