// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * children.c against libdw: every DIE of every unit, walked both ways,
 * must be the same DIEs with the same tags in the same order, and the
 * walk must hand out DIEs libdw reads the same (their names).  The
 * binaries are this test itself and those named on the command line
 * (t2018 compiles them: gcc and clang, DWARF 4 and 5, C++ namespaces;
 * after --split, binaries with split units, which libdw walks).  Walks of more units at once than the shapes kept must
 * still agree, each going on in libdw when its unit's shapes are gone.
 */
#include <unistd.h>

#include <dwarf.h>

#include "../lib/arrays.h"
#include "../lib/engine/internal.h"
#include "tap.h"

#define INTERLEAVED 6		/* units walked at once: more than kept */

struct tally {
	size_t dies, mismatches;
	size_t skipped;		/* handed out by children.c's own walk */
	size_t attrs, attr_mismatches;	/* children_has/udata/block against libdw */
	size_t locs, loc_read, loc_mismatches;	/* loclist.c against libdw */
};

/* The attributes the walks read through children_has, children_udata
 * and children_block, and more. */
static const unsigned attr_names[] = {
	DW_AT_name, DW_AT_decl_file, DW_AT_decl_line, DW_AT_byte_size,
	DW_AT_declaration, DW_AT_type, DW_AT_location, DW_AT_sibling,
	DW_AT_data_member_location, DW_AT_external, DW_AT_low_pc,
	DW_AT_high_pc, DW_AT_const_value, DW_AT_specification,
};

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* children_has finds what dwarf_attr finds, children_udata reads what
 * dwarf_formudata reads, children_block the bytes of dwarf_formblock;
 * children_pc_range answers as dwarf_ranges; children_definition gives
 * what dwarf_diename says, the hash of what dwarf_decl_file says, the
 * line and the size (or says a declaration is one). */
static void compare_attrs(struct dt_session *s, Dwarf_Die *d,
			  struct die_children *c, struct tally *t)
{
	Dwarf_Addr lo, hi, base, rlo, rhi;
	bool odd = false;
	struct children_def def = { .name = NULL };
	Dwarf_Attribute da;
	Dwarf_Word line = 0, size = 0;
	if (dwarf_attr(d, DW_AT_decl_line, &da))
		dwarf_formudata(&da, &line);
	if (dwarf_attr(d, DW_AT_byte_size, &da))
		dwarf_formudata(&da, &size);
	/* every DIE's, of whatever tag: the walk's and libdw's, alike */
	if (children_definition(&s->walker, c, &def))
		odd |= dwarf_hasattr(d, DW_AT_declaration) ||
		       !same_str(def.name, dwarf_diename(d)) ||
		       def.file_hash != hash_str(dwarf_decl_file(d)) ||
		       def.line != line || def.size != size;
	else
		odd |= !dwarf_hasattr(d, DW_AT_declaration);
	if (children_pc_range(&s->walker, c, &lo, &hi))
		odd |= dwarf_ranges(d, 0, &base, &rlo, &rhi) <= 0 || rlo != lo ||
		       rhi != hi || dwarf_ranges(d, 1, &base, &rlo, &rhi) != 0;
	t->attrs++;
	if (odd && t->attr_mismatches++ < 5)
		printf("# DIE <%#llx>: name %s/%s, file %s (its hash), line, size or range differ\n",
		       (unsigned long long)dwarf_dieoffset(d), def.name,
		       dwarf_diename(d), dwarf_decl_file(d));
	for (size_t i = 0; i < sizeof(attr_names) / sizeof(*attr_names); i++) {
		Dwarf_Attribute a;
		Dwarf_Word ua = 0, uc = 0;
		Dwarf_Block ba;
		size_t len;
		unsigned as, form;
		const unsigned char *value;
		bool have_a = dwarf_attr(d, attr_names[i], &a) != NULL;
		bool have_c = children_has(&s->walker, c, attr_names[i]);
		bool udata_a = have_a && dwarf_formudata(&a, &ua) == 0;
		bool udata_c = children_udata(&s->walker, c, attr_names[i], &uc);
		const unsigned char *bc = children_block(&s->walker, c, attr_names[i], &len, &as);
		bool block_a = have_a && (dwarf_whatform(&a) == DW_FORM_exprloc ||
					  dwarf_whatform(&a) == DW_FORM_block1 ||
					  dwarf_whatform(&a) == DW_FORM_block2 ||
					  dwarf_whatform(&a) == DW_FORM_block4 ||
					  dwarf_whatform(&a) == DW_FORM_block) &&
			       dwarf_formblock(&a, &ba) == 0;
		bool value_c = children_value(&s->walker, c, attr_names[i], &form, &value);
		t->attrs += have_a;
		if (have_a != have_c || udata_a != udata_c || ua != uc ||
		    (c->unit && block_a != (bc != NULL)) ||
		    (bc && block_a && (len != ba.length || memcmp(bc, ba.data, len))) ||
		    (value_c && (!have_a || form != dwarf_whatform(&a)))) {
			if (t->attr_mismatches++ < 5)
				printf("# DIE <%#llx> attribute %#x: libdw %s (%llu), children.c %s (%llu)\n",
				       (unsigned long long)dwarf_dieoffset(d), attr_names[i],
				       have_a ? "has" : "has not", (unsigned long long)ua,
				       have_c ? "has" : "has not", (unsigned long long)uc);
		}
	}
}

/* loc_entries reads what dwarf_getlocations reads, entry for entry and
 * operation for operation, or declines (libdw answers those). */
static void compare_locations(struct dt_session *s, Dwarf_Die *d,
			      struct die_children *c, struct tally *t)
{
	static const unsigned names[] = { DW_AT_location, DW_AT_frame_base };
	static struct loc_list mine;
	struct loc_unit lu;

	for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++) {
		Dwarf_Attribute a;
		Dwarf_Addr base, start, end;
		Dwarf_Op *e;
		size_t len, i = 0;
		ptrdiff_t off = 0;
		bool odd = false;
		const unsigned char *expr, *value;
		unsigned as, form;
		if (!children_has(&s->walker, c, names[k]) || !dwarf_attr(d, names[k], &a))
			continue;
		t->locs++;
		if (!children_loc_unit(&s->walker, c, &lu) ||
		    !((expr = children_block(&s->walker, c, names[k], &len, &as)) ?
		      loc_expr(&lu, expr, len, &mine) :
		      children_value(&s->walker, c, names[k], &form, &value) &&
		      loc_entries(&lu, form, value, &mine)))
			continue;	/* declined: libdw's */
		t->loc_read++;
		while ((off = dwarf_getlocations(&a, off, &base, &start, &end, &e, &len)) > 0) {
			const struct loc_entry *m = i < mine.n ? &mine.v[i] : NULL;
			i++;
			odd |= !m || m->start != start || m->end != end || m->nops != len;
			for (size_t j = 0; !odd && j < len; j++)
				odd |= m->ops[j].atom != e[j].atom ||
				       m->ops[j].number != e[j].number ||
				       m->ops[j].number2 != e[j].number2 ||
				       m->ops[j].offset != e[j].offset;
		}
		odd |= off < 0 || i != mine.n;
		if (odd && t->loc_mismatches++ < 5)
			printf("# DIE <%#llx> attribute %#x: %zu entries by libdw, %zu by loclist.c, or they differ\n",
			       (unsigned long long)dwarf_dieoffset(d), names[k], i, mine.n);
	}
}

/* libdw's DIE a and the walk's child b: one offset, one tag, and b's
 * Dwarf_Die (made by libdw from that offset) of the same name. */
static bool same(Dwarf_Die *a, int atag, struct die_children *b)
{
	Dwarf_Die *bd;

	if (dwarf_dieoffset(a) != b->off || atag != b->tag || !(bd = children_die(b)))
		return false;
	const char *an = dwarf_diename(a), *bn = dwarf_diename(bd);
	return dwarf_dieoffset(bd) == b->off && dwarf_tag(bd) == atag &&
	       (an == bn || (an && bn && !strcmp(an, bn)));
}

/* parent's subtree both ways, to depth 64. */
static void compare(struct dt_session *s, Dwarf_Die *parent, int depth,
		    struct tally *t)
{
	Dwarf_Die d;
	struct die_children c;
	bool have_d = dwarf_child(parent, &d) == 0;
	bool have_c = children_first(&s->walker, parent, &c);

	while (have_d || have_c) {
		if (have_d != have_c || !same(&d, dwarf_tag(&d), &c)) {
			if (t->mismatches++ < 5)
				printf("# DIE <%#llx>: libdw %s <%#llx>, children.c %s <%#llx>\n",
				     (unsigned long long)dwarf_dieoffset(parent),
				     have_d ? "has" : "ends",
				     have_d ? (unsigned long long)dwarf_dieoffset(&d) : 0ULL,
				     have_c ? "has" : "ends",
				     have_c ? (unsigned long long)c.off : 0ULL);
			return;
		}
		t->dies++;
		t->skipped += c.unit != NULL;
		compare_attrs(s, &d, &c, t);
		compare_locations(s, &d, &c, t);
		if (depth < 64 && dwarf_haschildren(&d))
			compare(s, &d, depth + 1, t);
		have_d = dwarf_siblingof(&d, &d) == 0;
		have_c = children_next(&s->walker, &c);
	}
}

/* The top-level children of INTERLEAVED units, one step of each in turn. */
static void interleave(struct dt_session *s, struct tally *t)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu[INTERLEAVED], d[INTERLEAVED];
	struct die_children c[INTERLEAVED];
	bool have_d[INTERLEAVED], have_c[INTERLEAVED];
	int n = 0;

	while (n < INTERLEAVED && session_next_unit(s, &unit, &cu[n])) {
		have_d[n] = dwarf_child(&cu[n], &d[n]) == 0;
		have_c[n] = children_first(&s->walker, &cu[n], &c[n]);
		n++;
	}
	for (bool any = true; any;) {
		any = false;
		for (int i = 0; i < n; i++) {
			if (!have_d[i] && !have_c[i])
				continue;
			any = true;
			if (have_d[i] != have_c[i] ||
			    !same(&d[i], dwarf_tag(&d[i]), &c[i])) {
				t->mismatches++;
				have_d[i] = have_c[i] = false;
				continue;
			}
			t->dies++;
			have_d[i] = dwarf_siblingof(&d[i], &d[i]) == 0;
			have_c[i] = children_next(&s->walker, &c[i]);
		}
	}
}

/* by_shapes: every DIE is handed out by children.c's own walk, else
 * (split units) every one by libdw's. */
static void check(const char *path, bool by_shapes)
{
	struct dt_session_opts o = { .sz = sizeof(o) };
	struct dt_session *s;
	struct tally all = { 0 }, inter = { 0 };
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu;
	size_t units = 0;

	if (!ok(!dt_session_open(path, &o, &s), "open %s", path))
		return;
	while (session_next_unit(s, &unit, &cu)) {
		units++;
		compare(s, &cu, 0, &all);
	}
	ok(all.dies > 0 && all.mismatches == 0,
	   "%s: %zu units, %zu DIEs walked alike (%zu differ)", path, units,
	   all.dies, all.mismatches);
	ok(all.attrs > 0 && all.attr_mismatches == 0,
	   "%s: %zu attributes found by the shapes as libdw finds them (%zu differ)",
	   path, all.attrs, all.attr_mismatches);
	ok(all.loc_mismatches == 0,
	   "%s: %zu of %zu locations read by loclist.c as libdw reads them (%zu differ)",
	   path, all.loc_read, all.locs, all.loc_mismatches);
	if (by_shapes)
		ok(all.skipped == all.dies, "%s: %zu of them by the unit's shapes",
		   path, all.skipped);
	else
		ok(all.skipped == 0, "%s: split units: all of them by libdw", path);
	interleave(s, &inter);
	ok(inter.dies > 0 && inter.mismatches == 0,
	   "%s: %d units walked at once, %zu DIEs alike (%zu differ)", path,
	   INTERLEAVED, inter.dies, inter.mismatches);
	dt_session_close(s);
}

int main(int argc, char **argv)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[n > 0 ? n : 0] = '\0';
	bool by_shapes = true;
	check(self, true);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--split"))
			by_shapes = false;	/* the binaries after it */
		else
			check(argv[i], by_shapes);
	}
	return done_testing();
}
