// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dt_type_holds_view(): what a heap block's type says of an object an
 * instruction claims in it, when both are types of one binary.  The
 * binary is this test itself, its structs laid out as Lua's objects are:
 * every object starts with a common header (struct obj: GCObject), a
 * union of them all (union any: GCUnion).  A header's view of an object
 * and a union's view are the same object (no contradiction); a struct
 * sharing the header with another is not the other, nor one sharing a
 * single member, nor a struct at another offset.  Bytes are anything's.
 */
#include <unistd.h>

#include <dwarf.h>

#include "../lib/engine/internal.h"
#include "tap.h"

struct obj {			/* Lua's CommonHeader */
	struct obj *next;
	unsigned char tt, marked;
};
struct str {			/* TString */
	struct obj *next;
	unsigned char tt, marked;
	unsigned char extra;
	unsigned int hash;
	char contents[1];
};
struct table {			/* Table */
	struct obj *next;
	unsigned char tt, marked;
	unsigned char flags;
	int size;
	long *array;
};
union any {			/* GCUnion */
	struct obj gc;
	struct str ts;
	struct table h;
};
struct other {
	long a, b;
};
__attribute__((used)) unsigned char byte_instance;
__attribute__((used)) char char_instance;
struct one {			/* one member in common: no header */
	struct obj *next;
	long z;
};

__attribute__((used)) union any any_instance;
__attribute__((used)) struct other other_instance;
__attribute__((used)) struct one one_instance;

/* The key of the aggregate (tag) named name in this test's DWARF. */
static uint64_t key_of(struct dt_session *s, int tag, const char *name)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu, c;

	while (session_next_unit(s, &unit, &cu)) {
		if (dwarf_child(&cu, &c) != 0)
			continue;
		do {
			const char *n = dwarf_diename(&c);
			if (dwarf_tag(&c) == tag && n && !strcmp(n, name) &&
			    !dwarf_hasattr(&c, DW_AT_declaration))
				return session_die_key(s, &c);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return 0;
}

int main(void)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct dt_session_opts o = { .sz = sizeof(o) };
	struct dt_session *s;

	self[n > 0 ? n : 0] = '\0';
	if (!ok(!dt_session_open(self, &o, &s), "open this test"))
		return done_testing();
	uint64_t obj = key_of(s, DW_TAG_structure_type, "obj"),
		 str = key_of(s, DW_TAG_structure_type, "str"),
		 table = key_of(s, DW_TAG_structure_type, "table"),
		 any = key_of(s, DW_TAG_union_type, "any"),
		 other = key_of(s, DW_TAG_structure_type, "other"),
		 one = key_of(s, DW_TAG_structure_type, "one");
	if (!ok(obj && str && table && any && other && one, "the types are in its DWARF"))
		return done_testing();

	ok(!dt_type_holds(s, obj, 0, "struct str"),
	   "by name alone, a header's block read as a whole object: not held");
	ok(dt_type_holds_view(s, obj, 0, "struct str", str),
	   "told with its DIE: the site's header view of a struct str (TString)");
	ok(dt_type_holds_view(s, table, 0, "struct obj", obj),
	   "a table read through its header (GCObject)");
	ok(dt_type_holds_view(s, table, 0, "union any", any),
	   "a table read through the union of all objects (GCUnion)");
	ok(dt_type_holds_view(s, any, 0, "struct table", table),
	   "the union's block read as one of its members");
	ok(!dt_type_holds_view(s, str, 0, "struct table", table) &&
	   !dt_type_holds_view(s, table, 0, "struct str", str),
	   "two objects sharing the header: neither is the other");
	ok(!dt_type_holds_view(s, table, 0, "struct other", other),
	   "an unrelated struct: not held");
	ok(!dt_type_holds_view(s, obj, 0, "struct one", one) &&
	   !dt_type_holds_view(s, table, 0, "struct one", one),
	   "one member in common is no header");
	ok(!dt_type_holds_view(s, table, 8, "struct obj", obj),
	   "a header's view only where the object starts");
	ok(dt_type_holds_view(s, table, 8, "unsigned char", 0),
	   "a member by name, as before");
	uint64_t uchar = key_of(s, DW_TAG_base_type, "unsigned char"),
		 chr = key_of(s, DW_TAG_base_type, "char");
	ok(uchar && dt_type_holds_view(s, table, 13, "unsigned char", uchar),
	   "any object's bytes read as unsigned char (an int's byte)");
	ok(chr && dt_type_holds_view(s, chr, 0, "struct table", table),
	   "a block of chars holds anything");
	ok(!dt_type_holds_view(s, table, 12, "long int", 0),
	   "a long where an int is: not held");
	dt_session_close(s);
	return done_testing();
}
