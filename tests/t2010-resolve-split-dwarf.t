#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Split DWARF (-gsplit-dwarf: skeleton units in the binary, the rest in
# .dwo files beside it or in the compilation directory) resolves exactly
# as the same build without it: every access of the corpus and globals
# fixtures, gcc and clang, -O0 and -O2, and the annotated layouts.  A
# missing .dwo is said once, and its accesses are misses, never guesses.
. "$(dirname "$0")/lib.sh"
dt_require gcc

for fx in corpus globals; do
	src=$DT_SRC/tests/fixtures/$fx.c
	fns=$(sed -n 's/.*@expect [a-z_]* \([a-z_0-9]*\):.*/\1/p' "$src")
	for cc in $(dt_cc_list); do
		for o in 0 2; do
			b=$fx-$cc-$o
			$cc -O$o -g -o $b-plain "$src"
			$cc -O$o -g -gsplit-dwarf -c -o $b.o "$src" && $cc -o $b-split $b.o
			"$DTINSNS" $b-plain $fns | cut -f1 >$b.addrs
			dt_test "$fx, $cc -O$o: split DWARF answers as the plain build" "
				test -f $b.dwo &&
				'$DTRESOLVE' -v -e $b-plain $b.addrs | cut -f1-4,6-7 >want &&
				'$DTRESOLVE' -v -e $b-split $b.addrs 2>err | cut -f1-4,6-7 >got &&
				dt_cmp want got && ! test -s err && grep -q '	ok$' got
			"
		done
	done
done

b=corpus-gcc-2
dt_test 'split DWARF: the annotated layouts are the plain build s' '
	"$DTRESOLVE" --aggregate=annotate -e $b-plain $b.addrs | sed 1,4d >want &&
	"$DTRESOLVE" --aggregate=annotate -e $b-split $b.addrs | sed 1,4d >got &&
	dt_cmp want got && grep -q "^Annotate type: .struct callchain_list." got
'
dt_test 'a missing .dwo: said once, every access a miss' '
	mkdir gone && cp $b-split gone/ && cd gone &&
	mv ../$b.dwo ../$b.dwo.away &&
	"$DTRESOLVE" -v -e $b-split ../$b.addrs >out 2>err;
	mv ../$b.dwo.away ../$b.dwo &&
	test $(grep -c "split DWARF file .*$b.dwo. not found" err) = 1 &&
	! awk -F"\t" "\$2 !~ /^\\(/" out | grep -q . || dt_show out err
'
dt_done
