#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The container index (lib/engine/containers.c) keeps one copy of each
# definition that every unit repeats, and must not take two different
# definitions for one: here a header defines struct box one way in a.c
# (-DWIDE: the list link at +8) and another in b.c (the link at +0, then
# a pointer), same name, size, file and line.  b.c's container_of from
# the link to ->owner is named only if b.c's definition was indexed
# although a.c's came first.
. "$(dirname "$0")/lib.sh"

cat >box.h <<'EOF2'
struct link { struct link *next, *prev; };
struct box {
#ifdef WIDE
	int tag, tag2;
	struct link l;
#else
	struct link l;
	void *owner;
#endif
};
EOF2
cat >a.c <<'EOF2'
#define WIDE
#include "box.h"
int a_tag(struct box *b) { return b->tag2; }
EOF2
cat >b.c <<'EOF2'
#include <stddef.h>
#include "box.h"
void *b_owner(struct link *p)
{
	return ((struct box *)((char *)p - offsetof(struct box, l)))->owner;
}
int main(void) { return 0; }
EOF2

for cc in $(dt_cc_list); do
	for o in 0 2; do
		bin=box-$cc-$o
		dt_test "$cc -O$o: builds, a.c's unit first" "$cc -O$o -g -o $bin a.c b.c"
		"$DTINSNS" $bin b_owner | grep '(' | cut -f1 | "$DTRESOLVE" -v -e $bin >$bin.out 2>&1
		dt_test "$cc -O$o: b.c's struct box +16 (owner) through its own definition" "
			grep -q '	struct box	16	owner	' $bin.out || dt_show $bin.out"
	done
done
dt_done
