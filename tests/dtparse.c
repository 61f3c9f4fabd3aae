// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Test helper: how dtresolve's parser reads each line of its input, one
 * line out per line in:
 *   KIND pid=P addr=A event=E sym=S symoff=O dso=D dsoff=F period=N data=B
 *   mmap start len pgoff file | error
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/dtresolve/lineparse.h"

static const char *const kinds[] = {
	"bad", "addr", "tuple", "sample", "mmap", "exec", "fork", "record",
};

static void span(const char *name, struct span s)
{
	printf(" %s='%.*s'", name, (int)s.len, s.p ? s.p : "");
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, stdin)) >= 0) {
		struct line_req r;
		if (n && line[n - 1] == '\n')
			n--;
		line_parse(line, (size_t)n, &r);
		printf("%s", kinds[r.kind]);
		switch (r.kind) {
		case LINE_BAD:
			printf(" (%s)", r.error);
			break;
		case LINE_SAMPLE:
			printf(" pid=%d addr=%#" PRIx64, r.pid, r.addr);
			span("event", r.event);
			span("sym", r.sym);
			if (r.has_symoff)
				printf(" symoff=%#" PRIx64, r.symoff);
			span("dso", r.dso);
			if (r.has_dsoff)
				printf(" dsoff=%#" PRIx64, r.dsoff);
			printf(" period=%" PRIu64 "%s", r.period,
			       r.has_data_addr ? " data-addr" : "");
			break;
		case LINE_MMAP:
			printf(" pid=%d start=%#" PRIx64 " len=%#" PRIx64 " pgoff=%#" PRIx64,
			       r.pid, r.map_start, r.map_len, r.map_pgoff);
			span("file", r.file);
			break;
		case LINE_EXEC:
			printf(" pid=%d", r.pid);
			break;
		case LINE_FORK:
			printf(" pid=%d parent=%d", r.pid, r.parent_pid);
			break;
		default:
			break;
		}
		putchar('\n');
	}
	free(line);
	return 0;
}
