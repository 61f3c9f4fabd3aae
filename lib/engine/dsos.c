// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The set of binaries a profile touches, by the name perf gives them:
 * one session each, opened on first use.  Knows where perf's names lead:
 * "[kernel.kallsyms]" to a vmlinux with DWARF, "[sch_fq]" to a kernel
 * module's file (kmodules.c), a build-id to perf's cache
 * in ~/.debug, "[vdso]" and "[unknown]" to nothing.  Says once per binary
 * why its samples cannot be attributed.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../dtprof.h"
#include "../arrays.h"
#include "internal.h"

struct dso {
	char *name;
	struct dt_session *session;
	enum dt_reason why;		/* when session is NULL */
	bool kernel;
	bool module;			/* a kernel module: by its symbols */
	bool kaslr_known;
	uint64_t kaslr;			/* runtime - link-time */
	/* opened ahead (dt_dsos_prefetch), not asked for yet: what opening
	 * said, and the build-id it was opened for */
	bool prefetched;
	char *deferred;
	uint8_t id[20];
	size_t id_len;
};

struct dt_dsos {
	struct dt_dsos_opts o;		/* strings: the copies below */
	char *debuginfo_path, *vmlinux, *buildid_dir, *cache_dir;
	struct dt_session_opts session;	/* every session's template */
	struct dso *v;
	size_t n, cap;
	uint32_t *slot;			/* v by name: arrays.h */
	size_t slots;
	struct dso *last;		/* of the last lookup */
	size_t prepared;		/* dt_dsos_prepare: the first ones done */
	bool oom_said;			/* "out of memory" said once */
};

/* The binary this thread is opening ahead (dt_dsos_prefetch): what it
 * says is kept.  Per thread, since another thread may resolve, and its
 * sessions say things, meanwhile.  (initial-exec: see OOM_TLS.) */
static OOM_TLS struct dso *prefetching;

/* The log of the set and of its sessions: a message about a binary being
 * prefetched is kept for its first lookup (one line each; a message that
 * cannot be kept is said now rather than lost). */
static void dsos_log(void *arg, const char *msg)
{
	struct dt_dsos *d = arg;
	struct dso *e = prefetching;

	if (!d->o.log)
		return;
	if (e) {
		size_t had = e->deferred ? strlen(e->deferred) : 0, n = strlen(msg);
		char *m = realloc(e->deferred, had + n + 2);
		if (m) {
			memcpy(m + had, msg, n);
			memcpy(m + had + n, "\n", 2);
			e->deferred = m;
			return;
		}
	}
	d->o.log(d->o.log_arg, msg);
}

static void say(struct dt_dsos *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct dt_dsos *d, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dsos_log(d, buf);
}

/* Says what prefetching e kept, now that its samples are asked about. */
static void say_deferred(struct dt_dsos *d, struct dso *e)
{
	for (char *line = e->deferred, *nl; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		d->o.log(d->o.log_arg, line);
	}
	free(e->deferred);
	e->deferred = NULL;
}

int dt_dsos_new(const struct dt_dsos_opts *opts, struct dt_dsos **out)
{
	struct dt_dsos *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return -ENOMEM;
	/* only the fields the caller's structs have (their sz) are read;
	 * the sessions' options are checked by each dt_session_open() */
	if (!sized_in(&d->o, sizeof(d->o), opts)) {
		free(d);
		return -DT_ERR_OPTS;
	}
	sized_in(&d->session, sizeof(d->session), d->o.session);
	if ((d->o.debuginfo_path && !(d->debuginfo_path = strdup(d->o.debuginfo_path))) ||
	    (d->o.vmlinux && !(d->vmlinux = strdup(d->o.vmlinux))) ||
	    (d->o.buildid_dir && !(d->buildid_dir = strdup(d->o.buildid_dir))) ||
	    (d->session.cache_dir && !(d->cache_dir = strdup(d->session.cache_dir)))) {
		dt_dsos_free(d);
		return -ENOMEM;
	}
	d->o.debuginfo_path = d->debuginfo_path;
	d->o.vmlinux = d->vmlinux;
	d->o.buildid_dir = d->buildid_dir;
	d->o.session = NULL;
	d->session.cache_dir = d->cache_dir;
	*out = d;
	return 0;
}

void dt_dsos_free(struct dt_dsos *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		dt_session_close(d->v[i].session);
		free(d->v[i].name);
		free(d->v[i].deferred);
	}
	free(d->v);
	free(d->slot);
	free(d->debuginfo_path);
	free(d->vmlinux);
	free(d->buildid_dir);
	free(d->cache_dir);
	free(d);
}

bool dt_dso_is_kernel(const char *name)
{
	return name[0] == '[' && strstr(name, "kernel.kallsyms") != NULL;
}

char *dt_find_vmlinux(void)
{
	/* where Debian's -dbg package and kernel builds put it */
	static const char *const dirs[][2] = {
		{ "/usr/lib/debug/boot/vmlinux-", "" },
		{ "/usr/lib/debug/lib/modules/", "/vmlinux" },
		{ "/boot/vmlinux-", "" },
		{ "/lib/modules/", "/build/vmlinux" },
	};
	struct utsname u;
	char path[512];

	if (uname(&u))
		return NULL;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s%s", dirs[i][0], u.release,
			 dirs[i][1]);
		if (access(path, R_OK) == 0)
			return strdup(path);
	}
	return NULL;
}

/* perf's build-id cache (the host's dt_dsos_opts.buildid_dir, ~/.debug):
 * DIR/.build-id/ab/cdef.../{elf,debug} */
static char *buildid_cache_file(const struct dt_dsos *d, const uint8_t *id,
				size_t n, const char *leaf)
{
	char path[PATH_MAX];

	if (!d->buildid_dir || !build_id_path(path, sizeof(path), d->buildid_dir, id, n, leaf))
		return NULL;
	return access(path, R_OK) == 0 ? strdup(path) : NULL;
}

/* Whether s is the build perf recorded (id[0..n)).  Without a recorded
 * build-id there is nothing to compare; a file without one when perf
 * recorded one cannot be shown to be that build, so it is not. */
static bool build_id_matches(struct dt_session *s, const uint8_t *id, size_t n)
{
	const uint8_t *have;
	size_t m = dt_session_build_id(s, &have);

	return !n || (m == n && !memcmp(have, id, n));
}

static struct dt_session *open_file(struct dt_dsos *d, const char *path,
				    const char *debug_file, int *err)
{
	struct dt_session_opts so = d->session;

	so.debuginfo_path = d->o.debuginfo_path;
	so.debuginfo_file = debug_file;
	so.log = dsos_log;
	so.log_arg = d;
	struct dt_session *s = NULL;

	*err = dt_session_open(path, &so, &s);
	return s;
}

/* Out of memory for name's samples: said once for all (a lookup that
 * failed is asked again, and would say it again), and at once, even
 * while prefetching: it is news for every binary. */
static enum dt_reason no_memory(struct dt_dsos *d, const char *name)
{
	struct dso *ahead = prefetching;

	prefetching = NULL;
	if (!d->oom_said)
		say(d, "out of memory opening '%s': its samples, and those of "
		    "any file that meets the same, count as no_memory", name);
	prefetching = ahead;
	d->oom_said = true;
	return DT_NO_MEMORY;
}

static void open_dso(struct dt_dsos *d, struct dso *e, const uint8_t *id,
		     size_t idlen)
{
	char *path = NULL, *alt;
	int err = 0;

	e->kernel = dt_dso_is_kernel(e->name);
	e->why = DT_NO_DSO;
	if (e->kernel) {
		path = d->o.vmlinux ? strdup(d->o.vmlinux) : dt_find_vmlinux();
		if (!path) {
			e->why = DT_NO_DEBUGINFO;
			say(d, "no vmlinux with debug info for '%s' (install linux-image-$(uname -r)-dbg, or name one): its samples count as no_debuginfo",
			    e->name);
			return;
		}
	} else if ((e->module = dt_dso_is_kmodule(e->name))) {
		path = dt_find_kmodule(e->name, d->o.debuginfo_path, d->o.vmlinux);
		if (!path && e->name[0] == '[') {
			say(d, "no file for kernel module '%s' (looked under "
			    "lib/modules/ of /usr/lib/debug, the debug directories "
			    "and /; install linux-image-$(uname -r)-dbg): its samples "
			    "count as no_dso", e->name);
			return;
		}
		if (!path && !(path = strdup(e->name))) {
			e->why = no_memory(d, e->name);
			return;
		}
	} else if (e->name[0] == '[') {
		return;		/* [vdso], [unknown], [anon]...: no file */
	} else {
		path = strdup(e->name);
		if (!path) {
			e->why = no_memory(d, e->name);
			return;
		}
	}
	e->session = open_file(d, path, NULL, &err);
	/* the recorded binary was replaced: perf's cache has the original */
	if (e->session && !e->kernel && !build_id_matches(e->session, id, idlen)) {
		dt_session_close(e->session);
		e->session = NULL;
		alt = buildid_cache_file(d, id, idlen, "/elf");
		if (!alt) {
			say(d, "'%s' is not the binary that was recorded (build-id differs) and perf's build-id cache has no copy: its samples count as no_dso",
			    e->name);
			free(path);
			return;
		}
		free(path);
		path = alt;
		e->session = open_file(d, path, NULL, &err);
		/* the cache is only a directory: what it holds is checked too */
		if (e->session && !build_id_matches(e->session, id, idlen)) {
			dt_session_close(e->session);
			e->session = NULL;
			say(d, "'%s' is not the binary that was recorded (build-id differs), and neither is perf's build-id cache copy '%s': its samples count as no_dso",
			    e->name, path);
			free(path);
			return;
		}
	}
	if (!e->session && err == -ENOMEM) {
		e->why = no_memory(d, path);
	} else if (!e->session) {
		say(d, "cannot open '%s': %s: its samples count as no_dso", path,
		    dt_strerror(err));
	} else if (!dt_session_has_debuginfo(e->session)) {
		/* perf keeps debuginfod downloads beside the binary: code
		 * from the binary, DWARF from there */
		const uint8_t *have;
		size_t m = dt_session_build_id(e->session, &have);
		alt = m ? buildid_cache_file(d, have, m, "/debug") : NULL;
		struct dt_session *s2 = alt ? open_file(d, path, alt, &err) : NULL;
		if (s2 && dt_session_has_debuginfo(s2)) {
			dt_session_close(e->session);
			e->session = s2;
		} else {
			dt_session_close(s2);
			uint64_t need, size;
			if (dt_session_split_dwarf(e->session))
				;	/* the session said why */
			else if (dt_session_truncated(e->session, &need, &size))
				say(d, "'%s' is truncated (%llu of %llu bytes): its "
				    "samples count as no_debuginfo", path,
				    (unsigned long long)size, (unsigned long long)need);
			else
				say(d, "'%s' has no debug info: its samples count "
				    "as no_debuginfo", path);
		}
		free(alt);
	}
	free(path);
}

/* The entry of name, NULL when none. */
static struct dso *find(struct dt_dsos *d, const char *name)
{
	/* callers may reuse one buffer for every name: compare contents */
	if (d->last && !strcmp(d->last->name, name))
		return d->last;
	uint32_t k = INDEX_FIND(d->slot, d->slots, hash_str(name), i,
				!strcmp(d->v[i].name, name));
	return k ? &d->v[k - 1] : NULL;
}

/* A new entry for name, opened (ahead: its messages kept); NULL when out
 * of memory (*why says so; not remembered: asked again next time). */
static struct dso *add(struct dt_dsos *d, const char *name,
		       const uint8_t *build_id, size_t id_len, bool ahead,
		       enum dt_reason *why)
{
	if (INDEX_READY(d->slot, d->slots, d->n, i, hash_str(d->v[i].name)) ||
	    GROW(d->v, d->cap, d->n, 16)) {
		*why = no_memory(d, name);
		return NULL;
	}
	d->last = NULL;		/* the array may have moved */
	struct dso *e = &d->v[d->n];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	if (!e->name) {
		*why = no_memory(d, name);
		return NULL;
	}
	d->n++;
	d->slot[INDEX_FREE(d->slot, d->slots, hash_str(name))] = (uint32_t)d->n;
	prefetching = ahead ? e : NULL;
	open_dso(d, e, build_id, id_len);
	prefetching = NULL;
	e->prefetched = ahead;
	return e;
}

void dt_dsos_prefetch(struct dt_dsos *d, const char *name,
		      const uint8_t *build_id, size_t id_len)
{
	enum dt_reason why;

	if (find(d, name) || id_len > sizeof(d->v->id))
		return;
	struct dso *e = add(d, name, build_id, id_len, true, &why);
	if (!e)
		return;
	memcpy(e->id, build_id, id_len);
	e->id_len = id_len;
}

struct dt_session *dt_dsos_get(struct dt_dsos *d, const char *name,
			       const uint8_t *build_id, size_t id_len,
			       enum dt_reason *why)
{
	struct dso *e = find(d, name);

	if (e && e->prefetched) {
		e->prefetched = false;
		if (id_len && (id_len != e->id_len || memcmp(build_id, e->id, id_len))) {
			/* perf names another build: open it for that one */
			dt_session_close(e->session);
			free(e->deferred);
			char *keep = e->name;
			memset(e, 0, sizeof(*e));
			e->name = keep;
			open_dso(d, e, build_id, id_len);
		} else if (e->deferred) {
			say_deferred(d, e);
		}
	}
	if (!e && !(e = add(d, name, build_id, id_len, false, why)))
		return NULL;
	d->last = e;
	*why = e->why;
	return e->session;
}

bool dt_dsos_answers_kept(const struct dt_dsos *d, const char *name,
			  const uint8_t *build_id, size_t id_len)
{
	if (dt_dso_is_kernel(name) && !d->o.vmlinux) {
		char *path = dt_find_vmlinux();
		if (!path)
			return true;	/* no session: nothing to name */
		free(path);
	}
	return (d->session.flags & DT_SESSION_KEEP_ANSWERS) &&
	       answer_store_kept(d->session.cache_dir, build_id, id_len);
}

bool dt_dsos_prepare(struct dt_dsos *d, size_t max_units)
{
	for (; d->prepared < d->n; d->prepared++) {
		struct dt_session *s = d->v[d->prepared].session;
		if (s && !dt_session_prepare(s, max_units))
			return false;
	}
	return true;
}

int dt_dsos_link_pc(struct dt_dsos *d, const char *name, uint64_t addr,
		    const char *sym, uint64_t symoff, uint64_t *pc)
{
	enum dt_reason why;
	struct dt_session *s = dt_dsos_get(d, name, NULL, 0, &why);
	struct dso *e = d->last;

	if (!s)
		return -ENOENT;
	/* a module, or a kernel address perf printed as symbol+offset
	 * alone (addr 0: a kmem: event's call_site) */
	if (e->module || (e->kernel && !addr)) {
		uint64_t start, size;
		if (!sym || dt_session_symbol_fit(s, sym, symoff, 0, &start, &size))
			return -ENOENT;
		*pc = start + symoff;
		return 0;
	}
	if (!e->kernel)
		return dt_session_addr_from_offset(s, addr, pc);
	/* KASLR moved the kernel: the symbol perf found tells by how much */
	if (!e->kaslr_known) {
		uint64_t start, size;
		if (!sym || dt_session_symbol(s, sym, &start, &size))
			return -ENOENT;
		e->kaslr = addr - symoff - start;
		e->kaslr_known = true;
	}
	*pc = addr - e->kaslr;
	return 0;
}
