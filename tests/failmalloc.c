// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Test helper, LD_PRELOADed by t8003: after the first DT_FAIL_AFTER
 * allocations, the next DT_FAIL_COUNT (default: all) fail (malloc,
 * calloc, realloc return NULL with ENOMEM), so each run meets out of
 * memory at another place, for good or for a while.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
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
	if (left == -1) {
		const char *e = getenv("DT_FAIL_AFTER");
		left = e ? atol(e) : -2;
	}
	if (left == -2)
		return 0;
	if (left == 0) {
		if (failures == -1) {
			const char *e = getenv("DT_FAIL_COUNT");
			failures = e ? atol(e) : -2;
		}
		if (failures == 0)
			return 0;	/* the pressure is over */
		if (failures > 0)
			failures--;
		errno = ENOMEM;
		return 1;
	}
	left--;
	return 0;
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
