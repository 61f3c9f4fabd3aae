// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Container inference: a pointer to a struct used at an offset outside it
 * (container_of(node, struct obj, link)->field: a negative offset, or past
 * the end when link is the first member) points into a larger struct that
 * embeds it.  Every struct, union and class of the binary that embeds a
 * named aggregate is indexed once per session, by the embedded type's
 * name and size; an offset is answered only when exactly one container's
 * layout holds it, since a guess between two is a wrong answer half the
 * time.
 * C also has structs that start like another without embedding it (a
 * "common header" macro: every object kind begins with the members of
 * the struct its pointers are declared as).  Each struct's first members
 * are indexed too, hashed by name and place, and a pointer to a header
 * used past it is answered by the one struct starting with the same
 * members (checked one by one, types too) whose layout holds the access.
 */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "../arrays.h"
#include "internal.h"

#define NAME_LEN 256
#define MAX_ELEMS 64		/* array members: elements indexed each */
#define MAX_NEST 4		/* containers of containers */
#define MAX_HITS 4		/* containers a bad_offset note names */
#define MAX_DEPTH 8		/* namespaces and nested types */
#define PREFIX_MIN 2		/* a header of one member proves nothing */
#define PREFIX_MAX 6		/* the members a header is looked up by */

struct embed {
	const char *inner;	/* interned spelled name of the embedded type */
	uint64_t inner_size;
	const char *outer;	/* ... of the container */
	uint64_t outer_size;
	Dwarf_Off outer_die;	/* one of its definitions */
	uint64_t offset;	/* where inner sits in outer */
};

/* A struct's first k members (PREFIX_MIN <= k <= PREFIX_MAX), by a hash
 * of their names and places: the structs that may start like a header. */
struct prefix {
	uint64_t hash;
	unsigned k;
	const char *outer;
	uint64_t outer_size;
	Dwarf_Off outer_die;
};

struct defs_seen;

struct container_index {
	struct embed *v;
	size_t n, cap;
	struct prefix *pv;		/* sorted by hash, k, outer */
	size_t np, pcap;
	bool failed;		/* out of memory while building: no answers */
	bool complete;		/* every unit walked, v sorted */
	struct defs_seen *seen;	/* while building */
};

/* One definition of an aggregate, as far as indexing it goes: every unit
 * repeats the definitions of the headers it includes, and spelling and
 * walking each copy again is most of the index's cost.  Two definitions
 * with the same tag, name, size, declaration (file and line) and
 * encoded length (the bytes from the definition to its next sibling:
 * its members, their names' and types' forms) are taken for one, which
 * asks nothing of the members; a definition with no next sibling is
 * keyed by its members' names and offsets instead.  Names are compared
 * by content (a hash), as units need not share one string table. */
struct def_seen {
	uint64_t name;		/* tag and a hash of the name */
	uint64_t size, file;	/* file: a hash of the declaring file's name */
	uint64_t extent;	/* encoded length, or a hash of the members */
	Dwarf_Word line;
};

struct defs_seen {
	struct def_seen *v;
	size_t n, cap;
	uint32_t *slot;		/* open addressing over v: arrays.h */
	size_t size;
};

static uint64_t def_hash(const struct def_seen *d)
{
	return hash_mix(hash_mix(hash_mix(hash_mix(d->name, d->size), d->extent),
				 d->line), d->file);
}

static uint64_t str_hash(uint64_t h, const char *s)
{
	return hash_mix(h, hash_str(s));
}

static uint64_t members_hash(Dwarf_Die *t)
{
	Dwarf_Die m;
	uint64_t h = 0;

	if (dwarf_child(t, &m) != 0)
		return 0;
	do {
		Dwarf_Attribute a;
		Dwarf_Word off = ~0ULL;
		h = str_hash(hash_mix(h, (uint64_t)dwarf_tag(&m)), dwarf_diename(&m));
		if (dwarf_attr(&m, DW_AT_data_member_location, &a))
			dwarf_formudata(&a, &off);	/* a location expression: ~0 */
		h = hash_mix(h, off);
	} while (dwarf_siblingof(&m, &m) == 0);
	return h;
}

/* Whether an identical definition was indexed already (else it is
 * remembered); false when memory runs short: indexed again, not lost.
 * def: c's key (children_definition), next its next sibling, NULL for
 * the last. */
static bool seen_before(struct defs_seen *seen, struct die_children *c,
			const struct children_def *def, const struct die_children *next)
{
	Dwarf_Die *d = next ? NULL : children_die(c);
	struct def_seen k = {
		.name = str_hash((uint64_t)c->tag, def->name),
		/* str_hash(0, the file), its hash_str kept by children.c */
		.file = hash_mix(0, def->file_hash),
		.extent = next ? next->off - c->off :
				 hash_mix(1, d ? members_hash(d) : 0),
		.line = def->line,
		.size = def->size,
	};

	if (INDEX_READY(seen->slot, seen->size, seen->n, i, def_hash(&seen->v[i])))
		return false;
	size_t j = def_hash(&k) & (seen->size - 1);
	for (; seen->slot[j]; j = (j + 1) & (seen->size - 1)) {
		const struct def_seen *o = &seen->v[seen->slot[j] - 1];
		if (o->name == k.name && o->size == k.size && o->file == k.file &&
		    o->extent == k.extent && o->line == k.line)
			return true;
	}
	if (GROW(seen->v, seen->cap, seen->n, 256))
		return false;
	seen->v[seen->n] = k;
	seen->slot[j] = (uint32_t)++seen->n;
	return false;
}

static void seen_free(struct defs_seen *seen)
{
	if (seen) {
		free(seen->v);
		free(seen->slot);
		free(seen);
	}
}

void container_index_free(struct container_index *ix)
{
	if (!ix)
		return;
	seen_free(ix->seen);
	free(ix->v);
	free(ix->pv);
	free(ix);
}

static bool is_aggregate_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* Name and size of an aggregate type die (typedefs and qualifiers
 * peeled); false for anything else and for tagless aggregates. */
static bool aggregate_key(struct dt_session *s, Dwarf_Die *type, Dwarf_Die *peeled,
			  const char **name, uint64_t *size)
{
	char buf[NAME_LEN];

	if (!type_peel(type, peeled) || !is_aggregate_tag(dwarf_tag(peeled)) ||
	    !dwarf_diename(peeled) || !type_byte_size(peeled, size) || !*size)
		return false;
	type_spell(peeled, buf, sizeof(buf));
	*name = session_intern(s, buf);
	return **name != '\0';
}

static void add(struct container_index *ix, const struct embed *e)
{
	if (GROW(ix->v, ix->cap, ix->n, 256)) {
		ix->failed = true;
		return;
	}
	ix->v[ix->n++] = *e;
}

/* The members of aggregate t at base offset base in outer: named
 * aggregates (and arrays of them) are recorded, anonymous ones entered. */
static void index_members(struct dt_session *s, struct container_index *ix,
			  Dwarf_Die *t, uint64_t base, struct embed *proto,
			  int depth)
{
	struct die_children c;

	if (depth > 8 || !children_first(&s->walker, t, &c))
		return;
	do {
		if (c.tag != DW_TAG_member && c.tag != DW_TAG_inheritance)
			continue;
		Dwarf_Die *mp = children_die(&c);
		if (!mp)
			continue;
		Dwarf_Die m = *mp, mt, peeled, elem;
		uint64_t start, end, esize, n = 1;
		bool open;
		if (!die_type(&m, &mt) || !type_peel(&mt, &peeled) ||
		    !member_extent(&m, &peeled, &start, &end, &open) || open)
			continue;
		if (dwarf_tag(&peeled) == DW_TAG_array_type) {
			if (!die_type(&peeled, &elem) || !type_peel(&elem, &elem) ||
			    !type_byte_size(&elem, &esize) || !esize)
				continue;
			n = (end - start) / esize;
			if (n > MAX_ELEMS)
				n = MAX_ELEMS;
			peeled = elem;
		} else {
			esize = end - start;
		}
		if (!is_aggregate_tag(dwarf_tag(&peeled)))
			continue;
		if (!dwarf_diename(&peeled)) {	/* anonymous: its members are ours */
			for (uint64_t i = 0; i < n; i++)
				index_members(s, ix, &peeled, base + start + i * esize,
					      proto, depth + 1);
			continue;
		}
		struct embed e = *proto;
		Dwarf_Die p2;
		if (!aggregate_key(s, &peeled, &p2, &e.inner, &e.inner_size))
			continue;
		for (uint64_t i = 0; i < n; i++) {
			e.offset = base + start + i * esize;
			add(ix, &e);
		}
	} while (children_next(&s->walker, &c));
}

/* A member's name and place folded into h: what a common header is
 * looked up by (types are compared only on the candidates found). */
static uint64_t member_key(struct dt_session *s, struct die_children *c, uint64_t h)
{
	Dwarf_Word off, bits, width = 0;
	Dwarf_Die *d = children_die(c);

	if (!children_udata(&s->walker, c, DW_AT_data_member_location, &off))
		off = ~0ULL;	/* none, or a location expression */
	if (!children_udata(&s->walker, c, DW_AT_data_bit_offset, &bits))
		bits = ~0ULL;
	if (children_has(&s->walker, c, DW_AT_bit_size) &&
	    !children_udata(&s->walker, c, DW_AT_bit_size, &width))
		width = ~0ULL;
	h = hash_mix(str_hash(h, d ? dwarf_diename(d) : NULL), off);
	return hash_mix(hash_mix(h, bits), width);
}

/* The hashes of struct d's first members, prefix by prefix: h[k - 1]
 * covers the first k, by name and place.  How many (PREFIX_MAX at most). */
static unsigned first_members(struct dt_session *s, Dwarf_Die *d,
			      uint64_t h[PREFIX_MAX])
{
	struct die_children c;
	unsigned k = 0;

	if (!children_first(&s->walker, d, &c))
		return 0;
	do {
		if (c.tag == DW_TAG_member) {	/* not a nested type, a method */
			h[k] = member_key(s, &c, k ? h[k - 1] : 0);
			k++;
		}
	} while (k < PREFIX_MAX && children_next(&s->walker, &c));
	return k;
}

/* The struct's first members, each prefix of PREFIX_MIN.. of them. */
static void index_prefixes(struct dt_session *s, struct container_index *ix,
			   Dwarf_Die *d, const struct embed *proto)
{
	uint64_t h[PREFIX_MAX];
	unsigned n = first_members(s, d, h);

	for (unsigned k = PREFIX_MIN; k <= n; k++) {
		if (GROW(ix->pv, ix->pcap, ix->np, 256)) {
			ix->failed = true;
			return;
		}
		ix->pv[ix->np++] = (struct prefix){ .hash = h[k - 1], .k = k,
			.outer = proto->outer, .outer_size = proto->outer_size,
			.outer_die = proto->outer_die };
	}
}

static void index_scope(struct dt_session *s, struct container_index *ix,
			struct defs_seen *seen, Dwarf_Die *scope,
			struct die_children *scope_c, int depth);

/* One entry of a scope, c's child: an aggregate's members (and its
 * nested types), a namespace's entries.  next is its next sibling, NULL
 * for the last. */
static void index_entry(struct dt_session *s, struct container_index *ix,
			struct defs_seen *seen, struct die_children *c,
			const struct die_children *next, int depth)
{
	struct children_def def;
	Dwarf_Die *d;

	if (c->tag == DW_TAG_namespace) {
		index_scope(s, ix, seen, NULL, c, depth + 1);
		return;
	}
	if (!is_aggregate_tag(c->tag) || !children_definition(&s->walker, c, &def) ||
	    seen_before(seen, c, &def, next) || !(d = children_die(c)))
		return;
	struct embed proto;
	Dwarf_Die peeled;
	if (!aggregate_key(s, d, &peeled, &proto.outer, &proto.outer_size))
		return;
	proto.outer_die = session_die_key(s, d);
	index_members(s, ix, d, 0, &proto, 0);
	if (c->tag != DW_TAG_union_type)
		index_prefixes(s, ix, d, &proto);
	index_scope(s, ix, seen, d, NULL, depth + 1);	/* nested C++ types */
}

static void index_scope(struct dt_session *s, struct container_index *ix,
			struct defs_seen *seen, Dwarf_Die *scope,
			struct die_children *scope_c, int depth)
{
	struct die_children c;

	if (depth > MAX_DEPTH ||
	    !children_first_in(&s->walker, scope, scope_c, &c))
		return;
	for (;;) {
		struct die_children d = c;	/* its attributes read after */
		bool more = children_next(&s->walker, &c);
		index_entry(s, ix, seen, &d, more ? &c : NULL, depth);
		if (!more)
			break;
	}
}

/* Names by content (interned: the same name is the same pointer; none
 * first), so that the order, and which containers a note lists first,
 * does not depend on which names earlier answers interned first. */
static int cmp_name(const char *x, const char *y)
{
	return x == y ? 0 : !x ? -1 : !y ? 1 : strcmp(x, y);
}

static int cmp_embed(const void *a, const void *b)
{
	const struct embed *x = a, *y = b;
	int c;

	if ((c = cmp_name(x->inner, y->inner)))
		return c;
	if (x->inner_size != y->inner_size)
		return x->inner_size < y->inner_size ? -1 : 1;
	if ((c = cmp_name(x->outer, y->outer)))
		return c;
	if (x->outer_size != y->outer_size)
		return x->outer_size < y->outer_size ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int cmp_prefix(const void *a, const void *b)
{
	const struct prefix *x = a, *y = b;
	int c;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	if ((c = cmp_name(x->outer, y->outer)))
		return c;
	return x->outer_size < y->outer_size ? -1 : x->outer_size > y->outer_size;
}

static struct container_index *index_new(struct dt_session *s)
{
	if (!s->containers)
		s->containers = calloc(1, sizeof(*s->containers));
	return s->containers;
}

void containers_entry(struct dt_session *s, struct die_children *c,
		      const struct die_children *next, int depth)
{
	struct container_index *ix = index_new(s);

	if (!ix || ix->failed || depth > MAX_DEPTH)
		return;
	if (!ix->seen && !(ix->seen = calloc(1, sizeof(*ix->seen)))) {
		ix->failed = true;
		return;
	}
	index_entry(s, ix, ix->seen, c, next, depth);
}

/* The walk is over: one entry of each embedding, sorted for find(). */
void containers_walked(struct dt_session *s)
{
	struct container_index *ix = index_new(s);

	if (!ix)
		return;
	if (ix->failed) {
		session_debug(s, "the index of embedded aggregates: out of memory, not used");
		return;
	}
	session_debug(s, "%zu distinct aggregate definitions", ix->seen ? ix->seen->n : 0);
	seen_free(ix->seen);
	ix->seen = NULL;
	if (ix->n)
		qsort(ix->v, ix->n, sizeof(*ix->v), cmp_embed);
	/* every unit repeats its headers' types: keep one of each */
	size_t w = 0;
	for (size_t i = 0; i < ix->n; i++)
		if (!w || cmp_embed(&ix->v[w - 1], &ix->v[i]))
			ix->v[w++] = ix->v[i];
	ix->n = w;
	if (ix->np)
		qsort(ix->pv, ix->np, sizeof(*ix->pv), cmp_prefix);
	w = 0;
	for (size_t i = 0; i < ix->np; i++)
		if (!w || cmp_prefix(&ix->pv[w - 1], &ix->pv[i]))
			ix->pv[w++] = ix->pv[i];
	ix->np = w;
	ix->complete = true;
	session_debug(s, "indexed %zu embedded aggregates", ix->n);
}

/* The session's index, the walk of every unit finished now if it was
 * not. */
static struct container_index *index_get(struct dt_session *s)
{
	units_walk(s, SIZE_MAX);
	return s->containers;
}

/* The containers holding [off, off + len) of inner: appended to out
 * (at most max), through containers of containers. */
/* Whether every probe, moved by delta into container e, reads a whole
 * member of it there. */
static bool fits(struct dt_session *s, const struct embed *e,
		 const struct probe *p, size_t np, int64_t delta)
{
	Dwarf_Die outer;

	if (!session_offdie(s, e->outer_die, &outer))
		return false;
	for (size_t i = 0; i < np; i++) {
		int64_t co = p[i].off + delta;
		if (co < 0 || (uint64_t)co + (p[i].len ? p[i].len : 1) > e->outer_size ||
		    !type_access_fits(s, &outer, (uint64_t)co, p[i].len))
			return false;
	}
	return true;
}

/* The containers where probes[0] lands (through containers of
 * containers) and every probe reads a whole member: appended to out (at
 * most max), with probes[0]'s offset in them. */
static size_t find(struct dt_session *s, const struct container_index *ix,
		   const char *inner, uint64_t inner_size,
		   const struct probe *p, size_t np, int64_t delta,
		   const struct embed **out, int64_t *out_off, size_t n,
		   size_t max, int depth)
{
	struct embed key = { .inner = inner, .inner_size = inner_size };
	size_t i = AT_OR_BELOW(ix->n, k, cmp_embed(&ix->v[k], &key) < 0 ? 0 : 1, 0);

	/* past max, the answer is "several" whatever the count: stop */
	for (; n <= max && i < ix->n && ix->v[i].inner == inner &&
	       ix->v[i].inner_size == inner_size; i++) {
		const struct embed *e = &ix->v[i];
		int64_t d = delta + (int64_t)e->offset;
		int64_t co = p[0].off + d;
		if (co >= 0 && (uint64_t)co + (p[0].len ? p[0].len : 1) <= e->outer_size) {
			if (!fits(s, e, p, np, d))
				continue;
			if (n < max) {
				out[n] = e;
				out_off[n] = co;
			}
			n++;
		} else if (depth < MAX_NEST) {
			n = find(s, ix, e->outer, e->outer_size, p, np, d, out,
				 out_off, n, max, depth + 1);
		}
	}
	return n;
}

/* Whether member a of a header and member b of a struct are one: name,
 * place, bits and type (spelled). */
static bool same_member(struct dt_session *s, struct die_children *a,
			struct die_children *b)
{
	Dwarf_Die *da = children_die(a), *db = children_die(b);
	char ta[NAME_LEN], tb[NAME_LEN];
	Dwarf_Die at, bt;

	if (!da || !db)
		return false;
	const char *na = dwarf_diename(da), *nb = dwarf_diename(db);
	if (b->tag != DW_TAG_member || member_key(s, a, 0) != member_key(s, b, 0) ||
	    !na != !nb || (na && strcmp(na, nb)))
		return false;
	bool ha = die_type(da, &at), hb = die_type(db, &bt);
	if (ha != hb)
		return false;
	if (!ha)
		return true;
	type_spell(&at, ta, sizeof(ta));
	type_spell(&bt, tb, sizeof(tb));
	return strcmp(ta, tb) == 0;
}

/* Whether struct o starts with every member of header t. */
bool type_starts_like(struct dt_session *s, Dwarf_Die *t, Dwarf_Die *o)
{
	struct die_children a, b;
	bool more_a = children_first(&s->walker, t, &a), more_b = children_first(&s->walker, o, &b);
	unsigned k = 0;

	for (; more_a; more_a = children_next(&s->walker, &a)) {
		if (a.tag != DW_TAG_member)
			continue;
		while (more_b && b.tag != DW_TAG_member)
			more_b = children_next(&s->walker, &b);
		if (!more_b || !same_member(s, &a, &b))
			return false;
		k++;
		more_b = children_next(&s->walker, &b);
	}
	return k >= PREFIX_MIN;
}

/* Where struct o's last member starts when it is an array (flexible,
 * or C's old [1] and [0]): an object may run on past o's size in it. */
static bool trailing_array(struct dt_session *s, Dwarf_Die *o, uint64_t *start)
{
	const struct member_table *tab = member_table_get(s, o);
	Dwarf_Die mt;

	if (!tab || !tab->n)
		return false;
	mt = tab->v[tab->n - 1].mt;	/* peeled */
	*start = tab->v[tab->n - 1].start;
	return dwarf_tag(&mt) == DW_TAG_array_type;
}

/* Whether struct o (of e) may hold every probe: a whole member of it,
 * or bytes from its trailing array on (*whole false then). */
static bool may_hold(struct dt_session *s, const struct embed *e, Dwarf_Die *o,
		     const struct probe *p, size_t np, bool *whole)
{
	uint64_t tail;
	bool has_tail = trailing_array(s, o, &tail);

	*whole = true;
	for (size_t i = 0; i < np; i++) {
		if (fits(s, e, p + i, 1, 0))
			continue;
		if (!has_tail || p[i].off < 0 || (uint64_t)p[i].off < tail)
			return false;
		*whole = false;
	}
	return true;
}

/* The key header t (peeled) is looked up by: its first members' hash and
 * how many; false for fewer than PREFIX_MIN. */
static bool header_key(struct dt_session *s, Dwarf_Die *t, uint64_t *hash,
		       unsigned *k)
{
	uint64_t h[PREFIX_MAX];

	*k = first_members(s, t, h);
	if (*k < PREFIX_MIN)
		return false;
	*hash = h[*k - 1];
	return true;
}

/* The structs other than header t (name, size) that start with all its
 * members and may hold every probe: into found[] (at most max; the count
 * may be more), *whole when the one found reads whole members of it. */
static size_t find_starting_like(struct dt_session *s,
				 const struct container_index *ix, Dwarf_Die *t,
				 const char *name, uint64_t size,
				 const struct probe *p, size_t np,
				 struct embed *found, size_t max, bool *whole)
{
	uint64_t hash;
	unsigned k;
	size_t n = 0;

	if (dwarf_tag(t) == DW_TAG_union_type || !header_key(s, t, &hash, &k))
		return 0;
	size_t i = AT_OR_BELOW(ix->np, j, ix->pv[j].hash < hash ||
			       (ix->pv[j].hash == hash && ix->pv[j].k < k) ? 0 : 1, 0);
	for (; n <= max && i < ix->np && ix->pv[i].hash == hash && ix->pv[i].k == k; i++) {
		const struct prefix *c = &ix->pv[i];
		struct embed e = { .inner = name, .inner_size = size, .outer = c->outer,
				   .outer_size = c->outer_size,
				   .outer_die = c->outer_die };
		Dwarf_Die o;
		bool w;
		if ((c->outer == name && c->outer_size == size) ||
		    !session_offdie(s, c->outer_die, &o) ||
		    !may_hold(s, &e, &o, p, np, &w) || !type_starts_like(s, t, &o))
			continue;
		if (n < max)
			found[n] = e;
		if (!n)
			*whole = w;	/* what matters when it is the one */
		n++;
	}
	return n;
}

/* No struct embeds header t: the one struct that starts like it and
 * holds the probes, else bad_offset naming those that do. */
static enum dt_reason starting_like_member_at(struct dt_session *s,
					      const struct container_index *ix,
					      Dwarf_Die *t, const char *name,
					      uint64_t size, const struct probe *p,
					      size_t np, const struct access *acc,
					      struct type_hit *out, char *why,
					      size_t why_len)
{
	struct embed found[MAX_HITS];
	long long off = (long long)p[0].off;
	bool whole = false;
	size_t n = find_starting_like(s, ix, t, name, size, p, np, found, MAX_HITS,
				      &whole);
	Dwarf_Die outer;

	if (n == 0) {
		snprintf(why, why_len, "no struct embeds %s at %+lld, nor starts like it",
			 name, off);
		return DT_BAD_OFFSET;
	}
	if (n > 1) {
		int w = n > MAX_HITS ?
			snprintf(why, why_len, "more than %d structs start like %s:",
				 MAX_HITS, name) :
			snprintf(why, why_len, "%zu structs start like %s:", n, name);
		for (size_t i = 0; i < n && i < MAX_HITS && w > 0 && (size_t)w < why_len; i++)
			w += snprintf(why + w, why_len - (size_t)w, " %s%+lld",
				      found[i].outer, off);
		return DT_BAD_OFFSET;
	}
	if (!whole) {	/* its trailing array's bytes, which it does not type */
		snprintf(why, why_len, "%s starts like %s and may hold %+lld in "
			 "its trailing array", found[0].outer, name, off);
		return DT_BAD_OFFSET;
	}
	if (!session_offdie(s, found[0].outer_die, &outer))
		return DT_BAD_OFFSET;
	snprintf(why, why_len, "a %s used at %+lld: %s starts like it, the one "
		 "struct that does with a member there", name, off, found[0].outer);
	return type_member_at(s, &outer, NULL, off, acc, out);
}

enum dt_reason container_member_at(struct dt_session *s, Dwarf_Die *pointee,
				   const struct probe *probes, size_t nprobes,
				   const struct access *acc,
				   struct type_hit *out, char *why, size_t why_len)
{
	const struct embed *hits[MAX_HITS];
	int64_t hit_off[MAX_HITS];
	const char *name;
	uint64_t size;
	Dwarf_Die peeled, outer;
	int64_t off = probes[0].off;

	*why = '\0';
	if (!aggregate_key(s, pointee, &peeled, &name, &size))
		return DT_BAD_OFFSET;
	struct container_index *ix = index_get(s);
	if (!ix || ix->failed || !ix->complete)
		return DT_BAD_OFFSET;
	size_t n = find(s, ix, name, size, probes, nprobes, 0, hits, hit_off,
			0, MAX_HITS, 0);
	if (n == 0)
		return starting_like_member_at(s, ix, &peeled, name, size, probes,
					       nprobes, acc, out, why, why_len);
	if (n > 1) {
		int w = n > MAX_HITS ?
			snprintf(why, why_len, "more than %d containers fit:", MAX_HITS) :
			snprintf(why, why_len, "%zu containers fit:", n);
		for (size_t i = 0; i < n && i < MAX_HITS && w > 0 && (size_t)w < why_len; i++)
			w += snprintf(why + w, why_len - (size_t)w, " %s+%lld",
				      hits[i]->outer, (long long)hit_off[i]);
		return DT_BAD_OFFSET;
	}
	if (!session_offdie(s, hits[0]->outer_die, &outer))
		return DT_BAD_OFFSET;
	session_debug(s, "  container of %s%+lld: %s +%lld (%zu accesses agree)",
		      name, (long long)off, hits[0]->outer, (long long)hit_off[0],
		      nprobes);
	return type_member_at(s, &outer, NULL, hit_off[0], acc, out);
}
