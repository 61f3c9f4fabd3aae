// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A session is one binary: its ELF image (for instruction bytes), its
 * DWARF found through libdwfl (separate debug info included), the decoder
 * for its architecture, and the caches every answer lives in.
 */
#define _GNU_SOURCE	/* strverscmp */
#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../arrays.h"
#include "internal.h"

struct load_segment {
	uint64_t vaddr, filesz, offset;
	uint8_t *bytes;		/* relocated (relocatable files), else NULL:
				 * the file's bytes at offset */
};

struct session_priv {
	struct dt_session pub;
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	char *debuginfo_file;
	struct load_segment *segs;
	size_t nsegs;
	struct named_symbol *names;	/* dt_session_symbol(), built lazily */
	size_t nnames, names_cap;
	bool names_loaded;
	/* dt_session_symbol_at(): every symbol's start, sorted (built
	 * lazily), and the last symbol found when no other starts inside
	 * it, which then answers any pc in it without asking libdwfl again */
	uint64_t *starts;
	size_t nstarts;
	bool starts_loaded;
	/* and the symbols libdwfl gives for every pc of theirs whatever
	 * the table's order (symbol_alone()), sorted: the rest is asked */
	struct sym_span *alone;
	size_t nalone;
	struct {
		const char *name;
		uint64_t start, size;
	} last_sym;
	/* every defined symbol's start and end, sorted: between two of
	 * them, in one section, libdwfl's linear search meets the same
	 * symbols with the same result (the last such gap asked, with its
	 * answer: name NULL for none) */
	uint64_t *bounds;
	size_t nbounds;
	struct {
		uint64_t lo, hi;
		const char *name;
		uint64_t start, size;
	} gap;
	uint64_t tls_get_addr[2];	/* its PLT stub, and itself (static) */
	bool tls_get_addr_looked;
	uint64_t need;			/* file size the ELF headers imply */
	unsigned flags;			/* dt_session_opts.flags */
	char *cache_dir;		/* dt_session_opts.cache_dir, or NULL */
	bool copy_to_cache;		/* the debug file found has compressed
					 * DWARF: once libdw has inflated it,
					 * a copy goes to the cache */
	Dwarf **splits;			/* .dwo handles met (libdw owns them) */
	size_t nsplits, splits_cap;
	/* skeleton units whose split files were checked (split_files_safe)
	 * and found: libdw keeps the link, no file is opened again */
	uint64_t *linked;
	size_t nlinked, linked_cap;
	uint32_t *linked_slot;
	size_t linked_slots;
	/* where instructions are: the executable sections (else segments),
	 * link-time [lo, hi); none known: anywhere in a segment */
	struct code_range { uint64_t lo, hi; } *code;
	size_t ncode;
};

static struct session_priv *priv(const struct dt_session *s)
{
	return (struct session_priv *)s;
}

const char *dt_strerror(int err)
{
	switch (-err) {
	case 0: return "success";
	case DT_ERR_NOT_ELF: return "not an ELF file";
	case DT_ERR_ARCH: return "unsupported architecture";
	case DT_ERR_DWFL: return "corrupt or truncated ELF file";
	case DT_ERR_OPTS: return "unknown session options";
	case DT_ERR_NOT_FILE: return "not a regular file";
	default:
		return err < 0 && -err < DT_ERR_BASE ? strerror(-err) :
		       "unknown error";
	}
}

static void session_vlog(const struct dt_session *s, const char *fmt,
			 va_list ap) __attribute__((format(printf, 2, 0)));
static void session_vlog(const struct dt_session *s, const char *fmt,
			 va_list ap)
{
	char buf[4608];		/* a path of PATH_MAX and a sentence */

	vsnprintf(buf, sizeof(buf), fmt, ap);
	s->log(s->log_arg, buf);
}

void session_debug(const struct dt_session *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->debug || !s->log)
		return;
	va_start(ap, fmt);
	session_vlog(s, fmt, ap);
	va_end(ap);
}

void session_warn(const struct dt_session *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->log)
		return;
	va_start(ap, fmt);
	session_vlog(s, fmt, ap);
	va_end(ap);
}

const char *session_intern_raw(struct dt_session *s, const char *str)
{
	const char *p = str ? strtab_intern(&s->strings, str, strlen(str)) : NULL;
	return p ? p : "";
}

static const char *intern_escaped(struct dt_session *s, const char *str,
				  bool keep_layout)
{
	char small[256], *big = NULL, *e = small;
	size_t n = text_escape(str, small, sizeof(small), keep_layout);

	if (n >= sizeof(small)) {
		if (!(big = malloc(n + 1)))
			return "";
		text_escape(str, big, n + 1, keep_layout);
		e = big;
	}
	const char *p = session_intern_raw(s, e);
	free(big);
	return p;
}

const char *session_intern(struct dt_session *s, const char *str)
{
	/* nearly every name is safe: looked at once, interned as it is */
	return !str || dt_text_is_safe(str) ? session_intern_raw(s, str) :
	       intern_escaped(s, str, false);
}

const char *session_intern_lines(struct dt_session *s, const char *str)
{
	return !str ? "" : intern_escaped(s, str, true);
}

/* Cheap checks before libdwfl, so "no such file" and "not ELF" are told
 * apart from a corrupt ELF. */
/* Open path for libdwfl: a regular file (a FIFO or a device would block
 * or never end: O_NONBLOCK until fstat says what it is) with the ELF
 * magic.  The descriptor, or -errno / -DT_ERR_*. */
static int open_elf_file(const char *path)
{
	unsigned char magic[4];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -DT_ERR_NOT_FILE;
	}
	ssize_t n = pread(fd, magic, sizeof(magic), 0);
	int err = n < 0 ? -errno : n != 4 || memcmp(magic, ELFMAG, SELFMAG) ?
		  -DT_ERR_NOT_ELF : 0;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* The bytes the ELF headers say the file holds: the section header table
 * and every segment's file image.  A truncated file is shorter. */
static uint64_t file_extent(Elf *elf, const GElf_Ehdr *eh)
{
	uint64_t need = eh->e_shoff ? eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize : 0;
	size_t n;

	if (elf_getphdrnum(elf, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) &&
			    ph.p_offset + ph.p_filesz > need)
				need = ph.p_offset + ph.p_filesz;
		}
	return need;
}

bool dt_session_truncated(const struct dt_session *s, uint64_t *need,
			  uint64_t *have)
{
	const struct session_priv *p = priv(s);

	*need = p->need;
	*have = s->image_size;
	return p->need > s->image_size;
}

/* elf's section named name (the first), with its header in *sh; NULL. */
/* A Linux kernel (vmlinux, and x86-64 modules do not have one) links its
 * per-CPU variables from address 0 in .data..percpu; each CPU's copy is
 * at its own base (%gs on x86-64), so "%gs:0x1a0" is offset 0x1a0 of that
 * area.  Its size, or 0 when there is no such section. */
static uint64_t percpu_area_size(Elf *elf)
{
	GElf_Shdr sh;

	return section_named(elf, PERCPU_SECTION, &sh) && (sh.sh_flags & SHF_ALLOC) &&
	       sh.sh_addr == 0 ? sh.sh_size : 0;
}

/* A relocatable file (.o, .ko) has no segments: its allocated sections
 * at the addresses libdwfl gave them, relocated (relocs.c). */
static int read_sections(struct session_priv *p)
{
	struct dt_session *s = &p->pub;
	Elf_Scn *scn = NULL;
	size_t n, missed = 0;

	s->relocatable = true;	/* no code from elsewhere: it is unrelocated */
	if (!s->arch->apply_reloc) {
		session_warn(s, "'%s': relocatable %s files are not read (their "
			     "relocations are not applied): its samples count as "
			     "no_insn", s->path, s->arch->name);
		return 0;
	}
	if (elf_getshdrnum(s->elf, &n))
		return 0;
	p->segs = calloc(n ? n : 1, sizeof(*p->segs));
	if (!p->segs)
		return -ENOMEM;
	uint64_t nowhere = reloc_nowhere(s->elf);
	s->externs = reloc_externs_new(nowhere);
	/* copies of the sections, then each relocation section applied to
	 * its target's copy (one pass: a file may have 65,535 sections) */
	uint32_t *seg_of = calloc(n ? n : 1, sizeof(*seg_of));	/* 0: none */
	if (!seg_of)
		return -ENOMEM;
	while ((scn = elf_nextscn(s->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || !sh.sh_size ||
		    sh.sh_offset > s->image_size || sh.sh_size > s->image_size - sh.sh_offset)
			continue;
		uint8_t *copy = malloc(sh.sh_size);
		if (!copy) {
			free(seg_of);
			return -ENOMEM;
		}
		memcpy(copy, s->image + sh.sh_offset, sh.sh_size);
		p->segs[p->nsegs++] = (struct load_segment){
			sh.sh_addr, sh.sh_size, sh.sh_offset, copy };
		seg_of[elf_ndxscn(scn)] = (uint32_t)p->nsegs;
	}
	while ((scn = elf_nextscn(s->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) ||
		    sh.sh_info >= n || !seg_of[sh.sh_info])
			continue;
		struct load_segment *g = &p->segs[seg_of[sh.sh_info] - 1];
		missed += reloc_apply(s->elf, s->arch, scn, g->bytes, g->filesz,
				      g->vaddr, nowhere, s->externs);
	}
	free(seg_of);
	session_debug(s, "relocatable: %zu sections, nowhere %#llx, %zu relocations not applied",
		      p->nsegs, (unsigned long long)nowhere, missed);
	if (missed)
		session_warn(s, "'%s': %zu relocations of its code are of types "
			     "dtprof does not apply: the accesses they touch may be "
			     "unknown", s->path, missed);
	return 0;
}

/* The executable sections (SHF_EXECINSTR), or without section headers
 * the executable segments (PF_X): an address elsewhere (the ELF header,
 * .rodata, .data) holds no instruction, whatever its bytes decode to.
 * 0 or -ENOMEM. */
static int read_code_ranges(struct session_priv *p)
{
	Elf *elf = p->pub.elf;
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		if (GROW(p->code, cap, n, 8))
			return -ENOMEM;
		p->code[n++] = (struct code_range){ sh.sh_addr, sh.sh_addr + sh.sh_size };
	}
	if (!n && !elf_getphdrnum(elf, &cap))
		for (size_t i = 0, m = cap, c = 0; i < m; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X) || ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
				continue;
			if (GROW(p->code, c, n, 8))
				return -ENOMEM;
			p->code[n++] = (struct code_range){ ph.p_vaddr, ph.p_vaddr + ph.p_memsz };
		}
	p->ncode = n;
	return 0;
}

static int read_segments(struct session_priv *p)
{
	size_t n;
	GElf_Ehdr eh;

	if (gelf_getehdr(p->pub.elf, &eh) && eh.e_type == ET_REL)
		return read_sections(p);
	if (elf_getphdrnum(p->pub.elf, &n))
		return 0;	/* no program headers: no code to read */
	p->segs = calloc(n ? n : 1, sizeof(*p->segs));
	if (!p->segs)
		return -ENOMEM;
	bool program = eh.e_type == ET_EXEC;
	uint64_t tls_block = 0, tls_align = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(p->pub.elf, (int)i, &ph))
			continue;
		program |= ph.p_type == PT_INTERP;	/* a PIE program */
		/* the thread-locals' block as the thread pointer sees it
		 * (glibc's l_tls_offset), when the segment starts aligned
		 * (else the two may differ: no answer) */
		p->pub.areas.has_tls |= ph.p_type == PT_TLS;
		if (ph.p_type == PT_TLS && ph.p_align && !(ph.p_vaddr % ph.p_align)) {
			tls_block = (ph.p_memsz + ph.p_align - 1) / ph.p_align * ph.p_align;
			tls_align = ph.p_align;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		p->segs[p->nsegs++] = (struct load_segment){
			ph.p_vaddr, ph.p_filesz, ph.p_offset, NULL };
	}
	if (read_code_ranges(p))
		return -ENOMEM;
	/* a library's thread-locals are not at a fixed offset */
	p->pub.areas.tls_block = program ? tls_block : 0;
	p->pub.areas.tls_align = program ? tls_align : 0;
	p->pub.areas.percpu_size = percpu_area_size(p->pub.elf);
	return 0;
}

void dt_session_set_code_reader(struct dt_session *s, dt_code_reader *fn,
				void *arg)
{
	s->code.fn = fn;
	s->code.arg = arg;
}

const uint8_t *session_code_at(struct dt_session *s, uint64_t pc,
			       size_t *avail)
{
	const struct session_priv *p = priv(s);

	if (s->code.fn && !s->relocatable) {	/* the reader's would be
						 * relocated elsewhere */
		int n = s->code.fn(s->code.arg, pc, s->code.buf,
				     sizeof(s->code.buf));
		if (n > 0) {
			*avail = (size_t)n < sizeof(s->code.buf) ? (size_t)n :
				 sizeof(s->code.buf);
			return s->code.buf;
		}
	}

	for (size_t i = 0; i < p->nsegs; i++) {
		const struct load_segment *g = &p->segs[i];
		if (pc < g->vaddr || pc - g->vaddr >= g->filesz)
			continue;
		if (g->bytes) {
			*avail = g->filesz - (pc - g->vaddr);
			return g->bytes + (pc - g->vaddr);
		}
		uint64_t off = g->offset + (pc - g->vaddr);
		if (off >= s->image_size)
			return NULL;	/* truncated file */
		uint64_t left = g->filesz - (pc - g->vaddr);
		if (left > s->image_size - off)
			left = s->image_size - off;
		*avail = left;
		return s->image + off;
	}
	return NULL;
}

/* The code range (an executable section, else segment) holding pc;
 * NULL when none does. */
static const struct code_range *code_range_of(const struct session_priv *p, uint64_t pc)
{
	for (size_t i = 0; i < p->ncode; i++)
		if (pc >= p->code[i].lo && pc < p->code[i].hi)
			return &p->code[i];
	return NULL;
}

const uint8_t *session_insn_at(struct dt_session *s, uint64_t pc,
			       size_t *avail)
{
	const struct session_priv *p = priv(s);
	const struct code_range *r = code_range_of(p, pc);

	if (p->ncode && !r)
		return NULL;
	const uint8_t *code = session_code_at(s, pc, avail);
	if (code && r && *avail > r->hi - pc)
		*avail = r->hi - pc;	/* no instruction runs past its section */
	return code;
}

/* The debug file the caller named, else the cache's inflated copy of it
 * (debugcache.c), else debuginfo.c's search; all take only a regular file
 * with the binary's build-id (or debuglink CRC).  debuginfod, where
 * configured, is asked last, by build-id only. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, GElf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct session_priv *p = *userdata;
	const unsigned char *id = NULL;
	GElf_Addr vaddr;
	int idlen = dwfl_module_build_id(mod, &id, &vaddr);
	int fd;

	if (p && p->debuginfo_file) {
		fd = debuginfo_open_checked(p->debuginfo_file, id, idlen, false, 0);
		if (fd >= 0 && !(*debuginfo_file_name = strdup(p->debuginfo_file))) {
			close(fd);
			return -1;
		}
		if (fd < 0)
			session_warn(&p->pub, "'%s' is not a debug file of '%s' (not a regular "
				     "file, or another build-id): not used",
				     p->debuginfo_file, p->pub.path);
		return fd;
	}
	fd = debugcache_open(p ? p->cache_dir : NULL, id, idlen, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	fd = debuginfo_search(file_name, p ? p->debuginfo_path : NULL, id, idlen,
			      debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd >= 0 && p)
		p->copy_to_cache = debugcache_wanted(p->cache_dir, fd, id, idlen);
	if (fd < 0 && p && (p->flags & DT_SESSION_DEBUGINFOD) && idlen > 0)
		fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base,
						  file_name, NULL, 0,
						  debuginfo_file_name);
	return fd;
}

/* The debug file libdw just opened, inflated, into the cache. */
static void copy_to_cache(struct session_priv *p)
{
	struct dt_session *s = &p->pub;
	const unsigned char *id = NULL;
	GElf_Addr vaddr;
	int idlen = dwfl_module_build_id(s->mod, &id, &vaddr);

	int err = debugcache_store(p->cache_dir, dwarf_getelf(s->dwarf), id, idlen);

	/* a cache that cannot be written only costs time: said when tracing */
	if (err)
		session_debug(s, "%s: its inflated debug file not stored in the cache: %s",
			      s->path, strerror(-err));
	else
		session_debug(s, "%s: its debug file, inflated, stored in the cache",
			      s->path);
}

/* ---- split DWARF: DIEs in .dwo files ---- */

#define DIE_KEY_SHIFT 40	/* DIE offsets of one file stay below */

/* The index of dw among the session's Dwarf handles (0: the binary's own,
 * then each .dwo as it is met), or -1 without memory for it. */
static int dwarf_index(struct dt_session *s, Dwarf *dw)
{
	struct session_priv *p = priv(s);

	if (dw == s->dwarf)
		return 0;
	for (size_t i = 0; i < p->nsplits; i++)
		if (p->splits[i] == dw)
			return (int)i + 1;
	if (p->nsplits + 1 >= (1u << (63 - DIE_KEY_SHIFT)) ||
	    GROW(p->splits, p->splits_cap, p->nsplits, 16))
		return -1;
	p->splits[p->nsplits++] = dw;
	return (int)p->nsplits;
}

uint64_t session_die_key(struct dt_session *s, Dwarf_Die *die)
{
	Dwarf *dw = die->cu ? dwarf_cu_getdwarf(die->cu) : s->dwarf;
	int i = dw ? dwarf_index(s, dw) : -1;

	return i < 0 ? 0 : (uint64_t)i << DIE_KEY_SHIFT | dwarf_dieoffset(die);
}

bool session_offdie(struct dt_session *s, uint64_t key, Dwarf_Die *die)
{
	const struct session_priv *p = priv(s);
	size_t i = key >> DIE_KEY_SHIFT;
	Dwarf *dw = !i ? s->dwarf : i <= p->nsplits ? p->splits[i - 1] : NULL;

	return key && dw &&
	       dwarf_offdie(dw, key & ((1ull << DIE_KEY_SHIFT) - 1), die) != NULL;
}

/* libdw reads DWARF packages (BINARY.dwp) from 0.191 on. */
#define DWP_LIBDW "0.191"

static void split_missing_warn(struct dt_session *s, Dwarf_Die *skeleton)
{
	Dwarf_Attribute a;
	const char *name = dwarf_formstring(dwarf_attr(skeleton, DW_AT_dwo_name, &a) ?:
					    dwarf_attr(skeleton, DW_AT_GNU_dwo_name, &a));
	const char *version = dwfl_version(NULL);
	char dwp[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(dwp, sizeof(dwp), "%s.dwp", s->path) < sizeof(dwp) &&
	    !stat(dwp, &st) && strverscmp(version, DWP_LIBDW) < 0) {
		session_warn(s, "'%s': its split DWARF is in the package '%s', which "
			     "libdw %s cannot read (%s or later can; Debian 12: "
			     "bookworm-backports): its samples count as no_cu",
			     s->path, dwp, version, DWP_LIBDW);
		return;
	}
	session_warn(s, "'%s': split DWARF file '%s' not found (beside the binary, "
		     "in its compilation directory or in '%s.dwp'): its samples "
		     "count as no_cu", s->path, name ? name : "?.dwo", s->path);
}

/* Whether path is something other than a regular file (a FIFO, a
 * device, a directory) that libdw would open, and block on or read
 * forever: said once a session. */
static bool split_file_unsafe(struct dt_session *s, const char *path)
{
	struct stat st;

	if (!path || stat(path, &st) || S_ISREG(st.st_mode))
		return false;
	if (!s->split.unsafe_said)
		session_warn(s, "'%s': its split DWARF would be read from '%s', "
			     "which is not a regular file: not opened, the units "
			     "it holds count as no_cu", s->path, path);
	s->split.unsafe_said = true;
	return true;
}

/* dir/name, or name when absolute; NULL without memory. */
static char *path_join(const char *dir, const char *name)
{
	char *p;

	if (name[0] == '/' || !dir)
		return strdup(name);
	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* The files libdw may have read the DWARF from, real paths (NULL when
 * none): the binary and its debug file. */
static void split_sources(struct dt_session *s, char *files[2])
{
	const char *main_file = NULL, *debug_file = NULL;

	if (s->mod)
		dwfl_module_info(s->mod, NULL, NULL, NULL, NULL, NULL, &main_file,
				 &debug_file);
	files[0] = realpath(main_file ? main_file : s->path, NULL);
	files[1] = debug_file ? realpath(debug_file, NULL) : NULL;
}

/* Whether every file libdw would open to find skeleton cu's split unit
 * is a regular file or absent (libdw opens them blocking: a FIFO named
 * NAME.dwo, or BINARY.dwp, would hang it): BINARY.dwp, then DIR/NAME.dwo
 * and COMP_DIR/NAME.dwo for DIR the binary's and its debug file's
 * directory, as libdw_find_split_unit.c builds them. */
static bool split_files_safe(struct dt_session *s, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *name = dwarf_formstring(dwarf_attr(cu, DW_AT_dwo_name, &a) ?:
					    dwarf_attr(cu, DW_AT_GNU_dwo_name, &a));
	const char *comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	char *files[2], *path;
	bool unsafe = false;

	split_sources(s, files);
	for (int i = 0; i < 2 && !unsafe; i++) {
		if (!files[i])
			continue;
		/* the package: the file libdw read, with .dwp added */
		if (asprintf(&path, "%s.dwp", files[i]) >= 0) {
			unsafe = split_file_unsafe(s, path);
			free(path);
		}
		if (!name || unsafe)
			continue;
		/* NAME.dwo beside that file, and under its COMP_DIR */
		char *dir = strdup(files[i]), *slash = dir ? strrchr(dir, '/') : NULL;
		if (slash)
			*slash = '\0';
		path = dir ? path_join(dir, name) : NULL;
		unsafe = split_file_unsafe(s, path);
		free(path);
		if (comp_dir && dir && !unsafe) {
			char *cdir = path_join(dir, comp_dir);
			path = cdir ? path_join(cdir, name) : NULL;
			unsafe = split_file_unsafe(s, path);
			free(path);
			free(cdir);
		}
		free(dir);
	}
	free(files[0]);
	free(files[1]);
	return !unsafe;
}

bool session_unit_die(struct dt_session *s, Dwarf_Die *cu)
{
	uint8_t unit_type;
	Dwarf_Die sub;

	if (!cu->cu || dwarf_cu_info(cu->cu, NULL, &unit_type, NULL, NULL,
				     NULL, NULL, NULL) != 0)
		return true;	/* as it is */
	if (unit_type != DW_UT_skeleton)
		return true;
	struct session_priv *p = priv(s);
	uint64_t off = dwarf_dieoffset(cu);
	uint64_t h = hash_mix(0, off);
	bool linked = INDEX_FIND(p->linked_slot, p->linked_slots, h, i,
				 p->linked[i] == off) != 0;
	if ((!linked && !split_files_safe(s, cu)) ||
	    dwarf_cu_info(cu->cu, NULL, NULL, NULL, &sub, NULL, NULL, NULL) != 0)
		return false;
	/* remembered (when memory allows: else checked again next time) */
	if (sub.cu && !linked &&
	    !INDEX_READY(p->linked_slot, p->linked_slots, p->nlinked, i,
			 hash_mix(0, p->linked[i])) &&
	    !GROW(p->linked, p->linked_cap, p->nlinked, 64)) {
		p->linked[p->nlinked++] = off;
		p->linked_slot[INDEX_FREE(p->linked_slot, p->linked_slots, h)] =
			(uint32_t)p->nlinked;
	}
	if (sub.cu) {
		*cu = sub;
		return true;
	}
	if (!s->split.missing_said)
		split_missing_warn(s, cu);
	s->split.missing_said = true;
	return false;
}

/* .debug_info as libdw has it (decompressed), NULL when unknown. */
static Elf_Data *debug_info_data(struct dt_session *s)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(dwarf_getelf(s->dwarf), ".debug_info", &sh);

	return scn ? elf_getdata(scn, NULL) : NULL;
}

/* dwz -m moves the types and declarations several binaries share into a
 * supplementary file that .gnu_debugaltlink names: without it, those
 * types are no_type.  Said once, at the session's open. */
static void check_supplementary(struct dt_session *s)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(dwarf_getelf(s->dwarf), ".gnu_debugaltlink", &sh);
	Elf_Data *d = scn && !dwarf_getalt(s->dwarf) ? elf_getdata(scn, NULL) : NULL;
	char raw[1024], name[1024];

	if (!d || !d->d_buf || !d->d_size)
		return;
	snprintf(raw, sizeof(raw), "%.*s", (int)strnlen(d->d_buf, d->d_size),
		 (const char *)d->d_buf);
	text_escape(raw, name, sizeof(name), false);
	session_warn(s, "'%s' takes types from a supplementary debug file (dwz), "
		     "'%s', which cannot be found: those types count as no_type",
		     s->path, name);
}

/* The units of the binary's DWARF, then those of its supplementary file
 * (dwz -m: the partial units holding the types and declarations several
 * binaries share, which the binary's units import). */
bool session_next_unit(struct dt_session *s, Dwarf_CU **cu, Dwarf_Die *die)
{
	Dwarf *alt = s->dwarf ? dwarf_getalt(s->dwarf) : NULL;
	Dwarf *dw = *cu ? dwarf_cu_getdwarf(*cu) : s->dwarf;
	Dwarf_CU *next;
	Dwarf_Half version;
	uint8_t unit_type;

	while (dw) {
		while (dwarf_get_units(dw, *cu, &next, &version, &unit_type, die,
				       NULL) == 0) {
			*cu = next;
			if (dw == s->dwarf)
				pages_walked(&s->pages, die->addr);
			if (unit_type == DW_UT_type || unit_type == DW_UT_split_type)
				continue;	/* type units: reached through references */
			if (session_unit_die(s, die))
				return true;
		}
		if (dw != s->dwarf || !alt)
			break;
		dw = alt;
		*cu = NULL;
	}
	pages_walked(&s->pages, NULL);
	return false;
}

/* Whether the binary's CUs are skeletons of split units (DWARF 5
 * DW_UT_skeleton, or GNU's DWARF 4 DW_AT_GNU_dwo_name). */
static bool split_dwarf(Dwarf *dw)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	uint8_t unit_type;
	Dwarf_Half version;

	while (dwarf_get_units(dw, cu, &next, &version, &unit_type, &cudie, NULL) == 0) {
		if (unit_type == DW_UT_skeleton ||
		    dwarf_hasattr(&cudie, DW_AT_GNU_dwo_name))
			return true;
		if (unit_type == DW_UT_compile)
			return false;	/* a whole unit: not split */
		cu = next;
	}
	return false;
}

static void walker_trace(void *arg, const char *msg)
{
	session_debug(arg, "%s", msg);
}

int dt_session_open(const char *path, const struct dt_session_opts *opts,
		    struct dt_session **out)
{
	struct dt_session_opts o;
	struct session_priv *p;
	struct dt_session *s;
	GElf_Addr elf_bias;
	GElf_Ehdr eh;
	int err;

	*out = NULL;
	if (!sized_in(&o, sizeof(o), opts))
		return -DT_ERR_OPTS;
	int fd = open_elf_file(path);
	if (fd < 0)
		return fd;

	p = calloc(1, sizeof(*p));
	if (!p) {
		close(fd);
		return -ENOMEM;
	}
	s = &p->pub;
	s->log = o.log;
	s->log_arg = o.log_arg;
	p->flags = o.flags;
	s->debug = o.flags & DT_SESSION_TRACE;
	if (s->debug) {		/* the DIE walk's own trace, as the session's */
		s->walker.debug = walker_trace;
		s->walker.debug_arg = s;
	}
	s->no_track = o.flags & DT_SESSION_NO_TRACK;
	s->errno_unreliable = o.flags & DT_SESSION_ERRNO_UNRELIABLE;
	s->keep_functions = o.keep_functions ? o.keep_functions : DT_KEEP_FUNCTIONS;
	err = -ENOMEM;
	if (o.cache_dir && !(p->cache_dir = strdup(o.cache_dir)))
		goto out;
	s->path = strdup(path);
	if (!s->path)
		goto out;
	s->shown_path = session_intern(s, path);
	if (o.debuginfo_path) {
		p->debuginfo_path = strdup(o.debuginfo_path);
		if (!p->debuginfo_path)
			goto out;
	}
	if (o.debuginfo_file) {
		p->debuginfo_file = strdup(o.debuginfo_file);
		if (!p->debuginfo_file)
			goto out;
	}
	p->callbacks.find_elf = dwfl_build_id_find_elf;
	p->callbacks.find_debuginfo = find_debuginfo;
	p->callbacks.section_address = dwfl_offline_section_address;
	p->callbacks.debuginfo_path = p->debuginfo_path ? &p->debuginfo_path :
				      NULL;

	/* libdwfl and libelf say no more than "failed": a failed allocation
	 * leaves errno ENOMEM, which is not a corrupt file */
	err = -DT_ERR_DWFL;
	errno = 0;
	s->dwfl = dwfl_begin(&p->callbacks);
	if (!s->dwfl)
		goto out_dwfl;
	s->mod = dwfl_report_offline(s->dwfl, path, path, fd);	/* takes fd */
	fd = -1;
	if (!s->mod || dwfl_report_end(s->dwfl, NULL, NULL))
		goto out_dwfl;
	void **userdata;
	dwfl_module_info(s->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = p;		/* for find_debuginfo */
	s->elf = dwfl_module_getelf(s->mod, &elf_bias);
	if (!s->elf || !gelf_getehdr(s->elf, &eh))
		goto out_dwfl;
	s->image = (const uint8_t *)elf_rawfile(s->elf, &s->image_size);
	if (!s->image)
		goto out_dwfl;

	p->need = file_extent(s->elf, &eh);

	err = -DT_ERR_ARCH;
	s->arch = dt_arch_for_machine(eh.e_machine);
	if (!s->arch)
		goto out;
	errno = 0;
	s->decoder = decoder_new(s->arch);
	if (!s->decoder) {
		if (errno == ENOMEM)
			err = -ENOMEM;	/* not an unknown architecture */
		goto out;
	}
	/* for comparing the quick decoder with libopcodes (t2021) */
	if ((o.flags & DT_SESSION_NO_QUICK_DECODE) && s->arch->quick_decode) {
		decoder_use_quick(s->decoder, false);
		session_debug(s, "%s: every instruction decoded by libopcodes "
			      "(DT_SESSION_NO_QUICK_DECODE)", s->path);
	}
	err = read_segments(p);
	if (err)
		goto out;

	Dwarf_Addr dwarf_bias = 0;
	/* libdw's first reads: out of memory there (its asserts too) leaves
	 * the session half built, unsafe to free: it is dropped (leaked) */
	struct oom_guard g;
	oom_watch(s);
	OOM_GUARD(s, g, return -ENOMEM);
	errno = 0;
	s->dwarf = dwfl_module_getdwarf(s->mod, &dwarf_bias);
	/* out of memory, not "no debug info" */
	bool no_memory = !s->dwarf && errno == ENOMEM;
	oom_watch(s);	/* before the first walk: libdw's own handler exits */
	s->split.on = s->dwarf && split_dwarf(s->dwarf);
	OOM_UNGUARD(g);
	if (no_memory) {
		dt_session_close(s);
		return -ENOMEM;
	}
	oom_watch(s);
	if (s->dwarf)
		check_supplementary(s);
	/* a large debug file (a kernel's): not indexed ahead, and its pages
	 * given back once read (pages.c) */
	Elf_Data *info = s->dwarf ? debug_info_data(s) : NULL;
	if (info) {
		s->large_debug_info = info->d_size > LARGE_DEBUG_INFO;
		pages_init(&s->pages, info->d_buf, info->d_size,
			   o.give_back_pages, o.give_back_pages_arg);
		if (s->large_debug_info && o.large_debug_info)
			o.large_debug_info(o.large_debug_info_arg, info->d_size);
	}
	if (s->dwarf && p->copy_to_cache)
		copy_to_cache(p);
	/* the answers of this binary's last sessions (answerstore.c), for
	 * the debug info found now: none, its own, a debug file, with a dwz
	 * supplementary file, with split units */
	const char *main_file = NULL, *debug_file = NULL;
	dwfl_module_info(s->mod, NULL, NULL, NULL, NULL, NULL, &main_file, &debug_file);
	unsigned shape = (p->flags & (DT_SESSION_NO_TRACK | DT_SESSION_NO_QUICK_DECODE)) |
			 (s->dwarf ? 1u << 8 : 0) |
			 (debug_file && main_file && strcmp(debug_file, main_file) ? 1u << 9 : 0) |
			 (s->dwarf && dwarf_getalt(s->dwarf) ? 1u << 10 : 0) |
			 (s->split.on ? 1u << 11 : 0);
	/* (not with split units: a type's id names a DIE of a .dwo that is
	 * opened only when an answer needs it, which a kept answer does not) */
	if ((p->flags & DT_SESSION_KEEP_ANSWERS) && !s->split.on)
		s->store = answer_store_open(s, p->cache_dir, shape);
	s->dwarf_adjust = (int64_t)(elf_bias - dwarf_bias);
	s->elf_bias = elf_bias;
	session_debug(s, "open %s: arch %s, dwarf %s, adjust %lld", path,
		      s->arch->name, s->dwarf ? "yes" : "no",
		      (long long)s->dwarf_adjust);
	*out = s;
	return 0;
out_dwfl:
	if (errno == ENOMEM)
		err = -ENOMEM;
out:
	if (fd >= 0)
		close(fd);
	dt_session_close(s);
	return err;
}

void dt_session_close(struct dt_session *s)
{
	if (!s)
		return;
	struct session_priv *p = priv(s);
	answer_store_close(s, s->store, p->cache_dir);	/* needs the build-id */
	type_memo_forget();	/* before its debug files are unmapped */
	decoder_free(s->decoder);
	if (s->dwfl && !s->oom.libdw_left)	/* else leaked: oom.c */
		dwfl_end(s->dwfl);
	strtab_release(&s->strings);
	cache_release(&s->cache);
	scope_index_free(s->scope.index);
	cu_ranges_free(s->scope.cu_ranges);
	unit_table_free(s->scope.units);
	funcmap_cache_free(s->funcmaps);
	layout_cache_free(s->layouts);
	member_tables_free(s->members);
	global_index_free(s->globals);
	reloc_externs_free(s->externs);
	container_index_free(s->containers);
	typedef_cache_free(s->typedefs);
	track_values_free(s->track_values);
	children_walker_release(&s->walker);
	for (size_t i = 0; p->segs && i < p->nsegs; i++)
		free(p->segs[i].bytes);
	free(p->segs);
	free(p->code);
	free(p->linked);
	free(p->linked_slot);
	free(p->names);
	free(p->starts);
	free(p->bounds);
	free(p->alone);
	free(p->splits);
	free(p->debuginfo_path);
	free(p->cache_dir);
	free(p->debuginfo_file);
	free(s->path);
	free(p);
}

const char *dt_session_arch(const struct dt_session *s)
{
	return s->arch->name;
}

bool dt_session_has_debuginfo(const struct dt_session *s)
{
	return s->dwarf != NULL;
}

bool dt_session_prepare(struct dt_session *s, size_t max_units)
{
	struct oom_guard g;

	if (!s->dwarf || s->oom.no_memory)
		return true;
	/* a kernel's walk takes seconds and hundreds of MB of libdw's
	 * caches: left to an answer that needs it; so is every walk when
	 * the last runs' answers were kept (most will be asked again) */
	if (s->large_debug_info || answer_store_loaded(s->store))
		return true;
	OOM_GUARD(s, g, return true);
	bool done = units_walk(s, max_units);
	OOM_UNGUARD(g);
	return done;
}

bool dt_session_split_dwarf(const struct dt_session *s)
{
	return s->split.on;
}

int dt_session_reg(const struct dt_session *s, const char *name)
{
	return s->arch->reg_from_name(name, strlen(name));
}

const char *dt_session_reg_name(const struct dt_session *s, int reg)
{
	return s->arch->reg_name(reg);
}

int dt_session_disasm(struct dt_session *s, uint64_t pc, char *buf,
		      size_t len)
{
	struct decoded_insn insn;
	size_t avail;
	const uint8_t *code = session_insn_at(s, pc, &avail);

	if (!code)
		return -EFAULT;
	if (!decoder_run(s->decoder, pc, code, avail, &insn))
		return -EINVAL;
	decoded_insn_text(&insn, buf, len);
	return (int)insn.len;
}

int dt_session_srcline(struct dt_session *s, uint64_t pc, const char **file,
		       unsigned *line)
{
	Dwarf_Addr at = pc + (uint64_t)s->dwarf_adjust;
	Dwarf_Die cu;
	Dwarf_Line *l;
	int n = 0;

	struct oom_guard g;

	*file = "";
	*line = 0;
	if (s->oom.no_memory)
		return -ENOMEM;
	OOM_GUARD(s, g, return -ENOMEM);
	if (!s->dwarf || !scope_cu_outer(s, at, &cu) ||
	    !(l = dwarf_getsrc_die(&cu, at)) || dwarf_lineno(l, &n) != 0) {
		OOM_UNGUARD(g);
		return -ENOENT;
	}
	OOM_UNGUARD(g);
	*file = session_intern_raw(s, dwarf_linesrc(l, NULL, NULL));
	*line = (unsigned)n;
	return 0;
}

int dt_session_comp_dir(struct dt_session *s, uint64_t pc, const char **dir)
{
	Dwarf_Addr at = pc + (uint64_t)s->dwarf_adjust;
	Dwarf_Attribute a;
	Dwarf_Die cu;
	const char *volatile d = NULL;	/* set under the guard */
	struct oom_guard g;

	*dir = "";
	if (s->oom.no_memory)
		return -ENOMEM;
	OOM_GUARD(s, g, return -ENOMEM);
	if (s->dwarf && scope_cu_outer(s, at, &cu))
		d = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
	OOM_UNGUARD(g);
	if (!d)
		return -ENOENT;
	*dir = session_intern_raw(s, d);
	return 0;
}

int dt_session_addr_from_offset(const struct dt_session *s, uint64_t offset,
				uint64_t *addr)
{
	const struct session_priv *p = priv(s);

	for (size_t i = 0; i < p->nsegs; i++) {
		const struct load_segment *g = &p->segs[i];
		if (offset >= g->offset && offset - g->offset < g->filesz) {
			*addr = g->vaddr + (offset - g->offset);
			return 0;
		}
	}
	return -ERANGE;
}

size_t dt_session_build_id(const struct dt_session *s, const uint8_t **id)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(s->mod, &bits, &vaddr);

	if (n <= 0)
		return 0;
	*id = bits;
	return (size_t)n;
}

/* A symbol by name, for perf's "sym+0x14": the sorted table is built once
 * per session (a scan of the symbol table per line was the slowest part of
 * dtresolve's sym+off route). */
struct named_symbol {
	const char *name;	/* libdwfl's, or interned ("calloc@plt") */
	uint64_t start, size;	/* link-time */
	size_t order;		/* symbol table order: the first of equals wins */
};

static int add_named(struct session_priv *p, const char *name, uint64_t start,
		     uint64_t size)
{
	if (GROW(p->names, p->names_cap, p->nnames, 1024))
		return -ENOMEM;
	p->names[p->nnames] = (struct named_symbol){ name, start, size, p->nnames };
	p->nnames++;
	return 0;
}

/* perf script prints C++ and Rust names demangled, without parameters
 * (and a legacy Rust name with or without its hash): each is a name of
 * the symbol too.  Overloads share a name: dt_session_symbol_fit(). */
static int add_demangled(struct session_priv *p, const char *mangled,
			 uint64_t start, uint64_t size)
{
	char *d = symbol_demangle(mangled);
	size_t cut;
	int err = 0;

	if (!d)
		return 0;
	err = add_named(p, session_intern_raw(&p->pub, d), start, size);
	cut = symbol_rust_hash_start(d);
	if (!err && cut) {
		d[cut] = '\0';
		err = add_named(p, session_intern_raw(&p->pub, d), start, size);
	}
	free(d);
	return err;
}

/* "calloc@plt": perf names PLT entries after their relocations, in order:
 * entry i of .rela.plt is .plt.sec + size * i where there is one (x86-64
 * IBT), else past the resolver stub at the start of .plt (the psABI's
 * "Procedure Linkage Table": sizes in struct dt_arch). */
static void add_plt_symbols(struct session_priv *p)
{
	struct dt_session *s = &p->pub;
	Elf_Scn *scn = NULL, *rela = NULL;
	uint64_t plt = 0, plt_sec = 0;
	size_t shstrndx;

	if (elf_getshdrstrndx(s->elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(s->elf, scn))) {
		GElf_Shdr sh;
		const char *sn;
		if (!gelf_getshdr(scn, &sh) ||
		    !(sn = elf_strptr(s->elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(sn, ".rela.plt") && sh.sh_type == SHT_RELA)
			rela = scn;
		else if (!strcmp(sn, ".plt"))
			plt = sh.sh_addr + s->arch->plt_header;
		else if (!strcmp(sn, ".plt.sec"))
			plt_sec = sh.sh_addr;
	}
	GElf_Shdr rsh, dsh;
	Elf_Data *rd = rela ? elf_getdata(rela, NULL) : NULL;
	Elf_Scn *dynsym = rela && gelf_getshdr(rela, &rsh) ?
			  elf_getscn(s->elf, rsh.sh_link) : NULL;
	Elf_Data *dd = dynsym ? elf_getdata(dynsym, NULL) : NULL;
	if (!rd || !dd || !gelf_getshdr(dynsym, &dsh) || (!plt && !plt_sec))
		return;
	for (size_t i = 0; i < rsh.sh_size / (rsh.sh_entsize ? rsh.sh_entsize : 24); i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *sn;
		char name[512];
		if (!gelf_getrela(rd, (int)i, &r) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(sn = elf_strptr(s->elf, dsh.sh_link, sym.st_name)))
			continue;
		snprintf(name, sizeof(name), "%s@plt", sn);
		uint64_t step = s->arch->plt_entry;
		if (add_named(p, session_intern_raw(s, name),
			      (plt_sec ? plt_sec : plt) + step * i, step))
			return;
	}
}

static int cmp_named(const void *a, const void *b)
{
	const struct named_symbol *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static void load_names(struct session_priv *p)
{
	struct dt_session *s = &p->pub;
	int n = dwfl_module_getsymtab(s->mod);

	p->names_loaded = true;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *sn = dwfl_module_getsym_info(s->mod, i, &sym, &addr,
							 NULL, NULL, NULL);
		if (!sn || !*sn || sym.st_shndx == SHN_UNDEF)
			continue;
		if (add_named(p, sn, addr - s->elf_bias, sym.st_size) ||
		    add_demangled(p, sn, addr - s->elf_bias, sym.st_size))
			return;
	}
	add_plt_symbols(p);
	if (p->nnames)
		qsort(p->names, p->nnames, sizeof(*p->names), cmp_named);
}

/* The first name-table entry not before name (the names loaded once). */
static size_t first_named(struct session_priv *p, const char *name)
{
	size_t lo = 0, hi;

	if (!p->names_loaded)
		load_names(p);
	for (hi = p->nnames; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(p->names[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int dt_session_symbol(struct dt_session *s, const char *name,
		      uint64_t *start, uint64_t *size)
{
	struct session_priv *p = priv(s);
	size_t lo = first_named(p, name);

	if (lo == p->nnames || strcmp(p->names[lo].name, name))
		return -ENOENT;
	*start = p->names[lo].start;
	*size = p->names[lo].size;
	return 0;
}

bool session_is_tls_get_addr(struct dt_session *s, uint64_t target)
{
	struct session_priv *p = priv(s);

	if (!p->tls_get_addr_looked) {
		static const char *const names[2] = { "__tls_get_addr@plt",
						      "__tls_get_addr" };
		for (int i = 0; i < 2; i++) {
			uint64_t size;
			if (dt_session_symbol(s, names[i], &p->tls_get_addr[i], &size))
				p->tls_get_addr[i] = 0;
		}
		p->tls_get_addr_looked = true;
	}
	return target && (target == p->tls_get_addr[0] || target == p->tls_get_addr[1]);
}

struct sym_span {
	uint64_t start, size;
	const char *name;		/* libdwfl's */
	int index;			/* in libdwfl's table */
	int bind;			/* binding_rank() */
};

static int cmp_span(const void *x, const void *y)
{
	const struct sym_span *a = x, *b = y;

	return (a->start > b->start) - (a->start < b->start);
}

/* A symbol libdwfl's lookup may answer with: named, defined, and not a
 * section, file or TLS symbol (its own test). */
static bool addrinfo_candidate(const GElf_Sym *sym, const char *name, GElf_Word shndx)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return name && *name && shndx != SHN_UNDEF && type != STT_SECTION &&
	       type != STT_FILE && type != STT_TLS;
}

/* libdwfl's preference of a symbol's binding (higher is better) */
static int binding_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL: return 3;
	case STB_WEAK: return 2;
	case STB_LOCAL: return 1;
	default: return 0;
	}
}

/* Which of two aliases (one start, one size) libdwfl answers with: it
 * reads the table's globals first (the locals only when no global holds
 * the pc), keeps a better binding, and otherwise the one met first. */
static bool alias_beats(const struct sym_span *a, const struct sym_span *b,
			int first_global)
{
	bool ga = a->index >= first_global, gb = b->index >= first_global;

	if (ga != gb)
		return ga;
	if (a->bind != b->bind)
		return a->bind > b->bind;
	return a->index < b->index;
}

/* The candidates libdwfl answers every pc of with themselves, from the
 * candidates v (n) sorted by start: sized, of the one size of the sized
 * ones starting there (aliases: the one libdwfl picks), no symbol of any
 * kind starting later in their range (starts), inside no other sized
 * candidate, and no global label starting with them when they are local
 * (libdwfl would answer their first pc with it).  Its search prefers a
 * global symbol to a closer local or weak one: only a pc that no other
 * candidate holds, which no label follows, has one answer whatever the
 * order. */
static void find_alone(struct session_priv *p, struct sym_span *v, size_t n,
		       int first_global)
{
	uint64_t reach = 0;		/* the end of the candidates so far */
	size_t k = 0;

	for (size_t i = 0, j; i < n; i = j) {
		uint64_t start = v[i].start, size = 0;
		size_t best = n;
		bool one_size = true, global_label = false;

		for (j = i; j < n && v[j].start == start; j++) {
			if (!v[j].size)
				global_label |= v[j].index >= first_global;
			else if (best == n)
				best = j, size = v[j].size;
			else if (v[j].size != size)
				one_size = false;
			else if (alias_beats(&v[j], &v[best], first_global))
				best = j;
		}
		uint64_t end = start + size;
		bool alone = best < n && one_size && start && end > start && reach <= start &&
			     (v[best].index >= first_global || !global_label);
		if (alone) {
			size_t at = AT_OR_BELOW(p->nstarts, x, p->starts[x], start);
			size_t hi = AT_OR_BELOW(p->nstarts, x, p->starts[x], end - 1);
			alone = at == hi;	/* no start after this one's */
		}
		struct sym_span pick = best < n ? v[best] : v[i];
		for (size_t m = i; m < j; m++)
			if (v[m].size && v[m].start + v[m].size > reach)
				reach = v[m].start + v[m].size;
		if (alone)
			v[k++] = pick;
	}
	p->alone = v;
	p->nalone = k;
}

/* Every defined symbol's link-time start, sorted, and the candidates
 * answered alone (none when out of memory: libdwfl is asked). */
static void load_starts(struct session_priv *p)
{
	struct dt_session *s = &p->pub;
	int n = s->mod ? dwfl_module_getsymtab(s->mod) : 0;
	size_t cap = 0, vcap = 0, nv = 0, bcap = 0;
	struct sym_span *v = NULL;
	bool oom = false;

	p->starts_loaded = true;
	for (int i = 1; i < n && !oom; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(s->mod, i, &sym, &addr, &shndx,
							   NULL, NULL);
		if (!name || sym.st_shndx == SHN_UNDEF)
			continue;
		oom = GROW(p->starts, cap, p->nstarts, 1024) ||
		      GROW(p->bounds, bcap, p->nbounds + 1, 1024);
		if (!oom) {
			p->starts[p->nstarts++] = addr - s->elf_bias;
			p->bounds[p->nbounds++] = addr - s->elf_bias;
			if (sym.st_size)
				p->bounds[p->nbounds++] = addr - s->elf_bias + sym.st_size;
		}
		if (!oom && addrinfo_candidate(&sym, name, shndx)) {
			oom = GROW(v, vcap, nv, 1024);
			if (!oom)
				v[nv++] = (struct sym_span){ addr - s->elf_bias, sym.st_size,
							     name, i, binding_rank(&sym) };
		}
	}
	if (oom) {
		free(p->starts);
		free(p->bounds);
		free(v);
		p->starts = p->bounds = NULL;
		p->nstarts = p->nbounds = 0;
		return;
	}
	sort_u64(p->starts, p->nstarts);
	sort_u64(p->bounds, p->nbounds);
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_span);
	find_alone(p, v, nv, s->mod ? dwfl_module_getsymtab_first_global(s->mod) : 0);
}

/* Whether no symbol but the one at start begins inside [start, start +
 * size): libdwfl then answers every pc in it with that symbol, whatever
 * the pc (the symbols at or before any of them are the same). */
static bool symbol_clean(struct session_priv *p, uint64_t start, uint64_t size)
{
	if (!p->starts_loaded)
		load_starts(p);
	if (!size || !p->nstarts)
		return false;
	size_t k = AT_OR_BELOW(p->nstarts, i, p->starts[i], start);
	return k == p->nstarts || p->starts[k] >= start + size;
}

/* libdwfl's answer for pc (name NULL: none) is its answer for every pc
 * of pc's gap: between the symbol bounds around it, within its section
 * (libdwfl compares a sizeless symbol's section with the pc's).  Not
 * kept when the bounds are not loaded or the pc is in no section known. */
static void remember_gap(struct session_priv *p, uint64_t pc, const char *name,
			 uint64_t start, uint64_t size)
{
	const struct code_range *r = code_range_of(p, pc);

	p->gap.hi = 0;
	if (!r || !p->nbounds)
		return;
	size_t k = AT_OR_BELOW(p->nbounds, i, p->bounds[i], pc);
	uint64_t lo = k ? p->bounds[k - 1] : 0;
	uint64_t hi = k < p->nbounds ? p->bounds[k] : UINT64_MAX;
	p->gap.lo = lo > r->lo ? lo : r->lo;
	p->gap.hi = hi < r->hi ? hi : r->hi;
	p->gap.name = name;
	p->gap.start = start;
	p->gap.size = size;
}

int dt_session_symbol_at(struct dt_session *s, uint64_t pc, const char **name,
			 uint64_t *start, uint64_t *size)
{
	struct session_priv *p = priv(s);
	GElf_Off off = 0;
	GElf_Sym sym;

	if (p->last_sym.name && pc >= p->last_sym.start &&
	    pc - p->last_sym.start < p->last_sym.size) {
		*name = p->last_sym.name;
		*start = p->last_sym.start;
		*size = p->last_sym.size;
		return 0;
	}
	if (!p->starts_loaded)
		load_starts(p);
	size_t k = AT_OR_BELOW(p->nalone, i, p->alone[i].start, pc);
	if (k && pc - p->alone[k - 1].start < p->alone[k - 1].size) {
		const struct sym_span *a = &p->alone[k - 1];
		if (!(*name = session_intern_raw(s, a->name)))
			return -ENOMEM;
		*start = a->start;
		*size = a->size;
		return 0;
	}
	if (pc >= p->gap.lo && pc < p->gap.hi) {
		if (!p->gap.name)
			return -ENOENT;
		*name = p->gap.name;
		*start = p->gap.start;
		*size = p->gap.size;
		return 0;
	}
	const char *n = s->mod ? dwfl_module_addrinfo(s->mod, pc + s->elf_bias, &off,
						       &sym, NULL, NULL, NULL) : NULL;
	if (!n || !*n) {
		remember_gap(p, pc, NULL, 0, 0);
		return -ENOENT;
	}
	*name = session_intern_raw(s, n);
	*start = pc - off;
	*size = sym.st_size;
	if (*name && symbol_clean(p, *start, *size)) {
		p->last_sym.name = *name;
		p->last_sym.start = *start;
		p->last_sym.size = *size;
	}
	if (*name)
		remember_gap(p, pc, *name, *start, *size);
	return 0;
}

int dt_session_symbol_fit(struct dt_session *s, const char *name,
			  uint64_t off, uint64_t runtime_start, uint64_t *start,
			  uint64_t *size)
{
	struct session_priv *p = priv(s);
	size_t lo = first_named(p, name), fits = 0;

	/* pass 0: the offset fits; pass 1 (when several do): and the start
	 * is at the runtime start's place within a page, since binaries
	 * are loaded at page multiples */
	for (int pass = 0; pass < 2; pass++) {
		bool several = false;
		fits = 0;
		for (size_t i = lo; i < p->nnames && !strcmp(p->names[i].name, name); i++) {
			const struct named_symbol *n = &p->names[i];
			if ((n->size && off >= n->size) ||
			    (pass && (runtime_start - n->start) % 4096))
				continue;
			several |= fits && n->start != *start;
			*start = n->start;
			*size = n->size;
			fits++;
		}
		if (!several && (fits || !pass))
			return fits ? 0 : -ENOENT;
		if (!runtime_start)
			break;
	}
	/* overloads the line cannot tell apart: several places in a page
	 * fit the address, or none does */
	return -EEXIST;
}

const char *dt_session_path(const struct dt_session *s)
{
	return s->shown_path;
}
