// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Fuzz harness of instruction decoding and tracking, for both the
 * fixed-seed pass of make check (t8002) and AFL++ (make fuzz): the bytes
 * of FILE stand for the code of function SYMBOL in BINARY (an x86-64 or
 * AArch64 build), and every address in it is resolved — decoded, its
 * memory operand read, the function's dataflow run — plain and with skid
 * compensation.  Nothing is printed; a crash or sanitizer report is the
 * finding.
 *   dtfuzz BINARY SYMBOL FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/dtprof.h"

struct code {
	uint64_t start;
	const uint8_t *bytes;
	size_t len;
};

/* The fuzz bytes where the function is, the file elsewhere. */
static int read_fuzz(void *arg, uint64_t pc, uint8_t *buf, size_t len)
{
	const struct code *c = arg;

	if (pc < c->start || pc - c->start >= c->len)
		return 0;
	size_t n = c->len - (size_t)(pc - c->start);
	if (n > len)
		n = len;
	memcpy(buf, c->bytes + (pc - c->start), n);
	return (int)n;
}

int main(int argc, char **argv)
{
	struct dt_session *s;
	static uint8_t bytes[4096];
	struct code c = { .bytes = bytes };
	uint64_t size;
	struct dt_answer a;

	if (argc != 4) {
		fprintf(stderr, "usage: dtfuzz BINARY SYMBOL FILE\n");
		return 2;
	}
	FILE *f = fopen(argv[3], "rb");
	if (!f) {
		perror(argv[3]);
		return 2;
	}
	c.len = fread(bytes, 1, sizeof(bytes), f);
	fclose(f);
	if (dt_session_open(argv[1], NULL, &s) ||
	    dt_session_symbol(s, argv[2], &c.start, &size)) {
		fprintf(stderr, "dtfuzz: no '%s' in '%s'\n", argv[2], argv[1]);
		return 2;
	}
	dt_session_set_code_reader(s, read_fuzz, &c);
	for (size_t off = 0; off < c.len; off++) {
		dt_resolve_pc(s, c.start + off, &a);
		dt_resolve_sample(s, c.start + off, DT_RESOLVE_SKID, &a);
	}
	dt_session_close(s);
	return 0;
}
