// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The walk of every unit, in file order, that the indexes of the whole
 * file share: containers.c's embedded aggregates and globals.c's
 * unit-level variables each read every unit's top-level entries, and so
 * does scope.c's index of a unit's functions when its first pc is asked
 * about.  Each unit is read for all of them at once, while its bytes are
 * in the cache and its pages mapped: separate walks of a kernel's 166 MB
 * of .debug_info (each faulting it back in after pages.c gave it back)
 * took 18% of a vmlinux run.  The functions of every unit are indexed
 * this way only in a large debug file (a kernel's questions reach nearly
 * every unit; a small profile's few: there it would be 7% of the
 * naming).  The walk goes in slices of units (dt_session_prepare) or to
 * the end (the first answer that needs one of the indexes); each index
 * is complete when the walk is.
 */
#include "internal.h"

bool units_walk(struct dt_session *s, size_t max_units)
{
	Dwarf_Die cu;

	for (size_t k = 0; !s->units_walked && k < max_units; k++) {
		if (!session_next_unit(s, &s->units_walk_at, &cu)) {
			s->units_walked = true;
			containers_walked(s);
			globals_walked(s);
			break;
		}
		containers_unit(s, &cu);
		globals_unit(s, &cu);
		if (s->large_debug_info)
			scope_unit(s, &cu);
	}
	return s->units_walked;
}
