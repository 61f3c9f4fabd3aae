#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Static addresses (tests/fixtures/globals.c): pc-relative and absolute
# operands name the global, static or function-static variable, its type
# and field; arrays name their element.  Every compiler, -O0 and -O2, PIE
# and not.
. "$(dirname "$0")/lib.sh"

src=$DT_SRC/tests/fixtures/globals.c
for cc in $(dt_cc_list); do
	for o in 0 2; do
		for pie in pie no-pie; do
			bin=g-$cc-$o-$pie
			dt_test "$cc -O$o -$pie: builds" "$cc -O$o -g -$pie -o $bin '$src'"
			"$DT_SRC/tests/corpus-eval" -v "$src" $bin >$bin.eval 2>$bin.err
			set -- $(awk '$1 == "total"' $bin.eval) total 0 0 0 -1 0
			dt_test "$cc -O$o -$pie: every static access right ($3 of $2), no wrong type" \
				"test $2 -ge 9 && test $3 = $2 || dt_show $bin.eval $bin.err"
		done
	done
done
dt_done
