// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Samples handed from perf's thread to one resolving thread, a chunk at a
 * time: perf reads and decodes perf.data on one CPU while the plugin
 * names the types of the samples before on another.  Chunks are consumed
 * in the order they were filled, so the report is the same as with one
 * thread.
 */
#ifndef DTPROF_HANDOFF_H
#define DTPROF_HANDOFF_H

#include <stdbool.h>
#include <stddef.h>

struct handoff;

/* What the new thread does, each with arg. */
struct handoff_work {
	void (*prelude)(void *arg);	/* first, NULL: nothing (work that
					 * needs no chunk, while the producer
					 * starts) */
	void (*consume)(void *arg, void *chunk);	/* each filled chunk,
							 * in order */
	bool (*idle)(void *arg);	/* while no chunk waits, a short slice
					 * of work a call, until it returns
					 * false; NULL: none */
	void *arg;
};

/* Starts the thread; chunks of chunk_size bytes.  0 or -errno (no
 * thread: the caller resolves in its own). */
int handoff_start(struct handoff **out, size_t chunk_size,
		  const struct handoff_work *work);
/* The chunk the producer fills now. */
void *handoff_chunk(struct handoff *h);
/* Hand the filled chunk over; returns the next one to fill, waiting while
 * the most chunks there may be are all queued. */
void *handoff_publish(struct handoff *h);
/* After a publish, with the chunk to fill still empty: when at most the
 * chunk just published waits, wait until it is consumed and return true:
 * consume() then runs again only after the next publish, and the producer
 * may do what consume() does meanwhile (the lock orders both sides'
 * writes; prelude and idle work go on).  Else false, at once. */
bool handoff_pause(struct handoff *h);
/* Hand over the last chunk if filled is true, run meanwhile(arg) (when
 * not NULL) in the caller's thread while the other consumes (its idle
 * work over: no slice of it runs beside meanwhile), wait until every
 * chunk is consumed, end the thread and free.  NULL h ok. */
void handoff_finish(struct handoff *h, int filled,
		    void (*meanwhile)(void *arg), void *arg);

#endif
