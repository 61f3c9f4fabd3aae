/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Little-endian DWARF values read from a buffer that may be cut short:
 * each read past the end clears ok and gives 0, so a parser reads on and
 * checks ok once (linefiles.c's line table headers, loclist.c's lists
 * and expressions; the callers read only files libelf says are
 * little-endian).  leb_u and leb_skip are the same LEB128 reading by a
 * pointer, for children.c's walk of every DIE.
 */
#ifndef DTPROF_BYTEREADER_H
#define DTPROF_BYTEREADER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct byte_reader {
	const unsigned char *p, *end;
	bool ok;
};

static inline uint64_t br_le(struct byte_reader *r, unsigned n)
{
	uint64_t v = 0;

	if (!r->ok || (size_t)(r->end - r->p) < n) {
		r->ok = false;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

/* A ULEB128 at *p (before end) into *v, *p moved past it; false when
 * it runs out (*p then at end).  The one-byte value, most of them in
 * DWARF, takes one compare: children.c reads every DIE's code so. */
static inline bool leb_u(const unsigned char **p, const unsigned char *end,
			 uint64_t *v)
{
	uint64_t x = 0;

	if (*p < end && **p < 0x80) {
		*v = *(*p)++;
		return true;
	}
	for (unsigned shift = 0; *p < end; shift += 7) {
		unsigned char b = *(*p)++;
		if (shift < 64)
			x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* Past a LEB128 (either sign) at *p; false when it runs out. */
static inline bool leb_skip(const unsigned char **p, const unsigned char *end)
{
	while (*p < end)
		if (!(*(*p)++ & 0x80))
			return true;
	return false;
}

static inline uint64_t br_uleb(struct byte_reader *r)
{
	uint64_t v;

	if (!r->ok || !leb_u(&r->p, r->end, &v)) {
		r->ok = false;
		return 0;
	}
	return v;
}

static inline int64_t br_sleb(struct byte_reader *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (r->ok && r->p < r->end) {
		unsigned char b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~0ULL << shift;
			return (int64_t)v;
		}
	}
	r->ok = false;
	return 0;
}

static inline void br_skip(struct byte_reader *r, uint64_t n)
{
	if (!r->ok || (uint64_t)(r->end - r->p) < n)
		r->ok = false;
	else
		r->p += n;
}

/* A NUL-terminated string at the reader, moved past it; NULL when none
 * ends before the buffer does. */
static inline const char *br_cstr(struct byte_reader *r)
{
	const unsigned char *nul;

	if (!r->ok || !(nul = memchr(r->p, 0, (size_t)(r->end - r->p)))) {
		r->ok = false;
		return NULL;
	}
	const char *s = (const char *)r->p;
	r->p = nul + 1;
	return s;
}

#endif
