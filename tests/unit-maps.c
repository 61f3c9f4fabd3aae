// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Process maps from PERF_RECORD_MMAP lines: lookups, re-mmap over part of
 * a mapping, exec, fork, threads, the kernel's maps, lines without a pid.
 */
#include "../tools/dtresolve/maps.h"
#include "tap.h"

static const char *find(struct dt_maps *m, int pid, uint64_t a, uint64_t *off)
{
	return dt_maps_find(m, pid, a, off);
}

int main(void)
{
	struct dt_maps *m;
	uint64_t off = 0;

	if (!ok(dt_maps_new(&m) == 0, "maps"))
		return done_testing();
	dt_maps_add(m, 10, 0x555000001000, 0x1000, 0x1000, "/bin/a", 6);
	dt_maps_add(m, 10, 0x7f0000000000, 0x10000, 0, "/lib/b.so", 9);
	dt_maps_add(m, -1, 0xffffffff81000000, 0x1000000, 0xffffffff81000000,
		    "[kernel.kallsyms]_text", 22);

	is_str(find(m, 10, 0x555000001136, &off), "/bin/a", "pid 10 text");
	is_int(off, 0x1136, "file offset = addr - start + pgoff");
	is_str(find(m, 10, 0x7f0000000010, &off), "/lib/b.so", "shared library");
	ok(find(m, 10, 0x555000002000, &off) == NULL, "end is exclusive");
	ok(find(m, 11, 0x555000001136, &off) == NULL, "another pid sees nothing of it");
	is_str(find(m, 11, 0xffffffff81000010, &off), "[kernel.kallsyms]_text",
	       "every pid sees the kernel");
	is_int(off, 0xffffffff81000010, "kernel offset is the runtime address");
	is_str(find(m, -1, 0x555000001136, &off), "/bin/a",
	       "a line without a pid finds the process that maps it");

	/* re-mmap punching a hole in the middle of b.so */
	dt_maps_add(m, 10, 0x7f0000004000, 0x1000, 0x9000, "/lib/c.so", 9);
	is_str(find(m, 10, 0x7f0000003fff, &off), "/lib/b.so", "left of the hole");
	is_str(find(m, 10, 0x7f0000004010, &off), "/lib/c.so", "the new mapping");
	is_int(off, 0x9010, "its offset");
	is_str(find(m, 10, 0x7f0000005000, &off), "/lib/b.so", "right of the hole");
	is_int(off, 0x5000, "right part keeps its file offsets");
	/* covering several mappings at once */
	dt_maps_add(m, 10, 0x7f0000000000, 0x20000, 0, "/lib/d.so", 9);
	is_str(find(m, 10, 0x7f0000004010, &off), "/lib/d.so", "replaced whole");

	ok(dt_maps_fork(m, 12, 10) == 0, "fork");
	is_str(find(m, 12, 0x555000001136, &off), "/bin/a", "the child has the parent's maps");
	ok(dt_maps_fork(m, 10, 10) == 0, "a thread");
	is_str(find(m, 10, 0x555000001136, &off), "/bin/a", "a thread keeps the maps");
	dt_maps_exec(m, 12);
	ok(find(m, 12, 0x555000001136, &off) == NULL, "exec empties the process");
	is_str(find(m, 10, 0x555000001136, &off), "/bin/a", "and not its parent");
	ok(dt_maps_add(m, 10, 0x1000, 0, 0, "x", 1) < 0, "an empty mapping is refused");
	dt_maps_free(m);
	return done_testing();
}
