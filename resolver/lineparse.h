/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Input line forms of dtresolve (DESIGN.md): "ADDR" and "ADDR REG OFFSET".
 * Kept apart from main() so the fuzzer and unit tests drive it directly.
 */
#ifndef DTPROF_LINEPARSE_H
#define DTPROF_LINEPARSE_H

#include <stddef.h>
#include <stdint.h>

enum line_kind {
	LINE_BAD,	/* why: in line_req.error */
	LINE_ADDR,	/* "0x401136" */
	LINE_TUPLE,	/* "0x401136 rdi 16", "0x401136 %rdi -0x58" */
};

struct line_req {
	enum line_kind kind;
	uint64_t addr;
	char reg[16];		/* register as written, without '%' */
	int64_t offset;
	const char *error;	/* static text when LINE_BAD */
};

/* Parse line[0..len) (no newline).  Never fails: bad input is LINE_BAD. */
void line_parse(const char *line, size_t len, struct line_req *req);

#endif
