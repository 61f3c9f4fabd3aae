// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Symbol names as perf script prints them: C++ and Rust demangled,
 * without parameters ("ns::Table::scan", "crate::module::f"), through
 * libbfd's demangler (the one binutils and perf use).
 */
#define PACKAGE "dtprof"	/* bfd.h refuses to compile without it */
#include <bfd.h>
#include <ctype.h>
#include <string.h>

#include "internal.h"

#define DMGL_AUTO (1 << 8)	/* libiberty's demangle.h: guess the language */

char *symbol_demangle(const char *mangled)
{
	if (strncmp(mangled, "_Z", 2) && strncmp(mangled, "_R", 2))
		return NULL;	/* C names are not mangled */
	return bfd_demangle(NULL, mangled, DMGL_AUTO);
}

size_t symbol_rust_hash_start(const char *demangled)
{
	size_t n = strlen(demangled);
	const char *h;

	/* legacy Rust symbols end in "::h" and 16 hex digits */
	if (n < 19)
		return 0;
	h = demangled + n - 19;
	if (strncmp(h, "::h", 3))
		return 0;
	for (int i = 3; i < 19; i++)
		if (!isxdigit((unsigned char)h[i]))
			return 0;
	return n - 19;
}
