// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A DIE's children, one after another, skipped over with the unit's own
 * abbreviations.  The walks of every unit (the containers' index, the
 * unit-level variables) and of every asked function visit millions of
 * DIEs of which they want few; libdw's dwarf_siblingof decodes each
 * one's attributes form by form and looks its abbreviation up in a
 * locked hash table: about 430 instructions a DIE on a kernel.  Here a
 * unit's abbreviations are read once into shapes: the tag, whether
 * children follow, the attributes' total size when every form has a
 * fixed size, and where DW_AT_sibling is.  A DIE is then skipped with
 * one addition, a subtree with one jump.
 *
 * libdw stays the reference, through its API only: the sections are
 * read as the file's Elf holds them (.debug_info and .debug_abbrev), a
 * child is handed out by its offset and its Dwarf_Die made by
 * dwarf_offdie when a caller asks (most children a walk visits are
 * passed over by their tag: a kernel's walk hands out 6.8 million, its
 * callers ask for the Dwarf_Die of 922,000), an attribute's
 * value is read here by its form where the form is plain (constants,
 * strings in .debug_str, addresses, blocks) and asked of libdw
 * otherwise (dwarf_attr on the child's Dwarf_Die), and anything
 * unexpected (an unknown form, DW_FORM_indirect, a code defined twice
 * or missing, a sibling pointing backwards or out of the unit) hands the
 * rest of the walk to dwarf_siblingof, which answers for corrupt data as
 * it always did.  No libdw struct is filled here.  Units split into .dwo
 * files are libdw's to walk: a package finds their tables through its
 * index.
 */
#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "../arrays.h"
#include "bytereader.h"
#include "children.h"
#include "linefiles.h"
#include "loclist.h"
#include "sections.h"

#define SLOTS 4			/* units whose shapes are kept at once:
				 * a walk nests within one unit */
#define MAX_CODE 65536		/* larger codes: libdw walks */
#define MAX_ATTRS 256		/* attributes of one abbreviation */

/* The attributes the walks ask about most, each found in a shape by
 * one lookup instead of a search of its forms. */
#define NSLOTS 16
#define SLOT_NONE 0xff			/* the shape has no such attribute */
#define SLOT_SEARCH 0xfe		/* its form's index is too large */

static int attr_slot(unsigned name)
{
	switch (name) {
	case DW_AT_name: return 0;
	case DW_AT_decl_file: return 1;
	case DW_AT_decl_line: return 2;
	case DW_AT_byte_size: return 3;
	case DW_AT_declaration: return 4;
	case DW_AT_abstract_origin: return 5;
	case DW_AT_specification: return 6;
	case DW_AT_type: return 7;
	case DW_AT_location: return 8;
	case DW_AT_low_pc: return 9;
	case DW_AT_high_pc: return 10;
	case DW_AT_ranges: return 11;
	case DW_AT_data_member_location: return 12;
	case DW_AT_external: return 13;
	case DW_AT_stmt_list: return 14;
	case DW_AT_comp_dir: return 15;
	default: return -1;
	}
}

struct shape {
	bool known;			/* false: no such code */
	unsigned tag;
	uint32_t form0, nforms;		/* the forms, in unit_shapes.forms */
	int32_t fixed;			/* attributes' bytes, -1: not fixed */
	int32_t sibling;		/* DW_AT_sibling's index, -1: none */
	int32_t sibling_at;		/* its value's byte in the attributes
					 * when fixed, else -1 */
	uint32_t nfixed;		/* the attributes before the first of
					 * varying size */
	int32_t prefix;			/* and their bytes */
	bool children;
	uint8_t slot[NSLOTS];		/* the form of each of the attributes
					 * asked most (attr_slot), SLOT_NONE
					 * or SLOT_SEARCH */
};

struct form {
	uint16_t name;			/* the attribute */
	uint16_t form;
	int16_t size;			/* a value's bytes, -1: it varies */
	int32_t at;			/* its byte in the attributes, -1:
					 * after one of varying size */
	const unsigned char *implicit;	/* DW_FORM_implicit_const's value, in
					 * .debug_abbrev (libdw reads it there) */
};

struct unit_shapes {
	Dwarf_CU *cu;			/* NULL: slot empty */
	Dwarf *dbg;			/* the file it is in */
	Dwarf_Off off;			/* where it starts in its .debug_info */
	size_t header;			/* its header's bytes */
	const unsigned char *start, *end;	/* the unit's bytes */
	unsigned version, addr_size, offset_size;
	struct shape *shape;		/* by code */
	size_t nshape, shape_cap;
	struct form *forms;
	size_t nforms, forms_cap;
	unsigned long last_use;
	uint32_t generation;		/* of the unit read last */
	struct file_hashes fhash;	/* their hashes (linefiles.c), when */
	uint32_t fhash_generation;	/* this is generation, */
	bool fhash_ok;			/* if it could read them */
	Dwarf_Addr base;		/* its base address (DW_AT_low_pc), */
	uint32_t base_generation;	/* when this is generation */
};

struct children_cache {
	struct unit_shapes slot[SLOTS];
	unsigned long uses;
	Dwarf *sections_of;		/* the file whose sections these are */
	const Elf_Data *info;		/* .debug_info (NULL: not found) */
	const Elf_Data *abbrev;		/* .debug_abbrev (NULL: not found) */
	struct line_sections lines;	/* for linefiles.c */
	const Elf_Data *loc, *loclists;	/* for loclist.c */
};

/* A line of trace, when the walker's owner wants them. */
static void walker_debug(const struct children_walker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void walker_debug(const struct children_walker *w, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!w->debug)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	w->debug(w->debug_arg, buf);
}

static void children_cache_free(struct children_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < SLOTS; i++) {
		free(c->slot[i].shape);
		free(c->slot[i].forms);
		free(c->slot[i].fhash.v);
	}
	free(c);
}

void children_walker_release(struct children_walker *w)
{
	children_cache_free(w->cache);
	w->cache = NULL;
}

/* The size of a value of form, -1 when it varies or is unknown; *known
 * false for a form this file cannot skip. */
static int fixed_size(const struct unit_shapes *u, unsigned form, bool *known)
{
	*known = true;
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag:
	case DW_FORM_strx1: case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2:
	case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4:
	case DW_FORM_addrx4: case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return (int)u->addr_size;
	case DW_FORM_ref_addr:
		return (int)(u->version == 2 ? u->addr_size : u->offset_size);
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
	case DW_FORM_strp_sup:
		return (int)u->offset_size;
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4:
	case DW_FORM_block: case DW_FORM_exprloc: case DW_FORM_string:
	case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata:
	case DW_FORM_strx: case DW_FORM_addrx: case DW_FORM_loclistx:
	case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		return -1;
	default:			/* DW_FORM_indirect, unknown forms */
		*known = false;
		return -1;
	}
}

/* Past one value of form f at p; NULL when it runs out of the unit. */
static const unsigned char *skip_value(const struct unit_shapes *u,
				       struct form f, const unsigned char *p)
{
	const unsigned char *end = u->end;
	uint64_t len;

	if (f.size >= 0)
		return end - p >= f.size ? p + f.size : NULL;
	switch (f.form) {
	case DW_FORM_string: {
		const unsigned char *nul = memchr(p, 0, (size_t)(end - p));
		return nul ? nul + 1 : NULL;
	}
	case DW_FORM_block1:
		if (end - p < 1)
			return NULL;
		len = p[0];
		p += 1;
		break;
	case DW_FORM_block2:
		if (end - p < 2)
			return NULL;
		len = (uint64_t)p[0] | (uint64_t)p[1] << 8;	/* little-endian */
		p += 2;
		break;
	case DW_FORM_block4:
		if (end - p < 4)
			return NULL;
		len = (uint64_t)p[0] | (uint64_t)p[1] << 8 |
		      (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
		p += 4;
		break;
	case DW_FORM_block: case DW_FORM_exprloc:
		if (!leb_u(&p, end, &len))
			return NULL;
		break;
	default:			/* the LEB128 forms */
		return leb_u(&p, end, &len) ? p : NULL;
	}
	return len <= (uint64_t)(end - p) ? p + len : NULL;
}

static bool add_form(struct unit_shapes *u, struct form f)
{
	if (GROW(u->forms, u->forms_cap, u->nforms, 64))
		return false;
	u->forms[u->nforms++] = f;
	return true;
}

/* The abbreviation at *p of the table ending at end into u's shapes, *p
 * moved past it; false when the walk cannot use it. */
static bool add_shape(struct unit_shapes *u, const unsigned char **p,
		      const unsigned char *end)
{
	uint64_t code, tag, name, form;

	if (!leb_u(p, end, &code) || code == 0 || code >= MAX_CODE ||
	    !leb_u(p, end, &tag) || tag > UINT32_MAX || *p >= end)
		return false;
	while (u->nshape <= code) {
		if (GROW(u->shape, u->shape_cap, u->nshape, 64))
			return false;
		u->shape[u->nshape++] = (struct shape){ .known = false };
	}
	struct shape sh = { true, (unsigned)tag, (uint32_t)u->nforms, 0, 0, -1,
			    -1, 0, 0, *(*p)++ == DW_CHILDREN_yes, { 0 } };
	memset(sh.slot, SLOT_NONE, sizeof(sh.slot));
	for (uint32_t i = 0;; i++) {
		bool known;
		if (!leb_u(p, end, &name) || !leb_u(p, end, &form))
			return false;
		if (name == 0 && form == 0)
			break;
		const unsigned char *implicit = *p;
		if (form == DW_FORM_implicit_const && !leb_skip(p, end))
			return false;
		int size = fixed_size(u, (unsigned)form, &known);
		if (!known || i >= MAX_ATTRS || form > UINT16_MAX || name > UINT16_MAX ||
		    !add_form(u, (struct form){ (uint16_t)name, (uint16_t)form,
						(int16_t)size, sh.fixed,
						form == DW_FORM_implicit_const ?
						implicit : NULL }))
			return false;
		if (sh.fixed >= 0 && size >= 0) {
			sh.nfixed = i + 1;
			sh.prefix = sh.fixed + size;
		}
		int k = attr_slot((unsigned)name);
		if (k >= 0 && sh.slot[k] == SLOT_NONE)	/* the first: libdw's */
			sh.slot[k] = i < SLOT_SEARCH ? (uint8_t)i : SLOT_SEARCH;
		if (name == DW_AT_sibling) {
			sh.sibling = (int32_t)i;
			sh.sibling_at = sh.fixed;	/* -1 after a varying one */
		}
		sh.fixed = size < 0 || sh.fixed < 0 ? -1 : sh.fixed + size;
		sh.nforms++;
	}
	if (u->shape[code].known)
		return false;		/* a code twice: libdw's to judge */
	u->shape[code] = sh;
	return true;
}

/* A section's bytes as libdw reads them (decompressed in place if it
 * was compressed); NULL when elf has no section of that name, or it is
 * compressed still. */
static const Elf_Data *plain_section(Elf *elf, const char *name)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(elf, name, &sh);

	return scn && !(sh.sh_flags & SHF_COMPRESSED) && sh.sh_type != SHT_NOBITS ?
	       elf_getdata(scn, NULL) : NULL;
}

/* The sections of dbg this file reads, found once: none when the file
 * is big-endian (values are read as little-endian here: libdw walks). */
static void find_sections(struct children_cache *c, Dwarf *dbg)
{
	Elf *elf = dwarf_getelf(dbg);
	const Elf_Data *d;

	if (c->sections_of == dbg)
		return;
	c->sections_of = dbg;
	c->info = c->abbrev = c->loc = c->loclists = NULL;
	c->lines = (struct line_sections){ 0 };
	const char *ident = elf ? elf_getident(elf, NULL) : NULL;
	if (!ident || ident[EI_DATA] != ELFDATA2LSB)
		return;
	c->info = plain_section(elf, ".debug_info");
	c->abbrev = plain_section(elf, ".debug_abbrev");
	c->loc = plain_section(elf, ".debug_loc");
	c->loclists = plain_section(elf, ".debug_loclists");
	if ((d = plain_section(elf, ".debug_line"))) {
		c->lines.line = d->d_buf;
		c->lines.line_len = d->d_size;
	}
	if ((d = plain_section(elf, ".debug_line_str"))) {
		c->lines.line_str = d->d_buf;
		c->lines.line_str_len = d->d_size;
	}
	if ((d = plain_section(elf, ".debug_str"))) {
		c->lines.str = d->d_buf;
		c->lines.str_len = d->d_size;
	}
}

/* cudie's unit: its bytes and its abbreviations, into u.  Units split
 * into .dwo files are libdw's to walk (a package's tables are found
 * through its index). */
static bool read_unit(struct children_cache *c, struct unit_shapes *u,
		      Dwarf_Die *cudie)
{
	Dwarf_Half version;
	uint8_t unit_type, addr_size, offset_size;
	Dwarf_Off cu_off, next, abbrev_off;
	uint64_t unit_id;
	size_t header;
	Dwarf *dbg = dwarf_cu_getdwarf(cudie->cu);
	const Elf_Data *ab;

	u->nshape = u->nforms = 0;
	u->generation++;		/* its file names are forgotten */
	/* no subdie: asking for one makes libdw open a skeleton's .dwo,
	 * which only the walker's owner may (the engine checks the file
	 * first: session_unit_die) */
	if (dwarf_cu_info(cudie->cu, &version, &unit_type, NULL, NULL, &unit_id,
			  &addr_size, &offset_size) != 0 ||
	    (unit_type != DW_UT_compile && unit_type != DW_UT_partial) ||
	    version < 2 || version > 5 || (offset_size != 4 && offset_size != 8) ||
	    (addr_size != 4 && addr_size != 8))
		return false;
	find_sections(c, dbg);
	if (!(ab = c->abbrev) || !c->info)
		return false;
	cu_off = dwarf_dieoffset(cudie) - dwarf_cuoffset(cudie);
	Dwarf_Half v2;
	uint8_t as2, os2;
	if (dwarf_next_unit(dbg, cu_off, &next, &header, &v2, &abbrev_off, &as2,
			    &os2, NULL, NULL) != 0 ||
	    v2 != version || as2 != addr_size || os2 != offset_size ||
	    next <= cu_off || next > c->info->d_size || header >= next - cu_off ||
	    abbrev_off >= ab->d_size)
		return false;
	/* the unit's bytes in the section as its Elf holds it (libdw's own
	 * are the same: handed out as offsets, never as libdw's pointers) */
	u->dbg = dbg;
	u->off = cu_off;
	u->header = header;
	u->start = (const unsigned char *)c->info->d_buf + cu_off;
	u->end = u->start + (next - cu_off);
	u->version = version;
	u->addr_size = addr_size;
	u->offset_size = offset_size;
	const unsigned char *p = (const unsigned char *)ab->d_buf + abbrev_off;
	const unsigned char *end = (const unsigned char *)ab->d_buf + ab->d_size;
	for (;;) {
		if (p >= end)
			return false;
		if (*p == 0)
			return true;	/* the table's end */
		if (!add_shape(u, &p, end))
			return false;
	}
}

/* The shapes of d's unit, read now if no slot holds them; NULL when the
 * walk is libdw's (no memory, an unusual unit). */
static struct unit_shapes *unit_of(struct children_walker *w, Dwarf_Die *d)
{
	struct children_cache *c = w->cache;

	if (!c && !(c = w->cache = calloc(1, sizeof(*c))))
		return NULL;
	struct unit_shapes *lru = &c->slot[0];
	c->uses++;
	for (int i = 0; i < SLOTS; i++) {
		if (c->slot[i].cu == d->cu) {
			c->slot[i].last_use = c->uses;
			return c->slot[i].start ? &c->slot[i] : NULL;
		}
		if (c->slot[i].last_use < lru->last_use)
			lru = &c->slot[i];
	}
	Dwarf_Die cudie;
	lru->cu = d->cu;
	lru->last_use = c->uses;
	if (!dwarf_diecu(d, &cudie, NULL, NULL) || !read_unit(c, lru, &cudie)) {
		lru->start = NULL;	/* remembered: libdw walks this unit */
		return NULL;
	}
	return lru;
}

/* The shape of the DIE at p, *p moved past its code; NULL for the null
 * entry (*null set) or a code without an abbreviation. */
static const struct shape *shape_at(const struct unit_shapes *u,
				    const unsigned char **p, bool *null)
{
	uint64_t code;

	*null = false;
	if (*p >= u->end || !leb_u(p, u->end, &code))
		return NULL;
	if (code == 0) {
		*null = true;
		return NULL;
	}
	return code < u->nshape && u->shape[code].known ? &u->shape[code] : NULL;
}

/* The unit-relative reference of form f at v into *to; false when it is
 * none (libdw judges those) or leaves the unit. */
static bool reference(const struct unit_shapes *u, struct form f,
		      const unsigned char *v, const unsigned char **to)
{
	uint64_t off = 0;

	switch (f.form) {	/* little-endian */
	case DW_FORM_ref4:
		off = (uint64_t)v[0] | (uint64_t)v[1] << 8 | (uint64_t)v[2] << 16 |
		      (uint64_t)v[3] << 24;
		break;
	case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref8:
		for (const unsigned char *b = v + f.size; b-- > v;)
			off = off << 8 | *b;
		break;
	case DW_FORM_ref_udata:
		if (!leb_u(&v, u->end, &off))
			return false;
		break;
	default:
		return false;
	}
	if (off >= (uint64_t)(u->end - u->start))
		return false;
	*to = u->start + off;
	return true;
}

/* Past the attributes of a DIE of shape sh at p; NULL when they run out
 * of the unit, or a DW_AT_sibling is no reference into the unit (libdw
 * judges those).  *sibling is where DW_AT_sibling points, NULL without. */
static const unsigned char *skip_attributes(const struct unit_shapes *u,
					    const struct shape *sh,
					    const unsigned char *p,
					    const unsigned char **sibling)
{
	*sibling = NULL;
	if (sh->fixed >= 0) {		/* one step, the sibling in place */
		if (u->end - p < sh->fixed)
			return NULL;
		if (sh->sibling >= 0 &&
		    !reference(u, u->forms[sh->form0 + (uint32_t)sh->sibling],
			       p + sh->sibling_at, sibling))
			return NULL;
		return p + sh->fixed;
	}
	if (u->end - p < sh->prefix)
		return NULL;
	if (sh->sibling >= 0 && (uint32_t)sh->sibling < sh->nfixed &&
	    !reference(u, u->forms[sh->form0 + (uint32_t)sh->sibling],
		       p + sh->sibling_at, sibling))
		return NULL;
	p += sh->prefix;
	for (uint32_t i = sh->nfixed; i < sh->nforms; i++) {
		struct form f = u->forms[sh->form0 + i];
		const unsigned char *v = p;
		if (!(p = skip_value(u, f, p)))
			return NULL;
		if ((int32_t)i == sh->sibling && !reference(u, f, v, sibling))
			return NULL;
	}
	return p;
}

/* The DIE after the current one's subtree (the current one of shape
 * sh, its attributes at attrs): its start in *die, its attributes in
 * *next, its code in *code; false at the end of the list or when this
 * file cannot tell (*lost set). */
static bool next_sibling(const struct unit_shapes *u, const struct shape *sh,
			 const unsigned char *attrs, const unsigned char **die,
			 const unsigned char **next, uint32_t *code, bool *lost)
{
	const unsigned char *p = attrs, *sib;
	size_t depth = 0;
	bool null;

	*lost = true;
	for (;;) {
		if (!(p = skip_attributes(u, sh, p, &sib)))
			return false;
		if (sh->children) {
			if (sib && sib < p)
				return false;	/* backwards: libdw's to judge */
			if (sib)		/* a subtree in one jump */
				p = sib;
			else
				depth++;
		}
		/* p: the next DIE, or null entries closing lists */
		for (;;) {
			*die = p;
			if ((sh = shape_at(u, &p, &null)))
				break;
			if (!null)
				return false;	/* no shape: libdw's to judge */
			if (depth == 0) {
				*lost = false;	/* the end of the list */
				return false;
			}
			depth--;
		}
		if (depth == 0) {
			*next = p;
			*code = (uint32_t)(sh - u->shape);
			*lost = false;
			return true;
		}
	}
}

/* The DIE at die of the given code, its attributes at attrs, as c's
 * current: by its offset, its Dwarf_Die made only when asked. */
static void hand_out(struct die_children *c, const struct unit_shapes *u,
		     uint32_t code, const unsigned char *attrs,
		     const unsigned char *die)
{
	c->have_die = false;
	c->dbg = u->dbg;
	c->off = u->off + (Dwarf_Off)(die - u->start);
	c->at = die;
	c->tag = (int)u->shape[code].tag;
	c->code = code;
	c->attrs = attrs;
}

Dwarf_Die *children_die(struct die_children *c)
{
	if (!c->have_die) {
		if (!dwarf_offdie(c->dbg, c->off, &c->die))
			return NULL;
		c->have_die = true;
	}
	return &c->die;
}

static bool libdw_next(struct die_children *c)
{
	c->unit = NULL;
	if (!children_die(c) || dwarf_siblingof(&c->die, &c->die) != 0)
		return false;
	c->off = dwarf_dieoffset(&c->die);
	c->tag = dwarf_tag(&c->die);
	return true;
}

/* libdw's first child of parent, or none. */
static bool libdw_first(Dwarf_Die *parent, struct die_children *c)
{
	c->unit = NULL;
	if (!parent || dwarf_child(parent, &c->die) != 0)
		return false;
	c->have_die = true;
	c->off = dwarf_dieoffset(&c->die);
	c->tag = dwarf_tag(&c->die);
	return true;
}

/* The first child of the DIE at p of unit u (p at its code): the
 * parent's Dwarf_Die is pd, or made from pc when libdw must walk. */
static bool first_in(struct unit_shapes *u, const unsigned char *p,
		     Dwarf_Die *pd, struct die_children *pc, struct die_children *c)
{
	const unsigned char *sib;
	const struct shape *sh;
	bool null;

	if (!(sh = shape_at(u, &p, &null)) || !(p = skip_attributes(u, sh, p, &sib)))
		return libdw_first(pd ? pd : children_die(pc), c);
	if (!sh->children)
		return false;
	const unsigned char *die = p;
	if (!(sh = shape_at(u, &p, &null)))	/* a null entry first, or none */
		return libdw_first(pd ? pd : children_die(pc), c);
	hand_out(c, u, (uint32_t)(sh - u->shape), p, die);
	return true;
}

bool children_first(struct children_walker *w, Dwarf_Die *parent,
		    struct die_children *c)
{
	struct unit_shapes *u = unit_of(w, parent);
	Dwarf_Off off = dwarf_dieoffset(parent);

	c->unit = u;
	c->cu = parent->cu;
	if (!u || off < u->off || off - u->off >= (Dwarf_Off)(u->end - u->start))
		return libdw_first(parent, c);
	return first_in(u, u->start + (off - u->off), parent, NULL, c);
}

/* c's unit shapes, NULL when its slot holds another unit now. */
static struct unit_shapes *current(struct children_walker *w,
				   const struct die_children *c)
{
	struct unit_shapes *u = c->unit;

	if (!u || u->cu != c->cu || !u->start)
		return NULL;
	u->last_use = ++w->cache->uses;
	return u;
}

bool children_first_of(struct children_walker *w, struct die_children *parent,
		       struct die_children *c)
{
	struct unit_shapes *u = current(w, parent);

	if (!u)
		return children_first(w, children_die(parent), c);
	c->unit = u;
	c->cu = parent->cu;
	return first_in(u, parent->at, NULL, parent, c);
}

bool children_first_in(struct children_walker *w, Dwarf_Die *parent,
		       struct die_children *parent_c, struct die_children *c)
{
	return parent_c ? children_first_of(w, parent_c, c) : children_first(w, parent, c);
}

bool children_next(struct children_walker *w, struct die_children *c)
{
	struct unit_shapes *u = current(w, c);
	const unsigned char *attrs = NULL;
	uint32_t code = 0;
	bool lost;

	if (!u)				/* the walk goes on in libdw */
		return libdw_next(c);
	const unsigned char *die = NULL;
	if (next_sibling(u, &u->shape[c->code], c->attrs, &die, &attrs, &code,
			 &lost)) {
		hand_out(c, u, code, attrs, die);
		return true;
	}
	return lost ? libdw_next(c) : false;
}

/* ---- attribute values, as the shapes find them ---- */

/* One attribute's form and where its value is. */
struct value {
	unsigned form;
	const unsigned char *p;
};

enum found { ABSENT, FOUND, ASK_LIBDW };

/* Attribute name of c (of unit u) by its shape: found (*v), absent, or
 * for libdw to find (its bytes cut short). */
static enum found find_value(const struct unit_shapes *u, const struct die_children *c,
			     unsigned name, struct value *v)
{
	const struct shape *sh = &u->shape[c->code];
	const struct form *f = &u->forms[sh->form0];
	int slot = attr_slot(name);
	uint32_t i = slot >= 0 ? sh->slot[slot] : SLOT_SEARCH;

	if (i == SLOT_NONE)
		return ABSENT;
	if (i == SLOT_SEARCH) {
		for (i = 0; i < sh->nforms && f[i].name != name; i++)
			;
		if (i == sh->nforms)
			return ABSENT;
	}
	const unsigned char *p = c->attrs;
	if (u->end - p < sh->prefix)	/* cut short: libdw's to judge */
		return ASK_LIBDW;
	if (f[i].at >= 0) {
		p += f[i].at;
	} else {
		p += sh->prefix;
		for (uint32_t k = sh->nfixed; k < i; k++)
			if (!(p = skip_value(u, f[k], p)))
				return ASK_LIBDW;
	}
	if (!f[i].implicit && !skip_value(u, f[i], p))
		return ASK_LIBDW;	/* the value itself cut short */
	*v = (struct value){ f[i].form, f[i].implicit ? f[i].implicit : p };
	return FOUND;
}

static uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t x = 0;

	while (n--)
		x = x << 8 | p[n];
	return x;
}

/* The unsigned constant v holds, as dwarf_formudata reads it; false for
 * a form left to libdw (section offsets of DWARF 2 and 3's data4 and
 * data8, index forms, anything else). */
static bool value_udata(const struct unit_shapes *u, const struct value *v,
			uint64_t *out)
{
	const unsigned char *p = v->p;
	int64_t sv;

	switch (v->form) {
	case DW_FORM_data1: *out = p[0]; return true;
	case DW_FORM_data2: *out = le(p, 2); return true;
	case DW_FORM_data4: case DW_FORM_data8:
		if (u->version < 4)	/* maybe a section offset: libdw checks */
			return false;
		*out = le(p, v->form == DW_FORM_data4 ? 4 : 8);
		return true;
	case DW_FORM_udata:
		return leb_u(&p, u->end, out);
	case DW_FORM_sdata: {
		struct byte_reader r = { p, u->end, true };
		sv = br_sleb(&r);
		*out = (uint64_t)sv;
		return r.ok;
	}
	case DW_FORM_implicit_const: {
		struct byte_reader r = { p, p + 10, true };	/* in .debug_abbrev */
		sv = br_sleb(&r);
		*out = (uint64_t)sv;
		return r.ok;
	}
	default:
		return false;
	}
}

/* The string v holds, as dwarf_formstring reads it; NULL for a form
 * left to libdw (string indexes, the supplementary file's strings), or
 * one that does not end inside its section. */
static const char *value_string(const struct children_cache *cc,
				const struct unit_shapes *u, const struct value *v)
{
	const unsigned char *sec;
	size_t len;
	uint64_t off;

	if (cc->sections_of != u->dbg)
		return NULL;	/* the sections kept are another file's */
	switch (v->form) {
	case DW_FORM_string:
		return memchr(v->p, 0, (size_t)(u->end - v->p)) ? (const char *)v->p : NULL;
	case DW_FORM_strp:
		sec = (const unsigned char *)cc->lines.str;
		len = cc->lines.str_len;
		break;
	case DW_FORM_line_strp:
		sec = (const unsigned char *)cc->lines.line_str;
		len = cc->lines.line_str_len;
		break;
	default:
		return NULL;
	}
	off = le(v->p, u->offset_size);
	if (!sec || off >= len || !memchr(sec + off, 0, len - off))
		return NULL;
	return (const char *)sec + off;
}

/* The address v holds when its form is DW_FORM_addr; false otherwise
 * (an index into .debug_addr: libdw's). */
static bool value_addr(const struct unit_shapes *u, const struct value *v,
		       Dwarf_Addr *out)
{
	if (v->form != DW_FORM_addr)
		return false;
	*out = le(v->p, u->addr_size);
	return true;
}

/* libdw's attribute of c, from its Dwarf_Die: where the shapes leave
 * off. */
static Dwarf_Attribute *libdw_attr(struct die_children *c, unsigned name,
				   Dwarf_Attribute *a)
{
	Dwarf_Die *d = children_die(c);

	return d ? dwarf_attr(d, name, a) : NULL;
}

bool children_has(struct children_walker *w, struct die_children *c, unsigned name)
{
	struct unit_shapes *u = current(w, c);
	struct value v;
	Dwarf_Attribute a;

	if (u) {
		enum found k = find_value(u, c, name, &v);
		if (k != ASK_LIBDW)
			return k == FOUND;
	}
	return libdw_attr(c, name, &a) != NULL;
}

bool children_udata(struct children_walker *w, struct die_children *c,
		    unsigned name, Dwarf_Word *out)
{
	struct unit_shapes *u = current(w, c);
	struct value v;
	Dwarf_Attribute a;

	if (u) {
		enum found k = find_value(u, c, name, &v);
		if (k == ABSENT)
			return false;
		if (k == FOUND && value_udata(u, &v, out))
			return true;
	}
	return libdw_attr(c, name, &a) && dwarf_formudata(&a, out) == 0;
}

const unsigned char *children_block(struct children_walker *w, struct die_children *c,
				    unsigned name, size_t *len, unsigned *addr_size)
{
	struct unit_shapes *u = current(w, c);
	struct value v;
	uint64_t n;

	if (!u || find_value(u, c, name, &v) != FOUND)
		return NULL;
	const unsigned char *p = v.p;
	switch (v.form) {
	case DW_FORM_exprloc: case DW_FORM_block:
		if (!leb_u(&p, u->end, &n))
			return NULL;
		break;
	case DW_FORM_block1: n = p[0]; p += 1; break;
	case DW_FORM_block2: n = le(p, 2); p += 2; break;
	case DW_FORM_block4: n = le(p, 4); p += 4; break;
	default:
		return NULL;	/* a location list */
	}
	if (n > (uint64_t)(u->end - p))
		return NULL;
	*len = (size_t)n;
	*addr_size = u->addr_size;
	return p;
}

bool children_value(struct children_walker *w, struct die_children *c,
		    unsigned name, unsigned *form, const unsigned char **value)
{
	struct unit_shapes *u = current(w, c);
	struct value v;

	if (!u || find_value(u, c, name, &v) != FOUND)
		return false;
	*form = v.form;
	*value = v.p;
	return true;
}

/* The unit DIE of c's unit u, as a child the shapes read. */
static bool unit_die(struct unit_shapes *u, struct die_children *c,
		     struct die_children *cu)
{
	const unsigned char *p = u->start + u->header;
	const struct shape *sh;
	bool null;

	*cu = (struct die_children){ .unit = u, .cu = c->cu };
	if (!(sh = shape_at(u, &p, &null)))
		return false;
	hand_out(cu, u, (uint32_t)(sh - u->shape), p, u->start + u->header);
	return true;
}

/* children_loc_unit of u, the unit of c. */
static bool loc_unit(struct children_walker *w, struct unit_shapes *u,
		     struct die_children *c, struct loc_unit *lu)
{
	struct children_cache *cc = w->cache;

	if (u->base_generation != u->generation) {
		struct die_children cu;
		struct value v;
		Dwarf_Attribute a;
		u->base_generation = u->generation;
		u->base = 0;	/* none: libdw's base is 0 then too */
		if (unit_die(u, c, &cu)) {
			enum found k = find_value(u, &cu, DW_AT_low_pc, &v);
			if (k == FOUND && value_addr(u, &v, &u->base))
				;
			else if (k != ABSENT && (!libdw_attr(&cu, DW_AT_low_pc, &a) ||
						 dwarf_formaddr(&a, &u->base) != 0))
				u->base = 0;
		}
	}
	*lu = (struct loc_unit){
		.version = u->version, .addr_size = u->addr_size,
		.offset_size = u->offset_size, .base = u->base,
		.loc = cc->loc ? cc->loc->d_buf : NULL,
		.loc_len = cc->loc ? cc->loc->d_size : 0,
		.loclists = cc->loclists ? cc->loclists->d_buf : NULL,
		.loclists_len = cc->loclists ? cc->loclists->d_size : 0,
	};
	return true;
}

bool children_loc_unit(struct children_walker *w, struct die_children *c,
		       struct loc_unit *lu)
{
	struct unit_shapes *u = current(w, c);

	return u && loc_unit(w, u, c, lu);
}

/* The string attribute name of c: by the shapes, else libdw's. */
static const char *string_of(struct children_walker *w, struct unit_shapes *u,
			     struct die_children *c, unsigned name)
{
	struct value v;
	Dwarf_Attribute a;
	enum found k = find_value(u, c, name, &v);
	const char *str;

	if (k == ABSENT)
		return NULL;
	if (k == FOUND && (str = value_string(w->cache, u, &v)))
		return str;
	return libdw_attr(c, name, &a) ? dwarf_formstring(&a) : NULL;
}

/* Whether u holds its unit's file hashes, read now (from the line table
 * its unit DIE's DW_AT_stmt_list points at) if not yet; false when
 * linefiles.c cannot read them: libdw's names then. */
static bool unit_file_hashes(struct children_walker *w, struct unit_shapes *u,
			     struct die_children *c)
{
	if (u->fhash_generation == u->generation)
		return u->fhash_ok;
	u->fhash_generation = u->generation;
	u->fhash_ok = false;
	struct die_children cu;
	Dwarf_Word off;
	if (!unit_die(u, c, &cu) || !children_udata(w, &cu, DW_AT_stmt_list, &off))
		return false;
	const char *comp_dir = string_of(w, u, &cu, DW_AT_comp_dir);
	u->fhash_ok = line_file_hashes(&w->cache->lines, off, comp_dir, &u->fhash);
	if (!u->fhash_ok)
		walker_debug(w, "unit <%#llx>: line table at %#llx not read here: "
			      "libdw's file names", (unsigned long long)cu.off,
			      (unsigned long long)off);
	return u->fhash_ok;
}

/* hash_str of what dwarf_decl_file says of the child, its own
 * DW_AT_decl_file index idx (NULL: none; integrate: then through its
 * origin): from its unit's table by linefiles.c, else libdw's name. */
static uint64_t file_hash_of(struct children_walker *w, struct die_children *c,
			     const Dwarf_Word *idx, bool integrate)
{
	struct unit_shapes *u;

	if (idx && (u = current(w, c)) && unit_file_hashes(w, u, c))
		/* index 0 is no file before DWARF 5, the unit's own after */
		return (*idx == 0 && u->version < 5) || *idx >= u->fhash.n ?
		       0 : u->fhash.v[*idx];
	Dwarf_Die *d = idx || integrate ? children_die(c) : NULL;
	return hash_str(d ? dwarf_decl_file(d) : NULL);
}

/* The attributes a definition is keyed by, as found. */
enum { DEF_NAME, DEF_FILE, DEF_LINE, DEF_SIZE, DEF_ATTRS };
struct def_attrs {
	struct value at[DEF_ATTRS];
	bool has[DEF_ATTRS];
	bool integrate;		/* DW_AT_abstract_origin or DW_AT_specification */
	bool declaration;
};

/* def_attrs in one pass over the attributes (every definition of every
 * header's structs is keyed: each attribute found on its own skipped
 * over the name before it five times); false when the shapes cannot
 * tell (none for the unit, attributes cut short). */
static bool def_attrs_pass(struct unit_shapes *u, struct die_children *c,
			   struct def_attrs *da)
{
	const struct shape *sh = &u->shape[c->code];

	if (u->end - c->attrs < sh->prefix)
		return false;
	const struct form *f = &u->forms[sh->form0];
	const unsigned char *p = c->attrs + sh->prefix;	/* the varying ones */
	for (uint32_t k = 0; k < sh->nforms; k++) {
		const unsigned char *v = k < sh->nfixed ? c->attrs + f[k].at : p;
		int i = -1;
		switch (f[k].name) {
		case DW_AT_declaration:
			da->declaration = true;	/* no key wanted */
			return true;
		case DW_AT_abstract_origin: case DW_AT_specification:
			da->integrate = true;
			break;
		case DW_AT_name: i = DEF_NAME; break;
		case DW_AT_decl_file: i = DEF_FILE; break;
		case DW_AT_decl_line: i = DEF_LINE; break;
		case DW_AT_byte_size: i = DEF_SIZE; break;
		}
		if (i >= 0 && !da->has[i]) {	/* the first, as libdw finds it */
			da->has[i] = true;
			da->at[i] = (struct value){ f[k].form,
						    f[k].implicit ? f[k].implicit : v };
		}
		if (k >= sh->nfixed && !(p = skip_value(u, f[k], p)))
			return false;
	}
	return true;
}

/* The unsigned constant of attribute i of da (the shapes', else libdw's
 * attribute name); false without one. */
static bool def_udata(struct unit_shapes *u, struct die_children *c,
		      const struct def_attrs *da, int i, unsigned name, Dwarf_Word *out)
{
	Dwarf_Attribute a;

	if (!da->has[i])
		return false;
	return value_udata(u, &da->at[i], out) ||
	       (libdw_attr(c, name, &a) && dwarf_formudata(&a, out) == 0);
}

/* children_definition by libdw alone, when the shapes cannot tell. */
static bool libdw_definition(struct die_children *c, struct children_def *d)
{
	Dwarf_Die *die = children_die(c);
	Dwarf_Attribute a;

	if (!die || dwarf_hasattr(die, DW_AT_declaration))
		return false;
	bool has_name = dwarf_attr(die, DW_AT_name, &a) != NULL;
	bool has_file = dwarf_hasattr(die, DW_AT_decl_file);
	bool integrate = (!has_name || !has_file) &&
			 (dwarf_hasattr(die, DW_AT_abstract_origin) ||
			  dwarf_hasattr(die, DW_AT_specification));
	d->name = has_name ? dwarf_formstring(&a) : integrate ? dwarf_diename(die) : NULL;
	d->file_hash = hash_str(has_file || integrate ? dwarf_decl_file(die) : NULL);
	d->line = d->size = 0;
	if (dwarf_attr(die, DW_AT_decl_line, &a))
		dwarf_formudata(&a, &d->line);
	if (dwarf_attr(die, DW_AT_byte_size, &a))
		dwarf_formudata(&a, &d->size);
	return true;
}

bool children_definition(struct children_walker *w, struct die_children *c,
			 struct children_def *d)
{
	struct unit_shapes *u = current(w, c);
	struct def_attrs da = { .declaration = false };
	Dwarf_Word idx;

	if (!u || !def_attrs_pass(u, c, &da))
		return libdw_definition(c, d);
	if (da.declaration)
		return false;
	/* dwarf_diename and dwarf_decl_file integrate what the DIE lacks */
	bool integrate = da.integrate && (!da.has[DEF_NAME] || !da.has[DEF_FILE]);
	Dwarf_Die *die;
	Dwarf_Attribute a;
	if (da.has[DEF_NAME])
		d->name = (d->name = value_string(w->cache, u, &da.at[DEF_NAME])) ? d->name :
			  libdw_attr(c, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
	else
		d->name = integrate && (die = children_die(c)) ? dwarf_diename(die) : NULL;
	bool file = def_udata(u, c, &da, DEF_FILE, DW_AT_decl_file, &idx);
	d->file_hash = file ? file_hash_of(w, c, &idx, integrate) :
		       hash_str(da.has[DEF_FILE] || integrate ?
				((die = children_die(c)) ? dwarf_decl_file(die) : NULL) : NULL);
	d->line = d->size = 0;
	def_udata(u, c, &da, DEF_LINE, DW_AT_decl_line, &d->line);
	def_udata(u, c, &da, DEF_SIZE, DW_AT_byte_size, &d->size);
	return true;
}

bool children_pc_range(struct children_walker *w, struct die_children *c,
		       Dwarf_Addr *lo, Dwarf_Addr *hi)
{
	struct unit_shapes *u = current(w, c);
	struct value low, high;
	Dwarf_Word len;
	Dwarf_Attribute a;

	if (!u || find_value(u, c, DW_AT_low_pc, &low) != FOUND ||
	    find_value(u, c, DW_AT_high_pc, &high) != FOUND)
		goto libdw;
	if (!value_addr(u, &low, lo))
		goto libdw;	/* an index into .debug_addr */
	if (value_addr(u, &high, hi))
		return true;
	if (value_udata(u, &high, &len)) {	/* DWARF 4 on: a length */
		*hi = *lo + len;
		return true;
	}
libdw:
	if (!libdw_attr(c, DW_AT_low_pc, &a) || dwarf_formaddr(&a, lo) != 0 ||
	    !libdw_attr(c, DW_AT_high_pc, &a))
		return false;
	switch (dwarf_whatform(&a)) {	/* an address, or (DWARF 4 on) a length */
	case DW_FORM_addr: case DW_FORM_addrx: case DW_FORM_addrx1:
	case DW_FORM_addrx2: case DW_FORM_addrx3: case DW_FORM_addrx4:
	case DW_FORM_GNU_addr_index:
		return dwarf_formaddr(&a, hi) == 0;
	default:
		if (dwarf_formudata(&a, &len) != 0)
			return false;
		*hi = *lo + len;
		return true;
	}
}
