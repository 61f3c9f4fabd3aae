// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Plain false sharing between two writers: a receive thread and a send
 * thread each count their own packets and bytes, in one struct, so the
 * two sets of counters share a cache line and every increment on one
 * CPU takes the line away from the other (what perf c2c reports as HITM
 * on a line with two writers).  Neither thread reads the other's fields.
 * Build with -DFIXED for the layout that starts each thread's counters
 * on a line of their own, or with -DADVISED for the order dtprof proposes
 * (advised.h, written by run.sh from --dlarg 'advise=struct link_stats').
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef ADVISED
#include "advised.h"
#else
struct link_stats {
	char ifname[16];		/* cold: set once */
	unsigned int mtu;		/* cold */
	unsigned int flags;		/* cold */
	unsigned long rx_packets;	/* written by the receive thread */
	unsigned long rx_bytes;
#ifdef FIXED
	unsigned long tx_packets __attribute__((aligned(64)));
#else
	unsigned long tx_packets;	/* written by the send thread */
#endif
	unsigned long tx_bytes;
	unsigned long created;		/* cold */
};
#endif

static struct link_stats stats = { .ifname = "eth0", .mtu = 1500 };
static long iterations;

/* Each thread's packets with one add to memory, its bytes with a load and
 * a store (the barrier keeps the compiler from merging the two counters
 * into one vector add): a store retires fast and cpu-clock samples land
 * after it, so the bytes' stores are seldom sampled, the packets' always
 * (the add waits for the line). */
__attribute__((noinline)) void count_rx(struct link_stats *s, unsigned int len)
{
	s->rx_packets++;
	__asm__ volatile("" ::: "memory");
	__atomic_store_n(&s->rx_bytes, s->rx_bytes + len, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void count_tx(struct link_stats *s, unsigned int len)
{
	s->tx_packets++;
	__asm__ volatile("" ::: "memory");
	__atomic_store_n(&s->tx_bytes, s->tx_bytes + len, __ATOMIC_RELAXED);
}

static void *sender(void *arg)
{
	(void)arg;
	for (long i = 0; i < iterations; i++)
		count_tx(&stats, (unsigned int)i & 1023);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	iterations = argc > 1 ? atol(argv[1]) : 100000000;
	pthread_create(&t, NULL, sender, NULL);
	for (long i = 0; i < iterations; i++)
		count_rx(&stats, (unsigned int)i & 2047);
	pthread_join(t, NULL);
	printf("%s: rx %lu packets, tx %lu packets\n", stats.ifname,
	       stats.rx_packets, stats.tx_packets);
	return 0;
}
