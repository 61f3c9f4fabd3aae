// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A large debug file's pages, given back once read.  The walk of every
 * unit (unitwalk.c: the indexes of containers, statics and functions)
 * reads all of .debug_info once, in file order: 166 MB of a kernel's, and
 * a stream of questions over a kernel reads most of what is left; all of
 * it would stay in the process's resident set for the rest of the run.
 * When the file is mapped and no page of the mapping was ever written,
 * the pages the walk has passed, the whole mapping at the walk's end (the
 * ranges, strings and locations it read), and the whole mapping again
 * whenever the process has mapped in more than 96 MB of files since (it
 * looks every 1,024 answers), are given back (MADV_DONTNEED): they stay
 * in the page cache, and those the next answers read fault back in from
 * there.  On a vmlinux run that is 15,000 page faults at 207 MB peak;
 * giving the mapping back every 8,192 answers instead faulted 18,700
 * times at 189 MB, never giving it back 10,300 times at 305 MB.  A mapping with a page
 * of its own (libdwfl relocates a .ko's sections in place) or a section
 * libelf decompressed into memory is never touched: dropping such pages
 * would lose or zero them.
 *
 * This file finds the pages; giving them back is the host's act, through
 * the session's give_back_pages callback (the front ends' madvise,
 * frontend/process.c): the mapping is libelf's, of the session's own
 * file, but what is resident is the host's concern.  Without the
 * callback nothing is given back.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pages.h"

#define WALK_STEP (32u << 20)		/* bytes walked between give-backs */
#define PAGEMAP_BATCH 512		/* entries read at once */

/* The process's resident pages of files (and shared memory): statm's
 * third field; -1 when it cannot be read. */
static long resident_file_pages(void)
{
	char buf[128];
	long size, resident, shared;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%ld %ld %ld", &size, &resident, &shared) == 3 ? shared : -1;
}

/* The private file mapping holding [lo, hi), in *map_lo, *map_hi, when
 * no page of it is the process's own (Anonymous: 0 kB); else false. */
static bool clean_file_mapping(uintptr_t lo, uintptr_t hi, uintptr_t *map_lo,
			       uintptr_t *map_hi)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	bool inside = false, clean = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, inode, kb;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &start, &end, perms,
			   &inode) == 4) {
			if (inside)
				break;		/* no Anonymous line: not sure */
			inside = start <= lo && hi <= end && perms[0] == 'r' &&
				 perms[3] == 'p' && inode != 0;
			*map_lo = start;
			*map_hi = end;
		} else if (inside && sscanf(line, "Anonymous: %lu kB", &kb) == 1) {
			clean = kb == 0;
			break;
		}
	}
	fclose(f);
	return clean;
}

void pages_init(struct debug_pages *p, const void *info, size_t len,
		void (*give)(void *arg, void *addr, size_t len), void *give_arg)
{
	uintptr_t lo = (uintptr_t)info;

	*p = (struct debug_pages){ .give = give, .give_arg = give_arg };
	if (!info || !give || len <= LARGE_DEBUG_INFO ||
	    !clean_file_mapping(lo, lo + len, &p->map_lo, &p->map_hi)) {
		p->map_hi = 0;
		return;
	}
	p->info_lo = p->walk_from = lo;
	p->info_hi = lo + len;
	p->mapped_budget = PAGES_MAPPED_BUDGET;
	p->file_pages = resident_file_pages();
}

/* Whether the pages [a, b) hold one of the process's own (a copy a write
 * made, or one swapped out): their entries in /proc/self/pagemap, which
 * costs the range's page tables where smaps reads every mapping's (2% of
 * a kernel run).  1 or 0; -1 when pagemap cannot be read. */
static int own_pages(uintptr_t a, uintptr_t b, uintptr_t page)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t e[PAGEMAP_BATCH];
	int own = 0;

	if (fd < 0)
		return -1;
	for (uintptr_t at = a; at < b && !own;) {
		size_t want = (b - at) / page;
		if (want > PAGEMAP_BATCH)
			want = PAGEMAP_BATCH;
		ssize_t got = pread(fd, e, want * sizeof(*e),
				    (off_t)(at / page * sizeof(*e)));
		if (got <= 0 || got % (ssize_t)sizeof(*e)) {
			own = -1;
			break;
		}
		for (size_t i = 0; i < (size_t)got / sizeof(*e) && !own; i++) {
			bool present = e[i] >> 63 & 1, swapped = e[i] >> 62 & 1,
			     file = e[i] >> 61 & 1;
			if (swapped || (present && !file))
				own = 1;
		}
		at += (size_t)got / sizeof(*e) * page;
	}
	close(fd);
	return own;
}

/* Gives back the whole pages of [lo, hi), if they are still the file's. */
static void give_back(struct debug_pages *p, uintptr_t lo, uintptr_t hi)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), map_lo, map_hi;
	uintptr_t a = (lo + page - 1) & ~(page - 1), b = hi & ~(page - 1);

	if (a >= b)
		return;
	int own = own_pages(a, b, page);
	if (own < 0)
		own = !clean_file_mapping(a, b, &map_lo, &map_hi);
	if (own) {
		p->map_hi = 0;		/* written since: never again */
		return;
	}
	p->give(p->give_arg, (void *)a, b - a);
}

void pages_walked(struct debug_pages *p, const void *at)
{
	uintptr_t x = (uintptr_t)at;

	if (!p->map_hi)
		return;
	if (!at) {			/* the walk is over: what it read of
					 * the other sections (ranges, strings,
					 * locations) goes too */
		give_back(p, p->map_lo, p->map_hi);
		p->walk_from = p->info_lo;
		p->file_pages = resident_file_pages();
		return;
	}
	if (x < p->info_lo || x > p->info_hi)
		return;
	if (x < p->walk_from)		/* another walk began */
		p->walk_from = p->info_lo;
	if (x - p->walk_from >= WALK_STEP) {
		give_back(p, p->walk_from, x);
		p->walk_from = x;
	}
}

void pages_answered(struct debug_pages *p)
{
	if (!p->map_hi || ++p->answers < PAGES_ANSWER_STEP)
		return;
	p->answers = 0;
	long now = resident_file_pages();
	if (now >= 0 && p->file_pages >= 0 &&
	    (size_t)(now > p->file_pages ? now - p->file_pages : 0) *
	    (size_t)sysconf(_SC_PAGESIZE) < p->mapped_budget)
		return;		/* under the budget: kept */
	give_back(p, p->map_lo, p->map_hi);
	p->file_pages = resident_file_pages();
}
