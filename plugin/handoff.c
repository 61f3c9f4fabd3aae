// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * One producer and one consumer thread, up to MAX_CHUNKS chunks between
 * them: a queue of filled chunks, consumed in order, and a stack of the
 * consumed ones, reused last-freed first (its bytes are still in a cache
 * when the consumer keeps up).  Chunks are allocated as the queue grows,
 * so a consumer that keeps up costs two or three.  handoff_pause() lets
 * the producer do the consumer's work itself while nothing is queued.
 * The mutex orders a chunk's bytes before their use on either side.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "handoff.h"

/* How far perf's thread may run ahead: the resolving thread's one-time
 * work comes in bursts (a new library's debug info, a new function), and
 * perf.data's later samples are mostly of sites already answered.  The
 * plugin's chunks (4096 samples of 48 bytes) make it 2 M samples, 100 MB,
 * taken only while the resolving thread lags. */
#define MAX_CHUNKS 512

struct handoff {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, emptied;
	void *queue[MAX_CHUNKS];	/* filled, oldest at head */
	unsigned head, queued;
	void *spare[MAX_CHUNKS];	/* consumed, for reuse */
	unsigned nspare, allocated;
	bool done;
	bool in_idle;			/* a slice of idle work runs */
	bool consuming;			/* a chunk is being consumed */
	struct handoff_work work;
	size_t chunk_size;
	void *filling;			/* the producer's */
};

static void *consumer(void *arg)
{
	struct handoff *h = arg;

	bool idle_left = h->work.idle != NULL;

	if (h->work.prelude)
		h->work.prelude(h->work.arg);
	pthread_mutex_lock(&h->lock);
	for (;;) {
		while (!h->queued && !h->done) {
			if (!idle_left) {
				pthread_cond_wait(&h->filled, &h->lock);
				continue;
			}
			h->in_idle = true;
			pthread_mutex_unlock(&h->lock);
			idle_left = h->work.idle(h->work.arg);
			pthread_mutex_lock(&h->lock);
			h->in_idle = false;
			pthread_cond_broadcast(&h->emptied);
		}
		if (!h->queued)
			break;
		void *chunk = h->queue[h->head];
		h->head = (h->head + 1) % MAX_CHUNKS;
		h->queued--;
		h->consuming = true;
		pthread_mutex_unlock(&h->lock);
		h->work.consume(h->work.arg, chunk);
		pthread_mutex_lock(&h->lock);
		h->consuming = false;
		h->spare[h->nspare++] = chunk;
		pthread_cond_broadcast(&h->emptied);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static void free_all(struct handoff *h)
{
	for (unsigned i = 0; i < h->nspare; i++)
		free(h->spare[i]);
	free(h->filling);
	pthread_cond_destroy(&h->emptied);
	pthread_cond_destroy(&h->filled);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

int handoff_start(struct handoff **out, size_t chunk_size,
		  const struct handoff_work *work)
{
	struct handoff *h = calloc(1, sizeof(*h));
	sigset_t all, old;
	int err;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->filled, NULL);
	pthread_cond_init(&h->emptied, NULL);
	h->chunk_size = chunk_size;
	h->work = *work;
	h->allocated = 1;
	if (!(h->filling = malloc(chunk_size))) {
		free_all(h);
		return -ENOMEM;
	}
	/* perf's signals (^C, SIGCHLD) stay with perf's thread; the faults
	 * and the abort that libdw's out-of-memory guard catches stay ours */
	sigfillset(&all);
	sigdelset(&all, SIGABRT);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&h->thread, NULL, consumer, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		free_all(h);
		return -err;
	}
	*out = h;
	return 0;
}

void *handoff_chunk(struct handoff *h)
{
	return h->filling;
}

void *handoff_publish(struct handoff *h)
{
	void *next = NULL;

	pthread_mutex_lock(&h->lock);
	h->queue[(h->head + h->queued) % MAX_CHUNKS] = h->filling;
	h->queued++;
	pthread_cond_signal(&h->filled);
	/* a new chunk while there is room (and memory), else the consumer's
	 * next one back */
	while (!h->nspare && (h->allocated == MAX_CHUNKS ||
			      !(next = malloc(h->chunk_size))))
		pthread_cond_wait(&h->emptied, &h->lock);
	if (next)
		h->allocated++;
	else
		next = h->spare[--h->nspare];
	h->filling = next;
	pthread_mutex_unlock(&h->lock);
	return next;
}

bool handoff_pause(struct handoff *h)
{
	bool paused = false;

	pthread_mutex_lock(&h->lock);
	/* a consumer far behind keeps its chunks */
	if (h->queued <= 1) {
		while (h->queued || h->consuming)
			pthread_cond_wait(&h->emptied, &h->lock);
		paused = true;
	}
	pthread_mutex_unlock(&h->lock);
	return paused;
}

void handoff_finish(struct handoff *h, int filled,
		    void (*meanwhile)(void *arg), void *arg)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	if (filled) {
		h->queue[(h->head + h->queued) % MAX_CHUNKS] = h->filling;
		h->queued++;
		h->filling = NULL;
	}
	h->done = true;
	pthread_cond_signal(&h->filled);
	/* no slice starts after done: wait for the one running to end */
	while (h->in_idle)
		pthread_cond_wait(&h->emptied, &h->lock);
	pthread_mutex_unlock(&h->lock);
	if (meanwhile)
		meanwhile(arg);
	pthread_join(h->thread, NULL);
	free_all(h);
}
