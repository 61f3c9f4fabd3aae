// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Answering dtresolve's lines.  A perf script sample's address is mapped
 * to a binary and link-time pc by the first of these that applies (the
 * chosen one is the -v "how" column):
 *   dsoff  perf 6.12's "(dso+0xOFF)": a file offset in dso
 *   maps   the process's PERF_RECORD_MMAP lines seen so far
 *   sym    "sym+0xOFF (dso)": the symbol's address in dso's ELF symbols
 *          (without +0xOFF a symbol says too little: no_insn)
 *   exe    -e BINARY, when the line names no other binary (is_exe): the
 *          address is a link-time address in it
 * Kernel addresses go to a vmlinux with DWARF, corrected for KASLR
 * through the symbol perf printed.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "stream.h"

struct stream {
	struct stream_opts o;
	struct dt_dsos *dsos;
	struct dt_maps *maps;
	struct dt_session *exe;
	char *exe_name;
	char scratch[4096];	/* NUL-terminated copies of line pieces */
	char last_dso[2048];	/* is_exe's last question and answer */
	bool last_is_exe;
};

int stream_new(const struct stream_opts *o, struct stream **out)
{
	struct stream *st = calloc(1, sizeof(*st));
	int err = -ENOMEM;

	*out = NULL;
	if (!st)
		return -ENOMEM;
	st->o = *o;
	struct dt_dsos_opts d = { .sz = sizeof(d), .debuginfo_path = o->debuginfo_path,
				  .vmlinux = o->vmlinux, .log = o->log,
				  .log_arg = o->log_arg, .session = o->session,
				  .buildid_dir = o->buildid_dir };
	if (dt_dsos_new(&d, &st->dsos) || dt_maps_new(&st->maps))
		goto fail;
	*out = st;
	if (o->exe) {
		enum dt_reason why;
		st->exe_name = strdup(o->exe);
		if (!st->exe_name)
			goto fail;
		/* opened like any binary, so a line naming it shares it; the
		 * dso set says why when it cannot be */
		st->exe = dt_dsos_get(st->dsos, o->exe, NULL, 0, &why);
		return st->exe ? 0 : -ENOENT;
	}
	return 0;
fail:
	stream_free(st);
	*out = NULL;
	return err;
}

void stream_free(struct stream *st)
{
	if (!st)
		return;
	dt_dsos_free(st->dsos);
	dt_maps_free(st->maps);
	free(st->exe_name);
	free(st);
}

struct dt_session *stream_exe(struct stream *st)
{
	return st->exe;
}

static const char *cstr(struct stream *st, struct span s, size_t at)
{
	char *b = st->scratch + at;
	size_t room = sizeof(st->scratch) / 2 - 1;

	if (s.len > room)
		return NULL;	/* never a cut path: it may name another file */
	memcpy(b, s.p, s.len);
	b[s.len] = '\0';
	return b;
}

/* Events whose sampled ip is the access itself: breakpoints, precise
 * (:p) events, faults.  Others land after it. */
static bool precise_event(const char *ev)
{
	static const char *const exact[] = {
		"page-faults", "faults", "minor-faults", "major-faults",
		"alignment-faults", "emulation-faults", "mem-loads", "mem-stores",
	};
	const char *colon = strrchr(ev, ':');

	if (!strncmp(ev, "mem:", 4))
		return true;
	if (colon && strchr(colon, 'p'))
		return true;	/* cycles:pp, cpu/mem-loads/:P */
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strncmp(ev, exact[i], strlen(exact[i])) &&
		    (ev[strlen(exact[i])] == '\0' || ev[strlen(exact[i])] == ':'))
			return true;
	return false;
}

static unsigned skid_flags(const struct stream *st, const char *event)
{
	switch (st->o.skid) {
	case SKID_ON: return DT_RESOLVE_SKID;
	case SKID_OFF: return 0;
	case SKID_AUTO: break;
	}
	/* a perf line without its event: most profiles are of cycles or
	 * cpu-clock, whose samples skid (-F event or --skid=off to say) */
	return !event[0] || !precise_event(event) ? DT_RESOLVE_SKID : 0;
}

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Whether a line's binary dso is the -e binary: the same path, or the
 * same file here (device and inode); a path that does not exist here
 * (recorded on another machine) with the same base name stands for it.
 * Any other file is another binary, never read through -e. */
static bool same_file(const char *dso, const char *exe)
{
	struct stat a, b;

	if (stat(dso, &a))
		return errno == ENOENT && !strcmp(basename_of(dso), basename_of(exe));
	return !stat(exe, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static bool is_exe(struct stream *st, const char *dso)
{
	if (!st->exe || !strcmp(dso, st->exe_name))
		return st->exe != NULL;
	/* lines of one binary come in runs: asked once a run */
	if (strcmp(dso, st->last_dso)) {
		snprintf(st->last_dso, sizeof(st->last_dso), "%s", dso);
		st->last_is_exe = same_file(dso, st->exe_name);
	}
	return st->last_is_exe;
}

/* The line's binary and link-time pc (res->session, res->link_pc, 0 when
 * none), and with resolve, its answer. */
static void answer_sample(struct stream *st, const struct line_req *req,
			  struct stream_result *res, bool resolve)
{
	const char *dso = req->dso.len ? cstr(st, req->dso, 0) : NULL;
	const char *sym = req->sym.len ? cstr(st, req->sym, sizeof(st->scratch) / 2) : NULL;
	unsigned flags = skid_flags(st, res->event);
	struct dt_session *s = NULL;
	enum dt_reason why = DT_NO_DSO;
	uint64_t off, pc = 0;
	bool have_pc = false;

	if (req->dso.len && !dso) {
		res->how = "none";
		res->error = "a binary's path longer than 2047 bytes: not opened";
		dt_answer_miss(&res->ans, req->addr, DT_NO_DSO);
		return;
	}
	if (dso && !strcmp(dso, "[unknown]"))
		dso = NULL;
	const char *mapped = dt_maps_find(st->maps, req->pid, req->addr, &off);
	if (dso && req->has_dsoff && !dt_dso_is_kernel(dso)) {
		res->how = "dsoff";
		s = dt_dsos_get(st->dsos, dso, NULL, 0, &why);
		have_pc = s && !dt_dsos_link_pc(st->dsos, dso, req->dsoff, NULL, 0, &pc);
	} else if (mapped && (!dso || !strcmp(dso, mapped) || dt_dso_is_kernel(mapped))) {
		res->how = "maps";
		/* the kernel maps as "[kernel.kallsyms]_text" */
		dso = dt_dso_is_kernel(mapped) ? "[kernel.kallsyms]" : mapped;
		s = dt_dsos_get(st->dsos, dso, NULL, 0, &why);
		have_pc = s && !dt_dsos_link_pc(st->dsos, dso,
				dt_dso_is_kernel(dso) ? req->addr : off,
				sym, req->symoff, &pc);
	} else if (dso && dt_dso_is_kernel(dso)) {
		res->how = "sym";
		s = dt_dsos_get(st->dsos, dso, NULL, 0, &why);
		have_pc = s && !dt_dsos_link_pc(st->dsos, dso, req->addr, sym,
						req->symoff, &pc);
	} else if (dso && sym && req->has_symoff) {
		uint64_t start = 0, size;
		res->how = "sym";
		if (is_exe(st, dso)) {
			s = st->exe;
			dso = st->exe_name;
		} else {
			s = dt_dsos_get(st->dsos, dso, NULL, 0, &why);
		}
		int err = s ? dt_session_symbol_fit(s, sym, req->symoff,
						    req->addr ? req->addr - req->symoff : 0,
						    &start, &size) : -ENOENT;
		have_pc = !err;
		if (err == -EEXIST)	/* said once: the message is static */
			res->error = "a symbol name perf printed demangled fits several "
				     "symbols (overloads) that the address cannot tell "
				     "apart: no_insn (perf script --no-demangle avoids it)";
		pc = start + req->symoff;
	} else if (st->exe && (!dso || is_exe(st, dso))) {
		res->how = "exe";
		dso = st->exe_name;
		s = st->exe;
		pc = req->addr;
		have_pc = true;
	} else {
		/* a binary but no way into it: no offset, no symbol+offset */
		res->how = "none";
		if (dso)
			s = dt_dsos_get(st->dsos, dso, NULL, 0, &why);
	}
	res->dso = dso;
	res->session = s;
	if (!s) {
		dt_answer_miss(&res->ans, req->addr, why);
		return;
	}
	if (!have_pc) {
		dt_answer_miss(&res->ans, req->addr, DT_NO_INSN);
		return;
	}
	if (!resolve) {
		res->link_pc = pc;
		return;
	}
	dt_resolve_sample(s, pc, flags, &res->ans);
	res->link_pc = pc;
	/* perf script -F ip,addr of a PIE or a library: runtime addresses,
	 * and no maps in the stream to take them back to the file */
	if (res->ans.reason == DT_NO_INSN && !strcmp(res->how, "exe") &&
	    req->addr < 0x800000000000ull && !res->error)	/* not the kernel's */
		res->error = "addresses outside every segment of the -e binary: "
			     "runtime addresses of a PIE or a shared library? Add "
			     "pid and --show-mmap-events (perf script -F pid,ip,addr "
			     "--show-mmap-events), or sym,symoff,dso";
	res->ans.pc = req->addr;	/* the line's address, as it was written */
}

/* A sample with its registers (perf record --user-regs, perf script -F
 * uregs): the data address of the access it was charged to, or why not. */
static void address_from_regs(const struct line_req *req,
			      struct stream_result *res)
{
	struct dt_regs regs;
	enum dt_addr_why why = DT_ADDR_NO_OPERAND;
	uint64_t addr = 0;

	if (res->session && res->link_pc) {
		int err = dt_session_perf_regs(res->session, req->regs.p, req->regs.len,
					       req->addr, &regs);
		why = err == -ENOENT ? DT_ADDR_OTHER_IP : err ? DT_ADDR_NO_REGS :
		      dt_session_data_addr(res->session, res->link_pc,
					   res->ans.access_pc, req->addr, &regs, &addr);
	}
	res->smp.has |= DT_SAMPLE_ADDR_WHY;
	res->smp.addr_why = why;
	if (why == DT_ADDR_OK) {
		res->smp.has |= DT_SAMPLE_ADDR;
		res->smp.addr = addr;
	}
}

static void answer_record(struct stream *st, const struct line_req *req,
			  struct stream_result *res)
{
	int err = 0;

	res->sample = false;
	res->how = "record";
	dt_answer_miss(&res->ans, req->map_start, DT_OK);
	res->ans.type = DT_TYPE_RECORD;
	switch (req->kind) {
	case LINE_MMAP:
		res->dso = cstr(st, req->file, 0);
		err = dt_maps_add(st->maps, req->pid, req->map_start, req->map_len,
				  req->map_pgoff, req->file.p, req->file.len);
		break;
	case LINE_EXEC:
		dt_maps_exec(st->maps, req->pid);
		/* and the heap of the image it replaced */
		res->has_alloc = req->pid >= 0;
		res->alloc = (struct dt_alloc){ .sz = sizeof(res->alloc),
						.event = DT_ALLOC_EXEC, .pid = req->pid,
						.tid = req->pid };
		break;
	case LINE_FORK:
		err = dt_maps_fork(st->maps, req->pid, req->parent_pid);
		break;
	default:
		break;
	}
	if (err == -ENOMEM)
		res->error = "out of memory for the process maps";
}

/* A kmem: event's call site, the kernel's binary and link-time pc
 * (res->session, res->link_pc: 0 when not placed): found as a kernel
 * sample at that symbol and offset, or at that address, would be. */
static void kernel_site(struct stream *st, const struct line_req *req,
			struct stream_result *res)
{
	static const char kernel[] = "[kernel.kallsyms]";
	struct line_req at = { .pid = -1, .tid = -1, .cpu = -1,
			       .dso = { kernel, sizeof(kernel) - 1 } };

	if (req->site_sym.len) {
		at.sym = req->site_sym;
		at.has_symoff = true;
		at.symoff = req->site_off;
	} else {
		at.addr = req->site_off;
	}
	answer_sample(st, &at, res, false);
	if (!res->session)
		res->link_pc = 0;
}

/* The site answer_sample() placed (res): its binary and pc, or without
 * a binary the names perf gave it (sym at symoff in res->dso). */
static void site_named(struct stream *st, struct span sym, uint64_t symoff,
		       const struct stream_result *res, struct dt_alloc *a)
{
	a->site = res->link_pc ? res->session : NULL;
	a->site_pc = res->link_pc;
	if (a->site)
		return;
	a->site_dso = res->dso;
	a->site_sym = sym.len ? cstr(st, sym, sizeof(st->scratch) / 2) : NULL;
	a->site_symoff = symoff;
	a->site_why = res->ans.reason;
}

/* An allocator event: counted in no table, its line the allocator's; a
 * return's site is the binary and link-time pc its sample is at. */
static void answer_alloc(struct stream *st, const struct line_req *req,
			 struct stream_result *res)
{
	struct dt_alloc *a = &res->alloc;

	*a = (struct dt_alloc){ .sz = sizeof(*a), .pid = req->pid, .tid = req->tid,
				.time = req->time, .size = req->alloc_size,
				.elem_size = req->alloc_elem, .ptr = req->alloc_ptr };
	switch (req->probe) {
	case PROBE_REALLOC:
		a->resize = true;
		/* fall through */
	case PROBE_ALLOC:
		a->event = DT_ALLOC_ENTER;
		break;
	case PROBE_STORED:
		a->event = DT_ALLOC_STORED;
		break;
	case PROBE_RETURN_CODE:
		a->by_pointer = true;
		/* fall through */
	case PROBE_RETURN:
		a->event = DT_ALLOC_RETURN;
		answer_sample(st, req, res, false);
		site_named(st, req->sym, req->symoff, res, a);
		break;
	case PROBE_KERNEL_ALLOC:
		a->event = DT_ALLOC_BLOCK;
		a->kernel = true;
		kernel_site(st, req, res);
		site_named(st, req->site_sym, req->site_off, res, a);
		break;
	case PROBE_KERNEL_FREE:
		a->kernel = true;
		/* fall through */
	case PROBE_FREE:
		a->event = DT_ALLOC_FREE;
		break;
	case PROBE_NONE:
		break;
	}
	/* the kernel's heap is every process's: its events need no pid */
	res->has_alloc = a->kernel || (req->pid >= 0 && req->tid >= 0 && req->pid_and_tid);
	if (req->probe == PROBE_NONE) {
		res->has_alloc = false;	/* not followed */
		if (req->alloc_unread)
			res->error = "an allocator event without the fields it needs "
				     "(perf script -F trace): not followed";
	} else if (!res->has_alloc)
		res->error = "an allocator event without pid/tid (perf script -F pid,tid): "
			     "not followed";
	res->sample = false;
	res->how = "alloc";
	dt_answer_miss(&res->ans, req->addr, DT_OK);
	res->ans.type = DT_TYPE_ALLOC;
}

void stream_answer(struct stream *st, const char *line, size_t len,
		   struct stream_result *res)
{
	struct line_req req;

	memset(res, 0, sizeof(*res));
	res->sample = true;
	res->smp = (struct dt_sample){ .sz = sizeof(res->smp), .period = 1,
				       .tid = -1, .cpu = -1 };
	line_parse(line, len, &req);
	switch (req.kind) {
	case LINE_BAD:
		res->error = req.error;
		res->how = "bad";
		dt_answer_miss(&res->ans, 0, DT_BAD_LINE);
		return;
	case LINE_MMAP:
	case LINE_EXEC:
	case LINE_FORK:
	case LINE_RECORD:
		answer_record(st, &req, res);
		return;
	case LINE_SAMPLE: {
		size_t n = req.event.len < sizeof(res->event) - 1 ?
			   req.event.len : sizeof(res->event) - 1;
		memcpy(res->event, req.event.p ? req.event.p : "", n);
		res->event[n] = '\0';
		res->smp = (struct dt_sample){
			.sz = sizeof(res->smp),
			.period = req.period, .addr = req.data_addr,
			.tid = req.tid, .cpu = req.cpu, .pid = req.pid,
			.has = (req.tid >= 0 ? DT_SAMPLE_TID : 0) |
			       (req.pid_and_tid ? DT_SAMPLE_PID : 0) |
			       (req.cpu >= 0 ? DT_SAMPLE_CPU : 0) |
			       (req.has_data_addr ? DT_SAMPLE_ADDR : 0) |
			       (req.has_time ? DT_SAMPLE_TIME : 0),
			.time = req.time,
		};
		answer_sample(st, &req, res, true);
		if (req.regs.len && !req.has_data_addr)
			address_from_regs(&req, res);
		return;
	}
	case LINE_ALLOC:
		answer_alloc(st, &req, res);
		return;
	case LINE_ADDR:
	case LINE_TUPLE:
		break;
	}
	res->how = req.kind == LINE_ADDR ? "addr" : "tuple";
	res->dso = st->exe_name;
	res->session = st->exe;
	if (!st->exe) {
		if (!st->exe_name)
			res->error = "no binary to resolve addresses in: use -e BINARY";
		dt_answer_miss(&res->ans, req.addr, DT_NO_DSO);
		return;
	}
	if (req.kind == LINE_ADDR) {
		dt_resolve_sample(st->exe, req.addr,
				  st->o.skid == SKID_ON ? DT_RESOLVE_SKID : 0, &res->ans);
		return;
	}
	int reg = dt_session_reg(st->exe, req.reg);
	if (reg < 0) {
		res->error = "unknown register";
		snprintf(res->error_arg, sizeof(res->error_arg), "%s", req.reg);
		dt_answer_miss(&res->ans, req.addr, DT_NO_REG);
		return;
	}
	dt_resolve_op(st->exe, req.addr, reg, req.offset, &res->ans);
}
