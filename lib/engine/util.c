// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Two hash tables the session owns: interned strings (answers point into
 * them until the session closes) and the per-(pc, operand) answer cache,
 * whose lookups allocate nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arrays.h"
#include "internal.h"


struct strtab_chunk {
	struct strtab_chunk *next;
	size_t used, cap;
	char data[];
};

static char *strtab_store(struct dt_strtab *t, const char *s, size_t len)
{
	struct strtab_chunk *c = t->chunks;

	if (!c || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > 65536 ? len + 1 : 65536;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = t->chunks;
		t->chunks = c;
	}
	char *p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

static int strtab_grow(struct dt_strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	char **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		char *s = t->slots[i];
		if (!s)
			continue;
		size_t j = hash_bytes(s, strlen(s), HASH_SEED) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = s;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

const char *strtab_intern(struct dt_strtab *t, const char *s, size_t len)
{
	if ((t->used + 1) * 2 > t->cap && strtab_grow(t))
		return NULL;
	size_t j = hash_bytes(s, len, HASH_SEED) & (t->cap - 1);
	for (; t->slots[j]; j = (j + 1) & (t->cap - 1))
		if (!strncmp(t->slots[j], s, len) && t->slots[j][len] == '\0')
			return t->slots[j];
	char *p = strtab_store(t, s, len);
	if (!p)
		return NULL;
	t->slots[j] = p;
	t->used++;
	return p;
}

void strtab_release(struct dt_strtab *t)
{
	while (t->chunks) {
		struct strtab_chunk *next = t->chunks->next;
		free(t->chunks);
		t->chunks = next;
	}
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* Answers are kept dense, in the order made; the open-addressing index
 * over them (arrays.h) holds 4 bytes a slot, so its half-empty slack
 * costs little: a kernel's 100,000 answers take 14 MB, not twice that. */
struct cached_answer {
	struct answer_key key;
	struct dt_answer ans;
};

static uint64_t key_hash(const struct answer_key *k)
{
	/* multiply-xorshift over the three integers: this runs per line */
	uint64_t h = k->pc * 0x9e3779b97f4a7c15ULL;
	h ^= (uint64_t)k->disp * 0xc2b2ae3d27d4eb4fULL;
	h ^= (uint64_t)(int64_t)k->reg * 0x165667b19e3779f9ULL;
	h ^= h >> 29;
	return h;
}

static bool key_eq(const struct answer_key *a, const struct answer_key *b)
{
	return a->pc == b->pc && a->disp == b->disp && a->reg == b->reg;
}

const struct dt_answer *cache_find(const struct answer_cache *c,
				   const struct answer_key *key)
{
	uint32_t k = INDEX_FIND(c->slot, c->size, key_hash(key), i,
				key_eq(&c->v[i].key, key));

	return k ? &c->v[k - 1].ans : NULL;
}

int cache_store(struct answer_cache *c, const struct answer_key *key,
		const struct dt_answer *ans)
{
	uint64_t h = key_hash(key);
	uint32_t k = INDEX_FIND(c->slot, c->size, h, i, key_eq(&c->v[i].key, key));

	if (k) {
		c->v[k - 1].ans = *ans;
		return 0;
	}
	if (INDEX_READY(c->slot, c->size, c->n, i, key_hash(&c->v[i].key)) ||
	    GROW(c->v, c->cap, c->n, 1024))
		return -ENOMEM;
	c->v[c->n] = (struct cached_answer){ *key, *ans };
	c->slot[INDEX_FREE(c->slot, c->size, h)] = (uint32_t)++c->n;
	return 0;
}

void cache_release(struct answer_cache *c)
{
	free(c->v);
	free(c->slot);
	memset(c, 0, sizeof(*c));
}

void dt_message(const char *prog, const char *fmt, ...)
{
	char small[1024], *big = NULL;
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(small) && (big = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	/* messages quote paths and names: any byte, on the user's terminal */
	fprintf(stderr, "%s: ", prog);
	dt_text_put(stderr, big ? big : small);
	fputc('\n', stderr);
	free(big);
}
