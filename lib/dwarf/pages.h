/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A large debug file's pages, found once read, for the host to give back
 * (pages.c).
 */
#ifndef DTPROF_DWARF_PAGES_H
#define DTPROF_DWARF_PAGES_H

#include <stddef.h>
#include <stdint.h>

/* A large debug file has more .debug_info than this (Debian's vmlinux:
 * 174 MB; perf, libc: 6 MB): dt_session_prepare() leaves it to the
 * answers that need its indexes, and pages.c gives its pages back. */
#define LARGE_DEBUG_INFO (32ull << 20)

/* A large debug file's mapping, and the pages of it given back. */
struct debug_pages {
	uintptr_t map_lo, map_hi;	/* the mapping; map_hi 0: never given
					 * back (small, copied or written) */
	uintptr_t info_lo, info_hi;	/* its .debug_info */
	uintptr_t walk_from;		/* the current walk's part not given
					 * back yet */
	unsigned answers;		/* answers since the last look */
	long file_pages;		/* the process's resident file pages
					 * at the last give-back */
	size_t mapped_budget;		/* bytes of files mapped in since,
					 * at most (PAGES_MAPPED_BUDGET) */
	void (*give)(void *arg, void *addr, size_t len);	/* the host's */
	void *give_arg;
};
/* For .debug_info's data info[0..len), pages given back through give
 * (NULL: never): nothing of a file with no more than LARGE_DEBUG_INFO. */
void pages_init(struct debug_pages *p, const void *info, size_t len,
		void (*give)(void *arg, void *addr, size_t len), void *give_arg);
/* A walk of every unit has reached at (NULL: its end). */
void pages_walked(struct debug_pages *p, const void *at);
/* An answer was made from the DWARF: every PAGES_ANSWER_STEP answers,
 * the whole mapping is given back if the process has mapped in more
 * than mapped_budget bytes of files since the last give-back. */
void pages_answered(struct debug_pages *p);
#define PAGES_ANSWER_STEP 1024
#define PAGES_MAPPED_BUDGET (96u << 20)

#endif
