// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The profiled processes' heap over time, from the allocator's calls
 * dtprof-record adds beside the samples: each block [start, start + size)
 * of a process, live from its allocation to its free, tied to the site
 * the allocator returned to.  A site proves a type only as
 * dt_resolve_alloc_site() says (the variable the returned pointer goes
 * to); a site without that proof keeps its blocks untyped.
 *
 * A sample whose instruction names no type, with a data address in a
 * live block of a typed site, is typed by its block: the site's type at
 * offset address - start (past the type's size only in a block holding
 * a whole number of them, or in the type's flexible array member; a
 * block smaller than the type holds none), and marked so
 * (DT_SAMPLE_BY_ADDRESS) in every output.  A sample its instruction
 * typed keeps that answer; when it claims an object its block cannot
 * hold (another type, not a member at that place, nor a header's or a
 * union's view of the object there), the disagreement is counted (one
 * of the two is wrong, which stat shows) and the sample's note names
 * the block's type.
 *
 * The kernel's heap (dtprof-record --kernel: the kmem: tracepoints,
 * recorded system-wide, each allocation one event with its call site)
 * is one more space, shared by every process: a sample's data address
 * in the kernel's half is looked up there, one in the user's half in
 * its process's blocks (copy_to_user's, say).
 *
 * Blocks are found by page: a block is listed under each 4 KB page it
 * spans, one of more than HUGE_PAGES pages in a list of its own (few
 * are that large).  Events come in time order (perf script's), so the
 * map holds what is live at each sample.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arrays.h"
#include "report.h"

#define PAGE_SHIFT 12
/* The kernel's blocks (kmem: events), one space for every process: a
 * pid no process has */
#define KERNEL_SPACE INT32_MIN
#define HUGE_PAGES 16		/* blocks spanning more: the huge list */
#define NO_BLOCK UINT32_MAX

struct block {
	uint64_t start, size;
	uint64_t elem;			/* calloc's element size, 0 */
	int32_t pid;
	int32_t inner_of;		/* made by a call inside another still
					 * open on this thread: its return
					 * takes the block (-1: none) */
	uint32_t site;
	bool live;
	uint64_t base;			/* the address its allocator frees it
					 * by: start, or the start of the block
					 * a wrapper returned it inside of, past
					 * a header of its own */
};

/* A block's place under one page: chained from the page's slot. */
struct page_link {
	uint64_t key;		/* pid and page */
	uint32_t block;
	uint32_t next;		/* NO_BLOCK at the chain's end */
};

/* An allocator entered on a thread, until its return. */
struct pending {
	int32_t tid;
	uint64_t size, old, elem;
	uint64_t stored;	/* the block it stored for its caller, 0 */
	bool resize;		/* realloc: old goes when it returns */
};

struct heap {
	struct heap_site *sites;
	size_t nsites, sites_cap;
	uint32_t *site_slot;
	size_t site_slots;
	struct block *blocks;
	size_t nblocks, blocks_cap;
	uint32_t *free_blocks;		/* indexes of dead blocks, reused */
	size_t nfree, free_cap;
	struct page_link *links;
	size_t nlinks, links_cap;
	uint32_t *free_links;
	size_t nfree_links, free_links_cap;
	uint32_t *page_slot;		/* page key -> first link, by hash */
	size_t page_slots;
	uint32_t *huge;			/* blocks of more than HUGE_PAGES */
	size_t nhuge, huge_cap;
	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t events, unmatched;
	uint64_t by_address, contradicted, agreed;
	uint64_t stale;			/* blocks a new one overlapped */
	uint64_t refused;		/* events not followed (-EINVAL) */
	struct walk_memo *memo;		/* the type walks' answers, by sample */
};

/* The two type walks a sample in a typed block may need, remembered: a
 * hot loop's samples ask the same ones again and again, and each is a
 * walk of the type's members in the DWARF.  Direct-mapped; itype NULL:
 * the by-address answer at (site, off, size), else whether the site's
 * type holds itype at off. */
#define WALK_MEMOS 512
/* What a block says of an object an instruction claims in it: held there
 * (itself, a member, an element...), not held, or nothing (past its
 * first object, not an array of them). */
enum verdict { HELD, NOT_HELD, UNTOLD };
struct walk_memo {
	uint32_t site, size;
	uint64_t off;
	const char *itype;
	uint64_t itype_id;		/* its DIE, the view told with */
	bool used;
	enum verdict verdict;
	struct dt_answer by;
};

static struct walk_memo *walk_memo(struct heap *h, uint32_t site, uint64_t off,
				   uint32_t size, const char *itype, uint64_t itype_id,
				   bool *hit)
{
	if (!h->memo && !(h->memo = calloc(WALK_MEMOS, sizeof(*h->memo)))) {
		*hit = false;
		return NULL;	/* walked each time */
	}
	uint64_t k = hash_mix(hash_mix(hash_mix(hash_mix(HASH_SEED, site), off),
				       (uint64_t)(uintptr_t)itype ^ size), itype_id);
	struct walk_memo *m = &h->memo[k & (WALK_MEMOS - 1)];
	*hit = m->used && m->site == site && m->off == off && m->size == size &&
	       m->itype == itype && m->itype_id == itype_id;
	if (!*hit)
		*m = (struct walk_memo){ .site = site, .off = off, .size = size,
					 .itype = itype, .itype_id = itype_id };
	return m;
}

static uint64_t page_key(int32_t pid, uint64_t page)
{
	return (uint64_t)(uint32_t)pid << 44 ^ page;
}

static size_t slot_of(uint64_t key, size_t slots)
{
	return (size_t)(hash_mix(HASH_SEED, key) & (slots - 1));
}

/* Chains are rebuilt when the table doubles: links per slot stay few. */
static int pages_grow(struct heap *h)
{
	size_t n = h->page_slots ? h->page_slots * 2 : 1024;
	uint32_t *slot = malloc(n * sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		slot[i] = NO_BLOCK;
	for (size_t old = 0; old < h->page_slots; old++) {
		uint32_t l = h->page_slot[old];
		while (l != NO_BLOCK) {
			uint32_t next = h->links[l].next;
			size_t k = slot_of(h->links[l].key, n);
			h->links[l].next = slot[k];
			slot[k] = l;
			l = next;
		}
	}
	free(h->page_slot);
	h->page_slot = slot;
	h->page_slots = n;
	return 0;
}

static int link_add(struct heap *h, uint64_t key, uint32_t b)
{
	uint32_t l;

	if (h->nlinks + 1 > h->page_slots && pages_grow(h))
		return -ENOMEM;
	if (h->nfree_links) {
		l = h->free_links[--h->nfree_links];
	} else {
		if (GROW(h->links, h->links_cap, h->nlinks, 1024))
			return -ENOMEM;
		l = (uint32_t)h->nlinks++;
	}
	size_t k = slot_of(key, h->page_slots);
	h->links[l] = (struct page_link){ key, b, h->page_slot[k] };
	h->page_slot[k] = l;
	return 0;
}

static void link_remove(struct heap *h, uint64_t key, uint32_t b)
{
	size_t k = slot_of(key, h->page_slots);

	for (uint32_t *p = &h->page_slot[k]; *p != NO_BLOCK; p = &h->links[*p].next)
		if (h->links[*p].key == key && h->links[*p].block == b) {
			uint32_t l = *p;
			*p = h->links[l].next;
			if (!GROW(h->free_links, h->free_links_cap, h->nfree_links, 256))
				h->free_links[h->nfree_links++] = l;
			return;
		}
}

static bool is_huge(const struct block *b)
{
	return (b->start + b->size - 1) / (1u << PAGE_SHIFT) - b->start / (1u << PAGE_SHIFT) >=
	       HUGE_PAGES;
}

/* A lookup of a live block by address: the one starting there, holding
 * it, or a wrapper's block the allocator frees by it (based there, its
 * start a little past: a header of up to HEADER_MAX bytes). */
enum lookup { STARTING, HOLDING, BASED };
#define HEADER_MAX 64

static bool found(const struct block *b, enum lookup how, uint64_t addr)
{
	switch (how) {
	case STARTING: return b->start == addr;
	case HOLDING: return addr >= b->start && addr - b->start < b->size;
	case BASED: return b->base == addr && b->start > addr && b->start - addr <= HEADER_MAX;
	}
	return false;
}

/* The live block of pid that lookup how finds at addr: under the pages
 * it may be listed under, then in the huge list; NO_BLOCK when none. */
static uint32_t block_find(const struct heap *h, int32_t pid, enum lookup how, uint64_t addr)
{
	uint64_t last = (how == BASED ? addr + HEADER_MAX : addr) >> PAGE_SHIFT;

	for (uint64_t p = addr >> PAGE_SHIFT; p <= last && h->page_slots; p++) {
		uint64_t key = page_key(pid, p);
		for (uint32_t l = h->page_slot[slot_of(key, h->page_slots)]; l != NO_BLOCK;
		     l = h->links[l].next) {
			const struct block *b = &h->blocks[h->links[l].block];
			if (h->links[l].key == key && b->pid == pid && found(b, how, addr))
				return h->links[l].block;
		}
	}
	for (size_t i = 0; i < h->nhuge; i++) {
		const struct block *b = &h->blocks[h->huge[i]];
		if (b->pid == pid && found(b, how, addr))
			return h->huge[i];
	}
	return NO_BLOCK;
}

static uint32_t block_at(const struct heap *h, int32_t pid, uint64_t start)
{
	return block_find(h, pid, STARTING, start);
}

static uint32_t block_holding(const struct heap *h, int32_t pid, uint64_t addr)
{
	return block_find(h, pid, HOLDING, addr);
}

/* Block i out of the map, its slot free (its site's counts as they
 * were). */
static void block_unlink(struct heap *h, uint32_t i)
{
	struct block *b = &h->blocks[i];

	if (is_huge(b)) {
		for (size_t k = 0; k < h->nhuge; k++)
			if (h->huge[k] == i) {
				h->huge[k] = h->huge[--h->nhuge];
				break;
			}
	} else {
		for (uint64_t p = b->start >> PAGE_SHIFT; p <= (b->start + b->size - 1) >> PAGE_SHIFT; p++)
			link_remove(h, page_key(b->pid, p), i);
	}
	b->live = false;
	if (!GROW(h->free_blocks, h->free_cap, h->nfree, 256))
		h->free_blocks[h->nfree++] = i;
}

/* Block i freed. */
static void block_kill(struct heap *h, uint32_t i)
{
	h->sites[h->blocks[i].site].live--;
	h->sites[h->blocks[i].site].frees++;
	block_unlink(h, i);
}

/* The allocator hands out no memory that is still live: a block the new
 * one [start, start + size) overlaps was freed without our seeing it (a
 * free through an entry not probed, or before the recording).  Killed. */
static void kill_overlaps(struct heap *h, int32_t pid, uint64_t start, uint64_t size)
{
	uint64_t end = start + size;

	for (uint64_t p = start >> PAGE_SHIFT; p <= (end - 1) >> PAGE_SHIFT &&
						h->page_slots; p++) {
		uint64_t key = page_key(pid, p);
		uint32_t l = h->page_slot[slot_of(key, h->page_slots)];
		while (l != NO_BLOCK) {
			const struct block *b = &h->blocks[h->links[l].block];
			if (h->links[l].key == key && b->pid == pid && b->start < end &&
			    start < b->start + b->size) {
				h->stale++;
				block_kill(h, h->links[l].block);
				l = h->page_slot[slot_of(key, h->page_slots)];	/* again */
				continue;
			}
			l = h->links[l].next;
		}
	}
	for (size_t k = 0; k < h->nhuge;) {
		const struct block *o = &h->blocks[h->huge[k]];
		if (o->pid == pid && o->start < end && start < o->start + o->size) {
			h->stale++;
			block_kill(h, h->huge[k]);	/* moves the last here */
			continue;
		}
		k++;
	}
}

/* A block of size bytes allocated at site st, live. */
static void site_took(struct heap_site *st, uint64_t size)
{
	st->allocs++;
	st->bytes += size;
	st->min_size = !st->min_size || size < st->min_size ? size : st->min_size;
	st->max_size = size > st->max_size ? size : st->max_size;
	if (++st->live > st->max_live)
		st->max_live = st->live;
}

static int block_add(struct heap *h, int32_t pid, uint64_t start, uint64_t size,
		     uint64_t elem, uint32_t site, uint64_t base)
{
	uint32_t i;

	if (!size)
		size = 1;	/* malloc(0): a unique pointer, a byte wide */
	if (start + size < start)
		return -EINVAL;
	kill_overlaps(h, pid, start, size);
	if (h->nfree) {
		i = h->free_blocks[--h->nfree];
	} else {
		if (GROW(h->blocks, h->blocks_cap, h->nblocks, 1024))
			return -ENOMEM;
		i = (uint32_t)h->nblocks++;
	}
	h->blocks[i] = (struct block){ start, size, elem, pid, -1, site, true, base };
	if (is_huge(&h->blocks[i])) {
		if (GROW(h->huge, h->huge_cap, h->nhuge, 16))
			return -ENOMEM;
		h->huge[h->nhuge++] = i;
	} else {
		for (uint64_t p = start >> PAGE_SHIFT; p <= (start + size - 1) >> PAGE_SHIFT; p++)
			if (link_add(h, page_key(pid, p), i))
				return -ENOMEM;
	}
	site_took(&h->sites[site], size);
	return 0;
}

static uint64_t str_hash(const char *p)
{
	uint64_t v = HASH_SEED;

	for (; p && *p; p++)
		v = hash_mix(v, (unsigned char)*p);
	return v;
}

/* A site is its binary and pc, or without a binary perf's dso and
 * symbol names and the offset in it (pc). */
static uint64_t site_hash(const struct dt_session *s, uint64_t pc, const char *dso,
			  const char *sym)
{
	uint64_t v = hash_mix(hash_mix(HASH_SEED, (uint64_t)(uintptr_t)s), pc);

	return s ? v : hash_mix(hash_mix(v, str_hash(dso)), str_hash(sym));
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Site (s, pc)'s index, added when new; -1 without memory. */
static long site_get(struct heap *h, const struct dt_alloc *c)
{
	struct dt_session *s = c->site;
	const char *dso = s ? NULL : c->site_dso, *sym = s ? NULL : c->site_sym;
	uint64_t pc = s || !sym ? c->site_pc : c->site_symoff;
	uint64_t hv = site_hash(s, pc, dso, sym);
	uint32_t k = INDEX_FIND(h->site_slot, h->site_slots, hv, i,
				h->sites[i].s == s && h->sites[i].pc == pc &&
				same_name(h->sites[i].dso, dso) && same_name(h->sites[i].sym, sym));

	if (k)
		return (long)k - 1;
	if (INDEX_READY(h->site_slot, h->site_slots, h->nsites, i,
			site_hash(h->sites[i].s, h->sites[i].pc, h->sites[i].dso,
				  h->sites[i].sym)) ||
	    GROW(h->sites, h->sites_cap, h->nsites, 64))
		return -1;
	char *dso_copy = dso ? strdup(dso) : NULL, *sym_copy = sym ? strdup(sym) : NULL;
	if ((dso && !dso_copy) || (sym && !sym_copy)) {
		free(dso_copy);
		free(sym_copy);
		return -1;
	}
	h->site_slot[INDEX_FREE(h->site_slot, h->site_slots, hv)] = (uint32_t)h->nsites + 1;
	struct heap_site *st = &h->sites[h->nsites];
	memset(st, 0, sizeof(*st));
	st->s = s;
	st->pc = pc;
	st->dso = dso_copy;
	st->sym = sym_copy;
	if (!s) {
		dt_answer_miss(&st->type, pc, c->site_why != DT_OK ? c->site_why : DT_NO_DSO);
	} else if (c->by_pointer) {
		/* the return register holds an error code: the block's type is
		 * the variable it is reloaded into from where it was stored */
		dt_resolve_alloc_site_stored(s, pc, &st->type);
	} else {
		dt_resolve_alloc_site(s, pc, &st->type);
	}
	return (long)h->nsites++;
}

/* Allocator calls nest on a thread: operator new calls malloc, realloc
 * of NULL jumps to malloc (both return probes then fire at the caller).
 * The entries are kept in the order they came, and a return is its
 * thread's innermost entry's.  Its block is made at once; when an outer
 * call is still open, the outer call's return, with the same block,
 * takes it to its own site (the program's).  A return lost (perf drops
 * events when its buffer is full) leaves an entry open that nothing
 * pops: a thread keeps MAX_NEST open at most, the oldest dropped. */
#define MAX_NEST 4

/* Block i, made by an inner call, taken by the call around it: to its
 * site.  Its bytes stay the inner call's (the pages it is listed under:
 * the outer call asked for the same). */
static void retake(struct heap *h, uint32_t i, uint32_t site, uint64_t elem)
{
	struct block *b = &h->blocks[i];
	struct heap_site *from = &h->sites[b->site], *to = &h->sites[site];
	uint64_t size = b->size;

	from->allocs--;
	from->bytes -= size;
	from->live--;
	b->site = site;
	if (elem && size % elem == 0)
		b->elem = elem;
	site_took(to, size);
}

static int pending_push(struct heap *h, int32_t tid, const struct pending *e)
{
	size_t open = 0, oldest = h->npend;

	for (size_t i = h->npend; i-- > 0;)
		if (h->pend[i].tid == tid) {
			open++;
			oldest = i;
		}
	if (open >= MAX_NEST) {
		memmove(&h->pend[oldest], &h->pend[oldest + 1],
			(h->npend - oldest - 1) * sizeof(*h->pend));
		h->npend--;
	}
	if (GROW(h->pend, h->pend_cap, h->npend, 16))
		return -ENOMEM;
	h->pend[h->npend++] = *e;
	return 0;
}

/* Thread tid's innermost open call into *e, taken off; *outer: whether
 * another stays open.  False when none is. */
static bool pending_pop(struct heap *h, int32_t tid, struct pending *e, bool *outer)
{
	for (size_t i = h->npend; i-- > 0;) {
		if (h->pend[i].tid != tid)
			continue;
		*e = h->pend[i];
		memmove(&h->pend[i], &h->pend[i + 1], (h->npend - i - 1) * sizeof(*h->pend));
		h->npend--;
		*outer = false;
		for (size_t k = 0; k < h->npend && !*outer; k++)
			*outer = h->pend[k].tid == tid;
		return true;
	}
	return false;
}

/* Block c->ptr, of the call e (its size, calloc's element), returned to
 * c's site: made, or taken from the inner call that made it (outer: a
 * call around this one is still open, whose return takes it next). */
static int block_made(struct heap *h, const struct dt_alloc *c, int32_t space,
		      const struct pending *e, bool outer)
{
	if (!c->ptr)
		return 0;	/* failed */
	long site = site_get(h, c);
	if (site < 0)
		return -ENOMEM;
	uint32_t bi = block_at(h, space, c->ptr);
	if (bi != NO_BLOCK && h->blocks[bi].inner_of == c->tid && !c->kernel) {
		retake(h, bi, (uint32_t)site, e->elem);
	} else {
		/* a wrapper returning past a header of its own, inside the
		 * block the call in it made (SQLite's p + 8): the block is the
		 * wrapper's from there on, and goes when the inner one's start
		 * is freed */
		uint64_t base = c->ptr;
		uint32_t in = c->kernel ? NO_BLOCK : block_holding(h, space, c->ptr);
		if (in != NO_BLOCK && h->blocks[in].inner_of == c->tid &&
		    h->blocks[in].start < c->ptr) {
			struct heap_site *from = &h->sites[h->blocks[in].site];
			base = h->blocks[in].base;
			from->allocs--;		/* the inner call's block is this one */
			from->bytes -= h->blocks[in].size;
			from->live--;
			block_unlink(h, in);
		}
		int err = block_add(h, space, c->ptr, e->size, e->elem, (uint32_t)site, base);
		if (err == -EINVAL) {
			h->refused++;	/* past the address space: counted */
			return 0;
		}
		if (err)
			return err;
		bi = block_at(h, space, c->ptr);
	}
	if (bi != NO_BLOCK)
		h->blocks[bi].inner_of = outer ? c->tid : -1;
	return 0;
}

enum dt_alloc_probe dt_alloc_probe_of(const char *name, size_t len)
{
	static const struct { const char *call; enum dt_alloc_probe p; } calls[] = {
		{ "malloc", DT_PROBE_ALLOC }, { "aligned_alloc", DT_PROBE_ALLOC },
		{ "memalign", DT_PROBE_ALLOC }, { "new", DT_PROBE_ALLOC },
		{ "new_array", DT_PROBE_ALLOC }, { "calloc", DT_PROBE_CALLOC },
		{ "realloc", DT_PROBE_REALLOC }, { "free", DT_PROBE_FREE },
		{ "delete", DT_PROBE_FREE }, { "delete_sized", DT_PROBE_FREE },
		{ "delete_array", DT_PROBE_FREE }, { "pmemalign", DT_PROBE_ALLOC },
		{ "pmemalign_block", DT_PROBE_STORED },
	};
	static const struct { const char *name; enum dt_alloc_probe p; } kmem[] = {
		{ "kmem:kmalloc", DT_PROBE_KERNEL_ALLOC },
		{ "kmem:kmalloc_node", DT_PROBE_KERNEL_ALLOC },
		{ "kmem:kmem_cache_alloc", DT_PROBE_KERNEL_ALLOC },
		{ "kmem:kmem_cache_alloc_node", DT_PROBE_KERNEL_ALLOC },
		{ "kmem:kfree", DT_PROBE_KERNEL_FREE },
		{ "kmem:kmem_cache_free", DT_PROBE_KERNEL_FREE },
	};
	size_t i = 7;

	for (size_t k = 0; k < sizeof(kmem) / sizeof(kmem[0]); k++)
		if (strlen(kmem[k].name) == len && !memcmp(name, kmem[k].name, len))
			return kmem[k].p;
	if (len < 9 || memcmp(name, "dtprof_", 7))
		return DT_PROBE_NONE;
	while (i < len && name[i] >= '0' && name[i] <= '9')
		i++;
	if (i == 7 || i >= len || name[i] != ':')
		return DT_PROBE_NONE;
	const char *pid = name + 7, *call = name + i + 1;
	size_t npid = i - 7, n = len - i - 1;
	bool ret = n > 8 && !memcmp(call + n - 8, "__return", 8);
	if (ret)
		n -= 8;
	/* CALL_PID since dtprof-record names each run's events apart;
	 * plain CALL before */
	if (n > npid + 1 && call[n - npid - 1] == '_' && !memcmp(call + n - npid, pid, npid))
		n -= npid + 1;
	for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
		if (strlen(calls[k].call) == n && !memcmp(call, calls[k].call, n))
			return !ret ? calls[k].p :
			       calls[k].p == DT_PROBE_FREE || calls[k].p == DT_PROBE_STORED ?
			       DT_PROBE_OTHER :
			       !strcmp(calls[k].call, "pmemalign") ? DT_PROBE_RETURN_CODE :
			       DT_PROBE_RETURN;
	/* wrapN: a --wrapper of the program's own, a malloc */
	size_t d = 4;
	while (d < n && call[d] >= '0' && call[d] <= '9')
		d++;
	if (n > 4 && d == n && !memcmp(call, "wrap", 4))
		return ret ? DT_PROBE_RETURN : DT_PROBE_ALLOC;
	return DT_PROBE_OTHER;
}

int dt_report_alloc(struct dt_report *r, const struct dt_alloc *a)
{
	struct dt_alloc c;
	struct heap *h;

	if (!sized_in(&c, sizeof(c), a))
		return -EINVAL;
	if (!(h = r->heap) && !(h = r->heap = calloc(1, sizeof(*h))))
		return -ENOMEM;
	int32_t space = c.kernel ? KERNEL_SPACE : c.pid;
	if (space == KERNEL_SPACE && (!c.kernel || c.event == DT_ALLOC_EXEC))
		return -EINVAL;	/* a pid no process has: not the kernel's */
	h->events++;
	switch (c.event) {
	case DT_ALLOC_ENTER: {
		struct pending e = { .tid = c.tid, .size = c.size, .old = c.ptr,
				     .elem = c.elem_size, .resize = c.resize };
		return pending_push(h, c.tid, &e);
	}
	case DT_ALLOC_RETURN: {
		struct pending e;
		bool outer;
		if (!pending_pop(h, c.tid, &e, &outer)) {
			h->unmatched++;	/* its entry before the recording */
			return 0;
		}
		if (c.by_pointer)	/* an error code, and the block it stored */
			c.ptr = c.ptr ? 0 : e.stored;

		if (e.resize && e.old) {
			uint32_t old = block_at(h, space, e.old);
			if (old == NO_BLOCK)
				old = block_find(h, space, BASED, e.old);
			if (old != NO_BLOCK) {
				/* an array resized stays an array of its elements */
				uint64_t el = h->blocks[old].elem;
				if (el && e.size % el == 0)
					e.elem = el;
				block_kill(h, old);
			}
		}
		return block_made(h, &c, space, &e, outer);
	}
	case DT_ALLOC_BLOCK: {
		struct pending e = { .tid = c.tid, .size = c.size, .elem = c.elem_size };
		return block_made(h, &c, space, &e, false);
	}
	case DT_ALLOC_STORED:
		for (size_t i = h->npend; i-- > 0;)
			if (h->pend[i].tid == c.tid) {
				h->pend[i].stored = c.ptr;
				return 0;
			}
		h->unmatched++;		/* its entry before the recording */
		return 0;
	case DT_ALLOC_EXEC:	/* a new image: none of the old blocks */
		for (size_t i = 0; i < h->nblocks; i++)
			if (h->blocks[i].live && h->blocks[i].pid == c.pid)
				block_kill(h, (uint32_t)i);
		for (size_t i = 0; i < h->npend;)
			if (h->pend[i].tid == c.pid)
				h->pend[i] = h->pend[--h->npend];
			else
				i++;
		return 0;
	case DT_ALLOC_FREE: {
		uint32_t b = c.ptr ? block_at(h, space, c.ptr) : NO_BLOCK;
		if (b == NO_BLOCK && c.ptr)
			b = block_find(h, space, BASED, c.ptr);
		if (b != NO_BLOCK)
			block_kill(h, b);
		else if (c.ptr)
			h->unmatched++;	/* allocated before the recording */
		return 0;
	}
	}
	return -EINVAL;
}

/* Whether block b (of site answer u) is an array of u's type: calloc
 * made it of elements that size.  Else only its first u is proven. */
static bool array_of(const struct block *b, const struct dt_answer *u)
{
	return u->type_size && b->elem == u->type_size && b->size % u->type_size == 0;
}

/* What block b (of site answer u, in binary s) says of the object an
 * instruction's answer ans claims obj_off bytes into it
 * (dt_type_holds_view: view_id, the claimed type's DIE when the
 * instruction is of s too, tells a header's or a union's view of the
 * same object from another object). */
static enum verdict block_holds(struct dt_session *s, const struct dt_answer *u,
				const struct dt_answer *ans, uint64_t view_id, uint64_t obj_off,
				const struct block *b)
{
	if (array_of(b, u))
		obj_off %= u->type_size;
	else if (u->type_size && obj_off >= u->type_size)
		return UNTOLD;
	if (dt_type_holds_view(s, u->type_id, obj_off, ans->type, view_id))
		return HELD;
	/* an element "[0]" names any element of its array: the object may
	 * start a number of strides before, which the answer does not say */
	return ans->field && strchr(ans->field, '[') ? UNTOLD : NOT_HELD;
}

/* A sample its instruction typed as what its block cannot hold: both
 * answers told, its own and in its note the block's ("-v", json). */
static void contra_note(struct heap_site *site, struct dt_answer *ans)
{
	if (!site->contra_note) {
		const char *var = site->type.var && *site->type.var ? site->type.var : "?";
		size_t n = strlen(site->type.type) + strlen(var) + 96;
		if (!(site->contra_note = malloc(n)))
			return;	/* the count stands, the note is left out */
		snprintf(site->contra_note, n, "its heap block cannot hold this: the block's "
			 "allocation site proves %s (variable %s)", site->type.type, var);
	}
	ans->note = site->contra_note;
}

struct dt_session *dt_report_type_by_address(struct dt_report *r, struct dt_session *s,
					     struct dt_answer *ans, struct dt_sample *smp)
{
	struct heap *h = r->heap;
	struct dt_sample c;

	/* (smp is written: it must be this library's size) */
	if (!h || !smp || smp->sz != sizeof(*smp) || !sized_in(&c, sizeof(c), smp) ||
	    !(c.has & DT_SAMPLE_ADDR))
		return s;
	/* the kernel's half: its heap, whichever process the sample is of */
	bool kernel = c.addr >> 63;
	if (!kernel && (!(c.has & DT_SAMPLE_PID) || c.pid == KERNEL_SPACE))
		return s;
	uint32_t bi = block_holding(h, kernel ? KERNEL_SPACE : c.pid, c.addr);
	if (bi == NO_BLOCK)
		return s;
	const struct block *b = &h->blocks[bi];
	struct heap_site *site = &h->sites[b->site];
	uint64_t off = c.addr - b->start;
	site->samples++;
	if (site->type.reason != DT_OK)
		return s;	/* the site proves no type */
	/* a block too small for its variable's type holds no such object
	 * (perf's union perf_event *ev = zalloc(16 + priv)): it proves
	 * nothing, and can contradict nothing */
	if (b->size < site->type.type_size)
		return s;
	if (ans->reason == DT_OK) {
		/* typed by its instruction: does its object fit the block? */
		if (ans->type[0] != '(' && ans->type_id && (uint64_t)ans->offset <= off) {
			uint64_t at = off - (uint64_t)ans->offset;
			uint64_t view_id = s == site->s ? ans->type_id : 0;
			bool hit;
			struct walk_memo *m = walk_memo(h, b->site, array_of(b, &site->type) ?
							at % site->type.type_size : at,
							0, ans->type, view_id, &hit);
			enum verdict v = hit ? m->verdict :
					 block_holds(site->s, &site->type, ans, view_id, at, b);
			if (m && !hit) {
				m->verdict = v;
				m->used = true;
			}
			switch (v) {
			case HELD:
				h->agreed++;
				break;
			case NOT_HELD:
				site->contradicted++;
				h->contradicted++;
				contra_note(site, ans);
				break;
			case UNTOLD:
				break;
			}
		}
		return s;
	}
	uint64_t tsize = site->type.type_size;
	if (!tsize)
		return s;
	struct dt_answer by;
	bool hit;
	struct walk_memo *m = walk_memo(h, b->site, off, ans->size, NULL, 0, &hit);
	if (hit) {
		by = m->by;
	} else {
		dt_resolve_type_offset(site->s, site->type.type_id, (int64_t)off, ans->size, &by);
		if (m) {
			m->by = by;
			m->used = true;
		}
	}
	if (by.reason != DT_OK)
		return s;
	/* past the first object: only in its flexible array member (the
	 * offset kept), or in an array calloc proved */
	if (off >= tsize && (uint64_t)by.offset != off && !array_of(b, &site->type))
		return s;
	by.pc = ans->pc;
	by.access_pc = ans->access_pc;
	by.access = ans->access;
	by.reg = ans->reg;
	by.disp = ans->disp;
	by.var = "";
	by.note = "by address: the type its heap block's allocation site proves";
	*ans = by;
	smp->has |= DT_SAMPLE_BY_ADDRESS;
	smp->insn = s;
	site->typed_samples++;
	h->by_address++;
	return site->s;
}

void heap_free(struct heap *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nsites; i++) {
		free(h->sites[i].contra_note);
		free(h->sites[i].dso);
		free(h->sites[i].sym);
	}
	free(h->sites);
	free(h->site_slot);
	free(h->blocks);
	free(h->free_blocks);
	free(h->links);
	free(h->free_links);
	free(h->page_slot);
	free(h->huge);
	free(h->pend);
	free(h->memo);
	free(h);
}

const struct heap_site *heap_sites(const struct heap *h, size_t *n)
{
	*n = h ? h->nsites : 0;
	return h ? h->sites : NULL;
}

void heap_totals(const struct heap *h, struct heap_totals *t)
{
	memset(t, 0, sizeof(*t));
	if (!h)
		return;
	t->events = h->events;
	t->unmatched = h->unmatched;
	t->by_address = h->by_address;
	t->contradicted = h->contradicted;
	t->agreed = h->agreed;
	t->stale = h->stale;
	t->refused = h->refused;
	for (size_t i = 0; i < h->nsites; i++) {
		t->allocs += h->sites[i].allocs;
		t->live += h->sites[i].live;
		t->in_blocks += h->sites[i].samples;
	}
}
