// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * x86-64: DWARF register numbers (System V psABI, figure 3.36), every
 * spelling of the general registers, and the AT&T operand grammar that
 * libopcodes prints: [%seg:][disp][(base[,index[,scale]])], with '*' before
 * the operand of an indirect call or jump.
 */
#include <ctype.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"

enum {
	X86_RAX, X86_RDX, X86_RCX, X86_RBX, X86_RSI, X86_RDI, X86_RBP, X86_RSP,
	X86_R8, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13, X86_R14, X86_R15,
	X86_RIP,
	X86_ES = 50, X86_CS, X86_SS, X86_DS, X86_FS, X86_GS,
	X86_NREGS
};

/* Canonical (libdw) names by DWARF number; NULL where dtprof has no use. */
static const char *const x86_names[X86_NREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
	[X86_ES] = "es", "cs", "ss", "ds", "fs", "gs",
};

/* Sub-register spellings of the legacy registers: 32-, 16-, 8-bit low,
 * 8-bit high (or NULL). */
static const char *const x86_legacy_aliases[8][4] = {
	[X86_RAX] = { "eax", "ax", "al", "ah" },
	[X86_RDX] = { "edx", "dx", "dl", "dh" },
	[X86_RCX] = { "ecx", "cx", "cl", "ch" },
	[X86_RBX] = { "ebx", "bx", "bl", "bh" },
	[X86_RSI] = { "esi", "si", "sil", NULL },
	[X86_RDI] = { "edi", "di", "dil", NULL },
	[X86_RBP] = { "ebp", "bp", "bpl", NULL },
	[X86_RSP] = { "esp", "sp", "spl", NULL },
};

/* Every spelling of a general or segment register, packed (up to five
 * characters in a word) and hashed: parse_insn asks for each token of
 * every instruction decoded, a million times in a kernel's run.  Filled
 * once, when the library is loaded, and only read after. */
#define NAME_SLOTS 256
static struct {
	uint64_t key;			/* 0: empty */
	int8_t reg;
} x86_by_name[NAME_SLOTS];

static uint64_t name_key(const char *name, size_t len)
{
	uint64_t k = len;

	for (size_t i = 0; i < len; i++)
		k |= (uint64_t)(unsigned char)name[i] << (8 * (i + 1));
	return k;
}

static size_t name_slot(uint64_t k)
{
	return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 56) & (NAME_SLOTS - 1);
}

static void add_name(const char *name, int reg)
{
	uint64_t k = name_key(name, strlen(name));
	size_t i = name_slot(k);

	while (x86_by_name[i].key && x86_by_name[i].key != k)
		i = (i + 1) & (NAME_SLOTS - 1);
	x86_by_name[i].key = k;
	x86_by_name[i].reg = (int8_t)reg;
}

__attribute__((constructor)) static void x86_names_index(void)
{
	static const char suffix[] = "dwbl";	/* r8d, r8w, r8b, r8l */
	char buf[6];

	for (int r = 0; r < X86_NREGS; r++)
		if (x86_names[r])
			add_name(x86_names[r], r);
	for (int r = 0; r < 8; r++)
		for (int k = 0; k < 4; k++)
			if (x86_legacy_aliases[r][k])
				add_name(x86_legacy_aliases[r][k], r);
	add_name("eip", X86_RIP);
	for (int n = 8; n <= 15; n++)
		for (int k = 0; k < 4; k++) {
			snprintf(buf, sizeof(buf), "r%d%c", n, suffix[k]);
			add_name(buf, X86_R8 + n - 8);
		}
}

static int x86_reg_from_name(const char *name, size_t len)
{
	if (len && name[0] == '%') {
		name++;
		len--;
	}
	if (len == 0 || len > 5)
		return -1;
	uint64_t k = name_key(name, len);
	for (size_t i = name_slot(k); x86_by_name[i].key; i = (i + 1) & (NAME_SLOTS - 1))
		if (x86_by_name[i].key == k)
			return x86_by_name[i].reg;
	return -1;
}

static const char *x86_reg_name(int r)
{
	return r >= 0 && r < X86_NREGS ? x86_names[r] : NULL;
}

/* Width in bytes of a register operand, 0 when not a data register. */
static unsigned reg_width(const char *name)
{
	size_t len;

	if (*name == '%')
		name++;
	len = strlen(name);
	if (!strncmp(name, "xmm", 3))
		return 16;
	if (!strncmp(name, "ymm", 3))
		return 32;
	if (!strncmp(name, "zmm", 3))
		return 64;
	if (name[0] == 'r' && len >= 2 && isdigit((unsigned char)name[1])) {
		switch (name[len - 1]) {
		case 'd': return 4;
		case 'w': return 2;
		case 'b': case 'l': return 1;
		default: return 8;
		}
	}
	if (name[0] == 'r' && len == 3)
		return 8;
	if (name[0] == 'e' && len == 3)
		return 4;
	if (len == 2 && (name[1] == 'l' || name[1] == 'h'))
		return 1;
	if (len == 3 && name[2] == 'l')
		return 1;	/* sil, dil, bpl, spl */
	if (len == 2)
		return 2;
	return 0;
}

static unsigned suffix_width(char c)
{
	switch (c) {
	case 'b': return 1;
	case 'w': return 2;
	case 'l': return 4;
	case 'q': return 8;
	default: return 0;
	}
}

static bool is_stack_mnemonic(const char *m)
{
	static const char *const stack_ops[] = {
		"push", "pop", "call", "ret", "leave", "enter", "lret", "iret",
		"syscall", "sysret",
	};
	for (size_t i = 0; i < sizeof(stack_ops) / sizeof(stack_ops[0]); i++)
		if (starts_with(m, stack_ops[i]))
			return true;
	return false;
}

/* Address arithmetic and hints: a memory-looking operand but no access. */
static bool is_addressing_only(const char *m)
{
	return !strcmp(m, "lea") || !strcmp(m, "leaq") || !strcmp(m, "leal") ||
	       !strcmp(m, "leaw") || starts_with(m, "nop") ||
	       starts_with(m, "endbr") || starts_with(m, "bnd");
}

static void main_mnemonic(const struct dt_tok *toks, size_t n, char *m,
			  size_t size);

/* strtoull(s, NULL, 0) for the numbers libopcodes prints ("0x1f", "8"),
 * without the library call's locale and sign handling: every operand of
 * every instruction decoded goes through here. */
static uint64_t token_number(const char *s)
{
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (s += 2; ; s++) {
			unsigned d;
			if (*s >= '0' && *s <= '9')
				d = (unsigned)(*s - '0');
			else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
				d = (unsigned)((*s | 0x20) - 'a' + 10);
			else
				break;
			if (v >> 60)
				return UINT64_MAX;	/* as strtoull: too large */
			v = v << 4 | d;
		}
		return v;
	}
	unsigned base = s[0] == '0' ? 8 : 10;
	for (; *s >= '0' && *s < (char)('0' + base); s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / base)
			return UINT64_MAX;
		v = v * base + (uint64_t)(*s - '0');
	}
	return v;
}

/* One operand being parsed: [%seg:][disp][(base,index,scale)] */
struct operand {
	int segment, base, index, scale;
	int64_t disp;
	int64_t imm;		/* immediate: its value */
	bool has_disp, has_paren, star, immediate, reg_only, negative;
	int reg;		/* reg_only: its DWARF number */
	unsigned reg_size;
	int commas_in_paren;
	bool narrow;		/* a 32-bit base or index */
	unsigned broadcast;	/* "{1to16}": one element, to this many */
};

static void operand_reset(struct operand *o)
{
	memset(o, 0, sizeof(*o));
	o->segment = o->base = o->index = o->reg = -1;
	o->scale = 1;
}

static bool operand_is_memory(const struct operand *o, bool branch)
{
	if (o->immediate || o->reg_only)
		return false;
	if (o->has_paren)
		return true;
	/* A bare displacement is an absolute address: "mov 0x402010,%eax"
	 * or "%fs:0x28".  Direct branch targets come as ADDRESS tokens. */
	return o->has_disp && (!branch || o->star);
}

#define MAX_OPERANDS 6

/* An instruction's operands in AT&T order (destination last). */
struct parsed_insn {
	char mnem[32];
	struct operand ops[MAX_OPERANDS];
	size_t nops;
	bool unparsed;		/* a register in an address we do not know */
};

static void parse_insn(const struct dt_tok *toks, size_t n,
		       struct parsed_insn *pi)
{
	struct operand cur;
	int depth = 0, braces = 0;
	size_t i = 0;

	memset(pi, 0, sizeof(*pi));
	/* Prefixes ("lock", "rep", "notrack") print as mnemonics too:
	 * the last one is the operation. */
	main_mnemonic(toks, n, pi->mnem, sizeof(pi->mnem));
	while (i < n && toks[i].kind == DT_TOK_MNEMONIC)
		i++;
	operand_reset(&cur);
	for (;; i++) {
		bool end = i >= n || toks[i].kind == DT_TOK_COMMENT;
		const struct dt_tok *t = end ? NULL : &toks[i];
		bool close_operand = end;

		/* AVX-512's decorations after an operand ("(%rax){%k1}",
		 * "%zmm0{%k1}{z}", "(%rdi){1to16}", "{rn-sae}") are not
		 * operands: the mask register in them would make a memory
		 * operand look like a register */
		if (t && braces > 0 && t->kind != DT_TOK_TEXT)
			t = NULL;
		if (t) {
			switch (t->kind) {
			case DT_TOK_REGISTER: {
				int r = x86_reg_from_name(t->text, strlen(t->text));
				bool seg = i + 1 < n && toks[i + 1].kind == DT_TOK_TEXT &&
					   toks[i + 1].text[0] == ':';
				if (seg)
					cur.segment = r;
				else if (depth > 0 && cur.commas_in_paren == 0)
					cur.base = r;
				else if (depth > 0)
					cur.index = r;
				else {
					cur.reg_only = true;
					cur.reg = r;
					cur.reg_size = reg_width(t->text);
				}
				if (r < 0 && (seg || depth > 0))
					pi->unparsed = true;
				if (!seg && depth > 0 && reg_width(t->text) != 8)
					cur.narrow = true;	/* "(%eax)" */
				break;
			}
			case DT_TOK_ADDRESS_OFFSET:
			case DT_TOK_IMMEDIATE: {
				/* libopcodes prints "$" and "-" as tokens
				 * of their own before the digits */
				const char *s = t->text;
				if (*s == '$') {
					cur.immediate = true;
					s++;
				}
				if (*s == '-') {
					cur.negative = !cur.negative;
					s++;
				}
				if (!*s)
					break;
				uint64_t u = token_number(s);
				int64_t v = (int64_t)(cur.negative ? 0 - u : u);
				cur.negative = false;
				if (depth > 0 && cur.commas_in_paren == 2)
					cur.scale = (int)v;
				else if (cur.immediate)
					cur.imm = v;
				else {
					cur.disp = v;
					cur.has_disp = true;
				}
				break;
			}
			case DT_TOK_TEXT:
				for (const char *c = t->text; *c; c++) {
					if (*c == '{') {
						braces++;
					} else if (*c == '}') {
						braces -= braces > 0;
					} else if (braces > 0) {
						if (!strncmp(c, "1to", 3))
							cur.broadcast = (unsigned)atoi(c + 3);
						continue;
					} else if (*c == '(') {
						depth++;
						cur.has_paren = true;
					} else if (*c == ')') {
						depth--;
					} else if (*c == ',') {
						if (depth > 0)
							cur.commas_in_paren++;
						else
							close_operand = true;
					} else if (*c == '*') {
						cur.star = true;
					}
				}
				break;
			default:
				break;
			}
		}
		if (close_operand) {
			bool empty = !cur.reg_only && !cur.has_disp && !cur.has_paren &&
				     !cur.immediate && cur.segment < 0;
			if (!empty && pi->nops < MAX_OPERANDS)
				pi->ops[pi->nops++] = cur;
			operand_reset(&cur);
		}
		if (end)
			break;
	}
}

static void mem_op_of(const struct operand *mem, struct dt_mem_op *op)
{
	memset(op, 0, sizeof(*op));
	op->base = mem->base;
	op->index = mem->index;
	op->scale = mem->index >= 0 ? mem->scale : 0;
	op->disp = mem->disp;
	/* ds/es/ss/cs are flat in 64-bit mode; only fs/gs change the base */
	op->segment = mem->segment == X86_FS || mem->segment == X86_GS ?
		      mem->segment : -1;
	op->indirect_branch = mem->star;
	op->narrow = mem->narrow;
	if (op->base == X86_RIP) {
		op->pc_relative = true;
		op->base = -1;
	}
	op->absolute = op->base < 0 && op->index < 0 && !op->pc_relative;
}

/* The bits a test/and/or/xor/bt* with an immediate looks at or changes
 * ("testb $0x4,0x2b(%rdi)": bit 2), so the bitfield it means is named
 * rather than the first one in the byte. */
static void access_bits(const struct parsed_insn *pi, const char *mnem,
			struct dt_mem_op *op)
{
	const struct operand *imm = pi->nops == 2 && pi->ops[0].immediate ?
				    &pi->ops[0] : NULL;
	unsigned width = op->size && op->size < 8 ? op->size * 8 : 64;
	uint64_t all = width == 64 ? ~0ull : (1ull << width) - 1;
	uint64_t v;

	if (!imm)
		return;
	v = (uint64_t)imm->imm;
	if (starts_with(mnem, "test") || starts_with(mnem, "or") ||
	    starts_with(mnem, "xor"))
		op->bits = v & all;
	else if (starts_with(mnem, "and"))
		op->bits = ~v & all;
	else if (starts_with(mnem, "bt"))
		op->bits = 1ull << (v % width);
}

static bool starts_with_any(const char *m, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (starts_with(m, list[i]))
			return true;
	return false;
}
#define STARTS_WITH_ANY(m, list) \
	starts_with_any(m, list, sizeof(list) / sizeof(list[0]))

/* How the instruction uses its memory operand, the k-th of its operands
 * (AT&T order: the destination is the last).  A source is read; a
 * destination is written by the moves and stores, read and written by
 * the arithmetic (a lock prefix changes nothing: the mnemonic after it
 * decides), only read by compares, tests and the one-operand forms that
 * take memory as input.  A destination of any other instruction: 0. */
static unsigned mem_access(const struct parsed_insn *pi, size_t k)
{
	static const char *const writes[] = {
		"mov", "vmov", "vpmov", "set", "stos", "fst", "fist", "fbstp",
		"fnst", "fsave", "fnsave", "fxsave", "xsave", "stmxcsr",
		"vstmxcsr", "pextr", "vpextr", "extractps", "vextract",
		"vmaskmov", "vpmaskmov", "vscatter", "vpscatter", "cvtps2ph",
		"vcvtps2ph", "vpcompress", "vcompress", "pop", "sgdt", "sidt", "sldt", "smsw", "str",
	};
	static const char *const updates[] = {
		"add", "adc", "sub", "sbb", "and", "or", "xor", "inc", "dec",
		"not", "neg", "shl", "sal", "shr", "sar", "rol", "ror", "rcl",
		"rcr", "shld", "shrd", "bts", "btr", "btc", "xadd", "xchg",
		"cmpxchg",
	};
	static const char *const reads[] = {
		"cmp", "test", "bt", "ucomis", "comis", "vucomis", "vcomis",
		"ptest", "vptest", "push", "jmp", "call", "mul", "imul", "div",
		"idiv", "prefetch", "clflush", "clwb", "lods", "scas", "ldmxcsr",
		"vldmxcsr", "fxrstor", "xrstor", "lgdt", "lidt", "lldt", "ltr",
		"lmsw", "verr", "verw", "ptwrite",
	};
	const char *m = pi->mnem;

	if (starts_with(m, "xchg"))
		return DT_MEM_READ | DT_MEM_WRITE;	/* either operand order */
	if (k + 1 < pi->nops)
		return DT_MEM_READ;
	if (STARTS_WITH_ANY(m, writes))
		return DT_MEM_WRITE;
	if (STARTS_WITH_ANY(m, updates))
		return DT_MEM_READ | DT_MEM_WRITE;
	if (STARTS_WITH_ANY(m, reads) || (m[0] == 'f' && pi->nops == 1))
		return DT_MEM_READ;	/* x87 loads and arithmetic: flds, fadds */
	return 0;
}

/* Classify an instruction already parsed (x86_def() asks too). */
static enum dt_op_kind classify_parsed(const struct parsed_insn *pi,
				       struct dt_mem_op *op)
{
	const struct operand *mem = NULL;
	size_t mem_k = 0;
	unsigned other_reg_size = 0;

	const char *mnem = pi->mnem;
	if (!mnem[0])
		return DT_OP_UNPARSED;	/* "(bad)" or data */
	bool branch = starts_with(mnem, "call") || mnem[0] == 'j';
	for (size_t k = 0; k < pi->nops; k++) {
		const struct operand *o = &pi->ops[k];
		/* Two memory operands only in string ops: the first (the
		 * source in AT&T). */
		if (operand_is_memory(o, branch) && !mem) {
			mem = o;
			mem_k = k;
		}
		else if (o->reg_only && !other_reg_size)
			other_reg_size = o->reg_size;
	}
	bool have_mem = mem != NULL;
	bool unparsed = pi->unparsed;

	if (is_addressing_only(mnem))
		return DT_OP_NONE;
	if (!have_mem)
		return is_stack_mnemonic(mnem) ? DT_OP_STACK : DT_OP_NONE;
	if (unparsed)
		return DT_OP_UNPARSED;

	mem_op_of(mem, op);

	/* movzbl/movsbq and friends: the letter after movz/movs is the
	 * source width; otherwise a register operand's width, otherwise the
	 * suffix of "movl $1,(%rax)". */
	size_t ml = strlen(mnem);
	/* conversions: the memory holds the source's kind, not the
	 * destination register's (cvttsd2si: a float in a GPR out) */
	bool float_in = false, int_in = false;
	if (op->indirect_branch)
		op->size = 8;	/* a code pointer */
	else if ((starts_with(mnem, "movz") || starts_with(mnem, "movs")) && ml == 6)
		op->size = suffix_width(mnem[4]);
	else if ((starts_with(mnem, "cvt") || starts_with(mnem, "vcvt")) &&
		 (strstr(mnem, "ss2") || strstr(mnem, "sd2"))) {
		op->size = strstr(mnem, "ss2") ? 4 : 8;	/* cvttss2si: a float in */
		float_in = true;
	}
	else if ((starts_with(mnem, "cvtsi2") || starts_with(mnem, "vcvtsi2")) &&
		 (mnem[ml - 1] == 'l' || mnem[ml - 1] == 'q')) {
		op->size = suffix_width(mnem[ml - 1]);	/* cvtsi2sdl: an int in */
		int_in = true;
	}
	else if (other_reg_size >= 16 && ml > 2 &&
		 (!strcmp(mnem + ml - 2, "sd") || !strcmp(mnem + ml - 2, "ss")))
		op->size = mnem[ml - 1] == 'd' ? 8 : 4;	/* scalar SSE */
	else if (other_reg_size >= 16 && (!strcmp(mnem, "movq") ||
		 !strcmp(mnem, "vmovq") || strstr(mnem, "lp") || strstr(mnem, "hp")))
		op->size = 8;	/* movq, movlps, movhpd: one quadword */
	else if (other_reg_size >= 16 && (!strcmp(mnem, "movd") ||
		 !strcmp(mnem, "vmovd")))
		op->size = 4;
	else if (other_reg_size && mem->broadcast)
		op->size = other_reg_size / mem->broadcast;	/* one element */
	else if (other_reg_size)
		op->size = other_reg_size;
	else if (ml > 2)
		op->size = suffix_width(mnem[ml - 1]);
	op->fp = float_in || (!int_in && other_reg_size >= 16) ||	/* xmm, ymm, zmm */
		 (mnem[0] == 'f' && strcmp(mnem, "fxsave") && strcmp(mnem, "fxrstor"));
	access_bits(pi, mnem, op);
	op->access = mem_access(pi, mem_k);
	/* what macro-fuses with a following jcc (perf's intel__ins_is_fused) */
	op->fuses = (starts_with(mnem, "cmp") && !starts_with(mnem, "cmpxchg") &&
		     !starts_with(mnem, "cmps")) ||
		    starts_with(mnem, "test") || starts_with(mnem, "add") ||
		    starts_with(mnem, "sub") || starts_with(mnem, "and") ||
		    starts_with(mnem, "inc") || starts_with(mnem, "dec");
	return DT_OP_MEMORY;
}

static enum dt_op_kind x86_classify(const struct dt_tok *toks, size_t n,
				    struct dt_mem_op *op)
{
	struct parsed_insn pi;

	parse_insn(toks, n, &pi);
	return classify_parsed(&pi, op);
}

/* The operation's mnemonic (the last of any prefixes), "" when none. */
static void main_mnemonic(const struct dt_tok *toks, size_t n, char *m,
			  size_t size)
{
	m[0] = '\0';
	for (size_t i = 0; i < n && toks[i].kind == DT_TOK_MNEMONIC; i++) {
		size_t l = strcspn(toks[i].text, " \t");
		if (l >= size)
			l = size - 1;
		memcpy(m, toks[i].text, l);
		m[l] = '\0';
	}
}

static enum dt_flow x86_flow(const struct dt_tok *toks, size_t n,
			     uint64_t *target)
{
	char m[32];
	bool have_target = false, indirect = false;

	main_mnemonic(toks, n, m, sizeof(m));
	*target = 0;
	for (size_t i = 0; i < n; i++) {
		if (toks[i].kind == DT_TOK_ADDRESS && !have_target) {
			*target = token_number(toks[i].text);
			have_target = true;
		} else if (toks[i].kind == DT_TOK_TEXT && strchr(toks[i].text, '*')) {
			indirect = true;
		}
	}
	/* a call, or an entry into the kernel that returns to the next
	 * instruction: the time between is not this code's (samples there
	 * land after it, never on what came before) */
	if (starts_with(m, "call") || !strcmp(m, "syscall") || !strcmp(m, "sysenter") ||
	    !strcmp(m, "int") || !strcmp(m, "int3") || !strcmp(m, "int1") ||
	    !strcmp(m, "into") || !strcmp(m, "icebp") || !strcmp(m, "vmcall") ||
	    !strcmp(m, "vmmcall"))
		return DT_FLOW_CALL;
	if (starts_with(m, "jmp"))
		return have_target && !indirect ? DT_FLOW_JUMP : DT_FLOW_INDIRECT;
	if ((m[0] == 'j' || starts_with(m, "loop") || starts_with(m, "xbegin")) &&
	    have_target)
		return DT_FLOW_BRANCH;
	if (starts_with(m, "ret") || starts_with(m, "iret") || starts_with(m, "lret") ||
	    !strcmp(m, "hlt") || !strcmp(m, "ud2") || starts_with(m, "sysret") ||
	    starts_with(m, "sysexit"))
		return DT_FLOW_END;
	return DT_FLOW_NEXT;
}

/* Whether some entry of a table of mnemonics or prefixes could match m:
 * the set of the entries' first letters (a to z), so that the common
 * instructions (mov, add, lea) skip the tables' string compares. */
#define FIRST(c) (1u << ((c) - 'a'))
static bool may_start(const char *m, uint32_t firsts)
{
	return m[0] >= 'a' && m[0] <= 'z' && (firsts & FIRST(m[0]));
}

/* Instructions that read their last operand without writing it. */
static bool writes_no_register(const char *m)
{
	static const char *const readers[] = {
		"cmp", "test", "bt", "push", "ucomis", "comis", "ptest", "vptest",
	};
	if (!may_start(m, FIRST('b') | FIRST('c') | FIRST('t') | FIRST('p') |
			  FIRST('u') | FIRST('v')))
		return false;
	if (!strcmp(m, "bts") || !strcmp(m, "btr") || !strcmp(m, "btc") ||
	    starts_with(m, "cmpxchg") || starts_with(m, "cmov"))
		return false;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
		if (starts_with(m, readers[i]))
			return true;
	return false;
}

#define R(r) (1ull << (r))

/* Registers an instruction writes without naming them as its last
 * operand: implicit operands (rax:rdx of mul and div, the string
 * registers), rsp of push and pop, and both operands of an exchange. */
static uint64_t implicit_writes(const struct parsed_insn *pi)
{
	static const struct {
		const char *prefix;
		uint64_t regs;
	} table[] = {
		{ "cpuid", R(X86_RAX) | R(X86_RBX) | R(X86_RCX) | R(X86_RDX) },
		{ "rdtsc", R(X86_RAX) | R(X86_RDX) | R(X86_RCX) },
		{ "rdmsr", R(X86_RAX) | R(X86_RDX) }, { "rdpmc", R(X86_RAX) | R(X86_RDX) },
		{ "xgetbv", R(X86_RAX) | R(X86_RDX) }, { "rdpkru", R(X86_RAX) | R(X86_RDX) },
		{ "syscall", R(X86_RAX) | R(X86_RCX) | R(X86_R11) },
		{ "sysenter", R(X86_RAX) | R(X86_RCX) | R(X86_RDX) | R(X86_R11) },
		{ "leave", R(X86_RBP) | R(X86_RSP) }, { "enter", R(X86_RBP) | R(X86_RSP) },
		{ "push", R(X86_RSP) }, { "pop", R(X86_RSP) }, { "ret", R(X86_RSP) },
		{ "iret", R(X86_RSP) }, { "lret", R(X86_RSP) },
		{ "loop", R(X86_RCX) }, { "ins", R(X86_RDI) | R(X86_RCX) },
		{ "xlat", R(X86_RAX) }, { "lahf", R(X86_RAX) },
		{ "cmpxchg", R(X86_RAX) | R(X86_RDX) },
	};
	/* sign extensions, by exact name: cltq (cdqe) widens eax into rax
	 * alone, cltd (cdq) into edx too */
	static const struct {
		const char *name;
		uint64_t regs;
	} widen[] = {
		{ "cltq", R(X86_RAX) }, { "cwtl", R(X86_RAX) }, { "cbtw", R(X86_RAX) },
		{ "cdqe", R(X86_RAX) }, { "cwde", R(X86_RAX) }, { "cbw", R(X86_RAX) },
		{ "cltd", R(X86_RAX) | R(X86_RDX) }, { "cqto", R(X86_RAX) | R(X86_RDX) },
		{ "cwtd", R(X86_RAX) | R(X86_RDX) }, { "cdq", R(X86_RAX) | R(X86_RDX) },
		{ "cqo", R(X86_RAX) | R(X86_RDX) }, { "cwd", R(X86_RAX) | R(X86_RDX) },
	};
	const char *m = pi->mnem;
	uint64_t w = !strcmp(m, "in") ? R(X86_RAX) : 0;

	if (m[0] == 'c')	/* every widen[] name */
		for (size_t i = 0; i < sizeof(widen) / sizeof(widen[0]); i++)
			if (!strcmp(m, widen[i].name))
				w |= widen[i].regs;

	if (may_start(m, FIRST('c') | FIRST('r') | FIRST('x') | FIRST('s') |
			 FIRST('l') | FIRST('e') | FIRST('p') | FIRST('i')))
		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
			if (starts_with(m, table[i].prefix))
				w |= table[i].regs;
	/* one-operand mul, imul, div, idiv: rdx:rax */
	if (pi->nops == 1 && (starts_with(m, "mul") || starts_with(m, "imul") ||
			      starts_with(m, "div") || starts_with(m, "idiv")))
		w |= R(X86_RAX) | R(X86_RDX);
	/* exchanges and mulx write every register they name */
	bool all = starts_with(m, "xchg") || starts_with(m, "xadd") ||
		   starts_with(m, "mulx");
	for (size_t k = 0; k < pi->nops; k++) {
		const struct operand *o = &pi->ops[k];
		/* string instructions: %ds:(%rsi), %es:(%rdi); rep adds rcx */
		if (o->segment == X86_ES || o->segment == X86_DS)
			w |= R(X86_RAX) | R(X86_RCX) | R(X86_RSI) | R(X86_RDI);
		if (all && o->reg_only && o->reg >= 0 && o->reg < X86_RIP)
			w |= R(o->reg);
	}
	return w;
}

static bool is_gpr(const struct operand *o)
{
	return o->reg_only && o->reg >= 0 && o->reg < X86_RIP;
}

/* The memory the instruction may write: a memory destination (the last
 * operand), or any memory operand of an exchange. */
static void memory_written(const struct parsed_insn *pi, struct dt_def *d)
{
	const struct operand *dst = &pi->ops[pi->nops - 1];
	bool exchange = starts_with(pi->mnem, "xchg") || starts_with(pi->mnem, "xadd") ||
			starts_with(pi->mnem, "cmpxchg");
	struct dt_mem_op op;

	if (writes_no_register(pi->mnem) && !exchange)
		return;
	if (!exchange && (dst->reg_only || dst->immediate))
		return;
	if (classify_parsed(pi, &op) != DT_OP_MEMORY)
		return;
	d->mem = op;
	/* unknown sizes (fxsave, rep stos): a generous span */
	d->mem_span = op.size ? op.size : 64;
}

static void def_parsed(const struct parsed_insn *pi, const struct dt_tok *toks,
		       size_t n, uint64_t pc, unsigned len, struct dt_def *d)
{
	memset(d, 0, sizeof(*d));
	d->dst = d->src = d->src2 = d->src3 = d->wb_reg = -1;
	d->mem.base = d->mem.index = d->mem.segment = -1;
	if (starts_with(pi->mnem, "call")) {
		uint64_t target;
		d->kind = DT_DEF_CALL;
		if (x86_flow(toks, n, &target) == DT_FLOW_CALL &&
		    !(pi->nops && pi->ops[0].star))
			d->value = (int64_t)target;
		return;
	}
	d->clobbers = implicit_writes(pi);
	if (!pi->nops)
		return;
	memory_written(pi, d);
	if (writes_no_register(pi->mnem))
		return;
	const struct operand *dst = &pi->ops[pi->nops - 1];
	const struct operand *src = &pi->ops[0];
	bool is_mov = !strcmp(pi->mnem, "mov") || !strcmp(pi->mnem, "movq");
	if (is_mov && pi->nops == 2 && d->mem_span && !pi->unparsed &&
	    is_gpr(src) && src->reg_size == 8) {
		d->kind = DT_DEF_STORE;		/* a spill: mov %rdi,-0x8(%rsp) */
		d->src = src->reg;
		return;
	}
	if (!dst->reg_only || dst->reg < 0 || dst->reg >= X86_RIP)
		return;		/* writes memory, or a register we do not follow */
	d->dst = dst->reg;
	d->kind = DT_DEF_OTHER;
	if ((is_mov || !strcmp(pi->mnem, "movabs")) && pi->nops == 2 &&
	    src->immediate && (dst->reg_size == 8 || dst->reg_size == 4)) {
		/* "mov $0x128,%ecx": a constant, a multiple of itself (a
		 * 32-bit write zeroes the upper half) */
		d->kind = DT_DEF_MUL;
		d->value = src->imm;
		return;
	}
	if ((!strcmp(pi->mnem, "xor") || !strcmp(pi->mnem, "sub")) && pi->nops == 2 &&
	    !pi->unparsed && is_gpr(src) && src->reg == dst->reg &&
	    (dst->reg_size == 8 || dst->reg_size == 4)) {
		d->kind = DT_DEF_ZERO;	/* "xor %esi,%esi": the whole register */
		return;
	}
	if (dst->reg_size != 8 || pi->unparsed)
		return;
	if ((!strcmp(pi->mnem, "movslq") || !strcmp(pi->mnem, "movsxd")) &&
	    pi->nops == 2 && is_gpr(src) && src->reg_size == 4) {
		d->kind = DT_DEF_MUL;	/* "movslq %edi,%rdi": the same index */
		d->src = src->reg;
		d->value = 1;
		return;
	}
	if (!strcmp(pi->mnem, "imul") && pi->nops == 2 && is_gpr(src) &&
	    src->reg_size == 8) {
		d->kind = DT_DEF_MADD;	/* "imul %rcx,%rax" */
		d->src = dst->reg;
		d->src2 = src->reg;
		return;
	}
	if (!strcmp(pi->mnem, "imul") && pi->nops == 3 && src->immediate) {
		/* "imul $0x18,%rax,%rcx", "imul $0x18,-0x10(%rbp),%rcx" */
		d->kind = DT_DEF_MUL;
		d->src = is_gpr(&pi->ops[1]) && pi->ops[1].reg_size == 8 ? pi->ops[1].reg : -1;
		d->value = src->imm;
		return;
	}
	if ((!strcmp(pi->mnem, "shl") || !strcmp(pi->mnem, "sal")) && pi->nops == 1) {
		d->kind = DT_DEF_MUL;	/* "shl %rax": by one */
		d->src = dst->reg;
		d->value = 2;
		return;
	}
	if (pi->nops != 2)
		return;
	bool lea = !strcmp(pi->mnem, "lea");
	if (lea && src->base == X86_RIP && src->index < 0) {
		/* "lea 0x2ee1(%rip),%rdx": the address of a static */
		d->kind = DT_DEF_ADDR;
		d->value = (int64_t)(pc + len + (uint64_t)src->disp);
	} else if (lea && src->segment < 0 && src->base < X86_RIP &&
		   src->index < X86_RIP && (src->base >= 0 || src->index >= 0)) {
		/* "lea 0x30(%rdi),%rax", "lea (%rax,%rdx,8),%rcx",
		 * "lea 0x0(,%rax,8),%rdx" */
		d->kind = src->index >= 0 ? DT_DEF_ADD : DT_DEF_ADDI;
		d->src = src->base;
		d->src2 = src->index;
		d->scale = (unsigned)src->scale;
		d->value = src->disp;
	} else if ((!strcmp(pi->mnem, "shl") || !strcmp(pi->mnem, "sal")) &&
		   src->immediate && src->imm >= 0 && src->imm < 32) {
		d->kind = DT_DEF_MUL;	/* "shl $0x3,%rax" */
		d->src = dst->reg;
		d->value = 1ll << src->imm;
	} else if ((!strcmp(pi->mnem, "add") || !strcmp(pi->mnem, "sub")) &&
		   src->immediate) {
		d->kind = DT_DEF_ADDI;
		d->src = dst->reg;
		d->value = pi->mnem[0] == 's' ? -src->imm : src->imm;
	} else if (!strcmp(pi->mnem, "or") && src->immediate && src->imm >= 0 &&
		   is_gpr(dst) && dst->reg_size == 8) {
		d->kind = DT_DEF_ORI;	/* "or $0x20,%rax" on 8 * i */
		d->src = dst->reg;
		d->value = src->imm;
	} else if ((!strcmp(pi->mnem, "add") || !strcmp(pi->mnem, "sub")) &&
		   is_gpr(src) && src->reg_size == 8) {
		d->kind = pi->mnem[0] == 's' ? DT_DEF_SUB : DT_DEF_ADD;
		d->src = dst->reg;
		d->src2 = src->reg;
		d->scale = 1;
	} else if (is_mov && is_gpr(src)) {
		d->kind = DT_DEF_COPY;
		d->src = src->reg;
	} else if (is_mov && !src->immediate && !src->reg_only &&
		   (src->has_paren || src->has_disp)) {
		d->kind = DT_DEF_LOAD;
		mem_op_of(src, &d->mem);
	}
}

static void x86_def(const struct dt_tok *toks, size_t n, uint64_t pc,
		    unsigned len, struct dt_def *d)
{
	struct parsed_insn pi;

	parse_insn(toks, n, &pi);
	def_parsed(&pi, toks, n, pc, len, d);
}

static enum dt_op_kind x86_classify_def(const struct dt_tok *toks, size_t n,
					uint64_t pc, unsigned len,
					struct dt_mem_op *op, struct dt_def *d)
{
	struct parsed_insn pi;

	parse_insn(toks, n, &pi);
	def_parsed(&pi, toks, n, pc, len, d);
	return classify_parsed(&pi, op);
}

static bool x86_tests_bits(const struct dt_tok *toks, size_t n, int *reg,
			   uint64_t *bits)
{
	struct parsed_insn pi;

	parse_insn(toks, n, &pi);
	if (pi.nops != 2 || !pi.ops[0].immediate || !pi.ops[1].reg_only ||
	    pi.ops[1].reg < 0)
		return false;
	const char *m = pi.mnem;
	uint64_t v = (uint64_t)pi.ops[0].imm;
	if (starts_with(m, "test") || starts_with(m, "and"))
		*bits = v;
	else if (starts_with(m, "bt") && v < 64)
		*bits = 1ull << v;
	else
		return false;
	*reg = pi.ops[1].reg;
	return *bits != 0;
}

static bool x86_shifts_right(const struct dt_tok *toks, size_t n, int *reg,
			     unsigned *by)
{
	struct parsed_insn pi;

	parse_insn(toks, n, &pi);
	if (!starts_with(pi.mnem, "shr") && !starts_with(pi.mnem, "sar"))
		return false;
	const struct operand *dst = &pi.ops[pi.nops ? pi.nops - 1 : 0];
	if (!pi.nops || pi.nops > 2 || !dst->reg_only || dst->reg < 0 ||
	    (pi.nops == 2 && (!pi.ops[0].immediate || pi.ops[0].imm < 0 ||
			      pi.ops[0].imm >= 64)))
		return false;
	*reg = dst->reg;
	*by = pi.nops == 2 ? (unsigned)pi.ops[0].imm : 1;	/* "shr %eax": 1 */
	return true;
}

static bool x86_compares_regs(const struct dt_tok *toks, size_t n, int *a,
			      int *b)
{
	struct parsed_insn pi;

	parse_insn(toks, n, &pi);
	if (strcmp(pi.mnem, "cmp") && strcmp(pi.mnem, "cmpq"))
		return false;	/* not cmpxchg, cmps */
	if (pi.nops != 2 || !pi.ops[0].reg_only || !pi.ops[1].reg_only ||
	    pi.ops[0].reg_size != 8 || pi.ops[1].reg_size != 8 ||
	    pi.ops[0].reg < 0 || pi.ops[1].reg < 0)
		return false;
	*a = pi.ops[0].reg;
	*b = pi.ops[1].reg;
	return true;
}

static bool x86_is_stack_canary(const struct dt_mem_op *op)
{
	/* gcc's -fstack-protector reads the guard at %fs:0x28 in user
	 * space, %gs:0x28 in older x86-64 kernels. */
	return op->segment >= 0 && op->absolute && op->disp == 0x28;
}

static bool x86_apply_reloc(unsigned type, uint64_t symbol, int64_t addend,
			    uint64_t place, uint64_t nowhere, uint8_t *where,
			    size_t room)
{
	size_t n = 4;
	uint64_t v = symbol + (uint64_t)addend;

	switch (type) {
	case R_X86_64_64:
		n = 8;
		break;
	case R_X86_64_PC64:
		n = 8;
		v -= place;
		break;
	case R_X86_64_32:
	case R_X86_64_32S:
		break;
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		v -= place;
		break;
	case R_X86_64_GOTPCREL:
	case R_X86_64_GOTPCRELX:
	case R_X86_64_REX_GOTPCRELX:
	case R_X86_64_GOTTPOFF:
	case R_X86_64_TLSGD:
	case R_X86_64_TLSLD:
		v = nowhere + (uint64_t)addend - place;
		break;
	default:
		return false;
	}
	/* a value its field cannot hold would reach another address */
	bool fits = n == 8 || (type == R_X86_64_32 ? v <= UINT32_MAX :
			       (int64_t)v == (int64_t)(int32_t)(uint32_t)v);
	if (room < n || !fits)
		return false;
	dt_put_le(where, v, n);
	return true;
}

/* perf's names (tools/perf/arch/x86: perf_regs.h) by DWARF number */
static const char *const x86_perf_regs[] = {
	"AX", "DX", "CX", "BX", "SI", "DI", "BP", "SP",
	"R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15", "IP",
};

const struct dt_arch dt_arch_x86_64 = {
	.name = "x86-64",
	.e_machine = 62,	/* EM_X86_64 */
	.bfd_arch = "i386:x86-64",
	.max_insn_len = 15,
	.dwarf_sp = X86_RSP,
	.dwarf_fp = X86_RBP,
	.dwarf_pc = X86_RIP,
	.dwarf_retval = X86_RAX,
	.dwarf_arg0 = X86_RDI,
	.ptr_size = 8,
	.ngpr = 16,		/* rax..r15; 16 is rip */
	.plt_header = 16,	/* the resolver stub */
	.plt_entry = 16,
	.tls_segment = X86_FS,	/* psABI 3.4.6 / ELF TLS: variant II */
	.percpu_segment = X86_GS,
	.tpoff_reloc = R_X86_64_TPOFF64,
	.dtpmod_reloc = R_X86_64_DTPMOD64,
	.dtpoff_reloc = R_X86_64_DTPOFF64,
	.tls_get_addr_arg = X86_RDI,
	.apply_reloc = x86_apply_reloc,
	.nregs = X86_NREGS,
	.reg_from_name = x86_reg_from_name,
	.reg_name = x86_reg_name,
	.classify = x86_classify,
	.flow = x86_flow,
	.def = x86_def,
	.classify_def = x86_classify_def,
	/* System V x86-64 psABI 3.2.1: rax, rdx, rcx, rsi, rdi, r8-r11 */
	.caller_saved = (1u << X86_RAX) | (1u << X86_RDX) | (1u << X86_RCX) |
			(1u << X86_RSI) | (1u << X86_RDI) | (1u << X86_R8) |
			(1u << X86_R9) | (1u << X86_R10) | (1u << X86_R11),
	.is_stack_canary = x86_is_stack_canary,
	.perf_regs = x86_perf_regs,
	.perf_regs_n = sizeof(x86_perf_regs) / sizeof(x86_perf_regs[0]),
	.perf_ip = "IP",
	.tests_bits = x86_tests_bits,
	.shifts_right = x86_shifts_right,
	.compares_regs = x86_compares_regs,
	.quick_decode = x86_quick_decode,
};
