// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Two indexes (lib/arrays.h's open addressing): dsos by perf's
 * pointer (perf keeps one pointer per dso for the run), sites by (dso,
 * address, flags); in front of both, a two-way memo of recent sites
 * by what perf said of the sample (its dso pointer, address).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../lib/arrays.h"
#include "../lib/dtprof.h"
#include "sites.h"

static uint64_t dso_hash(const char *perf)
{
	return hash_mix(HASH_SEED, (uintptr_t)perf);
}

/* One mix per sample: the dso pointer and the flags (two bits) share the
 * seed word, the address is folded in. */
static uint64_t site_hash(const struct dso_name *dso, uint64_t addr, unsigned flags)
{
	return hash_mix((uintptr_t)dso ^ (uint64_t)flags << 60, addr);
}

static bool same_dso(const struct dso_name *d, const char *name, size_t id_size)
{
	return d->perf == name && d->build_id_size == id_size;
}

static void free_dso(struct dso_name *d)
{
	if (d) {
		pthread_mutex_destroy(&d->own.lock);
		free(d->build_id);
		free(d->name);
		free(d);
	}
}

const struct dso_name *sites_dso(struct sites *t, const char *name,
				 const uint8_t *build_id, size_t build_id_size)
{
	struct dso_name *d = t->last_dso;

	if (d && same_dso(d, name, build_id_size))
		return d;
	/* a build-id learnt later makes a new entry */
	uint32_t k = INDEX_FIND(t->dso_index, t->dso_index_size, dso_hash(name), i,
				same_dso(t->dsos[i], name, build_id_size));
	if (k)
		return t->last_dso = t->dsos[k - 1];
	if (INDEX_READY(t->dso_index, t->dso_index_size, t->ndsos, i,
			dso_hash(t->dsos[i]->perf)) ||
	    GROW(t->dsos, t->dsos_cap, t->ndsos, 16))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (d)
		pthread_mutex_init(&d->own.lock, NULL);
	if (!d || !(d->name = strdup(name)) ||
	    (build_id_size && !(d->build_id = malloc(build_id_size)))) {
		free_dso(d);
		return NULL;
	}
	/* one lock per binary: an entry of a name seen before shares its
	 * lock (a new dso is rare: a linear search) */
	d->binary = &d->own;
	for (size_t i = 0; i < t->ndsos; i++)
		if (!strcmp(t->dsos[i]->name, d->name)) {
			d->binary = t->dsos[i]->binary;
			break;
		}
	d->perf = name;
	d->build_id_size = build_id_size;
	if (build_id_size)
		memcpy(d->build_id, build_id, build_id_size);
	d->kernel_side = dt_dso_is_kernel(d->name) || dt_dso_is_kmodule(d->name);
	t->dsos[t->ndsos] = d;
	t->dso_index[INDEX_FREE(t->dso_index, t->dso_index_size, dso_hash(name))] =
		(uint32_t)++t->ndsos;
	return t->last_dso = d;
}

static struct site *site_slot(const struct sites *t, uint32_t i)
{
	return &t->blocks[i / SITE_BLOCK][i % SITE_BLOCK];
}

static uint64_t tally_hash(uint32_t site, unsigned ctx)
{
	return hash_mix(HASH_SEED, (uint64_t)site << 8 | ctx);
}

/* n samples of (site, ctx) with these periods to the pair's tally, made
 * when new; false when out of memory. */
static bool tally_add(struct tallies *y, uint32_t site, unsigned ctx, uint64_t n,
		      uint64_t period)
{
	uint64_t h = tally_hash(site, ctx);
	uint32_t k = INDEX_FIND(y->index, y->index_size, h, i,
				y->v[i].site == site && y->v[i].ctx == ctx);
	if (!k) {
		if (INDEX_READY(y->index, y->index_size, y->n, i,
				tally_hash(y->v[i].site, y->v[i].ctx)) ||
		    GROW(y->v, y->cap, y->n, 1024))
			return false;
		y->v[y->n] = (struct tally){ .site = site, .ctx = ctx };
		y->index[INDEX_FREE(y->index, y->index_size, h)] = k = (uint32_t)++y->n;
	}
	y->v[k - 1].n += n;
	y->v[k - 1].period += period;
	return true;
}

bool sites_tallies_fold(struct sites *t)
{
	struct tallies *y = &t->tallies;
	size_t i = 0;

	while (i < y->nlog && tally_add(y, y->log[i].site, y->log[i].ctx, y->log[i].n,
					y->log[i].period))
		i++;
	memmove(y->log, y->log + i, (y->nlog - i) * sizeof(*y->log));
	y->nlog -= i;
	return !y->nlog;
}

bool sites_memo_spill(struct sites *t, struct site_memo *m)
{
	struct tallies *y = &t->tallies;

	if (!(m->tag & MEMO_OPEN) || !m->n)
		return true;
	uint32_t site = m->site - 1;
	unsigned ctx = sites_memo_ctx(m);
	if (y->nlog == TALLY_LOG_MAX && !sites_tallies_fold(t))
		return false;
	if (!GROW(y->log, y->log_cap, y->nlog, 4096))
		y->log[y->nlog++] = (struct tally){ site, ctx, m->n, m->period };
	else if (!tally_add(y, site, ctx, m->n, m->period))
		return false;	/* no room in either */
	m->n = 0;
	m->period = 0;
	return true;
}

void sites_tallies_each(const struct sites *t,
			void (*fn)(void *arg, uint32_t site, unsigned ctx, uint64_t n,
				   uint64_t period),
			void *arg)
{
	for (size_t p = 0; t->memo && p < MEMO_PAGES; p++) {
		if (!(t->memo_pages[p / 8] & 1u << p % 8))
			continue;
		for (size_t i = 0; i < MEMO_PAGE_ENTRIES; i++) {
			const struct site_memo *m = &t->memo[p * MEMO_PAGE_ENTRIES + i];
			if (m->n)
				fn(arg, m->site - 1, sites_memo_ctx(m), m->n, m->period);
		}
	}
	for (size_t i = 0; i < t->tallies.n; i++) {
		const struct tally *y = &t->tallies.v[i];
		if (y->n)
			fn(arg, y->site, y->ctx, y->n, y->period);
	}
	for (size_t i = 0; i < t->tallies.nlog; i++) {
		const struct tally *y = &t->tallies.log[i];
		fn(arg, y->site, y->ctx, y->n, y->period);
	}
}

bool sites_first(struct sites *t, uint32_t site, unsigned ctx,
		 const struct ctx_bits *kin, bool *kin_seen)
{
	struct ctx_bits *seen = &t->seen[site];
	uint64_t *w = &seen->w[ctx / 64], bit = 1ull << ctx % 64;
	bool first = !(*w & bit);

	if (kin_seen)
		*kin_seen = kin && ((seen->w[0] & kin->w[0]) | (seen->w[1] & kin->w[1]));
	*w |= bit;
	return first;
}

static void memo_grow(struct sites *t);

struct site_memo *sites_memo_put(struct sites *t, uint64_t tag, uint64_t addr,
				 uint32_t site)
{
	if (tag == MEMO_NONE || site == NO_SITE)
		return NULL;
	struct site_memo *last = &sites_memo_set(t, tag, addr)[MEMO_WAYS - 1];
	if (last->site && last->n && 64 - t->memo_shift < MEMO_BITS_MAX &&
	    ++t->memo_spills >= MEMO_ENTRIES(64 - t->memo_shift))
		memo_grow(t);
	struct site_memo *m = sites_memo_set(t, tag, addr);
	size_t page = (size_t)(m - t->memo) / MEMO_PAGE_ENTRIES;

	if (!sites_memo_spill(t, &m[MEMO_WAYS - 1]))
		return NULL;
	t->memo_pages[page / 8] |= (uint8_t)(1u << page % 8);
	memmove(&m[1], &m[0], (MEMO_WAYS - 1) * sizeof(*m));
	m[0] = (struct site_memo){ .tag = tag, .addr = addr, .site = site + 1 };
	return m;
}

/* Room in seen for site t->n, zeroed. */
static bool grow_seen(struct sites *t)
{
	if (t->n < t->seen_cap)
		return true;
	size_t cap = t->seen_cap ? 2 * t->seen_cap : 1024;
	struct ctx_bits *v = realloc(t->seen, cap * sizeof(*v));
	if (!v)
		return false;
	memset(v + t->seen_cap, 0, (cap - t->seen_cap) * sizeof(*v));
	t->seen = v;
	t->seen_cap = cap;
	return true;
}

uint32_t sites_get(struct sites *t, const struct dso_name *dso, uint64_t addr,
		   unsigned flags, uint64_t ip, uint64_t symoff, const char *sym)
{
	uint64_t h = site_hash(dso, addr, flags);
	uint32_t k = INDEX_FIND(t->index, t->index_size, h, i,
				t->keys[i].addr == addr && t->keys[i].dso == dso &&
				t->keys[i].flags == flags);
	if (k)
		return k - 1;
	uint32_t i = t->n;
	if (i / SITE_BLOCK >= SITE_BLOCKS)
		return NO_SITE;
	struct site **block = &t->blocks[i / SITE_BLOCK];
	if ((!*block && !(*block = malloc(SITE_BLOCK * sizeof(**block)))) ||
	    GROW(t->keys, t->keys_cap, t->n, 1024) || !grow_seen(t) ||
	    INDEX_READY(t->index, t->index_size, t->n, j,
			site_hash(t->keys[j].dso, t->keys[j].addr, t->keys[j].flags)))
		return NO_SITE;
	struct site *s = site_slot(t, i);
	*s = (struct site){ .dso = dso, .addr = addr, .ip = ip, .symoff = symoff,
			    .flags = flags };
	if (sym && !(s->sym = strdup(sym)))
		return NO_SITE;
	t->keys[i] = (struct site_key){ dso, addr, flags };
	t->index[INDEX_FREE(t->index, t->index_size, h)] = ++t->n;
	return i;
}

static size_t memo_bytes(const struct sites *t)
{
	return MEMO_ENTRIES(64 - t->memo_shift) * sizeof(struct site_memo);
}

static struct site_memo *memo_map(unsigned bits)
{
	/* zero pages until written: a small profile touches a few */
	void *m = mmap(NULL, MEMO_ENTRIES(bits) * sizeof(struct site_memo),
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

int sites_init(struct sites *t)
{
	*t = (struct sites){ .memo = memo_map(MEMO_BITS_FIRST),
			     .memo_shift = 64 - MEMO_BITS_FIRST };
	return t->memo ? 0 : -ENOMEM;
}

/* The memo at MEMO_BITS_MAX sets, each entry in its new set (a set's two
 * go to sets of their own or share one: none is lost); nothing when out
 * of memory. */
static void memo_grow(struct sites *t)
{
	struct sites old = { .memo = t->memo, .memo_shift = t->memo_shift };
	struct site_memo *m = memo_map(MEMO_BITS_MAX);

	if (!m)
		return;
	t->memo = m;
	t->memo_shift = 64 - MEMO_BITS_MAX;
	memset(t->memo_pages, 0, sizeof(t->memo_pages));
	/* the later way first: it stays the later one in its new set */
	for (size_t i = MEMO_ENTRIES(64 - old.memo_shift); i-- > 0; ) {
		const struct site_memo *e = &old.memo[i];
		if (!e->site)
			continue;
		struct site_memo *to = sites_memo_set(t, e->tag & ~MEMO_OPEN, e->addr);
		size_t page = (size_t)(to - t->memo) / MEMO_PAGE_ENTRIES;
		t->memo_pages[page / 8] |= (uint8_t)(1u << page % 8);
		memmove(&to[1], &to[0], (MEMO_WAYS - 1) * sizeof(*to));
		to[0] = *e;
	}
	munmap(old.memo, memo_bytes(&old));
}

void sites_free(struct sites *t)
{
	if (t->memo)
		munmap(t->memo, memo_bytes(t));
	for (uint32_t i = 0; i < t->n; i++)
		free(site_slot(t, i)->sym);
	for (size_t b = 0; b < SITE_BLOCKS && t->blocks[b]; b++)
		free(t->blocks[b]);
	for (size_t i = 0; i < t->ndsos; i++)
		free_dso(t->dsos[i]);
	free(t->dsos);
	free(t->dso_index);
	free(t->index);
	free(t->keys);
	free(t->tallies.v);
	free(t->seen);
	free(t->tallies.index);
}
