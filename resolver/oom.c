// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Out of memory inside libdw.  libdw's own allocator calls an OOM handler
 * that exits the process, and some of its tables assert on a failed
 * allocation (SIGABRT): either would kill perf around the plugin.  While
 * a library call runs under a guard (OOM_GUARD in internal.h), both jump
 * back to it instead: the call answers no_memory, and the session, whose
 * DWARF state may be half-updated, answers no_memory from then on, and
 * at its close that state is left as it is, not ended: libdw 0.192's
 * table of per-thread allocators is NULL after a failed realloc while its
 * count is not, and dwarf_end would read it (a crash inside perf, seen
 * in t8003 with the plugin's two threads).
 * Outside a guard, and in sanitizer builds (their reports abort), nothing
 * changes: an abort is an abort.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

OOM_TLS struct oom_guard *oom_current;

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

#ifndef SANITIZED
static struct sigaction previous_abort;

static void on_abort(int sig)
{
	if (oom_current)
		siglongjmp(oom_current->env, 1);
	/* not ours: as if we were not there */
	sigaction(SIGABRT, &previous_abort, NULL);
	raise(sig);
}
#endif

__attribute__((noreturn)) static void dwarf_oom(void)
{
	if (oom_current)
		siglongjmp(oom_current->env, 1);
	abort();
}

static void install_abort_handler(void)
{
#ifndef SANITIZED
	struct sigaction sa = { .sa_handler = on_abort };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGABRT, &sa, &previous_abort);
#endif
}

void oom_watch(struct dt_session *s)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, install_abort_handler);
	if (s->dwarf)
		dwarf_new_oom_handler(s->dwarf, dwarf_oom);
}

/* glibc's malloc grows its heap with brk, and when brk cannot grow, with
 * mmap: the allocation succeeds, and errno is left ENOMEM.  Under valgrind
 * (its brk segment is 8 MB) that follows nearly every allocation once the
 * heap is past it, and every answer would be no_memory; there errno says
 * nothing, and out of memory is what libdw's handler and its asserts say
 * (and valgrind's own, which stops the run). */
bool oom_errno_says(void)
{
	static _Atomic int says = -1;
	int v = atomic_load_explicit(&says, memory_order_relaxed);

	if (v < 0) {
		const char *preload = getenv("LD_PRELOAD");
		v = !(preload && strstr(preload, "/vgpreload_"));
		atomic_store_explicit(&says, v, memory_order_relaxed);
	}
	return v;
}

void oom_said(struct dt_session *s)
{
	if (s->oom_said)
		return;
	s->oom_said = true;
	session_warn(s, "out of memory resolving in '%s': its samples count as "
		     "no_memory from here on", s->path);
}

void oom_caught(struct dt_session *s)
{
	sigset_t abrt;

	/* the jump left the handler with SIGABRT blocked */
	sigemptyset(&abrt);
	sigaddset(&abrt, SIGABRT);
	sigprocmask(SIG_UNBLOCK, &abrt, NULL);
	if (!s->no_memory && !s->oom_said)
		session_warn(s, "out of memory reading the debug info of '%s': "
			     "its samples count as no_memory from here on", s->path);
	s->oom_said = true;
	s->no_memory = true;
	s->libdw_left = true;
}
