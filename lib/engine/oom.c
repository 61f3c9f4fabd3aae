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
 * that takes a signal handler, which is the host's to decide: its
 * handler calls dt_oom_escape(), which jumps back to the guard only
 * while one is set and an allocation of the guarded call has failed
 * (errno ENOMEM: the call starts at 0); any other abort, malloc's
 * corruption checks included, stays the host's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

OOM_TLS struct oom_guard *oom_current;
static OOM_TLS bool from_handler;	/* the jump left SIGABRT blocked */

void dt_oom_escape(void)
{
	if (oom_current && errno == ENOMEM) {
		from_handler = true;
		siglongjmp(oom_current->env, 1);
	}
}

__attribute__((noreturn)) static void dwarf_oom(void)
{
	if (oom_current)
		siglongjmp(oom_current->env, 1);
	abort();
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
	if (s->oom.said)
		return;
	s->oom.said = true;
	session_warn(s, "out of memory resolving in '%s': its samples count as "
		     "no_memory from here on", s->path);
}

void oom_caught(struct dt_session *s)
{
	sigset_t abrt;

	/* a jump out of the host's handler left SIGABRT blocked, as it was
	 * not before the abort */
	if (from_handler) {
		from_handler = false;
		sigemptyset(&abrt);
		sigaddset(&abrt, SIGABRT);
		pthread_sigmask(SIG_UNBLOCK, &abrt, NULL);
	}
	if (!s->oom.no_memory && !s->oom.said)
		session_warn(s, "out of memory reading the debug info of '%s': "
			     "its samples count as no_memory from here on", s->path);
	s->oom.said = true;
	s->oom.no_memory = true;
	s->oom.libdw_left = true;
}
