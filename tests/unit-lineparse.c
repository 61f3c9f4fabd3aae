// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dtresolve's request lines: what parses, to what, and what is refused.
 */
#include "../tools/dtresolve/lineparse.h"
#include "tap.h"

static struct line_req parse(const char *s)
{
	struct line_req r;

	line_parse(s, strlen(s), &r);
	return r;
}

int main(void)
{
	struct line_req r;

	r = parse("0x401136");
	ok(r.kind == LINE_ADDR && r.addr == 0x401136, "bare address");
	r = parse("  0xFFFFFFFF81000000\t");
	ok(r.kind == LINE_ADDR && r.addr == 0xffffffff81000000ULL,
	   "kernel address, blanks around, upper case");
	r = parse("0x401136 rdi 16");
	ok(r.kind == LINE_TUPLE && r.addr == 0x401136 && !strcmp(r.reg, "rdi") &&
	   r.offset == 16, "tuple, decimal offset");
	r = parse("0x401136 %rax -0x58");
	ok(r.kind == LINE_TUPLE && !strcmp(r.reg, "rax") && r.offset == -0x58,
	   "tuple, %%register, negative hex offset");
	r = parse("0x1 x0 +8");
	ok(r.kind == LINE_TUPLE && !strcmp(r.reg, "x0") && r.offset == 8,
	   "tuple, explicit plus");
	r = parse("0x1 rdi 010");
	ok(r.kind == LINE_TUPLE && r.offset == 10, "leading zero is decimal");
	r = parse("0x1 rdi -9223372036854775808");
	ok(r.kind == LINE_TUPLE && r.offset == INT64_MIN, "INT64_MIN offset");

	static const char *const bad[] = {
		"", "   ", "401136", "0x", "0xg1", "0x12345678901234567",
		"0x1 rdi", "0x1 rdi 1 2", "0x1 rdi abc", "0x1 rdi 9223372036854775808",
		"0x1 averyveryverylongregistername 1", "0x1 % 1", "0x1 rdi 0x",
		"0x1 rdi -", "\x01\x02\xff",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = parse(bad[i]);
		ok(r.kind == LINE_BAD && r.error && *r.error,
		   "refused: '%s' (%s)", bad[i], r.error ? r.error : "no reason");
	}
	/* embedded NUL: the length decides, not the terminator */
	line_parse("0x10\0garbage", 12, &r);
	ok(r.kind == LINE_BAD, "a NUL inside the line is not its end");
	/* what the sharing table needs: threads, CPUs, data addresses */
	r = parse("          fq  5172/5174 [001] 100.5: 250000 cpu-clock:      55555555527d fq_enqueue+0xd (/tmp/fq)");
	ok(r.kind == LINE_SAMPLE && r.pid == 5172 && r.tid == 5174 && r.cpu == 1 &&
	   r.addr == 0x55555555527d && !r.has_data_addr,
	   "comm pid/tid [cpu]: pid %d tid %d cpu %d", r.pid, r.tid, r.cpu);
	/* -F pid,tid,period,event: no time between the thread and the period */
	r = parse(" 6123/6124      250000 cpu-clock:      55956e2f7443 reader+0x13 (/tmp/ps)");
	ok(r.kind == LINE_SAMPLE && r.pid == 6123 && r.tid == 6124 && r.period == 250000 &&
	   r.event.len == 9 && r.addr == 0x55956e2f7443,
	   "pid/tid period event: the period is no thread (pid %d tid %d period %llu)",
	   r.pid, r.tid, (unsigned long long)r.period);
	r = parse("12/34 6123/6124 250000 cpu-clock:      55956e2f7443 reader+0x13 (/tmp/ps)");
	ok(r.kind == LINE_SAMPLE && r.pid == 6123 && r.tid == 6124 && r.period == 250000,
	   "a comm that looks like pid/tid: the last one is the thread (pid %d tid %d)",
	   r.pid, r.tid);
	r = parse("   5174     7ffd00001010     55555555527d fq_enqueue+0xd (/tmp/fq)");
	ok(r.kind == LINE_SAMPLE && r.tid == 5174 && r.cpu == -1 && r.has_data_addr &&
	   r.data_addr == 0x7ffd00001010 && r.addr == 0x55555555527d,
	   "-F tid,addr,ip: the lone integer is the tid, addr the data address");
	/* the register route: -F ...,time,...,uregs */
	r = parse("ps 22652/22654 10830.159537: cpu-clock:      5605dd5dd345 writer+0x15 (/tmp/p s)"
		  " ABI:2    AX:0x0    BX:0x7ffe1    IP:0x5605dd5dd345 FLAGS:0x246   R15:0x1 ");
	ok(r.kind == LINE_SAMPLE && r.addr == 0x5605dd5dd345 && r.has_time &&
	   r.time == 10830159537000ull && r.dso.len == 8 && !memcmp(r.dso.p, "/tmp/p s", 8) &&
	   r.has_symoff && r.symoff == 0x15 && r.regs.len &&
	   !strncmp(r.regs.p, "ABI:2 ", 6) && r.regs.p[r.regs.len - 1] != ' ',
	   "uregs after the dso: kept apart, the dso and symbol still read");
	r = parse("1/2 1.000000123: cpu-clock:           401000 f+0x0 (/bin/x) ABI:2 AX:0x1 ABI:2 AX:0x2 IP:0x401000");
	ok(r.kind == LINE_SAMPLE && r.time == 1000000123ull && r.regs.len &&
	   !strncmp(r.regs.p, "ABI:2 AX:0x1 ABI:2", 18), "--ns time; iregs and uregs: both groups kept");
	r = parse("1/2 1.5: cpu-clock:           401000 f+0x0 (/bin/x ABI:2 AX:0x1)");
	ok(r.kind == LINE_SAMPLE && !r.regs.len && r.dso.len == 19,
	   "\"ABI:\" inside the dso's parentheses is its name");
	r = parse("1/2 1.5: cpu-clock:           401000 ABI:2 AX:0xzz");
	ok(r.kind == LINE_SAMPLE && !r.regs.len, "not hex: not a register dump");
		/* the kernel's heap (dtprof-record --kernel): kmem: tracepoints */
	r = parse("     cat 25093/25093 31792.002708652: kmem:kmem_cache_alloc: call_site=alloc_empty_file+0x3c ptr=0xffff888133e82e40 name=filp bytes_req=184 bytes_alloc=192 gfp_flags=GFP_KERNEL node=-1 accounted=true ffffffff81655ee0 kmem_cache_alloc_noprof+0x230 ([kernel.kallsyms])");
	ok(r.kind == LINE_ALLOC && r.probe == PROBE_KERNEL_ALLOC && r.alloc_ptr == 0xffff888133e82e40ull &&
	   r.alloc_size == 184 && r.site_sym.len == 16 && !memcmp(r.site_sym.p, "alloc_empty_file", 16) &&
	   r.site_off == 0x3c, "kmem:kmem_cache_alloc: call site, block, bytes asked");
	r = parse("     cat 1/1 1.0: kmem:kmalloc: call_site=getname_flags.part.0+0x24 ptr=0xffff888104d34000 bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false ffffffff81654655 __kmalloc_cache_node_noprof+0x215 ([kernel.kallsyms])");
	ok(r.kind == LINE_ALLOC && r.probe == PROBE_KERNEL_ALLOC && r.alloc_size == 4096 &&
	   r.site_sym.len == 20 && r.site_off == 0x24, "kmem:kmalloc, a clone's symbol (name.part.0)");
	r = parse("     cat 1/1 1.0: kmem:kmalloc: call_site=0xffffffffc0a01234 ptr=0xffff888104d34000 bytes_req=64 ffffffff81654655 x+0x1 ([kernel.kallsyms])");
	ok(r.kind == LINE_ALLOC && r.probe == PROBE_KERNEL_ALLOC && !r.site_sym.len &&
	   r.site_off == 0xffffffffc0a01234ull, "a call site perf printed as an address");
	r = parse("     cat 1/1 1.0: kmem:kfree: call_site=vm_area_free+0x1c ptr=(nil) ffffffff8164e07f kfree+0x20f ([kernel.kallsyms])");
	ok(r.kind == LINE_ALLOC && r.probe == PROBE_KERNEL_FREE && r.alloc_ptr == 0, "kfree(NULL)");
	r = parse("     cat 1/1 1.0: kmem:kmem_cache_free: call_site=__fput+0x1 ptr=0xffff888133e82e40 name=filp ffffffff8164e07f kmem_cache_free+0x3 ([kernel.kallsyms])");
	ok(r.kind == LINE_ALLOC && r.probe == PROBE_KERNEL_FREE && r.alloc_ptr == 0xffff888133e82e40ull,
	   "kmem_cache_free");
	static const char *const unread[] = {
		"  cat 1/1 1.0: kmem:kmalloc: call_site=f+0x1 ptr=0xffff888104d34000 ffffffff81654655 x+0x1 ([kernel.kallsyms])",
		"  cat 1/1 1.0: kmem:kmalloc: call_site=f ptr=0xffff888104d34000 bytes_req=8 ffffffff81654655 x+0x1 ([kernel.kallsyms])",
		"  cat 1/1 1.0: kmem:kmalloc: call_site=+0x1 ptr=0xffff888104d34000 bytes_req=8 ffffffff81654655 x+0x1 ([kernel.kallsyms])",
		"  cat 1/1 1.0: kmem:kmalloc: call_site=f+0x1 ptr=0xffff888104d34000 bytes_req=8x ffffffff81654655 x+0x1 ([kernel.kallsyms])",
		"  cat 1/1 1.0: kmem:kfree: call_site=f+0x1 ptr=nil ffffffff81654655 x+0x1 ([kernel.kallsyms])",
		"  lua 1/1 1.0: dtprof_1:malloc_1: (7f0000001000)     7f0000001000 malloc+0x0 (/lib/libc.so.6)",
	};
	for (size_t i = 0; i < sizeof(unread) / sizeof(unread[0]); i++) {
		r = parse(unread[i]);
		ok(r.kind == LINE_ALLOC && r.probe == PROBE_NONE && r.alloc_unread,
		   "an allocator event without its fields: not a sample, not followed (%zu)", i);
	}
	r = parse("  lua 1/1 1.0: dtprof_1:free_1__return: (7f0000001000 <- 7f0000002000)     7f0000001000 free+0x0 (/lib/libc.so.6)");
	ok(r.kind == LINE_ALLOC && r.probe == PROBE_NONE && !r.alloc_unread,
	   "a call of dtprof-record's not read here: not a sample either");
	r = parse("  prog 1/1 1.0: dtprof_1:pmemalign_block_1: (7f0000001000) ptr=0x55d000001000     7f000000104c posix_memalign+0x4c (/lib/libc.so.6)");
	ok(r.kind == LINE_ALLOC && r.probe == PROBE_STORED && r.alloc_ptr == 0x55d000001000ull,
	   "posix_memalign's stored block");
	r = parse("  prog 1/1 1.0: dtprof_1:pmemalign_1__return: (7f0000001000 <- 55d000000100) ret=0xc     55d000000100 main+0x10 (/tmp/prog)");
	ok(r.kind == LINE_ALLOC && r.probe == PROBE_RETURN_CODE && r.alloc_ptr == 0xc,
	   "posix_memalign's return: an error code");
	r = parse("  cat 1/1 1.0: kmem:mm_page_alloc: page=0x1 pfn=0x1 order=0 ffffffff81654655 x+0x1 ([kernel.kallsyms])");
	ok(r.kind == LINE_SAMPLE, "another kmem: event is a sample like any");
	return done_testing();
}
