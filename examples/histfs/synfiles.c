/* SPDX-License-Identifier: MIT */
/*
 * The files of histfs's synthetic events that follow the kernel's other
 * events (histfs.h): the trigger file's header and commands, the filter.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "histfs.h"

/*
 * The kernel's "# Available triggers:" header, both lines: the trigger
 * commands this kernel has (snapshot only with a snapshot buffer,
 * stacktrace only with stack traces, ...), read at start from the
 * trigger file of an event without triggers; "" if none was found.  The
 * trigger file of a synthetic event shows it, as every other one.
 */
char hfs_kheader[512];

void hfs_read_kernel_header(void)
{
	DIR *sys = NULL, *evs;
	struct dirent *s, *e;
	int fd, tries = 0;

	fd = openat(hfs.rootfd, "events", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		sys = fdopendir(fd);
	while (sys && !hfs_kheader[0] && tries < 64 && (s = readdir(sys))) {
		char path[600];

		if (s->d_name[0] == '.' || s->d_type != DT_DIR)
			continue;
		snprintf(path, sizeof(path), "events/%s", s->d_name);
		fd = openat(hfs.rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		evs = fd >= 0 ? fdopendir(fd) : NULL;
		while (evs && !hfs_kheader[0] && tries < 64 && (e = readdir(evs))) {
			struct hfs_buf b = { 0 };
			char *nl;

			if (e->d_name[0] == '.' || e->d_type != DT_DIR)
				continue;
			snprintf(path, sizeof(path), "events/%s/%s/trigger", s->d_name, e->d_name);
			fd = openat(hfs.rootfd, path, O_RDONLY | O_CLOEXEC);
			tries++;
			if (fd < 0)
				continue;
			if (!hfs_read_real(fd, &b) && b.p && !strncmp(b.p, "# Available triggers:\n", 22) &&
			    (nl = strchr(b.p + 22, '\n')) && (size_t)(nl - b.p) < sizeof(hfs_kheader) - 1)
				memcpy(hfs_kheader, b.p, (size_t)(nl + 1 - b.p));
			close(fd);
			hfs_buf_free(&b);
		}
		if (evs)
			closedir(evs);
	}
	if (sys)
		closedir(sys);
}

/*
 * A command other than a hist command for a synthetic event: the
 * kernel's answer for a command it does not have (EINVAL); for one it
 * has, the kernel would run it at the synthetic event, in its context
 * (tracing_on at once, a stack trace or record of the task), which
 * histfs, counting the event later from its own process, cannot do:
 * EOPNOTSUPP rather than a trigger that is listed and does nothing.  A
 * removal ('!') is libhist's.  0: libhist's to parse.
 */
int hfs_syn_generic(const char *cmd)
{
	int remove = *cmd == '!';
	const char *w;
	size_t n;

	cmd += remove;
	n = strcspn(cmd, ": \t");
	for (w = strchr(hfs_kheader, '\n'); w && (w = strchr(w, ' ')); w++)
		if (!strncmp(w + 1, cmd, n) && (w[n + 1] == ' ' || w[n + 1] == '\n'))
			return remove ? 0 : -EOPNOTSUPP;
	return hfs_kheader[0] ? -EINVAL : 0;
}

/*
 * What the filter file of a synthetic event shows, as the kernel's: the
 * text written, or after a write that failed to parse, the text, a caret
 * and "parse_error: MESSAGE" (the kernel keeps a failed filter, disabled,
 * to show its error); "none" once cleared with "0".  libhist checks and
 * compiles the filter but keeps no text.  EV is the event it was written
 * to: an event of the name defined later is another (hfs.lock).
 */
struct syn_filter {
	struct syn_filter *next;
	hist_event *ev;
	char *name, *text;
};
static struct syn_filter *syn_filters;

/* The entry of NAME, if any; one whose event is not EV goes. */
static struct syn_filter **filter_at(const char *name, hist_event *ev)
{
	struct syn_filter **pp, *f;

	for (pp = &syn_filters; (f = *pp); pp = &f->next) {
		if (strcmp(f->name, name))
			continue;
		if (f->ev == ev)
			return pp;
		*pp = f->next;
		free(f->name);
		free(f->text);
		free(f);
		break;
	}
	return NULL;
}

/* After synthetic events were removed: their texts go (C: the top level) */
void hfs_syn_filter_prune(struct hfs_ctx *c)
{
	struct syn_filter *f, *next;

	for (f = syn_filters; f; f = next) {
		next = f->next;
		filter_at(f->name, c ? hist_event_lookup(c->ctx, "synthetic", f->name) : NULL);
	}
}

void hfs_syn_filter_set(const char *name, hist_event *ev, const char *cmd, int ret,
			   const struct hist_error *err)
{
	struct syn_filter **pp = filter_at(name, ev), *f = pp ? *pp : NULL;
	struct hfs_buf b = { 0 };

	if (ret && !err->nr_logged)
		return;		/* refused before parsing: nothing changes */
	if (!ret && !strcmp(cmd, "0")) {
		if (f) {
			*pp = f->next;
			free(f->name);
			free(f->text);
			free(f);
		}
		return;
	}
	hfs_buf_write(&b, cmd, strlen(cmd));
	if (ret) {
		hfs_buf_printf(&b, "\n%*s^\nparse_error: ", (int)err->pos, "");
		hfs_buf_printf(&b, "%s\n", hist_error_text(err->msg));
	}
	if (b.oom || !b.p || (!f && !(f = calloc(1, sizeof(*f))))) {
		hfs_buf_free(&b);
		return;
	}
	if (!f->name) {
		f->name = strdup(name);
		f->ev = ev;
		f->next = syn_filters;
		syn_filters = f;
	}
	free(f->text);
	f->text = b.p;
}

const char *hfs_syn_filter(const char *name, hist_event *ev)
{
	struct syn_filter **f = filter_at(name, ev);

	return f ? (*f)->text : NULL;
}
