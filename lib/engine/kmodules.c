// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Where a kernel module's file is, from perf's name for it: "[sch_fq]"
 * (a module perf found no file for) or the .ko path perf read.  Debian's
 * linux-image-*-dbg puts whole modules (code and DWARF) under
 * /usr/lib/debug/lib/modules/RELEASE/, at the path the stripped module
 * has under /lib/modules/RELEASE/; the debug trees come first, then the
 * module tree itself.  A module's file name may spell '_' as '-'
 * ("snd-hda-intel.ko" is perf's "[snd_hda_intel]").
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "../dtprof.h"
#include "internal.h"

#define MAX_DEPTH 8

/* perf's bracketed names that are not modules */
static const char *const not_modules[] = {
	"[vdso]", "[vdso32]", "[vdsox32]", "[vsyscall]", "[unknown]", "[anon]",
	"[heap]", "[stack]", "[uprobes]", "[guest.kernel.kallsyms]",
};

static size_t module_name_len(const char *name)
{
	size_t n = strlen(name);

	if (n < 3 || name[0] != '[' || name[n - 1] != ']' || dt_dso_is_kernel(name))
		return 0;
	for (size_t i = 0; i < sizeof(not_modules) / sizeof(not_modules[0]); i++)
		if (!strcmp(name, not_modules[i]))
			return 0;
	for (size_t i = 1; i + 1 < n; i++)
		if (!(name[i] == '_' || name[i] == '-' || (name[i] >= '0' && name[i] <= '9') ||
		      ((name[i] | 0x20) >= 'a' && (name[i] | 0x20) <= 'z')))
			return 0;
	return n - 2;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

bool dt_dso_is_kmodule(const char *name)
{
	return module_name_len(name) || ends_with(name, ".ko");
}

/* Whether file is module mod's ("mod.ko", '-' and '_' alike). */
static bool module_file(const char *file, const char *mod, size_t len)
{
	if (strlen(file) != len + 3 || strcmp(file + len, ".ko"))
		return false;
	for (size_t i = 0; i < len; i++) {
		char a = file[i] == '-' ? '_' : file[i];
		char b = mod[i] == '-' ? '_' : mod[i];
		if (a != b)
			return false;
	}
	return true;
}

/* Depth-first under dir: the regular file of module mod (symbolic links
 * are not followed: the build link leads to a source tree). */
static char *find_under(const char *dir, const char *mod, size_t len, int depth)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	char *hit = NULL;

	if (!dp)
		return NULL;
	while (!hit && (de = readdir(dp))) {
		char path[PATH_MAX];
		struct stat st;
		if (de->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path) ||
		    lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH)
			hit = find_under(path, mod, len, depth + 1);
		else if (S_ISREG(st.st_mode) && module_file(de->d_name, mod, len))
			hit = strdup(path);
	}
	closedir(dp);
	return hit;
}

/* The kernel release the modules belong to: the named vmlinux's
 * ("vmlinux-6.1.0-57-amd64"), else the running kernel's. */
static void kernel_release(const char *vmlinux, char *buf, size_t len)
{
	const char *base = vmlinux ? strrchr(vmlinux, '/') : NULL;
	struct utsname u;

	base = base ? base + 1 : vmlinux;
	if (base && !strncmp(base, "vmlinux-", 8) && base[8])
		snprintf(buf, len, "%s", base + 8);
	else
		snprintf(buf, len, "%s", uname(&u) ? "" : u.release);
}

/* Call fn on each absolute directory of libdwfl's search path (the debug
 * roots), then on "" (the root: /lib/modules itself); stops at the first
 * that returns a path. */
static char *each_root(const char *search_path, char *(*fn)(const char *root, void *arg),
		       void *arg)
{
	char *entries, *save = NULL, *hit = NULL;
	bool crc_check;
	char *path = debuginfo_path_split(search_path, &entries, &crc_check);

	for (char *e = path ? strtok_r(entries, ":", &save) : NULL; !hit && e;
	     e = strtok_r(NULL, ":", &save))
		if (*e == '/')
			hit = fn(e, arg);
	free(path);
	return hit ? hit : fn("", arg);
}

struct module_query {
	const char *mod;	/* perf's name without brackets, or the .ko path */
	size_t len;
	const char *release;
};

static char *in_root(const char *root, void *arg)
{
	const struct module_query *q = arg;
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat st;

	if (!q->len) {	/* a path perf read: the same path under the root */
		if (!*root || (size_t)snprintf(path, sizeof(path), "%s%s", root, q->mod) >= sizeof(path))
			return NULL;
		return !stat(path, &st) && S_ISREG(st.st_mode) ? strdup(path) : NULL;
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s/lib/modules/%s", root, q->release) >= sizeof(dir))
		return NULL;
	return find_under(dir, q->mod, q->len, 0);
}

char *dt_find_kmodule(const char *name, const char *search_path, const char *vmlinux)
{
	char release[256];
	size_t len = module_name_len(name);
	struct module_query q = { len ? name + 1 : name, len, release };

	kernel_release(vmlinux, release, sizeof(release));
	return each_root(search_path, in_root, &q);
}
