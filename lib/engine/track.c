// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Pointers no variable describes, followed forward through a function.
 *
 * A forward dataflow over funcmap's basic blocks.  The state before an
 * instruction says, for each general register and for each stack slot a
 * pointer was spilled to, what is known of its value:
 *
 *   PTR(T, bias)   the address of an object of type T, plus bias bytes
 *                  (bias != 0 after "lea 0x30(%rdi)": a member's address);
 *                  with a step, bias is known modulo step only (p + 2i:
 *                  an index into a member array of 2-byte elements)
 *   ADDR(a)        the constant link-time address a (lea of a static),
 *                  also known modulo a step (a section anchor + 48i)
 *   INT(sym, k, c) an integer k * m + c for some m; sym names m by the
 *                  instruction that produced it, or the block and
 *                  register it was found in (0: unnamed), so that
 *                  i + i + i is 3 * i and (i + 28) * 2 is 2i + 56
 *   unknown        anything else
 *
 * Ids: 0 is unknown; INT(sym, 1, 0) for a fresh sym is the id sym itself
 * (FRESH bit, not interned: most integers); every other value is interned
 * in track_values and named by its index there.
 *
 * Values come from DWARF (a variable's location says what a register or
 * slot holds: its declared pointer type), loads of pointer-typed members
 * and of pointer statics, the return type of a directly called function,
 * and copies, spills, reloads and address arithmetic of those.  Adding an
 * integer to PTR(T) keeps the type only when the integer is a known
 * multiple of sizeof(T) (an array index), so p[i] is followed and a byte
 * offset is not (a sub-element multiple gives a stepped pointer).  A
 * pointer proved this way is trusted inside its struct only, unless it
 * moved by whole elements: past the end of a list_head it is the
 * list_head's container, not a second list_head (resolve.c's rule for
 * every pointer).  At a block's entry the states of its predecessors
 * meet: a value survives only when every predecessor agrees (INTs keep
 * the gcd of their multiples and of their constants' difference); what is
 * not proven is unknown, never a guess.
 * Functions with jumps whose targets are unknown (jump tables, indirect
 * tail calls) are followed inside each block only.
 *
 * The states at block entries are computed once per function, on the
 * first question about it; a question replays its block up to the pc.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "../arrays.h"
#include "internal.h"

#define TRACK_REGS DT_MAX_GPRS	/* a state's registers; arch->ngpr used */
#define TRACK_SLOTS 12		/* spilled pointers followed per state */
#define MAX_BLOCKS 8192		/* larger functions: inside blocks only */
#define MAX_VISITS 32		/* per block, before giving up on a function */
#define MAX_HITS 8
#define MAX_MULT (1u << 24)
#define ZERO_MULT (1u << 12)	/* what a zeroed register is known a
				 * multiple of: room to scale it still */

enum tv_kind { TV_UNKNOWN, TV_PTR, TV_ADDR, TV_INT };

/* One interned value; ids index track_values.v, 0 is unknown. */
struct tval {
	enum tv_kind kind;
	Dwarf_Die pointee;		/* PTR */
	const char *typedef_name;	/* PTR: the typedef it was reached by */
	Dwarf_Die origin;		/* PTR: the variable it came from, if any */
	int64_t n;			/* PTR: bias; ADDR: address; INT: multiple */
	int64_t c;			/* INT: the value is n * m + c (m unknown,
					 * named by sym): "i + 28" keeps its 28 */
	bool strict;			/* PTR: trusted inside its type only;
					 * false for an array's elements (p + i,
					 * a loop's p++) */
	uint64_t step;			/* PTR, ADDR: n is known up to a
					 * multiple of step (&p->arr[i] is p +
					 * 16 + 2i: an index into a member array;
					 * a section anchor plus 48i), and for PTR
					 * step is not whole elements; 0: exact */
	uint32_t sym;			/* INT: a fresh id naming the integer it
					 * is a multiple of, 0 when unnamed */
};

struct tstate;

struct track_values {
	struct tval *v;
	size_t n, cap;
	uint32_t *slots;		/* open addressing on the value, 0 empty */
	size_t nslots;
	/* the state last replayed: resolve.c asks about one pc up to three
	 * times (a pointer in the base, an address in the base or index) */
	uint64_t last_pc;
	struct tstate *last;		/* NULL until the first replay */
	struct callee_memo *callees;	/* CALLEE_MEMO of them, by address */
};

/* What a callee returns (a pointer's value, 0 unknown), by its address:
 * the same few (allocators, lookups) are called from everywhere, and
 * finding one's DIE asks for its unit and its unit's functions. */
#define CALLEE_MEMO 1024		/* entries, a power of 2 */
struct callee_memo {
	uint64_t callee;		/* 0: empty */
	uint32_t returned;
};

#define TOP UINT32_MAX		/* not reached yet: the meet's identity */
/* Ids with this bit are not interned: INT(the id, 1), a fresh integer
 * named by the instruction that made it (its index in the function) or
 * by the block and register it was found in on entry. */
#define FRESH (1u << 31)
#define FRESH_INSN(i) (FRESH | (uint32_t)(i))
#define FRESH_ENTRY(b, r) (FRESH | 1u << 30 | (uint32_t)(b) << 5 | (uint32_t)(r))
#define MAX_FRESH (1u << 25)	/* instructions, blocks of a function */

struct slot {
	int32_t disp;
	int8_t base;		/* the stack or frame pointer */
	uint32_t val;
};

struct tstate {
	uint32_t reg[TRACK_REGS];
	struct slot slot[TRACK_SLOTS];
	uint8_t nslots;
	bool fp_frame;		/* the frame pointer holds a frame address */
	bool top;		/* not reached yet */
};

/* The states at block entries, kept for the function's later questions
 * packed: a kernel's thousands of functions would otherwise keep 276
 * bytes a block, most of them registers nothing is known of (0). */
struct track_states {
	uint32_t *at;		/* per block: its state in packed, NO_STATE
				 * when unreached; NULL: follow inside
				 * blocks only */
	uint8_t *packed;
};
#define NO_STATE UINT32_MAX
_Static_assert(TRACK_REGS <= 32, "packed_head.known has a bit a register");

/* A packed state: the mask of registers with a value, the values, then
 * the slots. */
struct packed_head {
	uint32_t known;		/* bit r: reg[r] != 0 */
	uint8_t nslots;
	bool fp_frame;
};

/* ---- interned values ---- */

static uint64_t tval_hash(const struct tval *t)
{
	uint64_t h = (uint64_t)t->kind * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)t->pointee.addr + (h << 6) + (h >> 2);
	h ^= (uint64_t)(uintptr_t)t->origin.addr + (h << 6) + (h >> 2);
	h ^= (uint64_t)t->n + (uint64_t)t->c * 31 + (h << 6) + (h >> 2);
	h ^= t->sym + (uint64_t)t->strict + t->step + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static bool tval_equal(const struct tval *a, const struct tval *b)
{
	return a->kind == b->kind && a->pointee.addr == b->pointee.addr &&
	       a->origin.addr == b->origin.addr && a->n == b->n && a->c == b->c &&
	       a->sym == b->sym &&
	       a->strict == b->strict && a->step == b->step;
}

static int values_rehash(struct track_values *tv, size_t nslots)
{
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t id = 1; id < tv->n; id++) {
		size_t k = tval_hash(&tv->v[id]) & (nslots - 1);
		while (slots[k])
			k = (k + 1) & (nslots - 1);
		slots[k] = (uint32_t)id;
	}
	free(tv->slots);
	tv->slots = slots;
	tv->nslots = nslots;
	return 0;
}

/* The id of value t, interned; 0 (unknown) when memory runs out. */
static uint32_t intern(struct dt_session *s, const struct tval *t)
{
	struct track_values *tv = s->track_values;

	if (t->kind == TV_UNKNOWN)
		return 0;
	if (!tv) {
		tv = s->track_values = calloc(1, sizeof(*tv));
		if (!tv || GROW(tv->v, tv->cap, tv->n, 256))
			return 0;
		tv->v[tv->n++] = (struct tval){ .kind = TV_UNKNOWN };
	}
	if (tv->n * 2 >= tv->nslots &&
	    values_rehash(tv, tv->nslots ? tv->nslots * 2 : 1024))
		return 0;
	size_t k = tval_hash(t) & (tv->nslots - 1);
	for (; tv->slots[k]; k = (k + 1) & (tv->nslots - 1))
		if (tval_equal(&tv->v[tv->slots[k]], t))
			return tv->slots[k];
	if (tv->n >= TOP - 1 || GROW(tv->v, tv->cap, tv->n, 256))
		return 0;
	tv->v[tv->n] = *t;
	tv->slots[k] = (uint32_t)tv->n;
	return (uint32_t)tv->n++;
}

/* A copy of value id: interning may move the table. */
static struct tval value(const struct dt_session *s, uint32_t id)
{
	if (!id || id == TOP)
		return (struct tval){ .kind = TV_UNKNOWN };
	if (id & FRESH)
		return (struct tval){ .kind = TV_INT, .n = 1, .sym = id };
	return s->track_values->v[id];
}

void track_values_free(struct track_values *tv)
{
	if (!tv)
		return;
	free(tv->v);
	free(tv->slots);
	free(tv->last);
	free(tv->callees);
	free(tv);
}

static uint32_t make_ptr(struct dt_session *s, Dwarf_Die *pointee,
			 const char *typedef_name, Dwarf_Die *origin, int64_t bias,
			 bool strict)
{
	struct tval t = { .kind = TV_PTR, .pointee = *pointee,
			  .typedef_name = typedef_name, .n = bias, .strict = strict };

	if (origin)
		t.origin = *origin;
	return intern(s, &t);
}

/* INT(sym, mult, c): mult * m + c.  A multiple of 0 or of 1 with no name
 * says nothing: unknown (0); INT(sym, 1, 0) is the fresh id sym itself. */
static uint32_t make_int_c(struct dt_session *s, uint32_t sym, uint64_t mult,
			   int64_t c)
{
	struct tval t = { .kind = TV_INT, .sym = sym, .n = (int64_t)mult, .c = c };

	if (mult == 0 || mult > MAX_MULT || (mult == 1 && !sym))
		return 0;
	if (mult == 1 && c == 0)
		return sym;
	return intern(s, &t);
}

static uint32_t make_int(struct dt_session *s, uint32_t sym, uint64_t mult)
{
	return make_int_c(s, sym, mult, 0);
}

/* x as an integer's multiple: INT's, else unknown (a multiple of 1). */
static struct tval as_int(struct tval x)
{
	return x.kind == TV_INT ? x : (struct tval){ .kind = TV_INT, .n = 1 };
}

/* a + b * k, wrapping: constants from a corrupt or fuzzed binary must
 * not overflow (UBSan); a wrapped value is only a wrong multiple, which
 * the element-size checks reject. */
static int64_t lin(int64_t a, int64_t b, int64_t k)
{
	return (int64_t)((uint64_t)a + (uint64_t)b * (uint64_t)k);
}

static uint64_t magnitude(int64_t v)
{
	return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}


/* ---- what a register or memory holds ---- */

static bool is_aggregate(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);

	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

bool track_hit_trusted(const struct var_hit *h, enum dt_reason r,
		       const struct type_hit *th)
{
	return !h->strict || (r == DT_OK && !th->beyond_end) ||
	       !is_aggregate((Dwarf_Die *)&h->pointee);
}

/* The pointer member starting at off in type t (off past t's end: in a
 * later element of an array of t, unless strict: t may be the first
 * member of a container): its pointee. */
static uint32_t pointer_member(struct dt_session *s, Dwarf_Die *t, int64_t off,
			       Dwarf_Die *origin, bool strict)
{
	Dwarf_Die m, pointee;
	const char *name;
	uint64_t size;

	if (off < 0)
		return 0;
	if (type_byte_size(t, &size) && size && (uint64_t)off >= size &&
	    dwarf_tag(t) != DW_TAG_pointer_type) {
		if (strict && is_aggregate(t))
			return 0;
		off %= (int64_t)size;
	}
	if (!type_member_type_at(s, t, (uint64_t)off, &m) ||
	    !type_pointee(&m, &pointee, &name))
		return 0;
	return make_ptr(s, &pointee, name, origin, 0, true);
}

/* What DWARF says reg holds at link-time pc: among the variables there,
 * the one whose object contains the register's address and is largest
 * (a container, rather than the list_head inside it). */
static uint32_t dwarf_value(struct dt_session *s, uint64_t pc, int reg)
{
	struct var_hit hits[MAX_HITS];
	size_t n, best = MAX_HITS;
	uint64_t best_size = 0;

	if (!s->dwarf || scope_find_vars(s, pc + (uint64_t)s->dwarf_adjust, reg,
					 hits, MAX_HITS, &n) != DT_OK)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t size = 0;
		int64_t at = -hits[i].bias;	/* reg = var + at */
		type_byte_size(&hits[i].pointee, &size);
		if (at < 0 || (at > 0 && (uint64_t)at >= size))
			continue;
		if (best == MAX_HITS || size > best_size) {
			best = i;
			best_size = size;
		}
	}
	if (best == MAX_HITS)
		return 0;
	return make_ptr(s, &hits[best].pointee, hits[best].typedef_name,
			&hits[best].var, -hits[best].bias, true);
}

/* reg's value before instruction fi: the state's, else DWARF's. */
/* A pointer, or a static's address. */
static bool is_address(const struct dt_session *s, uint32_t v)
{
	enum tv_kind k = value(s, v).kind;

	return k == TV_PTR || k == TV_ADDR;
}

static uint32_t reg_value(struct dt_session *s, const struct tstate *st,
			  const struct func_insn *fi, int reg)
{
	if (reg < 0 || reg >= (int)s->arch->ngpr)
		return 0;
	uint32_t v = st->reg[reg];
	if (is_address(s, v))
		return v;
	uint32_t d = dwarf_value(s, fi->pc, reg);
	return d ? d : v;
}

/* Slots are addressed through the stack pointer, or through the frame
 * pointer once the function made it one. */
static bool is_slot_base(const struct dt_session *s, const struct tstate *st,
			 int base)
{
	return base >= 0 && (base == s->arch->dwarf_sp ||
			     (base == s->arch->dwarf_fp && st->fp_frame));
}

static struct slot *slot_find(struct tstate *st, int base, int64_t disp)
{
	if (disp != (int32_t)disp)
		return NULL;
	for (unsigned i = 0; i < st->nslots; i++)
		if (st->slot[i].base == base && st->slot[i].disp == disp)
			return &st->slot[i];
	return NULL;
}

static void slot_drop(struct tstate *st, unsigned i)
{
	st->slot[i] = st->slot[--st->nslots];
}

/* Forget slots of base (all of them, or those overlapping [disp,
 * disp + span)); a write through one base may alias the other's.  A slot
 * holds a pointer: ptr_size bytes. */
static void slots_kill(struct tstate *st, int base, bool all, int64_t disp,
		       unsigned span, unsigned ptr_size)
{
	for (unsigned i = st->nslots; i-- > 0;) {
		const struct slot *sl = &st->slot[i];
		bool same = sl->base == base;
		bool overlap = sl->disp < disp + (int64_t)span &&
			       disp < sl->disp + (int64_t)ptr_size;
		if (!same || all || overlap)
			slot_drop(st, i);
	}
}

static void slots_kill_base(struct tstate *st, int base)
{
	for (unsigned i = st->nslots; i-- > 0;)
		if (st->slot[i].base == base)
			slot_drop(st, i);
}

static void slot_store(struct tstate *st, int base, int64_t disp, uint32_t val)
{
	struct slot *sl = slot_find(st, base, disp);

	if (!val) {
		if (sl)
			slot_drop(st, (unsigned)(sl - st->slot));
		return;
	}
	if (!sl && st->nslots < TRACK_SLOTS && disp == (int32_t)disp)
		sl = &st->slot[st->nslots++];
	if (sl)
		*sl = (struct slot){ (int32_t)disp, (int8_t)base, val };
}

/* A pointer loaded from base + index * scale + disp: an element of an
 * array when the index moves by whole elements (p[i].next, table[i]). */
static uint32_t indexed_load(struct dt_session *s, struct tstate *st,
			     const struct func_insn *fi)
{
	struct tval b = value(s, reg_value(s, st, fi, fi->mem_base));
	struct tval x = value(s, reg_value(s, st, fi, fi->mem_index));
	if (b.kind != TV_PTR && b.kind != TV_ADDR && fi->mem_scale == 1) {
		struct tval t = b;	/* "(%rdx,%rax,1)": the address in rax */
		b = x;
		x = t;
	}
	uint64_t step = (uint64_t)as_int(x).n * fi->mem_scale;
	int64_t disp = lin(fi->mem_disp, as_int(x).c, fi->mem_scale);
	Dwarf_Die var, t, elem;
	uint64_t off, size;

	if (b.kind == TV_PTR) {
		if (b.step || !type_byte_size(&b.pointee, &size) || !size || step % size)
			return 0;
		/* stepping by whole elements: an array, past the first */
		return pointer_member(s, &b.pointee, b.n + disp,
				      b.origin.addr ? &b.origin : NULL, false);
	}
	if (b.kind != TV_ADDR || b.step ||
	    !global_var_at(s, fi->pc, (uint64_t)(b.n + disp), &var, &off) ||
	    !die_type(&var, &t) || !type_peel(&t, &t) ||
	    dwarf_tag(&t) != DW_TAG_array_type || !die_type(&t, &elem) ||
	    !type_byte_size(&elem, &size) || !size || step % size)
		return 0;
	return pointer_member(s, &t, (int64_t)off, &var, false);
}

/* The pointer loaded by fi: to what? */
static uint32_t loaded_value(struct dt_session *s, struct tstate *st,
			     const struct func_insn *fi)
{
	Dwarf_Addr dpc = fi->pc + (uint64_t)s->dwarf_adjust;
	Dwarf_Die var, t;
	uint64_t off;

	if (fi->mem_static) {
		/* an initial-exec GOT slot: where the thread-local is */
		if (tls_got_offset(s, (uint64_t)fi->mem_disp, &off))
			return intern(s, &(struct tval){ .kind = TV_ADDR,
					.n = (int64_t)(DT_TLS_BLOCK + off) });
		if (!global_var_at(s, fi->pc, (uint64_t)fi->mem_disp, &var, &off) ||
		    !die_type(&var, &t))
			return 0;
		return pointer_member(s, &t, (int64_t)off, &var, false);
	}
	int base = fi->mem_base;
	if (fi->mem_index >= 0)
		return indexed_load(s, st, fi);
	if (is_slot_base(s, st, base)) {
		/* a variable's home (all of -O0; its declared type says more
		 * than the arithmetic that filled it, container_of), else a
		 * spill we saw */
		uint32_t v;
		if (scope_find_memory_var(s, dpc, base, fi->mem_disp, &var, &off) == DT_OK &&
		    die_type(&var, &t) &&
		    (v = pointer_member(s, &t, (int64_t)off, &var, false)))
			return v;
		/* an integer's home holds what was stored: -O0's "unsigned
		 * long off = tpidr_el1" is still the per-CPU offset */
		struct slot *sl = slot_find(st, base, fi->mem_disp);
		return sl ? sl->val : 0;
	}
	struct tval b = value(s, reg_value(s, st, fi, base));
	if (b.kind == TV_PTR && b.step &&
	    (b.n + fi->mem_disp < 0 ||
	     !type_in_array_of_step(s, &b.pointee, (uint64_t)(b.n + fi->mem_disp), b.step)))
		return 0;	/* somewhere in it, not in an array */
	if (b.kind == TV_PTR)
		return pointer_member(s, &b.pointee, b.n + fi->mem_disp,
				      b.origin.addr ? &b.origin : NULL, b.strict);
	if (b.kind == TV_ADDR && !b.step &&
	    global_var_at(s, fi->pc, (uint64_t)(b.n + fi->mem_disp), &var, &off) &&
	    die_type(&var, &t))
		return pointer_member(s, &t, (int64_t)off, &var, false);
	return 0;
}

/* A register stored to a variable's home, which DWARF describes from
 * the next instruction on (rustc's and clang's -O0 spills of parameters):
 * the register held that variable's value. */
static uint32_t spilled_value(struct dt_session *s, struct tstate *st,
			      const struct func_insn *fi)
{
	Dwarf_Addr dpc = fi->pc + fi->len + (uint64_t)s->dwarf_adjust;
	Dwarf_Die var, t;
	uint64_t off;

	if (!is_slot_base(s, st, fi->mem_base) ||
	    scope_find_memory_var(s, dpc, fi->mem_base, fi->mem_disp, &var, &off) != DT_OK ||
	    !die_type(&var, &t))
		return 0;
	return pointer_member(s, &t, (int64_t)off, &var, false);
}

/* a + k: a pointer moved by a constant, an address, an integer. */
static uint32_t add_const(struct dt_session *s, uint32_t a, int64_t k)
{
	struct tval t = value(s, a);

	switch (t.kind) {
	case TV_PTR:
	case TV_ADDR:
		t.n = lin(t.n, k, 1);
		return intern(s, &t);
	case TV_INT:
		return make_int_c(s, t.sym, (uint64_t)t.n, lin(t.c, k, 1));
	default:
		return 0;
	}
}

/* a | k: an add of k when a is an integer known as n * m + c whose bits
 * below n's lowest set bit, c's, leave room for k without carrying
 * ("lea 0x0(,%rsi,8),%rax; or $0x20,%rax" with rsi a multiple of 16);
 * else unknown. */
static uint32_t or_const(struct dt_session *s, uint32_t a, int64_t k)
{
	struct tval t = value(s, a);

	if (t.kind != TV_INT || t.n <= 0 || k < 0)
		return 0;
	uint64_t low = (uint64_t)t.n & (0 - (uint64_t)t.n);	/* 2^j | n */
	uint64_t c = (uint64_t)t.c & (low - 1);		/* bits under it */
	if ((uint64_t)k >= low || (c & (uint64_t)k) || c + (uint64_t)k >= low ||
	    (uint64_t)t.c >= low)
		return 0;
	return add_const(s, a, k);
}

static uint32_t mul_value(struct dt_session *s, uint32_t a, uint64_t k)
{
	struct tval x = as_int(value(s, a));
	uint64_t m = (uint64_t)x.n * k;

	if (!k || m / k != (uint64_t)x.n)
		return 0;
	return make_int_c(s, x.sym, m, (int64_t)((uint64_t)x.c * k));
}

/* Pointer p plus integer x times scale, plus k.  x's multiple times
 * scale is the step: whole elements keep p a pointer to one (not strict:
 * an array's); less than an element, it points inside one at a known
 * offset modulo the step (an index into a member array: x's constant part
 * says which array), answered only where an array of such steps is. */
static uint32_t ptr_step(struct dt_session *s, struct tval p, struct tval x,
			 unsigned scale, int64_t k)
{
	uint64_t size, step = (uint64_t)x.n * scale;

	if (!type_byte_size(&p.pointee, &size) || !size)
		return 0;
	p.n = lin(lin(p.n, k, 1), x.c, scale);
	if (step % size == 0) {
		p.strict = false;	/* an element of an array of them */
		return intern(s, &p);
	}
	p.step = gcd_u64(p.step, step);
	return p.step < 2 ? 0 : intern(s, &p);	/* bytes: nothing known */
}

/* a - b * scale: integers as add_values() adds them; a pointer moved back
 * by whole elements, or by steps within one, as ptr_step(). */
static uint32_t sub_values(struct dt_session *s, uint32_t a, uint32_t b,
			   unsigned scale)
{
	struct tval va = value(s, a), vb = value(s, b);

	if (is_address(s, b))
		return 0;	/* a pointer difference: an integer we do not follow */
	struct tval y = as_int(vb);
	uint64_t ym = (uint64_t)y.n * scale;
	int64_t c;
	if (va.kind == TV_PTR) {	/* backwards by the integer's steps */
		y.c = lin(0, y.c, -1);
		return ptr_step(s, va, y, scale, 0);
	}
	if (va.kind != TV_INT)
		return 0;
	struct tval x = as_int(va);
	c = lin(x.c, y.c, -(int64_t)scale);
	if (x.sym && x.sym == y.sym) {	/* 32i - i is 31i */
		uint64_t d = (uint64_t)x.n > ym ? (uint64_t)x.n - ym : ym - (uint64_t)x.n;
		return make_int_c(s, x.sym, d, c);
	}
	return make_int_c(s, 0, gcd_u64((uint64_t)x.n, ym), c);
}

/* A static array's address plus an integer that is a multiple of step,
 * plus k ("lea garr(%rip),%rax; imul $0x30,%rcx,%rcx; add %rcx,%rax"):
 * a pointer to an element when step is whole elements. */
static uint32_t static_element(struct dt_session *s, uint64_t pc, uint64_t addr,
			       uint64_t step, int64_t k)
{
	Dwarf_Die var, t, elem, peeled;
	const char *typedef_name = NULL;
	uint64_t off, size;

	if (!global_var_at(s, pc, addr, &var, &off) || !die_type(&var, &t) ||
	    !type_peel(&t, &t) || dwarf_tag(&t) != DW_TAG_array_type ||
	    !die_type(&t, &elem) || !type_byte_size(&elem, &size) || !size ||
	    step % size || !type_peel_named(&elem, &peeled, &typedef_name)) {
		/* not (yet) an array's element: an address known modulo
		 * step, the array found when it is used (gcc's section
		 * anchors: "adrp; add x1, x1, #0x50; ... [x0, #48]") */
		struct tval a = { .kind = TV_ADDR, .n = (int64_t)addr + k,
				  .step = step };
		return step > 1 ? intern(s, &a) : 0;
	}
	return make_ptr(s, &peeled, typedef_name, &var, (int64_t)(off % size) + k,
			false);
}

/* a * b, integers: a multiple of both multiples. */
static uint32_t mul_values(struct dt_session *s, uint32_t a, uint32_t b)
{
	struct tval va = value(s, a), vb = value(s, b);

	if (is_address(s, a) || is_address(s, b))
		return 0;
	/* n m + c is a multiple of gcd_u64(n, c) */
	uint64_t x = gcd_u64((uint64_t)as_int(va).n, magnitude(as_int(va).c));
	uint64_t y = gcd_u64((uint64_t)as_int(vb).n, magnitude(as_int(vb).c));
	return y && x * y / y == x ? make_int(s, 0, x * y) : 0;
}

/* a + b * scale + k by the rules of C pointer arithmetic: a pointer plus
 * an integer keeps its type when the integer is a known multiple of the
 * pointee's size (an array index); b is a pointer only when b_may_point. */
static uint32_t add_values(struct dt_session *s, uint64_t pc, uint32_t a,
			   uint32_t b, unsigned scale, int64_t k, bool b_may_point)
{
	struct tval va = value(s, a), vb = value(s, b);

	if (is_address(s, b) && b_may_point && !is_address(s, a)) {
		uint32_t t = a;
		a = b;
		b = t;
		va = value(s, a);
		vb = value(s, b);
	}
	if (va.kind == TV_PTR && vb.kind != TV_PTR && vb.kind != TV_ADDR)
		return ptr_step(s, va, as_int(vb), scale, k);
	/* a per-CPU variable's address plus this CPU's offset ("mrs x1,
	 * tpidr_el1; add x0, x0, x1"): this CPU's copy of the variable */
	if (va.kind == TV_ADDR && vb.kind == TV_ADDR && scale == 1) {
		if ((uint64_t)vb.n == DT_PERCPU_OFFSET && !vb.step)
			return add_const(s, a, k);
		if ((uint64_t)va.n == DT_PERCPU_OFFSET && !va.step)
			return add_const(s, b, k);
	}
	if (va.kind == TV_ADDR && !is_address(s, b))
		return static_element(s, pc, (uint64_t)va.n,
				      gcd_u64(va.step, (uint64_t)as_int(vb).n * scale),
				      lin(k, as_int(vb).c, scale));
	if (va.kind == TV_PTR || vb.kind == TV_PTR || va.kind == TV_ADDR ||
	    vb.kind == TV_ADDR)
		return 0;
	/* integers: i + i is 2i when both are the same named value */
	struct tval x = as_int(va), y = as_int(vb);
	uint64_t ym = (uint64_t)y.n * scale;
	bool same = x.sym && x.sym == y.sym;
	return make_int_c(s, same ? x.sym : 0,
			  same ? (uint64_t)x.n + ym : gcd_u64((uint64_t)x.n, ym),
			  lin(lin(x.c, k, 1), y.c, scale));
}

/* Values named by a fresh id that is about to name another value (a
 * loop's next turn) lose the name: two of them are no longer the same. */
static void forget_name(struct dt_session *s, struct tstate *st, uint32_t mask,
			uint32_t name)
{
	for (int r = 0; r < (int)s->arch->ngpr; r++) {
		uint32_t v = st->reg[r];
		if (v & FRESH ? (v & mask) == name :
		    v && value(s, v).kind == TV_INT && (value(s, v).sym & mask) == name)
			st->reg[r] = make_int_c(s, 0, (uint64_t)value(s, v).n,
					       value(s, v).c);
	}
	for (unsigned i = 0; i < st->nslots; i++) {
		uint32_t v = st->slot[i].val;
		if (v & FRESH ? (v & mask) == name :
		    v && value(s, v).kind == TV_INT && (value(s, v).sym & mask) == name)
			st->slot[i].val = make_int_c(s, 0, (uint64_t)value(s, v).n,
						    value(s, v).c);
	}
}

/* The integer instruction i of its function produces, named by it. */
static uint32_t fresh_int(struct dt_session *s, struct tstate *st, size_t i)
{
	if (i >= MAX_FRESH)
		return 0;
	forget_name(s, st, UINT32_MAX, FRESH_INSN(i));
	return FRESH_INSN(i);
}

/* On entry to block b: registers nothing is known of get names, so that
 * reading one twice reads the same value (i + 2 * i is 3 * i). */
static void enter_block(struct dt_session *s, struct tstate *st, size_t b)
{
	if (b >= MAX_FRESH)
		return;
	forget_name(s, st, ~31u, FRESH_ENTRY(b, 0));
	for (int r = 0; r < (int)s->arch->ngpr; r++)
		if (!st->reg[r])
			st->reg[r] = FRESH_ENTRY(b, r);
}

/* A direct call's result: the callee's declared pointer return type;
 * __tls_get_addr's, the thread-local its argument's GOT pair names. */
static uint32_t call_result(struct dt_session *s, const struct tstate *st,
			    const struct func_insn *fi)
{
	Dwarf_Die fn, t, pointee;
	const char *name;
	int arg = s->arch->tls_get_addr_arg;
	uint64_t off;

	/* "lea x@tlsgd(%rip),%rdi; call __tls_get_addr@plt": the address
	 * of this thread's x, DT_TLS_BLOCK + its offset as initial-exec's
	 * (local-dynamic: the block's start, then "lea x@dtpoff(%rax)") */
	if (arg >= 0 && s->areas.has_tls && session_is_tls_get_addr(s, (uint64_t)fi->value)) {
		struct tval a = value(s, st->reg[arg]);
		if (a.kind == TV_ADDR && !a.step && tls_dtv_offset(s, (uint64_t)a.n, &off))
			return intern(s, &(struct tval){ .kind = TV_ADDR,
					.n = (int64_t)(DT_TLS_BLOCK + off) });
		return 0;
	}
	if (!fi->value || !s->dwarf)
		return 0;
	struct track_values *tv = s->track_values;
	struct callee_memo *m = NULL;
	uint64_t callee = (uint64_t)fi->value;
	if (tv && (tv->callees || (tv->callees = calloc(CALLEE_MEMO, sizeof(*tv->callees))))) {
		m = &tv->callees[hash_mix(HASH_SEED, callee) & (CALLEE_MEMO - 1)];
		if (m->callee == callee)
			return m->returned;
	}
	uint32_t returned = 0;
	if (scope_function_entry(s, callee + (uint64_t)s->dwarf_adjust, &fn) &&
	    die_type(&fn, &t) && type_pointee(&t, &pointee, &name))
		returned = make_ptr(s, &pointee, name, NULL, 0, true);
	if (m)		/* interning moves the values, never this table */
		*m = (struct callee_memo){ callee, returned };
	return returned;
}

/* ---- one instruction ---- */

static void set_reg(const struct dt_session *s, struct tstate *st, int reg,
		    uint32_t val)
{
	if (reg < 0 || reg >= (int)s->arch->ngpr)
		return;
	st->reg[reg] = val;
	if (reg == s->arch->dwarf_sp)
		slots_kill_base(st, reg);
	if (reg == s->arch->dwarf_fp) {
		slots_kill_base(st, reg);
		st->fp_frame = false;
	}
}

static void transfer(struct dt_session *s, const struct func_map *fm, size_t i,
		     struct tstate *st)
{
	const struct func_insn *fi = &fm->insns[i];
	const struct dt_arch *a = s->arch;
	uint32_t v = 0;
	bool sets = fi->def_dst >= 0;

	/* values first, from the state before the instruction */
	switch (fi->def) {
	case DT_DEF_COPY:
		v = reg_value(s, st, fi, fi->def_src);
		break;
	case DT_DEF_LOAD:
		v = loaded_value(s, st, fi);
		break;
	case DT_DEF_ADDR:
		v = intern(s, &(struct tval){ .kind = TV_ADDR, .n = fi->value });
		break;
	case DT_DEF_ADDI:
		v = add_const(s, reg_value(s, st, fi, fi->def_src), fi->value);
		break;
	case DT_DEF_ORI:
		v = or_const(s, reg_value(s, st, fi, fi->def_src), fi->value);
		break;
	case DT_DEF_ZERO:
		/* 0 is a multiple of anything: of ZERO_MULT here, so that a
		 * loop counter from 0 by k joins as a multiple of k */
		v = make_int_c(s, 0, ZERO_MULT, 0);
		break;
	case DT_DEF_ADD:
		v = reg_value(s, st, fi, fi->def_src2);
		v = fi->def_src < 0 ?	/* "lea 0x8(,%rax,8)": no base */
		    add_const(s, mul_value(s, v, fi->scale), fi->value) :
		    add_values(s, fi->pc, reg_value(s, st, fi, fi->def_src), v, fi->scale,
			       fi->value, fi->scale == 1);
		break;
	case DT_DEF_SUB:
		v = sub_values(s, reg_value(s, st, fi, fi->def_src),
			       reg_value(s, st, fi, fi->def_src2), fi->scale);
		break;
	case DT_DEF_MADD:
		v = mul_values(s, reg_value(s, st, fi, fi->def_src),
			       reg_value(s, st, fi, fi->def_src2));
		if (fi->def_src3 >= 0)
			v = add_values(s, fi->pc, reg_value(s, st, fi, fi->def_src3),
				       v, 1, 0, true);
		break;
	case DT_DEF_MUL:
		v = mul_value(s, fi->def_src >= 0 ? reg_value(s, st, fi, fi->def_src) :
				 fresh_int(s, st, i),
			      fi->value < 0 ? 0 - (uint64_t)fi->value : (uint64_t)fi->value);
		break;
	case DT_DEF_STORE:
		v = reg_value(s, st, fi, fi->def_src);
		if (!is_address(s, v)) {
			uint32_t home = spilled_value(s, st, fi);
			/* "str xzr, [sp, #8]", T *p = NULL at -O0: no register */
			if (home && fi->def_src >= 0 && fi->def_src < (int)a->ngpr)
				st->reg[fi->def_src] = v = home;	/* known now */
		}
		break;
	default:
		break;
	}
	/* a call's result, from its arguments before the call */
	uint32_t returned = fi->def == DT_DEF_CALL ? call_result(s, st, fi) : 0;
	/* "ldr x0, [x1], #8": the base moves on (by whole elements in a
	 * walk over an array) */
	uint32_t wb = fi->wb_reg >= 0 ?
		      add_const(s, reg_value(s, st, fi, fi->wb_reg), fi->wb_value) : 0;
	/* a load that is not a pointer, and anything else computed: an
	 * integer named by this instruction */
	if (sets && !v && (fi->def == DT_DEF_LOAD || fi->def == DT_DEF_OTHER))
		v = fresh_int(s, st, i);

	/* then what it overwrites: memory, implicit registers, calls */
	if (fi->mem_span && fi->def != DT_DEF_STORE) {
		int base = fi->mem_base;
		if (base == a->dwarf_sp || base == a->dwarf_fp)
			slots_kill(st, base, fi->mem_index >= 0, fi->mem_disp, fi->mem_span,
				   a->ptr_size);
	}
	for (int r = 0; r < (int)s->arch->ngpr; r++)
		if (fi->clobbers >> r & 1)
			set_reg(s, st, r, 0);
	if (fi->op == DT_OP_STACK && fi->flow != DT_FLOW_CALL)
		slots_kill_base(st, a->dwarf_sp);	/* push, pop: sp moved */
	if (fi->def == DT_DEF_CALL) {
		uint64_t lost = funcmap_call_clobbers(s, (uint64_t)fi->value);
		for (int r = 0; r < (int)s->arch->ngpr; r++)
			if (lost >> r & 1)
				st->reg[r] = 0;
		if (a->dwarf_retval >= 0 && a->dwarf_retval < (int)a->ngpr)
			st->reg[a->dwarf_retval] = returned;
	}
	if (fi->def == DT_DEF_STORE) {
		int base = fi->mem_base;
		if (is_slot_base(s, st, base)) {
			slots_kill(st, base, false, fi->mem_disp, a->ptr_size, a->ptr_size);
			slot_store(st, base, fi->mem_disp, v);
		} else if (base == a->dwarf_sp || base == a->dwarf_fp) {
			slots_kill(st, base, false, fi->mem_disp, a->ptr_size, a->ptr_size);
		}
	}
	if (fi->wb_reg >= 0)
		set_reg(s, st, fi->wb_reg, wb);
	if (sets) {
		bool frame = fi->def_dst == a->dwarf_fp && fi->def_src == a->dwarf_sp &&
			     (fi->def == DT_DEF_COPY || fi->def == DT_DEF_ADDI);
		set_reg(s, st, fi->def_dst, v);
		st->fp_frame = frame || (st->fp_frame && fi->def_dst != a->dwarf_fp);
	}
}

/* ---- the function's dataflow ---- */

static void state_unknown(struct tstate *st)
{
	memset(st, 0, sizeof(*st));
}

/* What two paths' values have in common: the same pointer type at the
 * same field (a loop's p++ moves by whole elements; the variable it came
 * from may differ), integers' common multiple, else unknown. */
static uint32_t meet_values(struct dt_session *s, uint32_t a, uint32_t b)
{
	struct tval va = value(s, a), vb = value(s, b);
	uint64_t size;

	if (va.kind == TV_INT && vb.kind == TV_INT) {
		uint64_t dc = magnitude(lin(va.c, vb.c, -1));
		return make_int_c(s, 0, gcd_u64(gcd_u64((uint64_t)va.n, (uint64_t)vb.n), dc),
				  va.c < vb.c ? va.c : vb.c);
	}
	if (va.kind != TV_PTR || vb.kind != TV_PTR || va.pointee.addr != vb.pointee.addr)
		return 0;
	uint64_t moved = va.n < vb.n ? (uint64_t)vb.n - (uint64_t)va.n :
				       (uint64_t)va.n - (uint64_t)vb.n;
	if (va.origin.addr != vb.origin.addr)
		va.origin = (Dwarf_Die){ 0 };
	if (!type_byte_size(&va.pointee, &size) || !size)
		return 0;
	if (moved % size || va.step != vb.step) {
		/* inside an element, known modulo a step (a member array's
		 * index moving round a loop) */
		uint64_t g = gcd_u64(gcd_u64(va.step, vb.step), moved % size ? moved : 0);
		if (g < 2 || (moved % size == 0 && g % size == 0))
			return 0;
		va.n = va.n < vb.n ? va.n : vb.n;
		va.step = g;
		va.strict = va.strict && vb.strict;
		return intern(s, &va);
	}
	/* moved by whole elements on one path: an array's elements */
	va.strict = va.n == vb.n && (va.strict || vb.strict);
	return intern(s, &va);
}

/* into = into meet from; true when into changed. */
static bool meet(struct dt_session *s, struct tstate *into, const struct tstate *from)
{
	bool changed = false;

	if (from->top)
		return false;
	if (into->top) {
		*into = *from;
		return true;
	}
	for (int r = 0; r < (int)s->arch->ngpr; r++) {
		uint32_t a = into->reg[r], b = from->reg[r];
		if (a == b || !a)
			continue;
		uint32_t m = meet_values(s, a, b);
		if (m != a) {
			into->reg[r] = m;
			changed = true;
		}
	}
	for (unsigned i = into->nslots; i-- > 0;) {
		struct slot *sl = &into->slot[i];
		struct slot *o = slot_find((struct tstate *)from, sl->base, sl->disp);
		if (!o || o->val != sl->val) {
			slot_drop(into, i);
			changed = true;
		}
	}
	if (into->fp_frame && !from->fp_frame) {
		into->fp_frame = false;
		slots_kill_base(into, s->arch->dwarf_fp);
		changed = true;
	}
	return changed;
}

static size_t packed_size(const struct tstate *st)
{
	size_t n = sizeof(struct packed_head) + st->nslots * sizeof(struct slot);

	for (int r = 0; r < TRACK_REGS; r++)
		n += st->reg[r] ? sizeof(uint32_t) : 0;
	return n;
}

/* entry[0..nb) into ts; without memory ts stays empty (no dataflow,
 * as for a function too large). */
static void pack_states(struct track_states *ts, const struct tstate *entry,
			size_t nb)
{
	size_t total = 0;

	for (size_t b = 0; b < nb; b++)
		total += entry[b].top ? 0 : packed_size(&entry[b]);
	if (total >= NO_STATE || !(ts->at = malloc(nb * sizeof(*ts->at))) ||
	    !(ts->packed = malloc(total ? total : 1))) {
		free(ts->at);
		ts->at = NULL;
		return;
	}
	uint8_t *p = ts->packed;
	for (size_t b = 0; b < nb; b++) {
		const struct tstate *st = &entry[b];
		if (st->top) {
			ts->at[b] = NO_STATE;
			continue;
		}
		ts->at[b] = (uint32_t)(p - ts->packed);
		struct packed_head h = { 0, st->nslots, st->fp_frame };
		uint8_t *q = p + sizeof(h);
		for (int r = 0; r < TRACK_REGS; r++)
			if (st->reg[r]) {
				h.known |= 1u << r;
				memcpy(q, &st->reg[r], sizeof(uint32_t));
				q += sizeof(uint32_t);
			}
		memcpy(q, st->slot, st->nslots * sizeof(struct slot));
		memcpy(p, &h, sizeof(h));
		p = q + st->nslots * sizeof(struct slot);
	}
}

/* Block b's entry state from ts; false when unreached. */
static bool unpack_state(const struct track_states *ts, size_t b,
			 struct tstate *st)
{
	struct packed_head h;

	if (ts->at[b] == NO_STATE)
		return false;
	const uint8_t *p = ts->packed + ts->at[b];
	memcpy(&h, p, sizeof(h));
	p += sizeof(h);
	state_unknown(st);
	for (int r = 0; r < TRACK_REGS; r++)
		if (h.known & (1u << r)) {
			memcpy(&st->reg[r], p, sizeof(uint32_t));
			p += sizeof(uint32_t);
		}
	st->nslots = h.nslots;
	st->fp_frame = h.fp_frame;
	memcpy(st->slot, p, h.nslots * sizeof(struct slot));
	return true;
}

static struct track_states *analyse(struct dt_session *s, const struct func_map *fm)
{
	struct track_states *ts = calloc(1, sizeof(*ts));
	size_t nb = fm->nblocks;

	if (!ts || fm->indirect_jumps || !nb || nb > MAX_BLOCKS)
		return ts;
	struct tstate *entry = calloc(nb, sizeof(*entry));
	uint32_t *work = calloc(nb, sizeof(*work));
	uint8_t *queued = calloc(nb, 1), *visits = calloc(nb, 1);
	if (!entry || !work || !queued || !visits)
		goto out;
	for (size_t b = 0; b < nb; b++)
		entry[b].top = true;
	/* on entry: what DWARF says of the registers (the parameters) */
	state_unknown(&entry[0]);
	for (int r = 0; r < (int)s->arch->ngpr; r++)
		if (r != s->arch->dwarf_sp && r != s->arch->dwarf_fp)
			entry[0].reg[r] = dwarf_value(s, fm->start, r);
	size_t head = 0, count = 1;
	work[0] = 0;
	queued[0] = 1;
	while (count) {
		uint32_t b = work[head];
		head = (head + 1) % nb;
		count--;
		queued[b] = 0;
		if (++visits[b] > MAX_VISITS) {
			session_debug(s, "function %#llx: dataflow does not settle",
				      (unsigned long long)fm->start);
			goto out;	/* cannot happen for a monotone meet */
		}
		struct tstate st = entry[b];
		enter_block(s, &st, b);
		for (uint32_t i = fm->blocks[b].first; i < fm->blocks[b].end; i++)
			transfer(s, fm, i, &st);
		for (int k = 0; k < 2; k++) {
			int32_t succ = fm->blocks[b].succ[k];
			if (succ < 0 || !meet(s, &entry[succ], &st) || queued[succ])
				continue;
			work[(head + count++) % nb] = (uint32_t)succ;
			queued[succ] = 1;
		}
	}
	pack_states(ts, entry, nb);
out:
	free(entry);
	free(work);
	free(queued);
	free(visits);
	return ts;
}

void track_states_free(struct track_states *t)
{
	if (!t)
		return;
	free(t->at);
	free(t->packed);
	free(t);
}

/* The state just before link-time pc, or false when pc is in no known
 * function. */
static bool state_at(struct dt_session *s, uint64_t pc, struct tstate *st)
{
	struct func_map *fm = s->no_track ? NULL : funcmap_get(s, pc);
	long i = fm ? func_map_index(fm, pc) : -1;

	if (i < 0)
		return false;
	struct track_values *tv = s->track_values;
	if (tv && tv->last && tv->last_pc == pc) {
		*st = *tv->last;
		return true;
	}
	if (!fm->track && !(fm->track = analyse(s, fm)))
		return false;
	size_t b = func_map_block(fm, (size_t)i);
	if (!fm->track->at || !unpack_state(fm->track, b, st))
		state_unknown(st);	/* unreached, or no dataflow */
	enter_block(s, st, b);
	for (uint32_t k = fm->blocks[b].first; k < (uint32_t)i; k++)
		transfer(s, fm, k, st);
	if ((tv = s->track_values) && (tv->last || (tv->last = malloc(sizeof(*st))))) {
		*tv->last = *st;
		tv->last_pc = pc;
	}
	return true;
}

/* What the dataflow proved of reg just before pc. */
static struct tval value_before(struct dt_session *s, uint64_t pc, int reg)
{
	struct tstate st;

	if (reg < 0 || reg >= (int)s->arch->ngpr || !state_at(s, pc, &st))
		return value(s, 0);
	return value(s, st.reg[reg]);
}

enum dt_reason track_register(struct dt_session *s, uint64_t pc, int reg,
			      struct var_hit *hit)
{
	struct tval v = value_before(s, pc, reg);

	if (v.kind != TV_PTR)
		return DT_NO_VAR;
	session_debug(s, "  reg %d at %#llx: tracked pointer, bias %lld", reg,
		      (unsigned long long)pc, (long long)v.n);
	memset(hit, 0, sizeof(*hit));
	hit->pointee = v.pointee;
	hit->typedef_name = v.typedef_name;
	hit->var = v.origin;
	hit->bias = -v.n;
	hit->strict = v.strict;
	hit->step = v.step;
	return DT_OK;
}

bool track_integer(struct dt_session *s, uint64_t pc, int reg, int64_t *c)
{
	struct tval v = value_before(s, pc, reg);

	if (v.kind != TV_INT || !v.c)
		return false;
	*c = v.c;
	return true;
}

uint64_t track_multiple_of(struct dt_session *s, uint64_t pc, int reg)
{
	struct tval v = value_before(s, pc, reg);

	return v.kind == TV_INT && v.n > 0 ? (uint64_t)v.n : 1;
}

bool track_address(struct dt_session *s, uint64_t pc, int reg, uint64_t *addr,
		   uint64_t *step)
{
	struct tval v = value_before(s, pc, reg);

	if (v.kind != TV_ADDR)
		return false;
	*addr = (uint64_t)v.n;
	*step = v.step;
	return true;
}
