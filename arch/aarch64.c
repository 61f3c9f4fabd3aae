// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * AArch64: DWARF register numbers (AADWARF64: x0-x30 are 0-30, sp is 31),
 * the operand grammar libopcodes prints ([xN, #imm], [xN, xM, lsl #s],
 * pre-index "]!", post-index "], #imm", ldp/stp pairs, literal loads),
 * control flow, register effects, the AAPCS64 caller-saved set.
 */
#include <ctype.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"

#define A64_FP 29
#define A64_LR 30
#define A64_SP 31
#define A64_NREGS 32

static const char *const a64_names[A64_NREGS] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
	"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30",
	"sp",
};

static int a64_reg_from_name(const char *name, size_t len)
{
	char buf[8];
	char *end;

	if (len && name[0] == '%')
		name++, len--;
	if (len < 2 || len >= sizeof(buf))
		return -1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (!strcmp(buf, "sp") || !strcmp(buf, "wsp"))
		return A64_SP;
	if (!strcmp(buf, "fp"))
		return A64_FP;
	if (!strcmp(buf, "lr"))
		return A64_LR;
	if ((buf[0] != 'x' && buf[0] != 'w') || !isdigit((unsigned char)buf[1]))
		return -1;
	long n = strtol(buf + 1, &end, 10);
	return *end || n > 30 ? -1 : (int)n;
}

static const char *a64_reg_name(int r)
{
	return r >= 0 && r < A64_NREGS ? a64_names[r] : NULL;
}

static unsigned reg_width(const char *name)
{
	switch (name[0]) {
	case 'x': return 8;
	case 'w': return 4;
	case 'q': return 16;
	case 'd': return 8;
	case 's': return name[1] == 'p' ? 8 : 4;
	case 'h': return 2;
	case 'b': return 1;
	default: return 0;
	}
}

#define MAX_REGS 4

/* One instruction: its register operands in order, and the one memory
 * operand in brackets (or a literal address). */
struct parsed {
	char mnem[16];
	int regs[MAX_REGS];
	unsigned reg_size[MAX_REGS];
	size_t nregs;
	bool has_mem, writeback, post_index, literal, unparsed, has_imm;
	bool fp;		/* the first data register is b/h/s/d/q/v n */
	int64_t imm;		/* an immediate outside brackets */
	int64_t post_imm;	/* "[x1], #16": 16 */
	int base, index;
	unsigned index_shift;	/* "[x0, x1, lsl #3]": 3 */
	bool narrow;		/* a w register inside the brackets */
	int64_t disp;
	uint64_t literal_addr;
};

static int64_t imm_value(const char *s)
{
	bool neg;

	if (*s == '#')
		s++;
	neg = *s == '-';
	if (neg)
		s++;
	uint64_t u = strtoull(s, NULL, 0);
	return (int64_t)(neg ? 0 - u : u);
}

static void parse(const struct dt_tok *t, size_t n, struct parsed *p)
{
	int depth = 0;
	bool after_mem = false;

	memset(p, 0, sizeof(*p));
	p->base = p->index = -1;
	size_t i = 0;
	for (; i < n && t[i].kind == DT_TOK_MNEMONIC; i++) {
		size_t l = strcspn(t[i].text, " \t");
		if (l >= sizeof(p->mnem))
			l = sizeof(p->mnem) - 1;
		memcpy(p->mnem, t[i].text, l);
		p->mnem[l] = '\0';
	}
	for (; i < n && t[i].kind != DT_TOK_COMMENT; i++) {
		switch (t[i].kind) {
		case DT_TOK_TEXT:
			for (const char *c = t[i].text; *c; c++) {
				if (*c == '[') {
					depth++;
					p->has_mem = true;
				} else if (*c == ']') {
					depth--;
					after_mem = true;
				} else if (*c == '!') {
					p->writeback = true;
				}
			}
			break;
		case DT_TOK_REGISTER: {
			int r = a64_reg_from_name(t[i].text, strlen(t[i].text));
			if (depth > 0) {
				if (p->base < 0)
					p->base = r;
				else
					p->index = r;
				if (reg_width(t[i].text) == 4)
					p->narrow = true;	/* "w1, sxtw" */
				if (r < 0)
					p->unparsed = true;
			} else if (p->nregs < MAX_REGS) {
				if (!p->nregs)
					p->fp = strchr("bhsdqv", t[i].text[0]) &&
						isdigit((unsigned char)t[i].text[1]);
				p->regs[p->nregs] = r;
				p->reg_size[p->nregs++] = reg_width(t[i].text);
			}
			break;
		}
		case DT_TOK_IMMEDIATE:
			if (depth > 0 && p->index < 0)
				p->disp = imm_value(t[i].text);
			else if (depth > 0)
				p->index_shift = (unsigned)imm_value(t[i].text) & 7;
			else if (after_mem && depth == 0) {
				p->post_index = true;	/* "[x1], #16" */
				p->post_imm = imm_value(t[i].text);
			}
			else if (depth == 0 && !p->has_imm) {
				p->has_imm = true;
				p->imm = imm_value(t[i].text);
			}
			break;
		case DT_TOK_ADDRESS:
			p->literal_addr = strtoull(t[i].text, NULL, 0);
			p->literal = starts_with(p->mnem, "ldr") && !p->has_mem;
			break;
		default:
			break;
		}
	}
}

static bool is_memory_mnemonic(const char *m)
{
	static const char *const mem[] = {
		"ld", "st", "prfm", "cas", "swp",
	};
	for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++)
		if (starts_with(m, mem[i]))
			return true;
	return false;
}

static unsigned access_size(const struct parsed *p)
{
	const char *m = p->mnem;
	size_t l = strlen(m);

	if (l && (m[l - 1] == 'b' || (l > 2 && !strcmp(m + l - 2, "sb"))))
		return 1;
	if (l && (m[l - 1] == 'h' || (l > 2 && !strcmp(m + l - 2, "sh"))))
		return 2;
	if (l > 2 && !strcmp(m + l - 2, "sw"))
		return 4;
	return p->nregs ? p->reg_size[0] : 0;
}

static bool is_atomic_rmw(const char *m);

/* How the instruction uses its memory operand: loads read, stores write;
 * the atomics (cas, swp, ldadd and its store aliases stadd...) and the
 * exclusives, the two halves of a read-modify-write sequence, do both. */
static unsigned mem_access(const char *m)
{
	static const char *const rmw[] = {
		"cas", "swp", "ldxr", "ldaxr", "ldxp", "ldaxp", "stxr", "stlxr",
		"stxp", "stlxp", "stadd", "stclr", "steor", "stset", "stsmax",
		"stsmin", "stumax", "stumin",
	};
	for (size_t i = 0; i < sizeof(rmw) / sizeof(rmw[0]); i++)
		if (starts_with(m, rmw[i]))
			return DT_MEM_READ | DT_MEM_WRITE;
	if (is_atomic_rmw(m))
		return DT_MEM_READ | DT_MEM_WRITE;
	if (starts_with(m, "ld") || starts_with(m, "prf"))
		return DT_MEM_READ;
	if (starts_with(m, "st"))
		return DT_MEM_WRITE;
	return 0;
}

static enum dt_op_kind a64_classify(const struct dt_tok *toks, size_t n,
				    struct dt_mem_op *op)
{
	struct parsed p;

	parse(toks, n, &p);
	if (!p.mnem[0])
		return DT_OP_UNPARSED;
	if (p.literal) {
		memset(op, 0, sizeof(*op));
		op->base = op->index = op->segment = -1;
		op->absolute = true;
		op->disp = (int64_t)p.literal_addr;
		op->size = access_size(&p);
		op->access = DT_MEM_READ;	/* "ldr x0, <literal>" */
		return DT_OP_MEMORY;
	}
	if (!p.has_mem || !is_memory_mnemonic(p.mnem))
		return starts_with(p.mnem, "bl") || !strcmp(p.mnem, "ret") ?
		       DT_OP_STACK : DT_OP_NONE;
	/* the frame record: "stp x29, x30, [sp, #-16]!" / "ldp ..., [sp], #16" */
	if ((p.writeback || p.post_index) && p.base == A64_SP)
		return DT_OP_STACK;
	if (p.unparsed || p.base < 0)
		return DT_OP_UNPARSED;
	memset(op, 0, sizeof(*op));
	op->base = p.base;
	op->index = p.index;
	op->scale = p.index >= 0 ? 1 << p.index_shift : 0;
	/* post-index accesses at the base, then adds */
	op->disp = p.post_index ? 0 : p.disp;
	op->segment = -1;
	op->narrow = p.narrow;
	op->size = access_size(&p);
	op->fp = p.fp;
	op->access = mem_access(p.mnem);
	return DT_OP_MEMORY;
}

static enum dt_flow a64_flow(const struct dt_tok *toks, size_t n,
			     uint64_t *target)
{
	struct parsed p;

	parse(toks, n, &p);
	*target = p.literal_addr;
	const char *m = p.mnem;
	/* a call, or an exception to a higher level (svc: the kernel) that
	 * returns to the next instruction */
	if (!strcmp(m, "bl") || !strcmp(m, "blr") || !strcmp(m, "svc") ||
	    !strcmp(m, "hvc") || !strcmp(m, "smc"))
		return DT_FLOW_CALL;
	if (!strcmp(m, "b"))
		return DT_FLOW_JUMP;
	if (starts_with(m, "b.") || starts_with(m, "cb") || starts_with(m, "tb"))
		return DT_FLOW_BRANCH;
	if (!strcmp(m, "br") || starts_with(m, "braa") || starts_with(m, "brab"))
		return DT_FLOW_INDIRECT;
	if (starts_with(m, "ret") || !strcmp(m, "brk"))
		return DT_FLOW_END;
	return DT_FLOW_NEXT;
}

/* Read-modify-write atomics (ldadd, ldset, ... and their acquire and
 * release forms) write memory though they start with "ld". */
static bool is_atomic_rmw(const char *m)
{
	static const char *const ops[] = {
		"ldadd", "ldclr", "ldeor", "ldset", "ldsmax", "ldsmin",
		"ldumax", "ldumin",
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (starts_with(m, ops[i]))
			return true;
	return false;
}

/* The shift or extension of a shifted-register operand ("lsl", "sxtw"),
 * NULL when none. */
static const char *operand_shift(const struct dt_tok *toks, size_t n)
{
	static const char *const names[] = {
		"lsl", "lsr", "asr", "ror", "sxtw", "uxtw", "sxtx", "uxtx",
		"sxth", "uxth", "sxtb", "uxtb",
	};
	for (size_t i = 1; i < n; i++)
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (toks[i].kind != DT_TOK_MNEMONIC &&
			    strstr(toks[i].text, names[k]))
				return names[k];
	return NULL;
}

/* The last immediate's value ("#12" of "add x0, x0, #0x1, lsl #12":
 * the shift), -1 when there is none. */
static int64_t last_immediate(const struct dt_tok *toks, size_t n)
{
	while (n--)
		if (toks[n].kind == DT_TOK_IMMEDIATE)
			return imm_value(toks[n].text);
	return -1;
}

/* "mrs x0, tpidr_el0": the user thread pointer. */
static bool reads_thread_pointer(const struct dt_tok *toks, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (!strcmp(toks[i].text, "tpidr_el0"))
			return true;
	return false;
}

/* "mrs x1, tpidr_el1": a kernel's per-CPU offset (tpidr_el2 when the
 * kernel runs at EL2, VHE: Linux patches one into the other at boot). */
static bool reads_percpu_offset(const struct dt_tok *toks, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (!strcmp(toks[i].text, "tpidr_el1") || !strcmp(toks[i].text, "tpidr_el2"))
			return true;
	return false;
}

static bool is_gpr(int r)
{
	return r >= 0 && r < A64_SP;
}

static void a64_def(const struct dt_tok *toks, size_t n, uint64_t pc,
		    unsigned len, struct dt_def *d)
{
	struct parsed p;

	(void)pc;
	(void)len;
	parse(toks, n, &p);
	memset(d, 0, sizeof(*d));
	d->dst = d->src = d->src2 = d->src3 = d->wb_reg = -1;
	d->mem.base = d->mem.index = d->mem.segment = -1;
	const char *m = p.mnem;
	if (!strcmp(m, "bl") || !strcmp(m, "blr") || starts_with(m, "blra")) {
		d->kind = DT_DEF_CALL;
		d->value = !strcmp(m, "bl") ? (int64_t)p.literal_addr : 0;
		return;
	}
	/* write-back addressing moves the base register: by the offset
	 * ("[x1, #16]!") or by the immediate after it ("[x1], #16") */
	if (p.has_mem && (p.writeback || p.post_index) && p.base >= 0) {
		d->wb_reg = p.base;
		d->wb_value = p.post_index ? p.post_imm : p.disp;
	}
	bool writes_mem = p.has_mem && (starts_with(m, "st") || starts_with(m, "cas") ||
					starts_with(m, "swp") || is_atomic_rmw(m));
	if (writes_mem && p.base >= 0) {
		d->mem = (struct dt_mem_op){ .base = p.base, .index = p.index,
					     .segment = -1,
					     .disp = p.post_index ? 0 : p.disp };
		d->mem_span = 16;	/* a pair of registers at most */
	}
	/* loads of pairs, exclusives' status, compare-and-swap, swaps and
	 * atomics write every register they name outside the brackets */
	bool writes_named = p.has_mem && (!starts_with(m, "st") ||
					  starts_with(m, "stx") || starts_with(m, "stlx"));
	if (writes_named)
		for (size_t k = 0; k < p.nregs; k++)
			if (p.regs[k] >= 0 && p.regs[k] < 64)
				d->clobbers |= 1ull << p.regs[k];
	if (!p.nregs || starts_with(m, "cmp") || starts_with(m, "cmn") ||
	    starts_with(m, "tst") || starts_with(m, "b") || starts_with(m, "cb") ||
	    starts_with(m, "tb") || starts_with(m, "ret") || starts_with(m, "prfm"))
		return;
	bool simple_mem = p.has_mem && !p.writeback && !p.post_index &&
			  p.index < 0 && p.base >= 0 && !p.unparsed;
	if (!strcmp(m, "str") && p.nregs == 1 && p.reg_size[0] == 8 && simple_mem) {
		d->kind = DT_DEF_STORE;
		d->src = p.regs[0];
		return;
	}
	if (starts_with(m, "st"))
		return;		/* stores write memory (and the above) only */
	d->dst = is_gpr(p.regs[0]) ? p.regs[0] : -1;
	d->kind = d->dst >= 0 ? DT_DEF_OTHER : DT_DEF_NONE;
	if (d->dst >= 0 && (!strcmp(m, "mov") || !strcmp(m, "movz")) &&
	    p.nregs == 1 && p.has_imm && !operand_shift(toks, n)) {
		/* "mov w2, #0x128": a constant, a multiple of itself (a w
		 * register's upper half is zeroed) */
		d->kind = DT_DEF_MUL;
		d->value = p.imm;
		return;
	}
	if (d->dst < 0 || p.reg_size[0] != 8)
		return;
	if ((!strcmp(m, "madd") || !strcmp(m, "smaddl") || !strcmp(m, "umaddl") ||
	     !strcmp(m, "mul") || !strcmp(m, "smull") || !strcmp(m, "umull")) &&
	    p.nregs >= 3 && is_gpr(p.regs[1]) && is_gpr(p.regs[2])) {
		/* "smaddl x1, w1, w2, x0": x0 + w1 * w2 (an element's
		 * address, w2 its size) */
		d->kind = DT_DEF_MADD;
		d->src = p.regs[1];
		d->src2 = p.regs[2];
		if (p.nregs == 4 && (is_gpr(p.regs[3]) || p.regs[3] == A64_SP))
			d->src3 = p.regs[3];
		else if (p.nregs == 4)
			d->kind = DT_DEF_OTHER;
		return;
	}
	bool src_ok = p.nregs >= 2 && (is_gpr(p.regs[1]) || p.regs[1] == A64_SP) &&
		      p.reg_size[1] == 8;
	/* "adrp x0, 0x11000" then "add x0, x0, #0x10": a static's address */
	if (!strcmp(m, "adrp") && p.literal_addr) {
		d->kind = DT_DEF_ADDR;
		d->value = (int64_t)p.literal_addr;
	} else if (!strcmp(m, "mrs") && reads_thread_pointer(toks, n)) {
		/* the program's thread-locals are at offsets from it */
		d->kind = DT_DEF_ADDR;
		d->value = (int64_t)DT_THREAD_POINTER;
	} else if (!strcmp(m, "mrs") && reads_percpu_offset(toks, n)) {
		d->kind = DT_DEF_ADDR;
		d->value = (int64_t)DT_PERCPU_OFFSET;
	} else if ((!strcmp(m, "add") || !strcmp(m, "sub")) && p.nregs == 2 &&
		   p.has_imm && src_ok) {
		/* "add x0, x1, #0x30"; "add x29, sp, #0x10" sets up a frame;
		 * "add x0, x0, #0x1, lsl #12" adds 0x1000 */
		const char *shift = operand_shift(toks, n);
		int64_t amount = shift ? last_immediate(toks, n) : 0;
		if (!shift || (!strcmp(shift, "lsl") && amount == 12)) {
			d->kind = DT_DEF_ADDI;
			d->src = p.regs[1];
			d->value = (m[0] == 's' ? -p.imm : p.imm) * (1ll << amount);
		}
	} else if ((!strcmp(m, "add") || !strcmp(m, "sub")) && p.nregs == 3 &&
		   src_ok && is_gpr(p.regs[2])) {
		/* "add x0, x1, x2", "add x0, x1, x2, lsl #3",
		 * "add x0, x1, w2, sxtw #2", "sub x2, x2, x1" */
		const char *shift = operand_shift(toks, n);
		bool scaled = shift && (!strcmp(shift, "lsl") || !strcmp(shift, "sxtw") ||
					!strcmp(shift, "uxtw"));
		if (shift && !scaled)
			return;		/* asr, lsr, ror: not an index */
		d->kind = m[0] == 's' ? DT_DEF_SUB : DT_DEF_ADD;
		d->src = p.regs[1];
		d->src2 = p.regs[2];
		d->scale = scaled && p.has_imm && p.imm >= 0 && p.imm < 32 ?
			   1u << p.imm : 1;
	} else if ((!strcmp(m, "sxtw") || !strcmp(m, "uxtw")) && p.nregs == 2 &&
		   is_gpr(p.regs[1])) {
		d->kind = DT_DEF_MUL;	/* "sxtw x2, w0": the same index, widened */
		d->src = p.regs[1];
		d->value = 1;
	} else if (!strcmp(m, "lsl") && p.nregs == 2 && src_ok && p.has_imm &&
		   p.imm >= 0 && p.imm < 32) {
		d->kind = DT_DEF_MUL;	/* "lsl x0, x0, #3" */
		d->src = p.regs[1];
		d->value = 1ll << p.imm;
	} else if ((!strcmp(m, "sbfiz") || !strcmp(m, "ubfiz")) && p.has_imm &&
		   p.imm >= 0 && p.imm < 32) {
		/* "sbfiz x2, x4, #3, #32": w4 extended and moved up 3, the
		 * integer in x4 times 8 (an index scaled to elements; an
		 * extended w register is the same index, as in "add x0, x1,
		 * w2, sxtw #3") */
		d->kind = DT_DEF_MUL;
		d->src = p.nregs >= 2 && is_gpr(p.regs[1]) ? p.regs[1] : -1;
		d->value = 1ll << p.imm;
	} else if (!strcmp(m, "ldr") && p.nregs == 1 && p.has_mem && !p.writeback &&
		   !p.post_index && p.base >= 0 && !p.unparsed) {
		/* "ldr x0, [x1, #8]", "ldr x0, [x1, x0, lsl #3]" */
		d->kind = DT_DEF_LOAD;
		d->mem = (struct dt_mem_op){ .base = p.base, .index = p.index,
					     .scale = p.index >= 0 ? 1 << p.index_shift : 0,
					     .segment = -1, .disp = p.disp };
	} else if (!strcmp(m, "mov") && p.nregs == 2 && src_ok) {
		d->kind = DT_DEF_COPY;	/* "mov x29, sp" too */
		d->src = p.regs[1];
	}
}

static bool a64_tests_bits(const struct dt_tok *toks, size_t n, int *reg,
			   uint64_t *bits)
{
	struct parsed p;

	parse(toks, n, &p);
	if ((!strcmp(p.mnem, "tbz") || !strcmp(p.mnem, "tbnz")) && p.nregs == 1 &&
	    p.has_imm && p.imm >= 0 && p.imm < 64 && p.regs[0] >= 0) {
		*reg = p.regs[0];
		*bits = 1ull << p.imm;
		return true;
	}
	if ((!strcmp(p.mnem, "tst") || !strcmp(p.mnem, "ands") ||
	     !strcmp(p.mnem, "and")) && p.nregs >= 1 && p.has_imm &&
	    p.regs[p.nregs - 1] >= 0) {
		*reg = p.regs[p.nregs - 1];	/* "and w0, w1, #0x4": w1 */
		*bits = (uint64_t)p.imm;
		return *bits != 0;
	}
	/* "ubfx w0, w1, #3, #5": bits 3..7 of w1 */
	if (!strcmp(p.mnem, "ubfx") && p.nregs == 2 && p.regs[1] >= 0) {
		int64_t imm[2];
		size_t k = 0;
		for (size_t i = 0; i < n && k < 2; i++)
			if (toks[i].kind == DT_TOK_IMMEDIATE)
				imm[k++] = imm_value(toks[i].text);
		if (k != 2 || imm[0] < 0 || imm[1] <= 0 || imm[0] + imm[1] > 64)
			return false;
		*reg = p.regs[1];
		*bits = (imm[1] == 64 ? ~0ull : (1ull << imm[1]) - 1) << imm[0];
		return true;
	}
	return false;
}

/* "cmp x0, x1" (subs xzr, x0, x1): two whole registers compared */
static bool a64_compares_regs(const struct dt_tok *toks, size_t n, int *a,
			      int *b)
{
	struct parsed p;

	parse(toks, n, &p);
	if (strcmp(p.mnem, "cmp") || p.nregs != 2 || p.has_imm || p.has_mem ||
	    p.reg_size[0] != 8 || p.reg_size[1] != 8 || p.regs[0] < 0 ||
	    p.regs[1] < 0 || p.regs[0] >= 31 || p.regs[1] >= 31)
		return false;
	*a = p.regs[0];
	*b = p.regs[1];
	return true;
}

/* "lsr w0, w0, #3": a register shifted right in place by a constant */
static bool a64_shifts_right(const struct dt_tok *toks, size_t n, int *reg,
			     unsigned *by)
{
	struct parsed p;

	parse(toks, n, &p);
	if (strcmp(p.mnem, "lsr") || p.nregs != 2 || !p.has_imm ||
	    p.regs[0] < 0 || p.regs[0] != p.regs[1] || p.imm < 0 || p.imm >= 64)
		return false;
	*reg = p.regs[0];
	*by = (unsigned)p.imm;
	return true;
}

static bool a64_is_stack_canary(const struct dt_mem_op *op)
{
	(void)op;	/* __stack_chk_guard is an ordinary global here */
	return false;
}

/* Relocations as a static link applies them (ELF for the Arm 64-bit
 * Architecture, 5.7): data fields, and the immediates of adrp, add,
 * loads and stores, and branches. */
enum a64_field { F_DATA, F_ADR_PAGE, F_ADR, F_LO12, F_BRANCH26, F_BRANCH19, F_BRANCH14 };

static uint32_t put_bits(uint32_t insn, uint64_t v, unsigned shift, unsigned width)
{
	uint32_t mask = (uint32_t)((1ull << width) - 1) << shift;

	return (insn & ~mask) | ((uint32_t)(v << shift) & mask);
}

/* Whether the signed value v fits in bits bits. */
static bool fits_signed(int64_t v, unsigned bits)
{
	return v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1));
}

static bool a64_apply_reloc(unsigned type, uint64_t symbol, int64_t addend,
			    uint64_t place, uint64_t nowhere, uint8_t *where,
			    size_t room)
{
	uint64_t v = symbol + (uint64_t)addend;
	enum a64_field f = F_DATA;
	size_t n = 4;
	unsigned scale = 0;	/* LDSTn_ABS_LO12: the low bits dropped */
	bool pcrel = false;

	switch (type) {
	case R_AARCH64_ABS64:
		n = 8;
		break;
	case R_AARCH64_PREL64:
		n = 8;
		pcrel = true;
		break;
	case R_AARCH64_ABS32:
		break;
	case R_AARCH64_PREL32:
		pcrel = true;
		break;
	case R_AARCH64_ADR_GOT_PAGE:		/* through a GOT slot: nowhere */
	case R_AARCH64_TLSIE_ADR_GOTTPREL_PAGE21:
	case R_AARCH64_TLSDESC_ADR_PAGE21:
		v = nowhere + (uint64_t)addend;
		/* fall through */
	case R_AARCH64_ADR_PREL_PG_HI21:
	case R_AARCH64_ADR_PREL_PG_HI21_NC:
		f = F_ADR_PAGE;
		break;
	case R_AARCH64_ADR_PREL_LO21:
		f = F_ADR;
		pcrel = true;
		break;
	case R_AARCH64_LD64_GOT_LO12_NC:
	case R_AARCH64_TLSIE_LD64_GOTTPREL_LO12_NC:
	case R_AARCH64_TLSDESC_LD64_LO12:
		v = nowhere + (uint64_t)addend;
		f = F_LO12;
		scale = 3;
		break;
	case R_AARCH64_TLSDESC_ADD_LO12:
		v = nowhere + (uint64_t)addend;
		f = F_LO12;
		break;
	case R_AARCH64_TLSDESC_CALL:
		return true;	/* a marker for the linker: nothing to write */
	case R_AARCH64_ADD_ABS_LO12_NC:
	case R_AARCH64_LDST8_ABS_LO12_NC:
		f = F_LO12;
		break;
	case R_AARCH64_LDST16_ABS_LO12_NC:
		f = F_LO12;
		scale = 1;
		break;
	case R_AARCH64_LDST32_ABS_LO12_NC:
		f = F_LO12;
		scale = 2;
		break;
	case R_AARCH64_LDST64_ABS_LO12_NC:
		f = F_LO12;
		scale = 3;
		break;
	case R_AARCH64_LDST128_ABS_LO12_NC:
		f = F_LO12;
		scale = 4;
		break;
	case R_AARCH64_JUMP26:
	case R_AARCH64_CALL26:
		f = F_BRANCH26;
		pcrel = true;
		break;
	case R_AARCH64_CONDBR19:
		f = F_BRANCH19;
		pcrel = true;
		break;
	case R_AARCH64_TSTBR14:
		f = F_BRANCH14;
		pcrel = true;
		break;
	default:
		return false;
	}
	if (pcrel)
		v -= place;
	if (room < n)
		return false;
	if (f == F_DATA) {
		/* a value its field cannot hold would reach another address
		 * (ABS32: signed or unsigned, PREL32: signed) */
		if (n == 4 && !fits_signed((int64_t)v, 32) &&
		    (type != R_AARCH64_ABS32 || v > UINT32_MAX))
			return false;
		dt_put_le(where, v, n);
		return true;
	}
	uint32_t insn = (uint32_t)dt_get_le(where, 4);
	int64_t d = (int64_t)v;
	switch (f) {
	case F_ADR_PAGE:	/* adrp holds pages as adr holds bytes */
		d = (int64_t)((v & ~0xfffull) - (place & ~0xfffull)) >> 12;
		/* fall through */
	case F_ADR:
		if (!fits_signed(d, 21))
			return false;
		insn = put_bits(put_bits(insn, (uint64_t)d, 29, 2), (uint64_t)d >> 2, 5, 19);
		break;
	case F_LO12:
		if (v & ((1u << scale) - 1))
			return false;	/* no compiler aligns a field so */
		insn = put_bits(insn, (v & 0xfff) >> scale, 10, 12);
		break;
	case F_BRANCH26:
	case F_BRANCH19:
	case F_BRANCH14: {
		unsigned bits = f == F_BRANCH26 ? 26 : f == F_BRANCH19 ? 19 : 14;
		if ((d & 3) || !fits_signed(d >> 2, bits))
			return false;
		insn = put_bits(insn, (uint64_t)(d >> 2), f == F_BRANCH26 ? 0 : 5, bits);
		break;
	}
	default:
		return false;
	}
	dt_put_le(where, insn, 4);
	return true;
}

/* perf's names (tools/perf/arch/arm64: perf_regs.h) by DWARF number */
static const char *const a64_perf_regs[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
	"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "lr", "sp",
};

const struct dt_arch dt_arch_aarch64 = {
	.name = "aarch64",
	.e_machine = 183,	/* EM_AARCH64 */
	.bfd_arch = "aarch64",
	.max_insn_len = 4,
	.dwarf_sp = A64_SP,
	.dwarf_fp = A64_FP,
	.dwarf_pc = -1,
	.dwarf_retval = 0,	/* x0 */
	.dwarf_arg0 = 0,	/* x0 */
	.ptr_size = 8,
	.ngpr = 32,		/* x0..x30, sp */
	.plt_header = 32,	/* PLT0: stp, adrp, ldr, add, br, 3 nops */
	.tls_segment = -1,	/* tpidr_el0 is read into a register */
	.percpu_segment = -1,	/* tpidr_el1 is read into a register too */
	.tls_tcb_size = 16,	/* glibc's TLS_TCB_SIZE: the DTV and a pointer */
	.tls_get_addr_arg = -1,	/* TLS descriptors: not followed */
	.apply_reloc = a64_apply_reloc,
	.plt_entry = 16,
	.nregs = A64_NREGS,
	.reg_from_name = a64_reg_from_name,
	.reg_name = a64_reg_name,
	.classify = a64_classify,
	.flow = a64_flow,
	.def = a64_def,
	/* AAPCS64 6.1.1: x0-x18 may be clobbered by a call */
	.caller_saved = (1u << 19) - 1,
	.is_stack_canary = a64_is_stack_canary,
	.perf_regs = a64_perf_regs,
	.perf_regs_n = sizeof(a64_perf_regs) / sizeof(a64_perf_regs[0]),
	.perf_ip = "pc",
	.tests_bits = a64_tests_bits,
	.shifts_right = a64_shifts_right,
	.compares_regs = a64_compares_regs,
};
