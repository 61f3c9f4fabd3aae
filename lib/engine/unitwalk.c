// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The walk of every unit, in file order, that the indexes of the whole
 * file share: containers.c's embedded aggregates and globals.c's
 * unit-level variables each want every unit's top-level entries (and its
 * namespaces'), and so does scope.c's index of a unit's functions when
 * its first pc is asked about.  Each entry is read once and handed to
 * all of them: a walk for each (three passes over a kernel's 3.9 million
 * top-level entries) cost 0.83 G instructions more, 7% of a vmlinux run,
 * and separate walks of its 166 MB of .debug_info faulted it back in
 * after pages.c gave it back.  The functions of every unit are indexed
 * this way only in a large debug file (a kernel's questions reach nearly
 * every unit; a small profile's few: there it would be 7% of the
 * naming).  The walk goes in slices of units (dt_session_prepare) or to
 * the end (the first answer that needs one of the indexes); each index
 * is complete when the walk is.
 */
#include <dwarf.h>

#include "internal.h"

/* scope's entries, then its namespaces' (depth deep), to every index. */
static void walk_entries(struct dt_session *s, Dwarf_Die *scope,
			 struct die_children *scope_c, struct cu_funcs *funcs, int depth)
{
	struct die_children c;

	if (depth > MAX_NAMESPACE_DEPTH ||
	    !children_first_in(&s->walker, scope, scope_c, &c))
		return;
	for (;;) {
		struct die_children d = c;	/* its attributes read after */
		bool more = children_next(&s->walker, &c);
		if (d.tag == DW_TAG_namespace) {
			walk_entries(s, NULL, &d, funcs, depth + 1);
		} else {
			containers_entry(s, &d, more ? &c : NULL, depth);
			globals_entry(s, &d, depth);
			if (funcs)
				scope_unit_entry(s, funcs, &d);
		}
		if (!more)
			break;
	}
}

bool units_walk(struct dt_session *s, size_t max_units)
{
	Dwarf_Die cu;

	for (size_t k = 0; !s->walk.done && k < max_units; k++) {
		if (!session_next_unit(s, &s->walk.at, &cu)) {
			s->walk.done = true;
			containers_walked(s);
			globals_walked(s);
			break;
		}
		struct cu_funcs *funcs = s->large_debug_info ?
					 scope_unit_begin(s, &cu) : NULL;
		walk_entries(s, &cu, NULL, funcs, 0);
		if (funcs)
			scope_unit_end(s, funcs);
	}
	return s->walk.done;
}
