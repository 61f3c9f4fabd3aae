// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The question itself: decode the instruction (or take the given register
 * and offset), rule out what is not a data access, find the variable in
 * the base register, and walk its type to the field.  Answers are cached
 * per (pc, operand); the cached path allocates nothing.
 */
#include <errno.h>
#include <string.h>

#include "../arrays.h"
#include "internal.h"

#define MAX_CANDIDATES 16
#define MAX_PROBES 8	/* container_of: accesses through one pointer */

const char *dt_reason_str(enum dt_reason r)
{
	switch (r) {
	case DT_OK: return "ok";
	case DT_NO_DSO: return "no_dso";
	case DT_NO_DEBUGINFO: return "no_debuginfo";
	case DT_NO_INSN: return "no_insn";
	case DT_NO_MEM_OP: return "no_mem_op";
	case DT_NO_REG: return "no_reg";
	case DT_NO_CU: return "no_cu";
	case DT_NO_VAR: return "no_var";
	case DT_NO_TYPE: return "no_type";
	case DT_BAD_OFFSET: return "bad_offset";
	case DT_BAD_LINE: return "bad_line";
	case DT_NO_MEMORY: return "no_memory";
	case DT_REASON_COUNT: break;
	}
	return "?";
}

int dt_reason_from_str(const char *name)
{
	for (int r = 0; r < DT_REASON_COUNT; r++)
		if (!strcmp(dt_reason_str((enum dt_reason)r), name))
			return r;
	return -1;
}

_Static_assert(DT_ACCESS_LOAD == DT_MEM_READ && DT_ACCESS_STORE == DT_MEM_WRITE,
	       "dt_access is arch.h's access bits");

const char *dt_access_str(enum dt_access a)
{
	static const char *const names[] = { "", "load", "store", "rmw" };

	return (unsigned)a < 4 ? names[a] : "";
}

void dt_answer_miss(struct dt_answer *ans, uint64_t pc, enum dt_reason r)
{
	memset(ans, 0, sizeof(*ans));
	ans->pc = pc;
	ans->access_pc = pc;
	ans->reason = r;
	ans->type = DT_TYPE_UNKNOWN;
	ans->field = "";
	ans->var = "";
	ans->note = "";
	ans->reg = -1;
}

static void answer_pseudo(struct dt_answer *ans, const char *type)
{
	ans->reason = DT_OK;
	ans->type = type;
}

/* Decode the instruction at pc (bytes from *code, *avail of them) and
 * classify it: enum dt_op_kind with *op, or -1 when it cannot be. */
static int decode_at(struct dt_session *s, uint64_t pc,
		     struct decoded_insn *insn, struct dt_mem_op *op,
		     const uint8_t **code, size_t *avail)
{
	*code = session_insn_at(s, pc, avail);
	if (!*code || !decoder_run(s->decoder, pc, *code, *avail, insn))
		return -1;
	return (int)s->arch->classify(insn->toks, insn->ntoks, op);
}

/* The other memory accesses of pc's function through the variable h came
 * from (container_of's node pointer: its other fields show which
 * container it is in), as offsets from the pointee: at most max. */
static size_t same_pointer_accesses(struct dt_session *s, uint64_t pc,
				    const struct var_hit *h, struct probe *out,
				    size_t max)
{
	const struct func_map *fm = h->var.addr ? funcmap_get(s, pc) : NULL;
	Dwarf_Off want = h->var.addr ? dwarf_dieoffset((Dwarf_Die *)&h->var) : 0;
	size_t n = 0;

	for (size_t i = 0; fm && i < fm->n && n < max; i++) {
		const struct func_insn *in = &fm->insns[i];
		struct decoded_insn insn;
		struct dt_mem_op op;
		struct var_hit hits[MAX_CANDIDATES];
		size_t nh, avail;
		const uint8_t *code;
		if (in->pc == pc || in->op != DT_OP_MEMORY || in->acc == ACC_OTHER)
			continue;
		if (in->acc == ACC_BASED) {	/* as the map's decoding read it */
			op = (struct dt_mem_op){ .base = in->acc_base, .index = -1,
				.segment = -1, .disp = in->mem_disp, .size = in->acc_size };
		} else if (decode_at(s, in->pc, &insn, &op, &code, &avail) != DT_OP_MEMORY ||
			   op.base < 0 || op.index >= 0 || op.segment >= 0) {
			continue;
		}
		if (scope_find_vars(s, in->pc + (uint64_t)s->dwarf_adjust, op.base,
				    hits, MAX_CANDIDATES, &nh) != DT_OK)
			continue;
		for (size_t k = 0; k < nh; k++)
			if (dwarf_dieoffset(&hits[k].var) == want &&
			    hits[k].pointee.addr == h->pointee.addr &&
			    !__builtin_sub_overflow(op.disp, hits[k].bias, &out[n].off)) {
				out[n++].len = op.size;
				break;
			}
	}
	return n;
}

/* Pick the variable whose type the offset lands inside: with container_of
 * both the list_head pointer (negative offset) and the container (inside)
 * live in the register; the container is the answer.  When several types
 * contain the offset they are views of the same memory (a member pointer
 * and its container): the largest, the container, says the most.
 * A pointer is trusted inside its pointee only, whatever its source
 * (variable, dataflow): past its end or before its start it is most often
 * a member of a container, which containers.c may name; only an indexed
 * operand (p[i], the compiler stepping through an array) or a pointer the
 * dataflow saw move by whole elements is taken as an array's element.
 * An indexed operand moves the pointer by stride bytes times an unknown
 * integer: a pointee whose size divides stride is stepped through whole
 * (p[i].f), and so is an array member at the offset whose elements divide
 * it (p->vals[i]); anything else (a byte length added to an object's
 * start, a tag stored after an array of other things) says nothing of
 * where the access lands, and is no answer (bad_offset, ans->note). */
static enum dt_reason attribute_operand(struct dt_session *s,
					struct dt_answer *ans,
					const struct access *acc, bool indexed,
					uint64_t stride)
{
	struct var_hit hits[MAX_CANDIDATES];
	struct type_hit th, fallback = { .size = 0 };
	const struct var_hit *fallback_var = NULL;
	struct var_hit *outside = NULL;
	enum dt_reason fallback_reason = DT_NO_TYPE;
	bool inside = false, unstepped = false;
	Dwarf_Addr dpc = ans->pc + (uint64_t)s->dwarf_adjust;
	size_t n;

	if (!s->dwarf)
		return DT_NO_DEBUGINFO;
	enum dt_reason r = scope_find_vars(s, dpc, ans->reg, hits,
					   MAX_CANDIDATES, &n);
	if (r == DT_NO_VAR && track_register(s, ans->pc, ans->reg, &hits[0]) == DT_OK) {
		n = 1;
		r = DT_OK;
	}
	if (r != DT_OK)
		return r;
	for (size_t i = 0; i < n; i++) {
		int64_t off;
		if (__builtin_sub_overflow(ans->disp, hits[i].bias, &off))
			continue;	/* a corrupt location's bias */
		r = type_member_at(s, &hits[i].pointee, hits[i].typedef_name,
				   off, acc, &th);
		if (hits[i].step && (off < 0 ||
		    !type_in_array_of_step(s, &hits[i].pointee, (uint64_t)off, hits[i].step)))
			continue;	/* somewhere in it, not in an array */
		/* the index steps through whole pointees, or through an
		 * array member at off (v->vals[i]; x->level[i], a flexible
		 * array past the pointee's size, which type_member_at()
		 * does not take for the next pointee: !beyond_end) */
		uint64_t size = 0;
		bool pointees = type_byte_size(&hits[i].pointee, &size) && size &&
				!(r == DT_OK && !th.beyond_end && off >= 0 &&
				  (uint64_t)off >= size);
		if (stride && !(pointees && stride % size == 0) &&
		    !(off >= 0 && type_in_array_of_step(s, &hits[i].pointee,
							(uint64_t)off, stride))) {
			unstepped = true;
			continue;	/* the index moves it by parts */
		}
		if (!indexed && !track_hit_trusted(&hits[i], r, &th)) {
			if (!outside)
				outside = &hits[i];
			continue;
		}
		bool in = r == DT_OK && !th.beyond_end;
		bool better = !fallback_var ||
			      (in && (!inside || th.size > fallback.size)) ||
			      (!inside && fallback_reason != DT_OK && r == DT_OK);
		if (better) {
			fallback = th;
			fallback_var = &hits[i];
			fallback_reason = r;
			inside = in;
		}
	}
	if (!fallback_var && outside) {
		struct probe probes[MAX_PROBES];
		char why[160];
		probes[0] = (struct probe){ ans->disp - outside->bias,
					    acc ? acc->size : 0 };
		size_t np = 1 + same_pointer_accesses(s, ans->pc, outside,
						      probes + 1, MAX_PROBES - 1);
		fallback_var = outside;
		fallback_reason = container_member_at(s, &outside->pointee, probes,
						      np, acc, &fallback,
						      why, sizeof(why));
		if (*why) {
			session_debug(s, "  %s", why);
			ans->note = session_intern(s, why);
		}
	}
	if (!fallback_var && unstepped) {
		char why[128];
		snprintf(why, sizeof(why), "indexed by %llu-byte steps, not whole "
			 "elements of the pointee: the offset is unknown",
			 (unsigned long long)stride);
		ans->note = session_intern(s, why);
		return DT_BAD_OFFSET;
	}
	if (!fallback_var)
		return DT_NO_TYPE;
	/* a tracked pointer may come from no variable (a call's result) */
	Dwarf_Die *var = (Dwarf_Die *)&fallback_var->var;
	ans->var = session_intern(s, var->addr ? dwarf_diename(var) : NULL);
	if (fallback_reason == DT_OK)
		answer_take(ans, &fallback);
	return fallback_reason;
}

/* The instruction that last wrote reg before instruction i, going back
 * through i's basic block and past calls (control comes back from them
 * to the next instruction: no other way in); -1 when none does. */
static long last_def_before(const struct dt_session *s,
			    const struct func_map *fm, long i, int reg)
{
	while (i > 0) {
		if (fm->insns[i].leader &&
		    (fm->insns[i].target || fm->insns[i - 1].flow != DT_FLOW_CALL))
			return -1;
		const struct func_insn *in = &fm->insns[--i];
		if (reg >= 0 && reg < 64 && func_insn_writes(in) >> reg & 1)
			return i;
		if (in->flow == DT_FLOW_CALL &&
		    (reg == s->arch->dwarf_retval ||
		     (reg < 64 && s->arch->caller_saved >> reg & 1)))
			return i;
	}
	return -1;
}

/* A register that is a copy of the stack pointer (plus k) in pc's block
 * ("mov %rsp,%rbx", clang's base register for a frame it realigns or
 * sizes): true with *k, the stack pointer unchanged since. */
static bool stack_alias(struct dt_session *s, uint64_t pc, int reg, int64_t *k)
{
	const struct func_map *fm = funcmap_get(s, pc);
	long i = fm ? func_map_index(fm, pc) : -1;
	int sp = s->arch->dwarf_sp;

	if (i < 0 || reg < 0 || reg == sp)
		return false;
	long d = last_def_before(s, fm, i, reg);
	if (d < 0 || fm->insns[d].def_src != sp ||
	    (fm->insns[d].def != DT_DEF_COPY && fm->insns[d].def != DT_DEF_ADDI))
		return false;
	long j = i;
	while ((j = last_def_before(s, fm, j, sp)) > d)
		if (fm->insns[j].flow != DT_FLOW_CALL)	/* a call gives sp back */
			return false;
	*k = fm->insns[d].def == DT_DEF_ADDI ? fm->insns[d].value : 0;
	return true;
}

/* The local (or any variable) in memory at the operand's register +
 * displacement: the stack frame's objects. */
static enum dt_reason attribute_memory_var(struct dt_session *s,
					   struct dt_answer *ans,
					   const struct access *acc)
{
	Dwarf_Addr dpc = ans->pc + (uint64_t)s->dwarf_adjust;
	struct type_hit th;
	uint64_t off;
	Dwarf_Die var;

	enum dt_reason r = scope_find_memory_var(s, dpc, ans->reg, ans->disp,
						 &var, &off);
	int64_t k;
	if (r == DT_NO_VAR && stack_alias(s, ans->pc, ans->reg, &k))
		r = scope_find_memory_var(s, dpc, s->arch->dwarf_sp,
					  ans->disp + k, &var, &off);
	if (r != DT_OK)
		return r;
	ans->var = session_intern(s, dwarf_diename(&var));
	r = var_member_at(s, &var, off, acc, &th);
	if (r == DT_OK)
		answer_take(ans, &th);
	return r;
}

static void finish(struct dt_session *s, const struct answer_key *key,
		   struct dt_answer *ans, enum dt_reason r)
{
	ans->reason = r;
	if (r != DT_OK) {
		ans->type = DT_TYPE_UNKNOWN;
		ans->type_id = 0;
		ans->offset = 0;
		ans->field = "";
	}
	session_debug(s, "pc %#llx: %s %s +%lld (%s)",
		      (unsigned long long)ans->pc, dt_reason_str(r), ans->type,
		      (long long)ans->offset, ans->field);
	cache_store(&s->cache, key, ans);	/* failure: just not cached */
	/* between questions, nothing of the maps or homes is held */
	pages_answered(&s->pages);
	funcmap_trim(s);
	scope_trim(s);
}

/* An allocation failed during the call (glibc's allocators set ENOMEM):
 * the answer, and whatever the session cached on the way (indexes, maps,
 * strings), may be incomplete, and an incomplete index gives wrong
 * answers, not only misses.  The session answers no_memory from now on. */
static bool short_of_memory(struct dt_session *s)
{
	if (errno != ENOMEM || !oom_errno_says(s))
		return false;
	oom_said(s);
	s->oom.no_memory = true;
	return true;
}

static enum dt_reason no_memory(struct dt_answer *ans, uint64_t pc)
{
	dt_answer_miss(ans, pc, DT_NO_MEMORY);
	return DT_NO_MEMORY;
}

/* The answer key names when it is cached, or no_memory once out of
 * memory: true with *r.  Else false, *ans a fresh answer to fill. */
static bool known_answer(struct dt_session *s, const struct answer_key *key,
			 struct dt_answer *ans, enum dt_reason *r)
{
	const struct dt_answer *hit = cache_find(&s->cache, key);

	if (hit) {
		*ans = *hit;
		*r = ans->reason;
		return true;
	}
	if (s->oom.no_memory) {
		*r = no_memory(ans, key->pc);
		return true;
	}
	dt_answer_miss(ans, key->pc, DT_OK);
	return false;
}

enum dt_reason dt_resolve_op(struct dt_session *s, uint64_t pc, int reg,
			     int64_t offset, struct dt_answer *ans)
{
	struct answer_key key = { .pc = pc, .disp = offset, .reg = reg };
	enum dt_reason r;

	if (known_answer(s, &key, ans, &r))
		return r;
	ans->reg = reg;
	ans->disp = offset;
	struct oom_guard g;
	OOM_GUARD(s, g, return no_memory(ans, pc));
	errno = 0;
	r = reg < 0 ? DT_NO_REG : attribute_operand(s, ans, NULL, false, 0);
	OOM_UNGUARD(g);
	if (short_of_memory(s))
		return no_memory(ans, pc);
	finish(s, &key, ans, r);
	return r;
}

/* A load whose register the next instruction tests or masks with
 * constant bits ("ldrb w0, [x0, #4]; tbnz w0, #2"): those bits of the
 * loaded bytes, so the bitfield tested is named, not the first in the
 * byte; 0 when none. */
static uint64_t bits_tested_next(struct dt_session *s,
				 const struct decoded_insn *insn,
				 const uint8_t *code, size_t avail, unsigned size)
{
	struct dt_def d = { .kind = DT_DEF_NONE, .dst = -1, .src = -1,
			    .src2 = -1, .src3 = -1, .wb_reg = -1 };
	struct decoded_insn next;
	uint64_t bits;
	int reg;

	if (!s->arch->tests_bits || !size || size > 8 || avail <= insn->len)
		return 0;
	s->arch->def(insn->toks, insn->ntoks, insn->pc, insn->len, &d);
	if (d.dst < 0 || d.kind == DT_DEF_STORE ||
	    !decoder_run(s->decoder, insn->pc + insn->len, code + insn->len,
			 avail - insn->len, &next))
		return 0;
	/* "movzbl (%rdi),%eax; shr $0x2,%al; and $0x1,%eax": the mask's
	 * bits, moved back by the shift */
	unsigned by = 0;
	size_t at = insn->len + next.len;
	uint64_t loaded = size < 8 ? (1ull << size * 8) - 1 : ~0ull;
	bool shifted = s->arch->shifts_right &&
		       s->arch->shifts_right(next.toks, next.ntoks, &reg, &by) &&
		       reg == d.dst && by < size * 8;
	if (shifted && (avail <= at || !decoder_run(s->decoder, insn->pc + at, code + at,
						    avail - at, &next)))
		return 0;
	if (!s->arch->tests_bits(next.toks, next.ntoks, &reg, &bits) ||
	    reg != d.dst || by >= 64) {
		/* "movzbl (%rdi),%eax; shr $0x3,%al": the load's value
		 * survives only shifted in place, its bits from the
		 * shift's count up */
		return shifted ? loaded & ~((1ull << by) - 1) : 0;
	}
	bits <<= by;
	return bits & loaded;
}

/* Where in the module's TLS block the thread-local is whose offset reg
 * holds at pc, loaded from an initial-exec GOT slot ("mov
 * x@gottpoff(%rip),%rax"): the dataflow makes that load DT_TLS_BLOCK
 * plus the offset (track.c loaded_value). */
static bool initial_exec_offset(struct dt_session *s, uint64_t pc, int reg,
				uint64_t *off)
{
	uint64_t v, step;

	if (!track_address(s, pc, reg, &v, &step) || step ||
	    v - DT_TLS_BLOCK >= DT_THREAD_POINTER_SPAN)
		return false;
	*off = v - DT_TLS_BLOCK;
	return true;
}

/* The static address an operand's registers hold: the base's, else the
 * index's when scaled by 1 ("(%rdx,%rax,1)", rax the address; "ldr w0,
 * [x1, x0]", x1 this CPU's per-CPU offset and x0 a per-CPU variable's
 * address). */
static bool operand_address(struct dt_session *s, uint64_t pc,
			    const struct dt_mem_op *op, uint64_t *addr,
			    uint64_t *step)
{
	/* the other register's unknown part moves the address too, by
	 * multiples of its scale times what it is proven a multiple of (not
	 * when it holds an address itself: a per-CPU offset, or the base) */
	uint64_t other = 0, a2, s2;

	if (track_address(s, pc, op->base, addr, step) && *addr != DT_PERCPU_OFFSET) {
		if (op->index >= 0 && !track_address(s, pc, op->index, &a2, &s2))
			other = (uint64_t)op->scale * track_multiple_of(s, pc, op->index);
	} else if (op->index >= 0 && op->scale == 1 &&
		   track_address(s, pc, op->index, addr, step)) {
		if (op->base >= 0 && !track_address(s, pc, op->base, &a2, &s2))
			other = track_multiple_of(s, pc, op->base);
	} else {
		return false;
	}
	if (other)
		*step = *step ? gcd_u64(*step, other) : other;
	return true;
}

/* A pointer-sized load's value, dereferenced next in its block before
 * anything writes its register ("mov 0x18(%rax),%rcx; movzbl
 * 0x4e(%rcx),%edx"): that access's displacement and size.  What it is
 * used as tells union members apart (typewalk.c ties_by_deref). */
static bool next_deref(struct dt_session *s, const struct decoded_insn *insn,
		       int64_t *off, unsigned *size)
{
	struct dt_def d = { .kind = DT_DEF_NONE, .dst = -1, .src = -1,
			    .src2 = -1, .src3 = -1, .wb_reg = -1 };
	const struct func_map *fm;
	long i;

	if (!s->arch->def)
		return false;
	s->arch->def(insn->toks, insn->ntoks, insn->pc, insn->len, &d);
	if (d.kind != DT_DEF_LOAD || d.dst < 0 || (unsigned)d.dst >= s->arch->ngpr ||
	    !(fm = funcmap_get(s, insn->pc)) || (i = func_map_index(fm, insn->pc)) < 0)
		return false;
	for (size_t k = (size_t)i + 1; k < fm->n && k <= (size_t)i + 16; k++) {
		const struct func_insn *in = &fm->insns[k];
		if (in->leader)
			return false;	/* another path may come in */
		if (in->op == DT_OP_MEMORY && in->acc == ACC_BASED &&
		    in->acc_base == d.dst && in->acc_size) {
			*off = in->mem_disp;
			*size = in->acc_size;
			return true;
		}
		if (in->op == DT_OP_MEMORY && in->acc == ACC_DECODE) {
			struct decoded_insn next;
			struct dt_mem_op op;
			const uint8_t *code;
			size_t avail;
			if (decode_at(s, in->pc, &next, &op, &code, &avail) == DT_OP_MEMORY &&
			    op.base == d.dst && op.index < 0 && op.segment < 0 && op.size) {
				*off = op.disp;
				*size = op.size;
				return true;
			}
		}
		if (func_insn_writes(in) >> d.dst & 1 || in->flow != DT_FLOW_NEXT)
			return false;
	}
	return false;
}

/* Whether the pointer an access at pc reads through (in register base;
 * loaded: the pointer it loads instead, which counts too when the block
 * moves it back by back bytes, to the start of the entry it points into)
 * is compared with another register in the access's block, before or
 * after it: the pointer itself, a copy, or a copy moved by a constant
 * ("mov 0x10(%rax),%rsi; mov %rax,%rdx; lea 0x10(%rdx),%rsi; cmp
 * %rdi,%rsi; jne"; AArch64 compares first, "cmp x6, x0; ldr x1, [x2],
 * #-16; b.eq").  Registers are numbered by the value they hold through
 * the block (a copy keeps its source's number, plus a constant).  A
 * compare with a value loaded through the pointer ("mov (%rdi),%rax;
 * cmp %rdi,%rax": is the head's next the head?) is not such a test. */
#define WALK_SPAN 32	/* instructions looked at either side */
static bool compared_in_block(struct dt_session *s, uint64_t pc, int base,
			      bool loaded, int64_t back)
{
	const struct func_map *fm;
	long i;

	if (!s->arch->compares_regs || !(fm = funcmap_get(s, pc)) ||
	    (i = func_map_index(fm, pc)) < 0)
		return false;
	/* the register the access loads into (a write-back load, AArch64's
	 * "ldr x1, [x2], #-8", is no plain DT_DEF_LOAD) */
	int dst = fm->insns[i].def == DT_DEF_LOAD || fm->insns[i].def == DT_DEF_OTHER ?
		  fm->insns[i].def_dst : -1;
	if (base < 0 || base >= 64 || (loaded && (dst < 0 || dst >= 64)))
		return false;
	size_t k = (size_t)i;
	while (k > 0 && !fm->insns[k].leader && k + WALK_SPAN > (size_t)i)
		k--;
	uint32_t val[64];		/* each register's value number */
	uint32_t from[4 * WALK_SPAN + 4];	/* a loaded value: through which */
	uint32_t next = 64, v = 0;
	struct { uint32_t a, b; } cmp[8];
	size_t ncmp = 0;
	for (uint32_t r = 0; r < 64; r++)
		val[r] = r;
	memset(from, 0xff, sizeof(from));
	for (; k < fm->n && k <= (size_t)i + WALK_SPAN; k++) {
		const struct func_insn *in = &fm->insns[k];
		struct decoded_insn insn;
		struct dt_mem_op op;
		const uint8_t *code;
		size_t avail;
		int ra, rb;
		if (k == (size_t)i && !loaded)
			v = val[base];
		/* chased: the loaded pointer moved back to its entry's start,
		 * container_of ("mov 0x8(%rax),%rsi; lea -0x8(%rsi),%rax") */
		if (loaded && k > (size_t)i && back && in->def == DT_DEF_ADDI &&
		    in->def_src >= 0 && in->def_src < 64 && val[in->def_src] == v &&
		    in->value == -back)
			return true;
		if (in->op == DT_OP_NONE && in->def == DT_DEF_NONE && ncmp < 8 &&
		    decode_at(s, in->pc, &insn, &op, &code, &avail) == DT_OP_NONE &&
		    s->arch->compares_regs(insn.toks, insn.ntoks, &ra, &rb) &&
		    ra < 64 && rb < 64) {
			cmp[ncmp].a = val[ra];
			cmp[ncmp++].b = val[rb];
		}
		/* what the instruction leaves in the registers it writes */
		int to = in->def_dst, src = in->def_src;
		uint32_t got = next;
		if ((in->def == DT_DEF_COPY || in->def == DT_DEF_ADDI) &&
		    src >= 0 && src < 64)
			got = val[src];
		else if (k == (size_t)i)	/* the access itself: "ldr x0, [x3, #24]!" */
			from[next - 64] = v;
		else if (in->def == DT_DEF_LOAD && in->mem_base >= 0 && in->mem_base < 64)
			from[next - 64] = val[in->mem_base];
		uint32_t wb = in->wb_reg >= 0 && in->wb_reg < 64 ? val[in->wb_reg] : 0;
		uint64_t w = func_insn_writes(in);
		for (int r = 0; r < 64; r++)
			if (w >> r & 1)
				val[r] = next + 1;	/* anything */
		if (in->wb_reg >= 0 && in->wb_reg < 64)
			val[in->wb_reg] = wb;	/* the pointer moved */
		if (to >= 0 && to < 64)
			val[to] = got;
		if (k == (size_t)i && loaded)
			v = val[dst];
		next += 2;
		if (k >= (size_t)i && in->flow != DT_FLOW_NEXT)
			break;
	}
	for (size_t c = 0; c < ncmp; c++) {
		if ((cmp[c].a == v) == (cmp[c].b == v))
			continue;
		uint32_t other = cmp[c].a == v ? cmp[c].b : cmp[c].a;
		if (other < 64 || from[other - 64] != v)
			return true;
	}
	return false;
}

/* A list walk's look-ahead: list_for_each_entry_safe reads the next
 * entry's link before it tests whether that entry is the list's head,
 * and the head sits alone in another object, so on the last step the
 * entry type names memory it does not describe.  When the access is in
 * a bare link of its type (struct item's node, a struct list_head) and
 * its block compares the pointer with another, the access is named by
 * the link, right on every step (struct list_head +0 (next)); the
 * entry's name goes to the note.  A link that is one view of a union's
 * bytes is named so only when the value loaded is used as the next
 * pointer; else the union's candidates stay, the note naming the head. */
static void walk_end(struct dt_session *s, struct dt_answer *ans,
		     const struct access *acc)
{
	Dwarf_Die type, link;
	uint64_t link_off;
	bool in_union;
	struct type_hit th;
	char why[256];

	if (!ans->type_id || ans->offset < 0 ||
	    !session_offdie(s, ans->type_id, &type) ||
	    !type_link_at(s, &type, (uint64_t)ans->offset, acc, &link, &link_off,
			  &in_union) ||
	    !compared_in_block(s, ans->pc, ans->reg, false, 0))
		return;
	snprintf(why, sizeof(why), "a list walk's end: the pointer may be the "
		 "list's head, else %s +%lld (%s)", ans->type,
		 (long long)ans->offset, ans->field);
	/* in a union, the link's view when the access loads a pointer the
	 * code follows, compares or chases (lru.next), else the other
	 * view's (compound_head, stored or tested as an integer) */
	if (in_union && !(ans->access == DT_ACCESS_LOAD &&
			  acc->size == s->arch->ptr_size &&
			  (acc->deref_known ||
			   compared_in_block(s, ans->pc, ans->reg, true,
					     ans->offset - (int64_t)link_off)))) {
		snprintf(why, sizeof(why), "a list walk's end: the pointer may be "
			 "the list's head, a link in another object");
	} else if (type_member_at(s, &link, NULL, (int64_t)link_off, acc, &th) == DT_OK) {
		answer_take(ans, &th);
	} else {
		return;
	}
	session_debug(s, "  %s", why);
	ans->note = session_intern(s, why);
}

static enum dt_reason classify_and_attribute(struct dt_session *s,
					     struct dt_answer *ans)
{
	struct decoded_insn insn;
	struct dt_mem_op op;
	size_t avail;
	const uint8_t *code;
	int kind = decode_at(s, ans->pc, &insn, &op, &code, &avail);

	switch (kind) {
	case -1:
		return DT_NO_INSN;
	case DT_OP_NONE:
		return DT_NO_MEM_OP;
	case DT_OP_UNPARSED:
		return DT_NO_REG;
	case DT_OP_STACK:
		answer_pseudo(ans, DT_TYPE_STACK_OP);
		return DT_OK;
	case DT_OP_MEMORY:
		break;
	}
	ans->size = op.size;
	ans->access = (enum dt_access)(op.access & (DT_MEM_READ | DT_MEM_WRITE));
	struct access acc = { .size = op.size, .fp = op.fp, .bits = op.bits };
	if (!acc.bits)
		acc.bits = bits_tested_next(s, &insn, code, avail, op.size);
	if (op.access == DT_MEM_READ && op.size == s->arch->ptr_size && !op.fp)
		acc.deref_known = next_deref(s, &insn, &acc.deref_off, &acc.deref_size);
	ans->disp = op.disp;
	if (s->arch->is_stack_canary(&op)) {
		answer_pseudo(ans, DT_TYPE_CANARY);
		return DT_OK;
	}
	/* "%fs:-0x8": the program's thread-local below the thread pointer
	 * ("%fs:-0x40(,%rax,8)": an array of them, the displacement its
	 * start, as for statics).  "%gs:0x1a0" in a kernel: its per-CPU
	 * variable at that offset (rip-relative in newer kernels).
	 * "%fs:(%rax)" after "mov x@gottpoff(%rip),%rax" (initial-exec):
	 * the module's own thread-local whose offset that GOT slot holds.
	 * (AArch64's "mrs x0, tpidr_el0" is followed as an address below.)
	 * "%gs:0x18(%rdx)" in a kernel or module: this CPU's copy of what
	 * the per-CPU pointer in rdx points to, or of the per-CPU variable
	 * whose offset it holds (this_cpu_ptr), followed below.
	 * General- and local-dynamic TLS (__tls_get_addr's result) is
	 * followed below, as an address. */
	uint64_t off;
	if (op.segment >= 0 && op.segment == s->arch->tls_segment &&
	    op.base >= 0 && op.index < 0 && !op.pc_relative &&
	    initial_exec_offset(s, ans->pc, op.base, &off))
		return tls_block_attribute(s, ans->pc, off + (uint64_t)op.disp,
					   &acc, ans);
	if (op.segment >= 0 && op.base < 0) {
		if (op.segment == s->arch->tls_segment && !op.pc_relative)
			return tls_attribute(s, ans->pc, op.disp, 0, &acc, ans);
		if (op.segment == s->arch->percpu_segment)
			return percpu_attribute(s, ans->pc, op.pc_relative ?
						ans->pc + insn.len + (uint64_t)op.disp :
						(uint64_t)op.disp, 0, &acc, ans);
	}
	bool percpu_ptr = op.segment >= 0 && op.segment == s->arch->percpu_segment &&
			  !op.pc_relative && (s->areas.percpu_size || s->relocatable);
	if (op.segment >= 0 && !percpu_ptr)
		return DT_NO_REG;
	/* pc-relative and absolute (maybe indexed) operands name a static
	 * address; with an index, the displacement is the array's start */
	if (op.pc_relative)
		return global_attribute(s, ans->pc, ans->pc + insn.len + (uint64_t)op.disp,
					0, &acc, ans);
	if (op.base < 0)
		return global_attribute(s, ans->pc, (uint64_t)op.disp, 0, &acc, ans);
	/* gcc -O0 folds part of a member's offset into the index ("movslq
	 * %edx,%rdx; add $0x1c,%rdx; movzwl 0xc(%rax,%rdx,2)" reads the
	 * short at 0xc + 2 * 0x1c, not at 0xc): the index's constant part
	 * belongs to the displacement */
	int64_t index_c, moved;
	if (op.index >= 0 && track_integer(s, ans->pc, op.index, &index_c) &&
	    (__builtin_mul_overflow(index_c, (int64_t)op.scale, &moved) ||
	     __builtin_add_overflow(ans->disp, moved, &ans->disp)))
		return DT_BAD_OFFSET;	/* a corrupt or fuzzed constant */
	int64_t disp = ans->disp;	/* with the index's constant part */
	ans->reg = op.base;
	/* the index's unknown part moves the base by multiples of stride */
	uint64_t stride = op.index < 0 ? 0 :
			  (uint64_t)op.scale * track_multiple_of(s, ans->pc, op.index);
	enum dt_reason r = attribute_operand(s, ans, &acc, op.index >= 0, stride);
	if (r == DT_OK && op.index < 0)
		walk_end(s, ans, &acc);
	if (r == DT_OK || !s->dwarf)
		return r;
	/* "0x34(%rsi,%rdi,1)": the pointer may be the index, the base i * size */
	if (op.index >= 0 && op.scale == 1) {
		const char *note = ans->note;
		ans->reg = op.index;
		enum dt_reason ri = attribute_operand(s, ans, &acc, true,
						      track_multiple_of(s, ans->pc, op.base));
		if (ri == DT_OK)
			return ri;
		ans->reg = op.base;
		ans->note = note;
	}
	/* the register holds a static's address (lea, adrp + add), or the
	 * thread pointer plus an offset ("mrs x0, tpidr_el0; add x0, x0,
	 * #0x10": a thread-local of the program, TLS variant I) */
	uint64_t base_addr, step;
	if (operand_address(s, ans->pc, &op, &base_addr, &step)) {
		if (percpu_ptr)	/* the variable's offset in the per-CPU area */
			return percpu_attribute(s, ans->pc, base_addr + (uint64_t)disp,
						step, &acc, ans);
		/* __tls_get_addr's result (general- and local-dynamic), or
		 * an initial-exec offset added to the thread pointer */
		if (base_addr - DT_TLS_BLOCK < DT_THREAD_POINTER_SPAN && !step)
			return tls_block_attribute(s, ans->pc, base_addr - DT_TLS_BLOCK +
						   (uint64_t)disp, &acc, ans);
		if (base_addr - DT_THREAD_POINTER < DT_THREAD_POINTER_SPAN)
			return tls_attribute(s, ans->pc,
					     (int64_t)(base_addr - DT_THREAD_POINTER) + disp,
					     step, &acc, ans);
		enum dt_reason g = global_attribute(s, ans->pc,
						    base_addr + (uint64_t)disp,
						    step, &acc, ans);
		if (g == DT_OK)
			return g;
	}
	/* no pointer in the register: is the operand a variable in memory
	 * (the stack frame through rsp or rbp)?  Not in a per-CPU copy. */
	if (percpu_ptr)
		return r;
	enum dt_reason m = attribute_memory_var(s, ans, &acc);
	return m == DT_OK ? m : r;
}

enum dt_reason dt_resolve_pc(struct dt_session *s, uint64_t pc,
			     struct dt_answer *ans)
{
	struct answer_key key = { .pc = pc, .disp = 0, .reg = ANSWER_KEY_DECODE };
	enum dt_reason r;

	if (known_answer(s, &key, ans, &r))
		return r;
	struct oom_guard g;
	OOM_GUARD(s, g, return no_memory(ans, pc));
	errno = 0;
	r = classify_and_attribute(s, ans);
	OOM_UNGUARD(g);
	if (short_of_memory(s))
		return no_memory(ans, pc);
	/* in a binary without DWARF, what is not a stack operation or the
	 * canary is for want of debug info, whatever the bytes are: its
	 * share of the profile is then one row */
	if (!s->dwarf && r != DT_OK)
		r = DT_NO_DEBUGINFO;
	finish(s, &key, ans, r);
	return r;
}

/* The instruction a skidded sample most likely waited on: the nearest
 * memory access before pc in its basic block, else pc itself. */
static uint64_t skid_source(struct dt_session *s, uint64_t pc)
{
	const struct func_map *fm = funcmap_get(s, pc);
	long i = fm ? func_map_index(fm, pc) : -1;

	if (i < 0)
		return pc;
	while (!fm->insns[i].leader && i > 0) {
		i--;
		if (fm->insns[i].op == DT_OP_MEMORY)
			return fm->insns[i].pc;
	}
	return pc;
}

/* A precise sample on a conditional branch that macro-fused with the
 * compare before it ("cmp %rax,0x10(%rdi); jne": one micro-op) belongs
 * to that compare, as perf annotate counts it. */
static uint64_t fused_source(struct dt_session *s, uint64_t pc)
{
	const struct func_map *fm = funcmap_get(s, pc);
	long i = fm ? func_map_index(fm, pc) : -1;

	if (i <= 0 || fm->insns[i].flow != DT_FLOW_BRANCH || fm->insns[i].leader)
		return pc;
	return fm->insns[i - 1].fuses ? fm->insns[i - 1].pc : pc;
}

enum dt_reason dt_resolve_sample(struct dt_session *s, uint64_t pc,
				 unsigned flags, struct dt_answer *ans)
{
	struct oom_guard g;
	unsigned key = flags & DT_RESOLVE_SKID;
	const struct dt_answer *kept = answer_store_find(s->store, pc, key);

	if (kept) {		/* named by an earlier run */
		*ans = *kept;
		return ans->reason;
	}
	if (s->oom.no_memory)
		return no_memory(ans, pc);
	OOM_GUARD(s, g, return no_memory(ans, pc));
	errno = 0;
	uint64_t at = flags & DT_RESOLVE_SKID ? skid_source(s, pc) :
		      fused_source(s, pc);
	OOM_UNGUARD(g);
	if (short_of_memory(s))
		return no_memory(ans, pc);

	dt_resolve_pc(s, at, ans);
	ans->pc = pc;
	ans->access_pc = at;
	if (!s->oom.no_memory)
		answer_store_put(s->store, pc, key, ans);
	return ans->reason;
}
