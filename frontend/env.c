// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The environment, read once by a front end and handed to the library
 * as options (env.h lists the variables).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

/* A variable set to anything but "" or "0". */
static bool on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

static unsigned keep_functions(struct dt_env *e)
{
	const char *v = getenv("DTPROF_KEEP_FUNCTIONS");
	char *end;

	if (!v || !*v)
		return 0;
	errno = 0;
	unsigned long n = strtoul(v, &end, 10);
	if (!*end && !errno && n >= 1 && n <= UINT32_MAX && *v >= '0' && *v <= '9')
		return (unsigned)n;
	snprintf(e->warning, sizeof(e->warning), "DTPROF_KEEP_FUNCTIONS='%.64s' is not "
		 "a number of functions (1 or more): %u are kept", v, DT_KEEP_FUNCTIONS);
	return 0;
}

/* The cache of inflated debug files: $DTPROF_CACHE_DIR, else
 * $XDG_CACHE_HOME/dtprof, else ~/.cache/dtprof; none when
 * DTPROF_NO_CACHE is set or no directory is known. */
static const char *cache_dir(struct dt_env *e)
{
	const char *dir = getenv("DTPROF_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (on("DTPROF_NO_CACHE"))
		return NULL;
	if (dir && *dir)
		n = snprintf(e->cache, sizeof(e->cache), "%s", dir);
	else if (xdg && *xdg == '/')
		n = snprintf(e->cache, sizeof(e->cache), "%s/dtprof", xdg);
	else if (home && *home == '/')
		n = snprintf(e->cache, sizeof(e->cache), "%s/.cache/dtprof", home);
	else
		return NULL;
	return n > 0 && (size_t)n < sizeof(e->cache) ? e->cache : NULL;
}

static const char *buildid_dir(struct dt_env *e)
{
	const char *home = getenv("HOME");
	int n;

	if (!home || !*home)
		return NULL;
	n = snprintf(e->buildids, sizeof(e->buildids), "%s/.debug", home);
	return n > 0 && (size_t)n < sizeof(e->buildids) ? e->buildids : NULL;
}

void dt_env_read(struct dt_env *e)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const char *preload = getenv("LD_PRELOAD");

	memset(e, 0, sizeof(*e));
	e->session.sz = sizeof(e->session);
	e->debug = on("DTPROF_DEBUG");
	e->session.give_back_pages = frontend_give_back_pages;
	e->session.flags = (e->debug ? DT_SESSION_TRACE : 0) |
		(on("DTPROF_NO_TRACK") ? DT_SESSION_NO_TRACK : 0) |
		(on("DTPROF_NO_QUICK_DECODE") ? DT_SESSION_NO_QUICK_DECODE : 0) |
		(urls && *urls ? DT_SESSION_DEBUGINFOD : 0) |
		(preload && strstr(preload, "/vgpreload_") ? DT_SESSION_ERRNO_UNRELIABLE : 0);
	e->session.keep_functions = keep_functions(e);
	e->session.cache_dir = cache_dir(e);
	if (e->session.cache_dir && !on("DTPROF_NO_ANSWERS"))
		e->session.flags |= DT_SESSION_KEEP_ANSWERS;
	e->buildid_dir = buildid_dir(e);
}
