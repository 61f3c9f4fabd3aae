// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Test helper: what an allocation site proves, for each link-time return
 * address read from stdin (one hex number a line), one line out:
 * "PC<TAB>TYPE<TAB>SIZE<TAB>VARIABLE", or "PC<TAB>-<TAB>REASON" when the
 * site proves none.  bench/alloc-sites.py checks the answers against the
 * sizes the code itself asks the allocator for.  With -s, of a call
 * that stores its block through its first argument (posix_memalign).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/dtprof.h"

int main(int argc, char **argv)
{
	struct dt_session *s;
	char line[256];

	bool stored = argc == 3 && !strcmp(argv[1], "-s");

	if (argc != 2 && !stored) {
		fprintf(stderr, "usage: dtsite [-s] BINARY <PCS\n");
		return 2;
	}
	const char *path = argv[argc - 1];
	int err = dt_session_open(path, NULL, &s);
	if (err) {
		fprintf(stderr, "dtsite: cannot open '%s': %s\n", path, dt_strerror(err));
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char *end;
		uint64_t pc = strtoull(line, &end, 16);
		struct dt_answer a;
		if (end == line) {
			printf("-\t-\tbad line\n");
			continue;
		}
		if ((stored ? dt_resolve_alloc_site_stored(s, pc, &a) :
			      dt_resolve_alloc_site(s, pc, &a)) == DT_OK)
			printf("%#" PRIx64 "\t%s\t%" PRIu64 "\t%s\n", pc, a.type, a.type_size,
			       a.var && *a.var ? a.var : "-");
		else
			printf("%#" PRIx64 "\t-\t%s\n", pc, dt_reason_str(a.reason));
		fflush(stdout);
	}
	dt_session_close(s);
	return 0;
}
