// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * x86-64: the common instructions decoded without libopcodes.
 *
 * libopcodes' i386 printer spends thousands of instructions on each
 * instruction it decodes, most of them formatting text that dtprof then
 * reads back; a kernel's run decodes millions.  The instructions compilers
 * emit most (mov, lea, the ALU operations, push, pop, call, jumps, nops...)
 * are decoded here into the very tokens libopcodes' styled printer would
 * hand out (binutils 2.40, AT&T syntax), and anything else (another
 * prefix, an opcode not listed, an unusual encoding) is left to
 * libopcodes.  tests/unit-quick compares the two on every instruction of
 * real binaries: a token that differs is a defect here, so when in doubt,
 * decline.
 */
#include <stdint.h>
#include <string.h>

#include "arch.h"

/* One instruction being decoded. */
struct quick {
	const uint8_t *b;
	size_t avail, pos;
	uint64_t pc;
	struct dt_tok_sink *sink;
	unsigned rex;		/* the REX byte, 0 when none */
	bool opsize16;		/* 0x66 */
	int seg;		/* 0x64: 'f', 0x65: 'g', else 0 */
	/* what the printed operands used of the prefixes: libopcodes
	 * names a prefix that changed nothing ("rex.W", "data16", "gs"),
	 * and such instructions are left to it */
	unsigned rex_used;	/* REX_W .. REX_B, REX_PLAIN */
	bool used16, seg_used;
	/* the ModRM operand */
	int mod, reg, rm;	/* reg, rm: with REX.R / REX.B */
	int base, index;	/* -1 when none */
	unsigned scale;
	int64_t disp;
	bool rip;
	uint64_t comment;	/* the rip-relative address, when rip */
};

#define REX_W 8
#define REX_R 4
#define REX_X 2
#define REX_B 1
#define REX_PLAIN 0x40	/* a byte register spelled %sil, %r8b.. */

/* The general registers' AT&T names by operand size: 8, 4, 2 bytes,
 * and 1 byte with a REX prefix. */
enum { R64, R32, R16, R8_REX };
static const char *const regs[4][16] = {
	[R64] = { "%rax", "%rcx", "%rdx", "%rbx", "%rsp", "%rbp", "%rsi", "%rdi",
		  "%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15" },
	[R32] = { "%eax", "%ecx", "%edx", "%ebx", "%esp", "%ebp", "%esi", "%edi",
		  "%r8d", "%r9d", "%r10d", "%r11d", "%r12d", "%r13d", "%r14d", "%r15d" },
	[R16] = { "%ax", "%cx", "%dx", "%bx", "%sp", "%bp", "%si", "%di",
		  "%r8w", "%r9w", "%r10w", "%r11w", "%r12w", "%r13w", "%r14w", "%r15w" },
	[R8_REX] = { "%al", "%cl", "%dl", "%bl", "%spl", "%bpl", "%sil", "%dil",
		     "%r8b", "%r9b", "%r10b", "%r11b", "%r12b", "%r13b", "%r14b", "%r15b" },
};
/* without REX, 4 to 7 are the high bytes */
static const char *const regs8_legacy[8] = {
	"%al", "%cl", "%dl", "%bl", "%ah", "%ch", "%dh", "%bh",
};

/* Condition codes in opcode order, as jcc, setcc and cmovcc spell them. */
static const char *const conds[16] = {
	"o", "no", "b", "ae", "e", "ne", "be", "a",
	"s", "ns", "p", "np", "l", "ge", "le", "g",
};

static void put(struct quick *q, enum dt_tok_kind kind, const char *text,
		size_t len)
{
	q->sink->put(q->sink, kind, text, len);
}

static void put_str(struct quick *q, enum dt_tok_kind kind, const char *s)
{
	put(q, kind, s, strlen(s));
}

static void put_hex(struct quick *q, enum dt_tok_kind kind, uint64_t v)
{
	char buf[20], *p = buf + sizeof(buf);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	put(q, kind, p, (size_t)(buf + sizeof(buf) - p));
}

/* The mnemonic, padded as libopcodes pads it when operands follow. */
static void put_mnemonic(struct quick *q, const char *m, const char *suffix,
			 bool operands)
{
	char buf[16];
	size_t n = strlen(m), s = strlen(suffix);

	memcpy(buf, m, n);
	memcpy(buf + n, suffix, s);
	n += s;
	if (operands) {
		while (n < 6)
			buf[n++] = ' ';
		buf[n++] = ' ';
	}
	put(q, DT_TOK_MNEMONIC, buf, n);
}

static bool need(struct quick *q, size_t n)
{
	return q->avail - q->pos >= n;
}

static int64_t take_signed(struct quick *q, size_t n)
{
	const uint8_t *p = q->b + q->pos;

	q->pos += n;
	switch (n) {
	case 1: return (int8_t)p[0];
	case 2: return (int16_t)(p[0] | p[1] << 8);
	case 4: return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
	default: {
		uint64_t v = 0;
		for (size_t i = 0; i < 8; i++)
			v |= (uint64_t)p[i] << (8 * i);
		return (int64_t)v;
	}
	}
}

/* Operand size in bytes of a "v" operand. */
static unsigned vsize(const struct quick *q)
{
	return q->rex & REX_W ? 8 : q->opsize16 ? 2 : 4;
}

static const char *reg_of(struct quick *q, int r, unsigned size)
{
	if (size == 8 && (q->rex & REX_W))
		q->rex_used |= REX_W;
	if (size == 2)
		q->used16 = true;
	if (size == 1 && q->rex && (r & 4))
		q->rex_used |= REX_PLAIN;	/* %spl.., not %ah.. */
	if (r >= 8)
		q->rex_used |= REX_B;	/* REX_R for the reg field: see put_greg */
	switch (size) {
	case 8: return regs[R64][r];
	case 4: return regs[R32][r];
	case 2: return regs[R16][r];
	default: return q->rex ? regs[R8_REX][r] : r < 8 ? regs8_legacy[r] : NULL;
	}
}

static const char *size_suffix(unsigned size)
{
	return size == 8 ? "q" : size == 4 ? "l" : size == 2 ? "w" : "b";
}

/* The suffix a memory operand of size bytes takes, which alone does not
 * say its size (a register does). */
static const char *rm_suffix(const struct quick *q, unsigned size)
{
	return q->mod == 3 ? "" : size_suffix(size);
}

/* Bytes of the immediate of an operand of size bytes (8-byte operands
 * take 4, sign-extended). */
static size_t imm_len(unsigned size)
{
	return size < 4 ? size : 4;
}

/* The ModRM byte, its SIB and displacement; false for the encodings left
 * to libopcodes (those it prints with %riz or an odd scale). */
static bool modrm(struct quick *q)
{
	if (!need(q, 1))
		return false;
	uint8_t m = q->b[q->pos++];

	q->mod = m >> 6;
	q->reg = ((m >> 3) & 7) | (q->rex & REX_R ? 8 : 0);
	q->rm = (m & 7) | (q->rex & REX_B ? 8 : 0);
	q->base = q->index = -1;
	q->scale = 0;
	q->disp = 0;
	q->rip = false;
	if (q->mod == 3)
		return true;
	if ((m & 7) == 4) {
		if (!need(q, 1))
			return false;
		uint8_t sib = q->b[q->pos++];
		int index = ((sib >> 3) & 7) | (q->rex & REX_X ? 8 : 0);
		int base = (sib & 7) | (q->rex & REX_B ? 8 : 0);

		q->scale = 1u << (sib >> 6);
		if (index != 4)
			q->index = index;
		else if (sib >> 6 ||
			 ((sib & 7) != 4 && !((sib & 7) == 5 && q->mod == 0)))
			return false;	/* (%rax,%riz,1) and the like */
		if ((sib & 7) == 5 && q->mod == 0) {
			if (!need(q, 4))
				return false;
			q->disp = take_signed(q, 4);
			return true;
		}
		q->base = base;
	} else if ((m & 7) == 5 && q->mod == 0) {
		if (!need(q, 4))
			return false;
		q->rip = true;
		q->disp = take_signed(q, 4);
		return true;
	} else {
		q->base = q->rm;
	}
	if (q->mod == 1) {
		if (!need(q, 1))
			return false;
		q->disp = take_signed(q, 1);
	} else if (q->mod == 2) {
		if (!need(q, 4))
			return false;
		q->disp = take_signed(q, 4);
	}
	return true;
}

static void put_disp(struct quick *q)
{
	if (q->disp < 0) {
		put(q, DT_TOK_ADDRESS_OFFSET, "-", 1);
		put_hex(q, DT_TOK_ADDRESS_OFFSET, -(uint64_t)q->disp);
	} else {
		put_hex(q, DT_TOK_ADDRESS_OFFSET, (uint64_t)q->disp);
	}
}

/* The r/m operand of size bytes: a register or the memory operand. */
static bool put_rm(struct quick *q, unsigned size)
{
	if (q->mod == 3) {
		const char *r = reg_of(q, q->rm, size);
		if (!r)
			return false;
		put_str(q, DT_TOK_REGISTER, r);
		return true;
	}
	if (size == 8 && (q->rex & REX_W))
		q->rex_used |= REX_W;
	if (size == 2)
		q->used16 = true;
	if (q->seg) {
		put_str(q, DT_TOK_REGISTER, q->seg == 'f' ? "%fs" : "%gs");
		put(q, DT_TOK_TEXT, ":", 1);
		q->seg_used = true;
	}
	if (q->base < 0 && q->index < 0 && !q->rip) {
		/* an absolute address: printed as a value, not a displacement */
		put_hex(q, DT_TOK_ADDRESS_OFFSET, (uint64_t)q->disp);
		return true;
	}
	if (q->mod != 0 || q->rip || q->base < 0)
		put_disp(q);
	put(q, DT_TOK_TEXT, "(", 1);
	if (q->rip)
		put_str(q, DT_TOK_REGISTER, "%rip");
	else if (q->base >= 0)
		put_str(q, DT_TOK_REGISTER, regs[R64][q->base]);
	if (q->base >= 8)
		q->rex_used |= REX_B;
	if (q->index >= 8)
		q->rex_used |= REX_X;
	if (q->index >= 0) {
		char scale = (char)('0' + q->scale);
		put(q, DT_TOK_TEXT, ",", 1);
		put_str(q, DT_TOK_REGISTER, regs[R64][q->index]);
		put(q, DT_TOK_TEXT, ",", 1);
		put(q, DT_TOK_IMMEDIATE, &scale, 1);
	}
	put(q, DT_TOK_TEXT, ")", 1);
	return true;
}

static bool put_reg(struct quick *q, int r, unsigned size)
{
	const char *name = reg_of(q, r, size);

	if (!name)
		return false;
	put_str(q, DT_TOK_REGISTER, name);
	return true;
}

/* The ModRM reg field's register, which REX.R extends. */
static bool put_greg(struct quick *q, unsigned size)
{
	unsigned before = q->rex_used & REX_B;
	bool ok = put_reg(q, q->reg, size);

	/* reg_of took r8..r15 for REX.B; here they come from REX.R */
	q->rex_used = (q->rex_used & ~REX_B) | before;
	if (q->reg >= 8)
		q->rex_used |= REX_R;
	return ok;
}

static void put_comma(struct quick *q)
{
	put(q, DT_TOK_TEXT, ",", 1);
}

/* "$0x..": v as an operand of size bytes shows it (sign-extended values
 * masked to the operand's size). */
static void put_imm(struct quick *q, int64_t v, unsigned size)
{
	uint64_t u = (uint64_t)v;

	if (size == 8 && (q->rex & REX_W))
		q->rex_used |= REX_W;
	if (size == 2)
		q->used16 = true;
	if (size < 8)
		u &= (1ull << (8 * size)) - 1;
	put(q, DT_TOK_IMMEDIATE, "$", 1);
	put_hex(q, DT_TOK_IMMEDIATE, u);
}

static bool take_imm(struct quick *q, size_t n, int64_t *v)
{
	if (!need(q, n))
		return false;
	*v = take_signed(q, n);
	return true;
}

/* A reg, r/m pair: "op %reg,rm" (to_rm) or "op rm,%reg". */
static bool reg_rm(struct quick *q, const char *m, unsigned size, bool to_rm)
{
	if (!modrm(q))
		return false;
	put_mnemonic(q, m, "", true);
	if (to_rm) {
		if (!put_greg(q, size))
			return false;
		put_comma(q);
		return put_rm(q, size);
	}
	if (!put_rm(q, size))
		return false;
	put_comma(q);
	return put_greg(q, size);
}

/* "op $imm,rm" (rm of size bytes, the immediate shown as imm_size
 * bytes): a suffix when rm is memory, which alone does not say the
 * size. */
static bool imm_rm(struct quick *q, const char *m, unsigned size,
		   size_t imm_len, unsigned imm_size)
{
	int64_t v;

	if (!take_imm(q, imm_len, &v))
		return false;
	put_mnemonic(q, m, rm_suffix(q, size), true);
	put_imm(q, v, imm_size);
	put_comma(q);
	return put_rm(q, size);
}

static const char *const alu[8] = {
	"add", "or", "adc", "sbb", "and", "sub", "xor", "cmp",
};
static const char *const shifts[8] = {
	"rol", "ror", "rcl", "rcr", "shl", "shr", NULL, "sar",
};

static bool branch(struct quick *q, const char *m, size_t rel_len)
{
	int64_t rel;

	if (q->opsize16 || q->rex || q->seg || !take_imm(q, rel_len, &rel))
		return false;
	put_mnemonic(q, m, "", true);
	put_hex(q, DT_TOK_ADDRESS, q->pc + q->pos + (uint64_t)rel);
	return true;
}

static bool one_byte(struct quick *q, uint8_t op)
{
	unsigned v = vsize(q);
	int64_t imm;

	if (op < 0x40 && (op & 7) < 4) {	/* add .. cmp, r/m forms */
		unsigned size = op & 1 ? v : 1;
		return reg_rm(q, alu[op >> 3], size, !(op & 2));
	}
	if (op < 0x40 && (op & 7) < 6) {	/* add .. cmp, to al/eax */
		unsigned size = op & 1 ? v : 1;
		if (!take_imm(q, imm_len(size), &imm))
			return false;
		put_mnemonic(q, alu[op >> 3], "", true);
		put_imm(q, imm, size);
		put_comma(q);
		return put_reg(q, 0, size);
	}
	if (op >= 0x50 && op <= 0x5f) {	/* push, pop */
		if (q->opsize16 || (q->rex & (REX_W | REX_R | REX_X)))
			return false;
		put_mnemonic(q, op < 0x58 ? "push" : "pop", "", true);
		return put_reg(q, (op & 7) | (q->rex & REX_B ? 8 : 0), 8);
	}
	if (op >= 0x70 && op <= 0x7f) {
		char m[4] = "j";
		strcpy(m + 1, conds[op & 15]);
		return branch(q, m, 1);
	}
	if (op >= 0xb8 && op <= 0xbf) {	/* mov $imm,%reg */
		int r = (op & 7) | (q->rex & REX_B ? 8 : 0);
		if (!take_imm(q, v, &imm))
			return false;
		put_mnemonic(q, v == 8 ? "movabs" : "mov", "", true);
		put_imm(q, imm, v);
		put_comma(q);
		return put_reg(q, r, v);
	}
	switch (op) {
	case 0x63:
		if (!(q->rex & REX_W) || !modrm(q))
			return false;
		put_mnemonic(q, "movslq", "", true);
		if (!put_rm(q, 4))
			return false;
		put_comma(q);
		return put_greg(q, 8);
	case 0x68: case 0x6a:
		if (q->opsize16 || q->rex || !take_imm(q, op == 0x68 ? 4 : 1, &imm))
			return false;
		put_mnemonic(q, "push", "", true);
		put_imm(q, imm, 8);
		return true;
	case 0x69: case 0x6b:
		if (!modrm(q) || !take_imm(q, op == 0x6b ? 1 : imm_len(v), &imm))
			return false;
		put_mnemonic(q, "imul", "", true);
		put_imm(q, imm, v);
		put_comma(q);
		if (!put_rm(q, v))
			return false;
		put_comma(q);
		return put_greg(q, v);
	case 0x80: case 0x81: case 0x83: {
		unsigned size = op == 0x80 ? 1 : v;
		if (!modrm(q))
			return false;
		return imm_rm(q, alu[q->reg & 7], size,
			      op == 0x81 ? imm_len(v) : 1, size);
	}
	case 0x84: case 0x85:
		return reg_rm(q, "test", op & 1 ? v : 1, true);
	case 0x88: case 0x89: case 0x8a: case 0x8b:
		return reg_rm(q, "mov", op & 1 ? v : 1, !(op & 2));
	case 0x8d:
		if (!modrm(q) || q->mod == 3)
			return false;
		put_mnemonic(q, "lea", "", true);
		if (!put_rm(q, v))
			return false;
		put_comma(q);
		return put_greg(q, v);
	case 0x90:
		if (q->rex || q->opsize16)
			return false;
		put_mnemonic(q, "nop", "", false);
		return true;
	case 0x98: case 0x99:
		if (q->opsize16)
			return false;
		put_mnemonic(q, op == 0x98 ? (v == 8 ? "cltq" : "cwtl")
					   : (v == 8 ? "cqto" : "cltd"), "", false);
		q->rex_used |= q->rex & REX_W;
		return true;
	case 0xa8: case 0xa9: {
		unsigned size = op & 1 ? v : 1;
		if (!take_imm(q, imm_len(size), &imm))
			return false;
		put_mnemonic(q, "test", "", true);
		put_imm(q, imm, size);
		put_comma(q);
		return put_reg(q, 0, size);
	}
	case 0xc0: case 0xc1: case 0xd0: case 0xd1: case 0xd3: {
		unsigned size = op & 1 ? v : 1;
		if (!modrm(q) || !shifts[q->reg & 7])
			return false;
		if (op == 0xd0 || op == 0xd1) {
			put_mnemonic(q, shifts[q->reg & 7],
				     rm_suffix(q, size), true);
			return put_rm(q, size);
		}
		if (op == 0xd3) {
			put_mnemonic(q, shifts[q->reg & 7],
				     rm_suffix(q, size), true);
			put_str(q, DT_TOK_REGISTER, "%cl");
			put_comma(q);
			return put_rm(q, size);
		}
		return imm_rm(q, shifts[q->reg & 7], size, 1, 1);
	}
	case 0xc3:
		if (q->opsize16 || q->rex)
			return false;
		put_mnemonic(q, "ret", "", false);
		return true;
	case 0xc6: case 0xc7: {
		unsigned size = op & 1 ? v : 1;
		if (!modrm(q) || (q->reg & 7))
			return false;
		return imm_rm(q, "mov", size, imm_len(size), size);
	}
	case 0xc9:
		if (q->opsize16 || q->rex)
			return false;
		put_mnemonic(q, "leave", "", false);
		return true;
	case 0xcc:
		if (q->opsize16 || q->rex)
			return false;
		put_mnemonic(q, "int3", "", false);
		return true;
	case 0xe8:
		return branch(q, "call", 4);
	case 0xe9:
		return branch(q, "jmp", 4);
	case 0xeb:
		return branch(q, "jmp", 1);
	case 0xf6: case 0xf7: {
		unsigned size = op & 1 ? v : 1;
		if (!modrm(q) || (q->reg & 7) != 0)
			return false;
		return imm_rm(q, "test", size, imm_len(size), size);
	}
	case 0xff:
		if (!modrm(q))
			return false;
		switch (q->reg & 7) {
		case 0: case 1:
			put_mnemonic(q, q->reg & 7 ? "dec" : "inc",
				     rm_suffix(q, v), true);
			return put_rm(q, v);
		case 2: case 4:
			if (q->opsize16 || (q->rex & REX_W))
				return false;
			put_mnemonic(q, (q->reg & 7) == 4 ? "jmp" : "call", "", true);
			put(q, DT_TOK_TEXT, "*", 1);
			return put_rm(q, 8);
		case 6:
			if (q->opsize16 || (q->rex & REX_W) || q->mod == 3)
				return false;
			put_mnemonic(q, "push", "", true);
			return put_rm(q, 8);
		}
		return false;
	}
	return false;
}

static bool two_byte(struct quick *q, uint8_t op)
{
	unsigned v = vsize(q);

	if (op >= 0x80 && op <= 0x8f) {
		char m[4] = "j";
		strcpy(m + 1, conds[op & 15]);
		return branch(q, m, 4);
	}
	if (op >= 0x40 && op <= 0x4f) {
		char m[8] = "cmov";
		strcpy(m + 4, conds[op & 15]);
		return reg_rm(q, m, v, false);
	}
	if (op >= 0x90 && op <= 0x9f) {
		char m[8] = "set";
		strcpy(m + 3, conds[op & 15]);
		if (q->opsize16 || (q->rex & REX_W) || !modrm(q) || (q->reg & 7))
			return false;
		put_mnemonic(q, m, "", true);
		return put_rm(q, 1);
	}
	switch (op) {
	case 0x1f:
		if ((q->rex & REX_W) || !modrm(q) || (q->reg & 7) || q->mod == 3)
			return false;
		put_mnemonic(q, "nop", size_suffix(v), true);
		return put_rm(q, v);
	case 0xaf:
		return reg_rm(q, "imul", v, false);
	case 0xb6: case 0xb7: case 0xbe: case 0xbf: {
		unsigned from = op & 1 ? 2 : 1;
		char m[8] = "movzbl";
		m[3] = op & 8 ? 's' : 'z';
		m[4] = from == 2 ? 'w' : 'b';
		m[5] = size_suffix(v)[0];
		if (!modrm(q) || from >= v)
			return false;
		put_mnemonic(q, m, "", true);
		bool used16 = q->used16;
		if (!put_rm(q, from))
			return false;
		q->used16 = used16;	/* a word source is not 0x66's doing */
		put_comma(q);
		return put_greg(q, v);
	}
	}
	return false;
}

unsigned x86_quick_decode(uint64_t pc, const uint8_t *bytes, size_t avail,
			  struct dt_tok_sink *sink)
{
	struct quick q = { .b = bytes, .avail = avail, .pc = pc, .sink = sink };
	bool done;

	for (;;) {
		if (!need(&q, 1))
			return 0;
		uint8_t p = bytes[q.pos];
		if (p == 0x66 && !q.opsize16 && !q.seg)
			q.opsize16 = true;
		else if ((p == 0x64 || p == 0x65) && !q.seg)
			q.seg = p == 0x64 ? 'f' : 'g';
		else
			break;
		q.pos++;
	}
	if ((bytes[q.pos] & 0xf0) == 0x40) {
		q.rex = bytes[q.pos++];
		if (!need(&q, 1))
			return 0;
	}
	uint8_t op = bytes[q.pos++];
	if (op == 0x0f) {
		if (!need(&q, 1))
			return 0;
		done = two_byte(&q, bytes[q.pos++]);
	} else {
		done = one_byte(&q, op);
	}
	if (!done || q.pos > 15 || (q.opsize16 && !q.used16) ||
	    (q.seg && !q.seg_used) ||
	    (q.rex && (q.rex & 0x0f & ~q.rex_used) != 0) ||
	    (q.rex == REX_PLAIN && !(q.rex_used & REX_PLAIN)))
		return 0;
	if (q.rip) {
		put(&q, DT_TOK_COMMENT, "        # ", 10);
		put_hex(&q, DT_TOK_ADDRESS, pc + q.pos + (uint64_t)q.disp);
	}
	return (unsigned)q.pos;
}
