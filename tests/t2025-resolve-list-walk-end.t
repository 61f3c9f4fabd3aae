#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A list walk's look-ahead (list_for_each_entry_safe reads the next
# entry's link before it tests for the head) reads, on its last step, the
# list's head through the entry type's pointer: the head sits alone in
# another object.  An access in a bare link (struct list_head) through a
# pointer the code compares with another one is named by the link, right
# on every step, the entry kept in the note; the other reads keep their
# types, and so does a head compared with its own next.  A link that is
# one view of a union is named by the link only when the code uses the
# value loaded as a pointer into the next entry (container_of of it, a
# compare, a dereference); a store of the union's other view stays the
# union's.  Checked under
# valgrind's lackey on every executed instruction.
. "$(dirname "$0")/lib.sh"
dt_require gcc python3

fixture=$DT_SRC/tests/fixtures/listend.c
gcc -O2 -shared -fPIC -o malloclog.so "$DT_SRC/tests/malloclog.c" -ldl
for b in $(dt_cc_list cross); do
	for o in 1 2; do
		bin=le-$b-$o
		$b -O$o -g -o $bin "$fixture" || echo "$b -O$o failed" >&2
	done
done

for b in $(dt_cc_list cross); do
	for o in 1 2; do
		bin=le-$b-$o
		ans() { "$DTINSNS" $bin $1 | grep '[[(]' | cut -f1 |
			"$DTRESOLVE" -e $bin -v | grep -v '	no_mem_op	\|(stack operation)'; }
		dt_test "$b -O$o: the safe walk's look-ahead is named by the link" "
			ans sum_safe >out && ans drop_all >>out &&
			grep -q '	struct list_head	0	next	' out &&
			! grep -q '	struct item	16	node.next	' out || dt_show out
		"
		dt_test "$b -O$o: the walks' other reads keep the entry and the owner" "
			ans sum_safe >out && ans sum_plain >>out &&
			grep -q '	struct item	8	val	' out &&
			grep -q '	struct item	0	key	' out &&
			grep -q '	struct owner	0	items.next	' out || dt_show out
		"
		dt_test "$b -O$o: a head compared with its own next is the owner's" "
			ans owner_empty >out &&
			grep -q '	struct owner	0	items.next	' out &&
			! grep -q 'list walk' out || dt_show out
		"
		dt_test "$b -O$o: a walk through a union's link view: named by the link" "
			ans count_pages >out && grep -q '	struct list_head	0	next	' out &&
			! grep -q '	struct pg	8	' out || dt_show out
		"
		dt_test "$b -O$o: a link that is one view of a union keeps the union's answer" "
			ans set_compound >out && grep -q '	struct pg	8	' out &&
			! grep -q 'struct list_head' out || dt_show out
		"
		dt_test "$b -O$o: a compared pointer in no bare link keeps its type" "
			ans tag_until >out && grep -q '	struct tagged	0	next	' out &&
			! grep -q 'list walk' out || dt_show out
		"
	done
done

# every executed instruction on a heap object, under lackey
command -v valgrind >/dev/null 2>&1 || dt_skip_all "valgrind not installed"
for b in $(dt_cc_list); do
	for o in 1 2; do
		bin=le-$b-$o
		env MALLOCLOG="$PWD/$bin.mlog" MALLOCLOG_MARKS=1 LD_PRELOAD="$PWD/malloclog.so" \
			valgrind --tool=lackey --trace-mem=yes --log-file="$PWD/$bin.trace" \
			./$bin >/dev/null 2>$bin.err
		dt_test "$b -O$o: under lackey, every answer on a heap object is right" "
			python3 '$DT_SRC/tests/heap-oracle.py' --lackey $bin.mlog $bin.trace \
				'$PWD/$bin' '$DTRESOLVE' >$bin.verdict 2>$bin.wrong &&
			awk '\$4 >= 8 && \$4 == \$6 && \$8 == 0 { ok = 1 } END { exit !ok }' $bin.verdict ||
			dt_show $bin.err $bin.verdict $bin.wrong
		"
	done
done
dt_done
