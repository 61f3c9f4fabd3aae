/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An ELF file's section by name (sections.c).
 */
#ifndef DTPROF_DWARF_SECTIONS_H
#define DTPROF_DWARF_SECTIONS_H

#include <gelf.h>

/* elf's section of that name (its header in *sh), NULL when none. */
Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh);

#endif
