// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The process-wide actions a front end may choose (process.h).  A
 * kernel's indexes and answers fault in 120 MB of heap, 4 kB at a time
 * (30,000 faults, and a TLB miss for most lookups of the indexes); with
 * the heap grown ahead in huge pages, large arrays kept in it and freed
 * memory kept for the next allocation, a vmlinux run faulted 18,700
 * times instead of 41,000 and took 7% less CPU.  Linked into dtresolve,
 * which owns its process, never into the plugin.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/dtprof.h"
#include "process.h"

#define HEAP_AHEAD (256u << 20)		/* the heap grown ahead, at most */
#define HEAP_STEP (16u << 20)		/* in blocks below the mmap threshold */
#define HUGE_PAGE (2u << 20)

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

static atomic_bool heap_grown;

void frontend_tune_heap(void *arg, uint64_t bytes)
{
	void *block[HEAP_AHEAD / HEAP_STEP];
	size_t n = 0;

	(void)arg;
	(void)bytes;
	if (atomic_exchange(&heap_grown, true))
		return;
#ifdef SANITIZED
	return;		/* ASan's allocator: no heap to grow, a quarantine to fill */
#endif
	/* arrays below 32 MB from the heap, and freed memory kept in it */
	if (!mallopt(M_MMAP_THRESHOLD, 32 << 20) || !mallopt(M_TRIM_THRESHOLD, 1 << 30))
		return;
	int saved = errno;	/* a heap that cannot grow is no error here */
	char *lo = sbrk(0);
	while (n < HEAP_AHEAD / HEAP_STEP && (block[n] = malloc(HEAP_STEP)))
		n++;
	while (n)
		free(block[--n]);	/* the top of the heap, not given back */
	char *hi = sbrk(0);
	uintptr_t from = ((uintptr_t)lo + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (lo != (char *)-1 && hi != (char *)-1 && (uintptr_t)hi > from)
		madvise((void *)from, (uintptr_t)hi - from, MADV_HUGEPAGE);
	errno = saved;
}

#ifndef SANITIZED
static struct sigaction previous_abort;

static void on_abort(int sig)
{
	dt_oom_escape();	/* returns unless the abort is libdw's OOM */
	/* not ours: as if we were not there */
	sigaction(SIGABRT, &previous_abort, NULL);
	raise(sig);
}
#endif

static void install_abort_handler(void)
{
#ifndef SANITIZED
	struct sigaction sa = { .sa_handler = on_abort };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGABRT, &sa, &previous_abort);
#endif
}

void frontend_catch_libdw_aborts(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, install_abort_handler);
}
