#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# An indexed operand is an element of the base's pointee only when the
# index steps by whole elements (its scale times what the dataflow proves
# it a multiple of): bytes stored after a struct and tags after an array
# of other things are bad_offset with a reason, never a member.  Bytes in
# a struct's tail padding or past its end (a common header's, read as a
# larger object) are no member of it either: they are the one struct's
# that starts like it and has a whole member there, else unknown with the
# candidates named.
. "$(dirname "$0")/lib.sh"
dt_require gcc

fixture=$DT_SRC/tests/fixtures/indexed.c
for cc in $(dt_cc_list); do
	for o in 1 2; do
		b=ix-$cc-$o
		$cc -O$o -g -o $b "$fixture"
		ans() { dt_answers $b $1 -v; }
		dt_test "$cc -O$o: a terminator after a header is no member of it" "
			ans str_terminate >out &&
			test -s out && ! grep -q '	ok	' out &&
			! grep '	bad_offset	' out | grep -qv 'indexed by' || dt_show out
		"
		dt_test "$cc -O$o: a tag after an array of values is none of them" "
			ans tag_after >out &&
			test -s out && ! grep -q 'union value' out || dt_show out
		"
		dt_test "$cc -O$o: a read in a common header's padding is no member of it" "
			ans shrlen_of >out &&
			test -s out && ! grep -q 'struct gcobj	11' out &&
			grep -q '	bad_offset	.*2 structs start like struct gcobj: struct tstr+11 struct ttab+11' out ||
			dt_show out
		"
		dt_test "$cc -O$o: past a header, the one struct starting like it with a member there" "
			ans nparams_of >out &&
			grep -q '	struct tproto	10	nparams	.*struct tproto starts like it' out &&
			! grep -q lookalike out || dt_show out
		"
		dt_test "$cc -O$o: a trailing array may hold it: candidates, not one of them" "
			ans node_of >out &&
			test -s out && ! grep -q '	ok	' out &&
			grep -q '	bad_offset	.*2 structs start like struct gcobj: struct tstr+16 struct ttab+16' out ||
			dt_show out
		"
		dt_test "$cc -O$o: past the fixed part, a flexible array's element" "
			ans forward_of >out && grep -q '	struct snode	16	level\[0\]\.forward	' out &&
			ans span_of >out2 && grep -q '	struct snode	24	level\[0\]\.span	' out2 &&
			! grep -q '	ele	' out out2 || dt_show out out2
		"
		dt_test "$cc -O$o: whole elements are still named" "
			ans hdr_lru >out && grep -q 'struct hdr	8	lru' out &&
			ans value_tt >out2 && grep -q 'union value	8	s.tt' out2 ||
			dt_show out out2
		"
	done
done
dt_done
