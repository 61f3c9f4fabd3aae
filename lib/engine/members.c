// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The storage members of a struct, union or class, read from DWARF once
 * per type and session.  Naming a field walks its type's members, and
 * the same types are walked again and again: a kernel's task_struct has
 * hundreds of members, each a handful of libdw calls to read.  A table
 * keeps, in declaration order, every data member and base (C++ static
 * members are declarations, not storage) with its type peeled and the
 * bytes it spans; typewalk.c chooses among them.
 */
#include <dwarf.h>
#include <stdlib.h>

#include "../arrays.h"
#include "internal.h"

struct member_tables {
	struct member_table **v;	/* tables never move: callers keep them */
	size_t n, cap;
	uint32_t *slot;			/* open addressing over v: arrays.h */
	size_t size;
};

/* A DIE's bytes are where libdw read it: one place per DIE of any of the
 * session's files (its own, a split unit's, a dwz file's) while the
 * session lives. */
static uint64_t die_hash(const void *addr)
{
	return hash_mix(HASH_SEED, (uint64_t)(uintptr_t)addr);
}

static struct member_table *build(struct dt_session *s, Dwarf_Die *t)
{
	struct member_table *tab = calloc(1, sizeof(*tab));
	size_t cap = 0;
	struct die_children it;

	if (!tab)
		return NULL;
	tab->die = t->addr;
	if (!children_first(&s->walker, t, &it))
		return tab;
	do {
		int tag = it.tag;
		Dwarf_Die *mp;
		bool open;
		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
		    !(mp = children_die(&it)))
			continue;
		Dwarf_Die m = *mp;
		struct member_entry e = { .m = m };
		if (dwarf_hasattr(&m, DW_AT_external) ||
		    dwarf_hasattr(&m, DW_AT_declaration))
			continue;
		if (!die_type(&m, &e.mt) || !type_peel(&e.mt, &e.mt) ||
		    !member_extent(&m, &e.mt, &e.start, &e.end, &open))
			continue;
		if (!type_bitfield_bits(&m, &e.mt, &e.first_bit, &e.nbits))
			e.nbits = 0;
		if (GROW(tab->v, cap, tab->n, 8)) {
			free(tab->v);
			free(tab);
			return NULL;
		}
		tab->v[tab->n++] = e;
	} while (children_next(&s->walker, &it));
	FIT(tab->v, cap, tab->n);
	return tab;
}

const struct member_table *member_table_get(struct dt_session *s, Dwarf_Die *t)
{
	struct member_tables *mt = s->members;

	if (!mt && !(mt = s->members = calloc(1, sizeof(*mt))))
		return NULL;
	uint64_t h = die_hash(t->addr);
	uint32_t k = INDEX_FIND(mt->slot, mt->size, h, i, mt->v[i]->die == t->addr);
	if (k)
		return mt->v[k - 1];
	struct member_table *tab;
	if (INDEX_READY(mt->slot, mt->size, mt->n, i, die_hash(mt->v[i]->die)) ||
	    GROW(mt->v, mt->cap, mt->n, 64) || !(tab = build(s, t)))
		return NULL;
	mt->v[mt->n] = tab;
	mt->slot[INDEX_FREE(mt->slot, mt->size, h)] = (uint32_t)++mt->n;
	return tab;
}

void member_tables_free(struct member_tables *mt)
{
	if (!mt)
		return;
	for (size_t i = 0; i < mt->n; i++) {
		free(mt->v[i]->v);
		free(mt->v[i]);
	}
	free(mt->v);
	free(mt->slot);
	free(mt);
}
