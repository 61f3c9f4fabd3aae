// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A pointer that no variable describes at pc, followed back through its
 * basic block to where the register got it: a copy of a register holding
 * a pointer variable, a reload of a stack slot holding one (all of -O0
 * code; spills at -O2), a spill into such a slot, or a load of a
 * pointer-typed member through a pointer variable (a->b->c, one step).  One step, inside one block, lost
 * at any other write and at calls: what it cannot prove stays unknown.
 */
#include <dwarf.h>
#include <string.h>

#include "internal.h"

/* The pointee of the pointer member starting exactly at off in type t. */
static bool pointer_member(Dwarf_Die *t, uint64_t off, struct var_hit *hit)
{
	Dwarf_Die m;

	if (!type_member_type_at(t, off, &m))
		return false;
	return type_pointee(&m, &hit->pointee, &hit->typedef_name);
}

/* Register reg holds a pointer variable at pc (not an offset from one). */
static enum dt_reason pointer_in_reg(struct dt_session *s, Dwarf_Addr dpc,
				     int reg, struct var_hit *hit)
{
	struct var_hit hits[4];
	size_t n;

	if (scope_find_vars(s, dpc, reg, hits, 4, &n) != DT_OK)
		return DT_NO_VAR;
	for (size_t i = 0; i < n; i++)
		if (hits[i].bias == 0) {
			*hit = hits[i];
			return DT_OK;
		}
	return DT_NO_VAR;
}

/* The 8 bytes at mem, loaded at pc, are a pointer: to what? */
static enum dt_reason pointer_loaded(struct dt_session *s, Dwarf_Addr dpc,
				     const struct dt_mem_op *mem,
				     struct var_hit *hit)
{
	Dwarf_Die var, t;
	uint64_t off;

	if (mem->base < 0 || mem->index >= 0 || mem->segment >= 0)
		return DT_NO_VAR;
	/* a variable in memory there: a stack slot at -O0, a spill */
	if (scope_find_memory_var(s, dpc, mem->base, mem->disp, &var, &off) == DT_OK &&
	    die_type(&var, &t) && pointer_member(&t, off, hit)) {
		hit->var = var;
		hit->bias = 0;
		return DT_OK;
	}
	/* a member of the struct a pointer variable points to */
	struct var_hit base;
	if (pointer_in_reg(s, dpc, mem->base, &base) == DT_OK && mem->disp >= 0 &&
	    pointer_member(&base.pointee, (uint64_t)mem->disp, hit)) {
		hit->var = base.var;
		hit->bias = 0;
		return DT_OK;
	}
	return DT_NO_VAR;
}

enum dt_reason track_register(struct dt_session *s, uint64_t pc, int reg,
			      struct var_hit *hit)
{
	const struct func_map *fm = s->no_track ? NULL : funcmap_get(s, pc);
	long i = fm ? func_map_index(fm, pc) : -1;

	if (i < 0)
		return DT_NO_VAR;
	while (!fm->insns[i].leader && i > 0) {
		const struct func_insn *fi = &fm->insns[--i];
		struct dt_mem_op mem = { .base = fi->mem_base, .index = -1,
					 .segment = -1, .disp = fi->mem_disp };

		if (fi->def == DT_DEF_CALL && (s->arch->caller_saved >> reg & 1))
			return DT_NO_VAR;
		Dwarf_Addr dpc = fi->pc + (uint64_t)s->dwarf_adjust;
		/* reg was just spilled into a variable's slot: it holds that
		 * variable's value (the slot is described after the store) */
		if (fi->def == DT_DEF_STORE && fi->def_src == reg) {
			if (pointer_loaded(s, dpc + fi->len, &mem, hit) == DT_OK)
				return DT_OK;
			continue;
		}
		if (fi->def_dst != reg)
			continue;
		session_debug(s, "  reg %d set at %#llx (%d)", reg,
			      (unsigned long long)fi->pc, fi->def);
		switch (fi->def) {
		case DT_DEF_COPY:
			return pointer_in_reg(s, dpc, fi->def_src, hit);
		case DT_DEF_LOAD:
			return pointer_loaded(s, dpc, &mem, hit);
		default:
			return DT_NO_VAR;
		}
	}
	return DT_NO_VAR;
}

/* The constant in reg just before instruction i of fm, depth steps of
 * address arithmetic at most. */
static bool address_before(const struct func_map *fm, long i, int reg,
			   int depth, uint64_t *addr)
{
	while (depth > 0 && !fm->insns[i].leader && i > 0) {
		const struct func_insn *fi = &fm->insns[--i];
		if (fi->def_dst != reg)
			continue;
		switch (fi->def) {
		case DT_DEF_ADDR:
			*addr = (uint64_t)fi->mem_disp;
			return true;
		case DT_DEF_ADDI:
			if (!address_before(fm, i, fi->def_src, depth - 1, addr))
				return false;
			*addr += (uint64_t)fi->mem_disp;
			return true;
		case DT_DEF_COPY:
			return address_before(fm, i, fi->def_src, depth - 1, addr);
		default:
			return false;
		}
	}
	return false;
}

bool track_address(struct dt_session *s, uint64_t pc, int reg, uint64_t *addr)
{
	const struct func_map *fm = s->no_track ? NULL : funcmap_get(s, pc);
	long i = fm ? func_map_index(fm, pc) : -1;

	return i >= 0 && address_before(fm, i, reg, 4, addr);
}
