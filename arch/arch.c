// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The table of supported architectures.  Adding an ISA means one file in
 * arch/ and one line here; nothing outside arch/ names an architecture.
 */
#include <string.h>

#include "arch.h"

static const struct dt_arch *const arch_table[] = {
	&dt_arch_x86_64,
	&dt_arch_aarch64,
};

const struct dt_arch *dt_arch_for_machine(uint16_t e_machine)
{
	for (size_t i = 0; i < sizeof(arch_table) / sizeof(arch_table[0]); i++)
		if (arch_table[i]->e_machine == e_machine)
			return arch_table[i];
	return NULL;
}

uint64_t dt_get_le(const uint8_t *where, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | where[n];
	return v;
}

void dt_put_le(uint8_t *where, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		where[i] = (uint8_t)(v >> (8 * i));
}

const struct dt_arch *dt_arch_for_name(const char *name)
{
	for (size_t i = 0; i < sizeof(arch_table) / sizeof(arch_table[0]); i++) {
		const char *a = arch_table[i]->name;
		size_t n = strlen(a);

		if (strlen(name) != n)
			continue;
		/* "x86-64" and "x86_64" are the same name */
		size_t j;
		for (j = 0; j < n; j++) {
			char c = name[j] == '_' ? '-' : name[j];
			if (c != a[j])
				break;
		}
		if (j == n)
			return arch_table[i];
	}
	return NULL;
}
