/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * For unit tests that read their own DWARF: a session of the test's own
 * binary, and a type it defines, found by tag and name among the top
 * level of its units (not a declaration).
 */
#ifndef DTPROF_TESTS_SELFDWARF_H
#define DTPROF_TESTS_SELFDWARF_H

#include <string.h>
#include <unistd.h>

#include <dwarf.h>

#include "../lib/engine/internal.h"

static inline int self_open(struct dt_session **s)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct dt_session_opts o = { .sz = sizeof(o) };

	self[n > 0 ? n : 0] = '\0';
	return dt_session_open(self, &o, s);
}

static inline bool self_die(struct dt_session *s, int tag, const char *name, Dwarf_Die *out)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu, c;

	while (session_next_unit(s, &unit, &cu)) {
		if (dwarf_child(&cu, &c) != 0)
			continue;
		do {
			const char *n = dwarf_diename(&c);
			if (dwarf_tag(&c) == tag && n && !strcmp(n, name) &&
			    !dwarf_hasattr(&c, DW_AT_declaration)) {
				*out = c;
				return true;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return false;
}

#endif
