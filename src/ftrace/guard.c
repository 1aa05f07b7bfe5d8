/* SPDX-License-Identifier: MIT */
/*
 * Files that shrink under their mapping.
 *
 * hist_tracedat_open() maps the file.  When another process truncates it
 * (`truncate -s`, a recorder rewriting it), every read of a page past the
 * new end raises SIGBUS, in the reader, the prefetch worker or the
 * caller's field accessors reading a record.  The guard turns that into
 * an error of the record stream:
 *
 *   - one process-wide SIGBUS handler (installed at the first guarded
 *     open) looks the faulting address up in a table of guarded mappings;
 *   - on a hit it maps anonymous zero pages over the rest of that mapping
 *     (MAP_FIXED, same protection), records the file offset of the fault
 *     in the reader and returns: the faulting load runs again and reads
 *     zeros, which every bounded parser of the reader survives;
 *   - hist_tracedat_next() reports the fault as an error once, then the
 *     walk ends (stream.c).
 *
 * A fault outside every guarded mapping goes to the handler that was
 * installed before ours, or kills the process as SIGBUS always did.  A
 * handler the program installs after its first hist_tracedat_open()
 * replaces ours (documented in hist_ftrace.h).  When the table is full
 * the file is read into memory instead (tracedat.c).
 *
 * The table: SLOTS entries; a slot is claimed with a CAS on `busy`, then
 * len and td are stored and `start` is published last (release); the
 * handler reads `start` (acquire) before the others.  Unguarding clears
 * `start` before the mapping goes away, so a handler never trusts a slot
 * whose mapping was unmapped (a fault can only come from a live mapping).
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pthread.h>

#include "ftrace_int.h"

#define SLOTS 64

static struct guard_slot {
	uintptr_t start;	/* 0: free or being filled */
	size_t len;		/* mapping length rounded up to pages */
	struct hist_tracedat *td;
	int busy;
} slots[SLOTS];

static struct sigaction old_action;
static uintptr_t page_size;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int installed;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	int i;

	for (i = 0; si->si_code > 0 && i < SLOTS; i++) {
		/* pairs with the release store of hist__map_guard() */
		uintptr_t s = hist__load_acquire(&slots[i].start);
		size_t len;
		uintptr_t pg;

		if (!s)
			continue;
		len = hist__load_relaxed(&slots[i].len);
		if (a - s >= len)
			continue;
		pg = a & ~(page_size - 1);
		if (mmap((void *)pg, s + len - pg, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			break;
		/* the reader sees it at its next hist_tracedat_next(); the
		 * offset only feeds the message */
		hist__store_relaxed(&slots[i].td->bus_fault, (uint64_t)(pg - s) + 1);
		return;
	}
	/* not ours: as if we were not there */
	if (old_action.sa_flags & SA_SIGINFO) {
		old_action.sa_sigaction(sig, si, uc);
	} else if (old_action.sa_handler == SIG_DFL ||
		   old_action.sa_handler == SIG_IGN) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGBUS, &dfl, NULL);
		/* a fault repeats when we return; a sent signal does not */
		if (si->si_code <= 0)
			raise(sig);
	} else {
		old_action.sa_handler(sig);
	}
}

static void install(void)
{
	struct sigaction sa;

	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	installed = sigaction(SIGBUS, &sa, &old_action) == 0;
}

int hist__map_guard(struct hist_tracedat *td)
{
	int i;

	if (pthread_once(&install_once, install) || !installed)
		return -1;
	for (i = 0; i < SLOTS; i++) {
		int zero = 0;

		/* claims the slot: no one else fills it until busy is 0 */
		if (!hist__cas_acq_rel(&slots[i].busy, &zero, 1))
			continue;
		slots[i].td = td;
		hist__store_relaxed(&slots[i].len,
				    (td->map_len + page_size - 1) & ~(page_size - 1));
		td->guard_slot = i + 1;
		/* publishes td and len to the handler's acquire load */
		hist__store_release(&slots[i].start, (uintptr_t)td->map);
		return 0;
	}
	return -1;
}

void hist__map_unguard(struct hist_tracedat *td)
{
	int i = td->guard_slot - 1;

	if (i < 0)
		return;
	/* before munmap(): a handler that still sees start sees a live map */
	hist__store_release(&slots[i].start, 0);
	hist__store_release(&slots[i].busy, 0);
	td->guard_slot = 0;
}
