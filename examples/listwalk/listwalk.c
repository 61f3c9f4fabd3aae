// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A list walk over 128-byte records, the shape of perf's callchain_list
 * before commit "perf callchain: place the list link with the hot fields":
 * the walk reads key and hits in the first cache line, then follows the
 * list link, which sits alone at the end, in the second line.  Every node
 * visited costs two cache lines.  Build with -DREORDERED for the layout
 * that moves the link up with the other hot fields, or with -DADVISED
 * for the order dtprof proposes (advised.h, written by run.sh from
 * --dlarg 'advise=struct record').
 */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>

struct list_head {
	struct list_head *next, *prev;
};

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* The kernel's list_for_each_entry: the cursor is the record itself, so
 * following the link reads pos->link.next through a struct record *. */
#define list_for_each_entry(pos, head, member)				\
	for (pos = container_of((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);						\
	     pos = container_of(pos->member.next, __typeof__(*pos), member))

#ifdef ADVISED
#include "advised.h"
#else
struct record {
#ifdef REORDERED
	struct list_head link;		/* hot: followed on every step */
#endif
	unsigned long key;		/* hot: compared on every step */
	unsigned long hits;		/* hot: incremented on a match */
	char name[80];			/* cold: printed once */
	unsigned long created;		/* cold */
	unsigned long flags;		/* cold */
#ifndef REORDERED
	struct list_head link;		/* hot, but alone in cache line 2 */
#endif
};
#endif

_Static_assert(sizeof(struct record) == 128, "two cache lines");

static struct list_head head = { &head, &head };

static void add(struct record *r)
{
	r->link.next = head.next;
	r->link.prev = &head;
	head.next->prev = &r->link;
	head.next = &r->link;
}

/* The hot loop: walk every record, count those whose key matches. */
__attribute__((noinline)) unsigned long count_matches(unsigned long mask)
{
	unsigned long n = 0;
	struct record *r;

	list_for_each_entry(r, &head, link) {
		if ((r->key & mask) == 0) {
			r->hits++;
			n++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned long nrec = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	unsigned long rounds = argc > 2 ? strtoul(argv[2], NULL, 0) : 400;
	struct record **recs = calloc(nrec, sizeof(*recs));
	unsigned long total = 0;

	if (!recs)
		return 1;
	/* scatter the records so that the walk misses the cache */
	for (unsigned long i = 0; i < nrec; i++) {
		recs[i] = aligned_alloc(64, sizeof(struct record));
		if (!recs[i])
			return 1;
		recs[i]->key = i * 2654435761UL;
		recs[i]->hits = 0;
		snprintf(recs[i]->name, sizeof(recs[i]->name), "record %lu", i);
	}
	srand(1);
	for (unsigned long i = nrec - 1; i > 0; i--) {
		unsigned long j = (unsigned long)rand() % (i + 1);
		struct record *t = recs[i];
		recs[i] = recs[j];
		recs[j] = t;
	}
	for (unsigned long i = 0; i < nrec; i++)
		add(recs[i]);
	for (unsigned long r = 0; r < rounds; r++)
		total += count_matches(r & 7);
	printf("%lu matches\n", total);
	return 0;
}
