/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Per-process memory maps from perf script's PERF_RECORD_MMAP lines:
 * runtime address -> (file, file offset).  See maps.c.
 */
#ifndef DTPROF_MAPS_H
#define DTPROF_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct dt_maps;

int dt_maps_new(struct dt_maps **out);
void dt_maps_free(struct dt_maps *m);
/* Map [start, start + len) of pid to file at pgoff, replacing what it
 * overlaps.  pid -1: the kernel's, seen by every process.  0 or -errno. */
int dt_maps_add(struct dt_maps *m, int pid, uint64_t start, uint64_t len,
		uint64_t pgoff, const char *file, size_t file_len);
/* exec: the process starts with no mappings. */
void dt_maps_exec(struct dt_maps *m, int pid);
/* fork: child gets a copy of parent's mappings.  0 or -ENOMEM. */
int dt_maps_fork(struct dt_maps *m, int child, int parent);
/* The file mapped at addr in pid (or the kernel's), and the offset in
 * it; NULL when none.  Valid until the next change of the maps. */
const char *dt_maps_find(struct dt_maps *m, int pid, uint64_t addr,
			 uint64_t *file_offset);

#endif
