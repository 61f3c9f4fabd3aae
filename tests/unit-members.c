// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * members.c: an aggregate's storage members, read once per session.  The
 * binary is this test itself; struct probe_rec below is found in its DWARF
 * and its table checked against offsetof: every data member in
 * declaration order with the bytes it spans, the anonymous union as one
 * member, and the same table (not a second reading) when asked again.
 */
#include <stddef.h>

#include "selfdwarf.h"
#include "tap.h"

struct probe_rec {
	char tag;
	long count;
	union {
		int i;
		float f;
	};
	short pair[2];
};

__attribute__((used)) struct probe_rec probe_instance;

int main(void)
{
	struct dt_session *s;
	Dwarf_Die t;

	if (!ok(!self_open(&s), "open this test") ||
	    !ok(self_die(s, DW_TAG_structure_type, "probe_rec", &t),
		"struct probe_rec is in its DWARF"))
		return done_testing();
	const struct member_table *tab = member_table_get(s, &t);
	static const struct { size_t start, end; } want[] = {
		{ offsetof(struct probe_rec, tag), offsetof(struct probe_rec, tag) + 1 },
		{ offsetof(struct probe_rec, count), offsetof(struct probe_rec, count) + sizeof(long) },
		{ offsetof(struct probe_rec, i), offsetof(struct probe_rec, i) + sizeof(int) },
		{ offsetof(struct probe_rec, pair), offsetof(struct probe_rec, pair) + 2 * sizeof(short) },
	};
	if (!ok(tab != NULL, "a table"))
		return done_testing();
	is_int((int64_t)tab->n, 4, "four members: the anonymous union is one");
	for (size_t i = 0; i < tab->n && i < 4; i++)
		ok(tab->v[i].start == want[i].start && tab->v[i].end == want[i].end,
		   "member %zu spans [%llu, %llu)", i,
		   (unsigned long long)tab->v[i].start, (unsigned long long)tab->v[i].end);
	is_int(dwarf_tag((Dwarf_Die *)&tab->v[2].mt), DW_TAG_union_type,
	       "the union's type, peeled");
	ok(member_table_get(s, &t) == tab, "asked again: the same table, not read again");
	dt_session_close(s);
	return done_testing();
}
