/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A DIE's children walked by the unit's own abbreviations (children.c):
 * the accelerator behind every walk of a unit.
 */
#ifndef DTPROF_DWARF_CHILDREN_H
#define DTPROF_DWARF_CHILDREN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

/* A walker of one Dwarf's units (a session's, with its supplementary
 * file): the shapes of the units it walked last, made on first use, and
 * where it says what it leaves to libdw.  It reads libdw and libelf
 * only; one thread at a time. */
struct children_cache;
struct children_walker {
	struct children_cache *cache;	/* NULL until the first walk */
	void (*debug)(void *arg, const char *msg);	/* NULL: silent */
	void *debug_arg;
};

/* A DIE's children in order: for (ok = children_first(w, parent, &c); ok;
 * ok = children_next(w, &c)) visits what dwarf_child and dwarf_siblingof
 * would, c.tag each child, skipping the DIEs in between with the unit's
 * abbreviations instead of decoding each one.  A child is handed out by
 * its offset; its Dwarf_Die, libdw's own (dwarf_offdie), is made when
 * children_die() asks: most children a walk visits are passed over by
 * their tag.  Nothing here builds a libdw struct: values are read from
 * the section's bytes by their forms, or asked of libdw. */
struct unit_shapes;
struct die_children {
	Dwarf_Die die;			/* the child: children_die() */
	bool have_die;			/* die made */
	Dwarf *dbg;			/* the file it is in */
	Dwarf_Off off;			/* its offset there (dwarf_dieoffset) */
	int tag;			/* its tag */
	struct unit_shapes *unit;	/* NULL: libdw walks */
	Dwarf_CU *cu;			/* the unit walked (the parent's) */
	uint32_t code;			/* the child's abbreviation */
	const unsigned char *at;	/* its bytes, */
	const unsigned char *attrs;	/* and its attributes' */
};
bool children_first(struct children_walker *w, Dwarf_Die *parent,
		    struct die_children *c);
/* The same for the children of a child handed out, without its
 * Dwarf_Die. */
bool children_first_of(struct children_walker *w, struct die_children *parent,
		       struct die_children *c);
/* The first child of parent_c when given, else of parent: for walks that
 * go into a child's children without making its Dwarf_Die. */
bool children_first_in(struct children_walker *w, Dwarf_Die *parent,
		       struct die_children *parent_c, struct die_children *c);
bool children_next(struct children_walker *w, struct die_children *c);
/* c's Dwarf_Die, made by libdw (dwarf_offdie) on first use; NULL when
 * libdw cannot. */
Dwarf_Die *children_die(struct die_children *c);
/* What dwarf_hasattr(die, name) says. */
bool children_has(struct children_walker *w, struct die_children *c, unsigned name);
/* What dwarf_formudata(dwarf_attr(die, name)) gives: true and *v, or
 * false (no such attribute, or no constant). */
bool children_udata(struct children_walker *w, struct die_children *c,
		    unsigned name, Dwarf_Word *v);
/* What keys an aggregate's definition, read in one pass over the
 * child's attributes; false for a declaration. */
struct children_def {
	const char *name;		/* dwarf_diename's */
	uint64_t file_hash;		/* hash_str of dwarf_decl_file's */
	Dwarf_Word line, size;		/* DW_AT_decl_line, DW_AT_byte_size;
					 * 0 without */
};
bool children_definition(struct children_walker *w, struct die_children *c,
			 struct children_def *d);
/* How the child's unit reads its location lists (loclist.c); false when
 * the walk is libdw's. */
struct loc_unit;
bool children_loc_unit(struct children_walker *w, struct die_children *c,
		       struct loc_unit *lu);
/* The child's one range of code when it has DW_AT_low_pc and
 * DW_AT_high_pc, as dwarf_ranges gives it then; false otherwise (ask
 * dwarf_ranges). */
bool children_pc_range(struct children_walker *w, struct die_children *c,
		       Dwarf_Addr *lo, Dwarf_Addr *hi);
/* The bytes of the child's attribute name when its form is a block (an
 * exprloc: one location expression), their number in *len and the
 * unit's address size in *addr_size, read without libdw (which keeps
 * every expression it decodes); NULL for another form (a location
 * list), or when the walk is libdw's. */
const unsigned char *children_block(struct children_walker *w, struct die_children *c,
				    unsigned name, size_t *len, unsigned *addr_size);
/* The form of the child's attribute name and its value's bytes (for
 * loclist.c); false when the walk is libdw's or has none. */
bool children_value(struct children_walker *w, struct die_children *c,
		    unsigned name, unsigned *form, const unsigned char **value);
void children_walker_release(struct children_walker *w);

#endif
