// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dtprof-record's allocator events in the plugin: the fields of their
 * payloads, by the event formats perf.data carries (allocevents.c).
 */
#ifndef DTPROF_ALLOCEVENTS_H
#define DTPROF_ALLOCEVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct alloc_events;

/* The formats of dtprof-record's events (systems "dtprof_PID") in the
 * tracing data of the perf.data file open at fd (read with pread, left
 * open).  NULL, and *why set, when there are none to read: perf reads a
 * pipe, the file has no tracing data, or its formats cannot be parsed. */
struct alloc_events *alloc_events_open(int fd, const char **why);
/* The same from the tracing data itself (data[0..len), any bytes). */
struct alloc_events *alloc_events_parse(const void *data, size_t len, const char **why);
void alloc_events_free(struct alloc_events *a);
/* Field name of the payload raw[0..raw_size) of an event of tracepoint
 * id (its attr.config), as a number: false when the event or field is
 * unknown or the payload too short for it. */
bool alloc_events_field(const struct alloc_events *a, uint64_t id, const void *raw,
			size_t raw_size, const char *name, uint64_t *val);

#endif
