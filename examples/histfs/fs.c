/* SPDX-License-Identifier: MIT */
/*
 * histfs: tracefs with the hist-trigger files, over FUSE.
 *
 * Every path maps to the same path of the real tracefs (opened before
 * the mount, so histfs can sit on top of it), except the files a kernel
 * with hist triggers adds or changes (enum kind).  Those are generated
 * on read from libhist and the kernel's own file, and writes to them
 * are routed: hist commands to libhist, every other command to the
 * kernel's file.  Each open file is read with direct I/O: tracefs files
 * report size 0 and change under the reader, so the page cache must not
 * be used.
 */
#define FUSE_USE_VERSION 35
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <fuse.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "histfs.h"
#include "writes.h"

struct hfs hfs = { .rootfd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

/* hfs.lock for a user's request: said in hfs.waiting, so that the drain
 * thread bounds its drain and lets the request in (hctx_drain_background()) */
static void user_lock(void)
{
	atomic_fetch_add(&hfs.waiting, 1);
	pthread_mutex_lock(&hfs.lock);
	atomic_fetch_sub(&hfs.waiting, 1);
}

enum kind {
	K_PASS,		/* the real file */
	K_PRIVATE,	/* one of our own instances: hidden */
	K_TRIGGER,	/* events/S/E/trigger: merged, commands routed */
	K_HIST,		/* events/S/E/hist */
	K_HIST_DEBUG,	/* events/S/E/hist_debug */
	K_SYNTH_EVENTS,	/* synthetic_events */
	K_DYN_EVENTS,	/* dynamic_events: merged */
	K_ERROR_LOG,	/* error_log: merged */
	K_README,	/* README: + the hist sections */
	K_SYN_DIR,	/* events/synthetic */
	K_SYN_EVENT,	/* events/synthetic/NAME */
	K_SYN_FILE,	/* events/synthetic/NAME/FILE */
	K_MARKER,	/* instances/NAME/trace_marker: also to our instance */
	K_SYN_SYS,	/* events/synthetic/enable, filter (the system's) */
};

/* files of events/synthetic/NAME/ */
static const char *const syn_files[] = {
	"enable", "filter", "format", "hist", "hist_debug", "id", "trigger", NULL,
};

struct route {
	enum kind kind;
	char rel[PATH_MAX];	/* path in the real tracefs, "." for the root */
	char inst[256];		/* instances/NAME, or "" */
	int in_inst;
	char sys[256], ev[256];	/* events/SYS/EV */
	const char *file;	/* the last component (K_SYN_FILE) */
};

/* An open file. */
struct fh {
	enum kind kind;
	int fd;			/* the real file, or -1 */
	int flags;
	struct route r;
	struct hfs_buf buf;	/* generated content */
	int have_buf;
	uint64_t seen;		/* K_HIST: the event's hits at open/last read */
	struct fuse_pollhandle *ph;	/* a poll waiting for more (under lock) */
	struct fh *next_poll;
	/* a poll of the real file that was not ready (hfs_real_poll()) */
	struct hfs_real_poll *rp;
};


/* Open hist files with a poll waiting (hfs.lock). */
static struct fh *pollers;

static int is_private(const char *name)
{
	size_t n = strlen(HFS_PROG ".");
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return !strncmp(name, HFS_PROG ".", n) && !strncmp(name + n, pid, strlen(pid)) &&
	       (name[n + strlen(pid)] == 0 || name[n + strlen(pid)] == '.');
}

/* Split PATH ("/a/b/c") into at most MAX components. */
static int split(const char *path, char comp[][256], int max)
{
	int n = 0;

	while (*path) {
		size_t k;

		while (*path == '/')
			path++;
		if (!*path)
			break;
		k = strcspn(path, "/");
		if (n == max || k >= 256)
			return -1;
		memcpy(comp[n], path, k);
		comp[n][k] = 0;
		n++;
		path += k;
	}
	return n;
}

static int route(const char *path, struct route *r)
{
	char comp[8][256];
	int n = split(path, comp, 8), i = 0;

	memset(r, 0, sizeof(r[0]));
	r->kind = K_PASS;
	if (n < 0)
		return -ENAMETOOLONG;
	while (*path == '/')
		path++;
	snprintf(r->rel, sizeof(r->rel), "%s", *path ? path : ".");
	if (n >= 2 && !strcmp(comp[0], "instances")) {
		if (is_private(comp[1])) {
			r->kind = K_PRIVATE;
			return 0;
		}
		snprintf(r->inst, sizeof(r->inst), "%s", comp[1]);
		r->in_inst = 1;
		i = 2;
	}
	n -= i;
	if (n == 1) {
		const char *f = comp[i];

		if (!strcmp(f, "error_log"))
			r->kind = K_ERROR_LOG;
		else if (!r->in_inst && !strcmp(f, "synthetic_events"))
			r->kind = K_SYNTH_EVENTS;
		else if (!r->in_inst && !strcmp(f, "dynamic_events"))
			r->kind = K_DYN_EVENTS;
		else if (!r->in_inst && !strcmp(f, "README"))
			r->kind = K_README;
		else if (!strcmp(f, "trace_marker"))
			r->kind = K_MARKER;
		return 0;
	}
	if (n < 2 || strcmp(comp[i], "events"))
		return 0;
	if (!r->in_inst && !strcmp(comp[i + 1], "synthetic")) {
		r->kind = n == 2 ? K_SYN_DIR : n == 3 ? K_SYN_EVENT : K_SYN_FILE;
		if (n >= 3)
			snprintf(r->ev, sizeof(r->ev), "%s", comp[i + 2]);
		/* the system's own files: tools (libtracefs) list a system
		 * only when it has an enable file */
		if (n == 3 && (!strcmp(comp[i + 2], "enable") || !strcmp(comp[i + 2], "filter"))) {
			r->kind = K_SYN_SYS;
			r->file = !strcmp(comp[i + 2], "enable") ? "enable" : "filter";
		}
		snprintf(r->sys, sizeof(r->sys), "synthetic");
		if (n == 4) {
			int j;

			for (j = 0; syn_files[j] && strcmp(syn_files[j], comp[i + 3]); j++)
				;
			r->file = syn_files[j];	/* NULL: no such file */
		} else if (n > 4) {
			r->file = NULL;
		}
		return 0;
	}
	if (n != 4)
		return 0;
	snprintf(r->sys, sizeof(r->sys), "%s", comp[i + 1]);
	snprintf(r->ev, sizeof(r->ev), "%s", comp[i + 2]);
	if (!strcmp(comp[i + 3], "trigger"))
		r->kind = K_TRIGGER;
	else if (!strcmp(comp[i + 3], "hist"))
		r->kind = K_HIST;
	else if (!strcmp(comp[i + 3], "hist_debug"))
		r->kind = K_HIST_DEBUG;
	return 0;
}

static const char *inst_name(const struct route *r)
{
	return r->in_inst ? r->inst : NULL;
}

/* The context of R's instance, if it has one (caller holds the lock). */
static struct hfs_ctx *ctx_of(const struct route *r)
{
	int err;

	return hctx_get(inst_name(r), 0, &err);
}

static int synth_exists(const char *name)
{
	struct hfs_ctx *c = hctx_get(NULL, 0, &(int){ 0 });
	char **v = hctx_synth_names(c);
	int found = 0;
	size_t i;

	for (i = 0; v && v[i]; i++)
		if (!name || !strcmp(v[i], name))
			found = 1;
	hctx_free_names(v);
	return found;
}

/* ---- attributes and directories ------------------------------------- */

static int real_stat(const char *rel, struct stat *st)
{
	int flags = AT_SYMLINK_NOFOLLOW | (strcmp(rel, ".") ? 0 : AT_EMPTY_PATH);

	if (fstatat(hfs.rootfd, strcmp(rel, ".") ? rel : "", st, flags))
		return -errno;
	return 0;
}

/* A file of ours: owned like the tracefs root, MODE, size 0. */
static int fake_stat(struct stat *st, mode_t mode)
{
	int ret = real_stat(".", st);

	if (ret)
		return ret;
	st->st_mode = mode;
	st->st_size = 0;
	st->st_nlink = S_ISDIR(mode) ? 2 : 1;
	st->st_blocks = 0;
	return 0;
}

/* The directory of R's event: does the real one exist? */
static int event_dir_exists(const struct route *r)
{
	char dir[PATH_MAX];
	struct stat st;
	size_t n = strlen(r->rel);

	while (n && r->rel[n - 1] != '/')
		n--;
	if (!n || n >= sizeof(dir))
		return 0;
	memcpy(dir, r->rel, n - 1);
	dir[n - 1] = 0;
	return real_stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

static int hfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct route r;
	int ret = route(path, &r), ok;

	(void)fi;
	if (ret)
		return ret;
	switch (r.kind) {
	case K_PRIVATE:
		return -ENOENT;
	case K_HIST:
	case K_HIST_DEBUG:
		if (!event_dir_exists(&r))
			return -ENOENT;
		return fake_stat(st, S_IFREG | 0440);
	case K_SYNTH_EVENTS:
		return fake_stat(st, S_IFREG | 0640);
	case K_SYN_DIR:
	case K_SYN_EVENT:
	case K_SYN_FILE:
	case K_SYN_SYS:
		if (r.kind == K_SYN_FILE && !r.file)
			return -ENOENT;
		user_lock();
		ok = synth_exists(r.kind == K_SYN_DIR || r.kind == K_SYN_SYS ? NULL : r.ev);
		pthread_mutex_unlock(&hfs.lock);
		if (!ok)
			return -ENOENT;
		if (r.kind == K_SYN_SYS)
			return fake_stat(st, S_IFREG | 0640);
		if (r.kind != K_SYN_FILE)
			return fake_stat(st, S_IFDIR | 0750);
		return fake_stat(st, S_IFREG | (!strcmp(r.file, "hist") ||
						!strcmp(r.file, "format") ||
						!strcmp(r.file, "id") ||
						!strcmp(r.file, "hist_debug") ? 0440 : 0640));
	default:
		return real_stat(r.rel, st);
	}
}

static int add(void *buf, fuse_fill_dir_t filler, const char *name)
{
	return filler(buf, name, NULL, 0, 0);
}

static int hfs_readdir(const char *path, void *buf, fuse_fill_dir_t filler,
		       off_t off, struct fuse_file_info *fi,
		       enum fuse_readdir_flags flags)
{
	struct route r;
	struct dirent *d;
	DIR *dp;
	int ret = route(path, &r), fd, has_trigger = 0, is_instances;
	char **names = NULL;
	size_t i;

	(void)off;
	(void)fi;
	(void)flags;
	if (ret)
		return ret;
	if (r.kind == K_PRIVATE)
		return -ENOENT;
	if (r.kind == K_SYN_DIR || r.kind == K_SYN_EVENT) {
		add(buf, filler, ".");
		add(buf, filler, "..");
		user_lock();
		names = hctx_synth_names(hctx_get(NULL, 0, &ret));
		pthread_mutex_unlock(&hfs.lock);
		ret = -ENOENT;
		for (i = 0; names && names[i]; i++) {
			if (r.kind == K_SYN_DIR) {
				add(buf, filler, names[i]);
				ret = 0;
			} else if (!strcmp(names[i], r.ev)) {
				for (i = 0; syn_files[i]; i++)
					add(buf, filler, syn_files[i]);
				ret = 0;
				break;
			}
		}
		if (r.kind == K_SYN_DIR) {
			add(buf, filler, "enable");
			add(buf, filler, "filter");
			ret = 0;
		}
		hctx_free_names(names);
		return ret;
	}
	fd = openat(hfs.rootfd, r.rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dp = fdopendir(fd);
	if (!dp) {
		close(fd);
		return -errno;
	}
	is_instances = !strcmp(r.rel, "instances");
	while ((d = readdir(dp))) {
		if (is_instances && is_private(d->d_name))
			continue;
		if (!strcmp(d->d_name, "trigger"))
			has_trigger = 1;
		if (add(buf, filler, d->d_name))
			break;
	}
	closedir(dp);
	/* the files of a kernel with hist triggers */
	{
		char comp[8][256];
		int n = split(path, comp, 8), base = r.in_inst ? 2 : 0;

		n -= base;
		if (n == 0 && !r.in_inst)
			add(buf, filler, "synthetic_events");
		if (n == 1 && !r.in_inst && !strcmp(comp[base], "events")) {
			user_lock();
			if (synth_exists(NULL))
				add(buf, filler, "synthetic");
			pthread_mutex_unlock(&hfs.lock);
		}
		if (n == 3 && !strcmp(comp[base], "events") && has_trigger) {
			add(buf, filler, "hist");
			add(buf, filler, "hist_debug");
		}
	}
	return 0;
}

static int hfs_mkdir(const char *path, mode_t mode)
{
	struct route r;
	int ret = route(path, &r);

	if (ret)
		return ret;
	if (r.kind != K_PASS)
		return -EEXIST;
	return mkdirat(hfs.rootfd, r.rel, mode) ? -errno : 0;
}

static int hfs_rmdir(const char *path)
{
	struct route r;
	int ret = route(path, &r);
	char comp[8][256];

	if (ret)
		return ret;
	if (r.kind == K_PRIVATE)
		return -ENOENT;
	if (r.kind != K_PASS)
		return -EPERM;
	/* instances/NAME: its hist state and private instance go first */
	if (split(path, comp, 8) == 2 && r.in_inst) {
		user_lock();
		hctx_drop(r.inst);
		pthread_mutex_unlock(&hfs.lock);
	}
	return unlinkat(hfs.rootfd, r.rel, AT_REMOVEDIR) ? -errno : 0;
}

static int hfs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct route r;
	int ret = route(path, &r), fd;

	(void)size;
	if (ret)
		return ret;
	if (fi)
		return 0;	/* O_TRUNC is handled by open (atomic_o_trunc) */
	if (r.kind == K_PRIVATE)
		return -ENOENT;
	fd = openat(hfs.rootfd, r.rel, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return r.kind == K_PASS ? -errno : 0;
	close(fd);
	return 0;
}

static int hfs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct route r;
	int ret = route(path, &r);

	(void)fi;
	if (ret)
		return ret;
	if (r.kind != K_PASS && r.kind != K_TRIGGER)
		return -EPERM;
	return fchmodat(hfs.rootfd, r.rel, mode, 0) ? -errno : 0;
}

static int hfs_utimens(const char *path, const struct timespec tv[2],
		       struct fuse_file_info *fi)
{
	struct route r;
	int ret = route(path, &r);

	(void)fi;
	if (ret)
		return ret;
	if (r.kind == K_PRIVATE)
		return -ENOENT;
	if (r.kind != K_PASS)
		return 0;
	return utimensat(hfs.rootfd, r.rel, tv, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/* ---- open, read, write ---------------------------------------------- */

static int writing(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY;
}

/* the libhist side of a truncating open of a merged or virtual file */
static int open_trunc(struct fh *h)
{
	struct hfs_ctx *c;
	hist_event *ev;
	int ret = 0;

	user_lock();
	c = ctx_of(&h->r);
	switch (h->kind) {
	case K_TRIGGER:
	case K_SYN_FILE:
		if (h->kind == K_SYN_FILE && strcmp(h->r.file, "trigger"))
			break;
		ev = hctx_known_event(c, h->r.sys, h->r.ev);
		if (ev) {
			ret = hist_trigger_truncate(ev);
			if (!ret)
				hctx_rebind(c);
		}
		break;
	case K_SYNTH_EVENTS:
	case K_DYN_EVENTS:
		if (c)
			ret = hist_synth_truncate(c->ctx);
		hfs_syn_filter_prune(c);
		break;
	case K_ERROR_LOG:
		if (c)
			hist_ctx_clear_error_log(c->ctx);
		if (!h->r.in_inst)
			hctx_old_synth_clear();
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&hfs.lock);
	return ret;
}

/*
 * Poll on a hist file, as the kernel's: readable (POLLIN, POLLPRI) once
 * a hist trigger of the event counted a hit since the file was opened or
 * last read.  The drain thread wakes the waiting polls.
 */
static hist_event *hist_ev(const struct fh *h, struct hfs_ctx **cp)
{
	struct hfs_ctx *c = ctx_of(&h->r);

	*cp = c;
	return hctx_known_event(c, h->r.sys, h->r.ev);
}

/* The event's hits, all its hist triggers together (hfs.lock). */
static uint64_t event_hits(hist_event *ev)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; ev && i < hist_event_nr_hists(ev); i++) {
		int err;
		hist_reader *r = hist_reader_create(ev, i, &err);

		if (r) {
			n += hist_reader_info(r)->hits;
			hist_reader_destroy(r);
		}
	}
	return n;
}

static void unpoll(struct fh *h)
{
	struct fh **pp;

	for (pp = &pollers; *pp; pp = &(*pp)->next_poll)
		if (*pp == h) {
			*pp = h->next_poll;
			break;
		}
	if (h->ph)
		fuse_pollhandle_destroy(h->ph);
	h->ph = NULL;
}

/* After a drain of C: wake the polls whose event counted hits. */
static void wake_pollers(struct hfs_ctx *c)
{
	struct fh *h, *next;

	for (h = pollers; h; h = next) {
		struct hfs_ctx *hc;
		hist_event *ev;

		next = h->next_poll;
		ev = hist_ev(h, &hc);
		if (hc != c || event_hits(ev) == h->seen)
			continue;
		fuse_notify_poll(h->ph);
		unpoll(h);
	}
}

static int hfs_poll(const char *path, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph, unsigned *reventsp)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;
	struct hfs_ctx *c;
	hist_event *ev;

	(void)path;
	if (h->kind != K_HIST)
		return hfs_real_poll(h->fd, &h->rp, ph, reventsp);
	user_lock();
	ev = hist_ev(h, &c);
	hctx_drain(c);
	if (event_hits(ev) != h->seen) {
		*reventsp = POLLIN | POLLRDNORM | POLLPRI;
		if (ph)
			fuse_pollhandle_destroy(ph);
	} else {
		*reventsp = 0;
		if (ph) {
			if (h->ph) {
				fuse_pollhandle_destroy(h->ph);
			} else {
				h->next_poll = pollers;
				pollers = h;
			}
			h->ph = ph;
		}
	}
	pthread_mutex_unlock(&hfs.lock);
	return 0;
}

static int hfs_open(const char *path, struct fuse_file_info *fi)
{
	struct fh *h = calloc(1, sizeof(*h));
	int ret, real = 0, ok = 1;

	if (!h)
		return -ENOMEM;
	h->fd = -1;
	h->flags = fi->flags;
	ret = route(path, &h->r);
	if (ret)
		goto fail;
	h->kind = h->r.kind;
	switch (h->kind) {
	case K_PRIVATE:
		ret = -ENOENT;
		goto fail;
	case K_HIST:
	case K_HIST_DEBUG:
		if (!event_dir_exists(&h->r)) {
			ret = -ENOENT;
			goto fail;
		}
		/* a writer the modes let in opens it, as the kernel's
		 * read-only files (format, id); its writes fail */
		break;
	case K_SYN_DIR:
	case K_SYN_EVENT:
		ret = -EISDIR;
		goto fail;
	case K_SYN_FILE:
		user_lock();
		ok = h->r.file && synth_exists(h->r.ev);
		pthread_mutex_unlock(&hfs.lock);
		if (!ok) {
			ret = -ENOENT;
			goto fail;
		}
		break;
	case K_SYNTH_EVENTS:
		break;
	case K_SYN_SYS:
		user_lock();
		ok = synth_exists(NULL);
		pthread_mutex_unlock(&hfs.lock);
		if (!ok) {
			ret = -ENOENT;
			goto fail;
		}
		break;
	default:
		real = 1;
		break;
	}
	if (writing(fi->flags) && (fi->flags & O_TRUNC)) {
		ret = open_trunc(h);
		if (ret)
			goto fail;
	}
	if (real) {
		h->fd = openat(hfs.rootfd, h->r.rel,
			       (fi->flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC);
		if (h->fd < 0) {
			ret = -errno;
			goto fail;
		}
	}
	if (h->kind == K_HIST) {
		struct hfs_ctx *c;

		hist_event *ev;

		/* hits recorded before the open are not news */
		user_lock();
		ev = hist_ev(h, &c);
		hctx_drain(c);
		h->seen = event_hits(ev);
		pthread_mutex_unlock(&hfs.lock);
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
fail:
	free(h);
	return ret;
}

static int hfs_release(const char *path, struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;

	(void)path;
	user_lock();
	unpoll(h);
	pthread_mutex_unlock(&hfs.lock);
	hfs_real_poll_free(h->rp);
	if (h->fd >= 0)
		close(h->fd);
	hfs_buf_free(&h->buf);
	free(h);
	return 0;
}

int hfs_read_real(int fd, struct hfs_buf *b)
{
	char tmp[65536];
	off_t off = 0;

	for (;;) {
		ssize_t k = pread(fd, tmp, sizeof(tmp), off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return 0;
		if (hfs_buf_write(b, tmp, (size_t)k))
			return -ENOMEM;
		off += k;
	}
}

/*
 * The trigger file: the kernel's triggers, then libhist's; with none at
 * all, the kernel's "# Available triggers:" header with the hist
 * triggers added.  EV: libhist's event, if any.
 */
static int gen_trigger(struct fh *h, hist_event *ev, struct hfs_buf *out)
{
	struct hfs_buf k = { 0 }, lib = { 0 };
	int ret = h->fd >= 0 ? hfs_read_real(h->fd, &k)
		  : hfs_kheader[0] ? hfs_buf_write(&k, hfs_kheader, strlen(hfs_kheader)) : 0;

	if (!ret && ev)
		ret = hist_event_print_triggers(ev, hfs_buf_write, &lib);
	if (ret)
		goto out;
	if (lib.p && lib.p[0] != '#') {
		if (k.p && k.p[0] != '#')
			hfs_buf_write(out, k.p, k.len);
		hfs_buf_write(out, lib.p, lib.len);
	} else if (k.p && k.p[0] == '#') {
		/* "# Available triggers:\n# traceon ... disable_event\n" */
		char *nl = strchr(k.p, '\n');
		char *end = nl ? strchr(nl + 1, '\n') : NULL;

		if (end) {
			hfs_buf_write(out, k.p, (size_t)(end - k.p));
			if (!strstr(k.p, " hist"))
				hfs_buf_printf(out, " enable_hist disable_hist hist");
			hfs_buf_write(out, end, k.len - (size_t)(end - k.p));
		} else {
			hfs_buf_write(out, k.p, k.len);
		}
	} else if (k.p) {
		hfs_buf_write(out, k.p, k.len);
	} else if (lib.p) {
		hfs_buf_write(out, lib.p, lib.len);
	}
	ret = out->oom ? -ENOMEM : 0;
out:
	hfs_buf_free(&k);
	hfs_buf_free(&lib);
	return ret;
}

/* What the kernel reports lost, after the hist text (as hist-live),
 * and what histfs read but skipped to answer in time (hctx_drain()). */
static void lost_note(struct hfs_ctx *c, struct hfs_buf *out)
{
	uint64_t lost = c && c->ring ? ring_lost(c->ring) : 0;

	if (lost)
		hfs_buf_printf(out, "\n# %llu events lost by the kernel\n",
			       (unsigned long long)lost);
	if (c && c->skipped)
		hfs_buf_printf(out, "%s# %llu events skipped by histfs (they came faster "
			       "than it could count them)\n", lost ? "" : "\n",
			       (unsigned long long)c->skipped);
}

static int generate(struct fh *h, struct hfs_buf *out)
{
	struct hfs_ctx *c;
	struct hfs_buf k = { 0 };
	hist_event *ev;
	int ret = 0;

	user_lock();
	c = ctx_of(&h->r);
	switch (h->kind) {
	case K_TRIGGER:
		ret = gen_trigger(h, hctx_known_event(c, h->r.sys, h->r.ev), out);
		break;
	case K_HIST:
	case K_HIST_DEBUG:
		hctx_drain(c);
		ev = hctx_known_event(c, h->r.sys, h->r.ev);
		if (ev && h->kind == K_HIST)
			h->seen = event_hits(ev);
		if (ev && h->kind == K_HIST)
			ret = hist_event_print_hist(ev, hfs_buf_write, out);
		else if (ev)
			ret = hist_event_print_hist_debug(ev, hfs_buf_write, out);
		if (!ret && ev && h->kind == K_HIST && hist_event_nr_hists(ev))
			lost_note(c, out);
		if (!ret && h->kind == K_HIST)
			ret = hctx_old_err_print(out);
		break;
	case K_SYNTH_EVENTS:
		if (c)
			ret = hist_synth_print(c->ctx, 0, hfs_buf_write, out);
		break;
	case K_DYN_EVENTS:
		ret = hfs_read_real(h->fd, out);
		if (!ret && c)
			ret = hist_synth_print(c->ctx, 1, hfs_buf_write, out);
		break;
	case K_ERROR_LOG:
		ret = hfs_read_real(h->fd, &k);
		if (!ret)
			ret = hctx_error_log(c, k.p ? k.p : "", !h->r.in_inst, out);
		break;
	case K_README:
		ret = hfs_read_real(h->fd, out);
		if (!ret)
			ret = hfs_buf_write(out, hctx_readme_hist(),
					    strlen(hctx_readme_hist()));
		break;
	case K_SYN_SYS:
		/* synthetic events are never recorded in the kernel's buffer */
		ret = hfs_buf_printf(out, !strcmp(h->r.file, "enable") ? "0\n" : "none\n");
		break;
	case K_SYN_FILE:
		if (!c)
			break;
		ev = hist_event_lookup(c->ctx, "synthetic", h->r.ev);
		if (!strcmp(h->r.file, "format")) {
			ret = hist_synth_print_format(c->ctx, h->r.ev, hfs_buf_write, out);
		} else if (!strcmp(h->r.file, "id")) {
			const struct hist_event_desc *d = ev ? hist_event_desc(ev) : NULL;

			ret = hfs_buf_printf(out, "%u\n", d ? d->id : 0);
		} else if (!strcmp(h->r.file, "enable")) {
			ret = hfs_buf_printf(out, "0\n");
		} else if (!strcmp(h->r.file, "filter")) {
			const char *f = hfs_syn_filter(h->r.ev, ev);

			ret = hfs_buf_write(out, f ? f : "none", strlen(f ? f : "none"));
			if (!ret)
				ret = hfs_buf_write(out, "\n", 1);
		} else if (!strcmp(h->r.file, "trigger")) {
			ret = gen_trigger(h, ev, out);
		} else if (!strcmp(h->r.file, "hist")) {
			hctx_drain(c);
			ret = ev ? hist_event_print_hist(ev, hfs_buf_write, out) : 0;
			/* its hits come from the kernel's events: their losses
			 * are its own */
			if (!ret && ev && hist_event_nr_hists(ev))
				lost_note(c, out);
			if (!ret)
				ret = hctx_old_err_print(out);
		} else {
			hctx_drain(c);
			ret = ev ? hist_event_print_hist_debug(ev, hfs_buf_write, out) : 0;
		}
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&hfs.lock);
	hfs_buf_free(&k);
	if (!ret && out->oom)
		ret = -ENOMEM;
	return ret > 0 ? -ret : ret;
}

static int hfs_read(const char *path, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;
	ssize_t k;
	int ret;

	(void)path;
	if (h->kind == K_PASS || h->kind == K_MARKER) {
		k = pread(h->fd, buf, size, off);
		if (k < 0 && errno == ESPIPE)
			k = read(h->fd, buf, size);
		return k < 0 ? -errno : (int)k;
	}
	/* seq_file: a read from the start shows the file as it is now */
	if (!h->have_buf || off == 0) {
		hfs_buf_free(&h->buf);
		ret = generate(h, &h->buf);
		if (ret)
			return ret;
		h->have_buf = 1;
	}
	if ((size_t)off >= h->buf.len)
		return 0;
	if (size > h->buf.len - (size_t)off)
		size = h->buf.len - (size_t)off;
	memcpy(buf, h->buf.p + off, size);
	return (int)size;
}

static int write_trigger(struct fh *h, const char *buf, size_t size)
{
	char *cmd = hfs_command(buf, size);
	struct hist_error herr = { 0, -1, 0, 0 };
	struct hfs_ctx *c;
	hist_event *ev;
	int ret, err = 0;

	if (!cmd)
		return -ENOMEM;
	if (h->kind == K_TRIGGER && (!*cmd || !hctx_is_hist_cmd(cmd))) {
		ssize_t k;

		free(cmd);
		k = write(h->fd, buf, size);
		return k < 0 ? -errno : (int)k;
	}
	if (!*cmd) {
		free(cmd);
		return (int)size;
	}
	if (h->kind == K_SYN_FILE && !hctx_is_hist_cmd(cmd) && (ret = hfs_syn_generic(cmd))) {
		if (ret == -EOPNOTSUPP && !hfs.quiet)
			fprintf(stderr, HFS_PROG ": %s: histfs cannot run '%s' at a synthetic "
				"event of its own\n", h->r.rel, cmd);
		free(cmd);
		return ret;
	}
	user_lock();
	c = hctx_get(inst_name(&h->r), 1, &err);
	ev = c ? hist_event_lookup(c->ctx, h->r.sys, h->r.ev) : NULL;
	/* enable_hist and disable_hist are other commands to the kernel */
	if (!strncmp(cmd + (*cmd == '!'), "hist", 4))
		hctx_old_err_start(cmd);
	if (!c)
		ret = err;
	else if (!ev)
		ret = -ENOENT;
	else
		ret = hist_trigger_parse(ev, cmd, &herr);
	if (!strncmp(cmd + (*cmd == '!'), "hist", 4))
		hctx_old_err_end(ret, &herr);
	if (!ret)
		hctx_rebind(c);
	pthread_mutex_unlock(&hfs.lock);
	if (ret && !hfs.quiet && !c)
		fprintf(stderr, HFS_PROG ": %s: %s\n", h->r.rel, strerror(ret < 0 ? -ret : ret));
	else if (ret && !hfs.quiet && !ev)
		fprintf(stderr, HFS_PROG ": %s: libhist does not know %s/%s\n", h->r.rel,
			h->r.sys, h->r.ev);
	free(cmd);
	return ret ? (ret > 0 ? -ret : ret) : (int)size;
}

struct line_arg {
	struct fh *h;
	struct hfs_ctx *c;	/* the top level's, once needed */
};

/* One command of a write_lines() write (hfs.lock held). */
static int write_line(void *arg, char *cmd)
{
	struct line_arg *la = arg;
	int synth = la->h->kind == K_SYNTH_EVENTS, err = 0, ret;

	if (!synth) {
		/* "-:NAME" is libhist's when NAME is a synthetic event */
		char **names = strncmp(cmd, "-:", 2) && cmd[0] != 'e' ? NULL :
			       hctx_synth_names(hctx_get(NULL, 0, &err));

		synth = hfs_dyn_is_synth(cmd, names);
		/* an eprobe on a synthetic event of libhist: the kernel
		 * cannot attach to an event it does not have, and the
		 * eprobe's records would have to reach the kernel's trace
		 * buffer, which histfs cannot write for another task */
		if (hfs_dyn_is_synth_eprobe(cmd, names)) {
			hctx_free_names(names);
			if (!hfs.quiet)
				fprintf(stderr, HFS_PROG ": dynamic_events: %s: an eprobe on a "
					"synthetic event of histfs is not supported\n", cmd);
			return -EOPNOTSUPP;
		}
		hctx_free_names(names);
	}
	if (synth) {
		const char *def = cmd;

		/* a definition, as an older kernel given by --kernel took it */
		if (la->h->kind == K_DYN_EVENTS && !strncmp(def, "s:", 2)) {
			def += 2;
			if (!strncmp(def, "synthetic/", 10))
				def += 10;
		}
		if (*def != '!' && strncmp(def, "-:", 2) && (ret = hctx_old_synth(def)))
			return ret;
		if (!la->c)
			la->c = hctx_get(NULL, 1, &err);
		ret = la->c ? hist_synth_parse(la->c->ctx, cmd,
					       la->h->kind == K_DYN_EVENTS, NULL)
			    : err;
		hfs_syn_filter_prune(la->c);
		return ret > 0 ? -ret : ret;
	} else {
		ssize_t k = write(la->h->fd, cmd, strlen(cmd));

		return k < 0 ? -errno : 0;
	}
}

/*
 * synthetic_events and dynamic_events take one command a line; in
 * dynamic_events, the lines of synthetic events ("s:", "-:" of one) are
 * libhist's and every other line is written to the kernel's file.
 */
static int write_lines(struct fh *h, const char *buf, size_t size)
{
	struct line_arg la = { h, NULL };
	int ret;

	user_lock();
	ret = hfs_each_line(buf, size, h->kind == K_SYNTH_EVENTS, write_line, &la);
	pthread_mutex_unlock(&hfs.lock);
	return ret ? ret : (int)size;
}

static int write_syn_file(struct fh *h, const char *buf, size_t size)
{
	struct hist_error herr = { 0, -1, 0, 0 };
	char *cmd;
	struct hfs_ctx *c;
	hist_event *ev;
	int ret = 0;

	if (!strcmp(h->r.file, "trigger"))
		return write_trigger(h, buf, size);
	if (strcmp(h->r.file, "enable") && strcmp(h->r.file, "filter"))
		return -EINVAL;	/* format, id, hist, hist_debug: as K_HIST */
	cmd = hfs_command(buf, size);
	if (!cmd)
		return -ENOMEM;
	user_lock();
	c = ctx_of(&h->r);
	ev = c ? hist_event_lookup(c->ctx, "synthetic", h->r.ev) : NULL;
	if (!ev)
		ret = -ENOENT;
	else if (!strcmp(h->r.file, "filter"))
		hfs_syn_filter_set(h->r.ev, ev, cmd, ret = hist_event_set_filter(ev, cmd, &herr),
				   &herr);
	else if (strcmp(cmd, "0") && strcmp(cmd, "1"))
		ret = -EINVAL;
	else if (!strcmp(cmd, "1"))
		/* its records would go to the kernel's buffer, which histfs
		 * cannot write: refused rather than a trace that stays empty */
		ret = -EOPNOTSUPP;
	pthread_mutex_unlock(&hfs.lock);
	free(cmd);
	if (ret > 0)
		ret = -ret;
	return ret ? ret : (int)size;
}

/*
 * A write to trace_marker.  FUSE makes it a write of histfs's thread, so
 * the kernel's ftrace/print record carries our pid; the writer's pid is
 * queued (hctx_marker()) and given back to the record libhist sees.
 * Writes are serialised (hfs.lock) so records and queue keep one order.
 * The top level's record reaches our instance by copy_trace_marker; for
 * an instance, the same text is also written to our instance for it.
 */
static int write_marker(struct fh *h, const char *buf, size_t size)
{
	struct fuse_context *fc = fuse_get_context();
	int32_t tid = (int32_t)gettid(), pid = fc ? (int32_t)fc->pid : tid;
	struct hfs_ctx *c;
	char p[PATH_MAX];
	ssize_t k;
	int fd = -1;

	user_lock();
	c = ctx_of(&h->r);
	/* the kernel runs print's triggers before it appends a missing
	 * newline (tracing_mark_write) */
	if (c)
		hctx_marker(c, tid, pid, size && buf[size - 1] != '\n');
	k = write(h->fd, buf, size);
	if (k < 0) {
		k = -errno;
		if (c)
			hctx_marker_undo(c);
	} else if (c && h->r.in_inst) {
		fd = open(tfs_path(&c->tfs, "trace_marker", p, sizeof(p)), O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, buf, (size_t)k) < 0) {
			hctx_marker_undo(c);
			if (!hfs.quiet)
				fprintf(stderr, HFS_PROG ": %s: %s\n", p, strerror(errno));
		}
		if (fd >= 0)
			close(fd);
	}
	pthread_mutex_unlock(&hfs.lock);
	return (int)k;
}

static int hfs_write(const char *path, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;
	ssize_t k;

	(void)path;
	switch (h->kind) {
	case K_TRIGGER:
		return write_trigger(h, buf, size);
	case K_SYNTH_EVENTS:
	case K_DYN_EVENTS:
		return write_lines(h, buf, size);
	case K_SYN_FILE:
		return write_syn_file(h, buf, size);
	case K_SYN_SYS:
		/* see write_syn_file(): enabling is refused, the rest is
		 * nothing to do */
		if (!strcmp(h->r.file, "enable") && size && buf[0] == '1')
			return -EOPNOTSUPP;
		return (int)size;
	case K_HIST:
	case K_HIST_DEBUG:
		return -EINVAL;	/* the kernel's, for a file without a write */
	case K_MARKER:
		return write_marker(h, buf, size);
	default:
		k = pwrite(h->fd, buf, size, off);
		if (k < 0 && errno == ESPIPE)
			k = write(h->fd, buf, size);
		return k < 0 ? -errno : (int)k;
	}
}

static int hfs_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	return fstatvfs(hfs.rootfd, st) ? -errno : 0;
}

/* ---- mount, the drain thread, shutdown -------------------------------- */

static pthread_t drain_thread;
/* set by hfs_destroy(), read by the drain thread */
static atomic_int stopping;

/* Keep the private buffers from overflowing between hist reads. */
static void *drain_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&stopping)) {
		struct hfs_ctx *c;

		pthread_mutex_lock(&hfs.lock);
		for (c = hfs.ctxs; c; c = c->next) {
			if (c->nr_enabled)
				hctx_drain_background(c);
			if (pollers)
				wake_pollers(c);
		}
		pthread_mutex_unlock(&hfs.lock);
		usleep(100000);
	}
	return NULL;
}

static void *hfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->use_ino = 0;
	pthread_create(&drain_thread, NULL, drain_main, NULL);
	return NULL;
}

/* Unmount (fusermount -u, umount, SIGTERM through libfuse's handler):
 * remove every private instance. */
static void hfs_destroy(void *data)
{
	(void)data;
	atomic_store(&stopping, 1);
	pthread_join(drain_thread, NULL);
	pthread_mutex_lock(&hfs.lock);
	hctx_drop_all();
	hfs_syn_filter_prune(NULL);
	free(hfs.old_err);
	free(hfs.old_cmd);
	hfs.old_err = hfs.old_cmd = NULL;
	hctx_old_synth_clear();
	pthread_mutex_unlock(&hfs.lock);
}

static const struct fuse_operations ops = {
	.getattr = hfs_getattr,
	.readdir = hfs_readdir,
	.mkdir = hfs_mkdir,
	.rmdir = hfs_rmdir,
	.truncate = hfs_truncate,
	.chmod = hfs_chmod,
	.utimens = hfs_utimens,
	.open = hfs_open,
	.release = hfs_release,
	.read = hfs_read,
	.write = hfs_write,
	.statfs = hfs_statfs,
	.poll = hfs_poll,
	.init = hfs_init,
	.destroy = hfs_destroy,
};

static const char usage_text[] =
	"usage: " HFS_PROG " [-f] [-q] [--tracefs DIR] MOUNTPOINT [-o FUSE-OPTIONS]\n"
	"\n"
	"Mount tracefs at MOUNTPOINT with the hist-trigger files of a kernel\n"
	"built with CONFIG_HIST_TRIGGERS (events/*/*/hist, synthetic_events,\n"
	"...), served by libhist.  MOUNTPOINT may be the tracefs mount itself.\n"
	"\n"
	"  -f                  stay in the foreground\n"
	"  --tracefs DIR       the real tracefs (default: the mounted one)\n"
	"  --kernel VERSION    accept, reject, log and print as Linux VERSION\n"
	"                      (latest, 6.1, 6.12; default: the running one;\n"
	"                      4.17 to 5.1: also the hist files' ERROR lines)\n"
	"  -o OPTIONS          FUSE mount options\n"
	"  -q, --quiet         no messages\n"
	"  -h, --help          this text\n"
	"      --version       print the version\n";

/* The real tracefs: DIR, or the first tracefs mount. */
static int find_tracefs(const char *dir, char *out, size_t len)
{
	FILE *f;
	char dev[256], mnt[PATH_MAX], type[64];
	int found = 0;

	if (dir) {
		snprintf(out, len, "%s", dir);
		return 0;
	}
	f = fopen("/proc/mounts", "r");
	if (!f)
		return -1;
	while (!found && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, mnt, type) == 3)
		if (!strcmp(type, "tracefs")) {
			snprintf(out, len, "%s", mnt);
			found = 1;
		}
	fclose(f);
	return found ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "tracefs", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "kernel", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	const char *kernel = NULL;
	struct utsname u;
	const char *tracefs = NULL, *fuse_opts = NULL, *mnt;
	char dir[PATH_MAX];
	char *fargv[16];
	int fargc = 0, foreground = 0, c, ret;
	struct statfs sfs;

	while ((c = getopt_long(argc, argv, "fqho:", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			foreground = 1;
			break;
		case 'q':
			hfs.quiet = 1;
			break;
		case 'o':
			fuse_opts = optarg;
			break;
		case 't':
			tracefs = optarg;
			break;
		case 'k':
			kernel = optarg;
			if (hist_kernel_parse(kernel, &hfs.kernel)) {
				fprintf(stderr, HFS_PROG ": --kernel wants latest, 6.1, 6.12 "
					"or a release, got '%s'\n", kernel);
				return 2;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			printf(HFS_PROG " (libhist) %s\n", hist_version());
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	mnt = argv[optind];
	/* behave as a kernel of this release with hist triggers would */
	if (!kernel && (uname(&u) || hist_kernel_parse(u.release, &hfs.kernel)))
		hfs.kernel = HIST_KERNEL_LATEST;
	if (find_tracefs(tracefs, dir, sizeof(dir))) {
		fprintf(stderr, HFS_PROG ": no tracefs mounted (--tracefs DIR)\n");
		return 3;
	}
	/* opened before the mount: MOUNTPOINT may hide it */
	hfs.rootfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (hfs.rootfd < 0 || fstatfs(hfs.rootfd, &sfs) ||
	    (unsigned long)sfs.f_type != 0x74726163 /* TRACEFS_MAGIC */) {
		fprintf(stderr, HFS_PROG ": %s: not a tracefs\n", dir);
		return 3;
	}
	snprintf(hfs.root, sizeof(hfs.root), "/proc/self/fd/%d", hfs.rootfd);
	hfs_read_kernel_header();
	/* a histfs killed with SIGKILL left its instances recording every
	 * event its triggers needed, for ever: the next one removes them */
	tfs_reap(hfs.root, HFS_PROG, 0);
	fargv[fargc++] = argv[0];
	fargv[fargc++] = (char *)mnt;
	if (foreground)
		fargv[fargc++] = "-f";
	fargv[fargc++] = "-o";
	/*
	 * Every user the kernel lets in, not only root: FUSE refuses all
	 * other users unless allow_other (which only root may give without
	 * user_allow_other in fuse.conf), and default_permissions then
	 * checks the modes histfs reports, the real files' own.
	 */
	fargv[fargc++] = geteuid() ? "fsname=histfs,subtype=histfs,default_permissions"
				   : "fsname=histfs,subtype=histfs,default_permissions,allow_other";
	if (fuse_opts) {
		fargv[fargc++] = "-o";
		fargv[fargc++] = (char *)fuse_opts;
	}
	fargv[fargc] = NULL;
#ifdef __GLIBC__
	/*
	 * Every trigger add allocates its tables in whichever FUSE thread
	 * took the write, and a removal frees them.  With glibc's default of
	 * an arena per thread and its mmap threshold raised by every large
	 * free, the freed tables stayed in those arenas: malloc_stats() after
	 * 90 s of bench/soak.sh's changes showed 25.5 MB taken from the
	 * system for 16.5 MB in use, two thread arenas holding 2.9 MB each
	 * for under 0.2 MB, and the soak's RSS crept 7 MB in ten minutes.
	 * One arena (every libhist call is under hfs.lock anyway) and a fixed
	 * threshold, so that large tables go back to the system when freed.
	 */
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	ret = fuse_main(fargc, fargv, &ops, NULL);
	return ret ? 1 : 0;
}
