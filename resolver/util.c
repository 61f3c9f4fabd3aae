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

#include "arrays.h"
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

struct answer_slot {
	bool used;
	struct answer_key key;
	struct dt_answer ans;
};

static size_t key_hash(const struct answer_key *k, size_t cap)
{
	/* multiply-xorshift over the three integers: this runs per line */
	uint64_t h = k->pc * 0x9e3779b97f4a7c15ULL;
	h ^= (uint64_t)k->disp * 0xc2b2ae3d27d4eb4fULL;
	h ^= (uint64_t)(int64_t)k->reg * 0x165667b19e3779f9ULL;
	h ^= h >> 29;
	return h & (cap - 1);
}

static bool key_eq(const struct answer_key *a, const struct answer_key *b)
{
	return a->pc == b->pc && a->disp == b->disp && a->reg == b->reg;
}

const struct dt_answer *cache_find(const struct answer_cache *c,
				   const struct answer_key *key)
{
	if (!c->cap)
		return NULL;
	for (size_t j = key_hash(key, c->cap); c->slots[j].used;
	     j = (j + 1) & (c->cap - 1))
		if (key_eq(&c->slots[j].key, key))
			return &c->slots[j].ans;
	return NULL;
}

static void slot_put(struct answer_slot *slots, size_t cap,
		     const struct answer_key *key, const struct dt_answer *ans)
{
	size_t j = key_hash(key, cap);

	while (slots[j].used && !key_eq(&slots[j].key, key))
		j = (j + 1) & (cap - 1);
	slots[j].used = true;
	slots[j].key = *key;
	slots[j].ans = *ans;
}

int cache_store(struct answer_cache *c, const struct answer_key *key,
		const struct dt_answer *ans)
{
	if ((c->used + 1) * 2 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		struct answer_slot *slots = calloc(cap, sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		for (size_t i = 0; i < c->cap; i++)
			if (c->slots[i].used)
				slot_put(slots, cap, &c->slots[i].key,
					 &c->slots[i].ans);
		free(c->slots);
		c->slots = slots;
		c->cap = cap;
	}
	slot_put(c->slots, c->cap, key, ans);
	c->used++;
	return 0;
}

void cache_release(struct answer_cache *c)
{
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

void dt_message(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
