// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Decompressed copies of separate debug files, by build-id, in a tree
 * laid out as /usr/lib/debug's (DIR/.build-id/xx/rest.debug).  Debian's
 * -dbg packages ship their DWARF zlib-compressed (SHF_COMPRESSED), and
 * libdw inflates every debug section when it opens the file: 10 MB for
 * libc, most of a short profile's time.  Once a session has opened such a
 * file, the sections libdw inflated are written out as a plain ELF file
 * in the cache; later sessions open that copy (its build-id checked like
 * any debug file's) and read the sections straight from the page cache.
 *
 * The cache is the directory the host names (dt_session_opts.cache_dir;
 * the front ends: $DTPROF_CACHE_DIR, else $XDG_CACHE_HOME/dtprof, else
 * ~/.cache/dtprof); none, none is read or written.  Every failure here
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

/* The cache directory root into buf; false when there is none (the
 * host gave no directory: dt_session_opts.cache_dir). */
static bool cache_dir(const char *root, char *buf, size_t len)
{
	int n;

	if (!root || !*root)
		return false;
	n = snprintf(buf, len, "%s", root);
	return n > 0 && (size_t)n < len;
}

/* The cache is walked from a checked directory fd, never by path: a
 * symbolic link or a directory of another user's inside the tree (say
 * .build-id/93 pointing elsewhere) could otherwise send a copy, written
 * as whoever runs dtprof, anywhere.  Directories are made 0700, files
 * 0600. */

/* fd when it is a directory of this user's, else -EPERM (fd closed);
 * -errno for a failed open. */
static int own_dir(int fd)
{
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* dir's entry name as a directory fd: made when missing (with create),
 * opened without following a symlink (ELOOP, ENOTDIR), and only when
 * owned by this user (EPERM).  -errno otherwise. */
static int open_subdir(int dir, const char *name, bool create)
{
	if (create && mkdirat(dir, name, 0700) && errno != EEXIST)
		return -errno;
	return own_dir(openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

/* The path's directories made where missing, the last of them (the
 * cache itself) owned by this user. */
static int open_root(const char *root, bool create)
{
	char dir[PATH_MAX];
	int n = snprintf(dir, sizeof(dir), "%s/", root);

	if (n <= 0 || (size_t)n >= sizeof(dir))
		return -ENAMETOOLONG;
	/* the cache's parents (~/.cache) are the user's to link elsewhere */
	for (char *slash = dir + 1; create && (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -errno;
		*slash = '/';
	}
	return own_dir(open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

/* The directory fd of the copy of build-id id (CACHE/.build-id/xx) and
 * the copy's name there (rest.debug) in name; -ENOENT when there is no
 * cache or build-id, -errno when a directory on the way cannot be made
 * or opened, or is not this user's own (-EPERM). */
static int named_dir(const char *cache, const void *id, int idlen, bool create,
		     const char *suffix, char *name, size_t len)
{
	char root[PATH_MAX], xx[3];
	const unsigned char *b = id;

	if (idlen <= 1 || !cache_dir(cache, root, sizeof(root)) ||
	    !build_id_path(name, len, "", id, (size_t)idlen, suffix))
		return -ENOENT;
	/* build_id_path made "/.build-id/xx/rest.debug": keep the leaf */
	memmove(name, name + sizeof("/.build-id/xx/") - 1,
		strlen(name + sizeof("/.build-id/xx/") - 1) + 1);
	snprintf(xx, sizeof(xx), "%02x", b[0]);
	int top = open_root(root, create);
	int ids = top >= 0 ? open_subdir(top, ".build-id", create) : top;
	int fd = ids >= 0 ? open_subdir(ids, xx, create) : ids;
	if (top >= 0)
		close(top);
	if (ids >= 0)
		close(ids);
	return fd;
}

static int copy_dir(const char *cache, const void *id, int idlen, bool create,
		    char *name, size_t len)
{
	return named_dir(cache, id, idlen, create, ".debug", name, len);
}

int debugcache_open_named(const char *cache, const void *id, int idlen,
			  const char *suffix)
{
	char name[PATH_MAX];
	struct stat st;
	int dir = named_dir(cache, id, idlen, false, suffix, name, sizeof(name));

	if (dir < 0)
		return -1;
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	close(dir);
	if (fd >= 0 && (fstat(fd, &st) || st.st_uid != geteuid() || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}


/* CACHE/.build-id/xx/rest.debug into buf: for messages and libdwfl. */
static bool copy_path(const char *cache, char *buf, size_t len, const void *id,
		      int idlen)
{
	char dir[PATH_MAX];

	return idlen > 0 && cache_dir(cache, dir, sizeof(dir)) &&
	       build_id_path(buf, len, dir, id, (size_t)idlen, ".debug");
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

int debugcache_open(const char *cache, const void *id, int idlen, char **found)
{
	char path[PATH_MAX], name[PATH_MAX];
	struct stat st;
	int dir, fd;

	*found = NULL;
	if (!copy_path(cache, path, sizeof(path), id, idlen) ||
	    (dir = copy_dir(cache, id, idlen, false, name, sizeof(name))) < 0)
		return -1;
	fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	close(dir);
	if (fd >= 0 && (fstat(fd, &st) || st.st_uid != geteuid())) {
		close(fd);
		return -1;
	}
	fd = debuginfo_check_fd(fd, id, idlen, false, 0);
	if (fd >= 0 && (!whole(fd) || !(*found = strdup(path)))) {
		close(fd);
		return -1;
	}
	return fd;
}

bool debugcache_wanted(const char *cache, int fd, const void *id, int idlen)
{
	char path[PATH_MAX];
	bool compressed = false;
	size_t shstrndx;

	if (!copy_path(cache, path, sizeof(path), id, idlen))
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

/* len bytes of buf at off in fd. */
static bool put(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return true;
}

static bool put_shdr(int fd, bool is64, const GElf_Shdr *h, uint64_t off)
{
	if (is64) {
		Elf64_Shdr x = { h->sh_name, h->sh_type, h->sh_flags, h->sh_addr,
				 h->sh_offset, h->sh_size, h->sh_link, h->sh_info,
				 h->sh_addralign, h->sh_entsize };
		return put(fd, &x, sizeof(x), off);
	}
	Elf32_Shdr x = { h->sh_name, h->sh_type, (Elf32_Word)h->sh_flags,
			 (Elf32_Addr)h->sh_addr, (Elf32_Off)h->sh_offset,
			 (Elf32_Word)h->sh_size, h->sh_link, h->sh_info,
			 (Elf32_Word)h->sh_addralign, (Elf32_Word)h->sh_entsize };
	return put(fd, &x, sizeof(x), off);
}

static bool put_phdr(int fd, bool is64, const GElf_Phdr *h, uint64_t off)
{
	if (is64) {
		Elf64_Phdr x = { h->p_type, h->p_flags, h->p_offset, h->p_vaddr,
				 h->p_paddr, h->p_filesz, h->p_memsz, h->p_align };
		return put(fd, &x, sizeof(x), off);
	}
	Elf32_Phdr x = { h->p_type, (Elf32_Off)h->p_offset, (Elf32_Addr)h->p_vaddr,
			 (Elf32_Addr)h->p_paddr, (Elf32_Word)h->p_filesz,
			 (Elf32_Word)h->p_memsz, h->p_flags, (Elf32_Word)h->p_align };
	return put(fd, &x, sizeof(x), off);
}

static bool put_ehdr(int fd, bool is64, const GElf_Ehdr *h)
{
	if (is64) {
		Elf64_Ehdr x = { .e_type = h->e_type, .e_machine = h->e_machine,
				 .e_version = h->e_version, .e_entry = h->e_entry,
				 .e_phoff = h->e_phoff, .e_shoff = h->e_shoff,
				 .e_flags = h->e_flags, .e_ehsize = sizeof(x),
				 .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = h->e_phnum,
				 .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = h->e_shnum,
				 .e_shstrndx = h->e_shstrndx };
		memcpy(x.e_ident, h->e_ident, EI_NIDENT);
		return put(fd, &x, sizeof(x), 0);
	}
	Elf32_Ehdr x = { .e_type = h->e_type, .e_machine = h->e_machine,
			 .e_version = h->e_version, .e_entry = (Elf32_Addr)h->e_entry,
			 .e_phoff = (Elf32_Off)h->e_phoff, .e_shoff = (Elf32_Off)h->e_shoff,
			 .e_flags = h->e_flags, .e_ehsize = sizeof(x),
			 .e_phentsize = sizeof(Elf32_Phdr), .e_phnum = h->e_phnum,
			 .e_shentsize = sizeof(Elf32_Shdr), .e_shnum = h->e_shnum,
			 .e_shstrndx = h->e_shstrndx };
	memcpy(x.e_ident, h->e_ident, EI_NIDENT);
	return put(fd, &x, sizeof(x), 0);
}

/* in's sections (as libdw left them: inflated) to fd, laid out one after
 * the other past the headers, and its program headers, a note's offset
 * moved with the section it pointed at (the build-id is read from
 * PT_NOTE).  Written by hand, not through libelf's writer, which crashes
 * when an allocation fails; the host's byte order only (the headers in
 * memory are then the file's).  false when anything fails. */
static bool copy_elf(Elf *in, int fd)
{
	GElf_Ehdr eh;
	size_t phnum, shnum, shstrndx;
	const unsigned char host = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				   ELFDATA2LSB : ELFDATA2MSB;

	if (!gelf_getehdr(in, &eh) || eh.e_ident[EI_DATA] != host ||
	    (eh.e_ident[EI_CLASS] != ELFCLASS64 && eh.e_ident[EI_CLASS] != ELFCLASS32) ||
	    elf_getphdrnum(in, &phnum) || elf_getshdrnum(in, &shnum) ||
	    elf_getshdrstrndx(in, &shstrndx) || !shnum || phnum >= PN_XNUM ||
	    shnum >= SHN_LORESERVE || shstrndx >= SHN_LORESERVE)
		return false;
	bool is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	size_t ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t phsize = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t shsize = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	GElf_Shdr *sh = calloc(shnum, sizeof(*sh));
	uint64_t *old_off = calloc(shnum, sizeof(*old_off));
	uint64_t off = ehsize + phnum * phsize;
	bool ok = sh && old_off;

	for (size_t i = 1; ok && i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(in, i);
		Elf_Data *d = NULL;
		ok = scn && gelf_getshdr(scn, &sh[i]);
		if (!ok)
			break;
		old_off[i] = sh[i].sh_type == SHT_NOBITS ? UINT64_MAX : sh[i].sh_offset;
		off = align_up(off, sh[i].sh_addralign);
		sh[i].sh_offset = off;
		if (sh[i].sh_type == SHT_NOBITS)
			continue;
		/* the file's bytes, or what libdw inflated them to */
		d = elf_rawdata(scn, NULL);
		ok = d && d->d_size == sh[i].sh_size &&
		     (!d->d_size || (d->d_buf && put(fd, d->d_buf, d->d_size, off)));
		off += sh[i].sh_size;
	}
	for (size_t i = 0; ok && i < phnum; i++) {
		GElf_Phdr ph;
		ok = gelf_getphdr(in, (int)i, &ph);
		for (size_t k = 1; ok && ph.p_type == PT_NOTE && k < shnum; k++)
			if (old_off[k] == ph.p_offset) {
				ph.p_offset = sh[k].sh_offset;
				break;
			}
		ok = ok && put_phdr(fd, is64, &ph, ehsize + i * phsize);
	}
	eh.e_phoff = phnum ? ehsize : 0;
	eh.e_phnum = (GElf_Half)phnum;
	eh.e_shoff = align_up(off, is64 ? 8 : 4);
	eh.e_shnum = (GElf_Half)shnum;
	eh.e_shstrndx = (GElf_Half)shstrndx;
	for (size_t i = 0; ok && i < shnum; i++)
		ok = put_shdr(fd, is64, &sh[i], eh.e_shoff + i * shsize);
	ok = ok && put_ehdr(fd, is64, &eh);
	free(sh);
	free(old_off);
	return ok;
}

/* CACHE/.build-id/xx/rest<suffix> written whole by write(fd, arg) into a
 * file of its own, then renamed into place: a reader sees the old file
 * or the new one, never a part.  0 or -errno (-ENOENT: no cache or
 * build-id; -EPERM: a directory on the way that is not ours). */
static int store_whole(const char *cache, const void *id, int idlen, const char *suffix,
		       bool (*write_all)(int fd, void *arg), void *arg)
{
	char name[PATH_MAX], tmp[PATH_MAX + 32];
	int dir = named_dir(cache, id, idlen, true, suffix, name, sizeof(name));

	if (dir < 0)
		return dir;
	int n = snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", name, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		close(dir);
		return -ENAMETOOLONG;
	}
	int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600);
	if (fd < 0) {
		n = -errno;
		close(dir);
		return n;
	}
	errno = 0;
	bool ok = write_all(fd, arg);
	int err = ok ? 0 : errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	/* another process may have stored the same meanwhile: either one
	 * is right; rename replaces a symlink, never follows it */
	if (!err && renameat(dir, tmp, dir, name))
		err = -errno;
	if (err)
		unlinkat(dir, tmp, 0);
	close(dir);
	return err;
}

static bool write_copy(int fd, void *arg)
{
	return copy_elf(arg, fd);
}

int debugcache_store(const char *cache, Elf *debug, const void *id, int idlen)
{
	size_t size = 0;

	if (!debug)
		return -ENOENT;
	elf_rawfile(debug, &size);
	if (size > MAX_COPY_SIZE)
		return -EFBIG;
	return store_whole(cache, id, idlen, ".debug", write_copy, debug);
}

struct bytes {
	const char *p;
	size_t len;
};

static bool write_bytes(int fd, void *arg)
{
	struct bytes *b = arg;

	while (b->len) {
		ssize_t w = write(fd, b->p, b->len);
		if (w < 0 && errno != EINTR)
			return false;
		if (w > 0) {
			b->p += w;
			b->len -= (size_t)w;
		}
	}
	return true;
}

int debugcache_store_bytes(const char *cache, const void *id, int idlen,
			   const char *suffix, const void *buf, size_t len)
{
	struct bytes b = { buf, len };

	return store_whole(cache, id, idlen, suffix, write_bytes, &b);
}
