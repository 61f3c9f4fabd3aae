// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * An ELF file's section by name, through libelf: what the engine asks of
 * a binary or a debug file, and the DIE walk of the sections it reads
 * itself.
 */
#include <string.h>

#include "sections.h"

Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *sn;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && (sn = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(sn, name))
			return scn;
	return NULL;
}
