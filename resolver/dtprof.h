/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libdtprof: name the C type and field that a memory-access instruction
 * touches, from the binary's DWARF.  One session per binary; answers are
 * cached per (pc, operand).  The library never prints or exits.
 */
#ifndef DTPROF_H
#define DTPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DTPROF_VERSION "0.1.0"

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
	DT_BAD_OFFSET,		/* offset falls outside the type */
	DT_BAD_LINE,		/* input line could not be parsed (front ends) */
	DT_REASON_COUNT
};

/* Own error codes, returned negated like -errno. */
enum {
	DT_ERR_BASE = 4000,
	DT_ERR_NOT_ELF = DT_ERR_BASE,	/* file is not an ELF object */
	DT_ERR_ARCH,			/* ELF machine not supported */
	DT_ERR_DWFL,			/* libdwfl refused the file */
	DT_ERR_OPTS,			/* unknown non-zero option fields */
	DT_ERR_END
};

/* Name of a reason ("no_var"); "ok" for DT_OK. */
const char *dt_reason_str(enum dt_reason r);
/* Reason for its name, or -1. */
int dt_reason_from_str(const char *name);
/* Message for 0 / -errno / -DT_ERR_*; static storage. */
const char *dt_strerror(int err);

#define DT_TYPE_UNKNOWN "(unknown)"
#define DT_TYPE_STACK_OP "(stack operation)"
#define DT_TYPE_CANARY "(stack canary)"

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
	int64_t disp;		/* operand displacement as encoded */
	unsigned size;		/* access size in bytes, 0 when unknown */
	uint64_t type_size;	/* sizeof the named type, 0 when unknown */
};

struct dt_session;

struct dt_session_opts {
	size_t sz;			/* sizeof(struct dt_session_opts) */
	const char *debuginfo_path;	/* libdwfl search path, NULL = default */
	/* Called with one line of trace when DTPROF_DEBUG=1, or with a
	 * warning; NULL = silent. */
	void (*log)(void *arg, const char *msg);
	void *log_arg;
};

/* Open the ELF at path (with separate debug info found through libdwfl:
 * .gnu_debuglink, /usr/lib/debug/.build-id, debuginfod).  A binary
 * without DWARF opens: its answers say DT_NO_DEBUGINFO.  opts may be NULL.
 * Returns 0 and *out, or -errno / -DT_ERR_* with *out = NULL. */
int dt_session_open(const char *path, const struct dt_session_opts *opts,
		    struct dt_session **out);
/* Free the session and every string its answers point to.  NULL ok. */
void dt_session_close(struct dt_session *s);

/* Name of the session's architecture ("x86-64"). */
const char *dt_session_arch(const struct dt_session *s);
/* True when the session has DWARF. */
bool dt_session_has_debuginfo(const struct dt_session *s);
/* DWARF register number for a register name of the session's
 * architecture ("rdi", "%edi"), -1 when unknown. */
int dt_session_reg(const struct dt_session *s, const char *name);
/* Canonical name of a DWARF register number, NULL when none. */
const char *dt_session_reg_name(const struct dt_session *s, int reg);

/* Decode the instruction at link-time address pc and attribute its memory
 * operand.  Always fills *ans; returns ans->reason. */
enum dt_reason dt_resolve_pc(struct dt_session *s, uint64_t pc,
			     struct dt_answer *ans);
/* The same for a given base register (DWARF number) and offset, without
 * decoding: the tuple form. */
enum dt_reason dt_resolve_op(struct dt_session *s, uint64_t pc, int reg,
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
 * sampled pc; ans->access_pc the instruction attributed. */
enum dt_reason dt_resolve_sample(struct dt_session *s, uint64_t pc,
				 unsigned flags, struct dt_answer *ans);

/* Fill *ans as a miss for reason r (front ends: bad lines, no dso). */
void dt_answer_miss(struct dt_answer *ans, uint64_t pc, enum dt_reason r);

/* Instruction text at pc ("mov 0x10(%rdi),%rax") into buf of size len.
 * Returns the instruction's length in bytes, or -errno. */
int dt_session_disasm(struct dt_session *s, uint64_t pc, char *buf,
		      size_t len);
/* Link-time start and size of the function or object symbol name.
 * 0 or -ENOENT. */
int dt_session_symbol(struct dt_session *s, const char *name,
		      uint64_t *start, uint64_t *size);

/* Output of one answer, shared by every front end. */
enum dt_format { DT_FORMAT_TSV, DT_FORMAT_PERF, DT_FORMAT_JSON };
struct dt_print_ctx {
	enum dt_format format;
	bool verbose;		/* tsv: append dso, variable, reason */
	const char *dso;	/* for -v and json, may be NULL */
};
/* Print one line (with '\n') for ans. */
void dt_answer_print(FILE *f, const struct dt_print_ctx *ctx,
		     const struct dt_answer *ans);
/* Parse "tsv", "perf" or "json"; -1 when none. */
int dt_format_from_str(const char *s);

/* Per-reason counters: every answer lands in exactly one. */
struct dt_stat {
	uint64_t resolved;
	uint64_t by_reason[DT_REASON_COUNT];
};
void dt_stat_add(struct dt_stat *st, const struct dt_answer *ans);
uint64_t dt_stat_total(const struct dt_stat *st);
/* Print "reason<TAB>count" rows with a header and a total. */
void dt_stat_print(FILE *f, const struct dt_stat *st);

#endif
