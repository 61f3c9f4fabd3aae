#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# What a posix_memalign call site proves of its block (dtsite -s: the
# variable the block is reloaded into from the stack slot it was stored
# in), on every compiler and -O level: never a wrong type; a void * or a
# pointer passed on proves nothing (clang passes it on by a tail call:
# no site at all); gcc -O2 proves each of the two typed, with frame
# pointers too (the slot then %rbp's).
. "$(dirname "$0")/lib.sh"
dt_require objdump

src=$DT_SRC/tests/fixtures/stored.c
# sites BIN FUNC: the return addresses of FUNC's calls of posix_memalign
sites() {
	objdump -d --no-show-raw-insn --disassemble="$2" "$1" 2>/dev/null |
		awk '/call.*<posix_memalign(@plt)?>/ { want = 1; next }
		     want && /^ +[0-9a-f]+:/ { sub(":", "", $1); print "0x" $1; want = 0 }'
}
for cc in $(dt_cc_list); do
	for o in 0 1 2 3 2fp; do
		# 2fp: -O2 with frame pointers (the slot is %rbp's then)
		flags=-O$o
		[ "$o" = 2fp ] && flags="-O2 -fno-omit-frame-pointer"
		bin=st-$cc-$o
		dt_test "$cc $flags: builds" "$cc $flags -g -o $bin '$src'"
		: >$bin.out
		for f in into_item into_pair into_void into_caller; do
			sites $bin $f | "$DT_BUILD/tests/dtsite" -s $bin | sed "s/^/$f	/" >>$bin.out
		done
		dt_test "$cc $flags: a site for each call, no wrong type" "
			for f in into_item into_pair into_void; do
				grep -q \"^\$f	\" $bin.out || exit 1
			done &&
			awk -F'\t' '
				\$1 == \"into_item\" && \$3 != \"-\" && !(\$3 == \"struct item\" && \$5 == \"it\") { bad++ }
				\$1 == \"into_pair\" && \$3 != \"-\" && !(\$3 == \"struct pair\" && \$5 == \"p\") { bad++ }
				(\$1 == \"into_void\" || \$1 == \"into_caller\") && \$3 != \"-\" { bad++ }
				END { exit bad > 0 }' $bin.out || dt_show $bin.out
		"
		echo "# $cc $flags: $(awk -F'\t' '$3 != "-" { n++ } END { print n + 0 }' $bin.out) of 2 typed sites proven"
	done
done
dt_test 'gcc -O2 proves both typed sites, with frame pointers too' '
	test "$(awk -F"\t" "\$3 != \"-\"" st-gcc-2.out | grep -c .)" = 2 &&
	test "$(awk -F"\t" "\$3 != \"-\"" st-gcc-2fp.out | grep -c .)" = 2 ||
	dt_show st-gcc-2.out st-gcc-2fp.out
'
dt_done
