// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Test helper: list every instruction of the named functions of a binary,
 * "ADDR<TAB>SYMBOL<TAB>TEXT", decoded by libdtprof itself, so tests find
 * the instructions they check by symbol instead of pasting addresses.
 */
#include <inttypes.h>
#include <stdio.h>

#include "../lib/dtprof.h"

int main(int argc, char **argv)
{
	struct dt_session *s;
	int status = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: dtinsns BINARY SYMBOL...\n");
		return 2;
	}
	int err = dt_session_open(argv[1], NULL, &s);
	if (err) {
		fprintf(stderr, "dtinsns: cannot open '%s': %s\n", argv[1],
			dt_strerror(err));
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		uint64_t start, size;
		if (dt_session_symbol(s, argv[i], &start, &size)) {
			fprintf(stderr, "dtinsns: no symbol '%s' in '%s'\n",
				argv[i], argv[1]);
			status = 1;
			continue;
		}
		for (uint64_t pc = start; pc < start + size;) {
			char text[256];
			int len = dt_session_disasm(s, pc, text, sizeof(text));
			if (len <= 0) {
				fprintf(stderr, "dtinsns: cannot decode %#" PRIx64 "\n", pc);
				status = 1;
				break;
			}
			printf("%#" PRIx64 "\t%s\t%s\n", pc, argv[i], text);
			pc += (uint64_t)len;
		}
	}
	dt_session_close(s);
	return status;
}
