// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Decompressed copies of separate debug files, by build-id.  Debian's
 * -dbg packages ship their DWARF zlib-compressed (SHF_COMPRESSED), and
 * libdw inflates every debug section when it opens the file: 10 MB for
 * libc, most of a short profile's time.  Once a session has opened such a
 * file, the sections libdw inflated are written out as a plain ELF file
 * in the cache; later sessions open that copy (its build-id checked like
 * any debug file's) and read the sections straight from the page cache.
 *
 * The cache is $DTPROF_CACHE_DIR, else $XDG_CACHE_HOME/dtprof, else
 * ~/.cache/dtprof; DTPROF_NO_CACHE=1 turns it off.  Every failure here
 * only means no copy: the answers are the same either way.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* Larger debug files (a kernel's) are not copied: the copy would cost
 * more disk than the inflating costs time. */
#define MAX_COPY_SIZE (512ull << 20)

/* The cache directory into buf; false when off or unknown. */
static bool cache_dir(char *buf, size_t len)
{
	const char *off = getenv("DTPROF_NO_CACHE");
	const char *dir = getenv("DTPROF_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (off && *off && strcmp(off, "0"))
		return false;
	if (dir && *dir)
		n = snprintf(buf, len, "%s", dir);
	else if (xdg && *xdg == '/')
		n = snprintf(buf, len, "%s/dtprof", xdg);
	else if (home && *home == '/')
		n = snprintf(buf, len, "%s/.cache/dtprof", home);
	else
		return false;
	return n > 0 && (size_t)n < len;
}

/* DIR/<build-id in hex>.debug into buf. */
static bool copy_path(char *buf, size_t len, const void *id, int idlen)
{
	char dir[PATH_MAX];
	const unsigned char *b = id;
	size_t used;

	if (idlen <= 0 || idlen > 64 || !cache_dir(dir, sizeof(dir)))
		return false;
	int n = snprintf(buf, len, "%s/", dir);
	if (n < 0 || (size_t)n >= len)
		return false;
	used = (size_t)n;
	for (int i = 0; i < idlen && used + 3 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%02x", b[i]);
	n = snprintf(buf + used, len - used, ".debug");
	return n > 0 && used + (size_t)n < len;
}

/* Whether the file holds all it says it does: its section header table
 * and every section with contents (a copy cut short on disk is not used;
 * the next session that inflates the debug file replaces it). */
static bool whole(int fd)
{
	struct stat st;
	GElf_Ehdr eh;
	size_t shnum;
	bool ok;

	if (fstat(fd, &st))
		return false;
	uint64_t size = (uint64_t)st.st_size;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = e && gelf_getehdr(e, &eh) && !elf_getshdrnum(e, &shnum) &&
	     eh.e_shoff + (uint64_t)shnum * eh.e_shentsize <= size;
	for (Elf_Scn *scn = NULL; ok && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		ok = gelf_getshdr(scn, &sh) &&
		     (sh.sh_type == SHT_NOBITS ||
		      (sh.sh_offset <= size && sh.sh_size <= size - sh.sh_offset));
	}
	elf_end(e);
	return ok;
}

int debugcache_open(const void *id, int idlen, char **found)
{
	char path[PATH_MAX];
	int fd;

	*found = NULL;
	if (!copy_path(path, sizeof(path), id, idlen))
		return -1;
	fd = debuginfo_open_checked(path, id, idlen, false, 0);
	if (fd >= 0 && (!whole(fd) || !(*found = strdup(path)))) {
		close(fd);
		return -1;
	}
	return fd;
}

bool debugcache_wanted(int fd, const void *id, int idlen)
{
	char path[PATH_MAX];
	bool compressed = false;
	size_t shstrndx;

	if (!copy_path(path, sizeof(path), id, idlen))
		return false;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_getshdrstrndx(e, &shstrndx)) {
		elf_end(e);
		return false;
	}
	for (Elf_Scn *scn = NULL; !compressed && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		const char *name;
		compressed = gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
			     (name = elf_strptr(e, shstrndx, sh.sh_name)) &&
			     !strncmp(name, ".debug_", 7);
	}
	elf_end(e);
	return compressed;
}

static size_t align_up(size_t off, uint64_t align)
{
	return align > 1 ? (off + align - 1) / align * align : off;
}

/* in's sections (as libdw left them: inflated) into out, laid out one
 * after the other past the headers; its program headers too, a note's
 * offset moved with the section it pointed at (the build-id is read from
 * PT_NOTE).  false when anything fails. */
static bool copy_elf(Elf *in, Elf *out)
{
	GElf_Ehdr eh;
	size_t phnum, shnum, shstrndx;

	if (!gelf_getehdr(in, &eh) || elf_getphdrnum(in, &phnum) ||
	    elf_getshdrnum(in, &shnum) || elf_getshdrstrndx(in, &shstrndx) ||
	    shnum >= SHN_LORESERVE || shstrndx >= SHN_LORESERVE ||
	    !gelf_newehdr(out, gelf_getclass(in)) || (phnum && !gelf_newphdr(out, phnum)))
		return false;
	int class = gelf_getclass(in);
	size_t off = gelf_fsize(in, ELF_T_EHDR, 1, EV_CURRENT) +
		     gelf_fsize(in, ELF_T_PHDR, phnum, EV_CURRENT);
	uint64_t *old_off = calloc(shnum ? shnum : 1, sizeof(*old_off));
	uint64_t *new_off = calloc(shnum ? shnum : 1, sizeof(*new_off));
	bool ok = old_off && new_off && class != ELFCLASSNONE;

	for (size_t i = 1; ok && i < shnum; i++) {
		Elf_Scn *from = elf_getscn(in, i), *to = elf_newscn(out);
		GElf_Shdr sh;
		Elf_Data *d = NULL;
		ok = from && to && gelf_getshdr(from, &sh);
		old_off[i] = ok && sh.sh_type != SHT_NOBITS ? sh.sh_offset : UINT64_MAX;
		if (ok && sh.sh_type != SHT_NOBITS) {
			/* one data of the whole section: what libdw read */
			Elf_Data *src = elf_getdata(from, NULL);
			ok = src && !elf_getdata(from, src) && (d = elf_newdata(to));
			if (ok) {
				*d = *src;
				sh.sh_size = src->d_size;
			}
		}
		if (!ok)
			break;
		off = align_up(off, sh.sh_addralign);
		sh.sh_offset = new_off[i] = off;
		if (sh.sh_type != SHT_NOBITS)
			off += sh.sh_size;
		ok = gelf_update_shdr(to, &sh);
	}
	for (size_t i = 0; ok && i < phnum; i++) {
		GElf_Phdr ph;
		ok = gelf_getphdr(in, (int)i, &ph);
		for (size_t k = 1; ok && k < shnum; k++)
			if (ph.p_type == PT_NOTE && old_off[k] == ph.p_offset) {
				ph.p_offset = new_off[k];
				break;
			}
		ok = ok && gelf_update_phdr(out, (int)i, &ph);
	}
	if (ok) {
		eh.e_phoff = phnum ? gelf_fsize(in, ELF_T_EHDR, 1, EV_CURRENT) : 0;
		eh.e_shoff = align_up(off, class == ELFCLASS64 ? 8 : 4);
		eh.e_shstrndx = (GElf_Half)shstrndx;
		ok = gelf_update_ehdr(out, &eh) &&
		     elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT) &&
		     elf_update(out, ELF_C_WRITE) > 0;
	}
	free(old_off);
	free(new_off);
	return ok;
}

bool debugcache_store(Elf *debug, const void *id, int idlen)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16], dir[PATH_MAX];
	size_t size = 0;

	if (!debug || !copy_path(path, sizeof(path), id, idlen) ||
	    !cache_dir(dir, sizeof(dir)))
		return false;
	elf_rawfile(debug, &size);
	if (size > MAX_COPY_SIZE)
		return false;
	/* the directory and its parent (~/.cache) may not exist yet */
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
		*slash = '/';
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return false;
	int n = snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return false;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	bool ok = out && copy_elf(debug, out);
	elf_end(out);
	ok = !close(fd) && ok;
	/* another process may have stored the same copy meanwhile: either
	 * one is right */
	if (!ok || rename(tmp, path)) {
		unlink(tmp);
		return false;
	}
	return true;
}
