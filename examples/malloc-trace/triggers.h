/* SPDX-License-Identifier: MIT */
/*
 * libhist-malloc.so's events and triggers file (triggers.c).
 */
#ifndef HIST_MALLOC_TRIGGERS_H
#define HIST_MALLOC_TRIGGERS_H

#include <stddef.h>
#include <stdint.h>

#include <libhist.h>

/* The records, ftrace's layout: the four common fields first. */
struct rec_common {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
};

struct rec_entry {
	struct rec_common c;
	uint64_t size;
};

struct rec_exit {
	struct rec_common c;
	uint64_t size;
	uint64_t ptr;
};

struct rec_free {
	struct rec_common c;
	uint64_t ptr;
};

enum { EV_ENTRY = 1, EV_EXIT, EV_FREE };

/* hist_host.find_event: malloc/malloc_entry, malloc/malloc_exit, malloc/free */
int mt_find_event(void *data, const char *sys, const char *name,
		  struct hist_event_desc *out);

/* hist_write_fn to the descriptor *(int *)ARG; and plain strings, numbers */
int mt_fd_write(void *arg, const char *buf, size_t len);
void mt_say(int fd, const char *s);
void mt_say_num(int fd, unsigned long v);
/* "libhist-malloc: FILE:LINE: " (just "libhist-malloc: " without FILE) */
void mt_say_where(int fd, const char *file, unsigned long line);

/* A copy of standard error taken at start (-1: none), and where messages
 * go: standard error, or that copy once the program has closed it. */
extern int mt_err_copy;
int mt_err_fd(void);

/*
 * Apply every "TARGET COMMAND" line of TEXT (LEN bytes, NUL-terminated,
 * cut into lines in place) to CTX; FILE names them in messages (NULL: the
 * defaults).  A bad line is reported with FILE:LINE, its command and the
 * reason and skipped; the others apply.
 */
void mt_apply_all(hist_ctx *ctx, char *text, size_t len, const char *file);
/* PATH whole, bounded (16 MiB), NUL-terminated, from __libc_malloc (free
 * with __libc_free); NULL with the reason printed. */
char *mt_read_all(const char *path, size_t *len);

#endif
