// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A struct's members as C declares them, read back from DWARF: each
 * member's declaration (declarator syntax, anonymous bodies inline,
 * bitfield widths, alignment attributes), offset, size and alignment.
 * advise.c proposes a new order from it; it prints a definition that
 * compiles where the original did.
 */
#define _GNU_SOURCE	/* asprintf */
#include <dwarf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../arrays.h"

#define MAX_DEPTH 16
static const char TABS[MAX_DEPTH + 2] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";

/* printf into a new string; NULL on allocation failure. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vasprintf(&s, f, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

static uint64_t udata(Dwarf_Die *d, unsigned at, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	return dwarf_attr(d, at, &a) && dwarf_formudata(&a, &w) == 0 ? w : dflt;
}

/* The alignment C gives type t (not peeled): DW_AT_alignment where the
 * source asked for one, else the psABI's natural alignment (scalars by
 * size, aggregates by their strictest member). */
static uint64_t type_align(Dwarf_Die *t, int depth)
{
	uint64_t a = udata(t, DW_AT_alignment, 0), size;
	Dwarf_Die u, m;

	if (a || depth > MAX_DEPTH)
		return a ? a : 1;
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		size = udata(t, DW_AT_byte_size, 1);
		if (!size && dwarf_tag(t) == DW_TAG_enumeration_type &&
		    die_type(t, &u))
			return type_align(&u, depth + 1);
		/* a complex number is aligned as one of its two parts (psABI:
		 * _Complex double 8, _Complex float 4); GCC marks complex
		 * integers DW_ATE_lo_user */
		if (dwarf_tag(t) == DW_TAG_base_type && size >= 2 &&
		    (udata(t, DW_AT_encoding, 0) == DW_ATE_complex_float ||
		     (udata(t, DW_AT_encoding, 0) == DW_ATE_lo_user &&
		      dwarf_diename(t) && strstr(dwarf_diename(t), "complex"))))
			size /= 2;
		/* long double, __int128 and _Float128 are 16 */
		return size > 16 ? 16 : size ? size : 1;
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_array_type:
		return die_type(t, &u) ? type_align(&u, depth + 1) : 1;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		a = 1;
		if (dwarf_child(t, &m) == 0)
			do {
				uint64_t ma;
				if (dwarf_tag(&m) != DW_TAG_member &&
				    dwarf_tag(&m) != DW_TAG_inheritance)
					continue;
				if (dwarf_hasattr(&m, DW_AT_external))
					continue;	/* C++ static member */
				ma = udata(&m, DW_AT_alignment, 0);
				if (!ma && die_type(&m, &u))
					ma = type_align(&u, depth + 1);
				if (ma > a)
					a = ma;
			} while (dwarf_siblingof(&m, &m) == 0);
		return a;
	default:
		return 1;
	}
}

static char *render(Dwarf_Die *t, const char *inner, int indent, int depth);

/* inner with a space before it, unless empty or a declarator that binds
 * without one. */
static const char *sep(const char *inner)
{
	return *inner && *inner != '[' ? " " : "";
}

static char *render_enum_body(Dwarf_Die *t)
{
	char *s = fmt("enum {"), *n;
	Dwarf_Die e;
	bool first = true;

	if (s && dwarf_child(t, &e) == 0)
		do {
			Dwarf_Attribute a;
			Dwarf_Sword v = 0;
			if (dwarf_tag(&e) != DW_TAG_enumerator || !dwarf_diename(&e))
				continue;
			if (dwarf_attr(&e, DW_AT_const_value, &a))
				dwarf_formsdata(&a, &v);
			n = fmt("%s%s %s = %lld", s, first ? "" : ",",
				dwarf_diename(&e), (long long)v);
			free(s);
			s = n;
			first = false;
		} while (s && dwarf_siblingof(&e, &e) == 0);
	if (!s)
		return NULL;
	n = fmt("%s }", s);
	free(s);
	return n;
}

static char *member_decl(Dwarf_Die *m, int indent, int depth);

/* "struct {\n<members>\n}" of an anonymous aggregate, members one tab
 * deeper than indent. */
static char *render_body(Dwarf_Die *t, int indent, int depth)
{
	const char *kw = dwarf_tag(t) == DW_TAG_union_type ? "union" : "struct";
	char *s = fmt("%s {\n", kw), *n, *d;
	Dwarf_Die m;

	if (s && dwarf_child(t, &m) == 0)
		do {
			if (dwarf_tag(&m) != DW_TAG_member)
				continue;
			d = member_decl(&m, indent + 1, depth + 1);
			n = d ? fmt("%s%.*s%s;\n", s, indent + 1, TABS, d) : NULL;
			free(d);
			free(s);
			s = n;
		} while (s && dwarf_siblingof(&m, &m) == 0);
	if (!s)
		return NULL;
	n = fmt("%s%.*s}", s, indent, TABS);
	free(s);
	return n;
}

static const char *qualifier(int tag)
{
	switch (tag) {
	case DW_TAG_const_type: return "const";
	case DW_TAG_volatile_type: return "volatile";
	case DW_TAG_restrict_type: return "restrict";
	case DW_TAG_atomic_type: return "_Atomic";
	default: return NULL;
	}
}

static char *render_params(Dwarf_Die *fn, int indent, int depth)
{
	char *s = fmt("%s", ""), *n, *p;
	Dwarf_Die c, pt;
	bool any = false;

	if (s && dwarf_child(fn, &c) == 0)
		do {
			int tag = dwarf_tag(&c);
			if (tag == DW_TAG_formal_parameter)
				p = render(die_type(&c, &pt) ? &pt : NULL, "", indent, depth + 1);
			else if (tag == DW_TAG_unspecified_parameters)
				p = fmt("...");
			else
				continue;
			n = p ? fmt("%s%s%s", s, any ? ", " : "", p) : NULL;
			free(p);
			free(s);
			s = n;
			any = true;
		} while (s && dwarf_siblingof(&c, &c) == 0);
	if (s && !any && dwarf_hasattr(fn, DW_AT_prototyped)) {
		free(s);
		s = fmt("void");
	}
	return s;
}

/* The declaration of `inner` (a name, or a partial declarator) with type
 * t; t NULL is void.  Malloc'd, NULL on failure. */
static char *render(Dwarf_Die *t, const char *inner, int indent, int depth)
{
	Dwarf_Die u;
	const char *name, *q;
	char *in = NULL, *out = NULL, *body;
	int tag;

	if (depth > MAX_DEPTH)
		return NULL;
	if (!t)
		return fmt("void%s%s", sep(inner), inner);
	tag = dwarf_tag(t);
	name = dwarf_diename(t);
	if ((q = qualifier(tag))) {
		bool has = die_type(t, &u);
		if (has && dwarf_tag(&u) == DW_TAG_pointer_type) {
			in = fmt("%s%s%s", q, *inner ? " " : "", inner);
			out = in ? render(&u, in, indent, depth + 1) : NULL;
		} else {
			in = render(has ? &u : NULL, inner, indent, depth + 1);
			out = in ? fmt("%s %s", q, in) : NULL;
		}
		free(in);
		return out;
	}
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *star = tag == DW_TAG_pointer_type ? "*" :
				   tag == DW_TAG_reference_type ? "&" : "&&";
		bool has = die_type(t, &u);
		int ut = has ? dwarf_tag(&u) : 0;
		if (ut == DW_TAG_array_type || ut == DW_TAG_subroutine_type)
			in = fmt("(%s%s)", star, inner);
		else
			in = fmt("%s%s", star, inner);
		out = in ? render(has ? &u : NULL, in, indent, depth + 1) : NULL;
		free(in);
		return out;
	}
	case DW_TAG_array_type: {
		Dwarf_Die sub;
		in = fmt("%s", inner);
		if (in && dwarf_child(t, &sub) == 0)
			do {
				char *n;
				if (dwarf_tag(&sub) != DW_TAG_subrange_type)
					continue;
				if (dwarf_hasattr(&sub, DW_AT_count))
					n = fmt("%s[%llu]", in, (unsigned long long)
						udata(&sub, DW_AT_count, 0));
				else if (dwarf_hasattr(&sub, DW_AT_upper_bound))
					n = fmt("%s[%llu]", in, (unsigned long long)
						udata(&sub, DW_AT_upper_bound, 0) + 1);
				else
					n = fmt("%s[]", in);
				free(in);
				in = n;
			} while (in && dwarf_siblingof(&sub, &sub) == 0);
		out = in ? render(die_type(t, &u) ? &u : NULL, in, indent, depth + 1) : NULL;
		free(in);
		return out;
	}
	case DW_TAG_subroutine_type: {
		char *params = render_params(t, indent, depth);
		in = params ? fmt("%s(%s)", inner, params) : NULL;
		free(params);
		out = in ? render(die_type(t, &u) ? &u : NULL, in, indent, depth + 1) : NULL;
		free(in);
		return out;
	}
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
	case DW_TAG_enumeration_type: {
		const char *kw = tag == DW_TAG_structure_type ? "struct" :
				 tag == DW_TAG_union_type ? "union" :
				 tag == DW_TAG_class_type ? "class" : "enum";
		if (name)
			return fmt("%s %s%s%s", kw, name, sep(inner), inner);
		body = tag == DW_TAG_enumeration_type ? render_enum_body(t) :
		       render_body(t, indent, depth);
		out = body ? fmt("%s%s%s", body, sep(inner), inner) : NULL;
		free(body);
		return out;
	}
	default:	/* base types and typedefs: by name */
		return name ? fmt("%s%s%s", name, sep(inner), inner) : NULL;
	}
}

/* A member's declaration without the ';': type and name, bitfield width
 * and the alignment the source asked for. */
static char *member_decl(Dwarf_Die *m, int indent, int depth)
{
	Dwarf_Die t;
	const char *name = dwarf_diename(m);
	char *d = render(die_type(m, &t) ? &t : NULL, name ? name : "", indent, depth);
	char *n;
	uint64_t bits = udata(m, DW_AT_bit_size, 0);
	uint64_t align = udata(m, DW_AT_alignment, 0);

	if (d && dwarf_hasattr(m, DW_AT_bit_size)) {
		n = fmt("%s : %llu", d, (unsigned long long)bits);
		free(d);
		d = n;
	}
	if (d && align) {
		n = fmt("%s __attribute__((aligned(%llu)))", d, (unsigned long long)align);
		free(d);
		d = n;
	}
	return d;
}

struct cstruct_obj {
	struct dt_cstruct pub;
	struct dt_cmember *m;
	size_t cap;
};

void dt_cstruct_free(struct dt_cstruct *cs)
{
	struct cstruct_obj *o = (struct cstruct_obj *)cs;

	if (!o)
		return;
	free(o->m);
	free(o);
}

/* Why type t (peeled) cannot be given a new member order, or NULL. */
static const char *not_reorderable(Dwarf_Die *t)
{
	Dwarf_Die c;

	switch (dwarf_tag(t)) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		break;
	case DW_TAG_union_type:
		return "a union: its members all start at offset 0";
	default:
		return "not a struct";
	}
	if (dwarf_hasattr(t, DW_AT_declaration))
		return "declared, not defined, in this binary's DWARF";
	if (dwarf_child(t, &c) == 0)
		do {
			const char *n = dwarf_diename(&c);
			if (dwarf_tag(&c) == DW_TAG_inheritance ||
			    dwarf_hasattr(&c, DW_AT_virtuality) ||
			    (n && !strncmp(n, "_vptr", 5)))
				return "a C++ class with base classes or virtual functions";
		} while (dwarf_siblingof(&c, &c) == 0);
	return NULL;
}

static int add_member(struct dt_session *s, struct cstruct_obj *o,
		      Dwarf_Die *m, uint64_t struct_size)
{
	Dwarf_Die mt, peeled;
	struct dt_cmember cm = { .name = "" };
	uint64_t start, end, first_bit, nbits;
	bool open;
	char *decl;

	if (!die_type(m, &mt))
		return -ENOENT;
	cm.align = udata(m, DW_AT_alignment, 0);
	if (!cm.align)
		cm.align = type_align(&mt, 0);
	if (!type_peel(&mt, &peeled) || !member_extent(m, &peeled, &start, &end, &open))
		return -ENOENT;
	if (dwarf_hasattr(m, DW_AT_bit_size)) {
		if (!type_bitfield_bits(m, &peeled, &first_bit, &nbits))
			return -ENOENT;
		cm.bit_offset = first_bit;
		cm.bit_size = (unsigned)nbits;
		cm.unit_size = udata(&peeled, DW_AT_byte_size, 0);
		if (!cm.unit_size)
			return -ENOENT;
	}
	cm.offset = start;
	cm.flexible = open;
	cm.size = open ? 0 : cm.bit_size ? 0 : end - start;
	if (!open && end > struct_size)
		return -ENOENT;
	decl = member_decl(m, 1, 0);
	if (!decl)
		return -ENOMEM;
	cm.decl = session_intern_lines(s, decl);
	free(decl);
	if (dwarf_diename(m))
		cm.name = session_intern(s, dwarf_diename(m));
	if (!*cm.decl || (dwarf_diename(m) && !*cm.name))
		return -ENOMEM;	/* interning failed: "" would print broken C */
	if (GROW(o->m, o->cap, o->pub.n, 16))
		return -ENOMEM;
	o->m[o->pub.n++] = cm;
	return 0;
}

/* Member m's name, offset and spelled type, for comparing members of two
 * structs; false when the DWARF does not give them. */
static bool member_key(Dwarf_Die *m, const char **name, uint64_t *off,
		       char *type, size_t len)
{
	Dwarf_Die mt, peeled;
	uint64_t start, end;
	bool open;

	if (dwarf_tag(m) != DW_TAG_member || !die_type(m, &mt) ||
	    !type_peel(&mt, &peeled) || !member_extent(m, &peeled, &start, &end, &open))
		return false;
	*name = dwarf_diename(m) ? dwarf_diename(m) : "";
	*off = start;
	type_spell(&mt, type, len);
	return true;
}

/* How many of t's first members (n of them) another struct of t's unit
 * starts with too: a common initial sequence the program may read
 * through either (C11 6.5.2.3); the largest such count. */
static size_t common_prefix(Dwarf_Die *t, size_t n)
{
	Dwarf_Die cu, d, m, om;
	size_t best = 0;

	if (!n || !dwarf_diecu(t, &cu, NULL, NULL) || dwarf_child(&cu, &d) != 0)
		return 0;
	do {
		if (dwarf_tag(&d) != DW_TAG_structure_type ||
		    dwarf_dieoffset(&d) == dwarf_dieoffset(t) ||
		    dwarf_child(&d, &om) != 0 || dwarf_child(t, &m) != 0)
			continue;
		size_t k = 0;
		for (;;) {
			const char *na, *nb;
			uint64_t oa, ob;
			char ta[256], tb[256];
			if (k == n || !member_key(&m, &na, &oa, ta, sizeof(ta)) ||
			    !member_key(&om, &nb, &ob, tb, sizeof(tb)) ||
			    strcmp(na, nb) || oa != ob || strcmp(ta, tb))
				break;
			k++;
			if (dwarf_siblingof(&m, &m) != 0 || dwarf_siblingof(&om, &om) != 0)
				break;
		}
		if (k > best)
			best = k;
	} while (dwarf_siblingof(&d, &d) == 0);
	return best;
}

static int cstruct_new(struct dt_session *s, uint64_t type_id,
		       struct dt_cstruct **out)
{
	struct cstruct_obj *o;
	Dwarf_Die t, m;
	char name[512];
	int err = 0;

	*out = NULL;
	if (!type_id || !s->dwarf || !session_offdie(s, type_id, &t))
		return -ENOENT;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	type_spell(&t, name, sizeof(name));
	o->pub.name = session_intern(s, name);
	o->pub.decl_file = session_intern(s, dwarf_decl_file(&t) ? dwarf_decl_file(&t) : "");
	o->pub.size = udata(&t, DW_AT_byte_size, 0);
	o->pub.explicit_align = udata(&t, DW_AT_alignment, 0);
	o->pub.align = type_align(&t, 0);
	o->pub.why_not = not_reorderable(&t);
	if (!o->pub.why_not && dwarf_child(&t, &m) == 0)
		do {
			if (dwarf_tag(&m) != DW_TAG_member || dwarf_hasattr(&m, DW_AT_external))
				continue;
			err = add_member(s, o, &m, o->pub.size);
		} while (!err && dwarf_siblingof(&m, &m) == 0);
	if (err == -ENOMEM) {
		dt_cstruct_free(&o->pub);
		return -ENOMEM;
	}
	if (err)
		o->pub.why_not = "a member whose place or type the DWARF does not give";
	for (size_t i = 0; !o->pub.why_not && i < o->pub.n; i++) {
		const struct dt_cmember *c = &o->m[i];
		if (!c->bit_size && c->offset % c->align)
			o->pub.why_not = "packed (a member is not at its natural alignment)";
		else if (c->flexible && i + 1 != o->pub.n)
			o->pub.why_not = "a flexible array member that is not last";
	}
	if (!o->pub.why_not && (!o->pub.size || o->pub.size % o->pub.align))
		o->pub.why_not = "packed (its size is not a multiple of its alignment)";
	/* a kernel's units hold thousands of structs: not scanned there */
	if (!o->pub.why_not && !s->large_debug_info)
		o->pub.fixed_prefix = common_prefix(&t, o->pub.n);
	o->pub.m = o->m;
	*out = &o->pub;
	return 0;
}

int dt_cstruct_new(struct dt_session *s, uint64_t type_id,
		   struct dt_cstruct **out)
{
	struct oom_guard g;
	int err;

	*out = NULL;
	if (s->oom.no_memory)
		return -ENOMEM;
	OOM_GUARD(s, g, return -ENOMEM);
	err = cstruct_new(s, type_id, out);
	OOM_UNGUARD(g);
	return err;
}
