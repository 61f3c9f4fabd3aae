// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Type layouts for annotated output: members, nested members, holes and
 * tail padding, computed once per type from DWARF and kept in the session.
 * Printers only read them; cache-line boundaries are derived from offsets.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../arrays.h"

#define MAX_NEST 8

struct layout_entry {
	uint64_t type_id;
	struct dt_layout layout;
	struct dt_layout_row *rows;
	size_t cap;
};

struct layout_cache {
	struct layout_entry **v;	/* entries never move: callers keep them */
	size_t n, cap;
};

static int add_row(struct layout_entry *e, struct dt_layout_row row)
{
	if (GROW(e->rows, e->cap, e->layout.n, 32))
		return -ENOMEM;
	e->rows[e->layout.n++] = row;
	return 0;
}

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

static int expand(struct dt_session *s, struct layout_entry *e, Dwarf_Die *t,
		  uint64_t base, uint64_t size, unsigned depth)
{
	bool is_union = dwarf_tag(t) == DW_TAG_union_type;
	uint64_t cursor = 0;
	Dwarf_Die m;
	int err = 0;

	if (dwarf_child(t, &m) != 0)
		return 0;
	do {
		int mtag = dwarf_tag(&m);
		Dwarf_Die mt;
		uint64_t start, end;
		bool open;
		char tname[256];
		Dwarf_Attribute a;
		Dwarf_Word bits = 0;

		if ((mtag != DW_TAG_member && mtag != DW_TAG_inheritance) ||
		    dwarf_hasattr(&m, DW_AT_external) ||
		    dwarf_hasattr(&m, DW_AT_declaration) ||
		    !die_type(&m, &mt) || !type_peel(&mt, &mt) ||
		    !member_extent(&m, &mt, &start, &end, &open))
			continue;
		if (open)
			end = start;	/* flexible array: no bytes of its own */
		if (!is_union && start > cursor)
			err = add_row(e, (struct dt_layout_row){
				.kind = DT_LAYOUT_HOLE, .depth = depth,
				.offset = base + cursor, .size = start - cursor,
				.name = "", .type = "" });
		if (dwarf_attr(&m, DW_AT_bit_size, &a))
			dwarf_formudata(&a, &bits);
		Dwarf_Die orig;
		type_spell(die_type(&m, &orig) ? &orig : &mt, tname, sizeof(tname));
		char nbuf[256];
		const char *name = member_name(&m, nbuf, sizeof(nbuf));
		if (!err)
			err = add_row(e, (struct dt_layout_row){
				.kind = DT_LAYOUT_MEMBER, .depth = depth,
				.offset = base + start, .size = end - start,
				.bit_size = (unsigned)bits,
				.name = session_intern(s, name),
				.type = session_intern(s, tname) });
		if (!err && is_aggregate(dwarf_tag(&mt)) && depth < MAX_NEST)
			err = expand(s, e, &mt, base + start, end - start, depth + 1);
		if (end > cursor)
			cursor = end;
	} while (!err && dwarf_siblingof(&m, &m) == 0);
	if (!err && !is_union && size > cursor)
		err = add_row(e, (struct dt_layout_row){
			.kind = DT_LAYOUT_PADDING, .depth = depth,
			.offset = base + cursor, .size = size - cursor,
			.name = "", .type = "" });
	return err;
}

static int layout_get(struct dt_session *s, uint64_t type_id,
		      const struct dt_layout **out)
{
	struct layout_cache *c = s->layouts;
	Dwarf_Die t;
	uint64_t size = 0;
	char name[256];

	if (!c) {
		c = s->layouts = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i]->type_id == type_id) {
			*out = &c->v[i]->layout;
			return 0;
		}
	if (!type_id || !s->dwarf || !session_offdie(s, type_id, &t))
		return -ENOENT;
	if (GROW(c->v, c->cap, c->n, 16))
		return -ENOMEM;
	struct layout_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->type_id = type_id;
	type_byte_size(&t, &size);
	type_spell(&t, name, sizeof(name));
	int err = add_row(e, (struct dt_layout_row){
		.kind = DT_LAYOUT_TYPE, .depth = 0, .offset = 0, .size = size,
		.name = "", .type = session_intern(s, name) });
	if (!err && is_aggregate(dwarf_tag(&t)))
		err = expand(s, e, &t, 0, size, 1);
	if (err) {
		free(e->rows);
		free(e);
		return err;
	}
	e->layout.type = e->rows[0].type;
	e->layout.row_size = sizeof(struct dt_layout_row);
	e->layout.size = size;
	e->layout.rows = e->rows;
	c->v[c->n++] = e;
	*out = &e->layout;
	return 0;
}

int dt_layout_get(struct dt_session *s, uint64_t type_id,
		  const struct dt_layout **out)
{
	struct oom_guard g;
	int err;

	if (s->oom.no_memory)
		return -ENOMEM;
	OOM_GUARD(s, g, return -ENOMEM);
	err = layout_get(s, type_id, out);
	OOM_UNGUARD(g);
	return err;
}

void layout_cache_free(struct layout_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i]->rows);
		free(c->v[i]);
	}
	free(c->v);
	free(c);
}
