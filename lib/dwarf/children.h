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
 * would, c.die and c.tag each child, skipping the DIEs in between with
 * the unit's abbreviations instead of decoding each one. */
struct unit_shapes;
struct die_children {
	Dwarf_Die die;			/* the child */
	int tag;			/* its tag */
	struct unit_shapes *unit;	/* NULL: libdw walks */
	Dwarf_CU *cu;			/* the unit walked */
	uint32_t code;			/* the child's abbreviation */
	const unsigned char *attrs;	/* and its attributes' bytes */
};
bool children_first(struct children_walker *w, Dwarf_Die *parent,
		    struct die_children *c);
bool children_next(struct children_walker *w, struct die_children *c);
/* dwarf_attr(&c->die, name, attr), found by the child's abbreviation
 * instead of decoding the attributes before it. */
bool children_attr(struct children_walker *w, struct die_children *c,
		   unsigned name, Dwarf_Attribute *attr);
/* What containers.c keys an aggregate's definition by, read in one pass
 * over the child's attributes; false for a declaration. */
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
/* The bytes of the child's attribute a (children_attr's) when its form is
 * a block (an exprloc: one location expression), their number in *len and
 * the unit's address size in *addr_size, read without libdw (which keeps
 * every expression it decodes); NULL for another form (a location list),
 * or when the walk is libdw's. */
const unsigned char *children_block(struct children_walker *w, struct die_children *c,
				    Dwarf_Attribute *a, size_t *len, unsigned *addr_size);
void children_walker_release(struct children_walker *w);

#endif
