#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Static addresses (tests/fixtures/globals.c): pc-relative and absolute
# operands, and registers loaded with a static's address (lea, adrp + add),
# name the global, static or function-static variable, its type and field;
# arrays name their element.  Every compiler (AArch64 cross-compiled),
# -O0 and -O2, PIE and not: no wrong type, at least 85% right.
. "$(dirname "$0")/lib.sh"

src=$DT_SRC/tests/fixtures/globals.c
a64=aarch64-linux-gnu-gcc
command -v $a64 >/dev/null 2>&1 || { [ "${DT_TEST_STRICT:-0}" = 1 ] && a64=missing-$a64 || a64=; }
for cc in $(dt_cc_list) $a64; do
	for o in 0 2; do
		for pie in pie no-pie; do
			bin=g-$cc-$o-$pie
			dt_test "$cc -O$o -$pie: builds" "$cc -O$o -g -$pie -o $bin '$src'"
			"$DT_SRC/tests/corpus-eval" -v "$src" $bin >$bin.eval 2>$bin.err
			set -- $(awk '$1 == "total"' $bin.eval) total 0 0 0 -1 0
			dt_test "$cc -O$o -$pie: no wrong type, at least 85% right ($3 of $2)" \
				"test $2 -ge 9 && test $5 = 0 && test \$(( $3 * 100 )) -ge \$(( $2 * 85 )) || dt_show $bin.eval $bin.err"
		done
	done
done
dt_done
