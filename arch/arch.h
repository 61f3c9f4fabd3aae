/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ISA facts for dtprof: register names <-> DWARF numbers, how a decoded
 * instruction's tokens spell a memory operand, which instructions touch
 * the stack implicitly.  No libdw or bfd types here: generic code hands
 * an architecture the disassembler's styled tokens and gets plain data back.
 */
#ifndef DTPROF_ARCH_H
#define DTPROF_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One styled token printed by the disassembler (mirrors libopcodes'
 * enum disassembler_style, so arch code needs no bfd headers). */
enum dt_tok_kind {
	DT_TOK_TEXT,
	DT_TOK_MNEMONIC,
	DT_TOK_SUB_MNEMONIC,
	DT_TOK_DIRECTIVE,
	DT_TOK_REGISTER,
	DT_TOK_IMMEDIATE,
	DT_TOK_ADDRESS,
	DT_TOK_ADDRESS_OFFSET,
	DT_TOK_SYMBOL,
	DT_TOK_COMMENT,
};

struct dt_tok {
	enum dt_tok_kind kind;
	const char *text;	/* NUL-terminated, owned by the decoder */
};

/* Where a quick decoder (dt_arch.quick_decode) hands its tokens, one at a
 * time, as libopcodes' styled printer would: text is len bytes, not
 * NUL-terminated. */
struct dt_tok_sink {
	void (*put)(struct dt_tok_sink *sink, enum dt_tok_kind kind,
		    const char *text, size_t len);
};

/* A decoded memory operand.  Registers are DWARF register numbers, -1 when
 * absent.  disp is the signed displacement as encoded; for pc-relative
 * operands the effective address is insn end + disp. */
struct dt_mem_op {
	int base;
	int index;
	int scale;
	int64_t disp;
	int segment;		/* DWARF number of a segment register, or -1 */
	bool pc_relative;
	bool absolute;		/* no base, no index: disp is an address */
	bool indirect_branch;	/* call / jmp through memory */
	unsigned size;		/* access size in bytes, 0 when unknown */
	bool fp;		/* through a floating-point or vector register */
	bool fuses;		/* a compare-like access that fuses with a
				 * following conditional branch (x86 macro
				 * fusion): a precise sample lands on the jcc */
	uint64_t bits;		/* test/and/or/xor/bt* with an immediate: the
				 * bits it looks at or changes, from the
				 * access's first byte; 0: all of them */
	unsigned access;	/* DT_MEM_READ | DT_MEM_WRITE as the
				 * instruction uses the operand; 0 when
				 * unknown */
	bool narrow;		/* a base or index register read as 32 bits
				 * (x86 "(%eax)", AArch64 "[x0, w1, sxtw]"):
				 * the address is not the 64-bit registers' */
};

/* Bits of dt_mem_op.access (the values of dtprof.h's enum dt_access). */
#define DT_MEM_READ 1u
#define DT_MEM_WRITE 2u

/* What the token parser concluded about one instruction. */
enum dt_op_kind {
	DT_OP_MEMORY,		/* *op filled in */
	DT_OP_STACK,		/* implicit stack access: push, pop, call, ret... */
	DT_OP_NONE,		/* no memory access (register ops, lea, nop) */
	DT_OP_UNPARSED,		/* a memory operand we could not read */
};

/* How control leaves an instruction (for basic blocks). */
enum dt_flow {
	DT_FLOW_NEXT,		/* falls through */
	DT_FLOW_BRANCH,		/* conditional: target or fall through */
	DT_FLOW_JUMP,		/* unconditional, to target */
	DT_FLOW_CALL,		/* call: returns to the next instruction */
	DT_FLOW_END,		/* return, trap: no successor */
	DT_FLOW_INDIRECT,	/* jump through a register or memory: a jump
				 * table or a tail call, successors unknown */
};

/* How an instruction sets a general register, for following pointers that
 * no variable describes (register copies, loads, spills and reloads,
 * address arithmetic).  Whatever an instruction might write beyond what
 * kind says is in clobbers and mem_span: a register or a byte of stack
 * missed here would keep a stale type, so when unsure, say it is written. */
enum dt_def_kind {
	DT_DEF_NONE,		/* no register written that we follow */
	DT_DEF_COPY,		/* dst = src, all 64 bits */
	DT_DEF_LOAD,		/* dst = the 8 bytes at mem */
	DT_DEF_OTHER,		/* dst = anything else */
	DT_DEF_CALL,		/* the caller-saved registers are lost; the
				 * direct callee's address in value, or 0 */
	DT_DEF_STORE,		/* the 8 bytes at mem = src (no register set) */
	DT_DEF_ADDR,		/* dst = the constant address value */
	DT_DEF_ADDI,		/* dst = src + value */
	DT_DEF_ADD,		/* dst = src + src2 * scale + value, an absent
				 * register counting 0; src2 may be a pointer
				 * only when scale is 1 */
	DT_DEF_MUL,		/* dst = src * value; src -1: some integer
				 * (from memory) */
	DT_DEF_SUB,		/* dst = src - src2 * scale (registers) */
	DT_DEF_MADD,		/* dst = src3 + src * src2 (registers; src3
				 * -1: a plain product) */
	DT_DEF_ORI,		/* dst = src | value (value >= 0): an add
				 * where the bits cannot meet */
	DT_DEF_ZERO,		/* dst = 0 ("xor %eax,%eax") */
};

struct dt_def {
	enum dt_def_kind kind;
	int dst, src, src2, src3;	/* DWARF numbers, -1 when none */
	unsigned scale;		/* DT_DEF_ADD */
	int64_t value;		/* ADDR, ADDI, ADD, MUL; CALL: the direct callee */
	struct dt_mem_op mem;	/* LOAD and STORE; any memory written when
				 * mem_span > 0 */
	unsigned mem_span;	/* bytes the instruction may write at mem */
	uint64_t clobbers;	/* bit n: register n may be written too
				 * (implicit operands, pairs) */
	int wb_reg;		/* write-back: wb_reg += wb_value, -1 none */
	int64_t wb_value;
};

#define DT_MAX_GPRS 32	/* the most general registers of any ISA here */
/* What a register holds after reading the thread pointer ("mrs x0,
 * tpidr_el0"), as a static address (DT_DEF_ADDR) the dataflow adds
 * offsets to: no link-time address is this high, and the offsets of
 * thread-locals from it stay below DT_THREAD_POINTER_SPAN. */
#define DT_THREAD_POINTER 0x7ff0000000000000ULL
#define DT_THREAD_POINTER_SPAN (1ULL << 32)
/* Likewise, what a register holds after loading an initial-exec GOT slot:
 * the module's TLS block, as the thread pointer plus the slot's value
 * reaches it ("mov x@gottpoff(%rip),%rax"; then "%fs:8(%rax)" is offset
 * 8 of x).  Below DT_THREAD_POINTER by more than its span. */
#define DT_TLS_BLOCK 0x7fe0000000000000ULL
/* And what a kernel's register holds after reading this CPU's offset of
 * the per-CPU areas ("mrs x1, tpidr_el1", AArch64): added to a per-CPU
 * variable's address (AArch64 links .data..percpu at a kernel address),
 * it reaches this CPU's copy of that variable, which the dataflow names
 * as the variable itself. */
#define DT_PERCPU_OFFSET 0x7fd0000000000000ULL

struct dt_arch {
	const char *name;		/* "x86-64" */
	uint16_t e_machine;		/* EM_X86_64 */
	const char *bfd_arch;		/* libopcodes' name, for bfd_scan_arch */
	unsigned max_insn_len;
	int dwarf_sp, dwarf_fp, dwarf_pc;
	int dwarf_retval;		/* where a call leaves a pointer result */
	int dwarf_arg0;			/* where a call takes its first argument */
	unsigned nregs;			/* DWARF numbers 0..nregs-1 have names */
	unsigned ngpr;			/* general registers: DWARF 0..ngpr-1
					 * (at most DT_MAX_GPRS), the ones
					 * instruction tracking follows */
	unsigned ptr_size;		/* bytes of a data pointer */
	/* PLT layout (psABI): entry i of .rela.plt is at .plt + plt_header +
	 * plt_entry * i, or .plt.sec + plt_entry * i where that exists */
	unsigned plt_header, plt_entry;
	/* The segment register whose base is the thread pointer, with the
	 * program's thread-locals just below it ("TLS variant II": x86-64
	 * local-exec reads %fs:-8); -1 when the ISA has no such operand. */
	int tls_segment;
	/* The segment register a Linux kernel reaches this CPU's per-CPU
	 * variables through ("%gs:0x1a0" on x86-64), -1 when none. */
	int percpu_segment;
	/* The dynamic relocation that fills a GOT slot with a thread-local's
	 * offset from the thread pointer (initial-exec: R_X86_64_TPOFF64),
	 * 0 when its accesses are not followed. */
	unsigned tpoff_reloc;
	/* General- and local-dynamic ("lea x@tlsgd(%rip),%rdi; call
	 * __tls_get_addr@plt"): the relocations of a GOT pair, the module
	 * (R_X86_64_DTPMOD64) and the offset in its block (DTPOFF64), and
	 * the register passing the pair's address; 0 and -1 when not
	 * followed (AArch64 uses TLS descriptors). */
	unsigned dtpmod_reloc, dtpoff_reloc;
	int tls_get_addr_arg;
	/* TLS variant I (AArch64): the thread pointer is read into a
	 * register ("mrs x0, tpidr_el0"), and the program's block follows a
	 * thread control block of this many bytes (rounded up to the
	 * block's alignment); 0 for variant II (x86-64). */
	unsigned tls_tcb_size;
	/* A relocatable file's (.o, a kernel module's .ko) relocation of
	 * type, applied as a static link would: the field at where (room
	 * bytes left in its section) gets symbol + addend, relative to the
	 * field's address place where the type says so.  A type that
	 * reaches its target through a GOT slot or a TLS block points at
	 * nowhere + addend instead (an address where nothing is: no
	 * variable is named from it).  False: a type this does not apply
	 * (NULL: the arch's relocatable files are not read). */
	bool (*apply_reloc)(unsigned type, uint64_t symbol, int64_t addend,
			    uint64_t place, uint64_t nowhere, uint8_t *where,
			    size_t room);

	/* DWARF number for any spelling of a register ("%eax", "ax", "al"
	 * all give rax's number), -1 when unknown.  len bytes of name. */
	int (*reg_from_name)(const char *name, size_t len);
	/* Canonical name of a DWARF register ("rdi"), NULL when none. */
	const char *(*reg_name)(int dwarf_reg);
	/* The instruction at pc decoded without libopcodes, into the tokens
	 * libopcodes would print, for the instructions compilers emit most:
	 * its length, or 0 (some tokens possibly handed out already) when
	 * it is left to libopcodes.  NULL: libopcodes decodes everything. */
	unsigned (*quick_decode)(uint64_t pc, const uint8_t *bytes,
				 size_t avail, struct dt_tok_sink *sink);
	/* Classify one decoded instruction from its tokens. */
	enum dt_op_kind (*classify)(const struct dt_tok *toks, size_t ntoks,
				    struct dt_mem_op *op);
	/* Control flow of one decoded instruction; *target is set for
	 * DT_FLOW_BRANCH, DT_FLOW_JUMP and direct DT_FLOW_CALL (else 0). */
	enum dt_flow (*flow)(const struct dt_tok *toks, size_t ntoks,
			     uint64_t *target);
	/* What the instruction at pc, len bytes long, does to a register. */
	void (*def)(const struct dt_tok *toks, size_t ntoks, uint64_t pc,
		    unsigned len, struct dt_def *d);
	/* classify and def of one instruction from one parse of its
	 * tokens, for whole-function maps; NULL: the two are called. */
	enum dt_op_kind (*classify_def)(const struct dt_tok *toks, size_t ntoks,
					uint64_t pc, unsigned len,
					struct dt_mem_op *op, struct dt_def *d);
	uint64_t caller_saved;	/* bit n: DWARF register n dies in a call */
	/* True for the stack-protector load (x86-64: %fs:0x28). */
	bool (*is_stack_canary)(const struct dt_mem_op *op);
	/* How perf names the sampled registers it prints (perf script -F
	 * uregs, iregs: "AX", "x0"), by DWARF number; NULL where perf
	 * has no name for one.  perf_regs_n entries. */
	const char *const *perf_regs;
	unsigned perf_regs_n;
	const char *perf_ip;		/* and the sampled ip: "IP", "pc" */
	/* True when the instruction tests or masks constant bits of a
	 * register ("tbnz w0, #2, ...", "test $0x4,%al"): *reg and *bits,
	 * so a bitfield loaded just before is named by the bits used. */
	bool (*tests_bits)(const struct dt_tok *toks, size_t ntoks, int *reg,
			   uint64_t *bits);
	/* True when the instruction shifts a register right by a constant
	 * ("shr $0x3,%eax"): *reg and *by, so that the mask after it names
	 * the bits of the load before it.  NULL: not followed. */
	bool (*shifts_right)(const struct dt_tok *toks, size_t ntoks, int *reg,
			     unsigned *by);
	/* True when the instruction compares two whole general registers
	 * ("cmp %rdi,%rsi", "cmp x0, x1"): *a and *b, so that a pointer
	 * compared with another after an access may be a list walk's end.
	 * NULL: not asked. */
	bool (*compares_regs)(const struct dt_tok *toks, size_t ntoks, int *a,
			      int *b);
};

extern const struct dt_arch dt_arch_x86_64;
extern const struct dt_arch dt_arch_aarch64;
/* x86-64's quick_decode (arch/x86_64_quick.c) */
unsigned x86_quick_decode(uint64_t pc, const uint8_t *bytes, size_t avail,
			  struct dt_tok_sink *sink);

/* The architecture for an ELF e_machine, NULL when unsupported. */
const struct dt_arch *dt_arch_for_machine(uint16_t e_machine);
/* n bytes at where, little-endian: relocated fields (apply_reloc). */
uint64_t dt_get_le(const uint8_t *where, size_t n);
void dt_put_le(uint8_t *where, uint64_t v, size_t n);
/* By name ("x86-64", "x86_64"), NULL when unsupported. */
const struct dt_arch *dt_arch_for_name(const char *name);


/* Whether mnemonic or token s begins with prefix: the decoders ask this
 * dozens of times per instruction, so no strlen + strncmp calls. */
static inline bool starts_with(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return false;
	return true;
}

#endif
