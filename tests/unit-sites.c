// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The plugin's site table alone (plugin/sites.c): the memo's entries and
 * their sums when an entry is reused, fills or stays to the end, and the
 * first sample of each (site, context).  Whatever the memo does, every
 * tallied sample must come out of sites_tallies_each() once, with its
 * site and context; the plugin's tables over it are tested by t4001 and
 * t4007, whose profiles never fill the memo.
 */
#include <stdint.h>
#include <stdlib.h>

#include "../plugin/sites.h"
#include "tap.h"

/* What sites_tallies_each() gave, summed by (site, ctx). */
#define SITES 3008		/* the last 8 at addresses of one memo set */
#define CTXS 4
static uint64_t got_n[SITES][CTXS], got_period[SITES][CTXS];
static unsigned calls;

static void sum(void *arg, uint32_t site, unsigned ctx, uint64_t n, uint64_t period)
{
	(void)arg;
	calls++;
	if (site < SITES && ctx < CTXS) {
		got_n[site][ctx] += n;
		got_period[site][ctx] += period;
	}
}

static uint64_t want_n[SITES][CTXS], want_period[SITES][CTXS];
static uint64_t site_addr[SITES];

/* One tallied sample of (site, ctx) as filter_slow() makes it: the entry
 * found or put, opened, added to (the pair's first sample is not tallied:
 * false then). */
static bool tally(struct sites *t, const char *dso, uint32_t site, unsigned ctx,
		  uint64_t period)
{
	uint64_t tag = sites_memo_tag(dso, 20, ctx), addr = site_addr[site];
	struct site_memo *m = sites_memo_find(t, tag, addr);

	if (!m && !(m = sites_memo_put(t, tag, addr, site)))
		return false;
	if (!(m->tag & MEMO_OPEN)) {
		bool first = sites_first(t, site, ctx, NULL, NULL);
		m->tag |= MEMO_OPEN;
		if (first)
			return false;
	}
	m->period += period;
	m->n++;
	want_n[site][ctx]++;
	want_period[site][ctx] += period;
	return true;
}

int main(void)
{
	static struct sites t;
	static const char dso[] = "/usr/lib/libfake.so";
	int fails = 0;

	if (sites_init(&t))
		return 1;
	const struct dso_name *d = sites_dso(&t, dso, (const uint8_t *)"01234567890123456789", 20);
	ok(d != NULL, "a dso interned");
	for (uint32_t s = 0; s < 3000; s++) {
		site_addr[s] = 0x1000 + s * 4;
		if (sites_get(&t, d, site_addr[s], 0, site_addr[s], 0, NULL) != s)
			fails++;
	}
	is_int(fails, 0, "sites numbered in the order they are met");

	/* sites_first: once per (site, ctx), contexts apart, far sites too */
	bool a = sites_first(&t, 2999, 0, NULL, NULL), b = sites_first(&t, 2999, 0, NULL, NULL);
	bool c = sites_first(&t, 2999, 127, NULL, NULL), e = sites_first(&t, 2999, 64, NULL, NULL);
	bool f = sites_first(&t, 2998, 127, NULL, NULL);
	ok(a && !b && c && e && f, "the first sample of a pair is first once, of each context");
	/* kin: whether the site had a sample of these contexts before */
	struct ctx_bits kin = { { 1ull << 5, 1ull << (100 - 64) } };
	bool k1, k2, k3, k4;
	bool g = sites_first(&t, 2997, 5, &kin, &k1);	/* its own: not before */
	bool h = sites_first(&t, 2997, 100, &kin, &k2);	/* 5 was */
	bool i3 = sites_first(&t, 2996, 7, &kin, &k3);	/* none of kin's */
	bool j = sites_first(&t, 2999, 100, &kin, &k4);	/* 0, 64, 127: not kin */
	ok(g && !k1 && h && k2 && i3 && !k3 && j && !k4,
	   "a pair's first sample tells whether the site had one of its kin's");

	/* samples over many more (site, ctx) pairs than one set holds, in
	 * an order that reuses entries of open pairs: each pair's sums
	 * leave its entry when the entry is taken and come back in a new
	 * one when the pair is met again */
	uint64_t tallied = 0;
	srand(7);
	for (int round = 0; round < 40; round++)
		for (uint32_t s = 0; s < 2000; s++) {
			unsigned ctx = (unsigned)rand() % CTXS;
			tallied += tally(&t, dso, (s * 7919u + (unsigned)round) % 2000, ctx,
					 1 + (unsigned)rand() % 1000);
		}
	ok(tallied > 70000, "most samples tallied (%" PRIu64 ")", tallied);
	/* 8,000 pairs in 8,192 entries: entries with sums were taken, and
	 * the memo grew, its entries and their sums moved */
	ok(t.memo_shift == 64 - MEMO_BITS_MAX, "the memo grew (%" PRIu64 " spills)",
	   t.memo_spills);

	/* 8 more sites whose entries of context 3 share one set */
	uint64_t tag3 = sites_memo_tag(dso, 20, 3);
	struct site_memo *set = sites_memo_set(&t, tag3, 0x100000);
	uint32_t n = 3000;
	for (uint64_t at = 0x100000; n < SITES && at < 0x100000 + (1ull << 30); at += 4)
		if (sites_memo_set(&t, tag3, at) == set)
			site_addr[n++] = at;
	for (uint32_t s = 3000; s < n; s++)
		if (sites_get(&t, d, site_addr[s], 0, site_addr[s], 0, NULL) != s)
			fails++;
	/* the same through entries that must be reused: 8 pairs, one set */
	is_int(n, SITES, "8 sites whose entries share one memo set");
	is_int(fails, 0, "and numbered in order");
	size_t before = t.tallies.n;
	for (int round = 0; round < 50; round++)
		for (uint32_t s = 3000; s < n; s++)
			tally(&t, dso, s, 3, (uint64_t)round + s);
	/* (an entry of the random rounds above may share the set too, its
	 * sums spilled here as well: the dso's address decides) */
	size_t ours = 0;
	ok(t.tallies.nlog > 0 && sites_tallies_fold(&t) && t.tallies.nlog == 0,
	   "spilled sums wait in turn, then fold into their pairs' tallies");
	for (size_t i = before; i < t.tallies.n; i++)
		ours += t.tallies.v[i].site >= 3000 && t.tallies.v[i].ctx == 3;
	ok(ours == 8, "a reused open entry's sums go to its pair's tally "
	   "(%zu of the %zu tallies more)", ours, t.tallies.n - before);

	/* a full count spills and starts again */
	struct site_memo *m = sites_memo_find(&t, tag3, site_addr[SITES - 1]);
	ok(m && (m->tag & MEMO_OPEN) && sites_memo_spill(&t, m) && m->n == 0 &&
	   m->period == 0, "a spilled entry is empty and stays open");

	sites_tallies_each(&t, sum, NULL);
	fails = 0;
	for (uint32_t s = 0; s < SITES; s++)
		for (unsigned x = 0; x < CTXS; x++)
			fails += got_n[s][x] != want_n[s][x] ||
				 got_period[s][x] != want_period[s][x];
	is_int(fails, 0, "every tallied sample out once, with its site, context and period");
	uint64_t out = 0;
	for (uint32_t s = 0; s < SITES; s++)
		for (unsigned x = 0; x < CTXS; x++)
			out += got_n[s][x];
	uint64_t in = 0;
	for (uint32_t s = 0; s < SITES; s++)
		for (unsigned x = 0; x < CTXS; x++)
			in += want_n[s][x];
	ok(out == in && calls > 0, "%" PRIu64 " samples in, %" PRIu64 " out", in, out);
	sites_free(&t);
	return done_testing();
}
