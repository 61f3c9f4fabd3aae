// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The walk of every unit, in file order, that the indexes of the whole
 * file share: containers.c's embedded aggregates, globals.c's unit-level
 * variables and scope.c's function ranges each read every unit's
 * top-level entries.  Each unit is read for all three at once, while its
 * bytes are in the cache and its pages mapped: three walks of a kernel's
 * 166 MB of .debug_info (each faulting it back in after pages.c gave it
 * back) cost 18% of a vmlinux run.  The walk goes in slices of units
 * (dt_session_prepare) or to the end (the first answer that needs one of
 * the indexes); each index is complete when the walk is.
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
		scope_unit(s, &cu);
	}
	return s->units_walked;
}
