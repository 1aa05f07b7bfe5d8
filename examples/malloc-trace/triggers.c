/* SPDX-License-Identifier: MIT */
/*
 * The malloc tracer's events (their schema) and its triggers file
 * (HIST_MALLOC_TRIGGERS): reading it, bounded, and applying every line,
 * apart from preload.c so the fuzz target fuzz/fuzz_malloc_triggers.c runs
 * this very code.  No stdio: its buffers would be the traced program's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "triggers.h"

extern void *__libc_malloc(size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

#define COMMON_FIELDS                                                        \
	{ "common_type", "unsigned short", 0, 2, 0, HIST_FIELD_INT },        \
	{ "common_flags", "unsigned char", 2, 1, 0, HIST_FIELD_INT },        \
	{ "common_preempt_count", "unsigned char", 3, 1, 0, HIST_FIELD_INT }, \
	{ "common_pid", "int", 4, 4, 1, HIST_FIELD_INT }

static const struct hist_field_desc entry_fields[] = {
	COMMON_FIELDS,
	{ "size", "size_t", 8, 8, 0, HIST_FIELD_INT },
};

static const struct hist_field_desc exit_fields[] = {
	COMMON_FIELDS,
	{ "size", "size_t", 8, 8, 0, HIST_FIELD_INT },
	{ "ptr", "void *", 16, 8, 0, HIST_FIELD_INT },
};

static const struct hist_field_desc free_fields[] = {
	COMMON_FIELDS,
	{ "ptr", "void *", 8, 8, 0, HIST_FIELD_INT },
};

int mt_find_event(void *data, const char *sys, const char *name,
		      struct hist_event_desc *out)
{
	(void)data;
	if (strcmp(sys, "malloc"))
		return -HIST_ENOENT;
	if (!strcmp(name, "malloc_entry")) {
		out->fields = entry_fields;
		out->nr_fields = sizeof(entry_fields) / sizeof(entry_fields[0]);
		out->id = EV_ENTRY;
	} else if (!strcmp(name, "malloc_exit")) {
		out->fields = exit_fields;
		out->nr_fields = sizeof(exit_fields) / sizeof(exit_fields[0]);
		out->id = EV_EXIT;
	} else if (!strcmp(name, "free")) {
		out->fields = free_fields;
		out->nr_fields = sizeof(free_fields) / sizeof(free_fields[0]);
		out->id = EV_FREE;
	} else {
		return -HIST_ENOENT;
	}
	return 0;
}


int mt_fd_write(void *arg, const char *buf, size_t len)
{
	int fd = *(int *)arg;

	while (len) {
		ssize_t k = write(fd, buf, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		buf += k;
		len -= (size_t)k;
	}
	return 0;
}

void mt_say(int fd, const char *s)
{
	mt_fd_write(&fd, s, strlen(s));
}

/*
 * Messages go to standard error, or, when the program has closed it by
 * the time we print (ls, coreutils close it at exit), to the copy of it
 * made when the tracer started.
 */
int mt_err_copy = -1;

int mt_err_fd(void)
{
	if (fcntl(2, F_GETFD) >= 0 || mt_err_copy < 0)
		return 2;
	return mt_err_copy;
}

void mt_say_num(int fd, unsigned long v)
{
	char b[24], *p = b + sizeof(b);

	*--p = 0;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	mt_say(fd, p);
}

/* "libhist-malloc: FILE:LINE: " */
void mt_say_where(int fd, const char *file, unsigned long line)
{
	mt_say(fd, "libhist-malloc: ");
	if (file) {
		mt_say(fd, file);
		mt_say(fd, ":");
		mt_say_num(fd, line);
		mt_say(fd, ": ");
	}
}

/* A command of a few kilobytes is named by its start and its length. */
#define ECHO_MAX 200

/* One "TARGET COMMAND" line (LINE of FILE, NULL: the defaults).  A bad
 * line is reported with its place and text and skipped: the others
 * still apply. */
static void mt_apply(hist_ctx *ctx, char *line, const char *file, unsigned long lineno)
{
	char *text = line + strcspn(line, " \t"), *slash;
	const char *why = NULL;
	hist_event *ev = NULL;
	int fd, ret;

	if (*text)
		*text++ = 0;
	while (*text == ' ' || *text == '\t')
		text++;
	if (!*text) {
		why = "expected 'TARGET COMMAND' (SYSTEM/EVENT or synthetic_events)";
		ret = -HIST_EINVAL;
	} else if (!strcmp(line, "synthetic_events")) {
		ret = hist_synth_parse(ctx, text, 0, NULL);
	} else if (!(slash = strchr(line, '/'))) {
		why = "the target is SYSTEM/EVENT or synthetic_events";
		ret = -HIST_EINVAL;
	} else {
		*slash = 0;
		ev = hist_event_lookup(ctx, line, slash + 1);
		*slash = '/';
		if (!ev) {
			why = "no such event (the tracer has malloc/malloc_entry, "
			      "malloc/malloc_exit, malloc/free and the synthetic "
			      "events defined before)";
			ret = -HIST_ENOENT;
		} else {
			ret = hist_trigger_parse(ev, text, NULL);
			if (ret == -HIST_EINVAL && strlen(text) >= 4096)
				why = "a command of 4096 bytes or more is refused "
				      "(the kernel's limit)";
		}
	}
	if (!ret)
		return;
	fd = mt_err_fd();
	mt_say_where(fd, file, lineno);
	mt_say(fd, line);
	mt_say(fd, ": '");
	if (strlen(text) > ECHO_MAX) {
		mt_fd_write(&fd, text, ECHO_MAX);
		mt_say(fd, "...' (");
		mt_say_num(fd, strlen(text));
		mt_say(fd, " bytes)");
	} else {
		mt_say(fd, text);
		mt_say(fd, "'");
	}
	mt_say(fd, ": ");
	mt_say(fd, why ? why : strerror(-ret));
	mt_say(fd, "\n");
	hist_ctx_print_error_log(ctx, mt_fd_write, &fd);
	hist_ctx_clear_error_log(ctx);
}

/* Every line of TEXT (LEN bytes, NUL-terminated, from FILE or the
 * defaults): no line is cut or dropped without a word. */
void mt_apply_all(hist_ctx *ctx, char *text, size_t len, const char *file)
{
	char *p = text, *end = text + len;
	unsigned long lineno = 0;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		lineno++;
		if (memchr(p, 0, n)) {
			int fd = mt_err_fd();

			mt_say_where(fd, file, lineno);
			mt_say(fd, "a NUL byte in the line: skipped\n");
		} else {
			p[n] = 0;
			if (n && p[n - 1] == '\r')
				p[n - 1] = 0;
			if (p[0] && p[0] != '#')
				mt_apply(ctx, p, file, lineno);
		}
		p += n + 1;
	}
}

/* Largest triggers file: a million commands is a mistake (/dev/zero). */
#define MAX_TRIGGERS_FILE (16u << 20)

/*
 * The triggers file, read without stdio (whose buffers would be ours),
 * whole and bounded; a pipe is fine.  NULL with the reason printed.
 *
 * The variable is inherited by every child of the traced program, so the
 * open must never wait: a named FIFO is opened O_NONBLOCK (a blocking
 * open waits for a writer, and a FIFO's one writer feeds one reader: the
 * second process would hang in our constructor, before its main()), then
 * read blocking, which ends at once when no writer is left.  A terminal
 * or another device would wait for input, or never end: refused.
 */
char *mt_read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	size_t cap = 65536, n = 0;
	const char *why = NULL;
	struct stat st;
	char *buf = NULL;
	ssize_t k = 0;

	if (fd < 0) {
		why = strerror(errno);
	} else if (fstat(fd, &st) != 0) {
		why = strerror(errno);
	} else if (S_ISDIR(st.st_mode)) {
		why = "is a directory";
	} else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		why = "is a device, not a file of commands";
	} else if (fcntl(fd, F_SETFL, 0) != 0) {
		why = strerror(errno);
	} else if (!(buf = __libc_malloc(cap))) {
		why = "out of memory";
	} else {
		for (;;) {
			if (n + 1 == cap) {
				char *nb = __libc_realloc(buf, 2 * cap);

				if (!nb) {
					why = "out of memory";
					break;
				}
				buf = nb;
				cap *= 2;
			}
			k = read(fd, buf + n, cap - 1 - n);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			n += (size_t)k;
			/* checked per read: the buffer doubles past the bound once */
			if (n > MAX_TRIGGERS_FILE) {
				why = "longer than 16 MiB: not a file of commands";
				break;
			}
		}
		if (!why && k < 0)
			why = strerror(errno);
		/* a FIFO whose writer is gone (or never came) reads as this */
		if (!why && !n)
			why = S_ISFIFO(st.st_mode) ? "a pipe with nothing in it (no writer)"
						   : "is empty";
	}
	if (fd >= 0)
		close(fd);
	if (why) {
		int efd = mt_err_fd();

		mt_say(efd, "libhist-malloc: HIST_MALLOC_TRIGGERS=");
		mt_say(efd, path);
		mt_say(efd, ": ");
		mt_say(efd, why);
		mt_say(efd, "; no triggers\n");
		__libc_free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}
