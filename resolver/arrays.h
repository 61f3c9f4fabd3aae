/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The library's two array idioms, written once.
 * GROW(v, cap, n, first) makes room for element n of array v (cap slots),
 * doubling from first; evaluates to 0, or -ENOMEM with v and cap unchanged.
 * AT_OR_BELOW(n, i, key_of_i, x) is, for n elements sorted by the key
 * expression key_of_i of element i, how many have a key <= x: element
 * result - 1 is the last at or below x (none when 0).  The lookup of maps,
 * function ranges, functions, instructions, units, statics and symbols.
 */
#ifndef DTPROF_ARRAYS_H
#define DTPROF_ARRAYS_H

#include <errno.h>
#include <stdlib.h>

static inline size_t grow_capacity(size_t cap, size_t n, size_t first)
{
	if (n < cap)
		return cap;
	return cap ? cap * 2 : first;	/* reallocarray checks the product */
}

#define GROW(v, cap, n, first) __extension__({				\
	size_t c_ = grow_capacity((cap), (n), (first));			\
	__typeof__(v) p_ = c_ == (cap) ? (v) :				\
			   reallocarray((v), c_, sizeof(*(v)));		\
	if (p_) {							\
		(v) = p_;						\
		(cap) = c_;						\
	}								\
	p_ ? 0 : -ENOMEM;						\
})

#define AT_OR_BELOW(n, i, key_of_i, x) __extension__({			\
	size_t lo_ = 0, hi_ = (n);					\
	while (lo_ < hi_) {						\
		size_t i = lo_ + (hi_ - lo_) / 2;			\
		if ((key_of_i) <= (x))					\
			lo_ = i + 1;					\
		else							\
			hi_ = i;					\
	}								\
	lo_;								\
})

#endif
