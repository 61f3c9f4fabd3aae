// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The heap map (lib/report/heap.c) block by block: an allocation's entry
 * and return paired on its thread, frees, realloc's moves, blocks found
 * by any byte they hold and by none past them, in their own process
 * only, across pages and in the list of huge ones; a block overlapped by
 * a newer one (a free never seen) gone.  Sites here have no binary: the
 * lookups show in the samples counted in their blocks.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/report/report.h"
#include "tap.h"

static struct dt_report *r;

static void ev(enum dt_alloc_event e, int32_t pid, int32_t tid, uint64_t size,
	       uint64_t ptr, bool resize, uint64_t site)
{
	struct dt_alloc a = { .sz = sizeof(a), .event = e, .pid = pid, .tid = tid,
			      .size = size, .ptr = ptr, .resize = resize,
			      .site_pc = site };
	if (dt_report_alloc(r, &a))
		ok(0, "dt_report_alloc");
}

static void alloc(int32_t pid, uint64_t ptr, uint64_t size, uint64_t site)
{
	ev(DT_ALLOC_ENTER, pid, pid, size, 0, false, 0);
	ev(DT_ALLOC_RETURN, pid, pid, 0, ptr, false, site);
}

/* The site of the block holding addr in pid (its pc), 0 when none: one
 * sample there, seen in the site's count. */
static uint64_t site_holding(int32_t pid, uint64_t addr)
{
	size_t n;
	const struct heap_site *s = heap_sites(r->heap, &n);
	uint64_t before[64] = { 0 };
	struct dt_answer ans;
	struct dt_sample smp = { .sz = sizeof(smp), .addr = addr, .pid = pid,
				 .has = DT_SAMPLE_ADDR | DT_SAMPLE_PID };

	for (size_t i = 0; i < n && i < 64; i++)
		before[i] = s[i].samples;
	dt_answer_miss(&ans, 0, DT_NO_VAR);
	dt_report_type_by_address(r, NULL, &ans, &smp);
	s = heap_sites(r->heap, &n);
	for (size_t i = 0; i < n && i < 64; i++)
		if (s[i].samples != before[i])
			return s[i].pc;
	return 0;
}

static struct heap_totals totals(void)
{
	struct heap_totals t;

	heap_totals(r->heap, &t);
	return t;
}

int main(void)
{
	if (dt_report_new(&r))
		return 1;
	alloc(1, 0x10000, 40, 0xa);
	alloc(1, 0x10ff0, 0x20, 0xb);		/* across a page boundary */
	alloc(2, 0x10000, 16, 0xc);		/* another process, one address */
	ok(site_holding(1, 0x10000) == 0xa && site_holding(1, 0x10027) == 0xa &&
	   site_holding(1, 0x10028) == 0, "a block holds its bytes, none past them");
	ok(site_holding(1, 0x10ff0) == 0xb && site_holding(1, 0x1100f) == 0xb &&
	   site_holding(1, 0x11010) == 0, "a block across a page boundary, found on both");
	ok(site_holding(2, 0x10008) == 0xc && site_holding(2, 0x10010) == 0 &&
	   site_holding(3, 0x10000) == 0, "each process's blocks its own");

	/* realloc: its old block goes, the new one is the realloc site's */
	ev(DT_ALLOC_ENTER, 1, 1, 100, 0x10000, true, 0);
	ev(DT_ALLOC_RETURN, 1, 1, 0, 0x20000, false, 0xd);
	ok(site_holding(1, 0x10000) == 0 && site_holding(1, 0x20063) == 0xd,
	   "realloc moved the block");
	/* entries and returns pair by thread, interleaved */
	ev(DT_ALLOC_ENTER, 1, 11, 8, 0, false, 0);
	ev(DT_ALLOC_ENTER, 1, 12, 24, 0, false, 0);
	ev(DT_ALLOC_RETURN, 1, 12, 0, 0x30000, false, 0xe);
	ev(DT_ALLOC_RETURN, 1, 11, 0, 0x30100, false, 0xf);
	ok(site_holding(1, 0x30017) == 0xe && site_holding(1, 0x30018) == 0 &&
	   site_holding(1, 0x30107) == 0xf, "two threads' calls paired each with its own");

	/* free, and a free of a block never seen */
	ev(DT_ALLOC_FREE, 1, 1, 0, 0x30000, false, 0);
	ev(DT_ALLOC_FREE, 1, 1, 0, 0x99990, false, 0);
	ok(site_holding(1, 0x30000) == 0 && totals().unmatched == 1,
	   "a freed block is gone; a free of an unknown one counted");

	/* a huge block (more than 16 pages), found anywhere in it */
	alloc(1, 0x100000, 1 << 20, 0x10);
	ok(site_holding(1, 0x100000) == 0x10 && site_holding(1, 0x1fffff) == 0x10 &&
	   site_holding(1, 0x200000) == 0, "a huge block holds its bytes");
	/* a block inside it: the huge one was freed unseen */
	alloc(1, 0x180000, 64, 0x11);
	ok(site_holding(1, 0x100000) == 0 && site_holding(1, 0x180000) == 0x11,
	   "a block overlapping an older one: the older one gone");
	/* a larger block over two small ones */
	alloc(1, 0x40000, 16, 0x12);
	alloc(1, 0x40020, 16, 0x13);
	alloc(1, 0x40000, 4096, 0x14);
	ok(site_holding(1, 0x40020) == 0x14 && totals().live == 6,
	   "a block over two older ones: both gone (%llu live)",
	   (unsigned long long)totals().live);
	/* a failed allocation, a return without its entry */
	ev(DT_ALLOC_ENTER, 1, 1, 8, 0, false, 0);
	ev(DT_ALLOC_RETURN, 1, 1, 0, 0, false, 0x15);
	ev(DT_ALLOC_RETURN, 1, 5, 0, 0x50000, false, 0x16);
	ok(site_holding(1, 0x50000) == 0 && totals().unmatched == 2,
	   "a failed allocation adds nothing; a return without its entry is counted");

	/* calls nest: operator new calling malloc, whose return is inside
	 * new; realloc of NULL jumping to malloc, both returns at the
	 * caller: the block is the outermost call's, at its site */
	uint64_t unmatched = totals().unmatched;
	ev(DT_ALLOC_ENTER, 1, 1, 48, 0, false, 0);
	ev(DT_ALLOC_ENTER, 1, 1, 48, 0, false, 0);
	ev(DT_ALLOC_RETURN, 1, 1, 0, 0x70000, false, 0x20);
	ev(DT_ALLOC_RETURN, 1, 1, 0, 0x70000, false, 0x21);
	ev(DT_ALLOC_ENTER, 1, 1, 24, 0, true, 0);
	ev(DT_ALLOC_ENTER, 1, 1, 24, 0, false, 0);
	ev(DT_ALLOC_RETURN, 1, 1, 0, 0x71000, false, 0x22);
	ev(DT_ALLOC_RETURN, 1, 1, 0, 0x71000, false, 0x22);
	ok(site_holding(1, 0x7002f) == 0x21 && site_holding(1, 0x71017) == 0x22 &&
	   totals().unmatched == unmatched,
	   "nested calls: the block is the outermost call's, at its site");

	/* a block past the address space: not followed, counted */
	alloc(1, UINT64_MAX - 8, 64, 0x18);
	ok(totals().refused == 1 && site_holding(1, UINT64_MAX - 4) == 0,
	   "a block past the address space is counted, not kept");

	/* an exec ends its process's blocks, not another's */
	alloc(3, 0x60000, 64, 0x17);
	ev(DT_ALLOC_EXEC, 1, 1, 0, 0, false, 0);
	ok(site_holding(1, 0x40020) == 0 && site_holding(1, 0x10ff0) == 0 &&
	   site_holding(3, 0x60000) == 0x17 && site_holding(2, 0x10000) == 0xc,
	   "an exec ends its process's blocks, and no other's");

	/* a wrapper that keeps a header before the block it returns (as
	 * SQLite's sqlite3MemMalloc): malloc's block inside its call, the
	 * wrapper's one 8 bytes in; the caller's type starts there, so the
	 * header is no part of any block, and nothing is typed from malloc's
	 * start */
	ev(DT_ALLOC_ENTER, 5, 5, 40, 0, false, 0);	/* the wrapper */
	alloc(5, 0x90000, 48, 0x31);			/* its malloc */
	ev(DT_ALLOC_RETURN, 5, 5, 0, 0x90008, false, 0x32);
	ok(site_holding(5, 0x90008) == 0x32 && site_holding(5, 0x9002f) == 0x32 &&
	   site_holding(5, 0x90000) == 0 && site_holding(5, 0x90007) == 0,
	   "a wrapper's block past a header: its caller's from its own start");
	struct heap_totals t0 = totals();
	ev(DT_ALLOC_FREE, 5, 5, 0, 0x90000, false, 0);	/* free(p - 8) */
	ok(site_holding(5, 0x90008) == 0 && totals().unmatched == t0.unmatched &&
	   totals().live == t0.live - 1,
	   "freed by its header's start, as the wrapper frees it: gone");
	/* a chain over a header wrapper (sqlite3DbMallocRawNN over
	 * sqlite3Malloc over the unprobed sqlite3MemMalloc), then realloc
	 * by the header's start */
	ev(DT_ALLOC_ENTER, 5, 5, 40, 0, false, 0);
	ev(DT_ALLOC_ENTER, 5, 5, 40, 0, false, 0);
	alloc(5, 0x91000, 48, 0x33);
	ev(DT_ALLOC_RETURN, 5, 5, 0, 0x91008, false, 0x34);
	ev(DT_ALLOC_RETURN, 5, 5, 0, 0x91008, false, 0x35);
	ok(site_holding(5, 0x91008) == 0x35, "a chain over it: the outermost caller's");
	ev(DT_ALLOC_ENTER, 5, 5, 200, 0x91000, true, 0);	/* realloc(p - 8, 200) */
	ev(DT_ALLOC_RETURN, 5, 5, 0, 0x92000, false, 0x36);
	ok(site_holding(5, 0x91008) == 0 && site_holding(5, 0x92000) == 0x36,
	   "resized by its header's start: the old block gone");
	ev(DT_ALLOC_FREE, 5, 5, 0, 0x91000, false, 0);
	ok(totals().unmatched == t0.unmatched + 1, "a second free of it: not seen allocated");

	/* a chain of wrappers, each named (luaC_newobj over luaM_malloc_):
	 * the block goes to the outermost's caller */
	ev(DT_ALLOC_ENTER, 6, 6, 64, 0, false, 0);	/* the outer wrapper */
	ev(DT_ALLOC_ENTER, 6, 6, 64, 0, false, 0);	/* the inner one */
	alloc(6, 0xa0000, 64, 0x41);			/* malloc */
	ev(DT_ALLOC_RETURN, 6, 6, 0, 0xa0000, false, 0x42);
	ev(DT_ALLOC_RETURN, 6, 6, 0, 0xa0000, false, 0x43);
	ok(site_holding(6, 0xa0000) == 0x43 && site_holding(6, 0xa003f) == 0x43,
	   "a chain of wrappers: the block is the outermost one's caller's");

	/* posix_memalign: its block through a pointer (the store probed),
	 * its return an error code; alone, and over malloc (small
	 * alignments) */
	struct dt_alloc st = { .sz = sizeof(st), .event = DT_ALLOC_STORED, .pid = 8, .tid = 8,
			       .ptr = 0xb1000 };
	struct dt_alloc rc = { .sz = sizeof(rc), .event = DT_ALLOC_RETURN, .pid = 8, .tid = 8,
			       .ptr = 0, .site_pc = 0x61, .by_pointer = true };
	ev(DT_ALLOC_ENTER, 8, 8, 100, 0, false, 0);
	ok(!dt_report_alloc(r, &st) && !dt_report_alloc(r, &rc) &&
	   site_holding(8, 0xb1000) == 0x61 && site_holding(8, 0xb1063) == 0x61 &&
	   site_holding(8, 0xb1064) == 0, "posix_memalign: the block it stored, at its caller's");
	ev(DT_ALLOC_ENTER, 8, 8, 64, 0, false, 0);
	alloc(8, 0xb2000, 64, 0x62);			/* its malloc */
	st.ptr = 0xb2000;
	rc.site_pc = 0x63;
	ok(!dt_report_alloc(r, &st) && !dt_report_alloc(r, &rc) &&
	   site_holding(8, 0xb2000) == 0x63, "over malloc: the block is its caller's");
	struct heap_totals t1 = totals();
	ev(DT_ALLOC_ENTER, 8, 8, 64, 0, false, 0);
	rc.ptr = 12;					/* ENOMEM, nothing stored */
	ok(!dt_report_alloc(r, &rc) && totals().allocs == t1.allocs &&
	   site_holding(8, 12) == 0, "failed (an error code): no block");

	/* sites with no binary (no debug info) stay apart by the names perf
	 * gave them, with why they have none */
	size_t before, after;
	heap_sites(r->heap, &before);
	const char *syms[] = { "f", "g", "f" };
	for (int i = 0; i < 3; i++) {
		struct dt_alloc na = { .sz = sizeof(na), .event = DT_ALLOC_BLOCK, .pid = 9,
				       .tid = 9, .size = 8, .ptr = 0xc1000 + 0x100 * (uint64_t)i,
				       .site_dso = "/bin/prog", .site_sym = syms[i],
				       .site_symoff = 0x10, .site_why = DT_NO_DEBUGINFO };
		if (dt_report_alloc(r, &na))
			ok(0, "dt_report_alloc");
	}
	const struct heap_site *ns = heap_sites(r->heap, &after);
	ok(after == before + 2 && ns[before].sym && !strcmp(ns[before].sym, "f") &&
	   !strcmp(ns[before + 1].sym, "g") && !strcmp(ns[before].dso, "/bin/prog") &&
	   ns[before].pc == 0x10 && ns[before].allocs == 2 &&
	   ns[before].type.reason == DT_NO_DEBUGINFO,
	   "no binary: sites apart by symbol, named, with their reason");

	/* the kernel's heap (kmem: events): one block an event, one space
	 * for every process, looked up by an address in the kernel's half */
	const uint64_t k = 0xffff888100c4bba0ull;
	struct dt_alloc ka = { .sz = sizeof(ka), .event = DT_ALLOC_BLOCK, .pid = 7, .tid = 7,
			       .size = 32, .ptr = k, .site_pc = 0x51, .kernel = true };
	ok(!dt_report_alloc(r, &ka), "a kernel block in one event");
	ok(site_holding(7, k) == 0x51 && site_holding(0, k + 31) == 0x51 &&
	   site_holding(99, k + 8) == 0x51 && site_holding(7, k + 32) == 0,
	   "found from any process's sample, and not past its end");
	struct dt_alloc ua = { .sz = sizeof(ua), .event = DT_ALLOC_BLOCK, .pid = 7, .tid = 7,
			       .size = 16, .ptr = 0xb0000, .site_pc = 0x52 };
	ok(!dt_report_alloc(r, &ua) && site_holding(7, 0xb0008) == 0x52 &&
	   site_holding(8, 0xb0008) == 0,
	   "a user block in one event stays its process's");
	ev(DT_ALLOC_EXEC, 7, 7, 0, 0, false, 0);
	ok(site_holding(7, k) == 0x51 && site_holding(7, 0xb0008) == 0,
	   "an exec ends the process's blocks, not the kernel's");
	/* a user address is never the kernel's, whatever pid */
	ka.ptr = 0xc0000;
	ok(!dt_report_alloc(r, &ka) && site_holding(7, 0xc0000) == 0,
	   "a kernel block below the kernel's half is never found");
	struct dt_alloc kf = { .sz = sizeof(kf), .event = DT_ALLOC_FREE, .pid = 3, .tid = 3,
			       .ptr = k, .kernel = true };
	ok(!dt_report_alloc(r, &kf) && site_holding(7, k) == 0,
	   "freed in another process's context: gone");
	struct dt_alloc inv = { .sz = sizeof(inv), .event = DT_ALLOC_BLOCK, .pid = INT32_MIN,
				.tid = 1, .size = 8, .ptr = 0xd0000 };
	ok(dt_report_alloc(r, &inv) == -EINVAL, "a user event with the kernel's space: refused");
	inv.kernel = true;
	inv.event = DT_ALLOC_EXEC;
	ok(dt_report_alloc(r, &inv) == -EINVAL, "an exec of the kernel: refused");

	dt_report_free(r);
	/* dtprof-record's event names, the one list both front ends read */
	static const struct { const char *name; size_t len; enum dt_alloc_probe want; } names[] = {
		{ "dtprof_12:malloc", 0, DT_PROBE_ALLOC },
		{ "dtprof_12:malloc__return", 0, DT_PROBE_RETURN },
		{ "dtprof_7:calloc", 0, DT_PROBE_CALLOC },
		{ "dtprof_7:realloc__return", 0, DT_PROBE_RETURN },
		{ "dtprof_7:realloc", 0, DT_PROBE_REALLOC },
		{ "dtprof_7:aligned_alloc", 0, DT_PROBE_ALLOC },
		{ "dtprof_7:memalign", 0, DT_PROBE_ALLOC },
		{ "dtprof_7:new_array", 0, DT_PROBE_ALLOC },
		{ "dtprof_7:delete_sized", 0, DT_PROBE_FREE },
		{ "dtprof_7:delete_array", 0, DT_PROBE_FREE },
		{ "dtprof_7:free", 0, DT_PROBE_FREE },
		{ "dtprof_7:free__return", 0, DT_PROBE_OTHER },	/* returns nothing */
		{ "dtprof_7:__return", 0, DT_PROBE_OTHER },
		{ "dtprof_7:mallocx", 0, DT_PROBE_OTHER },
		{ "dtprof_7:", 0, DT_PROBE_OTHER },
		{ "dtprof_7malloc", 0, DT_PROBE_NONE },
		{ "dtprof_:malloc", 0, DT_PROBE_NONE },
		{ "probe_libc:malloc", 0, DT_PROBE_NONE },
		{ "dtprof_", 0, DT_PROBE_NONE },
		{ "dtprof_12:malloc_12", 0, DT_PROBE_ALLOC },	/* each run's names */
		{ "dtprof_12:malloc_12__return", 0, DT_PROBE_RETURN },
		{ "dtprof_12:new_array_12", 0, DT_PROBE_ALLOC },
		{ "dtprof_12:delete_sized_12", 0, DT_PROBE_FREE },
		{ "dtprof_12:free_12__return", 0, DT_PROBE_OTHER },
		{ "dtprof_12:malloc_13", 0, DT_PROBE_OTHER },	/* not its group's */
		{ "dtprof_12:malloc_1", 0, DT_PROBE_OTHER },
		{ "dtprof_12:_12", 0, DT_PROBE_OTHER },
		{ "dtprof_12:wrap0_12", 0, DT_PROBE_ALLOC },	/* --wrapper */
		{ "dtprof_12:wrap13_12__return", 0, DT_PROBE_RETURN },
		{ "dtprof_12:wrap_12", 0, DT_PROBE_OTHER },
		{ "dtprof_12:wrapx_12", 0, DT_PROBE_OTHER },
		{ "dtprof_7:mallocXYZ", 15, DT_PROBE_ALLOC },	/* len, no NUL */
		{ "dtprof_7:malloc__returnX", 23, DT_PROBE_RETURN },
		{ "kmem:kmalloc", 0, DT_PROBE_KERNEL_ALLOC },	/* the kernel's */
		{ "kmem:kmalloc_node", 0, DT_PROBE_KERNEL_ALLOC },
		{ "kmem:kmem_cache_alloc", 0, DT_PROBE_KERNEL_ALLOC },
		{ "kmem:kmem_cache_alloc_node", 0, DT_PROBE_KERNEL_ALLOC },
		{ "kmem:kfree", 0, DT_PROBE_KERNEL_FREE },
		{ "kmem:kmem_cache_free", 0, DT_PROBE_KERNEL_FREE },
		{ "dtprof_7:pmemalign_7", 0, DT_PROBE_ALLOC },	/* posix_memalign */
		{ "dtprof_7:pmemalign_block_7", 0, DT_PROBE_STORED },
		{ "dtprof_7:pmemalign_7__return", 0, DT_PROBE_RETURN_CODE },
		{ "dtprof_7:pmemalign_block_7__return", 0, DT_PROBE_OTHER },
		{ "kmem:mm_page_alloc", 0, DT_PROBE_NONE },
		{ "kmem:kmallocX", 12, DT_PROBE_KERNEL_ALLOC },
		{ "kmem:kmalloc", 11, DT_PROBE_NONE },
		{ "kmem:kfreeX", 0, DT_PROBE_NONE },
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len = names[i].len ? names[i].len : strlen(names[i].name);
		if (dt_alloc_probe_of(names[i].name, len) != names[i].want) {
			printf("# %.*s: %d, want %d\n", (int)len, names[i].name,
			       dt_alloc_probe_of(names[i].name, len), names[i].want);
			bad++;
		}
	}
	is_int(bad, 0, "dtprof-record's event names read as each call");
	return done_testing();
}
