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
#include "grow.h"

#define MAX_SCOPES 64

static bool cu_by_scan(Dwarf *dw, Dwarf_Addr pc, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	/* No .debug_aranges (clang does not emit it by default): look at
	 * every unit's ranges. */
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) &&
		    dwarf_haspc(cu, pc) == 1)
			return true;
		off = next;
	}
	return false;
}

bool scope_cu(struct dt_session *s, Dwarf_Addr pc, Dwarf_Die *cu)
{
	if (dwarf_addrdie(s->dwarf, pc, cu))
		return true;
	return cu_by_scan(s->dwarf, pc, cu);
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
};

struct cu_funcs {
	Dwarf_Off cu;
	struct func_range *r;
	size_t n, cap;
};

struct scope_index {
	struct cu_funcs *cus;	/* sorted by cu offset */
	size_t n, cap;
};

static int add_range(struct cu_funcs *c, Dwarf_Addr lo, Dwarf_Addr hi,
		     Dwarf_Off die)
{
	if (GROW(c->r, c->cap, c->n, 64))
		return -1;
	c->r[c->n++] = (struct func_range){ lo, hi, die };
	return 0;
}

static void index_functions(Dwarf_Die *parent, struct cu_funcs *c)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_namespace) {
			index_functions(&child, c);
		} else if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0)
				if (hi > lo)
					add_range(c, lo, hi, dwarf_dieoffset(&child));
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int range_cmp(const void *a, const void *b)
{
	const struct func_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static struct cu_funcs *cu_index(struct dt_session *s, Dwarf_Die *cu)
{
	struct scope_index *ix = s->scope_index;
	Dwarf_Off off = dwarf_dieoffset(cu);
	size_t lo = 0, hi;

	if (!ix) {
		ix = s->scope_index = calloc(1, sizeof(*ix));
		if (!ix)
			return NULL;
	}
	for (hi = ix->n; lo < hi;) {
		size_t mid = (lo + hi) / 2;
		if (ix->cus[mid].cu == off)
			return &ix->cus[mid];
		if (ix->cus[mid].cu < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (GROW(ix->cus, ix->cap, ix->n, 16))
		return NULL;
	memmove(&ix->cus[lo + 1], &ix->cus[lo], (ix->n - lo) * sizeof(*ix->cus));
	ix->n++;
	struct cu_funcs *c = &ix->cus[lo];
	*c = (struct cu_funcs){ .cu = off };
	index_functions(cu, c);
	if (c->n)	/* qsort of NULL is undefined, even for 0 */
		qsort(c->r, c->n, sizeof(*c->r), range_cmp);
	session_debug(s, "CU <%#llx>: indexed %zu function ranges",
		      (unsigned long long)off, c->n);
	return c;
}

void scope_index_free(struct scope_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->n; i++)
		free(ix->cus[i].r);
	free(ix->cus);
	free(ix);
}

/* The function containing pc through the index; false when none. */
static const struct func_range *range_at(struct dt_session *s, Dwarf_Die *cu,
					  Dwarf_Addr pc)
{
	struct cu_funcs *c = cu_index(s, cu);
	size_t lo = 0, hi;

	if (!c)
		return NULL;
	/* last range starting at or below pc; ranges do not overlap */
	for (hi = c->n; lo < hi;) {
		size_t mid = (lo + hi) / 2;
		if (c->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && pc < c->r[lo - 1].hi ? &c->r[lo - 1] : NULL;
}

static bool function_at(struct dt_session *s, Dwarf_Die *cu, Dwarf_Addr pc,
			Dwarf_Die *fn)
{
	const struct func_range *r = range_at(s, cu, pc);

	return r && dwarf_offdie(s->dwarf, r->die, fn) != NULL;
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

/* Location at pc is "reg" (the value is the register) or
 * "breg k; stack_value" (the value is register + k). */
static bool location_in_reg(Dwarf_Die *var, Dwarf_Addr pc, int *reg,
			    int64_t *bias)
{
	Dwarf_Attribute attr;
	Dwarf_Op *e;
	size_t len;

	if (!dwarf_attr(var, DW_AT_location, &attr))
		return false;
	if (dwarf_getlocation_addr(&attr, pc, &e, &len, 1) != 1)
		return false;
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
	return false;
}

static bool is_qualifier(int tag)
{
	return tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type;
}

/* The data type a pointer variable points to.  Typedefs are peeled but the
 * last one's name is kept: an anonymous struct is known by it. */
static bool pointee_of(Dwarf_Die *var, Dwarf_Die *pointee,
		       const char **typedef_name)
{
	Dwarf_Die t;
	int tag;

	if (!die_type(var, &t))
		return false;
	while (is_qualifier(tag = dwarf_tag(&t)) || tag == DW_TAG_typedef)
		if (!die_type(&t, &t))
			return false;
	if (tag != DW_TAG_pointer_type && tag != DW_TAG_reference_type &&
	    tag != DW_TAG_rvalue_reference_type)
		return false;
	if (!die_type(&t, &t))
		return false;	/* void * */
	*typedef_name = NULL;
	while (is_qualifier(tag = dwarf_tag(&t)) || tag == DW_TAG_typedef) {
		if (tag == DW_TAG_typedef)
			*typedef_name = dwarf_diename(&t);
		if (!die_type(&t, &t))
			return false;	/* typedef of void */
	}
	if (tag == DW_TAG_subroutine_type || tag == DW_TAG_unspecified_type)
		return false;
	*pointee = t;
	return true;
}

static bool is_variable(int tag)
{
	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

enum dt_reason scope_find_vars(struct dt_session *s, Dwarf_Addr pc, int reg,
			       struct var_hit *hits, size_t max,
			       size_t *nhits)
{
	Dwarf_Die cu, scopes[MAX_SCOPES];
	bool reg_matched = false;
	size_t n;

	*nhits = 0;
	if (!scope_cu(s, pc, &cu)) {
		session_debug(s, "pc %#llx: no CU", (unsigned long long)pc);
		return DT_NO_CU;
	}
	n = 0;
	if (function_at(s, &cu, pc, &scopes[0]))
		n = collect_scopes(&scopes[0], pc, scopes, 1);
	session_debug(s, "pc %#llx: CU <%#llx>, %zu scopes",
		      (unsigned long long)pc,
		      (unsigned long long)dwarf_dieoffset(&cu), n);

	/* Innermost scope first: a block's local shadows the parameter. */
	while (n-- > 0 && *nhits < max) {
		Dwarf_Die v;
		if (dwarf_child(&scopes[n], &v) != 0)
			continue;
		do {
			int vreg;
			int64_t bias;
			if (!is_variable(dwarf_tag(&v)) ||
			    !location_in_reg(&v, pc, &vreg, &bias) || vreg != reg)
				continue;
			reg_matched = true;
			struct var_hit *h = &hits[*nhits];
			if (!pointee_of(&v, &h->pointee, &h->typedef_name)) {
				session_debug(s, "  var <%#llx> in reg %d: not a data pointer",
					      (unsigned long long)dwarf_dieoffset(&v), reg);
				continue;
			}
			h->var = v;
			h->bias = bias;
			session_debug(s, "  var <%#llx> in reg %d%+lld",
				      (unsigned long long)dwarf_dieoffset(&v),
				      reg, (long long)bias);
			if (++*nhits == max)
				break;
		} while (dwarf_siblingof(&v, &v) == 0);
	}
	if (*nhits)
		return DT_OK;
	return reg_matched ? DT_NO_TYPE : DT_NO_VAR;
}
