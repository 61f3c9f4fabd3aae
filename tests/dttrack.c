// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Test and bench helper: how often instruction tracking agrees with DWARF
 * where both have an answer.  For each link-time address read from stdin
 * (a memory instruction), the base register's type as the variables at
 * that pc describe it is compared with what track.c's dataflow proved
 * without looking at that pc's variables.  Where DWARF names a variable,
 * it is the truth; a tracked type no variable there has is a tracking
 * error (or a cast: -v prints each to look at).
 * usage: dttrack [-v] BINARY < ADDRESSES
 * Prints: "compared N agree A disagree D tracked_only T".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/engine/internal.h"

/* "to.ms.sym" ends with the member path "ms.sym" */
static bool suffix_field(const char *longer, const char *shorter)
{
	size_t ll = strlen(longer), ls = strlen(shorter);

	return ls && ll > ls && !strcmp(longer + ll - ls, shorter) &&
	       longer[ll - ls - 1] == '.';
}

int main(int argc, char **argv)
{
	bool verbose = argc > 1 && !strcmp(argv[1], "-v");
	struct dt_session *s;
	unsigned long compared = 0, agree = 0, nested = 0, disagree = 0, tracked_only = 0;
	char line[256];

	if (argc != 2 + verbose) {
		fprintf(stderr, "usage: dttrack [-v] BINARY < ADDRESSES\n");
		return 2;
	}
	int err = dt_session_open(argv[1 + verbose], NULL, &s);
	if (err) {
		fprintf(stderr, "dttrack: cannot open '%s': %s\n", argv[1 + verbose],
			dt_strerror(err));
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t pc = strtoull(line, NULL, 0);
		struct decoded_insn insn;
		struct dt_mem_op op;
		size_t avail, n;
		const uint8_t *code = session_code_at(s, pc, &avail);
		if (!code || !decoder_run(s->decoder, pc, code, avail, &insn) ||
		    s->arch->classify(insn.toks, insn.ntoks, &op) != DT_OP_MEMORY ||
		    op.base < 0 || op.base == s->arch->dwarf_sp)
			continue;
		struct var_hit hits[8], tracked;
		struct type_hit t, d = { .size = 0 }, th;
		struct access acc = { .size = op.size, .fp = op.fp, .bits = op.bits };
		if (track_register(s, pc, op.base, &tracked) != DT_OK)
			continue;
		enum dt_reason tr = type_member_at(s, &tracked.pointee, tracked.typedef_name,
						   op.disp - tracked.bias, &acc, &t);
		if (tr != DT_OK || !track_hit_trusted(&tracked, tr, &t))
			continue;	/* resolve.c would not answer from it */
		if (scope_find_vars(s, pc + (uint64_t)s->dwarf_adjust, op.base, hits, 8,
				    &n) != DT_OK) {
			tracked_only++;
			continue;
		}
		/* DWARF's answer as resolve.c picks it: inside, the largest */
		bool have = false;
		for (size_t i = 0; i < n; i++)
			if (type_member_at(s, &hits[i].pointee, hits[i].typedef_name,
					   op.disp - hits[i].bias, &acc, &th) == DT_OK &&
			    (!have || (!th.beyond_end && th.size > d.size))) {
				d = th;
				have = true;
			}
		if (!have)
			continue;
		compared++;
		if (!strcmp(t.type, d.type) && t.offset == d.offset) {
			agree++;
		} else if (suffix_field(d.field, t.field) || suffix_field(t.field, d.field)) {
			nested++;	/* the same field, named from a member struct */
		} else {
			disagree++;
			if (verbose)
				printf("%#" PRIx64 "\tdwarf %s +%lld (%s)\ttracked %s +%lld (%s)\n",
				       pc, d.type, (long long)d.offset, d.field, t.type,
				       (long long)t.offset, t.field);
		}
	}
	printf("compared %lu agree %lu nested %lu disagree %lu tracked_only %lu\n",
	       compared, agree, nested, disagree, tracked_only);
	dt_session_close(s);
	return 0;
}
