/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A unit's file names read from its line table (linefiles.c), for
 * indexing definitions by file without libdw's per-unit file lists.
 */
#ifndef DTPROF_DWARF_LINEFILES_H
#define DTPROF_DWARF_LINEFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

/* The bytes of .debug_line, .debug_line_str and .debug_str (NULL: none). */
struct line_sections {
	const unsigned char *line, *line_str, *str;
	size_t line_len, line_str_len, str_len;
};
struct file_hashes {
	uint64_t *v;		/* by DW_AT_decl_file's index */
	size_t n, cap;
};
/* hash_str of the name dwarf_filesrc gives each file of the line table
 * at off of .debug_line, comp_dir the unit's DW_AT_comp_dir (NULL: none),
 * into out (its v kept, grown); false (out->n 0) when this file cannot
 * read that table: ask libdw. */
bool line_file_hashes(const struct line_sections *sec, uint64_t off,
		      const char *comp_dir, struct file_hashes *out);

#endif
