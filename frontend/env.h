/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The front ends' policy from the environment: the library reads no
 * variable and changes nothing of its host, so dtresolve and the plugin
 * read these once and pass them in as options.
 *   DTPROF_DEBUG=1            a line of trace per step
 *   DTPROF_NO_TRACK=1         no dataflow (make coverage measures it)
 *   DTPROF_NO_QUICK_DECODE=1  every instruction through libopcodes
 *   DTPROF_KEEP_FUNCTIONS=N   functions' decodings kept between questions
 *   DTPROF_CACHE_DIR, XDG_CACHE_HOME, HOME, DTPROF_NO_CACHE=1
 *                             the cache of inflated debug files
 *   HOME                      perf's build-id cache, ~/.debug
 *   DEBUGINFOD_URLS           ask debuginfod (libdwfl's client)
 *   LD_PRELOAD (valgrind's)   errno says nothing of memory
 */
#ifndef DTPROF_FRONTEND_ENV_H
#define DTPROF_FRONTEND_ENV_H

#include <limits.h>
#include <stdbool.h>

#include "../lib/dtprof.h"

struct dt_env {
	struct dt_session_opts session;	/* flags, keep_functions, cache_dir */
	const char *buildid_dir;	/* perf's build-id cache, or NULL */
	bool debug;			/* DTPROF_DEBUG=1 */
	char warning[256];		/* what the front end is to say of a
					 * variable it could not take, or "" */
	char cache[PATH_MAX];
	char buildids[PATH_MAX];
};

/* The environment as options: every session gives back the pages of a
 * large debug file once read (both front ends want it). */
void dt_env_read(struct dt_env *e);
/* dt_session_opts.give_back_pages: madvise(MADV_DONTNEED) of a read-only
 * file mapping's pages (frontend/pages.c). */
void frontend_give_back_pages(void *arg, void *addr, size_t len);

#endif
