/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Input line forms of dtresolve (DESIGN.md): "ADDR", "ADDR REG OFFSET",
 * and the text perf script prints (samples and PERF_RECORD_* lines).
 * Kept apart from main() so the fuzzer and unit tests drive it directly.
 */
#ifndef DTPROF_LINEPARSE_H
#define DTPROF_LINEPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum line_kind {
	LINE_BAD,	/* why: in line_req.error */
	LINE_ADDR,	/* "0x401136" */
	LINE_TUPLE,	/* "0x401136 rdi 16", "0x401136 %rdi -0x58" */
	LINE_SAMPLE,	/* a perf script sample line */
	LINE_MMAP,	/* PERF_RECORD_MMAP / MMAP2 */
	LINE_EXEC,	/* PERF_RECORD_COMM exec */
	LINE_FORK,	/* PERF_RECORD_FORK */
	LINE_RECORD,	/* any other PERF_RECORD_ line */
	LINE_ALLOC,	/* an allocator probe of dtprof-record's: a sample
			 * line of event "dtprof_PID:NAME" (the ip: for a
			 * return, the allocation site), or a kmem:
			 * tracepoint (its call_site the site) */
};

/* Which allocator probe (dtprof-record's event names). */
enum alloc_probe {
	PROBE_NONE,		/* an allocator event not followed: a call not
				 * read, or fields that cannot be */
	PROBE_ALLOC,		/* malloc, calloc, aligned_alloc, memalign,
				 * new, new_array: size (calloc: nmemb too) */
	PROBE_REALLOC,		/* realloc: ptr, size */
	PROBE_RETURN,		/* NAME__return: ret */
	PROBE_FREE,		/* free, delete*: ptr */
	PROBE_KERNEL_ALLOC,	/* kmem:kmalloc, kmem:kmem_cache_alloc:
				 * call_site, ptr, bytes_req */
	PROBE_KERNEL_FREE,	/* kmem:kfree, kmem:kmem_cache_free: ptr */
	PROBE_STORED,		/* posix_memalign stored its block: ptr */
	PROBE_RETURN_CODE,	/* posix_memalign returned: ret, an error code */
};

/* A piece of the line: not NUL-terminated, valid while the line is. */
struct span {
	const char *p;
	size_t len;
};

struct line_req {
	enum line_kind kind;
	uint64_t addr;		/* ADDR, TUPLE; SAMPLE: the ip */
	char reg[16];		/* TUPLE: register as written, without '%' */
	int64_t offset;		/* TUPLE */
	const char *error;	/* static text when LINE_BAD */

	/* SAMPLE (and pid for MMAP, EXEC, FORK) */
	int pid;		/* -1 when the line has none */
	int parent_pid;		/* FORK */
	struct span event;	/* "cpu-clock", empty when absent */
	struct span sym;	/* empty when absent or [unknown] */
	bool has_symoff;
	uint64_t symoff;
	struct span dso;	/* empty when absent */
	bool has_dsoff;		/* perf 6.12 -F dsoff: "(dso+0x1114)" */
	uint64_t dsoff;
	uint64_t period;	/* 1 when absent */
	bool has_data_addr;	/* a memory event printed addr before ip */
	uint64_t data_addr;	/* that addr */
	int tid;		/* "pid/tid", or the lone integer; -1 */
	bool pid_and_tid;	/* "pid/tid" was given: pid is the process
				 * (a lone integer may be either) */
	int cpu;		/* "[001]"; -1 when absent */
	bool has_time;		/* "5299.126083:" */
	uint64_t time;		/* in ns */
	struct span regs;	/* -F uregs / iregs: "ABI:2    AX:0x0 ...",
				 * empty when absent */

	/* MMAP */
	uint64_t map_start, map_len, map_pgoff;
	struct span file;

	/* ALLOC (a SAMPLE's fields too) */
	enum alloc_probe probe;
	uint64_t alloc_size;	/* size (times nmemb), 0 when absent */
	uint64_t alloc_elem;	/* calloc: its size (of each element), 0 */
	uint64_t alloc_ptr;	/* ptr= or ret= */
	bool alloc_unread;	/* PROBE_NONE: a call read here whose fields
				 * were not there */
	/* KERNEL_ALLOC's call site, as perf prints it: "func+0x1d" (its
	 * symbol and offset) or "0xffffffff81234567" (an address) */
	struct span site_sym;	/* empty for an address */
	uint64_t site_off;	/* the offset, or the address */
};

/* Parse line[0..len) (no newline).  Never fails: bad input is LINE_BAD. */
void line_parse(const char *line, size_t len, struct line_req *req);

#endif
