// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * pages.c: a large debug file's pages given back once read.  A file is
 * mapped the way libdwfl maps one (private, writable), read whole, then
 * walked: its resident pages go back (the whole file's at the walk's
 * end), and what it holds reads the same after.  A mapping with a page
 * of its own (written), memory that is no file's, and a section too
 * small to matter are never given back.  And the heap is grown ahead in
 * huge pages only in a command's own process (dt_own_process), once.
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/engine/internal.h"
#include "tap.h"
#include "../frontend/env.h"
#include "../frontend/process.h"

#define MB (1024 * 1024)
#define FILE_SIZE (48 * MB)
#define PAGE 4096

/* Resident kB of the mapping that starts at map (its smaps "Rss:"). */
static long rss_kb(const void *map)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	bool inside = false;
	long kb = -1;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			inside = start == (uintptr_t)map;
		else if (inside && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	if (f)
		fclose(f);
	return kb;
}

/* Every page of p[0..len) read (made resident); the pages' first words
 * hold their index in the file: false when one does not. */
static bool read_all(const uint8_t *p, size_t len)
{
	bool good = true;

	for (size_t off = 0; off < len; off += PAGE) {
		uint64_t v;
		memcpy(&v, p + off, sizeof(v));
		good &= v == off / PAGE;
	}
	return good;
}

static void walk(struct debug_pages *p, const uint8_t *lo, size_t len)
{
	for (size_t off = 0; off < len; off += MB)
		pages_walked(p, lo + off);
	pages_walked(p, NULL);
}

/* Whether the mapping holding addr has the VmFlags flag ("hg": asked
 * for transparent huge pages). */
static __attribute__((unused)) bool vm_flag(const void *addr, const char *flag)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	bool inside = false, has = false;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			inside = start <= (uintptr_t)addr && (uintptr_t)addr < end;
		else if (inside && !strncmp(line, "VmFlags:", 8)) {
			for (char *t = strtok(line + 8, " \n"); t; t = strtok(NULL, " \n"))
				has |= !strcmp(t, flag);
			break;
		}
	}
	if (f)
		fclose(f);
	return has;
}

/* The heap of a kernel's session, in a command's own process: grown once
 * ahead in huge pages by frontend_tune_heap, the callback such a command passes
 * (the library never calls it by itself: unit-host). */
static void heap(void)
{
	char *before = sbrk(0);

	frontend_tune_heap(NULL, 200 * MB);
	char *grown = sbrk(0);
#ifdef __SANITIZE_ADDRESS__
	ok(grown == before, "under ASan (no heap of malloc's): left alone");
#else
	ok(grown - before >= 128 * MB, "a command's own: the heap grown ahead by %ld MB",
	   (long)((grown - before) / MB));
	ok(vm_flag(grown - 1, "hg"), "in transparent huge pages (MADV_HUGEPAGE)");
	void *p = malloc(8 * MB);
	ok(p && (char *)p >= before && (char *)p < grown,
	   "an 8 MB array comes from it, not a mapping of its own");
	free(p);
#endif
	frontend_tune_heap(NULL, 200 * MB);
	ok(sbrk(0) == grown, "once per process");
}

int main(void)
{
	char path[] = "/tmp/dtprof-pages-XXXXXX";
	int fd = mkstemp(path);
	struct debug_pages p;

	heap();
	if (fd < 0)
		return skip_all("cannot make a file in /tmp"), 0;
	unlink(path);
	for (size_t off = 0; off < FILE_SIZE; off += PAGE) {
		uint64_t v = off / PAGE;
		if (pwrite(fd, &v, sizeof(v), (off_t)off) != sizeof(v))
			return skip_all("cannot write the file"), 0;
	}
	if (ftruncate(fd, FILE_SIZE))
		return skip_all("cannot size the file"), 0;
	uint8_t *map = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return skip_all("cannot map the file"), 0;
	uint8_t *info = map + MB;	/* a section inside the file */
	size_t info_len = 40 * MB;

	/* a walk gives back what it passed */
	ok(read_all(map, FILE_SIZE), "the file reads whole");
	ok(rss_kb(map) >= FILE_SIZE / 1024 - 64, "resident: %ld kB", rss_kb(map));
	pages_init(&p, info, info_len, frontend_give_back_pages, NULL);
	walk(&p, info, info_len);
	long after = rss_kb(map);
	ok(after < 1024, "the walk gave its section back, and at its end the rest of "
	   "the file (other sections it read): %ld kB resident", after);
	ok(read_all(map, FILE_SIZE), "and the file still reads the same");

	/* answers give the whole mapping back, looking every thousand or so
	 * whether more than a budget of files was mapped in since */
	ok(rss_kb(map) >= FILE_SIZE / 1024 - 64, "read again: %ld kB", rss_kb(map));
	p.mapped_budget = 1024 * MB;
	for (int i = 0; i < PAGES_ANSWER_STEP; i++)
		pages_answered(&p);
	ok(rss_kb(map) >= FILE_SIZE / 1024 - 64, "%d answers, under a budget of 1 GB: "
	   "kept, %ld kB", PAGES_ANSWER_STEP, rss_kb(map));
	p.mapped_budget = 16 * MB;
	for (int i = 0; i < PAGES_ANSWER_STEP - 1; i++)
		pages_answered(&p);
	ok(rss_kb(map) >= FILE_SIZE / 1024 - 64, "over a budget of 16 MB, %d answers "
	   "later: not yet, %ld kB", PAGES_ANSWER_STEP - 1, rss_kb(map));
	pages_answered(&p);
	ok(rss_kb(map) < 1024, "%d answers later, the mapping is given back: %ld kB",
	   PAGES_ANSWER_STEP, rss_kb(map));
	ok(read_all(map, FILE_SIZE), "and reads the same");

	/* a page written (libdwfl relocating in place) is the process's own:
	 * nothing is given back any more */
	map[5 * MB + 100] = 0xab;
	walk(&p, info, info_len);
	for (int i = 0; i < PAGES_ANSWER_STEP; i++)
		pages_answered(&p);
	ok(rss_kb(map) >= FILE_SIZE / 1024 - 64, "with a page written: %ld kB stay",
	   rss_kb(map));
	is_int(map[5 * MB + 100], 0xab, "the written byte stays");
	pages_init(&p, info, info_len, frontend_give_back_pages, NULL);
	walk(&p, info, info_len);
	ok(rss_kb(map) >= FILE_SIZE / 1024 - 64, "set up again, still not: %ld kB",
	   rss_kb(map));
	munmap(map, FILE_SIZE);

	/* a section too small to matter is left alone */
	map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	ok(map != MAP_FAILED && read_all(map, FILE_SIZE), "mapped again, read whole");
	pages_init(&p, map, 16 * MB, frontend_give_back_pages, NULL);
	walk(&p, map, 16 * MB);
	ok(rss_kb(map) >= FILE_SIZE / 1024 - 64, "16 MB of .debug_info: kept (%ld kB)",
	   rss_kb(map));
	munmap(map, FILE_SIZE);
	close(fd);

	/* memory no file holds (a decompressed section) is never dropped:
	 * its pages would read back as zeros */
	uint8_t *heap = mmap(NULL, info_len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ok(heap != MAP_FAILED, "anonymous memory");
	for (size_t off = 0; off < info_len; off += PAGE) {
		uint64_t v = off / PAGE;
		memcpy(heap + off, &v, sizeof(v));
	}
	pages_init(&p, heap, info_len, frontend_give_back_pages, NULL);
	walk(&p, heap, info_len);
	for (int i = 0; i < PAGES_ANSWER_STEP; i++)
		pages_answered(&p);
	ok(read_all(heap, info_len), "its contents survive walks and answers");
	return done_testing();
}
