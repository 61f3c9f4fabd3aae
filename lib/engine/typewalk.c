// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * From a type and a byte offset to the member there: through nested
 * structs, unions, anonymous members, arrays and bitfields, building the
 * dotted member path ("ms.map", "items[2].x") and perf's type name.
 *
 * Naming rules (DESIGN.md): a struct or union is named by its tag even when
 * reached through a typedef; the typedef names it only when it has no tag.
 * A union names its member covering the offset whose innermost field
 * there has the access's size and kind; when several fit equally, all of
 * them ("{lnglen|hnext}"), never one picked by order.  An array member
 * names the element index ("slots[3]").  An offset past the end of the
 * type is an element of an array of it (p[1].x): type and field of the
 * element, offset taken modulo the size; unless the struct ends in a
 * flexible array member, which runs on there (x->level[2].forward).
 */
#include <dwarf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define PATH_MAX_LEN 512
#define NAME_MAX_LEN 256
#define MAX_DEPTH 32

bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	struct type_answer a;
	Dwarf_Attribute attr;

	if (!type_memo_get(TYPE_OF, die->addr, &a)) {
		a = (struct type_answer){ .ok = false };
		a.ok = dwarf_attr_integrate(die, DW_AT_type, &attr) &&
		       dwarf_formref_die(&attr, &a.die);
		type_memo_put(TYPE_OF, die->addr, &a);
	}
	if (a.ok)
		*type = a.die;
	return a.ok;
}

static bool is_qualifier_or_typedef(int tag)
{
	return tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type ||
	       tag == DW_TAG_typedef;
}

/* type_peel_named's walk, *out and *typedef_name set as it goes. */
static bool peel(Dwarf_Die *in, Dwarf_Die *out, const char **typedef_name)
{
	*out = *in;
	*typedef_name = NULL;
	for (int i = 0; i < MAX_DEPTH; i++) {
		int tag = dwarf_tag(out);
		if (!is_qualifier_or_typedef(tag))
			return true;
		if (tag == DW_TAG_typedef)
			*typedef_name = dwarf_diename(out);
		if (!die_type(out, out))
			return false;	/* ends in void */
	}
	return false;
}

bool type_peel_named(Dwarf_Die *in, Dwarf_Die *out, const char **typedef_name)
{
	struct type_answer a;
	const void *addr = in->addr;	/* in may be out */

	if (type_memo_get(TYPE_PEELED, addr, &a)) {
		*out = a.die;
		*typedef_name = a.name;
		return a.ok;
	}
	a.ok = peel(in, out, typedef_name);
	a.die = *out;
	a.name = *typedef_name;
	type_memo_put(TYPE_PEELED, addr, &a);
	return a.ok;
}

bool type_peel(Dwarf_Die *in, Dwarf_Die *out)
{
	const char *ignored;

	return type_peel_named(in, out, &ignored);
}

/* The size of array type t (through qualifiers and typedefs) in a unit
 * that names no language: dwz's
 * partial units, whose subranges libdw cannot size (the default lower
 * bound is the language's).  Counted from 0, as in C, C++ and Rust:
 * Fortran and Ada compilers write their lower bounds.  False for an
 * array without bounds (a flexible array member). */
/* A subrange's bound: data forms are unsigned (libdw's dwarf_formsdata
 * sign-extends them: a char[200]'s upper bound 199, in one byte, would
 * read as -57), sdata and implicit_const signed. */
static bool bound_value(Dwarf_Attribute *a, Dwarf_Sword *v)
{
	Dwarf_Word u;
	unsigned form = dwarf_whatform(a);

	if (form == DW_FORM_sdata || form == DW_FORM_implicit_const)
		return dwarf_formsdata(a, v) == 0;
	if (dwarf_formudata(a, &u) != 0 || u > (Dwarf_Word)INT64_MAX)
		return false;
	*v = (Dwarf_Sword)u;
	return true;
}

static bool array_size_from_zero(Dwarf_Die *t, uint64_t *size)
{
	Dwarf_Die arr, elem, sub, cu;
	uint64_t esize, n = 1;

	if (!type_peel(t, &arr) || dwarf_tag(&arr) != DW_TAG_array_type ||
	    !dwarf_diecu(&arr, &cu, NULL, NULL) || dwarf_srclang(&cu) >= 0 ||
	    !die_type(&arr, &elem) ||
	    !type_byte_size(&elem, &esize) || dwarf_child(&arr, &sub) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Word count;
		Dwarf_Sword lo = 0, hi;
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr_integrate(&sub, DW_AT_count, &a)) {
			if (dwarf_formudata(&a, &count))
				return false;
		} else {
			if (!dwarf_attr_integrate(&sub, DW_AT_upper_bound, &a) ||
			    !bound_value(&a, &hi) ||
			    (dwarf_attr_integrate(&sub, DW_AT_lower_bound, &a) &&
			     !bound_value(&a, &lo)) || hi < lo - 1)
				return false;
			count = (Dwarf_Word)(hi - lo + 1);
		}
		if (__builtin_mul_overflow(n, count, &n))
			return false;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return !__builtin_mul_overflow(n, esize, size);
}

bool type_byte_size(Dwarf_Die *t, uint64_t *size)
{
	struct type_answer a;
	Dwarf_Word w;

	if (!type_memo_get(TYPE_SIZE, t->addr, &a)) {
		a = (struct type_answer){ .ok = dwarf_aggregate_size(t, &w) == 0 };
		a.size = a.ok ? w : 0;
		if (!a.ok)
			a.ok = array_size_from_zero(t, &a.size);
		type_memo_put(TYPE_SIZE, t->addr, &a);
	}
	if (a.ok)
		*size = a.size;
	return a.ok;
}

static const char *tag_keyword(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type: return "struct";
	case DW_TAG_union_type: return "union";
	case DW_TAG_class_type: return "class";
	case DW_TAG_enumeration_type: return "enum";
	default: return NULL;
	}
}

/* perf's spelling of any type die: "struct page", "char*", "int[4]". */
static void spell_type(Dwarf_Die *die, char *buf, size_t len, int depth)
{
	Dwarf_Die inner;
	const char *name = dwarf_diename(die);
	int tag = dwarf_tag(die);
	const char *kw = tag_keyword(tag);

	if (depth > MAX_DEPTH) {
		snprintf(buf, len, "?");
		return;
	}
	if (kw) {
		snprintf(buf, len, "%s %s", kw, name ? name : "(anon)");
		return;
	}
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_unspecified_type:
		snprintf(buf, len, "%s", name ? name : "?");
		return;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		char sub[NAME_MAX_LEN - 24];	/* room for the suffix */
		if (die_type(die, &inner))
			spell_type(&inner, sub, sizeof(sub), depth + 1);
		else
			snprintf(sub, sizeof(sub), "void");
		snprintf(buf, len, "%s%s", sub,
			 tag == DW_TAG_pointer_type ? "*" : "&");
		return;
	}
	case DW_TAG_array_type: {
		char sub[NAME_MAX_LEN - 24];	/* room for the suffix */
		uint64_t total, elem;
		if (!die_type(die, &inner)) {
			snprintf(buf, len, "?[]");
			return;
		}
		spell_type(&inner, sub, sizeof(sub), depth + 1);
		if (type_byte_size(die, &total) && type_byte_size(&inner, &elem) && elem)
			snprintf(buf, len, "%s[%" PRIu64 "]", sub, total / elem);
		else
			snprintf(buf, len, "%s[]", sub);
		return;
	}
	case DW_TAG_subroutine_type:
		snprintf(buf, len, "(function)");
		return;
	default:
		if (is_qualifier_or_typedef(tag) && die_type(die, &inner))
			spell_type(&inner, buf, len, depth + 1);
		else
			snprintf(buf, len, "%s", name ? name : "?");
	}
}

void type_spell(Dwarf_Die *die, char *buf, size_t len)
{
	spell_type(die, buf, len, 0);
}

/* Byte offset of a member within its parent: DW_AT_data_member_location
 * as a constant, or as the DWARF 2 expression "DW_OP_plus_uconst N";
 * absent in a union (offset 0). */
static bool member_location(Dwarf_Die *m, uint64_t *loc)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;
	Dwarf_Op *e;
	size_t n;

	*loc = 0;
	if (!dwarf_attr(m, DW_AT_data_member_location, &attr))
		return true;
	if (dwarf_formudata(&attr, &w) == 0) {
		*loc = w;
		return true;
	}
	if (dwarf_getlocation(&attr, &e, &n) == 0 && n == 1 &&
	    (e[0].atom == DW_OP_plus_uconst || e[0].atom == DW_OP_constu)) {
		*loc = e[0].number;
		return true;
	}
	return false;
}

/* The bits [*first_bit, *first_bit + *nbits) of bitfield m (of type mtype,
 * peeled) in its parent; false for other members.  DWARF 4's
 * DW_AT_data_bit_offset counts from the start of the parent; DWARF 2's
 * DW_AT_bit_offset counts from the most significant bit of a byte_size
 * storage unit at data_member_location (little-endian targets). */
bool type_bitfield_bits(Dwarf_Die *m, Dwarf_Die *mtype, uint64_t *first_bit,
			  uint64_t *nbits)
{
	Dwarf_Attribute attr;
	Dwarf_Word bits, bitoff, unit;
	uint64_t loc;

	if (!dwarf_attr(m, DW_AT_bit_size, &attr) ||
	    dwarf_formudata(&attr, &bits) != 0)
		return false;
	*nbits = bits;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &attr) &&
	    dwarf_formudata(&attr, &bitoff) == 0) {
		*first_bit = bitoff;
		return true;
	}
	if (!member_location(m, &loc))
		return false;
	if (!(dwarf_attr(m, DW_AT_bit_offset, &attr) &&
	      dwarf_formudata(&attr, &bitoff) == 0))
		bitoff = 0;
	if (!(dwarf_attr(m, DW_AT_byte_size, &attr) &&
	      dwarf_formudata(&attr, &unit) == 0) &&
	    !type_byte_size(mtype, &unit))
		return false;
	if (bitoff + bits > unit * 8)
		return false;
	*first_bit = loc * 8 + unit * 8 - bitoff - bits;
	return true;
}

/* The bytes [start, end) a member occupies (a bitfield: the bytes its bits
 * touch). */
bool member_extent(Dwarf_Die *m, Dwarf_Die *mtype, uint64_t *start,
		   uint64_t *end, bool *open_ended)
{
	uint64_t loc, size, first_bit, nbits;

	*open_ended = false;
	if (dwarf_hasattr(m, DW_AT_bit_size)) {
		if (!type_bitfield_bits(m, mtype, &first_bit, &nbits))
			return false;
		*start = first_bit / 8;
		*end = (first_bit + nbits + 7) / 8;
		return true;
	}
	if (!member_location(m, &loc))
		return false;
	*start = loc;
	if (!type_byte_size(mtype, &size)) {
		/* flexible array member: runs to the end of the object */
		*open_ended = true;
		*end = UINT64_MAX;
		return true;
	}
	*end = loc + size;
	return true;
}

struct path_buf {
	char s[PATH_MAX_LEN];
	size_t used;
	bool truncated;
};

static void path_add(struct path_buf *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void path_add(struct path_buf *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->truncated)
		return;
	va_start(ap, fmt);
	n = vsnprintf(p->s + p->used, sizeof(p->s) - p->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(p->s) - p->used) {
		p->s[p->used] = '\0';
		p->truncated = true;
		return;
	}
	p->used += (size_t)n;
}

const char *member_name(Dwarf_Die *m, char *buf, size_t len)
{
	Dwarf_Attribute a;
	const char *name = dwarf_tag(m) == DW_TAG_member &&
			   dwarf_attr_integrate(m, DW_AT_name, &a) ?
			   dwarf_formstring(&a) : NULL;

	if (!name)
		return "";
	/* the vtable pointer: gcc says "_vptr.Base", clang "_vptr$Base" */
	if (!strncmp(name, "_vptr$", 6)) {
		snprintf(buf, len, "_vptr.%s", name + 6);
		return buf;
	}
	return name;
}

struct member_pick {
	Dwarf_Die die, type;
	uint64_t start;
};

/* The innermost member's size and whether it is a floating-point type. */
struct leaf {
	uint64_t size;
	bool fp;
};

static struct leaf walk_members(struct dt_session *s, Dwarf_Die *t,
				uint64_t off, const struct access *acc,
				struct path_buf *p, int depth);

/* Whether bitfield m, at bits [fb, fb + nb) of its parent, holds one of
 * the bits the access at off looks at or changes (acc->bits, from the
 * access's first byte). */
static bool bits_hit(const struct access *acc, uint64_t off, uint64_t fb,
		     uint64_t nb)
{
	for (unsigned b = 0; b < 64; b++)
		if (acc->bits >> b & 1 && off * 8 + b >= fb && off * 8 + b < fb + nb)
			return true;
	return false;
}

/* How well member m (type mt, at start) answers the access at off:
 * 0 not at all, more is better; a bitfield whose bits the instruction's
 * mask misses, or a union member whose innermost field has another size
 * or another kind (float, integer) than the access, says less. */
static int member_score(struct dt_session *s, Dwarf_Die *m, Dwarf_Die *mt,
			uint64_t start, uint64_t off, const struct access *acc,
			int depth, bool is_union)
{
	uint64_t fb, nb;
	int score = 1;

	if (acc && acc->bits && type_bitfield_bits(m, mt, &fb, &nb) &&
	    bits_hit(acc, off, fb, nb))
		score += 4;
	if (is_union && acc && acc->size) {
		struct leaf l = walk_members(s, mt, off - start, acc, NULL, depth + 1);
		if (l.size == acc->size)
			score += 2 + (l.fp == acc->fp);
	}
	return score;
}

/* Members the access cannot tell apart (a union's, bitfields sharing
 * its bytes), for naming them all. */
#define MAX_TIES 6
struct ties {
	struct member_pick m[MAX_TIES];
	size_t n;
	bool more;			/* past MAX_TIES */
};

static void tie_add(struct ties *ties, const struct member_entry *e)
{
	if (ties->n < MAX_TIES)
		ties->m[ties->n++] = (struct member_pick){ e->m, e->mt, e->start };
	else
		ties->more = true;
}

/* Whether bits [fb, fb + nb) meet bytes [off, off + len). */
static bool bits_in_bytes(uint64_t fb, uint64_t nb, uint64_t off, uint64_t len)
{
	return fb < (off + len) * 8 && off * 8 < fb + nb;
}

/* A load of bitfield bytes whose bits the instruction does not tell
 * (a byte loaded, then shifted and masked in a register): every bitfield
 * the bytes [off, off + reach) hold, from entry i on, is a candidate. */
static bool bitfield_group(const struct member_table *tab, size_t i,
			   uint64_t off, uint64_t reach, struct ties *ties)
{
	for (size_t j = i + 1; ties && j < tab->n; j++) {
		const struct member_entry *e = &tab->v[j];
		if (e->start >= off + reach || e->end <= off)
			continue;
		if (!e->nbits)
			break;		/* a whole member: the group ends */
		if (bits_in_bytes(e->first_bit, e->nbits, off, reach))
			tie_add(ties, e);
	}
	return true;
}

/* The member of a struct or union covering off; several do in a union,
 * and bitfields share bytes: the best by member_score(), the first
 * declared of equals, and in *ties (when not NULL) every union member or
 * bitfield the access fits as well.  When off is in a hole or padding,
 * the first member the access reaches into (a wide load of a bitfield
 * word that starts before the bitfields). */
static bool pick_member(struct dt_session *s, Dwarf_Die *t, uint64_t off,
			const struct access *acc, int depth,
			struct member_pick *pick, struct ties *ties)
{
	const struct member_table *tab = member_table_get(s, t);
	bool is_union = dwarf_tag(t) == DW_TAG_union_type;
	int best = 0;
	uint64_t reach = acc && acc->size > 1 ? acc->size : 1;
	struct member_pick next = { .start = UINT64_MAX };

	if (ties)
		ties->n = 0, ties->more = false;
	for (size_t i = 0; tab && i < tab->n; i++) {
		const struct member_entry *e = &tab->v[i];
		/* a bitfield further in the access whose bits the instruction
		 * reads ("ldr w0, [x0]; ubfx x0, x0, #16, #9": the bitfield at
		 * bit 16) competes with those covering off */
		bool read_further = !is_union && e->nbits && acc && acc->bits &&
				    e->start > off && e->start < off + reach &&
				    bits_hit(acc, off, e->first_bit, e->nbits);
		if ((off < e->start || off >= e->end) && !read_further) {
			if (e->start > off && e->start < off + reach && e->start < next.start)
				next = (struct member_pick){ e->m, e->mt, e->start };
			continue;
		}
		Dwarf_Die m = e->m, mt = e->mt;
		bool bits = !is_union && e->nbits;
		if (bits && !(acc && acc->bits) &&
		    !bits_in_bytes(e->first_bit, e->nbits, off, reach))
			continue;	/* its unit covers off, its bits do not */
		int score = member_score(s, &m, &mt, e->start, off, acc, depth, is_union);
		if (score > best) {
			*pick = (struct member_pick){ e->m, e->mt, e->start };
			best = score;
			if (ties)
				ties->n = 0, ties->more = false;
		}
		/* union members, or bitfields sharing the bytes, that the
		 * access fits as well: named together */
		if (ties && (is_union || bits) && score == best)
			tie_add(ties, e);
		if (!is_union && !bits && !(acc && acc->bits))
			return true;	/* one member covers a byte of a struct */
		if (bits && !(acc && acc->bits))
			return bitfield_group(tab, i, off, reach, ties);
	}
	if (!best && next.start != UINT64_MAX) {
		*pick = next;
		return true;
	}
	return best > 0;
}

enum step { STEP_ARRAY, STEP_MEMBER, STEP_LEAF, STEP_NONE };
static enum step step_down(struct dt_session *s, Dwarf_Die *t, uint64_t *off,
			   const struct access *acc, int depth, uint64_t *esize,
			   struct member_pick *pick);

/* Whether an access of acc->size bytes at off into t reads one whole
 * scalar member that starts there ("movzbl 0xc(%rcx)": Proto's
 * maxstacksize, not four bytes into Table's alimit). */
static bool exact_leaf(struct dt_session *s, Dwarf_Die *t, uint64_t off,
		       const struct access *acc, int depth)
{
	for (; depth <= MAX_DEPTH; depth++) {
		struct member_pick pick;
		uint64_t esize, size;
		switch (step_down(s, t, &off, acc, depth, &esize, &pick)) {
		case STEP_LEAF:
			return !off && type_byte_size(t, &size) && size == acc->size;
		case STEP_NONE:
			return false;
		case STEP_ARRAY:
		case STEP_MEMBER:
			break;
		}
	}
	return false;
}

/* Whether a member of type t, the access at off into it, can hold the
 * pointer the code dereferences next (acc->deref_*): a pointer to a
 * struct or union with a member there, directly or through one of the
 * union members or the struct member covering off. */
static bool fits_deref(struct dt_session *s, Dwarf_Die *t, uint64_t off,
		       const struct access *acc, int depth)
{
	Dwarf_Die pt;
	int tag = dwarf_tag(t);

	if (depth > MAX_DEPTH)
		return false;
	if (tag == DW_TAG_pointer_type) {
		struct access at = { .size = acc->deref_size };
		if (off || !die_type(t, &pt) || !type_peel(&pt, &pt))
			return false;
		tag = dwarf_tag(&pt);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_class_type)
			return false;
		return acc->deref_off >= 0 &&
		       exact_leaf(s, &pt, (uint64_t)acc->deref_off, &at, depth + 1);
	}
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_class_type)
		return false;
	const struct member_table *tab = member_table_get(s, t);
	for (size_t i = 0; tab && i < tab->n; i++) {
		const struct member_entry *e = &tab->v[i];
		Dwarf_Die mt = e->mt;
		if (off >= e->start && off < e->end && !e->nbits &&
		    fits_deref(s, &mt, off - e->start, acc, depth + 1))
			return true;
	}
	return false;
}

/* Ties the next dereference decides: the members that can hold such a
 * pointer; all of them when none can (the dereference says nothing). */
static void ties_by_deref(struct dt_session *s, struct ties *ties, uint64_t off,
			  const struct access *acc, int depth)
{
	size_t kept = 0;
	struct member_pick fit[MAX_TIES];

	if (!acc || !acc->deref_known || ties->more)
		return;
	for (size_t i = 0; i < ties->n; i++) {
		Dwarf_Die mt = ties->m[i].type;
		if (off >= ties->m[i].start &&
		    fits_deref(s, &mt, off - ties->m[i].start, acc, depth + 1))
			fit[kept++] = ties->m[i];
	}
	if (!kept)
		return;
	memcpy(ties->m, fit, kept * sizeof(fit[0]));
	ties->n = kept;
}

/* Union members the access fits equally well: not one of them, all of
 * them, "{lnglen|hnext}" (each with its own path inside: "{a.x|b}"), as
 * DESIGN.md says; the first's leaf is returned. */
static struct leaf name_ties(struct dt_session *s, const struct ties *ties,
			     uint64_t off, const struct access *acc,
			     struct path_buf *p, int depth)
{
	struct leaf first = { 0, false };

	path_add(p, "%s{", p->used ? "." : "");
	for (size_t i = 0; i < ties->n; i++) {
		struct path_buf sub = { .used = 0 };
		Dwarf_Die m = ties->m[i].die, mt = ties->m[i].type;
		char buf[NAME_MAX_LEN];
		const char *name = member_name(&m, buf, sizeof(buf));
		if (*name)
			path_add(&sub, "%s", name);
		struct leaf l = walk_members(s, &mt, off - ties->m[i].start, acc, &sub,
					     depth + 1);
		if (!i)
			first = l;
		path_add(p, "%s%s", i ? "|" : "", sub.used ? sub.s : "(anonymous)");
	}
	path_add(p, "%s}", ties->more ? "|..." : "");
	return first;
}

/* Descend from t to the innermost member covering off (or reached by the
 * access), appending its path to p (when not NULL).  Returns that member's
 * size (0 in a hole or padding, or unknown) and kind. */
static struct leaf walk_members(struct dt_session *s, Dwarf_Die *t,
				uint64_t off, const struct access *acc,
				struct path_buf *p, int depth)
{
	int tag = dwarf_tag(t);
	struct leaf l = { 0, false };

	if (depth > MAX_DEPTH)
		return l;
	if (tag == DW_TAG_array_type) {
		Dwarf_Die elem;
		uint64_t esize;
		if (!die_type(t, &elem) || !type_peel(&elem, &elem) ||
		    !type_byte_size(&elem, &esize) || !esize)
			return l;
		if (p)
			path_add(p, "[%" PRIu64 "]", off / esize);
		return walk_members(s, &elem, off % esize, acc, p, depth + 1);
	}
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_class_type) {
		Dwarf_Attribute a;
		Dwarf_Word enc;
		if (!type_byte_size(t, &l.size))
			l.size = 0;
		l.fp = tag == DW_TAG_base_type && dwarf_attr(t, DW_AT_encoding, &a) &&
		       dwarf_formudata(&a, &enc) == 0 &&
		       (enc == DW_ATE_float || enc == DW_ATE_complex_float);
		return l;
	}

	struct member_pick pick;
	struct ties ties;
	if (!pick_member(s, t, off, acc, depth, &pick, p ? &ties : NULL))
		return l;	/* a hole or tail padding */
	if (p && ties.n > 1) {
		ties_by_deref(s, &ties, off, acc, depth);
		if (ties.n == 1)
			pick = ties.m[0];
	}
	if (p && ties.n > 1)
		return name_ties(s, &ties, off, acc, p, depth);
	if (p) {
		char buf[NAME_MAX_LEN];
		const char *name = member_name(&pick.die, buf, sizeof(buf));
		/* an anonymous struct or union adds no name */
		if (*name)
			path_add(p, "%s%s", p->used ? "." : "", name);
	}
	/* a member reached past a hole: from its start */
	return walk_members(s, &pick.type, off > pick.start ? off - pick.start : 0,
			    acc, p, depth + 1);
}

/* One level down from *t at *off: into an array's element (*esize set)
 * or into the struct or union member covering *off (*pick set); *t and
 * *off follow.  STEP_LEAF: *t is neither; STEP_NONE: a hole, padding, or
 * a type without a size. */
static enum step step_down(struct dt_session *s, Dwarf_Die *t, uint64_t *off,
			   const struct access *acc, int depth, uint64_t *esize,
			   struct member_pick *pick)
{
	int tag = dwarf_tag(t);

	if (tag == DW_TAG_array_type) {
		Dwarf_Die elem;
		if (!die_type(t, &elem) || !type_peel(&elem, &elem) ||
		    !type_byte_size(&elem, esize) || !*esize)
			return STEP_NONE;
		*off %= *esize;
		*t = elem;
		return STEP_ARRAY;
	}
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_class_type)
		return STEP_LEAF;
	if (!pick_member(s, t, *off, acc, depth, pick, NULL) || pick->start > *off)
		return STEP_NONE;
	*off -= pick->start;
	*t = pick->type;
	return STEP_MEMBER;
}

bool type_in_array_of_step(struct dt_session *s, Dwarf_Die *type, uint64_t off,
			   uint64_t step)
{
	struct member_pick pick;
	uint64_t esize;
	Dwarf_Die t;

	if (!type_peel(type, &t))
		return false;
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		switch (step_down(s, &t, &off, NULL, depth, &esize, &pick)) {
		case STEP_ARRAY:
			if (step % esize == 0)
				return true;
			break;
		case STEP_MEMBER:
			break;
		case STEP_LEAF:
		case STEP_NONE:
			return false;
		}
	}
	return false;
}

bool type_access_fits(struct dt_session *s, Dwarf_Die *type, uint64_t off,
		      unsigned access_size)
{
	struct access acc = { .size = access_size };
	struct member_pick pick;
	uint64_t size;
	Dwarf_Die t;

	if (!type_peel(type, &t))
		return false;
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		switch (step_down(s, &t, &off, &acc, depth, &size, &pick)) {
		case STEP_ARRAY:
			break;
		case STEP_MEMBER:
			if (dwarf_hasattr(&pick.die, DW_AT_bit_size))	/* its unit */
				return !access_size || (type_byte_size(&t, &size) &&
							access_size <= size);
			break;
		case STEP_LEAF:
			return off == 0 && type_byte_size(&t, &size) &&
			       (!access_size || size == access_size);
		case STEP_NONE:
			return false;	/* a hole or padding */
		}
	}
	return false;
}

bool type_member_type_at(struct dt_session *s, Dwarf_Die *type, uint64_t off,
			 Dwarf_Die *out)
{
	struct access ptr = { .size = 8 };
	struct member_pick pick;
	uint64_t esize;
	Dwarf_Die t;

	if (!type_peel(type, &t))
		return false;
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		if (off == 0 && type_wrapped_pointer(&t, out, 0))
			return true;	/* a pointer, or Box<T>, Option<Box<T>> */
		enum step k = step_down(s, &t, &off, &ptr, depth, &esize, &pick);
		if (k == STEP_LEAF || k == STEP_NONE)
			return false;
	}
	return false;
}


/* Whether struct t is a bare link: every member points to t's own type
 * (struct list_head { next, prev }), so that a list's head and the node
 * in each of its entries are the same thing. */
static bool is_bare_link(struct dt_session *s, Dwarf_Die *t)
{
	const struct member_table *mt;
	Dwarf_Die to;

	if (dwarf_tag(t) != DW_TAG_structure_type ||
	    !(mt = member_table_get(s, t)) || !mt->n)
		return false;
	for (size_t i = 0; i < mt->n; i++) {
		Dwarf_Die *m = (Dwarf_Die *)&mt->v[i].mt;
		if (dwarf_tag(m) != DW_TAG_pointer_type || !die_type(m, &to) ||
		    !type_peel(&to, &to) || to.addr != t->addr)
			return false;
	}
	return true;
}

bool type_link_at(struct dt_session *s, Dwarf_Die *type, uint64_t off,
		  const struct access *acc, Dwarf_Die *link, uint64_t *link_off,
		  bool *in_union)
{
	struct member_pick pick;
	uint64_t esize;
	Dwarf_Die t;

	*in_union = false;
	if (!type_peel(type, &t))
		return false;
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		if (depth && is_bare_link(s, &t)) {
			*link = t;
			*link_off = off;
			return true;
		}
		if (dwarf_tag(&t) == DW_TAG_union_type)
			*in_union = true;
		enum step k = step_down(s, &t, &off, acc, depth, &esize, &pick);
		if (k == STEP_LEAF || k == STEP_NONE)
			return false;
	}
	return false;
}

/* Whether off of struct t lies in its flexible array member (the last,
 * without a size: x->level[i] past the struct's fixed part). */
static bool in_flexible_array(struct dt_session *s, Dwarf_Die *t, uint64_t off)
{
	int tag = dwarf_tag(t);
	const struct member_table *mt;

	if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type)
		return false;
	mt = member_table_get(s, t);
	return mt && mt->n && mt->v[mt->n - 1].end == UINT64_MAX &&
	       off >= mt->v[mt->n - 1].start;
}

enum dt_reason type_member_at(struct dt_session *s, Dwarf_Die *type,
			      const char *typedef_name, int64_t off,
			      const struct access *acc, struct type_hit *out)
{
	char name[NAME_MAX_LEN];
	struct path_buf path = { .used = 0 };
	Dwarf_Die t;
	uint64_t size = 0;
	int tag;

	memset(out, 0, sizeof(*out));
	out->field = "";
	if (!type_peel(type, &t))
		return DT_NO_TYPE;
	tag = dwarf_tag(&t);
	if (tag_keyword(tag) && !dwarf_diename(&t) && typedef_name)
		snprintf(name, sizeof(name), "%s", typedef_name);
	else
		spell_type(&t, name, sizeof(name), 0);
	out->type = session_intern(s, name);
	out->type_id = session_die_key(s, &t);
	if (type_byte_size(&t, &size))
		out->size = size;
	if (off < 0)
		return DT_BAD_OFFSET;
	/* past the end: the next element of an array of it, unless the
	 * struct ends in a flexible array that runs on there */
	out->beyond_end = size && (uint64_t)off >= size &&
			  !in_flexible_array(s, &t, (uint64_t)off);
	if (out->beyond_end)
		off = (int64_t)((uint64_t)off % size);	/* element of an array */
	out->offset = off;
	path.s[0] = '\0';
	struct leaf l = walk_members(s, &t, (uint64_t)off, acc, &path, 0);
	out->field = session_intern(s, path.s);
	/* bytes no member of a struct holds (its tail padding, a hole the
	 * access stays in): not this struct's data, but most often a larger
	 * object's that starts like it (a common header) */
	if ((tag == DW_TAG_structure_type || tag == DW_TAG_class_type) &&
	    !path.used && !l.size)
		return DT_BAD_OFFSET;
	return DT_OK;
}

enum dt_reason var_member_at(struct dt_session *s, Dwarf_Die *var, uint64_t off,
			     const struct access *acc, struct type_hit *out)
{
	const char *typedef_name = NULL;
	Dwarf_Die t, peeled;

	if (!die_type(var, &t))
		return DT_NO_TYPE;
	/* an array names its element type (DESIGN.md) */
	if (type_peel(&t, &peeled) && dwarf_tag(&peeled) == DW_TAG_array_type) {
		uint64_t esize;
		Dwarf_Die elem;
		if (die_type(&peeled, &elem) && type_byte_size(&elem, &esize) && esize) {
			t = elem;
			off %= esize;
		}
	}
	/* an anonymous struct is known by its typedef */
	if (!type_peel_named(&t, &peeled, &typedef_name))
		return DT_NO_TYPE;
	return type_member_at(s, &t, typedef_name, (int64_t)off, acc, out);
}

/* Whether member m sits at offset 0 and its type is (or wraps) a pointer. */
static bool wraps_at_zero(Dwarf_Die *m, Dwarf_Die *ptr, int depth)
{
	Dwarf_Die mt;
	uint64_t loc = 0;

	return dwarf_tag(m) == DW_TAG_member &&
	       (!dwarf_hasattr(m, DW_AT_data_member_location) ||
		member_location(m, &loc)) && loc == 0 &&
	       !dwarf_hasattr(m, DW_AT_bit_size) && die_type(m, &mt) &&
	       type_peel(&mt, &mt) && type_wrapped_pointer(&mt, ptr, depth + 1);
}

bool type_wrapped_pointer(Dwarf_Die *t, Dwarf_Die *ptr, int depth)
{
	int tag = dwarf_tag(t);
	uint64_t size, psize;
	Dwarf_Die c, v, m;

	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	    tag == DW_TAG_rvalue_reference_type) {
		*ptr = *t;
		return true;
	}
	if (depth > 8 || (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
			  tag != DW_TAG_class_type) ||
	    !type_byte_size(t, &size) || size != 8 || dwarf_child(t, &c) != 0)
		return false;
	do {
		if (wraps_at_zero(&c, ptr, depth))
			goto found;
		if (dwarf_tag(&c) != DW_TAG_variant_part || dwarf_child(&c, &v) != 0)
			continue;
		do {	/* each variant is a view of the same bytes */
			if (dwarf_tag(&v) != DW_TAG_variant || dwarf_child(&v, &m) != 0)
				continue;
			do {
				if (wraps_at_zero(&m, ptr, depth))
					goto found;
			} while (dwarf_siblingof(&m, &m) == 0);
		} while (dwarf_siblingof(&v, &v) == 0);
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
found:
	return !type_byte_size(ptr, &psize) || psize == size;
}


void answer_take(struct dt_answer *ans, const struct type_hit *th)
{
	ans->type = th->type;
	ans->type_id = th->type_id;
	ans->type_size = th->size;
	ans->offset = th->offset;
	ans->field = th->field;
}
