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

#include <stddef.h>

struct handoff;

/* consume(arg, chunk) runs on the new thread, once per filled chunk, in
 * order; chunk_size bytes each.  0 or -errno (no thread: the caller
 * resolves in its own). */
int handoff_start(struct handoff **out, size_t chunk_size,
		  void (*consume)(void *arg, void *chunk), void *arg);
/* The chunk the producer fills now. */
void *handoff_chunk(struct handoff *h);
/* Hand the filled chunk over; returns the next one to fill, waiting while
 * the most chunks there may be are all queued. */
void *handoff_publish(struct handoff *h);
/* Hand over the last chunk if filled is true, wait until every chunk is
 * consumed, end the thread and free.  NULL ok. */
void handoff_finish(struct handoff *h, int filled);

#endif
