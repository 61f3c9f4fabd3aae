// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Which variable holds the base register at pc: the compile unit for pc,
 * the nest of scopes around it (functions, lexical blocks, inlined calls),
 * then every variable and parameter of those scopes whose location at pc
 * is that register, or that register plus a constant.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../arrays.h"

#define MAX_SCOPES 64

/* A unit, its own ranges read once and merged (a compile or skeleton
 * unit's; other units hold no code): the same units are asked about for
 * every pc (each answer's, each callee's), and dwarf_haspc would read the
 * unit's range list every time (a kernel's units have dozens: .text,
 * .init.text, .noinstr.text...). */
struct unit_entry {
	Dwarf_Off off;
	Dwarf_Die die;
	struct unit_span *r;	/* sorted, disjoint */
	size_t n;
	enum { UNIT_NOT_CODE, UNIT_SPANS, UNIT_LIBDW } how;
};

struct unit_span {
	Dwarf_Addr lo, hi;
};

struct unit_table {
	struct unit_entry *v;
	size_t n, cap;
	uint32_t *slot;		/* open addressing by offset: arrays.h */
	size_t size;
};

static int span_cmp(const void *a, const void *b)
{
	const struct unit_span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* e's ranges, sorted and merged so that one search answers; UNIT_LIBDW
 * (dwarf_haspc each time) on an error or without memory. */
static void unit_spans(struct unit_entry *e)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t cap = 0, k = 0;

	e->how = UNIT_SPANS;
	while ((off = dwarf_ranges(&e->die, off, &base, &lo, &hi)) > 0)
		if (hi > lo) {
			if (GROW(e->r, cap, e->n, 8)) {
				off = -1;
				break;
			}
			e->r[e->n++] = (struct unit_span){ lo, hi };
		}
	if (off < 0) {
		free(e->r);
		*e = (struct unit_entry){ e->off, e->die, NULL, 0, UNIT_LIBDW };
		return;
	}
	if (e->n)
		qsort(e->r, e->n, sizeof(*e->r), span_cmp);
	for (size_t i = 0; i < e->n; i++) {
		if (k && e->r[i].lo <= e->r[k - 1].hi) {
			if (e->r[i].hi > e->r[k - 1].hi)
				e->r[k - 1].hi = e->r[i].hi;
		} else {
			e->r[k++] = e->r[i];
		}
	}
	e->n = k;
	FIT(e->r, cap, e->n);
}

/* The unit at offset off (a unit DIE's), read on first use; NULL
 * without memory or when off is no DIE. */
static struct unit_entry *unit_entry_at(struct dt_session *s, Dwarf_Off off)
{
	struct unit_table *t = s->scope.units;
	uint64_t h = hash_mix(HASH_SEED, off);
	uint32_t k;

	if (!t && !(t = s->scope.units = calloc(1, sizeof(*t))))
		return NULL;
	if ((k = INDEX_FIND(t->slot, t->size, h, i, t->v[i].off == off)))
		return &t->v[k - 1];
	if (INDEX_READY(t->slot, t->size, t->n, i, hash_mix(HASH_SEED, t->v[i].off)) ||
	    GROW(t->v, t->cap, t->n, 64))
		return NULL;
	struct unit_entry *e = &t->v[t->n];
	*e = (struct unit_entry){ .off = off };
	if (!dwarf_offdie(s->dwarf, off, &e->die))
		return NULL;
	int tag = dwarf_tag(&e->die);
	if (tag == DW_TAG_compile_unit || tag == DW_TAG_skeleton_unit)
		unit_spans(e);
	t->slot[INDEX_FREE(t->slot, t->size, h)] = (uint32_t)++t->n;
	return e;
}

void unit_table_free(struct unit_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].r);
	free(t->v);
	free(t->slot);
	free(t);
}

/* Whether unit e's own ranges hold pc, as dwarf_haspc would say. */
static bool unit_has_pc(const struct unit_entry *e, Dwarf_Addr pc)
{
	if (e->how == UNIT_LIBDW) {
		Dwarf_Die die = e->die;
		return dwarf_haspc(&die, pc) == 1;
	}
	size_t at = AT_OR_BELOW(e->n, i, e->r[i].lo, pc);
	return e->how == UNIT_SPANS && at && pc < e->r[at - 1].hi;
}

/* Every unit's address ranges (each unit's spans, as unit_entry_at read
 * them), sorted: for files without .debug_aranges (clang does not emit it
 * by default) and for addresses aranges lacks (PLT stubs, calls'
 * targets), built on the first such question, once (libdw's
 * dwarf_addrdie would build the same table first: 1.5% of a vmlinux run,
 * for callees in no unit). */
struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off cu;
};

struct cu_ranges {
	struct cu_range *r;
	size_t n, cap;
};

static int cu_range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void add_cu_range(struct cu_ranges *cr, Dwarf_Addr lo, Dwarf_Addr hi,
			 Dwarf_Off cu)
{
	if (hi > lo && !GROW(cr->r, cr->cap, cr->n, 64))
		cr->r[cr->n++] = (struct cu_range){ lo, hi, cu };
}

static struct cu_ranges *cu_ranges_build(struct dt_session *s)
{
	struct cu_ranges *cr = calloc(1, sizeof(*cr));
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!cr)
		return NULL;
	while (dwarf_nextcu(s->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		struct unit_entry *e = unit_entry_at(s, off + hsize);
		Dwarf_Addr base, lo, hi;
		ptrdiff_t roff = 0;
		for (size_t i = 0; e && e->how == UNIT_SPANS && i < e->n; i++)
			add_cu_range(cr, e->r[i].lo, e->r[i].hi, e->off);
		while (e && e->how == UNIT_LIBDW &&
		       (roff = dwarf_ranges(&e->die, roff, &base, &lo, &hi)) > 0)
			add_cu_range(cr, lo, hi, e->off);
		off = next;
	}
	if (cr->n)
		qsort(cr->r, cr->n, sizeof(*cr->r), cu_range_cmp);
	return cr;
}

void cu_ranges_free(struct cu_ranges *cr)
{
	if (!cr)
		return;
	free(cr->r);
	free(cr);
}

static bool cu_by_ranges(struct dt_session *s, Dwarf_Addr pc, Dwarf_Die *cu)
{
	struct cu_ranges *cr = s->scope.cu_ranges;
	struct unit_entry *e;

	if (!cr && !(cr = s->scope.cu_ranges = cu_ranges_build(s)))
		return false;
	/* ranges of different units do not overlap; look back a little in
	 * case a unit's range nests in another's */
	size_t at = AT_OR_BELOW(cr->n, i, cr->r[i].lo, pc);
	for (size_t i = at, k = 0; i > 0 && k < 4; i--, k++)
		if (pc < cr->r[i - 1].hi) {
			if (!(e = unit_entry_at(s, cr->r[i - 1].cu)))
				return false;
			*cu = e->die;
			return true;
		}
	return false;
}

/* The unit .debug_aranges names for pc, when that unit's own ranges hold
 * pc.  libdw's dwarf_addrdie reads every unit's DIE to build its table
 * (17 M instructions for perf's 369 units, more for libc's: half of a
 * small profile's naming), while .debug_aranges is one small table read
 * at once.  It may lack units (clang emits none unless asked), or be
 * wrong: then the unit is the one whose own ranges hold pc (cu_by_ranges:
 * the table dwarf_addrdie would build, built once more by it). */
static bool cu_by_aranges(struct dt_session *s, Dwarf_Addr pc, Dwarf_Die *cu)
{
	Dwarf_Arange *a;
	Dwarf_Off off;
	size_t n;
	struct unit_entry *e;

	if (!s->scope.aranges_read) {
		s->scope.aranges_read = true;
		if (dwarf_getaranges(s->dwarf, &s->scope.aranges, &n) != 0)
			s->scope.aranges = NULL;
	}
	if (!s->scope.aranges || !(a = dwarf_getarange_addr(s->scope.aranges, pc)) ||
	    dwarf_getarangeinfo(a, NULL, NULL, &off) != 0 ||
	    !(e = unit_entry_at(s, off)) || !unit_has_pc(e, pc))
		return false;
	*cu = e->die;
	return true;
}

/* The unit of a pc, as scope_cu found it: the same pcs are asked again
 * and again (an answer asks for its function, its variables, each
 * callee), and libdw's dwarf_addrdie searches its tree of units. */
#define UNIT_MEMO 4096		/* entries, a power of 2 */
struct unit_memo {
	Dwarf_Addr pc;
	Dwarf_Die cu;
	bool asked, found;
};

static struct unit_memo *unit_memo_at(struct dt_session *s, Dwarf_Addr pc);

bool scope_cu(struct dt_session *s, Dwarf_Addr pc, Dwarf_Die *cu)
{
	struct unit_memo *m = unit_memo_at(s, pc);

	if (m && m->asked && m->pc == pc) {
		if (m->found)
			*cu = m->cu;
		return m->found;
	}
	bool found = (cu_by_aranges(s, pc, cu) || cu_by_ranges(s, pc, cu)) &&
		     session_unit_die(s, cu);	/* split DWARF: the .dwo's unit */
	if (m)
		*m = (struct unit_memo){ pc, found ? *cu : (Dwarf_Die){ 0 }, true, found };
	return found;
}

bool scope_cu_outer(struct dt_session *s, Dwarf_Addr pc, Dwarf_Die *cu)
{
	return cu_by_aranges(s, pc, cu) || cu_by_ranges(s, pc, cu);
}

static bool is_code_scope(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_lexical_block:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		return true;
	default:
		return false;
	}
}

/* Append the chain of scopes containing pc below parent, outermost first. */
static size_t collect_scopes(Dwarf_Die *parent, Dwarf_Addr pc,
			     Dwarf_Die *scopes, size_t n)
{
	Dwarf_Die child;

	if (n >= MAX_SCOPES || dwarf_child(parent, &child) != 0)
		return n;
	do {
		int tag = dwarf_tag(&child);
		if (is_code_scope(tag)) {
			if (dwarf_haspc(&child, pc) == 1) {
				scopes[n++] = child;
				return collect_scopes(&scopes[n - 1], pc, scopes, n);
			}
		} else if (tag == DW_TAG_namespace) {
			size_t m = collect_scopes(&child, pc, scopes, n);
			if (m > n)
				return m;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/*
 * Per-CU index of the address ranges of its functions, built on the first
 * question about the CU: walking a large CU's top-level DIEs for every pc
 * costs far more than the rest of the answer.
 */
struct func_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off die;
	struct reg_homes *homes;	/* built on first question, or NULL */
};

struct cu_funcs {
	Dwarf_Off cu;
	struct func_range *r;
	size_t n, cap;
};

/* One answer of scope_find_memory_var: the dataflow asks about each
 * stack slot access again on every pass over its block. */
struct memvar_answer {
	Dwarf_Addr pc;
	int64_t disp;
	int reg;
	enum dt_reason reason;
	Dwarf_Die var;		/* valid when reason is DT_OK */
	uint64_t off;
};

struct scope_index {
	struct unit_memo *units;	/* UNIT_MEMO of them, by pc */
	struct cu_funcs *cus;	/* sorted by cu offset */
	size_t n, cap;
	struct func_range *last;	/* the function asked about last */
	struct memvar_answer *mv;	/* by (pc, reg, disp) */
	size_t nmv, mv_cap;
	uint32_t *mv_slot;	/* open addressing over mv: arrays.h */
	size_t mv_size;
	uint64_t homes_clock;	/* homes_at's questions: reg_homes.used */
	size_t homes_bytes;	/* in the functions' reg_homes */
	size_t nhomes;		/* functions with reg_homes */
	struct loc_list locs;	/* the location read last (homes_of_var) */
};

static void reg_homes_free(struct reg_homes *h);

static int add_range(struct cu_funcs *c, Dwarf_Addr lo, Dwarf_Addr hi,
		     Dwarf_Off die)
{
	if (GROW(c->r, c->cap, c->n, 64))
		return -1;
	c->r[c->n++] = (struct func_range){ lo, hi, die, NULL };
	return 0;
}

/* The ranges of it, a top-level entry of a unit or a namespace, into c
 * when it is a function with code. */
static void index_function(struct dt_session *s, struct die_children *it,
			   struct cu_funcs *c)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	Dwarf_Die *child;

	if (it->tag != DW_TAG_subprogram)
		return;
	if (children_pc_range(&s->walker, it, &lo, &hi)) {
		if (hi > lo && (child = children_die(it)))
			add_range(c, lo, hi, session_die_key(s, child));
		return;
	}
	/* without DW_AT_ranges, dwarf_ranges has none to give: a
	 * declaration, an inlined function's abstract body */
	if (!children_has(&s->walker, it, DW_AT_ranges) || !(child = children_die(it)))
		return;
	while ((off = dwarf_ranges(child, off, &base, &lo, &hi)) > 0)
		if (hi > lo)
			add_range(c, lo, hi, session_die_key(s, child));
}

static void index_functions(struct dt_session *s, Dwarf_Die *parent,
			    struct die_children *parent_c, struct cu_funcs *c,
			    int depth)
{
	struct die_children it;

	if (depth > MAX_NAMESPACE_DEPTH ||
	    !children_first_in(&s->walker, parent, parent_c, &it))
		return;
	do {
		if (it.tag == DW_TAG_namespace) {
			struct die_children ns = it;
			index_functions(s, NULL, &ns, c, depth + 1);
		} else {
			index_function(s, &it, c);
		}
	} while (children_next(&s->walker, &it));
}

static int range_cmp(const void *a, const void *b)
{
	const struct func_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The session's index, made empty on first use; NULL without memory. */
static struct scope_index *scope_index_get(struct dt_session *s)
{
	if (!s->scope.index)
		s->scope.index = calloc(1, sizeof(*s->scope.index));
	return s->scope.index;
}

static struct unit_memo *unit_memo_at(struct dt_session *s, Dwarf_Addr pc)
{
	struct scope_index *ix = scope_index_get(s);

	if (!ix || (!ix->units && !(ix->units = calloc(UNIT_MEMO, sizeof(*ix->units)))))
		return NULL;
	return &ix->units[hash_mix(HASH_SEED, pc) & (UNIT_MEMO - 1)];
}

/* The index's entry of unit off, or where it goes (*found false). */
static size_t cu_slot(const struct scope_index *ix, Dwarf_Off off, bool *found)
{
	size_t lo = AT_OR_BELOW(ix->n, i, ix->cus[i].cu, off);

	*found = lo && ix->cus[lo - 1].cu == off;
	return *found ? lo - 1 : lo;
}

/* The function ranges of one unit, all read, into the index (sorted);
 * NULL without memory (the ranges freed). */
static struct cu_funcs *cu_insert(struct dt_session *s, struct scope_index *ix,
				  struct cu_funcs *c)
{
	bool found;
	size_t at = cu_slot(ix, c->cu, &found);

	if (found || GROW(ix->cus, ix->cap, ix->n, 16)) {
		free(c->r);	/* found: indexed again, the same */
		return found ? &ix->cus[at] : NULL;
	}
	if (c->n)	/* qsort of NULL is undefined, even for 0 */
		qsort(c->r, c->n, sizeof(*c->r), range_cmp);
	session_debug(s, "CU <%#llx>: indexed %zu function ranges",
		      (unsigned long long)c->cu, c->n);
	memmove(&ix->cus[at + 1], &ix->cus[at], (ix->n - at) * sizeof(*ix->cus));
	ix->n++;
	ix->cus[at] = *c;
	return &ix->cus[at];
}

static struct cu_funcs *cu_index(struct dt_session *s, Dwarf_Die *cu)
{
	struct scope_index *ix = scope_index_get(s);
	bool found;

	if (!ix)
		return NULL;
	struct cu_funcs c = { .cu = session_die_key(s, cu) };
	size_t at = cu_slot(ix, c.cu, &found);
	if (found)
		return &ix->cus[at];
	index_functions(s, cu, NULL, &c, 0);
	return cu_insert(s, ix, &c);
}

struct cu_funcs *scope_unit_begin(struct dt_session *s, Dwarf_Die *cu)
{
	struct scope_index *ix = scope_index_get(s);
	struct cu_funcs *c;
	bool found;

	if (!ix)
		return NULL;
	Dwarf_Off off = session_die_key(s, cu);
	cu_slot(ix, off, &found);
	if (found || !(c = calloc(1, sizeof(*c))))
		return NULL;
	c->cu = off;
	return c;
}

void scope_unit_entry(struct dt_session *s, struct cu_funcs *c,
		      struct die_children *it)
{
	index_function(s, it, c);
}

void scope_unit_end(struct dt_session *s, struct cu_funcs *c)
{
	struct scope_index *ix = scope_index_get(s);

	if (ix)
		cu_insert(s, ix, c);
	else
		free(c->r);
	free(c);
}

void scope_index_free(struct scope_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->n; i++) {
		for (size_t k = 0; k < ix->cus[i].n; k++)
			reg_homes_free(ix->cus[i].r[k].homes);
		free(ix->cus[i].r);
	}
	free(ix->cus);
	free(ix->units);
	free(ix->mv);
	free(ix->mv_slot);
	free(ix->locs.v);
	free(ix);
}

/* The function containing pc through the index; false when none. */
static struct func_range *range_at(struct dt_session *s, Dwarf_Die *cu,
					  Dwarf_Addr pc)
{
	struct cu_funcs *c = cu_index(s, cu);

	if (!c)
		return NULL;
	/* last range starting at or below pc; ranges do not overlap */
	size_t lo = AT_OR_BELOW(c->n, i, c->r[i].lo, pc);
	return lo > 0 && pc < c->r[lo - 1].hi ? &c->r[lo - 1] : NULL;
}

static bool function_at(struct dt_session *s, Dwarf_Die *cu, Dwarf_Addr pc,
			Dwarf_Die *fn)
{
	struct func_range *r = range_at(s, cu, pc);

	return r && session_offdie(s, r->die, fn);
}

bool scope_function_entry(struct dt_session *s, Dwarf_Addr pc, Dwarf_Die *fn)
{
	Dwarf_Die cu;
	const struct func_range *r;

	return s->dwarf && scope_cu(s, pc, &cu) && (r = range_at(s, &cu, pc)) &&
	       r->lo == pc && session_offdie(s, r->die, fn);
}

bool scope_function_range(struct dt_session *s, Dwarf_Addr pc,
			  Dwarf_Addr *lo, Dwarf_Addr *hi)
{
	Dwarf_Die cu;
	const struct func_range *r;

	if (!s->dwarf || !scope_cu(s, pc, &cu) || !(r = range_at(s, &cu, pc)))
		return false;
	*lo = r->lo;
	*hi = r->hi;
	return true;
}

/* Location expression e (of attribute attr) is "reg" (the value is the
 * register), "breg k; stack_value" (the value is register + k), an
 * entry value of a register (entry), or has an 8-byte piece in register
 * want (at *piece_off of the variable). */
static bool expr_in_reg(Dwarf_Attribute *attr, Dwarf_Op *e, size_t len,
			int want, int *reg, int64_t *bias, uint64_t *piece_off,
			bool *entry)
{
	*piece_off = 0;
	*entry = false;
	/* "DW_OP_reg5 DW_OP_piece 8": a whole pointer in one register */
	if (len == 2 && e[1].atom == DW_OP_piece && e[1].number == 8)
		len = 1;
	if (len == 1 && e[0].atom >= DW_OP_reg0 && e[0].atom <= DW_OP_reg31) {
		*reg = e[0].atom - DW_OP_reg0;
		*bias = 0;
		return true;
	}
	if (len == 1 && e[0].atom == DW_OP_regx) {
		*reg = (int)e[0].number;
		*bias = 0;
		return true;
	}
	if (len == 2 && e[1].atom == DW_OP_stack_value) {
		if (e[0].atom >= DW_OP_breg0 && e[0].atom <= DW_OP_breg31) {
			*reg = e[0].atom - DW_OP_breg0;
			*bias = (int64_t)e[0].number;
			return true;
		}
		if (e[0].atom == DW_OP_bregx) {
			*reg = (int)e[0].number;
			*bias = (int64_t)e[0].number2;
			return true;
		}
	}
	/* "DW_OP_entry_value(DW_OP_reg5) DW_OP_stack_value": what the
	 * register held on entry, which is the register at the entry pc */
	if (len == 2 && e[1].atom == DW_OP_stack_value &&
	    (e[0].atom == DW_OP_entry_value || e[0].atom == DW_OP_GNU_entry_value)) {
		Dwarf_Attribute inner;
		Dwarf_Op *ie;
		size_t ilen;
		if (dwarf_getlocation_attr(attr, &e[0], &inner) == 0 &&
		    dwarf_getlocation(&inner, &ie, &ilen) == 0 && ilen == 1 &&
		    ie[0].atom >= DW_OP_reg0 && ie[0].atom <= DW_OP_reg31) {
			*reg = ie[0].atom - DW_OP_reg0;
			*bias = 0;
			*entry = true;
			return true;
		}
	}
	/* A composite in registers, "DW_OP_reg5 DW_OP_piece 8 DW_OP_reg4
	 * DW_OP_piece 8" (a Rust slice, a small struct by value): the
	 * 8-byte piece in the wanted register, at its offset in the var. */
	uint64_t off = 0;
	for (size_t i = 0; i + 1 < len; i += 2) {
		int r = e[i].atom >= DW_OP_reg0 && e[i].atom <= DW_OP_reg31 ?
			e[i].atom - DW_OP_reg0 :
			e[i].atom == DW_OP_regx ? (int)e[i].number : -1;
		if (e[i + 1].atom != DW_OP_piece)
			return false;
		if (r == want && e[i + 1].number == 8) {
			*reg = r;
			*bias = 0;
			*piece_off = off;
			return true;
		}
		off += e[i + 1].number;
	}
	return false;
}

/* The registers (below 32) location expression e may hold a variable in:
 * the one of a register, register-plus-constant or entry-value form, or
 * each piece's of a composite; as a bit mask. */
static uint32_t expr_registers(Dwarf_Attribute *attr, Dwarf_Op *e, size_t len)
{
	int reg;
	int64_t bias;
	uint64_t piece;
	bool entry;
	uint32_t mask = 0;

	if (expr_in_reg(attr, e, len, -1, &reg, &bias, &piece, &entry))
		return reg >= 0 && reg < 32 ? 1u << reg : 0;
	for (size_t i = 0; i + 1 < len && e[i + 1].atom == DW_OP_piece; i += 2) {
		int r = e[i].atom >= DW_OP_reg0 && e[i].atom <= DW_OP_reg31 ?
			e[i].atom - DW_OP_reg0 :
			e[i].atom == DW_OP_regx ? (int)e[i].number : -1;
		if (r >= 0 && r < 32)
			mask |= 1u << r;
	}
	return mask;
}

/* The data type a pointer type points to.  Typedefs are peeled but the
 * last one's name is kept: an anonymous struct is known by it. */
bool type_pointee(Dwarf_Die *type, Dwarf_Die *pointee,
		  const char **typedef_name)
{
	Dwarf_Die t;
	int tag;

	if (!type_peel(type, &t) || !type_wrapped_pointer(&t, &t, 0))
		return false;
	if (!die_type(&t, &t) || !type_peel_named(&t, &t, typedef_name))
		return false;	/* void *, or a typedef of void */
	tag = dwarf_tag(&t);
	if (tag == DW_TAG_subroutine_type || tag == DW_TAG_unspecified_type)
		return false;
	*pointee = t;
	return true;
}

static bool pointee_of(Dwarf_Die *var, Dwarf_Die *pointee,
		       const char **typedef_name)
{
	Dwarf_Die t;

	return die_type(var, &t) && type_pointee(&t, pointee, typedef_name);
}

static bool is_variable(int tag)
{
	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

/* The CU at pc and its scopes around pc, outermost (the function) first. */
static bool scopes_at(struct dt_session *s, Dwarf_Addr pc, Dwarf_Die *cu,
		      Dwarf_Die *scopes, size_t *n)
{
	*n = 0;
	if (!scope_cu(s, pc, cu)) {
		session_debug(s, "pc %#llx: no CU", (unsigned long long)pc);
		return false;
	}
	if (function_at(s, cu, pc, &scopes[0]))
		*n = collect_scopes(&scopes[0], pc, scopes, 1);
	session_debug(s, "pc %#llx: CU <%#llx>, %zu scopes",
		      (unsigned long long)pc,
		      (unsigned long long)dwarf_dieoffset(cu), *n);
	return true;
}

/*
 * Where a function's variables live in registers, read once per function
 * from their location lists: asking libdw about every variable at every
 * pc costs more than the rest of the dataflow.
 */
struct reg_home {
	Dwarf_Addr lo, hi;	/* the variable is there in [lo, hi) */
	Dwarf_Die var;
	Dwarf_Die pointee;	/* valid when typed */
	const char *typedef_name;
	int64_t bias;
	unsigned depth;		/* of its scope: innermost answers first */
	unsigned seq;		/* order of reading, kept within a register */
	int reg;
	bool typed;		/* a data pointer (or has one at the piece) */
	bool entry_only;	/* DW_OP_entry_value(reg): at the entry pc */
};


/* The function's code scopes (itself, lexical blocks, inlined calls), in
 * the order of the DIEs, as a tree; and its variables that may live in
 * memory, each with its scope.  Which stack variable an access reads is
 * then found without walking the DIEs again for every question. */
#define NO_SCOPE UINT32_MAX
struct code_scope {
	Dwarf_Die die;
	uint32_t first_child, next_sibling, last_child;
	/* its code's ranges, read when first asked (dwarf_haspc decodes
	 * them at every question): reg_homes.ranges[range0, + nranges) */
	uint32_t range0;
	uint8_t nranges;
	uint8_t ranges_read;	/* enum scope_ranges */
};

enum scope_ranges {
	RANGES_UNREAD,
	RANGES_KEPT,		/* in reg_homes.ranges */
	RANGES_LIBDW,		/* too many, or no memory: dwarf_haspc */
};
#define MAX_SCOPE_RANGES 32

struct pc_range {
	Dwarf_Addr lo, hi;
};

struct memory_var {
	Dwarf_Die var;
	uint32_t scope;
};

struct reg_homes {
	struct reg_home *h;	/* sorted by register */
	size_t n, cap;
	size_t by_reg[33];	/* register r's homes: [by_reg[r], by_reg[r+1]) */
	Dwarf_Addr entry;	/* the function's entry pc */
	struct code_scope *scopes;	/* [0]: the function; kept when some
					 * variable may live in memory */
	size_t nscopes, scopes_cap;
	struct memory_var *mvars;	/* those variables (fbreg, breg) */
	size_t nmvars, mvars_cap;
	struct pc_range *ranges;	/* the scopes' asked about */
	size_t nranges, ranges_cap;
	bool odd_scopes;	/* a namespace among them: DIEs walked instead */
	unsigned by_libdw;	/* locations loclist.c left to libdw */
	uint64_t used;		/* homes_clock when last asked for */
	size_t bytes;		/* as built (its ranges come later: few) */
};

static void reg_homes_free(struct reg_homes *h)
{
	if (!h)
		return;
	free(h->h);
	free(h->scopes);
	free(h->mvars);
	free(h->ranges);
	free(h);
}

/* A code scope under parent (NO_SCOPE: the function); its index, or
 * NO_SCOPE without memory. */
static uint32_t add_scope(struct reg_homes *rh, Dwarf_Die *die, uint32_t parent)
{
	if (rh->nscopes >= NO_SCOPE - 1 ||
	    GROW(rh->scopes, rh->scopes_cap, rh->nscopes, 16))
		return NO_SCOPE;
	uint32_t i = (uint32_t)rh->nscopes++;
	rh->scopes[i] = (struct code_scope){ *die, NO_SCOPE, NO_SCOPE, NO_SCOPE,
					     0, 0, RANGES_UNREAD };
	if (parent != NO_SCOPE) {
		struct code_scope *p = &rh->scopes[parent];
		if (p->last_child == NO_SCOPE)
			p->first_child = i;
		else
			rh->scopes[p->last_child].next_sibling = i;
		p->last_child = i;
	}
	return i;
}

/* Whether scope i's code holds pc, as dwarf_haspc says, its ranges read
 * once. */
/* A code scope's ranges into r (MAX_SCOPE_RANGES of them): how many, or
 * -1 when there are more, or libdw fails (then ask libdw each time). */
static int read_scope_ranges(Dwarf_Die *scope, struct pc_range *r)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int n = 0;

	while ((off = dwarf_ranges(scope, off, &base, &lo, &hi)) > 0) {
		if (n == MAX_SCOPE_RANGES)
			return -1;
		r[n++] = (struct pc_range){ lo, hi };
	}
	return off < 0 ? -1 : n;
}

static bool scope_has_pc(struct reg_homes *rh, uint32_t i, Dwarf_Addr pc)
{
	struct code_scope *sc = &rh->scopes[i];

	if (sc->ranges_read == RANGES_UNREAD) {
		struct pc_range r[MAX_SCOPE_RANGES];
		int n = read_scope_ranges(&sc->die, r);
		size_t first = rh->nranges;
		sc->ranges_read = n < 0 ? RANGES_LIBDW : RANGES_KEPT;
		for (int k = 0; k < n && sc->ranges_read == RANGES_KEPT; k++) {
			if (GROW(rh->ranges, rh->ranges_cap, rh->nranges, 16))
				sc->ranges_read = RANGES_LIBDW;	/* no memory */
			else
				rh->ranges[rh->nranges++] = r[k];
		}
		if (sc->ranges_read == RANGES_LIBDW) {
			rh->nranges = first;
		} else {
			sc->range0 = (uint32_t)first;
			sc->nranges = (uint8_t)(rh->nranges - first);
		}
	}
	if (sc->ranges_read == RANGES_LIBDW)
		return dwarf_haspc(&sc->die, pc) == 1;
	for (uint32_t k = 0; k < sc->nranges; k++) {
		const struct pc_range *r = &rh->ranges[sc->range0 + k];
		if (r->lo <= pc && pc < r->hi)
			return true;
	}
	return false;
}

static int home_cmp(const void *a, const void *b)
{
	const struct reg_home *x = a, *y = b;

	if (x->reg != y->reg)
		return x->reg < y->reg ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;	/* scope order */
}

static int add_home(struct reg_homes *rh, const struct reg_home *home)
{
	if (GROW(rh->h, rh->cap, rh->n, 32))
		return -1;
	rh->h[rh->n] = *home;
	rh->h[rh->n].seq = (unsigned)rh->n;
	rh->n++;
	return 0;
}

/* The code scope whose variables are walked: its ranges read once for
 * all their location entries (n -1: ask libdw each time). */
struct walked_scope {
	Dwarf_Die *scope;
	bool read;
	int n;
	struct pc_range r[MAX_SCOPE_RANGES];
};

/* h, for each part of [start, end) inside the scope */
static void add_home_in_scope(struct reg_homes *rh, struct reg_home *h,
			      struct walked_scope *sr, Dwarf_Addr start,
			      Dwarf_Addr end)
{
	if (!sr->read) {
		sr->read = true;
		sr->n = read_scope_ranges(sr->scope, sr->r);
	}
	if (sr->n < 0) {
		Dwarf_Addr rb, lo, hi;
		ptrdiff_t roff = 0;
		while ((roff = dwarf_ranges(sr->scope, roff, &rb, &lo, &hi)) > 0) {
			h->lo = lo > start ? lo : start;
			h->hi = hi < end ? hi : end;
			if (h->lo < h->hi)
				add_home(rh, h);
		}
		return;
	}
	for (int i = 0; i < sr->n; i++) {
		h->lo = sr->r[i].lo > start ? sr->r[i].lo : start;
		h->hi = sr->r[i].hi < end ? sr->r[i].hi : end;
		if (h->lo < h->hi)
			add_home(rh, h);
	}
}

/* What homes_of_var learns of a variable across its location's entries. */
struct var_seen {
	bool whole_asked, whole_typed;	/* pointee_of asked, answered */
	Dwarf_Die whole_pointee;
	const char *whole_typedef;
	bool in_memory;			/* some entry puts it in memory */
};

/* The register locations of variable v (location attribute attr) in one
 * entry of its location, e[0..len) over [start, end). */
static void homes_of_entry(struct dt_session *s, struct reg_homes *rh,
			   Dwarf_Die *v, Dwarf_Attribute *attr,
			   struct walked_scope *sr, unsigned depth,
			   Dwarf_Addr start, Dwarf_Addr end, Dwarf_Op *e,
			   size_t len, struct var_seen *vs)
{
	for (size_t i = 0; i < len; i++)
		vs->in_memory |= e[i].atom == DW_OP_fbreg ||
				 ((e[i].atom == DW_OP_bregx ||
				   (e[i].atom >= DW_OP_breg0 && e[i].atom <= DW_OP_breg31)) &&
				  !(i + 1 < len && e[i + 1].atom == DW_OP_stack_value));
	uint32_t regs = expr_registers(attr, e, len);
	for (int want = 0; want < 32; want++) {
		if (!(regs >> want & 1))
			continue;
		struct reg_home h = { .var = *v, .depth = depth };
		uint64_t piece;
		Dwarf_Die vt, member;
		if (!expr_in_reg(attr, e, len, want, &h.reg, &h.bias, &piece,
				 &h.entry_only) || h.reg != want)
			continue;
		/* the variable is the pointer, or (a fat pointer, a struct
		 * by value) has one at the piece's offset; the former asked
		 * once per variable */
		if (piece == 0 && !vs->whole_asked) {
			vs->whole_asked = true;
			vs->whole_typed = pointee_of(v, &vs->whole_pointee,
						     &vs->whole_typedef);
		}
		if (piece == 0 && vs->whole_typed) {
			h.typed = true;
			h.pointee = vs->whole_pointee;
			h.typedef_name = vs->whole_typedef;
		} else {
			h.typed = die_type(v, &vt) &&
				  type_member_type_at(s, &vt, piece, &member) &&
				  type_pointee(&member, &h.pointee, &h.typedef_name);
		}
		/* where the scope and the location both hold (a list may
		 * run past its block; one expression is the whole scope's) */
		add_home_in_scope(rh, &h, sr, start, end);
	}
}

/* Every register location of variable it->die declared in sr's scope,
 * at depth: its location read by loclist.c, else by libdw. */
static void homes_of_var(struct dt_session *s, struct reg_homes *rh,
			 struct die_children *it, struct walked_scope *sr,
			 unsigned depth, uint32_t scope_idx)
{
	Dwarf_Attribute attr;	/* libdw's: what its expressions point to */
	struct var_seen vs = { 0 };
	struct loc_list *l = &s->scope.index->locs;
	struct loc_unit lu;
	const unsigned char *expr, *value;
	size_t len;
	unsigned addr_size, form;
	Dwarf_Die *v;

	if (!children_has(&s->walker, it, DW_AT_location) || !(v = children_die(it)) ||
	    !dwarf_attr(v, DW_AT_location, &attr))
		return;
	bool mine = children_loc_unit(&s->walker, it, &lu) &&
		    ((expr = children_block(&s->walker, it, DW_AT_location, &len,
					    &addr_size)) ?
		     loc_expr(&lu, expr, len, l) :
		     children_value(&s->walker, it, DW_AT_location, &form, &value) &&
		     loc_entries(&lu, form, value, l));
	if (mine) {
		for (size_t i = 0; i < l->n; i++)
			homes_of_entry(s, rh, v, &attr, sr, depth, l->v[i].start,
				       l->v[i].end, l->v[i].ops, l->v[i].nops, &vs);
	} else {
		Dwarf_Addr base, start, end;
		Dwarf_Op *e;
		size_t n;
		ptrdiff_t off = 0;
		rh->by_libdw++;
		while ((off = dwarf_getlocations(&attr, off, &base, &start, &end,
						 &e, &n)) > 0)
			homes_of_entry(s, rh, v, &attr, sr, depth, start, end, e,
				       n, &vs);
	}
	/* a candidate for find_memory_var: only such a location can put it
	 * in memory there */
	if (vs.in_memory && !GROW(rh->mvars, rh->mvars_cap, rh->nmvars, 8))
		rh->mvars[rh->nmvars++] = (struct memory_var){ *v, scope_idx };
}

static void homes_of_scope(struct dt_session *s, struct reg_homes *rh,
			   Dwarf_Die *scope, unsigned depth, uint32_t scope_idx)
{
	struct die_children it;
	struct walked_scope sr = { .scope = scope };

	if (depth >= MAX_SCOPES || !children_first(&s->walker, scope, &it))
		return;
	do {
		int tag = it.tag;
		Dwarf_Die *c;
		if (is_variable(tag)) {
			homes_of_var(s, rh, &it, &sr, depth, scope_idx);
		} else if (is_code_scope(tag) && (c = children_die(&it))) {
			/* collect_scopes() goes no deeper than MAX_SCOPES */
			Dwarf_Die body = *c;
			uint32_t child = depth + 1 < MAX_SCOPES ?
					 add_scope(rh, &body, scope_idx) : NO_SCOPE;
			homes_of_scope(s, rh, &body, depth + 1, child);
		} else if (tag == DW_TAG_namespace) {
			rh->odd_scopes = true;
		}
	} while (children_next(&s->walker, &it));
}

static bool scope_cu_known(struct dt_session *s, Dwarf_Addr pc)
{
	Dwarf_Die cu;

	return scope_cu(s, pc, &cu);
}

/* The register homes of the function around DWARF address pc. */
static struct reg_homes *homes_at(struct dt_session *s, Dwarf_Addr pc)
{
	struct scope_index *ix = s->scope.index;
	struct func_range *r = ix && ix->last && ix->last->lo <= pc &&
			       pc < ix->last->hi ? ix->last : NULL;
	Dwarf_Die cu, fn;

	if (!r) {
		if (!scope_cu(s, pc, &cu) || !(r = range_at(s, &cu, pc)))
			return NULL;
		s->scope.index->last = r;
	}
	if (r->homes) {
		r->homes->used = ++s->scope.index->homes_clock;
		return r->homes;
	}
	if (!session_offdie(s, r->die, &fn))
		return NULL;
	struct reg_homes *rh = calloc(1, sizeof(*rh));
	if (!rh)
		return NULL;
	if (dwarf_entrypc(&fn, &rh->entry) != 0)
		rh->entry = r->lo;
	homes_of_scope(s, rh, &fn, 0, add_scope(rh, &fn, NO_SCOPE));
	if (!rh->nmvars) {		/* no question will need them */
		free(rh->scopes);
		rh->scopes = NULL;
		rh->nscopes = rh->scopes_cap = 0;
	}
	FIT(rh->scopes, rh->scopes_cap, rh->nscopes);
	FIT(rh->mvars, rh->mvars_cap, rh->nmvars);
	FIT(rh->h, rh->cap, rh->n);
	if (rh->n)	/* stable within a register: scope order kept */
		qsort(rh->h, rh->n, sizeof(*rh->h), home_cmp);
	for (int reg = 0, i = 0; reg <= 32; reg++) {
		while ((size_t)i < rh->n && rh->h[i].reg < reg)
			i++;
		rh->by_reg[reg] = (size_t)i;
	}
	session_debug(s, "function <%#llx>: %zu register locations (%u variables' "
		      "locations read by libdw)", (unsigned long long)r->die, rh->n,
		      rh->by_libdw);
	rh->bytes = sizeof(*rh) + rh->n * sizeof(*rh->h) +
		    rh->nscopes * sizeof(*rh->scopes) + rh->nmvars * sizeof(*rh->mvars);
	rh->used = ++s->scope.index->homes_clock;
	s->scope.index->homes_bytes += rh->bytes;
	s->scope.index->nhomes++;
	return r->homes = rh;
}

/* The register homes of functions not asked about lately are freed past
 * a budget: a kernel's questions span thousands of functions (24 MB of
 * homes in a vmlinux run), most asked about for a few instructions, then
 * never again. */
#define HOMES_KEPT_BYTES (8u << 20)	/* and s->keep_functions */

void scope_trim(struct dt_session *s)
{
	struct scope_index *ix = s->scope.index;
	struct lru_item *v;
	size_t n = 0;

	if (!ix || (ix->nhomes <= s->keep_functions && ix->homes_bytes <= HOMES_KEPT_BYTES) ||
	    !(v = malloc(ix->nhomes * sizeof(*v))))
		return;
	for (size_t i = 0; i < ix->n; i++)
		for (size_t k = 0; k < ix->cus[i].n; k++)
			if (ix->cus[i].r[k].homes && n < ix->nhomes)
				v[n++] = (struct lru_item){ ix->cus[i].r[k].homes->used,
							    ix->cus[i].r[k].homes->bytes };
	uint64_t oldest = lru_cutoff(v, n, s->keep_functions, HOMES_KEPT_BYTES);
	free(v);
	for (size_t i = 0; i < ix->n; i++)
		for (size_t k = 0; k < ix->cus[i].n; k++) {
			struct reg_homes *rh = ix->cus[i].r[k].homes;
			if (rh && rh->used < oldest) {
				ix->homes_bytes -= rh->bytes;
				ix->nhomes--;
				reg_homes_free(rh);
				ix->cus[i].r[k].homes = NULL;
			}
		}
	session_debug(s, "register homes of %zu functions freed, %zu kept",
		      n - ix->nhomes, ix->nhomes);
}

enum dt_reason scope_find_vars(struct dt_session *s, Dwarf_Addr pc, int reg,
			       struct var_hit *hits, size_t max,
			       size_t *nhits)
{
	struct reg_homes *rh = homes_at(s, pc);
	bool reg_matched = false;
	unsigned depth[MAX_SCOPES > 64 ? MAX_SCOPES : 64];

	*nhits = 0;
	if (!rh)
		return scope_cu_known(s, pc) ? DT_NO_VAR : DT_NO_CU;
	if (reg < 0 || reg >= 32)
		return DT_NO_VAR;
	for (size_t i = rh->by_reg[reg]; i < rh->by_reg[reg + 1]; i++) {
		const struct reg_home *h = &rh->h[i];
		if (pc < h->lo || pc >= h->hi ||
		    (h->entry_only && pc != rh->entry))
			continue;
		reg_matched = true;
		if (!h->typed || *nhits >= max || *nhits >= 64)
			continue;
		/* innermost scope first: a block's local shadows the parameter */
		size_t at = *nhits;
		while (at > 0 && depth[at - 1] < h->depth) {
			hits[at] = hits[at - 1];
			depth[at] = depth[at - 1];
			at--;
		}
		hits[at] = (struct var_hit){ .var = h->var, .pointee = h->pointee,
					     .typedef_name = h->typedef_name,
					     .bias = h->bias,
					     .strict = true };
		depth[at] = h->depth;
		++*nhits;
		session_debug(s, "  var <%#llx> in reg %d%+lld",
			      (unsigned long long)dwarf_dieoffset(&hits[at].var),
			      reg, (long long)h->bias);
	}
	if (*nhits)
		return DT_OK;
	return reg_matched ? DT_NO_TYPE : DT_NO_VAR;
}

/* ---- variables in memory relative to a register: the stack frame ---- */

/* A register plus a constant. */
struct reg_offset {
	int reg;
	int64_t off;
};

static bool op_reg_offset(const Dwarf_Op *op, struct reg_offset *ro)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*ro = (struct reg_offset){ op->atom - DW_OP_breg0, (int64_t)op->number };
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*ro = (struct reg_offset){ (int)op->number, (int64_t)op->number2 };
		return true;
	}
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		*ro = (struct reg_offset){ op->atom - DW_OP_reg0, 0 };
		return true;
	}
	return false;
}

/* The CFA at pc as register + offset, from .eh_frame or .debug_frame. */
static bool cfa_at(struct dt_session *s, Dwarf_Addr pc, struct reg_offset *cfa)
{
	if (!s->scope.cfi_looked) {
		s->scope.cfi[0] = dwfl_module_eh_cfi(s->mod, &s->scope.cfi_bias[0]);
		s->scope.cfi[1] = dwfl_module_dwarf_cfi(s->mod, &s->scope.cfi_bias[1]);
		s->scope.cfi_looked = true;
	}
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *frame;
		Dwarf_Op *ops;
		size_t nops;
		if (!s->scope.cfi[i] ||
		    dwarf_cfi_addrframe(s->scope.cfi[i], pc - (uint64_t)s->dwarf_adjust +
					s->elf_bias - s->scope.cfi_bias[i], &frame))
			continue;
		bool ok = dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 &&
			  op_reg_offset(&ops[0], cfa);
		free(frame);
		if (ok)
			return true;
	}
	return false;
}

/* The function's frame base (DW_AT_frame_base) as register + offset. */
static bool frame_base(struct dt_session *s, Dwarf_Die *fn, Dwarf_Addr pc,
		       struct reg_offset *fb)
{
	Dwarf_Attribute attr;
	Dwarf_Op *e;
	size_t n;

	if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &e, &n, 1) != 1 || n != 1)
		return false;
	if (e[0].atom == DW_OP_call_frame_cfa)
		return cfa_at(s, pc, fb);
	return op_reg_offset(&e[0], fb);
}

/*
 * Where variable v lies in memory relative to register reg at pc: for
 * each piece in memory at reg + k (DW_OP_fbreg via the frame base, or
 * DW_OP_bregN without stack_value), whether rel = the access's offset
 * from reg falls in it, and at which offset of the variable.
 */
static bool var_at_offset(Dwarf_Die *v, Dwarf_Addr pc, int reg, int64_t disp,
			  const struct reg_offset *fb, uint64_t *var_off)
{
	Dwarf_Attribute attr;
	Dwarf_Op *e;
	size_t n;
	uint64_t piece_start = 0, size = 0;
	Dwarf_Die t;

	if (!dwarf_attr(v, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &e, &n, 1) != 1 || !n)
		return false;
	/* the variable's size, asked only when a piece may hold the access
	 * (most candidates are elsewhere); none: no answer, as always */
#define SIZED() (size || (die_type(v, &t) && type_byte_size(&t, &size) && size))
	for (size_t i = 0; i < n;) {
		/* one piece: a location op, then DW_OP_piece (or the end) */
		struct reg_offset at = { .reg = -1 };
		bool in_memory = false;
		if (e[i].atom == DW_OP_fbreg && fb) {
			/* a corrupt operand must not overflow (UBSan) */
			at.reg = fb->reg;
			in_memory = !__builtin_add_overflow(fb->off, (int64_t)e[i].number,
							    &at.off);
		} else if (e[i].atom != DW_OP_piece && op_reg_offset(&e[i], &at) &&
			   !(e[i].atom >= DW_OP_reg0 && e[i].atom <= DW_OP_reg31)) {
			in_memory = i + 1 >= n || e[i + 1].atom != DW_OP_stack_value;
		}
		if (e[i].atom != DW_OP_piece)
			i++;
		uint64_t piece;
		bool last = false;
		if (i < n && e[i].atom == DW_OP_piece) {
			piece = e[i].number;
			i++;
		} else if (i < n) {
			return false;	/* an expression, not a location */
		} else {
			last = true;	/* the rest of the variable */
		}
		int64_t rel;
		if (in_memory && at.reg == reg &&
		    !__builtin_sub_overflow(disp, at.off, &rel) && rel >= 0) {
			if (!SIZED())
				return false;
			if (last)
				piece = size - piece_start;
			if ((uint64_t)rel < piece) {
				*var_off = piece_start + (uint64_t)rel;
				return true;
			}
		} else if (last) {
			break;
		}
		piece_start += piece;
	}
	return false;
#undef SIZED
}

static enum dt_reason find_memory_var(struct dt_session *s, Dwarf_Addr pc,
				      int reg, int64_t disp, Dwarf_Die *var,
				      uint64_t *var_off)
{
	Dwarf_Die cu, scopes[MAX_SCOPES];
	struct reg_offset fb;
	size_t n;

	if (!scopes_at(s, pc, &cu, scopes, &n))
		return DT_NO_CU;
	bool have_fb = n && frame_base(s, &scopes[0], pc, &fb);
	while (n-- > 0) {
		Dwarf_Die v;
		if (dwarf_child(&scopes[n], &v) != 0)
			continue;
		do {
			if (is_variable(dwarf_tag(&v)) &&
			    var_at_offset(&v, pc, reg, disp, have_fb ? &fb : NULL,
					  var_off)) {
				*var = v;
				session_debug(s, "  var <%#llx> in memory at reg %d: +%llu",
					      (unsigned long long)dwarf_dieoffset(&v), reg,
					      (unsigned long long)*var_off);
				return DT_OK;
			}
		} while (dwarf_siblingof(&v, &v) == 0);
	}
	return DT_NO_VAR;
}

/* find_memory_var() from what homes_at() kept: the same scopes around pc
 * (at each level the first code scope holding pc), innermost first, and
 * the same candidates in the same order, without walking the DIEs. */
static enum dt_reason memory_var_at(struct dt_session *s,
				    struct reg_homes *rh, Dwarf_Addr pc,
				    int reg, int64_t disp, Dwarf_Die *var,
				    uint64_t *var_off)
{
	uint32_t chain[MAX_SCOPES];
	size_t n = 0;
	struct reg_offset fb;

	chain[n++] = 0;
	while (n < MAX_SCOPES) {
		uint32_t c = rh->scopes[chain[n - 1]].first_child;
		while (c != NO_SCOPE && !scope_has_pc(rh, c, pc))
			c = rh->scopes[c].next_sibling;
		if (c == NO_SCOPE)
			break;
		chain[n++] = c;
	}
	Dwarf_Die fn = rh->scopes[0].die;
	bool have_fb = frame_base(s, &fn, pc, &fb);
	while (n-- > 0) {
		for (size_t i = 0; i < rh->nmvars; i++) {
			Dwarf_Die v = rh->mvars[i].var;
			if (rh->mvars[i].scope != chain[n] ||
			    !var_at_offset(&v, pc, reg, disp, have_fb ? &fb : NULL,
					   var_off))
				continue;
			*var = v;
			session_debug(s, "  var <%#llx> in memory at reg %d: +%llu",
				      (unsigned long long)dwarf_dieoffset(&v), reg,
				      (unsigned long long)*var_off);
			return DT_OK;
		}
	}
	return DT_NO_VAR;
}

static uint64_t memvar_hash(Dwarf_Addr pc, int reg, int64_t disp)
{
	return hash_mix(hash_mix(hash_mix(HASH_SEED, pc), (uint64_t)reg),
			(uint64_t)disp);
}

enum dt_reason scope_find_memory_var(struct dt_session *s, Dwarf_Addr pc,
				     int reg, int64_t disp, Dwarf_Die *var,
				     uint64_t *var_off)
{
	struct reg_homes *rh = homes_at(s, pc);
	struct scope_index *ix = s->scope.index;

	if (!rh || !ix)
		return find_memory_var(s, pc, reg, disp, var, var_off);
	if (!rh->nmvars)
		return DT_NO_VAR;	/* the common -O2 function: all in registers */
	uint64_t h = memvar_hash(pc, reg, disp);
	uint32_t k = INDEX_FIND(ix->mv_slot, ix->mv_size, h, i, ix->mv[i].pc == pc &&
				ix->mv[i].reg == reg && ix->mv[i].disp == disp);
	if (k) {
		*var = ix->mv[k - 1].var;
		*var_off = ix->mv[k - 1].off;
		return ix->mv[k - 1].reason;
	}
	enum dt_reason r = rh->odd_scopes || !rh->nscopes ?
			   find_memory_var(s, pc, reg, disp, var, var_off) :
			   memory_var_at(s, rh, pc, reg, disp, var, var_off);
	/* remembered when there is room; else asked again next time */
	if (INDEX_READY(ix->mv_slot, ix->mv_size, ix->nmv, i,
			memvar_hash(ix->mv[i].pc, ix->mv[i].reg, ix->mv[i].disp)) ||
	    GROW(ix->mv, ix->mv_cap, ix->nmv, 16))
		return r;
	ix->mv[ix->nmv] = (struct memvar_answer){ .pc = pc, .disp = disp, .reg = reg,
						  .reason = r };
	if (r == DT_OK) {
		ix->mv[ix->nmv].var = *var;
		ix->mv[ix->nmv].off = *var_off;
	}
	ix->mv_slot[INDEX_FREE(ix->mv_slot, ix->mv_size, h)] = (uint32_t)++ix->nmv;
	return r;
}
