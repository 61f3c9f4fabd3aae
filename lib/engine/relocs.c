// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The code of a relocatable file (an object file, a kernel module's .ko)
 * as a static link would leave it.  libdwfl gives each allocated section
 * an address and relocates the DWARF to them; here the relocations of a
 * section's bytes are applied to a copy, so that "mov 0x0(%rip),%eax"
 * reaches the variable its relocation names.  A field whose target is
 * not in the file (an undefined symbol: for a module, the kernel's own
 * variables) gets an address of its own past every section, a slot per
 * symbol (its name kept, for the DWARF's declaration of it to be
 * found); one reached through a GOT slot, or too far from its symbol to
 * stay in the slot, points at nowhere, where nothing is: such an access
 * is unknown, never another variable.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

uint64_t reloc_nowhere(Elf *elf)
{
	Elf_Scn *scn = NULL;
	uint64_t end = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_addr + sh.sh_size > end)
			end = sh.sh_addr + sh.sh_size;
	}
	return (end + 0x1fff) & ~0xfffULL;	/* a page clear of the last */
}

#define EXTERN_SLOT 0x40000	/* an undefined symbol's addresses */
#define MAX_EXTERNS 4096	/* slots: 1 GB, rip- and 32-bit-reachable */

struct reloc_externs {
	uint64_t base;		/* slot k: base + k * EXTERN_SLOT */
	uint32_t *slot_of;	/* per symbol index: 1 + k, 0: none yet */
	size_t nsyms;
	const char **names;	/* per slot */
	size_t n;
};

struct reloc_externs *reloc_externs_new(uint64_t nowhere)
{
	struct reloc_externs *ex = calloc(1, sizeof(*ex));

	if (ex)
		ex->base = nowhere + EXTERN_SLOT;
	return ex;
}

void reloc_externs_free(struct reloc_externs *ex)
{
	if (!ex)
		return;
	free(ex->slot_of);
	free(ex->names);
	free(ex);
}

const char *reloc_extern_at(const struct reloc_externs *ex, uint64_t addr,
			    uint64_t *off)
{
	if (!ex || addr < ex->base || (addr - ex->base) / EXTERN_SLOT >= ex->n)
		return NULL;
	*off = (addr - ex->base) % EXTERN_SLOT;
	return ex->names[(addr - ex->base) / EXTERN_SLOT];
}

/* The slot address of undefined symbol ndx (name), given one on first
 * use; false when the slots or memory run out. */
static bool extern_slot(struct reloc_externs *ex, Elf_Data *syms, size_t ndx,
			const char *name, uint64_t *addr)
{
	size_t nsyms = syms->d_size / sizeof(Elf64_Sym);

	if (!ex || !name || !*name || ndx >= nsyms)
		return false;
	if (!ex->slot_of) {
		ex->slot_of = calloc(nsyms ? nsyms : 1, sizeof(*ex->slot_of));
		ex->names = calloc(MAX_EXTERNS, sizeof(*ex->names));
		if (!ex->slot_of || !ex->names)
			return false;
		ex->nsyms = nsyms;
	}
	if (ndx >= ex->nsyms)
		return false;
	if (!ex->slot_of[ndx]) {
		if (ex->n == MAX_EXTERNS)
			return false;
		ex->names[ex->n] = name;
		ex->slot_of[ndx] = (uint32_t)++ex->n;
	}
	*addr = ex->base + (ex->slot_of[ndx] - 1) * (uint64_t)EXTERN_SLOT;
	return true;
}

/* The address of symbol ndx of syms: its section's plus its value; false
 * when it is not in this file (undefined, common) or not loaded. */
static bool symbol_address(Elf *elf, Elf_Data *syms, size_t ndx,
			   uint64_t *addr)
{
	GElf_Sym sym;
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!ndx) {
		*addr = 0;	/* no symbol: the addend is the value */
		return true;
	}
	if (!gelf_getsym(syms, (int)ndx, &sym))
		return false;
	if (sym.st_shndx == SHN_ABS) {
		*addr = sym.st_value;
		return true;
	}
	if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
	    !(scn = elf_getscn(elf, sym.st_shndx)) || !gelf_getshdr(scn, &sh) ||
	    !(sh.sh_flags & SHF_ALLOC))
		return false;
	*addr = sh.sh_addr + sym.st_value;
	return true;
}

static const char *symbol_name(Elf *elf, Elf_Data *syms, size_t strtab, size_t ndx)
{
	GElf_Sym sym;

	return gelf_getsym(syms, (int)ndx, &sym) ?
	       elf_strptr(elf, strtab, sym.st_name) : NULL;
}

size_t reloc_apply(Elf *elf, const struct dt_arch *arch, Elf_Scn *relsec,
		   uint8_t *copy, size_t size, uint64_t addr, uint64_t nowhere,
		   struct reloc_externs *ex)
{
	GElf_Shdr rsh;
	Elf_Data *rels, *syms;
	Elf_Scn *symsec;

	if (!gelf_getshdr(relsec, &rsh))
		return 1;
	size_t n = rsh.sh_entsize ? rsh.sh_size / rsh.sh_entsize : 1;
	if (rsh.sh_type != SHT_RELA || !(rels = elf_getdata(relsec, NULL)) ||
	    !(symsec = elf_getscn(elf, rsh.sh_link)) ||
	    !(syms = elf_getdata(symsec, NULL)))
		return n;	/* SHT_REL (addends in place): not for x86-64 */
	GElf_Shdr symsh;
	size_t symlink = gelf_getshdr(symsec, &symsh) ? symsh.sh_link : 0;
	size_t missed = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		uint64_t sym;
		if (!gelf_getrela(rels, (int)i, &r) || r.r_offset >= size) {
			missed++;
			continue;
		}
		size_t ndx = GELF_R_SYM(r.r_info);
		if (!symbol_address(elf, syms, ndx, &sym) &&
		    (r.r_addend <= -EXTERN_SLOT / 2 || r.r_addend >= EXTERN_SLOT / 2 ||
		     !extern_slot(ex, syms, ndx, symbol_name(elf, syms, symlink, ndx), &sym)))
			sym = nowhere;
		if (!arch->apply_reloc(GELF_R_TYPE(r.r_info), sym, r.r_addend,
				       addr + r.r_offset, nowhere, copy + r.r_offset,
				       size - r.r_offset))
			missed++;
	}
	return missed;
}
