/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Little-endian DWARF values read from a buffer that may be cut short:
 * each read past the end clears ok and gives 0, so a parser reads on and
 * checks ok once (linefiles.c's line table headers, loclist.c's lists
 * and expressions; the callers read only files libelf says are
 * little-endian).
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

static inline uint64_t br_uleb(struct byte_reader *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; r->ok && r->p < r->end; shift += 7) {
		unsigned char b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->ok = false;
	return 0;
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
