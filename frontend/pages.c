// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The front ends' give_back_pages callback: a large debug file's pages,
 * read and rarely read again, given back (they stay in the page cache).
 * The library finds them (lib/dwarf/pages.c), the host decides: a vmlinux
 * run peaked at 207 MB with them given back, 305 MB without.
 */
#include <sys/mman.h>

#include "env.h"

void frontend_give_back_pages(void *arg, void *addr, size_t len)
{
	(void)arg;
	madvise(addr, len, MADV_DONTNEED);
}
