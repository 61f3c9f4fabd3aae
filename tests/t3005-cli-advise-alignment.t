#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# advise takes each member's psABI alignment, not its size: structs with
# _Complex, long double and __int128 members are not "packed", and what
# it proposes for them compiles with the size and alignment it promises.
. "$(dirname "$0")/lib.sh"

fixture=$DT_SRC/tests/fixtures/advise-align.c
for cc in $(dt_cc_list); do
	for opt in -O0 -O2; do
		bin=al-$cc$opt
		dt_test "$cc $opt: builds" "$cc $opt -g -o $bin '$fixture'"
		"$DTINSNS" $bin touch_cplx touch_wide touch_cint | cut -f1 >$bin.addrs
		for type in cplx wide cint; do
			dt_test "$cc $opt, struct $type: not called packed" "
				\"\$DTRESOLVE\" -e $bin --aggregate=advise=$type <$bin.addrs \
					>$bin.$type.h 2>$bin.err &&
				grep -q 'dtprof advice for struct $type' $bin.$type.h &&
				! grep -q packed $bin.$type.h || dt_show $bin.$type.h $bin.err
			"
		done
	done
done
dt_done
