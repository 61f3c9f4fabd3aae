// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Opening the binaries perf.data names before their samples come
 * (prefetch.c).
 */
#ifndef DTPROF_PREFETCH_H
#define DTPROF_PREFETCH_H

#include <pthread.h>
#include <stdbool.h>

struct dt_dsos;

/* A descriptor of our own on the perf.data file perf has open, or -1
 * (perf reads a pipe, or no such file is open). */
int prefetch_find_perfdata(void);
/* Whether every binary the build-id table of the perf.data file at fd
 * names (those prefetch_dsos() would open) has answers kept in dsos's
 * cache: a run after the profile's first, whose naming is small.  fd -1,
 * or a table that cannot be read: false. */
bool prefetch_all_kept(const struct dt_dsos *dsos, int fd);
/* Opens in dsos (each under lock: another thread may look binaries up
 * meanwhile) the binaries of the build-id table of the perf.data file at
 * fd, and closes fd.  fd -1: nothing. */
void prefetch_dsos(struct dt_dsos *dsos, pthread_mutex_t *lock, int fd);

#endif
