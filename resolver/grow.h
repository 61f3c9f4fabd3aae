/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Growable arrays, the one way the library grows one: GROW(v, cap, n, first)
 * makes room for element n of array v (cap slots), doubling from first.
 * Evaluates to 0, or -ENOMEM with v and cap unchanged.
 */
#ifndef DTPROF_GROW_H
#define DTPROF_GROW_H

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

#endif
