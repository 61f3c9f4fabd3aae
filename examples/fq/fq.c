// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The shape of sch_fq's struct fq_sched_data before commit "net_sched:
 * sch_fq: move the hot counters away from the read-mostly parameters":
 * the dequeue path reads quantum, flow_plimit and the rate limits on
 * every packet while the enqueue path, on another CPU, increments packet
 * counters that sit in the same cache line.  Every increment invalidates
 * the readers' copy of the parameters (false sharing).  Build with
 * -DFIXED for the layout that gives the counters a cache line of their
 * own, or with -DADVISED for the order dtprof proposes (advised.h, written
 * by run.sh from --dlarg 'advise=struct fq_sched_data').
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef ADVISED
#include "advised.h"
#else
struct fq_sched_data {
	/* read-mostly: set at configuration time */
	unsigned int quantum;
	unsigned int initial_quantum;
	unsigned int flow_refill_delay;
	unsigned int flow_plimit;
	unsigned long flow_max_rate;
	unsigned long low_rate_threshold;
	unsigned int orphan_mask;
	unsigned int rate_enable;
#ifndef FIXED
	/* written on every enqueued packet */
	unsigned long stat_packets;
	unsigned long stat_bytes;
#endif
	unsigned long time_next_delayed_flow;
	unsigned long unthrottle_latency_ns;
	unsigned int flows;
	unsigned int inactive_flows;
#ifdef FIXED
	unsigned long stat_packets __attribute__((aligned(64)));
	unsigned long stat_bytes;
#endif
};
#endif

static struct fq_sched_data q = {
	.quantum = 3028, .initial_quantum = 30280, .flow_plimit = 100,
	.flow_max_rate = ~0UL, .low_rate_threshold = 68750, .orphan_mask = 1023,
};
static long iterations;

/* The enqueue side: counts every packet, one add to memory per counter as
 * the kernel's fq does (only this thread touches them until the join; the
 * barrier keeps the compiler from merging the two into one vector add). */
__attribute__((noinline)) void fq_enqueue(struct fq_sched_data *q, unsigned int len)
{
	q->stat_packets++;
	__asm__ volatile("" ::: "memory");
	q->stat_bytes += len;
}

/* The dequeue side: reads the parameters for every packet. */
__attribute__((noinline)) unsigned long fq_dequeue(struct fq_sched_data *q, unsigned int len)
{
	unsigned long credit = __atomic_load_n(&q->quantum, __ATOMIC_RELAXED);

	if (len > __atomic_load_n(&q->flow_plimit, __ATOMIC_RELAXED))
		credit += __atomic_load_n(&q->initial_quantum, __ATOMIC_RELAXED);
	if (__atomic_load_n(&q->flow_max_rate, __ATOMIC_RELAXED) <
	    __atomic_load_n(&q->low_rate_threshold, __ATOMIC_RELAXED))
		credit = 0;
	return credit & __atomic_load_n(&q->orphan_mask, __ATOMIC_RELAXED);
}

static void *enqueuer(void *arg)
{
	(void)arg;
	for (long i = 0; i < iterations; i++)
		fq_enqueue(&q, (unsigned int)i & 1023);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	unsigned long sum = 0;

	iterations = argc > 1 ? atol(argv[1]) : 100000000;
	pthread_create(&t, NULL, enqueuer, NULL);
	for (long i = 0; i < iterations; i++)
		sum += fq_dequeue(&q, (unsigned int)i & 2047);
	pthread_join(t, NULL);
	printf("%lu packets, credit %lu\n", q.stat_packets, sum);
	return 0;
}
