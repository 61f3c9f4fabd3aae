// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What perf's thread hands to the resolving one, interned: each dso perf
 * names (its strings copied: perf may rename or free them while samples
 * wait, and frees them all before stop()), and each site, one (dso,
 * address in it, flags) whose samples share one answer.  Only perf's
 * thread adds; sites never move once added, so the resolving thread reads
 * any site a handed-over sample names.
 */
#ifndef DTPROF_SITES_H
#define DTPROF_SITES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/dtprof.h"

/* The lock of the session of one binary (by name: perf may give one name
 * two entries here, dt_dsos gives it one session), held while resolving
 * in it; waiting: the resolving thread is waiting for it (the helper,
 * which only tries, leaves it alone).  A name dt_dsos has no session for
 * never gets one: its sites' answers are known without resolving. */
struct binary_lock {
	pthread_mutex_t lock;
	atomic_bool waiting;
	atomic_int no_session;		/* 1 + the reason it has none (no
					 * debug info...), 0: has one or not
					 * asked yet */
};

struct dso_name {
	const char *perf;		/* perf's pointer: the key */
	char *name;
	uint8_t *build_id;
	size_t build_id_size;
	bool kernel_side;		/* kernel or module: the symbol links it */
	struct binary_lock *binary;	/* the first entry of this name's */
	struct binary_lock own;
};

/* Samples of one event (its index in the plugin's kinds) that carry only
 * a period, summed until added to the report. */
struct site_sums {
	uint8_t kind;
	uint64_t n, period;
};

struct site {
	const struct dso_name *dso;	/* NULL: perf placed it in no dso */
	uint64_t addr, ip, symoff;	/* without a dso, addr is the ip */
	char *sym;			/* a copy, kernel side only */
	unsigned flags;
	/* its answer, resolved once by either thread (under its binary's
	 * lock) and published by answered */
	atomic_bool answered;
	struct dt_session *session;
	struct dt_answer ans;
	/* the counting thread's: after its first, samples of one event
	 * that carry only a period, summed until added to the report (those
	 * perf's thread did not tally) */
	bool counted;
	struct site_sums batch;
};

/* perf's thread's sums of a site's samples of one context (an event;
 * with the report keeping threads, also a process, thread and CPU) that
 * carry only a period: a tally.  A pair's samples are tallied once the
 * site's first of that event went its way (counted, or handed over: it
 * made the report's rows in the order counting one at a time makes
 * them).  An open memo entry sums them (site_memo); when the entry is
 * reused or full, its sums come here.  stop() adds both to the report. */
struct tally {
	uint32_t site;
	uint32_t ctx;
	uint64_t n, period;
};
struct tallies {
	struct tally *v;
	size_t n, cap;
	uint32_t *index;		/* arrays.h: by (site, ctx) */
	size_t index_size;
	/* sums spilled since the last fold, in turn (a pair may come
	 * more than once): a spill is a write at the end, where finding
	 * the pair's tally is a search through cold memory; folded into
	 * v when TALLY_LOG_MAX are waiting */
	struct tally *log;
	size_t nlog, log_cap;
};
#define TALLY_LOG_MAX ((size_t)1 << 20)	/* 24 MB */

struct site_key {
	const struct dso_name *dso;
	uint64_t addr;
	unsigned flags;
};

#define SITE_BLOCK 4096
#define SITE_BLOCKS 16384
#define NO_SITE UINT32_MAX		/* out of memory */

/* A recent sample's site by what perf's resolve_ip said of it: its dso
 * name pointer (perf keeps one per dso for the run), build-id size and
 * address, and the sample's context.  A hit skips both lookups.  Two ways
 * a set, a set a cache line (a profile's hot sites collide less than in
 * one way: on perf running perf report, 5% of samples miss where 9% did;
 * a miss costs a lookup through cold sites).  While
 * open, the entry also sums the site's samples of that event that carry
 * only a period (the site's tally: struct site's held, where the sums
 * go when the entry is reused, and at the end): a sample of a hot site
 * then touches this one entry, half a cache line, and adds to it. */
struct site_memo {
	uint64_t tag;			/* sites_memo_tag(), | MEMO_OPEN */
	uint64_t addr;
	uint64_t period;		/* held here while open */
	uint32_t site;			/* site + 1; 0: empty */
	uint32_t n;
};
_Static_assert(sizeof(struct site_memo) == 32, "two memo entries a cache line");
/* The memo starts with 4,096 sets (256 KB: a profile of few sites keeps
 * its hot sets in few pages) and grows once to 65,536 (4 MB of address
 * space, touched a page at a time) when as many entries holding sums
 * were taken by others: the tail of a large profile's sites then fits (on
 * perf running perf report, 20,000 memo misses of 4.9 M samples where
 * 8,192 entries had 110,000; a miss costs ~300 ns in filter_slow()). */
#define MEMO_BITS_FIRST 12
#define MEMO_BITS_MAX 16
#define MEMO_WAYS 2
#define MEMO_ENTRIES(bits) ((size_t)MEMO_WAYS << (bits))
#define MEMO_OPEN (1ull << 63)
#define MEMO_NONE 0			/* no tag: not memoized */
#define MEMO_CTX_MAX 127		/* the contexts a tag tells apart */
#define MEMO_PAGE_ENTRIES (4096 / sizeof(struct site_memo))
#define MEMO_PAGES (MEMO_ENTRIES(MEMO_BITS_MAX) / MEMO_PAGE_ENTRIES)

/* A bit per context. */
struct ctx_bits {
	uint64_t w[2];
};
_Static_assert(MEMO_CTX_MAX < 128, "a context's bit in struct ctx_bits");

struct sites {
	struct site_memo *memo;		/* a set a cache line (its own
					 * mapping: a struct holding it is
					 * placed 16 bytes into a line by
					 * malloc, and each set then
					 * straddles two) */
	unsigned memo_shift;		/* 64 - its log2(sets) */
	uint64_t memo_spills;		/* entries with sums taken by others */
	struct dso_name **dsos, *last_dso;	/* each one, never moved */
	size_t ndsos, dsos_cap;
	uint32_t *dso_index;		/* arrays.h: by perf's pointer */
	size_t dso_index_size;
	uint32_t *index;		/* arrays.h: by (dso, addr, flags) */
	size_t index_size;
	struct site_key *keys;		/* each site's, dense: what the index
					 * compares (a memo miss would read
					 * cold sites otherwise) */
	size_t keys_cap;
	uint32_t n;
	struct site *blocks[SITE_BLOCKS];
	struct tallies tallies;
	struct ctx_bits *seen;		/* by site: the contexts of which it
					 * had a sample (sites_first()) */
	size_t seen_cap;
	uint8_t memo_pages[MEMO_PAGES / 8];	/* bits: the memo's pages
						 * written (the only ones the
						 * end reads: the others were
						 * never touched) */
};

/* The memo's key of perf's dso name pointer, build-id size and context
 * (its index) in one word: the pointer's top 16 bits are free in user
 * space.  MEMO_NONE when they are not, or the size or context do not
 * fit: that sample is not memoized. */
static inline uint64_t sites_memo_tag(const char *perf, size_t build_id_size, unsigned ctx)
{
	uintptr_t p = (uintptr_t)perf;

	if ((uint64_t)p >> 48 || build_id_size > 255 || ctx > MEMO_CTX_MAX)
		return MEMO_NONE;
	/* filter_event() builds it too, from its parts */
	return (uint64_t)p | (uint64_t)ctx << 48 | (uint64_t)build_id_size << 55;
}

static inline unsigned sites_memo_ctx(const struct site_memo *m)
{
	return (unsigned)(m->tag >> 48) & MEMO_CTX_MAX;
}

/* The memo's set for (tag, addr), its MEMO_WAYS entries: one multiply of
 * the two, its high bits.  Whose they are, the caller checks. */
static inline struct site_memo *sites_memo_set(struct sites *t, uint64_t tag, uint64_t addr)
{
	uint64_t h = (addr ^ tag) * 0x9e3779b97f4a7c15ull;

	return &t->memo[(h >> t->memo_shift) * MEMO_WAYS];
}

/* The entry of (tag, addr), open or not; NULL when not memoized. */
static inline struct site_memo *sites_memo_find(struct sites *t, uint64_t tag, uint64_t addr)
{
	struct site_memo *m = sites_memo_set(t, tag, addr);

	if (tag == MEMO_NONE)
		return NULL;
	for (int w = 0; w < MEMO_WAYS; w++)
		if (m[w].site && (m[w].tag & ~MEMO_OPEN) == tag && m[w].addr == addr)
			return &m[w];
	return NULL;
}

/* Remember that (tag, addr) is site's, closed, in its set's first way;
 * the others move down one, and the last gives its sums to a tally.  The
 * new entry; NULL when not memoized (or the sums had no memory). */
struct site_memo *sites_memo_put(struct sites *t, uint64_t tag, uint64_t addr,
				 uint32_t site);
/* An open entry's sums to its tally (reused, or full); false when out
 * of memory: they stay in m. */
bool sites_memo_spill(struct sites *t, struct site_memo *m);
/* The spilled sums into one tally per pair; false when out of memory
 * (those not folded wait). */
bool sites_tallies_fold(struct sites *t);
/* fn(arg, site, ctx, n, period) for each entry's sums and each tally's:
 * every tallied sample once (the end). */
void sites_tallies_each(const struct sites *t,
			void (*fn)(void *arg, uint32_t site, unsigned ctx, uint64_t n,
				   uint64_t period),
			void *arg);
/* Whether this is the first sample of (site, ctx) met here: true once
 * (a bit per context, by site: no search); *kin_seen: and the site had
 * a sample of one of the contexts kin holds (NULL: none asked). */
bool sites_first(struct sites *t, uint32_t site, unsigned ctx,
		 const struct ctx_bits *kin, bool *kin_seen);
/* perf's dso name (with its build-id, when perf has one), interned: a
 * build-id learnt later makes a new entry.  NULL when out of memory. */
const struct dso_name *sites_dso(struct sites *t, const char *name,
				 const uint8_t *build_id, size_t build_id_size);
/* The site (dso, addr, flags), added with ip, symoff and sym when new.
 * NO_SITE when out of memory or room. */
uint32_t sites_get(struct sites *t, const struct dso_name *dso, uint64_t addr,
		   unsigned flags, uint64_t ip, uint64_t symoff, const char *sym);

static inline struct site *sites_at(const struct sites *t, uint32_t i)
{
	return &t->blocks[i / SITE_BLOCK][i % SITE_BLOCK];
}

/* An empty table in *t, its memo mapped; -ENOMEM. */
int sites_init(struct sites *t);
/* Frees what the table holds (not t itself). */
void sites_free(struct sites *t);

#endif
