/* SPDX-License-Identifier: MIT */
/*
 * poll(2) of histfs's real files (histfs.h): the kernel's answer for the
 * file, also when it is not ready yet.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "histfs.h"

/*
 * A poll of a real file that is not ready (trace_pipe, trace_pipe_raw
 * with nothing recorded): FUSE wants the answer at once and a
 * notification later, so a thread waits in poll(2) on the real file and
 * notifies.  One at a time per open file; PH is the newest poll's.
 */
struct hfs_real_poll {
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct fuse_pollhandle *ph;
	int waiting;	/* a waiter thread runs */
	int stop;	/* release: the waiter leaves without notifying */
	int wake[2];	/* a pipe the release writes to */
	int fd;
};

#define POLL_ANY (POLLIN | POLLRDNORM | POLLPRI | POLLOUT | POLLWRNORM)

static void *wait_real(void *arg)
{
	struct hfs_real_poll *rp = arg;
	struct fuse_pollhandle *ph;
	struct pollfd p[2] = { { rp->fd, POLL_ANY, 0 }, { rp->wake[0], POLLIN, 0 } };

	while (poll(p, 2, -1) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&rp->lock);
	ph = rp->stop ? NULL : rp->ph;
	if (ph)
		rp->ph = NULL;
	pthread_mutex_unlock(&rp->lock);
	/* the kernel asks again, and hfs_real_poll() then finds it ready */
	if (ph) {
		fuse_notify_poll(ph);
		fuse_pollhandle_destroy(ph);
	}
	pthread_mutex_lock(&rp->lock);
	rp->waiting = 0;
	pthread_cond_broadcast(&rp->done);
	pthread_mutex_unlock(&rp->lock);
	return NULL;
}

int hfs_real_poll(int fd, struct hfs_real_poll **rpp, struct fuse_pollhandle *ph,
		  unsigned *reventsp)
{
	struct pollfd p = { fd, POLL_ANY, 0 };
	struct hfs_real_poll *rp;
	pthread_attr_t attr;
	pthread_t t;
	int ret = 0;

	if (fd < 0 || poll(&p, 1, 0) != 0 || !ph) {
		/* a file of ours: as tracefs's own, ready at once */
		*reventsp = fd < 0 ? POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM
				   : (unsigned)p.revents;
		if (ph)
			fuse_pollhandle_destroy(ph);
		return 0;
	}
	*reventsp = 0;
	rp = *rpp;
	if (!rp) {
		rp = calloc(1, sizeof(*rp));
		if (!rp || pipe2(rp->wake, O_CLOEXEC)) {
			free(rp);
			fuse_pollhandle_destroy(ph);
			return -ENOMEM;
		}
		pthread_mutex_init(&rp->lock, NULL);
		pthread_cond_init(&rp->done, NULL);
		rp->fd = fd;
		*rpp = rp;
	}
	pthread_mutex_lock(&rp->lock);
	if (rp->ph)
		fuse_pollhandle_destroy(rp->ph);
	rp->ph = ph;
	if (!rp->waiting) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &attr, wait_real, rp)) {
			rp->ph = NULL;
			fuse_pollhandle_destroy(ph);
			ret = -EAGAIN;
		} else {
			rp->waiting = 1;
		}
		pthread_attr_destroy(&attr);
	}
	pthread_mutex_unlock(&rp->lock);
	return ret;
}

void hfs_real_poll_free(struct hfs_real_poll *rp)
{
	if (!rp)
		return;
	pthread_mutex_lock(&rp->lock);
	rp->stop = 1;
	/* one byte into an empty pipe: it cannot fail, and the waiter
	 * reads nothing (its poll sees the pipe readable and leaves) */
	if (rp->waiting) {
		ssize_t k = write(rp->wake[1], "x", 1);

		(void)k;
	}
	while (rp->waiting)
		pthread_cond_wait(&rp->done, &rp->lock);
	if (rp->ph)
		fuse_pollhandle_destroy(rp->ph);
	pthread_mutex_unlock(&rp->lock);
	close(rp->wake[0]);
	close(rp->wake[1]);
	pthread_mutex_destroy(&rp->lock);
	pthread_cond_destroy(&rp->done);
	free(rp);
}
