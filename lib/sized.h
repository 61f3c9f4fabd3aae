/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The structs a caller passes that lead with their own size (size_t sz,
 * libbpf's way): a program built against an older dtprof.h passes a
 * shorter struct, one built against a newer header a longer one.
 */
#ifndef DTPROF_SIZED_H
#define DTPROF_SIZED_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Copy the caller's struct src (NULL: the defaults) into dst, dst_size
 * bytes, zeroed first, its sz set to dst_size: only the fields the
 * caller's struct has are read.  False when the caller's sz is too small
 * to be one (a struct whose .sz was forgotten), or when its struct is
 * larger and its tail (fields this library does not know) is not all
 * zero; dst then holds what it knows. */
static inline bool sized_in(void *dst, size_t dst_size, const void *src)
{
	size_t sz = 0;
	bool ok = true;

	memset(dst, 0, dst_size);
	if (src) {
		memcpy(&sz, src, sizeof(sz));
		ok = sz >= sizeof(sz);
		memcpy(dst, src, sz < dst_size ? sz : dst_size);
		for (size_t i = dst_size; i < sz; i++)
			if (((const unsigned char *)src)[i])
				ok = false;
	}
	memcpy(dst, &dst_size, sizeof(dst_size));
	return ok;
}

#endif
