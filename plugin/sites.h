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
	 * that carry only a period, summed until added to the report */
	bool counted;
	struct site_sums batch;
	/* perf's thread's, beside a resolving thread: the same sums of the
	 * samples it kept instead of handing them over (stop() adds them);
	 * held.kind is the event of the site's first sample */
	struct site_sums held;
};

#define SITE_BLOCK 4096
#define SITE_BLOCKS 16384
#define NO_SITE UINT32_MAX		/* out of memory */

/* A site recently found, its key beside it: one cache line to look at
 * (the index's entries are numbers, and each probe reads the site). */
/* A recent sample's site by what perf's resolve_ip said of it: its dso
 * name pointer (perf keeps one per dso for the run) and build-id's size,
 * the address, the flags.  A hit skips both lookups. */
struct site_memo {
	const char *perf;
	uint64_t addr;
	uint32_t key;			/* flags | build-id size << 8 */
	uint32_t site;			/* site + 1; 0: empty */
};
#define SITE_MEMOS 4096

struct sites {
	struct dso_name **dsos, *last_dso;	/* each one, never moved */
	size_t ndsos, dsos_cap;
	uint32_t *dso_index;		/* arrays.h: by perf's pointer */
	size_t dso_index_size;
	uint32_t *index;		/* arrays.h: by (dso, addr, flags) */
	size_t index_size;
	uint32_t n;
	struct site_memo memo[SITE_MEMOS];	/* direct-mapped */
	struct site *blocks[SITE_BLOCKS];
};

/* The site a sample perf placed at (perf's dso name pointer, build-id
 * size, address) with flags had last time, NO_SITE when not known;
 * and remember it. */
uint32_t sites_memo_find(const struct sites *t, const char *perf, size_t build_id_size,
			 uint64_t addr, unsigned flags);
void sites_memo_put(struct sites *t, const char *perf, size_t build_id_size,
		    uint64_t addr, unsigned flags, uint32_t site);
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

/* Frees what the table holds (not t itself). */
void sites_free(struct sites *t);

#endif
