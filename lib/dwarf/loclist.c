// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A variable's location entries, read from the unit's bytes: what
 * scope.c's register homes ask of every variable of every function
 * asked about.  libdw's dwarf_getlocations decodes each expression into
 * a search tree it keeps until dwarf_end (one node and one allocation
 * per expression): on a kernel, the 283,000 entries of 25,000 lists
 * cost 600 million instructions, 5% of the run (read here: 29 million),
 * and the tree's teardown more.  Here
 * a list is read into the caller's array, each expression decoded into
 * Dwarf_Ops as libdw decodes them (tests/unit-children compares both on
 * every location of its binaries, and bench/kernel.sh on vmlinux's).
 *
 * What is read: a single expression (DW_FORM_exprloc, or a block before
 * DWARF 4), a DWARF 5 list in .debug_loclists by offset (its base,
 * offset-pair, start-end, start-length and GNU view entries) and a DWARF
 * 2-4 list in .debug_loc.  Anything else (indexed addresses, lists by
 * index, split units, an operation outside the common ones, a list cut
 * short) declines, and the caller asks libdw.
 */
#include <dwarf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../arrays.h"
#include "bytereader.h"
#include "loclist.h"

/* An expression's operations as libdw's decoder gives them (atom,
 * operands in number and number2, offset in the expression); false for
 * one this file does not decode, more than LOC_MAX_OPS, or bytes cut
 * short. */
static bool decode_ops(const unsigned char *expr, size_t len, unsigned addr_size,
		       struct loc_entry *e)
{
	struct byte_reader r = { expr, expr + len, true };

	e->nops = 0;
	while (r.p < r.end) {
		if (e->nops == LOC_MAX_OPS)
			return false;
		Dwarf_Op *op = &e->ops[e->nops++];
		*op = (Dwarf_Op){ .atom = *r.p, .offset = (Dwarf_Word)(r.p - expr) };
		r.p++;
		uint8_t a = op->atom;
		if ((a >= DW_OP_lit0 && a <= DW_OP_lit31) ||
		    (a >= DW_OP_reg0 && a <= DW_OP_reg31))
			continue;
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			op->number = (Dwarf_Word)br_sleb(&r);
			continue;
		}
		switch (a) {
		case DW_OP_deref: case DW_OP_dup: case DW_OP_drop:
		case DW_OP_over: case DW_OP_swap: case DW_OP_rot:
		case DW_OP_abs: case DW_OP_and: case DW_OP_div:
		case DW_OP_minus: case DW_OP_mod: case DW_OP_mul:
		case DW_OP_neg: case DW_OP_not: case DW_OP_or:
		case DW_OP_plus: case DW_OP_shl: case DW_OP_shr:
		case DW_OP_shra: case DW_OP_xor: case DW_OP_eq:
		case DW_OP_ge: case DW_OP_gt: case DW_OP_le: case DW_OP_lt:
		case DW_OP_ne: case DW_OP_nop: case DW_OP_call_frame_cfa:
		case DW_OP_stack_value: case DW_OP_form_tls_address:
		case DW_OP_GNU_push_tls_address:
			break;
		case DW_OP_addr:
			op->number = br_le(&r, addr_size);
			break;
		case DW_OP_const1u: case DW_OP_deref_size: case DW_OP_pick:
			op->number = br_le(&r, 1);
			break;
		case DW_OP_const2u:
			op->number = br_le(&r, 2);
			break;
		case DW_OP_const4u:
			op->number = br_le(&r, 4);
			break;
		case DW_OP_const8u: case DW_OP_const8s:
			op->number = br_le(&r, 8);
			break;
		case DW_OP_const1s:
			op->number = (Dwarf_Word)(int64_t)(int8_t)br_le(&r, 1);
			break;
		case DW_OP_const2s:
			op->number = (Dwarf_Word)(int64_t)(int16_t)br_le(&r, 2);
			break;
		case DW_OP_const4s:
			op->number = (Dwarf_Word)(int64_t)(int32_t)br_le(&r, 4);
			break;
		case DW_OP_constu: case DW_OP_plus_uconst: case DW_OP_regx:
		case DW_OP_piece:
			op->number = br_uleb(&r);
			break;
		case DW_OP_consts: case DW_OP_fbreg:
			op->number = (Dwarf_Word)br_sleb(&r);
			break;
		case DW_OP_bregx:
			op->number = br_uleb(&r);
			op->number2 = (Dwarf_Word)br_sleb(&r);
			break;
		case DW_OP_bit_piece:
			op->number = br_uleb(&r);
			op->number2 = br_uleb(&r);
			break;
		case DW_OP_entry_value: case DW_OP_GNU_entry_value:
		case DW_OP_implicit_value:
			/* the block's length, and where it is (as libdw:
			 * dwarf_getlocation_attr reads the inner one there;
			 * unit-children compares both on every one) */
			op->number2 = (Dwarf_Word)(uintptr_t)r.p;
			op->number = br_uleb(&r);
			if (r.ok && op->number > (uint64_t)(r.end - r.p))
				return false;
			r.p += r.ok ? op->number : 0;
			break;
		default:
			return false;
		}
		if (!r.ok)
			return false;
	}
	return true;
}

/* One more entry into out, its expression at r (a length of len_size
 * bytes, or a ULEB128 when 0, then the bytes). */
static bool add_entry(const struct loc_unit *u, struct byte_reader *r, unsigned len_size,
		      Dwarf_Addr start, Dwarf_Addr end, struct loc_list *out)
{
	uint64_t len = len_size ? br_le(r, len_size) : br_uleb(r);

	if (!r->ok || len > (uint64_t)(r->end - r->p) || out->n >= LOC_MAX_ENTRIES ||
	    GROW(out->v, out->cap, out->n, 16))
		return false;
	struct loc_entry *e = &out->v[out->n];
	e->start = start;
	e->end = end;
	if (!decode_ops(r->p, (size_t)len, u->addr_size, e))
		return false;
	r->p += len;
	out->n++;
	return true;
}

/* A DWARF 5 list at r, until DW_LLE_end_of_list. */
static bool read_loclists(const struct loc_unit *u, struct byte_reader *r,
			  struct loc_list *out)
{
	Dwarf_Addr base = u->base;

	while (r->ok) {
		uint8_t kind = (uint8_t)br_le(r, 1);
		Dwarf_Addr a, b;
		switch (kind) {
		case DW_LLE_end_of_list:
			return r->ok;
		case DW_LLE_base_address:
			base = br_le(r, u->addr_size);
			break;
		case DW_LLE_offset_pair:
			a = br_uleb(r);
			b = br_uleb(r);
			if (!add_entry(u, r, 0, base + a, base + b, out))
				return false;
			break;
		case DW_LLE_start_end:
			a = br_le(r, u->addr_size);
			b = br_le(r, u->addr_size);
			if (!add_entry(u, r, 0, a, b, out))
				return false;
			break;
		case DW_LLE_start_length:
			a = br_le(r, u->addr_size);
			b = a + br_uleb(r);
			if (!add_entry(u, r, 0, a, b, out))
				return false;
			break;
		case DW_LLE_GNU_view_pair:	/* views: libdw skips them too */
			br_uleb(r);
			br_uleb(r);
			break;
		default:	/* indexed addresses, a default location */
			return false;
		}
	}
	return false;
}

/* A DWARF 2-4 list at r, until its pair of zeros. */
static bool read_loc(const struct loc_unit *u, struct byte_reader *r, struct loc_list *out)
{
	Dwarf_Addr base = u->base, all = u->addr_size == 4 ? 0xffffffffULL : ~0ULL;

	while (r->ok) {
		Dwarf_Addr a = br_le(r, u->addr_size), b = br_le(r, u->addr_size);
		if (!r->ok)
			return false;
		if (a == 0 && b == 0)
			return true;
		if (a == all) {		/* a base address selection */
			base = b;
			continue;
		}
		if (!add_entry(u, r, 2, base + a, base + b, out))
			return false;
	}
	return false;
}

bool loc_expr(const struct loc_unit *u, const unsigned char *expr, size_t len,
	      struct loc_list *out)
{
	out->n = 0;
	if (GROW(out->v, out->cap, out->n, 16) ||
	    !decode_ops(expr, len, u->addr_size, &out->v[0]))
		return false;
	out->v[0].start = 0;	/* everywhere, as libdw says it */
	out->v[0].end = (Dwarf_Addr)-1;
	out->n = 1;
	return true;
}

bool loc_entries(const struct loc_unit *u, unsigned form, const unsigned char *value,
		 struct loc_list *out)
{
	struct byte_reader r;
	uint64_t off;

	out->n = 0;
	if (form != DW_FORM_sec_offset)	/* DW_FORM_loclistx, data4 before DWARF 4 */
		return false;
	const unsigned char *sec = u->version >= 5 ? u->loclists : u->loc;
	size_t sec_len = u->version >= 5 ? u->loclists_len : u->loc_len;
	if (!sec || !value)
		return false;
	r = (struct byte_reader){ value, value + u->offset_size, true };
	off = br_le(&r, u->offset_size);
	if (off >= sec_len)
		return false;
	r = (struct byte_reader){ sec + off, sec + sec_len, true };
	bool ok = u->version >= 5 ? read_loclists(u, &r, out) : read_loc(u, &r, out);
	if (!ok)
		out->n = 0;
	return ok;
}
