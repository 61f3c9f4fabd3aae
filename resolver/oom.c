// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Out of memory inside libdw.  libdw's own allocator calls an OOM handler
 * that exits the process: set per Dwarf handle (dwarf_new_oom_handler),
 * ours jumps back to the guard (OOM_GUARD in internal.h) around the
 * library call instead, which answers no_memory.  The session, whose DWARF
 * state may be half-updated, answers no_memory from then on, and at its
 * close that state is left as it is, not ended: libdw 0.192's table of
 * per-thread allocators is NULL after a failed realloc while its count is
 * not, and dwarf_end would read it (a crash seen in t8003 with the
 * plugin's two threads).
 *
 * Some of libdw's tables also assert on a failed allocation (SIGABRT:
 * dynamicsizehash_concurrent.c's resize, with two threads).  Catching
 * that takes a signal handler, which is the front end's to decide
 * (dt_catch_libdw_aborts).  Then an abort jumps back to the guard only
 * while one is set and an allocation of the guarded call has failed
 * (errno ENOMEM: the call starts at 0); any other abort, malloc's
 * corruption checks included, and every abort in sanitizer builds
 * (their reports abort), goes to the handler that was there before.
 */
#include <errno.h>
#include <pthread.h>
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
	/* only an abort that follows a failed allocation in the guarded
	 * call (its errno: the call starts at 0); any other, malloc's own
	 * corruption checks included, is the crash it says it is */
	if (oom_current && errno == ENOMEM)
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

void dt_catch_libdw_aborts(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, install_abort_handler);
}

void oom_watch(struct dt_session *s)
{
	if (s->dwarf)
		dwarf_new_oom_handler(s->dwarf, dwarf_oom);
}

/* glibc's malloc grows its heap with brk, and when brk cannot grow, with
 * mmap: the allocation succeeds, and errno is left ENOMEM.  Under valgrind
 * (its brk segment is 8 MB) that follows nearly every allocation once the
 * heap is past it, and every answer would be no_memory; the host says so
 * (DT_SESSION_ERRNO_UNRELIABLE), and out of memory is then what libdw's
 * handler says (and valgrind's own, which stops the run). */
bool oom_errno_says(const struct dt_session *s)
{
	return !s->errno_unreliable;
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
