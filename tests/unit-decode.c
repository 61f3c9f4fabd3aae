// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Instruction decoding against real x86-64 encodings: libopcodes' tokens
 * through arch/x86_64.c's operand rules.
 */
#include "../lib/engine/internal.h"
#include "tap.h"

#define RAX 0
#define RDX 1
#define RCX 2
#define RBX 3
#define RSI 4
#define RDI 5
#define RBP 6
#define RSP 7
#define R12 12
#define FS 54
#define NONE (-1)

struct enc {
	const char *what;
	uint8_t bytes[16];
	unsigned len;
	enum dt_op_kind kind;
	int base, index, scale;
	int64_t disp;
	bool pc_relative, indirect, canary;
	int segment;
	unsigned size;
	bool fp;	/* the memory holds a float (or vector) */
};

static const struct enc encodings[] = {
	{ "mov 0x10(%rdi),%rax", { 0x48, 0x8b, 0x47, 0x10 }, 4,
	  DT_OP_MEMORY, RDI, NONE, 0, 0x10, .segment = NONE, .size = 8 },
	{ "mov -0x70(%rdi),%eax", { 0x8b, 0x47, 0x90 }, 3,
	  DT_OP_MEMORY, RDI, NONE, 0, -0x70, .segment = NONE, .size = 4 },
	{ "mov (%rsp),%rax", { 0x48, 0x8b, 0x04, 0x24 }, 4,
	  DT_OP_MEMORY, RSP, NONE, 0, 0, .segment = NONE, .size = 8 },
	{ "mov 0x10(%rip),%eax (RIP-relative)", { 0x8b, 0x05, 0x10, 0, 0, 0 }, 6,
	  DT_OP_MEMORY, NONE, NONE, 0, 0x10, .pc_relative = true,
	  .segment = NONE, .size = 4 },
	{ "mov 0x8(%rax,%rdx,8),%eax (SIB)", { 0x8b, 0x44, 0xd0, 0x08 }, 4,
	  DT_OP_MEMORY, RAX, RDX, 8, 8, .segment = NONE, .size = 4 },
	{ "mov 0x10(,%rax,4),%eax (index only)", { 0x8b, 0x04, 0x85, 0x10, 0, 0, 0 }, 7,
	  DT_OP_MEMORY, NONE, RAX, 4, 0x10, .segment = NONE, .size = 4 },
	{ "mov 0x402010,%eax (absolute)", { 0x8b, 0x04, 0x25, 0x10, 0x20, 0x40, 0 }, 7,
	  DT_OP_MEMORY, NONE, NONE, 0, 0x402010, .segment = NONE, .size = 4 },
	{ "mov %fs:0x28,%rax (stack canary)", { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 }, 9,
	  DT_OP_MEMORY, NONE, NONE, 0, 0x28, .canary = true, .segment = FS, .size = 8 },
	{ "mov %fs:0x10,%rax (TLS, not canary)", { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x10, 0, 0, 0 }, 9,
	  DT_OP_MEMORY, NONE, NONE, 0, 0x10, .segment = FS, .size = 8 },
	{ "lock xadd %rax,(%rdi)", { 0xf0, 0x48, 0x0f, 0xc1, 0x07 }, 5,
	  DT_OP_MEMORY, RDI, NONE, 0, 0, .segment = NONE, .size = 8 },
	{ "movl $0x1,0x8(%rdi) (store immediate)", { 0xc7, 0x47, 0x08, 1, 0, 0, 0 }, 7,
	  DT_OP_MEMORY, RDI, NONE, 0, 8, .segment = NONE, .size = 4 },
	{ "mov %r9,0x8(%rdi) (r8 and r9 are 8 bytes wide too)", { 0x4c, 0x89, 0x4f, 0x08 }, 4,
	  DT_OP_MEMORY, RDI, NONE, 0, 8, .segment = NONE, .size = 8 },
	{ "movzbl 0x21(%rdi),%eax", { 0x0f, 0xb6, 0x47, 0x21 }, 4,
	  DT_OP_MEMORY, RDI, NONE, 0, 0x21, .segment = NONE, .size = 1 },
	{ "movsd 0x8(%rdi),%xmm0 (SSE scalar)", { 0xf2, 0x0f, 0x10, 0x47, 0x08 }, 5,
	  DT_OP_MEMORY, RDI, NONE, 0, 8, .segment = NONE, .size = 8, .fp = true },
	{ "movdqu (%rax),%xmm0 (SSE vector)", { 0xf3, 0x0f, 0x6f, 0x00 }, 4,
	  DT_OP_MEMORY, RAX, NONE, 0, 0, .segment = NONE, .size = 16, .fp = true },
	{ "vmovdqa 0x20(%rdi),%ymm0 (AVX)", { 0xc5, 0xfd, 0x6f, 0x47, 0x20 }, 5,
	  DT_OP_MEMORY, RDI, NONE, 0, 0x20, .segment = NONE, .size = 32, .fp = true },
	{ "vmovups 0x40(%rdi),%zmm0 (AVX-512, disp8*64)", { 0x62, 0xf1, 0x7c, 0x48, 0x10, 0x47, 0x01 }, 7,
	  DT_OP_MEMORY, RDI, NONE, 0, 0x40, .segment = NONE, .size = 64, .fp = true },
	/* AVX-512's masks and broadcasts print after the operand: glibc's
	 * memset and memcpy store a short tail so */
	{ "vmovdqu8 %zmm16,(%rax){%k1} (a masked store)", { 0x62, 0xe1, 0x7f, 0x49, 0x7f, 0x00 }, 6,
	  DT_OP_MEMORY, RAX, NONE, 0, 0, .segment = NONE, .size = 64, .fp = true },
	{ "vmovdqu8 (%rsi),%zmm16{%k1}{z} (a masked load)", { 0x62, 0xe1, 0x7f, 0xc9, 0x6f, 0x06 }, 6,
	  DT_OP_MEMORY, RSI, NONE, 0, 0, .segment = NONE, .size = 64, .fp = true },
	{ "vpcmpeqb (%rdi),%zmm16,%k1{%k2} (into a mask, masked)", { 0x62, 0xf1, 0x7d, 0x42, 0x74, 0x0f }, 6,
	  DT_OP_MEMORY, RDI, NONE, 0, 0, .segment = NONE, .size = 64, .fp = true },
	{ "vaddps 0x4(%rdi){1to16},%zmm1,%zmm2 (a broadcast)", { 0x62, 0xf1, 0x74, 0x58, 0x58, 0x57, 0x01 }, 7,
	  DT_OP_MEMORY, RDI, NONE, 0, 4, .segment = NONE, .size = 4, .fp = true },
	{ "vbroadcastss 0x4(%rdi),%ymm0", { 0xc4, 0xe2, 0x7d, 0x18, 0x47, 0x04 }, 6,
	  DT_OP_MEMORY, RDI, NONE, 0, 4, .segment = NONE, .size = 4, .fp = true },
	{ "cvttss2si 0x10(%rax),%rax (a float in, whatever the destination)", { 0xf3, 0x48, 0x0f, 0x2c, 0x40, 0x10 }, 6,
	  DT_OP_MEMORY, RAX, NONE, 0, 0x10, .segment = NONE, .size = 4, .fp = true },
	{ "cvttsd2si 0x18(%rdi),%eax (a double in)", { 0xf2, 0x0f, 0x2c, 0x47, 0x18 }, 5,
	  DT_OP_MEMORY, RDI, NONE, 0, 0x18, .segment = NONE, .size = 8, .fp = true },
	{ "cvtsi2sdl 0x8(%rdi),%xmm0 (an int in)", { 0xf2, 0x0f, 0x2a, 0x47, 0x08 }, 5,
	  DT_OP_MEMORY, RDI, NONE, 0, 8, .segment = NONE, .size = 4 },
	{ "cvtss2sd 0x4(%rdi),%xmm1", { 0xf3, 0x0f, 0x5a, 0x4f, 0x04 }, 5,
	  DT_OP_MEMORY, RDI, NONE, 0, 4, .segment = NONE, .size = 4, .fp = true },
	{ "mov 0x18(%r12),%rax (REX.B)", { 0x49, 0x8b, 0x44, 0x24, 0x18 }, 5,
	  DT_OP_MEMORY, R12, NONE, 0, 0x18, .segment = NONE, .size = 8 },
	{ "call *0x38(%rax) (call through a field)", { 0xff, 0x50, 0x38 }, 3,
	  DT_OP_MEMORY, RAX, NONE, 0, 0x38, .indirect = true, .segment = NONE, .size = 8 },
	{ "jmp *(%rdi) (tail call through a field)", { 0xff, 0x27 }, 2,
	  DT_OP_MEMORY, RDI, NONE, 0, 0, .indirect = true, .segment = NONE, .size = 8 },
	{ "push 0x8(%rdi) (push from memory)", { 0xff, 0x77, 0x08 }, 3,
	  DT_OP_MEMORY, RDI, NONE, 0, 8, .segment = NONE },
	{ "movsb (string op: the source)", { 0xa4 }, 1,
	  DT_OP_MEMORY, RSI, NONE, 0, 0, .segment = NONE, .size = 1 },
	{ "rep stos %rax,%es:(%rdi)", { 0xf3, 0x48, 0xab }, 3,
	  DT_OP_MEMORY, RDI, NONE, 0, 0, .segment = NONE, .size = 8 },
	{ "push %rbp", { 0x55 }, 1, DT_OP_STACK, .base = NONE },
	{ "pop %rbx", { 0x5b }, 1, DT_OP_STACK, .base = NONE },
	{ "ret", { 0xc3 }, 1, DT_OP_STACK, .base = NONE },
	{ "leave", { 0xc9 }, 1, DT_OP_STACK, .base = NONE },
	{ "call rel32", { 0xe8, 0, 0, 0, 0 }, 5, DT_OP_STACK, .base = NONE },
	{ "call *%rax (register)", { 0xff, 0xd0 }, 2, DT_OP_STACK, .base = NONE },
	{ "add %rbx,%rax", { 0x48, 0x01, 0xd8 }, 3, DT_OP_NONE, .base = NONE },
	{ "lea 0x10(%rdi),%rax", { 0x48, 0x8d, 0x47, 0x10 }, 4, DT_OP_NONE, .base = NONE },
	{ "nopl 0x0(%rax,%rax,1)", { 0x0f, 0x1f, 0x44, 0, 0 }, 5, DT_OP_NONE, .base = NONE },
	{ "jmp rel8", { 0xeb, 0x10 }, 2, DT_OP_NONE, .base = NONE },
	{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4, DT_OP_NONE, .base = NONE },
	{ "mov $0x2a,%eax", { 0xb8, 0x2a, 0, 0, 0 }, 5, DT_OP_NONE, .base = NONE },
};

static void check(struct decoder *d, const struct enc *e)
{
	struct decoded_insn insn;
	struct dt_mem_op op;
	char text[128];

	unsigned len = decoder_run(d, 0x1000, e->bytes, sizeof(e->bytes), &insn);
	decoded_insn_text(&insn, text, sizeof(text));
	is_int(len, e->len, "%s: length (%s)", e->what, text);
	enum dt_op_kind kind = dt_arch_x86_64.classify(insn.toks, insn.ntoks, &op);
	is_int(kind, e->kind, "%s: kind", e->what);
	if (kind != DT_OP_MEMORY || e->kind != DT_OP_MEMORY)
		return;
	ok(op.base == e->base && op.index == e->index &&
	   (e->index < 0 || op.scale == e->scale) && op.disp == e->disp,
	   "%s: base %d index %d scale %d disp %lld", e->what, op.base,
	   op.index, op.scale, (long long)op.disp);
	ok(op.pc_relative == e->pc_relative && op.indirect_branch == e->indirect &&
	   op.segment == e->segment, "%s: pc-relative %d indirect %d segment %d",
	   e->what, op.pc_relative, op.indirect_branch, op.segment);
	is_int(dt_arch_x86_64.is_stack_canary(&op), e->canary, "%s: canary", e->what);
	is_int(op.size, e->size, "%s: access size", e->what);
	is_int(op.fp, e->fp, "%s: a float in memory", e->what);
}

/* AArch64: little-endian 32-bit words. */
struct a64_enc {
	const char *what;
	uint32_t word;
	enum dt_op_kind kind;
	int base, index;
	int64_t disp;
	unsigned size;
	bool absolute;
};

static const struct a64_enc a64_encodings[] = {
	{ "ldr x0, [x1, #16]", 0xf9400820, DT_OP_MEMORY, 1, -1, 16, 8, false },
	{ "ldr w0, [x1, x2, lsl #2]", 0xb8627820, DT_OP_MEMORY, 1, 2, 0, 4, false },
	{ "ldr x0, [x1, #16]! (pre-index)", 0xf8410c20, DT_OP_MEMORY, 1, -1, 16, 8, false },
	{ "ldr x0, [x1], #16 (post-index: at the base)", 0xf8410420, DT_OP_MEMORY, 1, -1, 0, 8, false },
	{ "ldp x0, x1, [x1, #16]", 0xa9410420, DT_OP_MEMORY, 1, -1, 16, 8, false },
	{ "str x0, [sp, #8]", 0xf90007e0, DT_OP_MEMORY, 31, -1, 8, 8, false },
	{ "ldrb w0, [x1, #16]", 0x39404020, DT_OP_MEMORY, 1, -1, 16, 1, false },
	{ "ldr x0, literal", 0x58000040, DT_OP_MEMORY, -1, -1, 0x1008, 8, true },
	{ "stp x29, x30, [sp, #-16]! (frame record)", 0xa9bf7bfd, DT_OP_STACK, 0, 0, 0, 0, false },
	{ "ret", 0xd65f03c0, DT_OP_STACK, 0, 0, 0, 0, false },
	{ "bl", 0x94000000, DT_OP_STACK, 0, 0, 0, 0, false },
	{ "add x0, x1, x2", 0x8b020020, DT_OP_NONE, 0, 0, 0, 0, false },
};

static void check_a64(void)
{
	struct decoder *d = decoder_new(&dt_arch_aarch64);

	if (!d) {
		ok(!getenv("DT_TEST_STRICT") || strcmp(getenv("DT_TEST_STRICT"), "1"),
		   "# SKIP this libopcodes has no AArch64 decoder (binutils-multiarch-dev)");
		return;
	}
	for (size_t i = 0; i < sizeof(a64_encodings) / sizeof(a64_encodings[0]); i++) {
		const struct a64_enc *e = &a64_encodings[i];
		struct decoded_insn insn;
		struct dt_mem_op op;
		uint8_t b[4] = { e->word & 0xff, e->word >> 8 & 0xff,
				 e->word >> 16 & 0xff, e->word >> 24 };
		is_int(decoder_run(d, 0x1000, b, 4, &insn), 4, "a64 %s: length", e->what);
		enum dt_op_kind k = dt_arch_aarch64.classify(insn.toks, insn.ntoks, &op);
		is_int(k, e->kind, "a64 %s: kind", e->what);
		if (k != DT_OP_MEMORY || e->kind != DT_OP_MEMORY)
			continue;
		ok(op.base == e->base && op.index == e->index && op.disp == e->disp &&
		   op.size == e->size && op.absolute == e->absolute,
		   "a64 %s: base %d index %d disp %lld size %u absolute %d", e->what,
		   op.base, op.index, (long long)op.disp, op.size, op.absolute);
	}
	is_int(dt_arch_aarch64.reg_from_name("w5", 2), 5, "a64 w5 is x5");
	is_int(dt_arch_aarch64.reg_from_name("sp", 2), 31, "a64 sp is 31");
	is_int(dt_arch_aarch64.reg_from_name("xzr", 3), -1, "a64 xzr is no register");
	decoder_free(d);
}

/* How each instruction uses its memory operand (load, store or both),
 * on encodings assembled by GNU as. */
#define RW (DT_MEM_READ | DT_MEM_WRITE)
static const struct {
	const char *what;
	uint8_t bytes[16];
	unsigned len;
	unsigned access;
} x86_access[] = {
	{ "mov 0x10(%rdi),%rax", { 0x48, 0x8b, 0x47, 0x10 }, 4, DT_MEM_READ },
	{ "mov %rax,0x10(%rdi)", { 0x48, 0x89, 0x47, 0x10 }, 4, DT_MEM_WRITE },
	{ "movl $0x1,0x8(%rdi)", { 0xc7, 0x47, 0x08, 0x01, 0x00, 0x00, 0x00 }, 7, DT_MEM_WRITE },
	{ "addl $0x1,(%rdi)", { 0x83, 0x07, 0x01 }, 3, RW },
	{ "add %eax,(%rdi)", { 0x01, 0x07 }, 2, RW },
	{ "add (%rdi),%eax", { 0x03, 0x07 }, 2, DT_MEM_READ },
	{ "lock addq $0x1,(%rdi)", { 0xf0, 0x48, 0x83, 0x07, 0x01 }, 5, RW },
	{ "lock cmpxchg %rcx,(%rdi)", { 0xf0, 0x48, 0x0f, 0xb1, 0x0f }, 5, RW },
	{ "xchg %rax,(%rdi)", { 0x48, 0x87, 0x07 }, 3, RW },
	{ "lock xadd %eax,(%rdi)", { 0xf0, 0x0f, 0xc1, 0x07 }, 4, RW },
	{ "incl 0x4(%rdi)", { 0xff, 0x47, 0x04 }, 3, RW },
	{ "negq (%rdi)", { 0x48, 0xf7, 0x1f }, 3, RW },
	{ "shlq $0x2,(%rdi)", { 0x48, 0xc1, 0x27, 0x02 }, 4, RW },
	{ "btsq $0x3,(%rdi)", { 0x48, 0x0f, 0xba, 0x2f, 0x03 }, 5, RW },
	{ "cmp %eax,(%rdi)", { 0x39, 0x07 }, 2, DT_MEM_READ },
	{ "cmpl $0x5,(%rdi)", { 0x83, 0x3f, 0x05 }, 3, DT_MEM_READ },
	{ "testb $0x4,(%rdi)", { 0xf6, 0x07, 0x04 }, 3, DT_MEM_READ },
	{ "btl $0x3,(%rdi)", { 0x0f, 0xba, 0x27, 0x03 }, 4, DT_MEM_READ },
	{ "sete (%rdi)", { 0x0f, 0x94, 0x07 }, 3, DT_MEM_WRITE },
	{ "movss %xmm0,(%rdi)", { 0xf3, 0x0f, 0x11, 0x07 }, 4, DT_MEM_WRITE },
	{ "movss (%rdi),%xmm0", { 0xf3, 0x0f, 0x10, 0x07 }, 4, DT_MEM_READ },
	{ "vaddps (%rdi),%ymm1,%ymm2", { 0xc5, 0xf4, 0x58, 0x17 }, 4, DT_MEM_READ },
	{ "imul $0x3,(%rdi),%eax", { 0x6b, 0x07, 0x03 }, 3, DT_MEM_READ },
	{ "flds (%rdi)", { 0xd9, 0x07 }, 2, DT_MEM_READ },
	{ "fstps (%rdi)", { 0xd9, 0x1f }, 2, DT_MEM_WRITE },
	{ "call *0x8(%rax)", { 0xff, 0x50, 0x08 }, 3, DT_MEM_READ },
	{ "push (%rdi)", { 0xff, 0x37 }, 2, DT_MEM_READ },
	{ "cmpxchg16b (%rdi)", { 0x48, 0x0f, 0xc7, 0x0f }, 4, RW },
	{ "prefetcht0 (%rdi)", { 0x0f, 0x18, 0x0f }, 3, DT_MEM_READ },
	{ "stos %rax,%es:(%rdi)", { 0x48, 0xab }, 2, DT_MEM_WRITE },
	{ "movsq %ds:(%rsi),%es:(%rdi) (the source)", { 0x48, 0xa5 }, 2, DT_MEM_READ },
	{ "cmovne (%rdi),%eax", { 0x0f, 0x45, 0x07 }, 3, DT_MEM_READ },
	{ "vmovdqu8 %zmm16,(%rax){%k1}", { 0x62, 0xe1, 0x7f, 0x49, 0x7f, 0x00 }, 6, DT_MEM_WRITE },
	{ "vmovdqu8 (%rsi),%zmm16{%k1}{z}", { 0x62, 0xe1, 0x7f, 0xc9, 0x6f, 0x06 }, 6, DT_MEM_READ },
	{ "pextrd $0x1,%xmm0,(%rdi)", { 0x66, 0x0f, 0x3a, 0x16, 0x07, 0x01 }, 6, DT_MEM_WRITE },
};

static const struct {
	const char *what;
	uint32_t word;
	unsigned access;
} a64_access[] = {
	{ "ldr x0, [x1, #16]", 0xf9400820, DT_MEM_READ },
	{ "str x0, [x1, #16]", 0xf9000820, DT_MEM_WRITE },
	{ "stp x0, x2, [x1, #16]", 0xa9010820, DT_MEM_WRITE },
	{ "ldp x0, x2, [x1, #16]", 0xa9410820, DT_MEM_READ },
	{ "ldxr x0, [x1]", 0xc85f7c20, RW },
	{ "stxr w3, x0, [x1]", 0xc8037c20, RW },
	{ "ldaxr w0, [x1]", 0x885ffc20, RW },
	{ "stlxr w3, w0, [x1]", 0x8803fc20, RW },
	{ "ldar x0, [x1]", 0xc8dffc20, DT_MEM_READ },
	{ "stlr x0, [x1]", 0xc89ffc20, DT_MEM_WRITE },
	{ "ldadd x2, x0, [x1]", 0xf8220020, RW },
	{ "ldaddal w2, w0, [x1]", 0xb8e20020, RW },
	{ "stadd x2, [x1]", 0xf822003f, RW },
	{ "swp x2, x0, [x1]", 0xf8228020, RW },
	{ "cas x2, x0, [x1]", 0xc8a27c20, RW },
	{ "casal w2, w0, [x1]", 0x88e2fc20, RW },
	{ "ldset w2, w0, [x1]", 0xb8223020, RW },
	{ "prfm pldl1keep, [x1, #8]", 0xf9800420, DT_MEM_READ },
	{ "ldrb w0, [x1, #3]", 0x39400c20, DT_MEM_READ },
	{ "strh w0, [x1, #2]", 0x79000420, DT_MEM_WRITE },
	{ "str q0, [x1, #32]", 0x3d800820, DT_MEM_WRITE },
	{ "ldr d0, [x1, #8]", 0xfd400420, DT_MEM_READ },
	{ "ldrsw x0, [x1, #4]", 0xb9800420, DT_MEM_READ },
};

static void check_access(void)
{
	struct decoder *d = decoder_new(&dt_arch_x86_64);
	struct decoded_insn insn;
	struct dt_mem_op op;

	for (size_t i = 0; d && i < sizeof(x86_access) / sizeof(x86_access[0]); i++) {
		memset(&op, 0, sizeof(op));
		is_int(decoder_run(d, 0x1000, x86_access[i].bytes,
				   sizeof(x86_access[i].bytes), &insn),
		       x86_access[i].len, "%s: length", x86_access[i].what);
		enum dt_op_kind k = dt_arch_x86_64.classify(insn.toks, insn.ntoks, &op);
		ok(k == DT_OP_MEMORY && op.access == x86_access[i].access,
		   "%s: access %u (want %u)", x86_access[i].what, op.access,
		   x86_access[i].access);
	}
	decoder_free(d);
	d = decoder_new(&dt_arch_aarch64);
	for (size_t i = 0; d && i < sizeof(a64_access) / sizeof(a64_access[0]); i++) {
		uint32_t w = a64_access[i].word;
		uint8_t b[4] = { w & 0xff, w >> 8 & 0xff, w >> 16 & 0xff, w >> 24 };
		memset(&op, 0, sizeof(op));
		is_int(decoder_run(d, 0x1000, b, 4, &insn), 4, "a64 %s: length",
		       a64_access[i].what);
		enum dt_op_kind k = dt_arch_aarch64.classify(insn.toks, insn.ntoks, &op);
		ok(k == DT_OP_MEMORY && op.access == a64_access[i].access,
		   "a64 %s: access %u (want %u)", a64_access[i].what, op.access,
		   a64_access[i].access);
	}
	decoder_free(d);	/* without an AArch64 decoder check_a64() says why */
}

/* compares_regs: two whole general registers compared, nothing else */
static void check_compares(void)
{
	static const struct { const char *what; const struct dt_arch *arch;
			      uint8_t b[8]; unsigned len; bool cmp; int a, b2; } v[] = {
		{ "cmp %rdi,%rsi", &dt_arch_x86_64, { 0x48, 0x39, 0xfe }, 3, true, RDI, RSI },
		{ "cmp %r12,%rax", &dt_arch_x86_64, { 0x4c, 0x39, 0xe0 }, 3, true, R12, RAX },
		{ "cmp %edi,%esi (32 bits: no pointer)", &dt_arch_x86_64, { 0x39, 0xfe }, 2, false, 0, 0 },
		{ "cmp 0x18(%rdi),%rax (memory)", &dt_arch_x86_64, { 0x48, 0x3b, 0x47, 0x18 }, 4, false, 0, 0 },
		{ "cmp $0x10,%rax (immediate)", &dt_arch_x86_64, { 0x48, 0x83, 0xf8, 0x10 }, 4, false, 0, 0 },
		{ "test %rax,%rax", &dt_arch_x86_64, { 0x48, 0x85, 0xc0 }, 3, false, 0, 0 },
		{ "cmp x6, x0", &dt_arch_aarch64, { 0xdf, 0x00, 0x00, 0xeb }, 4, true, 6, 0 },
		{ "cmp w6, w0 (32 bits)", &dt_arch_aarch64, { 0xdf, 0x00, 0x00, 0x6b }, 4, false, 0, 0 },
		{ "cmp x1, #0x10 (immediate)", &dt_arch_aarch64, { 0x3f, 0x40, 0x00, 0xf1 }, 4, false, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct decoder *d = decoder_new(v[i].arch);
		struct decoded_insn insn;
		int a = -1, b = -1;
		if (!d) {
			ok(0, "%s: no decoder for %s", v[i].what, v[i].arch->name);
			continue;
		}
		is_int(decoder_run(d, 0x1000, v[i].b, v[i].len, &insn), v[i].len,
		       "%s: length", v[i].what);
		bool got = v[i].arch->compares_regs(insn.toks, insn.ntoks, &a, &b);
		ok(got == v[i].cmp && (!got || (a == v[i].a && b == v[i].b2)),
		   "%s: compares registers %d (want %d), %d %d", v[i].what, got,
		   v[i].cmp, a, b);
		decoder_free(d);
	}
}

int main(void)
{
	struct decoder *d = decoder_new(&dt_arch_x86_64);
	struct decoded_insn insn;
	static const uint8_t bad[] = { 0x06 };	/* push %es: invalid in 64-bit */
	static const uint8_t cut[] = { 0x8b, 0x47 };	/* mov, no disp8 */

	if (!ok(d != NULL, "libopcodes has an x86-64 decoder"))
		return done_testing();
	for (size_t i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++)
		check(d, &encodings[i]);
	check_access();
	is_int(decoder_run(d, 0x1000, bad, sizeof(bad), &insn), 0,
	       "an invalid opcode decodes to nothing");
	is_int(decoder_run(d, 0x1000, cut, sizeof(cut), &insn), 0,
	       "a truncated instruction decodes to nothing");
	is_int(decoder_run(d, 0x1000, cut, 0, &insn), 0,
	       "no bytes decode to nothing");
	decoder_free(d);
	check_a64();
	check_compares();
	return done_testing();
}
