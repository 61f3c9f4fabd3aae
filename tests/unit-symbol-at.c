// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dt_session_symbol_at() remembers the last symbol found when no other
 * symbol starts inside it, and answers the pcs in it without asking
 * libdwfl: the answer must be libdwfl's, for every pc.  pcs of this
 * test's text and of libc's (nested and aliased symbols, .cold parts),
 * runs of them in order, then some back from the end, then each symbol's
 * first and middle pc, against dwfl_module_addrinfo itself.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "../lib/dtprof.h"
#include "tap.h"

/* A function with another inside it (as hand-written assembly and some
 * libraries have): a pc in the inner one is the inner one's, though the
 * outer one's range holds it. */
__asm__(".text\n"
	".globl dt_outer\n.type dt_outer, @function\ndt_outer:\n"
	".skip 64, 0x90\n"
	".globl dt_inner\n.type dt_inner, @function\ndt_inner:\n"
	".skip 32, 0x90\n.size dt_inner, 32\n"
	".skip 32, 0x90\nret\n.size dt_outer, . - dt_outer\n");

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

/* The [lo, hi) link-time range of path's executable PT_LOAD segments'
 * first one. */
static bool text_range(const char *path, uint64_t *lo, uint64_t *hi)
{
	int fd = open(path, O_RDONLY);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t n = 0;
	bool found = false;

	if (e && !elf_getphdrnum(e, &n))
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X)) {
				*lo = ph.p_vaddr;
				*hi = ph.p_vaddr + ph.p_memsz;
				found = true;
			}
		}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return found;
}

/* Whether the session answers pc as libdwfl does (mod at base); want:
 * libdwfl's name, NULL for none.  Says the first few that differ. */
static bool same_as_libdwfl(struct dt_session *s, Dwfl_Module *mod, GElf_Addr base,
			    uint64_t pc, const char **want, size_t *differ)
{
	const char *name = NULL;
	uint64_t start = 0, size = 0;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *w = dwfl_module_addrinfo(mod, pc + base, &off, &sym, NULL, NULL, NULL);
	int got = dt_session_symbol_at(s, pc, &name, &start, &size);
	bool same = !w || !*w ? got != 0 :
		    !got && !strcmp(name, w) && start == pc - off && size == sym.st_size;

	*want = w && *w ? w : NULL;
	if (!same && (*differ)++ < 5)
		printf("# pc %#llx: libdwfl %s, session %s\n", (unsigned long long)pc,
		       *want ? *want : "-", got ? "-" : name);
	return same;
}

/* Whether the session's answers for pcs of path's text (runs forward,
 * then some from the end back, then the nested functions') are
 * libdwfl's for the same file at bias 0. */
static void compare(const char *path)
{
	struct dt_session_opts o = { .sz = sizeof(o) };
	struct dt_session *s;
	uint64_t lo, hi;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	const char *want;

	elf_version(EV_CURRENT);
	if (!text_range(path, &lo, &hi) || dt_session_open(path, &o, &s)) {
		ok(0, "%s: open", path);
		return;
	}
	dwfl = dwfl_begin(&callbacks);
	mod = dwfl ? dwfl_report_offline(dwfl, "", path, -1) : NULL;
	if (!ok(mod != NULL, "%s: libdwfl opens it", path)) {
		dt_session_close(s);
		return;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	GElf_Addr base;
	dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
	size_t asked = 0, differ = 0;
	/* libdwfl's own lookup is slow (a scan of the symbols): forward,
	 * runs of 256 pcs one in 128 (the remembered symbol's case), then
	 * back, one pc in 509 */
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t i = 0; i < hi - lo; i += pass ? 509 : 1) {
			if (!pass && (i / 256) % 128) {
				i += 127 * 256 - 1;
				continue;
			}
			asked++;
			same_as_libdwfl(s, mod, base, pass ? hi - 1 - i : lo + i, &want, &differ);
		}
	/* every symbol's first pc and its middle: each alias group (names
	 * sharing a start and size, of which libdwfl picks one) asked */
	int nsyms = dwfl_module_getsymtab(mod);
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		if (!dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL) ||
		    addr - base < lo || addr - base >= hi)
			continue;
		asked += 2;
		same_as_libdwfl(s, mod, base, addr - base, &want, &differ);
		same_as_libdwfl(s, mod, base, addr - base + sym.st_size / 2, &want, &differ);
	}
	/* and the nested functions' pcs in order, when the file has them */
	uint64_t outer, outer_size;
	if (!dt_session_symbol(s, "dt_outer", &outer, &outer_size)) {
		size_t inner = 0;
		for (uint64_t pc = outer; pc < outer + outer_size; pc++) {
			asked++;
			same_as_libdwfl(s, mod, base, pc, &want, &differ);
			inner += want && !strcmp(want, "dt_inner");
		}
		ok(inner == 32, "%s: libdwfl names dt_inner inside dt_outer", path);
	}
	ok(asked > 1000 && !differ, "%s: %zu pcs, %zu answered otherwise than libdwfl",
	   path, asked, differ);
	dwfl_end(dwfl);
	dt_session_close(s);
}

/* unit-symbol-at [FILE...]: this test's binary and libc, or the files
 * named (a check by hand on any binary) */
int main(int argc, char **argv)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			compare(argv[i]);
		return done_testing();
	}
	self[n > 0 ? n : 0] = '\0';
	compare(self);
	if (access("/usr/lib/x86_64-linux-gnu/libc.so.6", R_OK) == 0)
		compare("/usr/lib/x86_64-linux-gnu/libc.so.6");
	else if (access("/usr/lib/aarch64-linux-gnu/libc.so.6", R_OK) == 0)
		compare("/usr/lib/aarch64-linux-gnu/libc.so.6");
	return done_testing();
}
