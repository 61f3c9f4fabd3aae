// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The file names of a unit's line table, as hashes: what containers.c
 * keys each aggregate definition by (DW_AT_decl_file is an index into
 * this table).  libdw's dwarf_getsrcfiles reads the same header, but
 * asks the unit DIE's attributes first, and looking up that DIE's
 * abbreviation (the last of a table ordered by use) reads the unit's
 * whole abbreviation table into libdw's hash: together 184,000
 * instructions a unit, 3.4% of a vmlinux run (1.5% here, and 21 MB less
 * memory).  Here the header is read once, each directory hashed once
 * and each name hashed on from it.
 *
 * A name's hash is hash_str() of the path dwarf_filesrc gives it: the
 * name when it is absolute, else its directory, '/' and the name (the
 * name alone when the directory is unknown); before DWARF 5, directory 0
 * is the unit's DW_AT_comp_dir and file 0 is none.  Anything this file
 * does not read (another byte order, a string form of .debug_str_offsets,
 * a vendor form, a header cut short) declines, and libdw answers.
 * tests/unit-children checks every DIE's hash against libdw's name.
 */
#include <dwarf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../arrays.h"
#include "bytereader.h"
#include "linefiles.h"

/* The string at off of a string section; NULL when it is outside. */
static const char *section_str(const struct line_sections *sec, bool line_str,
			       uint64_t off)
{
	const unsigned char *b = line_str ? sec->line_str : sec->str;
	size_t len = line_str ? sec->line_str_len : sec->str_len;

	if (!b || off >= len || !memchr(b + off, 0, len - off))
		return NULL;
	return (const char *)b + off;
}

/* One DWARF 5 entry's value of form: a path's string in *str, an index
 * in *num, anything else skipped.  offset_size: 4 or 8. */
static void read_value(struct byte_reader *r, const struct line_sections *sec,
		       uint64_t form, unsigned offset_size, const char **str,
		       uint64_t *num)
{
	switch (form) {
	case DW_FORM_string:
		*str = br_cstr(r);
		break;
	case DW_FORM_line_strp: case DW_FORM_strp:
		*str = section_str(sec, form == DW_FORM_line_strp,
				   br_le(r, offset_size));
		if (!*str)
			r->ok = false;
		break;
	case DW_FORM_data1: *num = br_le(r, 1); break;
	case DW_FORM_data2: *num = br_le(r, 2); break;
	case DW_FORM_data4: *num = br_le(r, 4); break;
	case DW_FORM_data8: *num = br_le(r, 8); break;
	case DW_FORM_udata: *num = br_uleb(r); break;
	case DW_FORM_data16: br_skip(r, 16); break;
	case DW_FORM_block: br_skip(r, br_uleb(r)); break;
	default:		/* strx (needs the unit's offsets), sdata, vendors */
		r->ok = false;
	}
}

/* The hash to go on from after "dir/" (dir NULL: nothing before the
 * name). */
static uint64_t dir_state(const char *dir)
{
	return dir ? hash_bytes("/", 1, hash_bytes(dir, strlen(dir), HASH_SEED)) :
		     HASH_SEED;
}

static uint64_t file_hash(const char *name, uint64_t dir)
{
	return hash_bytes(name, strlen(name), *name == '/' ? HASH_SEED : dir);
}

#define MAX_FORMATS 16		/* a table's entry formats (5 are defined) */

/* A DWARF 5 table's entry formats: their content types and forms. */
struct formats {
	uint64_t type[MAX_FORMATS], form[MAX_FORMATS];
	unsigned n;
};

static bool read_formats(struct byte_reader *r, struct formats *f)
{
	f->n = (unsigned)br_le(r, 1);
	if (f->n > MAX_FORMATS)
		return false;
	for (unsigned i = 0; i < f->n; i++) {
		f->type[i] = br_uleb(r);
		f->form[i] = br_uleb(r);
	}
	return r->ok;
}

/* One entry of a DWARF 5 table: its path and directory index. */
static bool read_entry(struct byte_reader *r, const struct line_sections *sec,
		       const struct formats *f, unsigned offset_size,
		       const char **path, uint64_t *dir)
{
	*path = NULL;
	*dir = 0;
	for (unsigned i = 0; i < f->n && r->ok; i++) {
		const char *s = NULL;
		uint64_t n = 0;
		read_value(r, sec, f->form[i], offset_size, &s, &n);
		if (f->type[i] == DW_LNCT_path)
			*path = s;
		else if (f->type[i] == DW_LNCT_directory_index)
			*dir = n;
	}
	return r->ok && *path;
}

static bool add_hash(struct file_hashes *out, uint64_t h)
{
	if (GROW(out->v, out->cap, out->n, 64))
		return false;
	out->v[out->n++] = h;
	return true;
}

/* DWARF 5: directories and files each described by entry formats. */
static bool read_v5(struct byte_reader *r, const struct line_sections *sec,
		    unsigned offset_size, struct file_hashes *out)
{
	struct formats f;
	uint64_t *dirs = NULL;
	size_t ndirs, cap = 0, n = 0;
	bool ok = false;

	if (!read_formats(r, &f))
		return false;
	ndirs = br_uleb(r);
	for (size_t i = 0; i < ndirs; i++) {
		const char *path;
		uint64_t unused;
		if (!read_entry(r, sec, &f, offset_size, &path, &unused) ||
		    GROW(dirs, cap, n, 64))
			goto out;
		dirs[n++] = dir_state(path);
	}
	if (!read_formats(r, &f))
		goto out;
	uint64_t nfiles = br_uleb(r);
	for (uint64_t i = 0; i < nfiles; i++) {
		const char *path;
		uint64_t dir;
		if (!read_entry(r, sec, &f, offset_size, &path, &dir) || dir >= n ||
		    !add_hash(out, file_hash(path, dirs[dir])))
			goto out;
	}
	ok = r->ok;
out:
	free(dirs);
	return ok;
}

/* DWARF 2 to 4: directories and files as strings, ended by an empty
 * one; directory 0 is the unit's, file 0 none. */
static bool read_v4(struct byte_reader *r, const char *comp_dir,
		    struct file_hashes *out)
{
	uint64_t *dirs = NULL;
	size_t cap = 0, n = 0;
	const char *s;
	bool ok = false;

	if (GROW(dirs, cap, n, 64))
		return false;
	dirs[n++] = dir_state(comp_dir);
	while ((s = br_cstr(r)) && *s) {
		if (GROW(dirs, cap, n, 64))
			goto out;
		dirs[n++] = dir_state(s);
	}
	if (!s || !add_hash(out, 0))
		goto out;
	while ((s = br_cstr(r)) && *s) {
		uint64_t dir = br_uleb(r);
		br_uleb(r);	/* modification time */
		br_uleb(r);	/* length */
		if (!r->ok || dir >= n || !add_hash(out, file_hash(s, dirs[dir])))
			goto out;
	}
	ok = s != NULL;
out:
	free(dirs);
	return ok;
}

bool line_file_hashes(const struct line_sections *sec, uint64_t off,
		      const char *comp_dir, struct file_hashes *out)
{
	struct byte_reader r = { sec->line, sec->line + sec->line_len, true };
	unsigned offset_size = 4;

	out->n = 0;
	if (!sec->line || off >= sec->line_len)
		return false;
	r.p += off;
	uint64_t len = br_le(&r, 4);
	if (len == 0xffffffff) {
		offset_size = 8;
		len = br_le(&r, 8);
	} else if (len >= 0xfffffff0) {
		return false;	/* reserved lengths */
	}
	if (!r.ok || len > (uint64_t)(r.end - r.p))
		return false;
	r.end = r.p + len;
	unsigned version = (unsigned)br_le(&r, 2);
	if (version < 2 || version > 5)
		return false;
	if (version >= 5)
		br_skip(&r, 2);		/* address and segment selector sizes */
	uint64_t header_len = br_le(&r, offset_size);
	if (!r.ok || header_len > (uint64_t)(r.end - r.p))
		return false;
	r.end = r.p + header_len;	/* the tables end with the header */
	br_skip(&r, version >= 4 ? 5 : 4);	/* instruction length, ops, is_stmt,
					 * line base and range */
	unsigned opcode_base = (unsigned)br_le(&r, 1);
	br_skip(&r, opcode_base ? opcode_base - 1 : 0);	/* their lengths */
	if (!r.ok)
		return false;
	bool ok = version >= 5 ? read_v5(&r, sec, offset_size, out) :
				 read_v4(&r, comp_dir, out);
	if (!ok)
		out->n = 0;
	return ok;
}
