#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Objects in the stack frame (tests/fixtures/stack.c): rsp- and
# rbp-relative operands name the local or parameter, its type and field,
# through DW_OP_fbreg (frame base: the CFA from CFI, or a register) and
# clang's pieces.  Every compiler and -O level: no wrong type; -O0 all.
. "$(dirname "$0")/lib.sh"

src=$DT_SRC/tests/fixtures/stack.c
for cc in $(dt_cc_list); do
	for o in 0 1 2 3; do
		bin=s-$cc-$o
		dt_test "$cc -O$o: builds" "$cc -O$o -g -o $bin '$src'"
		"$DT_SRC/tests/corpus-eval" -v "$src" $bin >$bin.eval 2>$bin.err
		echo "# $cc -O$o: $(awk '$1 == "total"' $bin.eval)"
		set -- $(awk '$1 == "total"' $bin.eval) total 0 0 0 -1 0
		dt_test "$cc -O$o: no wrong type among $2 stack accesses" \
			"test $2 -ge 10 && test $5 = 0 || dt_show $bin.eval $bin.err"
		if [ $o = 0 ]; then
			dt_test "$cc -O0: every stack access right ($3 of $2)" \
				"test $3 = $2 || dt_show $bin.eval"
		else
			dt_test "$cc -O$o: at least 85% right ($3 of $2)" \
				"test \$(( $3 * 100 )) -ge \$(( $2 * 85 )) || dt_show $bin.eval"
		fi
	done
done
dt_done
