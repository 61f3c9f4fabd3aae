// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Type names as perf users type them: `callchain_list` and
 * `struct callchain_list` name the same row, and so does a typedef name
 * (`cJSON`, `foo_t`) of it.  Typedefs are looked up in the binary's DWARF
 * once per name and session.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../arrays.h"

struct typedef_answer {
	const char *query;		/* interned */
	const char *target;		/* interned spelling, NULL: none */
};

struct typedef_cache {
	struct typedef_answer *v;
	size_t n, cap;
};

/* "struct foo" -> "foo"; NULL when type has no keyword. */
static const char *bare_tag(const char *type)
{
	static const char *const keywords[] = { "struct ", "union ", "enum ", "class " };

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		size_t n = strlen(keywords[i]);
		if (!strncmp(type, keywords[i], n))
			return type + n;
	}
	return NULL;
}

/* The spelling a report row has for what typedef `name` stands for: the
 * tag of the struct it names ("struct foo"), or the typedef's own name
 * when the struct has no tag.  NULL when the DWARF has no such typedef. */
static const char *find_typedef(struct dt_session *s, const char *name)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu, d;

	while (session_next_unit(s, &unit, &cu)) {
		if (dwarf_child(&cu, &d) != 0)
			continue;
		do {
			const char *n = dwarf_tag(&d) == DW_TAG_typedef ?
					dwarf_diename(&d) : NULL;
			Dwarf_Die t;
			const char *via;
			char spelled[512];
			if (!n || strcmp(n, name) || !type_peel_named(&d, &t, &via))
				continue;
			if (!dwarf_diename(&t) && via)
				return session_intern(s, via);
			type_spell(&t, spelled, sizeof(spelled));
			return session_intern(s, spelled);
		} while (dwarf_siblingof(&d, &d) == 0);
	}
	return NULL;
}

static const char *typedef_target(struct dt_session *s, const char *query)
{
	struct typedef_cache *c = s->typedefs;

	if (!c && !(c = s->typedefs = calloc(1, sizeof(*c))))
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].query, query))
			return c->v[i].target;
	const char *target = find_typedef(s, query);
	if (!GROW(c->v, c->cap, c->n, 8))
		c->v[c->n++] = (struct typedef_answer){ session_intern_raw(s, query), target };
	return target;
}

void typedef_cache_free(struct typedef_cache *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

bool dt_type_name_matches(struct dt_session *s, const char *type,
			  const char *query)
{
	const char *tag = bare_tag(type);
	const char *target;

	if (!strcmp(type, query) || (tag && !strcmp(tag, query)))
		return true;
	/* a typedef name has no keyword and no declarator characters */
	if (!s || bare_tag(query) || strpbrk(query, " *[(<:"))
		return false;
	if (s->oom.no_memory)
		return false;
	struct oom_guard g;
	OOM_GUARD(s, g, return false);
	target = typedef_target(s, query);
	OOM_UNGUARD(g);
	return target && !strcmp(target, type);
}

/* Edit distance of a and b, capped at cap + 1 (names are short). */
static unsigned distance(const char *a, const char *b, unsigned cap)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[64];

	if (la > 63 || lb > 63)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0], best;
		row[0] = (unsigned)i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned v = diag + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			if (up + 1 < v)
				v = up + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb];
}

bool dt_type_name_close(const char *type, const char *query)
{
	const char *tag = bare_tag(type), *qtag = bare_tag(query);
	const char *t = tag ? tag : type, *q = qtag ? qtag : query;
	unsigned cap = (unsigned)strlen(q) / 3 + 1;

	if (strlen(q) >= 3 && strlen(t) >= 3 && (strstr(t, q) || strstr(q, t)))
		return true;
	return distance(t, q, cap) <= cap;
}
