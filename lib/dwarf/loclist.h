/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A location's entries read without libdw's cache (loclist.c).
 */
#ifndef DTPROF_DWARF_LOCLIST_H
#define DTPROF_DWARF_LOCLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#define LOC_MAX_OPS 16		/* operations of one expression, at most */
#define LOC_MAX_ENTRIES 4096	/* entries of one list (a vmlinux's longest
				 * holds 836, perf's 376): a longer one, or
				 * a corrupt list running on, is libdw's */
struct loc_entry {
	Dwarf_Addr start, end;	/* as dwarf_getlocations gives them */
	Dwarf_Op ops[LOC_MAX_OPS];
	size_t nops;
};
struct loc_list {
	struct loc_entry *v;
	size_t n, cap;
};
/* What a unit's location lists are read with (children_loc_unit). */
struct loc_unit {
	unsigned version, addr_size, offset_size;
	Dwarf_Addr base;		/* the unit's base address (DW_AT_low_pc,
					 * else 0 as libdw takes it) */
	const unsigned char *loc, *loclists;	/* .debug_loc, .debug_loclists */
	size_t loc_len, loclists_len;
};
/* A single location expression of unit u (an exprloc's bytes, expr,
 * len), valid everywhere, into out as dwarf_getlocations gives it;
 * false (out->n 0) when this file cannot read it: ask libdw. */
bool loc_expr(const struct loc_unit *u, const unsigned char *expr, size_t len,
	      struct loc_list *out);
/* A location list of unit u (a DW_AT_location or DW_AT_frame_base of
 * form form, its value's bytes at value) as dwarf_getlocations gives
 * it, entry by entry, into out (its v kept, grown); false (out->n 0)
 * when this file cannot read it (DW_FORM_loclistx, DWARF 3's data4):
 * ask libdw. */
bool loc_entries(const struct loc_unit *u, unsigned form, const unsigned char *value,
		 struct loc_list *out);

#endif
