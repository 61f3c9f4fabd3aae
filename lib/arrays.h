/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The library's array idioms, written once.
 * GROW(v, cap, n, first) makes room for element n of array v (cap slots),
 * doubling from first; evaluates to 0, or -ENOMEM with v and cap unchanged.
 * AT_OR_BELOW(n, i, key_of_i, x) is, for n elements sorted by the key
 * expression key_of_i of element i, how many have a key <= x: element
 * result - 1 is the last at or below x (none when 0).  The lookup of maps,
 * function ranges, functions, instructions, units, statics and symbols.
 * INDEX_READY(slot, size, n, i, hash_of_i) makes the open-addressing index
 * slot[size] of an array (a slot holds element index + 1, 0 is empty)
 * ready for element n: at half full it is rebuilt twice as large (1024
 * first) from elements 0..n-1, hashed by the expression hash_of_i;
 * evaluates to 0, or -ENOMEM with the index unchanged.  Callers probe
 * linearly from hash & (size - 1): INDEX_FIND(slot, size, hash, i,
 * match_i) is the matching element's index + 1, 0 when none (an empty
 * index too); INDEX_FREE(slot, size, hash) the empty slot a new element
 * of that hash goes to (after INDEX_READY).  The sharing and code-view
 * tables, definitions seen, units, stack-slot answers, call clobbers.
 * FIT(v, cap, n) drops the doubling's slack once array v is complete (a
 * table kept for the session): v and cap stay as they were when realloc
 * fails.
 * hash_bytes (FNV-1a from HASH_SEED), hash_str (a string's, 0 for none)
 * and hash_mix (one integer folded in) are their hashes: strings
 * interned, definitions seen.
 * gcd_u64(a, b) is their greatest common divisor (a when b is 0): the
 * strides the dataflow and the operands combine.
 * lru_cutoff() trims a cache by last use (funcmap.c's maps, scope.c's
 * register homes): of v[0..n), each last used at a clock's tick and of
 * some size, the oldest tick kept; the newest one stays, and the newest
 * after it while they are fewer than half of max_n and no larger than
 * half of max_size together, so that the cache grows back for as long
 * before the next trim.  v is sorted, newest first.
 * sort_u64(v, n) sorts v[0..n) ascending a byte at a time, skipping the
 * bytes every key shares (the high ones of a binary's addresses): a
 * binary's symbol starts and bounds, in under half of qsort's instructions;
 * qsort without memory for the copy and the counts.
 */
#ifndef DTPROF_ARRAYS_H
#define DTPROF_ARRAYS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline size_t grow_capacity(size_t cap, size_t n, size_t first)
{
	if (n < cap)
		return cap;
	return cap ? cap * 2 : first;	/* reallocarray checks the product */
}

static inline uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
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

#define FIT(v, cap, n) do {						\
	__typeof__(v) f_ = (n) ? realloc((v), (n) * sizeof(*(v))) : NULL; \
	if (f_) {							\
		(v) = f_;						\
		(cap) = (n);						\
	}								\
} while (0)

#define INDEX_READY(slot, size, n, i, hash_of_i) __extension__({	\
	int e_ = 0;							\
	if (((n) + 1) * 2 > (size)) {					\
		size_t s_ = (size) ? (size) * 2 : 1024;			\
		uint32_t *x_ = calloc(s_, sizeof(*x_));			\
		for (size_t i = 0; x_ && i < (n); i++) {		\
			size_t h_ = (hash_of_i) & (s_ - 1);		\
			while (x_[h_])					\
				h_ = (h_ + 1) & (s_ - 1);		\
			x_[h_] = (uint32_t)i + 1;			\
		}							\
		if (x_) {						\
			free(slot);					\
			(slot) = x_;					\
			(size) = s_;					\
		} else {						\
			e_ = -ENOMEM;					\
		}							\
	}								\
	e_;								\
})

#define INDEX_FIND(slot, size, hash, i, match_i) __extension__({	\
	uint32_t k_ = 0;						\
	for (size_t j_ = (hash) & ((size) - 1);				\
	     (size) && (slot)[j_]; j_ = (j_ + 1) & ((size) - 1)) {	\
		size_t i = (slot)[j_] - 1;				\
		if (match_i) {						\
			k_ = (slot)[j_];				\
			break;						\
		}							\
	}								\
	k_;								\
})

#define INDEX_FREE(slot, size, hash) __extension__({			\
	size_t j_ = (hash) & ((size) - 1);				\
	while ((slot)[j_])						\
		j_ = (j_ + 1) & ((size) - 1);				\
	j_;								\
})

/* FNV-1a: short keys, good enough spread, no dependencies. */
static inline uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
#define HASH_SEED 0xcbf29ce484222325ULL

/* A string's hash_bytes from HASH_SEED, 0 for none. */
static inline uint64_t hash_str(const char *s)
{
	return s ? hash_bytes(s, strlen(s), HASH_SEED) : 0;
}

static inline uint64_t hash_mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	/* a product's low bits come from its factor's low bits alone, and
	 * the tables take the low bits: the high half is folded in before
	 * the multiply and after it, or keys 16 bytes apart (functions,
	 * allocations) share a sixteenth of the slots, and keys apart only
	 * in their high bits a few (tests/unit-arrays) */
	h ^= h >> 31;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 31) ^ (h >> 47);
}

static inline int sort_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static inline void sort_u64(uint64_t *v, size_t n)
{
	/* the copy and the counts in one block, off a host's stack */
	uint64_t *tmp = n > 64 ? calloc(n + 8 * 256, sizeof(*v)) : NULL;
	uint64_t (*count)[256] = tmp ? (uint64_t (*)[256])(tmp + n) : NULL;

	if (!tmp) {
		if (n > 1)
			qsort(v, n, sizeof(*v), sort_u64_cmp);
		return;
	}
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			count[b][v[i] >> 8 * b & 255]++;
	uint64_t *from = v, *to = tmp;
	for (int b = 0; b < 8; b++) {
		if (count[b][v[0] >> 8 * b & 255] == n)
			continue;	/* every key has this byte */
		for (uint64_t d = 0, at = 0; d < 256; d++) {
			uint64_t c = count[b][d];
			count[b][d] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[b][from[i] >> 8 * b & 255]++] = from[i];
		uint64_t *t = from;
		from = to;
		to = t;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	free(tmp);
}

struct lru_item {
	uint64_t used;		/* the tick it was last used at */
	size_t size;
};

static inline int lru_newer_first(const void *a, const void *b)
{
	const struct lru_item *x = a, *y = b;

	return x->used > y->used ? -1 : x->used < y->used;
}

static inline uint64_t lru_cutoff(struct lru_item *v, size_t n, size_t max_n,
				  size_t max_size)
{
	uint64_t oldest = 0;
	size_t size = 0;

	qsort(v, n, sizeof(*v), lru_newer_first);
	for (size_t i = 0; i < n && (!i || (i < max_n / 2 &&
					    size + v[i].size <= max_size / 2)); i++) {
		size += v[i].size;
		oldest = v[i].used;
	}
	return oldest;
}
#endif
