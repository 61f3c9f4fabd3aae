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
#include "selfdwarf.h"
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
struct buf {			/* a byte buffer inside a struct */
	long n;
	char data[32];
};
__attribute__((used)) struct buf buf_instance;
__attribute__((used)) unsigned char byte_instance;
__attribute__((used)) char char_instance;
struct one {			/* one member in common: no header */
	struct obj *next;
	long z;
};

__attribute__((used)) union any any_instance;
__attribute__((used)) struct other other_instance;
__attribute__((used)) struct one one_instance;

/* The key of the type (tag) named name in this test's DWARF, 0: none. */
static uint64_t key_of(struct dt_session *s, int tag, const char *name)
{
	Dwarf_Die d;

	return self_die(s, tag, name, &d) ? session_die_key(s, &d) : 0;
}

int main(void)
{
	struct dt_session *s;

	if (!ok(!self_open(&s), "open this test"))
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
	uint64_t buf = key_of(s, DW_TAG_structure_type, "buf");
	ok(buf && dt_type_holds_view(s, buf, 16, "struct other", other) &&
	   !dt_type_holds_view(s, buf, 0, "struct other", other),
	   "a char array member holds anything, the struct's other members do not");
	dt_session_close(s);
	return done_testing();
}
