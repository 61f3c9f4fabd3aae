// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What instructions do to registers and stack memory (dt_arch.def), the
 * facts track.c's dataflow is built on, against real encodings.  A write
 * missed here would leave a stale pointer type behind, so besides the
 * followed forms (copies, loads, spills, address arithmetic) the implicit
 * writes are checked: rdx:rax of cqto and div, both registers of xchg,
 * rsp of push and pop, pairs and write-back on AArch64.
 */
#include "../lib/engine/internal.h"
#include "tap.h"

#define R(r) (1ull << (r))
enum { RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8, R9, R10 };
#define NONE (-1)

struct def_case {
	const char *what;
	uint8_t bytes[16];
	unsigned len;
	enum dt_def_kind kind;
	int dst, src, src2;
	unsigned scale;
	int64_t value;
	uint64_t clobbers;	/* must all be set */
	unsigned span;		/* memory written, 0: none */
};

/* C(what, kind, dst, src, src2, scale, value, clobbers, span, bytes...) */
#define C(what, kind, dst, src, src2, scale, value, clob, span, ...)		\
	{ what, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), kind, dst, src,	\
	  src2, scale, value, clob, span }

static const struct def_case x86[] = {
	C("mov %rdi,%rax", DT_DEF_COPY, RAX, RDI, NONE, 0, 0, 0, 0, 0x48, 0x89, 0xf8),
	C("mov 0x8(%rdi),%rax", DT_DEF_LOAD, RAX, NONE, NONE, 0, 0, 0, 0,
	  0x48, 0x8b, 0x47, 0x08),
	C("mov %rsi,-0x18(%rbp)", DT_DEF_STORE, NONE, RSI, NONE, 0, 0, 0, 8,
	  0x48, 0x89, 0x75, 0xe8),
	C("lea 0x30(%rdi),%rax", DT_DEF_ADDI, RAX, RDI, NONE, 0, 0x30, 0, 0,
	  0x48, 0x8d, 0x47, 0x30),
	C("lea (%rdi,%rsi,8),%rcx", DT_DEF_ADD, RCX, RDI, RSI, 8, 0, 0, 0,
	  0x48, 0x8d, 0x0c, 0xf7),
	C("lea 0x0(,%rax,8),%rdx", DT_DEF_ADD, RDX, NONE, RAX, 8, 0, 0, 0,
	  0x48, 0x8d, 0x14, 0xc5, 0, 0, 0, 0),
	C("lea (%r8,%r9,1),%r10", DT_DEF_ADD, R10, R8, R9, 1, 0, 0, 0,
	  0x4f, 0x8d, 0x14, 0x08),
	C("add $0x10,%rax", DT_DEF_ADDI, RAX, RAX, NONE, 0, 0x10, 0, 0,
	  0x48, 0x83, 0xc0, 0x10),
	C("sub $0x8,%rdi", DT_DEF_ADDI, RDI, RDI, NONE, 0, -8, 0, 0, 0x48, 0x83, 0xef, 0x08),
	C("add %rdx,%rax", DT_DEF_ADD, RAX, RAX, RDX, 1, 0, 0, 0, 0x48, 0x01, 0xd0),
	C("sub %rdx,%rax", DT_DEF_SUB, RAX, RAX, RDX, 1, 0, 0, 0, 0x48, 0x29, 0xd0),
	C("movslq %edi,%rdi (the same index, widened)", DT_DEF_MUL, RDI, RDI, NONE, 0, 1, 0, 0,
	  0x48, 0x63, 0xff),
	C("mov $0x128,%ecx (a constant)", DT_DEF_MUL, RCX, NONE, NONE, 0, 0x128, 0, 0,
	  0xb9, 0x28, 0x01, 0x00, 0x00),
	C("imul %rcx,%rax", DT_DEF_MADD, RAX, RAX, RCX, 0, 0, 0, 0, 0x48, 0x0f, 0xaf, 0xc1),
	C("shl $0x3,%rax", DT_DEF_MUL, RAX, RAX, NONE, 0, 8, 0, 0, 0x48, 0xc1, 0xe0, 0x03),
	C("imul $0x18,%rsi,%rcx", DT_DEF_MUL, RCX, RSI, NONE, 0, 24, 0, 0,
	  0x48, 0x6b, 0xce, 0x18),
	C("imul $0x18,-0x10(%rbp),%rcx", DT_DEF_MUL, RCX, NONE, NONE, 0, 24, 0, 0,
	  0x48, 0x6b, 0x4d, 0xf0, 0x18),
	C("lea 0x100(%rip),%rdx", DT_DEF_ADDR, RDX, NONE, NONE, 0, 0x1000 + 7 + 0x100, 0, 0,
	  0x48, 0x8d, 0x15, 0, 1, 0, 0),
	C("mov %eax,%ecx (32-bit: not followed)", DT_DEF_OTHER, RCX, NONE, NONE, 0, 0, 0, 0,
	  0x89, 0xc1),
	C("xchg %rax,%rbx", DT_DEF_OTHER, RBX, NONE, NONE, 0, 0, R(RAX) | R(RBX), 0,
	  0x48, 0x93),
	C("cqto", DT_DEF_NONE, NONE, NONE, NONE, 0, 0, R(RAX) | R(RDX), 0, 0x48, 0x99),
	C("cltd", DT_DEF_NONE, NONE, NONE, NONE, 0, 0, R(RAX) | R(RDX), 0, 0x99),
	C("div %rcx", DT_DEF_OTHER, RCX, NONE, NONE, 0, 0, R(RAX) | R(RDX), 0,
	  0x48, 0xf7, 0xf1),
	C("push %rbx", DT_DEF_NONE, NONE, NONE, NONE, 0, 0, R(RSP), 0, 0x53),
	C("pop %rbx", DT_DEF_OTHER, RBX, NONE, NONE, 0, 0, R(RSP), 0, 0x5b),
	C("leave", DT_DEF_NONE, NONE, NONE, NONE, 0, 0, R(RBP) | R(RSP), 0, 0xc9),
	C("movl $0x0,-0x14(%rbp) (4-byte store)", DT_DEF_NONE, NONE, NONE, NONE, 0, 0, 0, 4,
	  0xc7, 0x45, 0xec, 0, 0, 0, 0),
	C("cmp %rax,(%rdi) (reads only)", DT_DEF_NONE, NONE, NONE, NONE, 0, 0, 0, 0,
	  0x48, 0x39, 0x07),
	C("rep stos %rax,%es:(%rdi)", DT_DEF_NONE, NONE, NONE, NONE, 0, 0, R(RCX) | R(RDI), 8,
	  0xf3, 0x48, 0xab),
};

static const struct def_case a64[] = {
	C("mov x0, x1", DT_DEF_COPY, 0, 1, NONE, 0, 0, 0, 0, 0xe0, 0x03, 0x01, 0xaa),
	C("mov x29, sp (a frame)", DT_DEF_COPY, 29, 31, NONE, 0, 0, 0, 0,
	  0xfd, 0x03, 0x00, 0x91),
	C("ldr x0, [x1, #8]", DT_DEF_LOAD, 0, NONE, NONE, 0, 0, 0, 0, 0x20, 0x04, 0x40, 0xf9),
	C("ldr x0, [x1, x2, lsl #3]", DT_DEF_LOAD, 0, NONE, NONE, 0, 0, 0, 0,
	  0x20, 0x78, 0x62, 0xf8),
	C("str x0, [sp, #16]", DT_DEF_STORE, NONE, 0, NONE, 0, 0, 0, 8,
	  0xe0, 0x0b, 0x00, 0xf9),
	C("stp x0, x1, [sp, #16]", DT_DEF_NONE, NONE, NONE, NONE, 0, 0, 0, 16,
	  0xe0, 0x07, 0x01, 0xa9),
	C("ldp x0, x1, [x2]", DT_DEF_OTHER, 0, NONE, NONE, 0, 0, R(0) | R(1), 0,
	  0x40, 0x04, 0x40, 0xa9),
	C("ldr x0, [x1], #8 (write-back)", DT_DEF_OTHER, 0, NONE, NONE, 0, 0, R(1), 0,
	  0x20, 0x84, 0x40, 0xf8),
	C("add x0, x1, #0x30", DT_DEF_ADDI, 0, 1, NONE, 0, 0x30, 0, 0, 0x20, 0xc0, 0x00, 0x91),
	C("sub x0, x0, #0x10", DT_DEF_ADDI, 0, 0, NONE, 0, -16, 0, 0, 0x00, 0x40, 0x00, 0xd1),
	C("add x0, x0, #0x1, lsl #12", DT_DEF_ADDI, 0, 0, NONE, 0, 0x1000, 0, 0,
	  0x00, 0x04, 0x40, 0x91),
	C("sub x1, x1, #0x2, lsl #12", DT_DEF_ADDI, 1, 1, NONE, 0, -0x2000, 0, 0,
	  0x21, 0x08, 0x40, 0xd1),
	C("mrs x3, tpidr_el0 (the thread pointer, as an address)", DT_DEF_ADDR, 3,
	  NONE, NONE, 0, (int64_t)DT_THREAD_POINTER, 0, 0, 0x43, 0xd0, 0x3b, 0xd5),
	C("mrs x4, tpidr_el1 (a kernel's per-CPU offset, as an address)", DT_DEF_ADDR, 4,
	  NONE, NONE, 0, (int64_t)DT_PERCPU_OFFSET, 0, 0, 0x84, 0xd0, 0x38, 0xd5),
	C("mrs x5, tpidr_el2 (the same, a kernel at EL2)", DT_DEF_ADDR, 5,
	  NONE, NONE, 0, (int64_t)DT_PERCPU_OFFSET, 0, 0, 0x45, 0xd0, 0x3c, 0xd5),
	C("add x0, x1, x2", DT_DEF_ADD, 0, 1, 2, 1, 0, 0, 0, 0x20, 0x00, 0x02, 0x8b),
	C("add x0, x1, x2, lsl #3", DT_DEF_ADD, 0, 1, 2, 8, 0, 0, 0, 0x20, 0x0c, 0x02, 0x8b),
	C("sub x2, x2, x1", DT_DEF_SUB, 2, 2, 1, 1, 0, 0, 0, 0x42, 0x00, 0x01, 0xcb),
	C("sxtw x2, w0 (the same index, widened)", DT_DEF_MUL, 2, 0, NONE, 0, 1, 0, 0,
	  0x02, 0x7c, 0x40, 0x93),
	C("mov w2, #0x128 (a constant)", DT_DEF_MUL, 2, NONE, NONE, 0, 0x128, 0, 0,
	  0x02, 0x25, 0x80, 0x52),
	C("smaddl x1, w1, w2, x0", DT_DEF_MADD, 1, 1, 2, 0, 0, 0, 0, 0x21, 0x00, 0x22, 0x9b),
	C("sub x0, x1, x2, lsl #3", DT_DEF_SUB, 0, 1, 2, 8, 0, 0, 0, 0x20, 0x0c, 0x02, 0xcb),
	C("add x0, x1, x2, asr #3 (not an index)", DT_DEF_OTHER, 0, NONE, NONE, 0, 0, 0, 0,
	  0x20, 0x0c, 0x82, 0x8b),
	C("lsl x0, x1, #3", DT_DEF_MUL, 0, 1, NONE, 0, 8, 0, 0, 0x20, 0xf0, 0x7d, 0xd3),
	C("sbfiz x2, x4, #3, #32", DT_DEF_MUL, 2, 4, NONE, 0, 8, 0, 0,
	  0x82, 0x7c, 0x7d, 0x93),
};

static void check(struct decoder *d, const struct dt_arch *arch, const char *name,
		  const struct def_case *c)
{
	struct decoded_insn insn;
	struct dt_def def;

	if (!is_int(decoder_run(d, 0x1000, c->bytes, c->len, &insn), c->len,
		    "%s %s: decodes", name, c->what))
		return;
	arch->def(insn.toks, insn.ntoks, 0x1000, insn.len, &def);
	bool same = def.kind == c->kind &&
		    (c->kind == DT_DEF_NONE || def.dst == c->dst) &&
		    (c->kind != DT_DEF_COPY && c->kind != DT_DEF_ADDI &&
		     c->kind != DT_DEF_ADD && c->kind != DT_DEF_MUL &&
		     c->kind != DT_DEF_STORE ? true : def.src == c->src) &&
		    (c->kind != DT_DEF_ADD && c->kind != DT_DEF_SUB ? true :
		     def.src2 == c->src2 && def.scale == c->scale) &&
		    (c->kind != DT_DEF_SUB && c->kind != DT_DEF_MADD ? true :
		     def.src == c->src && def.src2 == c->src2) &&
		    (c->kind != DT_DEF_ADDI && c->kind != DT_DEF_MUL &&
		     c->kind != DT_DEF_ADDR ? true : def.value == c->value);
	ok(same, "%s %s: kind %d dst %d src %d src2 %d scale %u value %lld", name,
	   c->what, def.kind, def.dst, def.src, def.src2, def.scale, (long long)def.value);
	uint64_t writes = def.clobbers | (def.wb_reg >= 0 ? R(def.wb_reg) : 0);
	ok((writes & c->clobbers) == c->clobbers, "%s %s: also writes %#llx",
	   name, c->what, (unsigned long long)writes);
	ok(c->span ? def.mem_span >= c->span : def.mem_span == 0,
	   "%s %s: writes %u bytes of memory", name, c->what, def.mem_span);
}

int main(void)
{
	struct decoder *d = decoder_new(&dt_arch_x86_64);

	if (ok(d != NULL, "libopcodes has an x86-64 decoder"))
		for (size_t i = 0; i < sizeof(x86) / sizeof(x86[0]); i++)
			check(d, &dt_arch_x86_64, "x86-64", &x86[i]);
	/* cltq widens eax into rax alone: rdx (a pointer, at -O0) survives */
	if (d) {
		static const uint8_t cltq[] = { 0x48, 0x98 };
		struct decoded_insn insn;
		struct dt_def def;
		decoder_run(d, 0x1000, cltq, sizeof(cltq), &insn);
		dt_arch_x86_64.def(insn.toks, insn.ntoks, 0x1000, insn.len, &def);
		ok(!(def.clobbers & R(RDX)), "cltq leaves rdx alone (%#llx)",
		   (unsigned long long)def.clobbers);
	}
	decoder_free(d);
	d = decoder_new(&dt_arch_aarch64);
	if (!d) {
		ok(!getenv("DT_TEST_STRICT") || strcmp(getenv("DT_TEST_STRICT"), "1"),
		   "# SKIP this libopcodes has no AArch64 decoder (binutils-multiarch-dev)");
		return done_testing();
	}
	for (size_t i = 0; i < sizeof(a64) / sizeof(a64[0]); i++)
		check(d, &dt_arch_aarch64, "aarch64", &a64[i]);
	/* write-back is followed as an addition to the base */
	static const uint8_t post[] = { 0x20, 0x84, 0x40, 0xf8 };	/* ldr x0, [x1], #8 */
	static const uint8_t pre[] = { 0x20, 0x0c, 0x41, 0xf8 };	/* ldr x0, [x1, #16]! */
	struct decoded_insn insn;
	struct dt_def def;
	decoder_run(d, 0x1000, post, 4, &insn);
	dt_arch_aarch64.def(insn.toks, insn.ntoks, 0x1000, 4, &def);
	ok(def.wb_reg == 1 && def.wb_value == 8, "aarch64 post-index: x1 += %lld",
	   (long long)def.wb_value);
	decoder_run(d, 0x1000, pre, 4, &insn);
	dt_arch_aarch64.def(insn.toks, insn.ntoks, 0x1000, 4, &def);
	ok(def.wb_reg == 1 && def.wb_value == 16, "aarch64 pre-index: x1 += %lld",
	   (long long)def.wb_value);
	decoder_free(d);
	return done_testing();
}
