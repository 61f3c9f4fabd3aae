// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Test helper, LD_PRELOADed by t8003: after the first DT_FAIL_AFTER
 * allocations, the next DT_FAIL_COUNT (default: all) fail (malloc,
 * calloc, realloc return NULL with ENOMEM), so each run meets out of
 * memory at another place, for good or for a while.  A program can also
 * arm it from where its own test starts: dt_failmalloc_arm(after, count),
 * count -1 for good; dt_failmalloc_arm(-1, 0) disarms.  The counters are
 * atomic: the plugin allocates from two threads.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static long left = -1;		/* allocations still allowed; -2: no limit */
static long failures = -1;	/* failures still to make; -2: for good */
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
/* dlsym calls calloc before real_calloc is known */
static char boot[65536];
static size_t boot_used;

static int must_fail(void)
{
	long l = __atomic_load_n(&left, __ATOMIC_RELAXED);

	if (l == -1) {
		const char *e = getenv("DT_FAIL_AFTER");
		l = e ? atol(e) : -2;
		long unset = -1;
		if (!__atomic_compare_exchange_n(&left, &unset, l, false,
						 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			l = unset;
	}
	/* take one allowed allocation, unless none is left */
	while (l > 0 && !__atomic_compare_exchange_n(&left, &l, l - 1, false,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (l != 0)
		return 0;	/* allowed, or no limit (-2) */
	long f = __atomic_load_n(&failures, __ATOMIC_RELAXED);
	if (f == -1) {
		const char *e = getenv("DT_FAIL_COUNT");
		long unset = -1;
		f = e ? atol(e) : -2;
		if (!__atomic_compare_exchange_n(&failures, &unset, f, false,
						 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			f = unset;
	}
	while (f > 0 && !__atomic_compare_exchange_n(&failures, &f, f - 1, false,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (f == 0)
		return 0;	/* the pressure is over */
	errno = ENOMEM;
	return 1;
}

void dt_failmalloc_arm(long after, long count)
{
	__atomic_store_n(&failures, count < 0 ? -2 : count, __ATOMIC_RELAXED);
	__atomic_store_n(&left, after < 0 ? -2 : after, __ATOMIC_RELAXED);
}

static void init(void)
{
	if (real_malloc)
		return;
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
}

void *malloc(size_t n)
{
	init();
	return must_fail() ? NULL : real_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	if (!real_calloc) {
		size_t n = (a * b + 15) & ~(size_t)15;
		if (boot_used + n > sizeof(boot))
			return NULL;
		void *p = boot + boot_used;
		boot_used += n;
		memset(p, 0, a * b);
		return p;
	}
	return must_fail() ? NULL : real_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	init();
	return must_fail() ? NULL : real_realloc(p, n);
}

void free(void *p)
{
	if ((char *)p >= boot && (char *)p < boot + sizeof(boot))
		return;
	init();
	real_free(p);
}
