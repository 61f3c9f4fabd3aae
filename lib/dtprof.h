/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libdtprof: name the C type and field that a memory-access instruction
 * touches, from the binary's DWARF.  One session per binary; answers are
 * cached per (pc, operand).  The library never prints or exits, and
 * changes nothing of the process that hosts it.
 *
 * Threads.  Every call that takes an object (a struct dt_session, a
 * struct dt_dsos, a struct dt_report, and what they hand out: a layout,
 * a dt_cstruct) works on it and on nothing shared: one thread at a time
 * per object, any number of objects in as many threads at once (the
 * plugin answers in one thread while perf's reads the next samples).  A
 * session that a struct dt_dsos opened belongs to that object: lock them
 * together.  Reading an object while another thread calls into it is
 * not safe, printing a report included (it fills its sessions' caches).
 * Calls that take no object (dt_reason_str, dt_strerror, dt_text_*,
 * dt_format_from_str, dt_perfdata_* on a descriptor of the caller's own,
 * dt_find_*) are safe in any thread.  The library's own shared state
 * (the memo of type answers) is per thread.
 */
#ifndef DTPROF_H
#define DTPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DTPROF_VERSION "0.1.0"
#define DTPROF_VERSION_MAJOR 0
#define DTPROF_VERSION_MINOR 1
#define DTPROF_VERSION_PATCH 0
/* One number that grows with each release: MAJOR * 10000 + MINOR * 100
 * + PATCH, for #if DTPROF_VERSION_NUMBER >= 100 */
#define DTPROF_VERSION_NUMBER \
	(DTPROF_VERSION_MAJOR * 10000 + DTPROF_VERSION_MINOR * 100 + DTPROF_VERSION_PATCH)

/* Structs a caller passes lead with size_t sz = sizeof the struct as the
 * caller's dtprof.h has it: fields past sz are taken as 0, a larger
 * struct's unknown tail must be 0, and an sz of 0 (forgotten) is refused
 * (-EINVAL, -DT_ERR_OPTS; printing an answer takes the defaults). */

/* The library's interface: everything else in libdtprof.a is hidden (its
 * installed copy has only these global symbols, all named dt_*). */
#ifndef DT_API
#define DT_API __attribute__((visibility("default")))
#endif

/* Why an access was not attributed to a type.  DT_OK means it was (a real
 * type or one of the pseudo types "(stack operation)" / "(stack canary)").
 * dt_reason_str() gives the names used in every output. */
enum dt_reason {
	DT_OK = 0,
	DT_NO_DSO,		/* binary could not be opened */
	DT_NO_DEBUGINFO,	/* binary has no DWARF */
	DT_NO_INSN,		/* instruction bytes unreadable or undecodable */
	DT_NO_MEM_OP,		/* instruction does not access memory */
	DT_NO_REG,		/* memory operand not understood */
	DT_NO_CU,		/* no compile unit covers pc */
	DT_NO_VAR,		/* no variable lives in the base register at pc */
	DT_NO_TYPE,		/* variable found, its type is not a data pointer */
	DT_BAD_OFFSET,		/* outside the pointee, and no single
				 * container holds it (ans->note) */
	DT_BAD_LINE,		/* input line could not be parsed (front ends) */
	DT_NO_MEMORY,		/* out of memory while resolving it */
	DT_REASON_COUNT
};

/* Own error codes, returned negated like -errno. */
enum {
	DT_ERR_BASE = 4000,
	DT_ERR_NOT_ELF = DT_ERR_BASE,	/* file is not an ELF object */
	DT_ERR_ARCH,			/* ELF machine not supported */
	DT_ERR_DWFL,			/* libdwfl refused the file */
	DT_ERR_OPTS,			/* unknown non-zero option fields */
	DT_ERR_NOT_FILE,		/* a FIFO, device or directory */
	DT_ERR_END
};

/* Name of a reason ("no_var"); "ok" for DT_OK. */
DT_API const char *dt_reason_str(enum dt_reason r);
/* Reason for its name, or -1. */
DT_API int dt_reason_from_str(const char *name);
/* Message for 0 / -errno / -DT_ERR_*; static storage. */
DT_API const char *dt_strerror(int err);
/* "PROG: message" and a newline on stderr: the front ends' one voice. */
DT_API void dt_message(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Untrusted text (DWARF names, paths, event names, source lines: any
 * byte) made safe for a terminal, a tsv row and JSON: C0 and C1 control
 * characters, DEL and bytes that are not UTF-8 become the four characters
 * \xHH; all else, UTF-8 included, is kept.  Every string an answer, a
 * layout or a report row holds is already safe. */
DT_API bool dt_text_is_safe(const char *s);
/* Escaped s into buf (at most len bytes, NUL included); returns the
 * length the whole of it needs, as snprintf does. */
DT_API size_t dt_text_escape(const char *s, char *buf, size_t len);
/* Escaped s written to f. */
DT_API void dt_text_put(FILE *f, const char *s);

#define DT_TYPE_UNKNOWN "(unknown)"
#define DT_TYPE_STACK_OP "(stack operation)"
#define DT_TYPE_CANARY "(stack canary)"
#define DT_TYPE_RECORD "(perf record)"	/* dtresolve: a PERF_RECORD_ line */
#define DT_TYPE_ALLOC "(allocator)"	/* dtresolve: an allocator event of
					 * dtprof-record's probes */

/* How an access uses memory, from the decoded instruction: a load, a
 * store, or both at once (add to memory, xchg, lock cmpxchg, AArch64
 * atomics and exclusives).  The bits combine: RMW = LOAD | STORE. */
enum dt_access {
	DT_ACCESS_UNKNOWN = 0,	/* tuple requests, instructions not known */
	DT_ACCESS_LOAD = 1,
	DT_ACCESS_STORE = 2,
	DT_ACCESS_RMW = 3,
};
/* "load", "store", "rmw" or "" */
DT_API const char *dt_access_str(enum dt_access a);

/* One answer.  Strings are never NULL ("" when absent) and stay valid
 * until dt_session_close() of the session that produced them. */
struct dt_answer {
	uint64_t pc;		/* the address asked about */
	uint64_t access_pc;	/* the instruction attributed (skid: earlier) */
	enum dt_reason reason;
	const char *type;	/* "struct page", "int", DT_TYPE_UNKNOWN... */
	int64_t offset;		/* byte offset within type (0 when no type) */
	const char *field;	/* member path: "lru.next", "items[2].x", "" */
	const char *var;	/* variable the base register held, "" if none */
	int reg;		/* DWARF number of the base register, -1 */
	int64_t disp;		/* operand displacement as encoded, plus the
				 * constant the dataflow knows the index
				 * register holds (times its scale) */
	unsigned size;		/* access size in bytes, 0 when unknown */
	enum dt_access access;	/* of the instruction attributed */
	uint64_t type_size;	/* sizeof the named type, 0 when unknown */
	uint64_t type_id;	/* the type's DIE offset in this session, 0 for
				 * pseudo types and misses: dt_layout_get() */
	const char *note;	/* why a miss is one, when a reason's name
				 * says too little ("2 containers fit: struct
				 * a+16 struct b+56"), else "" */
};

struct dt_session;

/* What a session may do besides reading its files: each off unless the
 * host asks (dt_session_opts.flags).  The library changes nothing of the
 * process that hosts it and reads no environment variable; these, the
 * cache directory and the callbacks are how a host chooses. */
enum dt_session_flags {
	DT_SESSION_TRACE = 1 << 0,	/* log a line of trace per step */
	DT_SESSION_NO_TRACK = 1 << 1,	/* no dataflow: only variables name
					 * registers (measuring what it adds) */
	DT_SESSION_NO_QUICK_DECODE = 1 << 2, /* every instruction through
					 * libopcodes (checking the quick
					 * decoder against it) */
	DT_SESSION_DEBUGINFOD = 1 << 3,	/* ask libdwfl's debuginfod client
					 * (DEBUGINFOD_URLS) for debug info not
					 * found on disk */
	/* 1 << 4: was DT_SESSION_GIVE_BACK_PAGES, now the give_back_pages
	 * callback */
	DT_SESSION_ERRNO_UNRELIABLE = 1 << 5, /* errno ENOMEM after an
					 * allocation says nothing (valgrind):
					 * out of memory only when libdw says */
	DT_SESSION_KEEP_ANSWERS = 1 << 6, /* keep dt_resolve_sample()'s
					 * answers in cache_dir, and read the
					 * last runs' there (a binary with a
					 * build-id; the same answers, without
					 * naming them again) */
};
#define DT_KEEP_FUNCTIONS 2048

struct dt_session_opts {
	size_t sz;			/* sizeof(struct dt_session_opts) */
	const char *debuginfo_path;	/* libdwfl search path, NULL = default */
	const char *debuginfo_file;	/* take DWARF from this file, NULL */
	/* Called with one line of trace (DT_SESSION_TRACE), or with a
	 * warning; NULL = silent. */
	void (*log)(void *arg, const char *msg);
	void *log_arg;
	unsigned flags;			/* enum dt_session_flags */
	/* How many functions' decoded instructions, and variable
	 * locations, are kept between questions; 0: DT_KEEP_FUNCTIONS. */
	unsigned keep_functions;
	/* A directory of inflated copies of compressed debug files, by
	 * build-id, read and written (debugcache.c); NULL: none. */
	const char *cache_dir;
	/* Called once a session has opened a debug file with more than 32 MB
	 * of .debug_info (a kernel's): a command that owns its process may
	 * tune its heap for it (dtresolve's frontend_tune_heap); NULL: nothing. */
	void (*large_debug_info)(void *arg, uint64_t bytes);
	void *large_debug_info_arg;
	/* A large debug file's pages, mapped read-only by libelf, that a
	 * session has read and will rarely read again: the host may give
	 * them back (madvise MADV_DONTNEED: they stay in the page cache).
	 * Called only for pages no write ever made the process's own;
	 * NULL: kept. */
	void (*give_back_pages)(void *arg, void *addr, size_t len);
	void *give_back_pages_arg;
};

/* Open the ELF at path (with separate debug info found through libdwfl:
 * .gnu_debuglink, /usr/lib/debug/.build-id, debuginfod).  A binary
 * without DWARF opens: its answers say DT_NO_DEBUGINFO.  opts may be NULL.
 * Returns 0 and *out, or -errno / -DT_ERR_* with *out = NULL. */
DT_API int dt_session_open(const char *path, const struct dt_session_opts *opts,
		    struct dt_session **out);
/* Free the session and every string its answers point to.  NULL ok. */
DT_API void dt_session_close(struct dt_session *s);
/* For a host's SIGABRT handler, when it chooses to install one (dtresolve
 * does; the plugin never): libdw asserts on some failed allocations
 * (its concurrent hash tables) instead of calling its out-of-memory
 * handler.  Called from the handler, this jumps back into the library
 * call under way on this thread, which then answers no_memory, but only
 * when an allocation of that call has failed (errno ENOMEM; the call
 * starts at 0); otherwise it returns, and the abort is the host's. */
DT_API void dt_oom_escape(void);

/* Reads len instruction bytes at link-time address pc into buf; returns
 * how many, 0 or less to fall back to the file. */
typedef int dt_code_reader(void *arg, uint64_t pc, uint8_t *buf, size_t len);
/* Take instruction bytes from fn (perf's object_code, say) instead of the
 * binary's file until called again with NULL.  Answers stay cached per pc
 * whichever source decoded them. */
DT_API void dt_session_set_code_reader(struct dt_session *s, dt_code_reader *fn,
				void *arg);

/* The path the session was opened with, escaped as dt_text_escape()
 * does (for printing). */
DT_API const char *dt_session_path(const struct dt_session *s);
/* Name of the session's architecture ("x86-64"). */
DT_API const char *dt_session_arch(const struct dt_session *s);
/* True when the session has DWARF. */
DT_API bool dt_session_has_debuginfo(const struct dt_session *s);
/* True when its DWARF is in split units (.dwo files, -gsplit-dwarf). */
DT_API bool dt_session_split_dwarf(const struct dt_session *s);
/* Builds, up to max_units compile units at a time, the indexes of the
 * whole binary an answer may need (the structs that embed others, every
 * unit's static variables, every unit's functions), which are otherwise
 * made when first needed:
 * work for a thread with nothing else to do.  Answers stay the same.
 * Not for a binary with over 32 MB of .debug_info (a kernel: seconds and
 * hundreds of MB).  True when nothing is left to build. */
DT_API bool dt_session_prepare(struct dt_session *s, size_t max_units);
/* True when the file is shorter than its ELF headers say (*need bytes,
 * *have of them): its sections, DWARF among them, may be gone. */
DT_API bool dt_session_truncated(const struct dt_session *s, uint64_t *need,
			  uint64_t *have);
/* DWARF register number for a register name of the session's
 * architecture ("rdi", "%edi"), -1 when unknown. */
DT_API int dt_session_reg(const struct dt_session *s, const char *name);
/* Canonical name of a DWARF register number, NULL when none. */
DT_API const char *dt_session_reg_name(const struct dt_session *s, int reg);

/* The type an allocation site proves of its block: pc is the link-time
 * address an allocator returned to (dtprof-record's return events), and
 * the answer the pointee type of the variable that holds the returned
 * pointer there, or in a register it is copied to before control may
 * go elsewhere (ans->var names it).  DT_OK with ans->type, type_id and
 * type_size; otherwise a miss (no_var: nothing proves a type; no_insn:
 * pc follows no call), and the site is shown untyped. */
DT_API enum dt_reason dt_resolve_alloc_site(struct dt_session *s, uint64_t pc,
					    struct dt_answer *ans);
/* The same for a call that stores its block where its first argument
 * points (posix_memalign(&p, ...)), whose return register holds an error
 * code: the argument a stack slot set in the call's block, and the first
 * reload of that slot on every path from pc (before a store over it, a
 * call or a move of the stack pointer) into a register a variable names
 * there; every such proof must agree. */
DT_API enum dt_reason dt_resolve_alloc_site_stored(struct dt_session *s, uint64_t pc,
						   struct dt_answer *ans);
/* Whether an object of type type_id holds, offset bytes in, an object of
 * the type spelled type (as answers spell it): itself at 0, a member, an
 * element of an array member, any union member's, so on down.  True
 * when it cannot be told (an anonymous aggregate on the way, no such
 * type here). */
DT_API bool dt_type_holds(struct dt_session *s, uint64_t type_id, uint64_t offset,
			  const char *type);
/* The same, told with the claimed type's own DIE: view_id, a type of s
 * (an answer's type_id; 0: by its name alone).  A struct there that
 * starts with every member of view's (two or more), or whose members
 * view's starts with (a header's view of one object: C's common initial
 * sequence, Lua's CommonHeader), or a union view with a member of that
 * type at 0, is held too; and a character type holds and is held
 * anywhere (C reads any object's bytes through one). */
DT_API bool dt_type_holds_view(struct dt_session *s, uint64_t type_id, uint64_t offset,
			       const char *type, uint64_t view_id);
/* Type type_id's member at offset, for an access of size bytes (0:
 * unknown), named as an access's answer names it: past the type's size,
 * an element of an array of it (unless a flexible array member runs on
 * there).  The answer's pc is 0.  Returns ans->reason. */
DT_API enum dt_reason dt_resolve_type_offset(struct dt_session *s, uint64_t type_id,
					     int64_t offset, unsigned size,
					     struct dt_answer *ans);

/* Decode the instruction at link-time address pc and attribute its memory
 * operand.  Always fills *ans; returns ans->reason. */
DT_API enum dt_reason dt_resolve_pc(struct dt_session *s, uint64_t pc,
			     struct dt_answer *ans);
/* The same for a given base register (DWARF number) and offset, without
 * decoding: the tuple form. */
DT_API enum dt_reason dt_resolve_op(struct dt_session *s, uint64_t pc, int reg,
			     int64_t offset, struct dt_answer *ans);

/* Flags of dt_resolve_sample(). */
enum {
	/* pc comes from a non-precise event (cpu-clock, cycles without
	 * :pp): the instruction that waited on memory is usually the one
	 * before.  Attribute the nearest memory access before pc in pc's
	 * basic block, or pc itself when the block has none before it. */
	DT_RESOLVE_SKID = 1 << 0,
};
/* Attribute a sampled pc, as dt_resolve_pc() with flags.  ans->pc is the
 * sampled pc; ans->access_pc the instruction attributed.  Without
 * DT_RESOLVE_SKID (a precise event), a sample on a conditional branch that
 * macro-fused with the memory compare before it is the compare's. */
DT_API enum dt_reason dt_resolve_sample(struct dt_session *s, uint64_t pc,
				 unsigned flags, struct dt_answer *ans);

/* ---- data addresses from sampled registers (dataaddr.c) ----
 * perf record --user-regs (or --intr-regs for the kernel) keeps each
 * sample's registers; with them, the address an access touched follows
 * from its operand when nothing between it and the sampled ip changed
 * the registers it reads. */
struct dt_regs {
	uint64_t mask;		/* bit n: val[n] holds DWARF register n */
	uint64_t val[64];
};
/* Read the register dump perf script prints for a sample (-F uregs or
 * iregs: "ABI:2    AX:0x0    BX:0x7ffe..."), text[0..len), in s's
 * architecture, keeping the one group whose ip register is ip (the user
 * registers of a kernel sample are of another ip).  0; -ENOENT when no
 * group is of ip; -EINVAL when the text is not such a dump. */
DT_API int dt_session_perf_regs(const struct dt_session *s, const char *text,
			 size_t len, uint64_t ip, struct dt_regs *out);
/* One token of perf script's register dump, t[0..n): "ABI:2" (*abi) or
 * "NAME:0xHEX" (the name's length and the value); false for anything
 * else. */
DT_API bool dt_perf_reg_token(const char *t, size_t n, bool *abi, size_t *name_len,
			      uint64_t *val);
/* The perf script fields dtresolve needs for the register route: the
 * process and thread, the time (the sharing window), the event (skid),
 * where the sample is, and the registers. */
#define DT_PERF_SCRIPT_REGS_FIELDS \
	"comm,pid,tid,time,event,ip,sym,symoff,dso,uregs"
/* Why a sample has no data address; DT_ADDR_OK when it has one. */
enum dt_addr_why {
	DT_ADDR_OK = 0,
	DT_ADDR_NO_REGS,	/* the sample carries no registers */
	DT_ADDR_OTHER_IP,	/* registers of another ip (user registers
				 * of a kernel sample) */
	DT_ADDR_NO_OPERAND,	/* no memory operand to compute: a miss, a
				 * stack operation, an undecoded access */
	DT_ADDR_SEGMENT,	/* fs/gs based: the segment base is not a
				 * register perf records */
	DT_ADDR_NARROW,		/* 32-bit address registers */
	DT_ADDR_UNRECORDED,	/* a base or index register not recorded */
	DT_ADDR_CHANGED,	/* written between the access and the ip */
	DT_ADDR_NO_PATH,	/* the access is not on one straight path
				 * to the sampled ip */
	DT_ADDR_WHY_COUNT
};
/* "ok", "no_regs", "regs_of_other_ip", "no_operand", "segment",
 * "narrow_regs", "reg_not_recorded", "reg_changed", "no_straight_path" */
DT_API const char *dt_addr_why_str(enum dt_addr_why w);
/* The data address of the access that answers a sample: pc is the
 * sampled instruction's link-time address in s, access_pc the access
 * charged (dt_answer.access_pc), ip pc's runtime address, regs the
 * registers at ip.  DT_ADDR_OK with *addr (a runtime address), or why
 * not.  The address is the operand's first byte. */
DT_API enum dt_addr_why dt_session_data_addr(struct dt_session *s, uint64_t pc,
				      uint64_t access_pc, uint64_t ip,
				      const struct dt_regs *regs,
				      uint64_t *addr);

/* Fill *ans as a miss for reason r (front ends: bad lines, no dso). */
DT_API void dt_answer_miss(struct dt_answer *ans, uint64_t pc, enum dt_reason r);

/* Instruction text at pc ("mov 0x10(%rdi),%rax") into buf of size len.
 * Returns the instruction's length in bytes, or -errno. */
DT_API int dt_session_disasm(struct dt_session *s, uint64_t pc, char *buf,
		      size_t len);
/* Link-time address of a file offset, through the ELF program headers
 * (perf reports user-space sample addresses as offsets into the file).
 * 0, or -ERANGE when no loadable segment holds the offset. */
DT_API int dt_session_addr_from_offset(const struct dt_session *s, uint64_t offset,
				uint64_t *addr);
/* The binary's GNU build-id: its length and *id pointing into the session,
 * or 0 when it has none. */
DT_API size_t dt_session_build_id(const struct dt_session *s, const uint8_t **id);
/* The same for a name several symbols may have (C++ overloads, as
 * perf script prints them demangled without parameters): the one that
 * offset off fits in and, when several do and runtime_start (the
 * sample's address less off) is not 0, the one that starts at the same
 * place within a page (binaries are loaded at page multiples).  -EEXIST
 * when several fit and the address does not pick one, -ENOENT when none
 * fits. */
DT_API int dt_session_symbol_fit(struct dt_session *s, const char *name,
			  uint64_t off, uint64_t runtime_start, uint64_t *start,
			  uint64_t *size);
/* The function symbol holding link-time pc: its name (lives until
 * dt_session_close()), start and size.  0 or -ENOENT. */
DT_API int dt_session_symbol_at(struct dt_session *s, uint64_t pc, const char **name,
			 uint64_t *start, uint64_t *size);
/* The source file and line of the instruction at link-time pc (the
 * line table's row covering it); the file lives until
 * dt_session_close().  0 or -ENOENT. */
DT_API int dt_session_srcline(struct dt_session *s, uint64_t pc, const char **file,
		       unsigned *line);
/* The compilation directory (DW_AT_comp_dir) of the unit holding
 * link-time pc, as the DWARF spells it; lives until dt_session_close().
 * 0 or -ENOENT. */
DT_API int dt_session_comp_dir(struct dt_session *s, uint64_t pc, const char **dir);
/* Link-time start and size of the function or object symbol name.
 * 0 or -ENOENT. */
DT_API int dt_session_symbol(struct dt_session *s, const char *name,
		      uint64_t *start, uint64_t *size);

/* Whether the type spelled `type` (a report row's name, from session s) is
 * the one a user named `query`: its full name ("struct callchain_list"),
 * bare tag ("callchain_list") or a typedef name of it in s's DWARF ("cJSON";
 * looked up once per name, s may be NULL for no typedef lookup). */
DT_API bool dt_type_name_matches(struct dt_session *s, const char *type,
			  const char *query);
/* Whether type's name is close to query (a likely typo or part of it):
 * for "did you mean" lists. */
DT_API bool dt_type_name_close(const char *type, const char *query);

/* The layout of a type as pahole shows it: every member with offset and
 * size, nested structs and unions expanded one level deeper each, holes
 * and tail padding as rows of their own. */
enum dt_layout_kind { DT_LAYOUT_TYPE, DT_LAYOUT_MEMBER, DT_LAYOUT_HOLE,
		      DT_LAYOUT_PADDING };
struct dt_layout_row {
	enum dt_layout_kind kind;
	unsigned depth;		/* 0: the type itself; members from 1 */
	uint64_t offset;	/* from the start of the type */
	uint64_t size;		/* bytes (a bitfield: its storage bytes) */
	unsigned bit_size;	/* bitfield width, 0 otherwise */
	const char *name;	/* member name, "" when anonymous */
	const char *type;	/* spelled type of the member */
};
struct dt_layout {
	const char *type;
	uint64_t size;
	size_t n;
	const struct dt_layout_row *rows;	/* rows[0] is the type; index
						 * with dt_layout_row() */
	size_t row_size;	/* sizeof(struct dt_layout_row) in the library
				 * that filled it (rows may grow) */
};
/* Row i of l, whatever the size of a row in the library that made it. */
static inline const struct dt_layout_row *dt_layout_row(const struct dt_layout *l,
							size_t i)
{
	return (const struct dt_layout_row *)(const void *)
		((const char *)l->rows + i * l->row_size);
}
/* Layout of the type an answer named (ans->type_id), computed once and
 * kept until dt_session_close().  0 or -errno (-ENOENT: no such type). */
DT_API int dt_layout_get(struct dt_session *s, uint64_t type_id,
		  const struct dt_layout **out);

/* A struct as C declares it, for proposing a new member order: its
 * members (top level, in declaration order) with the text that declares
 * them ("struct list_head link", "unsigned int f : 3", an anonymous
 * union's whole body), where they are and how they must be aligned. */
struct dt_cmember {
	const char *name;	/* "" for an anonymous struct or union */
	const char *decl;	/* without the ';'; bodies one tab deeper */
	uint64_t offset;	/* bytes (a bitfield: of its first bit) */
	uint64_t size;		/* bytes; 0 for bitfields and a flexible array */
	uint64_t align;		/* bytes: DW_AT_alignment, else natural */
	uint64_t bit_offset;	/* bitfields: first bit, from the struct */
	unsigned bit_size;	/* 0: not a bitfield */
	uint64_t unit_size;	/* bitfields: bytes of the declared type */
	bool flexible;		/* a flexible array member */
};
struct dt_cstruct {
	const char *name;	/* "struct record" */
	const char *decl_file;	/* where the DWARF says it is defined, or "" */
	uint64_t size, align;
	uint64_t explicit_align;/* __attribute__((aligned)) of the struct, or 0 */
	const char *why_not;	/* set: it cannot be reordered, and why */
	size_t n;
	const struct dt_cmember *m;
	/* The first fixed_prefix members are also the first members (same
	 * names, types and offsets) of another struct of its unit: a common
	 * header the program may read either struct through (Lua's
	 * CommonHeader, a base "class"), which must stay first, in order. */
	size_t fixed_prefix;
};
/* The struct of type_id; strings live until dt_session_close(), the
 * object until dt_cstruct_free() (NULL ok).  0, -ENOENT or -ENOMEM. */
DT_API int dt_cstruct_new(struct dt_session *s, uint64_t type_id,
		   struct dt_cstruct **out);
DT_API void dt_cstruct_free(struct dt_cstruct *cs);

/* Output of one answer, shared by every front end. */
enum dt_format { DT_FORMAT_TSV, DT_FORMAT_PERF, DT_FORMAT_JSON };
struct dt_print_ctx {
	size_t sz;		/* sizeof(struct dt_print_ctx): fields past
				 * it are taken as 0 */
	enum dt_format format;
	bool verbose;		/* tsv: append dso, variable, reason */
	const char *dso;	/* for -v and json, may be NULL */
	const char *how;	/* -v: how the address was read, may be NULL */
};
/* Print one line (with '\n') for ans. */
DT_API void dt_answer_print(FILE *f, const struct dt_print_ctx *ctx,
		     const struct dt_answer *ans);
struct dt_sample;
/* The same for a sample's answer: json adds the data address smp holds
 * ("data_addr") or why it has none ("no_data_addr"), and, when link_pc
 * (the sampled instruction's link-time address in the dso) is not 0, it
 * and the access charged ("link_pc", "access_pc": link-time addresses,
 * apart when skid moved the charge).  smp may be NULL. */
DT_API void dt_answer_print_sample(FILE *f, const struct dt_print_ctx *ctx,
			    const struct dt_answer *ans,
			    const struct dt_sample *smp, uint64_t link_pc);
/* Parse "tsv", "perf" or "json"; -1 when none. */
DT_API int dt_format_from_str(const char *s);

/*
 * The binaries of a profile, by the names perf gives them: one session
 * each, opened on first use, found where perf's names lead (a vmlinux with
 * DWARF for "[kernel.kallsyms]", perf's build-id cache in ~/.debug when the
 * file on disk is not the one recorded).  Unattributable binaries are said
 * once through the log callback.
 */
struct dt_dsos;
struct dt_dsos_opts {
	size_t sz;			/* sizeof(struct dt_dsos_opts) */
	const char *debuginfo_path;	/* for every session, NULL = default */
	const char *vmlinux;		/* kernel image, NULL = search */
	void (*log)(void *arg, const char *msg);
	void *log_arg;
	/* Every session's other options (flags, keep_functions, cache_dir,
	 * large_debug_info); NULL: the defaults. */
	const struct dt_session_opts *session;
	/* perf's build-id cache (~/.debug), where a binary changed since
	 * the recording is found by its build-id; NULL: not looked in. */
	const char *buildid_dir;
};
/* 0, -ENOMEM, or -DT_ERR_OPTS (opts larger than this library's, with
 * fields it does not know set); opts may be NULL. */
DT_API int dt_dsos_new(const struct dt_dsos_opts *opts, struct dt_dsos **out);
/* Closes every session.  NULL ok. */
DT_API void dt_dsos_free(struct dt_dsos *d);
/* The session for dso name (its build-id, when known, is checked against
 * the file's); NULL with *why (DT_NO_DSO, DT_NO_DEBUGINFO) when its samples
 * cannot be attributed.  The session lives until dt_dsos_free(). */
DT_API struct dt_session *dt_dsos_get(struct dt_dsos *d, const char *name,
			       const uint8_t *build_id, size_t id_len,
			       enum dt_reason *why);
/* Link-time pc in dso name of what perf calls its address there: a file
 * offset for user space; the runtime address for the kernel, corrected
 * for KASLR through the symbol sym+symoff perf found (addr 0: by
 * sym+symoff alone, one symbol of that name and size); a kernel module's
 * symbol sym+symoff (its sections load apart).  0 or -errno. */
DT_API int dt_dsos_link_pc(struct dt_dsos *d, const char *name, uint64_t addr,
		    const char *sym, uint64_t symoff, uint64_t *pc);
/* Opens dso name now, ahead of its samples (a thread with time to spare
 * while perf reads): what opening it would say is kept, and said by the
 * first dt_dsos_get() of name, so a binary no sample asks for says
 * nothing.  A dt_dsos_get() with another build-id opens it again. */
DT_API void dt_dsos_prefetch(struct dt_dsos *d, const char *name,
		      const uint8_t *build_id, size_t id_len);
/* Whether dso name of that build-id leaves little to name: the cache
 * holds answers this engine kept for it (sessions with
 * DT_SESSION_KEEP_ANSWERS), or it is the kernel and no vmlinux with
 * debug info is there to name with.  Opens nothing but that file. */
DT_API bool dt_dsos_answers_kept(const struct dt_dsos *d, const char *name,
				 const uint8_t *build_id, size_t id_len);
/* dt_session_prepare() on the sessions open, in the order they were
 * opened, max_units at a time; true when nothing is left to build. */
DT_API bool dt_dsos_prepare(struct dt_dsos *d, size_t max_units);
/* True for perf's name of the kernel image. */
DT_API bool dt_dso_is_kernel(const char *name);
/* One entry of a perf.data file's build-id table: a binary with samples,
 * by the name and build-id perf gives them (pointers valid during the
 * callback). */
struct dt_build_id_entry {
	const char *name;
	const uint8_t *build_id;
	size_t build_id_size;
	bool kernel;			/* the kernel or a module */
	bool host;			/* not a guest machine's */
};
typedef int dt_build_id_fn(void *arg, const struct dt_build_id_entry *e);
/* Whether fd is open on a perf.data file: a regular file (read with
 * pread, its offset left alone) that starts with "PERFILE2". */
DT_API bool dt_perfdata_is(int fd);
/* Calls fn for each entry of the build-id table of the perf.data file
 * open at fd (read with pread), until fn returns non-zero (returned).
 * 0; -EPROTO for no perf.data file of this byte order, or a corrupt
 * table (the entries before the corruption were given); -ENOENT without
 * a table; -ENOMEM. */
DT_API int dt_perfdata_build_ids(int fd, dt_build_id_fn *fn, void *arg);
/* How many samples (PERF_RECORD_SAMPLE) the data section of the
 * perf.data file open at fd holds, into *samples.  0; -EPROTO for no
 * perf.data file of this byte order, or a corrupt record (*samples: those
 * before it); -ENOTSUP when records are compressed (perf record -z);
 * -errno when it cannot be mapped. */
DT_API int dt_perfdata_count_samples(int fd, uint64_t *samples);
/* A copy of the tracing data of the perf.data file open at fd (its
 * HEADER_TRACING_DATA feature: the formats of its tracepoint and probe
 * events, as perf's trace-event-info writes them), into *data (free it)
 * and *len: 0; -ENOENT without one; -EPROTO for no perf.data file or a
 * section past the file; -ENOMEM. */
DT_API int dt_perfdata_tracing_data(int fd, void **data, size_t *len);
/* The times of the first and last sample of the perf.data file open at
 * fd (its HEADER_SAMPLE_TIME feature, perf 5.x on): 0; -ENOENT without
 * them; -EPROTO for no perf.data file or a corrupt feature. */
DT_API int dt_perfdata_sample_times(int fd, uint64_t *first, uint64_t *last);
/* Path of a readable vmlinux for the running kernel, malloc'd; NULL. */
DT_API char *dt_find_vmlinux(void);
/* True for perf's name of a kernel module: "[sch_fq]", or a .ko path. */
DT_API bool dt_dso_is_kmodule(const char *name);
/* The file of kernel module name (perf's), malloc'd, or NULL: under each
 * directory of search_path (libdwfl's syntax; NULL: /usr/lib/debug), then
 * /, at lib/modules/RELEASE (the vmlinux's "vmlinux-RELEASE", else the
 * running kernel's); a .ko path perf read, under each directory. */
DT_API char *dt_find_kmodule(const char *name, const char *search_path,
		      const char *vmlinux);

/*
 * Aggregation of many answers into the tables both front ends print:
 * per event, samples and period by type, by offset within the type, and
 * by reason for the misses.  Every sample added lands in exactly one type
 * row or one reason row; printing checks that the totals add up.
 */
struct dt_report;

#define DT_REPORT_MAX_EVENTS 16

/* 0 or -ENOMEM. */
DT_API int dt_report_new(struct dt_report **out);
/* NULL ok.  Sessions whose answers were added must outlive the report's
 * last print (layouts are read from them). */
DT_API void dt_report_free(struct dt_report *r);
/* Column index of event name, added on first sight.  Past
 * DT_REPORT_MAX_EVENTS events the last column collects the rest. */
DT_API int dt_report_event(struct dt_report *r, const char *name);
/* Where a load was served from, from a sample's data source. */
enum dt_mem_level {
	DT_LVL_L1, DT_LVL_LFB, DT_LVL_L2, DT_LVL_L3, DT_LVL_HITM,
	DT_LVL_RAM, DT_LVL_REMOTE_RAM, DT_LVL_REMOTE_CACHE, DT_LVL_UNCACHED,
	DT_LVL_OTHER,		/* I/O, PMEM, CXL, a miss, not available */
	DT_LVL_COUNT
};
/* The class of a union perf_mem_data_src value. */
DT_API enum dt_mem_level dt_data_src_level(uint64_t data_src);
/* "L1", "LFB", "L2", "L3", "HITM", "RAM", "remote_RAM", "remote_cache",
 * "uncached", "other": the names of every output. */
DT_API const char *dt_mem_level_str(enum dt_mem_level l);

/* What a sample carries besides its instruction; has says which. */
enum {
	DT_SAMPLE_ADDR = 1 << 0,	/* addr: the data address */
	DT_SAMPLE_WEIGHT = 1 << 1,	/* weight: the access's latency */
	DT_SAMPLE_DATA_SRC = 1 << 2,	/* data_src: perf_mem_data_src */
	DT_SAMPLE_TID = 1 << 3,
	DT_SAMPLE_CPU = 1 << 4,
	DT_SAMPLE_PID = 1 << 5,		/* the process: threads of two
					 * processes never share memory the
					 * tables can see */
	DT_SAMPLE_TIME = 1 << 6,	/* time: when, in ns */
	DT_SAMPLE_ADDR_WHY = 1 << 7,	/* addr_why: why no address (the
					 * register route was tried) */
	DT_SAMPLE_BY_ADDRESS = 1 << 8,	/* the answer with it came from the
					 * heap block its address lies in
					 * (dt_report_type_by_address), not
					 * from its instruction */
};
struct dt_sample {
	size_t sz;		/* sizeof(struct dt_sample): fields past it
				 * are taken as 0 */
	uint64_t period;
	uint64_t addr;
	uint64_t weight;
	uint64_t data_src;
	int32_t tid, cpu;
	unsigned has;
	int32_t pid;
	/* Each field is read only when its bit is in has. */
	uint64_t time;
	enum dt_addr_why addr_why;
	struct dt_session *insn;	/* DT_SAMPLE_BY_ADDRESS: the binary of
					 * the sample's instruction (the
					 * answer's type is the block's site's) */
};

/* Heap blocks by allocation site, from the allocator's calls
 * dtprof-record adds (uprobes on malloc and the like): an entry with the
 * size asked for, its return with the block and the site it returned to,
 * a free; and with --kernel the kernel's (kmem: tracepoints), each block
 * made in one event.  Fed in time order with the samples, they keep each process's
 * live blocks; the objects view lists their sites. */
enum dt_alloc_event {
	DT_ALLOC_ENTER,		/* malloc, calloc, realloc... called */
	DT_ALLOC_RETURN,	/* it returned ptr to site_pc */
	DT_ALLOC_FREE,		/* free(ptr), delete */
	DT_ALLOC_EXEC,		/* process pid ran exec: its blocks are gone */
	DT_ALLOC_BLOCK,		/* ptr, size bytes, made at site_pc in one
				 * event (the kernel's kmem: tracepoints) */
	DT_ALLOC_STORED,	/* the call open on tid stored block ptr for
				 * its caller (posix_memalign's *memptr) */
};
struct dt_alloc {
	size_t sz;		/* sizeof(struct dt_alloc) */
	enum dt_alloc_event event;
	int32_t pid, tid;	/* entry and return pair on tid */
	uint64_t time;		/* ns */
	uint64_t size;		/* ENTER: the bytes asked for (calloc: nmemb
				 * times size) */
	uint64_t ptr;		/* ENTER with resize: the block resized;
				 * RETURN: the block, 0 for a failure;
				 * FREE: the block */
	bool resize;		/* ENTER: realloc (its old block goes) */
	uint64_t elem_size;	/* ENTER: calloc's element size (the block
				 * an array of such elements), else 0 */
	struct dt_session *site;	/* RETURN: the site's binary (NULL:
					 * none known) */
	uint64_t site_pc;	/* RETURN, BLOCK: the link-time return
				 * address */
	bool kernel;		/* a block of the kernel's heap (kmalloc,
				 * kmem_cache_alloc, kfree...): one space all
				 * processes share, which samples whose data
				 * address is in the kernel's half look in;
				 * pid, tid are the event's context */
	bool by_pointer;	/* RETURN: ptr is the call's error code (0:
				 * success), its block the one it stored
				 * (DT_ALLOC_STORED) */
	/* RETURN, BLOCK with no site binary (no debug info: a stripped
	 * program, a kernel without its vmlinux): where perf placed the
	 * return address, its binary's name and symbol (NULL: unknown) and
	 * the offset in it, so that such sites stay apart, by name */
	const char *site_dso, *site_sym;
	uint64_t site_symoff;
	enum dt_reason site_why;	/* and why it has none (DT_OK: taken
					 * as DT_NO_DSO) */
};
/* One allocator event.  0, -EINVAL (a bad struct, a block past the
 * address space) or -ENOMEM. */
DT_API int dt_report_alloc(struct dt_report *r, const struct dt_alloc *a);

/* What a perf event of dtprof-record's is, by its whole name (len bytes,
 * NUL not needed): "dtprof_PID:malloc_PID" on entry and
 * "dtprof_PID:malloc_PID__return" on return (plain "dtprof_PID:malloc"
 * and "...:malloc__return" from older recordings), and the kernel's
 * kmem: tracepoints dtprof-record --kernel adds.  The one list
 * of the calls every reader shares; the fields each carries are
 * dtprof-record(1)'s. */
enum dt_alloc_probe {
	DT_PROBE_NONE,		/* not dtprof-record's */
	DT_PROBE_OTHER,		/* dtprof-record's, a call not read here */
	DT_PROBE_ALLOC,		/* malloc, aligned_alloc, memalign, operator
				 * new, new[], a --wrapper (wrapN): "size" */
	DT_PROBE_CALLOC,	/* calloc: "nmemb", "size" */
	DT_PROBE_REALLOC,	/* realloc: "ptr", "size" */
	DT_PROBE_FREE,		/* free, operator delete (sized), delete[]: "ptr" */
	DT_PROBE_RETURN,	/* one of the allocating calls returned: "ret" */
	DT_PROBE_KERNEL_ALLOC,	/* kmem:kmalloc, kmem:kmem_cache_alloc (and
				 * their _node forms): "call_site", "ptr",
				 * "bytes_req" */
	DT_PROBE_KERNEL_FREE,	/* kmem:kfree, kmem:kmem_cache_free: "ptr" */
	DT_PROBE_STORED,	/* posix_memalign stored its block for its
				 * caller ("pmemalign_block"): "ptr" */
	DT_PROBE_RETURN_CODE,	/* posix_memalign returned: "ret", an error
				 * code (0: the block it stored) */
};
DT_API enum dt_alloc_probe dt_alloc_probe_of(const char *name, size_t len);
/* A sample's answer through its data address (smp->addr, and smp->pid
 * for an address in the user's half; one in the kernel's half, top bit
 * set, is looked up among the kernel's blocks): when
 * ans names no type and the address lies in a live block whose site
 * proves a type (dt_resolve_alloc_site), ans becomes that type's member
 * there (the block's start taken as the type's; past the type's size
 * only in a flexible array member, or in a block calloc made of
 * elements of the type's size: a variable of type T * proves the block
 * starts with a T, not that a T follows a T; a block smaller than T
 * proves nothing), smp->has gains
 * DT_SAMPLE_BY_ADDRESS (smp->insn: s), and the site's binary is
 * returned: count the sample with it.  smp must be this library's
 * size.  A typed answer whose object the block cannot hold is
 * counted as a disagreement (stat).  Otherwise s, nothing changed. */
DT_API struct dt_session *dt_report_type_by_address(struct dt_report *r,
						    struct dt_session *s,
						    struct dt_answer *ans,
						    struct dt_sample *smp);

/* Count one sample of event ev.  s: the session that answered, NULL for a
 * miss without one.  0; -EINVAL when smp is larger than this library's
 * struct and sets fields it does not know (not counted); or -ENOMEM (the
 * sample is then counted as "(unknown)" with no reason row: the totals
 * check reports it). */
DT_API int dt_report_add_sample(struct dt_report *r, int ev, struct dt_session *s,
			 const struct dt_answer *ans,
			 const struct dt_sample *smp);
/* The same for a sample that carries only its period. */
DT_API int dt_report_add(struct dt_report *r, int ev, struct dt_session *s,
		  const struct dt_answer *ans, uint64_t period);
/* n samples alike smp with one answer (the same process, thread, CPU,
 * data source), smp->period the sum of theirs: what n calls of
 * dt_report_add_sample count, at the cost of one.  -EINVAL for a smp
 * with an address, weight or time, each sample's own; 0 or -ENOMEM. */
DT_API int dt_report_add_alike(struct dt_report *r, int ev, struct dt_session *s,
			       const struct dt_answer *ans, const struct dt_sample *smp,
			       uint64_t n);
/* n such samples with one answer, period the sum of theirs: what n calls
 * of dt_report_add count, at the cost of one (0 or -ENOMEM: all n lost). */
DT_API int dt_report_add_many(struct dt_report *r, int ev, struct dt_session *s,
		       const struct dt_answer *ans, uint64_t n, uint64_t period);
/* Keep samples per instruction too, for DT_TABLE_CODE (off by default:
 * it costs a hash lookup per sample).  0 or -ENOMEM. */
DT_API int dt_report_keep_pcs(struct dt_report *r);
/* Count resolved samples in one row, not by type and offset: for a
 * front end that prints only DT_TABLE_STAT (a kernel's answers would
 * otherwise keep tens of thousands of rows no one reads).  Call before
 * the first sample; the other tables are then empty. */
DT_API void dt_report_reasons_only(struct dt_report *r);
/* Keep no threads per cache line (a hash lookup per sample with a tid)
 * for a front end whose tables do not show them: DT_TABLE_TYPES, STAT
 * and CODE.  Call before the first sample; DT_TABLE_SHARING is then
 * empty, and annotate and advise say nothing of threads. */
DT_API void dt_report_no_threads(struct dt_report *r);
/* The input held in_file samples, more than were added (perf stopped
 * early, or its options left samples out): every table says so. */
DT_API void dt_report_incomplete(struct dt_report *r, uint64_t in_file);
/* Two threads' accesses to one real cache line (data addresses) are a
 * meeting, and confirm a sharing flag, when at most ns apart in time;
 * DT_SHARING_WINDOW_NS by default.  Samples without times never meet. */
#define DT_SHARING_WINDOW_NS 10000000ull
DT_API void dt_report_set_window(struct dt_report *r, uint64_t ns);
/* Parse a window in milliseconds ("10", "0.5") into *ns: 0, or -EINVAL
 * for anything but a number from 0 to 10^12. */
DT_API int dt_window_from_str(const char *s, uint64_t *ns);
/* The names of the types r has rows of, pseudo types left out: at most
 * max into names (strings live as long as r); returns how many there
 * are. */
DT_API size_t dt_report_type_names(const struct dt_report *r, const char **names,
			    size_t max);
/* Samples of event ev added so far (all events: ev = -1). */
DT_API uint64_t dt_report_samples(const struct dt_report *r, int ev);

enum dt_table {
	/* in the order the plugin prints the ones asked for */
	DT_TABLE_TYPES,		/* perf report -s type,typeoff --hierarchy */
	DT_TABLE_ANNOTATE,	/* perf annotate --data-type, plus layout */
	DT_TABLE_SHARING,	/* threads per cache line, sharing flags */
	DT_TABLE_CODE,		/* a function's instructions with types */
	DT_TABLE_ADVISE,	/* a proposed member order, as C */
	DT_TABLE_STAT,		/* samples per reason */
	DT_TABLE_OBJECTS,	/* heap blocks by allocation site */
	DT_TABLE_HTML,		/* all of it, one self-contained page */
	DT_TABLE_COUNT
};
/* What a view's argument names, in both front ends (annotate=TYPE). */
enum dt_view_arg {
	DT_VIEW_ARG_NONE,	/* takes none */
	DT_VIEW_ARG_TYPE,	/* may name one type: only that one */
	DT_VIEW_ARG_SYMBOL,	/* must name a function */
};
/* The table a view's name name[0..len) stands for ("report", "annotate",
 * "stat", "sharing", "advise", "code", "html"), and what its argument
 * names; -1 when no view has that name. */
DT_API int dt_table_from_str(const char *name, size_t len, enum dt_view_arg *arg);
/* A table's view name ("annotate"); "" for none. */
DT_API const char *dt_table_str(enum dt_table t);
enum dt_sort { DT_SORT_SAMPLES, DT_SORT_PERIOD, DT_SORT_WEIGHT };
/* Parse "samples", "period" or "weight"; -1 when none. */
DT_API int dt_sort_from_str(const char *s);
struct dt_table_opts {
	size_t sz;		/* sizeof(struct dt_table_opts): fields past
				 * it are taken as 0; a larger struct's tail
				 * must be 0 */
	enum dt_format format;	/* DT_FORMAT_PERF: for people; tsv; json */
	const char *type;	/* annotate, advise, sharing: only the type
				 * of this name (full, bare tag, typedef) */
	enum dt_sort sort;	/* order of types and offsets */
	const char *symbol;	/* DT_TABLE_CODE: the function */
	const char *source_dirs;/* DT_TABLE_HTML: source lines are embedded
				 * from files under each unit's compilation
				 * directory and under these (':'-separated;
				 * NULL: none), never from elsewhere */
};
/* Print a table.  0, or -EPROTO when the totals do not add up (said on
 * the table too), or -ENOMEM. */
DT_API int dt_report_print(FILE *f, const struct dt_report *r, enum dt_table t,
		    const struct dt_table_opts *opts);

/* Add the rows of a types table in tsv (either front end's format=tsv
 * report) to r: runs and machines summed.  Binaries found through dsos
 * (NULL: none) by path and build-id keep their layouts for annotate.
 * Lines may end in CRLF.  0; -EINVAL with *bad_line the first line not
 * of the schema and *nbad how many (the other rows are still added);
 * -EOVERFLOW with *bad_line the row whose counts would sum past 64 bits
 * (reading stops there: nothing of it added); -ENOMEM; -EIO. */
DT_API int dt_report_read_tsv(struct dt_report *r, FILE *in, struct dt_dsos *dsos,
		       unsigned long *bad_line, unsigned long *nbad);
/* Compare two reports per event (by name; one event each is compared
 * whatever the names): per type and field, the share of samples before
 * and after, the delta, and the offset and cache line on each side.
 * Fields are matched by type name and member path, so a reordered
 * struct's fields are followed to their new offsets.  format: PERF or
 * TSV.  0, -ENOENT when no event is in both, -ENOMEM. */
DT_API int dt_report_print_diff(FILE *f, const struct dt_report *before,
			 const struct dt_report *after, const char *name_before,
			 const char *name_after, const struct dt_table_opts *opts);

#endif
