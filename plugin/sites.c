// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Two open-addressing tables, at most half full, doubled when they fill:
 * dsos by perf's pointer (perf keeps one pointer per dso for the run),
 * sites by (dso, address, flags).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../resolver/dtprof.h"
#include "sites.h"

static size_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h;
}

static size_t dso_hash(const char *perf)
{
	return mix((uintptr_t)perf);
}

static size_t site_hash(const struct dso_name *dso, uint64_t addr, unsigned flags)
{
	return mix((uintptr_t)dso * 0x9e3779b97f4a7c15ull ^ addr ^ (uint64_t)flags << 60);
}

static void dso_put(struct dso_name **table, size_t size, struct dso_name *d)
{
	size_t i = dso_hash(d->perf) & (size - 1);

	while (table[i])
		i = (i + 1) & (size - 1);
	table[i] = d;
}

static int grow_dsos(struct sites *t)
{
	size_t size = t->dsos_size ? t->dsos_size * 2 : 64;
	struct dso_name **table = calloc(size, sizeof(*table));

	if (!table)
		return -ENOMEM;
	for (size_t i = 0; i < t->dsos_size; i++)
		if (t->dsos[i])
			dso_put(table, size, t->dsos[i]);
	free(t->dsos);
	t->dsos = table;
	t->dsos_size = size;
	return 0;
}

static bool same_dso(const struct dso_name *d, const char *name, size_t id_size)
{
	return d->perf == name && d->build_id_size == id_size;
}

const struct dso_name *sites_dso(struct sites *t, const char *name,
				 const uint8_t *build_id, size_t build_id_size)
{
	struct dso_name *d = t->last_dso;

	if (d && same_dso(d, name, build_id_size))
		return d;
	if (t->dsos_size) {
		size_t mask = t->dsos_size - 1;
		for (size_t i = dso_hash(name) & mask; (d = t->dsos[i]); i = (i + 1) & mask)
			if (same_dso(d, name, build_id_size))
				return t->last_dso = d;
	}
	if ((t->ndsos + 1) * 2 > t->dsos_size && grow_dsos(t))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(name)) ||
	    (build_id_size && !(d->build_id = malloc(build_id_size)))) {
		if (d)
			free(d->name);
		free(d);
		return NULL;
	}
	d->perf = name;
	d->build_id_size = build_id_size;
	if (build_id_size)
		memcpy(d->build_id, build_id, build_id_size);
	d->kernel_side = dt_dso_is_kernel(d->name) || dt_dso_is_kmodule(d->name);
	dso_put(t->dsos, t->dsos_size, d);
	t->ndsos++;
	return t->last_dso = d;
}

static struct site *site_slot(const struct sites *t, uint32_t i)
{
	return &t->blocks[i / SITE_BLOCK][i % SITE_BLOCK];
}

static void index_put(uint32_t *index, size_t size, const struct site *s,
		      uint32_t i)
{
	size_t j = (site_hash(s->dso, s->addr, s->flags) >> 12) & (size - 1);

	while (index[j])
		j = (j + 1) & (size - 1);
	index[j] = i + 1;
}

static int grow_index(struct sites *t)
{
	size_t size = t->index_size ? t->index_size * 2 : 1 << 14;
	uint32_t *index = calloc(size, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++)
		index_put(index, size, site_slot(t, i), i);
	free(t->index);
	t->index = index;
	t->index_size = size;
	return 0;
}

static uint32_t remember(struct site_memo *m, const struct dso_name *dso,
			 uint64_t addr, unsigned flags, uint32_t site)
{
	*m = (struct site_memo){ dso, addr, flags, site + 1 };
	return site;
}

uint32_t sites_get(struct sites *t, const struct dso_name *dso, uint64_t addr,
		   unsigned flags, uint64_t ip, uint64_t symoff, const char *sym)
{
	size_t h = site_hash(dso, addr, flags);
	struct site_memo *m = &t->memo[h & (SITE_MEMOS - 1)];

	if (m->site && m->dso == dso && m->addr == addr && m->flags == flags)
		return m->site - 1;
	if (t->index_size) {
		size_t mask = t->index_size - 1;
		/* the memo's bits of h are the index's low bits too: probe
		 * from the rest, so one memo slot's sites spread out */
		for (size_t j = (h >> 12) & mask; t->index[j]; j = (j + 1) & mask) {
			const struct site *s = site_slot(t, t->index[j] - 1);
			if (s->dso == dso && s->addr == addr && s->flags == flags)
				return remember(m, dso, addr, flags, t->index[j] - 1);
		}
	}
	uint32_t i = t->n;
	if (i / SITE_BLOCK >= SITE_BLOCKS)
		return NO_SITE;
	struct site **block = &t->blocks[i / SITE_BLOCK];
	if ((!*block && !(*block = malloc(SITE_BLOCK * sizeof(**block)))) ||
	    ((size_t)(i + 1) * 2 > t->index_size && grow_index(t)))
		return NO_SITE;
	struct site *s = site_slot(t, i);
	*s = (struct site){ dso, addr, ip, symoff, NULL, flags };
	if (sym && !(s->sym = strdup(sym)))
		return NO_SITE;
	index_put(t->index, t->index_size, s, i);
	t->n++;
	return remember(m, dso, addr, flags, i);
}

void sites_free(struct sites *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(site_slot(t, i)->sym);
	for (size_t b = 0; b < SITE_BLOCKS && t->blocks[b]; b++)
		free(t->blocks[b]);
	for (size_t i = 0; i < t->dsos_size; i++)
		if (t->dsos[i]) {
			free(t->dsos[i]->build_id);
			free(t->dsos[i]->name);
			free(t->dsos[i]);
		}
	free(t->dsos);
	free(t->index);
}
