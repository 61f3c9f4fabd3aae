// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dtprof's own search for separate debug info (libdwfl's find_debuginfo
 * callback).  libdwfl's standard search opens whatever a .gnu_debuglink
 * names — "../../dev/zero" or a FIFO hangs it — and its build-id paths
 * are trusted as they are.  This one opens regular files only (never
 * blocking on a FIFO), never takes a debuglink name with a '/' (it stays
 * in the directories it was given), and takes a file only when its
 * build-id is the binary's, or, when either has none, its CRC is the
 * debuglink's.  A file the caller named (perf's build-id cache) is
 * checked the same way.
 *
 * The directories are libdwfl's debuginfo_path: ':'-separated; "" is the
 * binary's directory, a relative entry (".debug") is under it, an
 * absolute one is a root: ROOT/.build-id/xx/rest.debug by build-id, and
 * ROOT/<binary's directory>/NAME by debuglink.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"

#define DEFAULT_PATH ":.debug:/usr/lib/debug"

/* The CRC-32 of the whole file, as .gnu_debuglink records it. */
static bool file_crc(int fd, GElf_Word *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, (uInt)n);
	*crc = (GElf_Word)c;
	return n == 0 && lseek(fd, 0, SEEK_SET) == 0;
}

/* An open fd of path when it is a regular file with the binary's
 * build-id (id[0..idlen)); without a build-id on either side, with the
 * debuglink's CRC (when there is one).  -1 otherwise. */
int debuginfo_open_checked(const char *path, const void *id, int idlen,
			   bool have_crc, GElf_Word crc)
{
	return debuginfo_check_fd(open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK),
				  id, idlen, have_crc, crc);
}

int debuginfo_check_fd(int fd, const void *id, int idlen, bool have_crc,
		       GElf_Word crc)
{
	struct stat st;
	bool ok = false;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *have = NULL;
	ssize_t n = e ? dwelf_elf_gnu_build_id(e, &have) : -1;
	GElf_Word got;
	if (!e)
		ok = false;		/* not ELF */
	else if (idlen > 0 && n > 0)
		ok = n == idlen && !memcmp(have, id, (size_t)n);
	else if (have_crc)
		ok = file_crc(fd, &got) && got == crc;
	else
		ok = idlen <= 0;	/* nothing to check either way */
	elf_end(e);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

bool build_id_path(char *buf, size_t len, const char *root, const void *id,
		   size_t n, const char *suffix)
{
	const unsigned char *b = id;
	size_t used;
	int k;

	if (!n || n > 64)
		return false;
	k = snprintf(buf, len, "%s/.build-id/%02x/", root, b[0]);
	if (k < 0 || (size_t)k >= len)
		return false;
	used = (size_t)k;
	for (size_t i = 1; i < n && used + 3 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%02x", b[i]);
	k = snprintf(buf + used, len - used, "%s", suffix);
	return k >= 0 && used + (size_t)k < len;
}

/* Try one candidate; on success *found is its path (malloc'd). */
static int try_path(const char *path, const void *id, int idlen, bool have_crc,
		    GElf_Word crc, char **found)
{
	int fd = debuginfo_open_checked(path, id, idlen, have_crc, crc);

	if (fd >= 0 && !(*found = strdup(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

char *debuginfo_path_split(const char *search_path, char **entries,
			   bool *crc_check)
{
	char *path = strdup(search_path && *search_path ? search_path : DEFAULT_PATH);
	char *p = path;

	*crc_check = true;
	while (p && (*p == '-' || *p == '+'))
		*crc_check = *p++ != '-';
	*entries = p;
	return path;
}

int debuginfo_search(const char *file_name, const char *search_path,
		     const void *id, int idlen, const char *debuglink,
		     GElf_Word crc, char **found)
{
	char dir[PATH_MAX], cand[PATH_MAX * 2];
	char *p;
	bool crc_check;
	char *path = debuginfo_path_split(search_path, &p, &crc_check);
	const char *slash = file_name ? strrchr(file_name, '/') : NULL;
	int fd = -1;

	*found = NULL;
	if (!path)
		return -1;
	char rel[PATH_MAX];
	if (slash)
		snprintf(rel, sizeof(rel), "%.*s", (int)(slash - file_name), file_name);
	else
		snprintf(rel, sizeof(rel), ".");
	/* roots hold the binary's absolute directory */
	if (!realpath(rel, dir))
		snprintf(dir, sizeof(dir), "%s", rel);
	/* a debuglink that names another directory is not followed */
	if (debuglink && (strchr(debuglink, '/') || !*debuglink))
		debuglink = NULL;
	for (char *save = NULL, *e = strtok_r(p, ":", &save); fd < 0 && e;
	     e = strtok_r(NULL, ":", &save)) {
		/* a root: by build-id */
		if (*e == '/' && idlen > 0 &&
		    build_id_path(cand, sizeof(cand), e, id, (size_t)idlen, ".debug"))
			fd = try_path(cand, id, idlen, false, 0, found);
		if (fd >= 0 || !debuglink)
			continue;
		int n = *e == '/' ? snprintf(cand, sizeof(cand), "%s%s/%s", e, dir, debuglink) :
			snprintf(cand, sizeof(cand), "%s/%s/%s", dir, e, debuglink);
		if (n > 0 && (size_t)n < sizeof(cand) &&
		    (!file_name || strcmp(cand, file_name)))	/* not itself */
			fd = try_path(cand, id, idlen, crc_check, crc, found);
	}
	/* the debug file where there is only one directory: beside it */
	if (fd < 0 && debuglink) {
		int n = snprintf(cand, sizeof(cand), "%s/%s", dir, debuglink);
		if (n > 0 && (size_t)n < sizeof(cand) && (!file_name || strcmp(cand, file_name)))
			fd = try_path(cand, id, idlen, crc_check, crc, found);
	}
	free(path);
	return fd;
}
