// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Whole-binary indexes built ahead of need (dt_session_prepare, what the
 * plugin's resolving thread does while it waits for samples): in slices
 * of a few units, said in the trace, and the answers the same as with
 * the indexes made when first needed.  The binary is this test itself
 * (the library's units are in it, with DWARF), and get_y() reads through
 * container_of, which needs the index of embedding structs.
 */
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "../lib/dtprof.h"
#include "tap.h"

struct inner { long a, b; };
struct outer { long x; struct inner in; long y; };

__attribute__((noinline, used)) long get_y(struct inner *p)
{
	return ((struct outer *)((char *)p - offsetof(struct outer, in)))->y;
}

static int indexed_said;

static void count_indexed(void *arg, const char *msg)
{
	(void)arg;
	if (strstr(msg, "embedded aggregates") || strstr(msg, "static variables"))
		indexed_said++;
}

static bool same(const struct dt_answer *a, const struct dt_answer *b)
{
	return a->reason == b->reason && !strcmp(a->type, b->type) &&
	       a->offset == b->offset && !strcmp(a->field, b->field) &&
	       !strcmp(a->var, b->var);
}

int main(void)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	/* the trace says what is indexed */
	struct dt_session_opts o = { .sz = sizeof(o), .log = count_indexed,
				     .flags = DT_SESSION_TRACE };
	struct dt_session *ahead, *lazy;
	uint64_t start, size;

	self[n > 0 ? n : 0] = '\0';
	if (!ok(!dt_session_open(self, &o, &ahead) && !dt_session_open(self, &o, &lazy),
		"open this test twice"))
		return done_testing();
	unsigned slices = 1;
	while (!dt_session_prepare(ahead, 1) && slices < 100000)
		slices++;
	ok(slices > 10, "one unit a slice: %u slices", slices);
	is_int(indexed_said, 2, "both indexes made, before any question");
	ok(dt_session_prepare(ahead, 1), "then nothing is left to build");

	ok(!dt_session_symbol(ahead, "get_y", &start, &size), "get_y's symbol");
	int differ = 0, container = 0;
	for (uint64_t pc = start; pc < start + size; pc++) {
		struct dt_answer a, b;
		dt_resolve_pc(ahead, pc, &a);
		dt_resolve_pc(lazy, pc, &b);
		differ += !same(&a, &b);
		container += a.reason == DT_OK && !strcmp(a.type, "struct outer") &&
			     a.offset == 24 && !strcmp(a.field, "y");
	}
	is_int(differ, 0, "every address of get_y: the same answer with and without");
	ok(container > 0, "its container_of read is struct outer +24 (y), through the index");
	/* one walk of every unit makes every whole-file index (unitwalk.c) */
	is_int(indexed_said, 4, "the session without made both indexes on first need");
	dt_session_close(ahead);
	dt_session_close(lazy);

	/* a set of binaries: each prepared in turn */
	struct dt_dsos *d;
	enum dt_reason why;
	ok(!dt_dsos_new(NULL, &d) && dt_dsos_get(d, self, NULL, 0, &why),
	   "a set with this test in it");
	slices = 1;
	while (!dt_dsos_prepare(d, 8) && slices < 100000)
		slices++;
	ok(slices > 1 && dt_dsos_prepare(d, 8), "dt_dsos_prepare: %u slices, then done", slices);
	dt_dsos_free(d);
	return done_testing();
}
