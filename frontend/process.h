/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a command that owns its process (dtresolve) may do to it, and the
 * library never does: tune the heap, catch libdw's asserts on out of
 * memory.  The plugin lives in perf's process and does neither.
 */
#ifndef DTPROF_FRONTEND_PROCESS_H
#define DTPROF_FRONTEND_PROCESS_H

#include <stddef.h>
#include <stdint.h>

/* dt_session_opts.large_debug_info, for a command that owns its process:
 * malloc's thresholds raised and the heap grown ahead once, in
 * transparent huge pages where the system allows them. */
void frontend_tune_heap(void *arg, uint64_t bytes);
/* A SIGABRT handler, once, for the rest of the process: an abort inside
 * libdw that follows a failed allocation while a session works ends that
 * session's work as no_memory (dt_oom_escape); any other abort goes on
 * to the handler installed before.  Not under the sanitizers, whose
 * reports abort. */
void frontend_catch_libdw_aborts(void);

#endif
