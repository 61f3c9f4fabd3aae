#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Split DWARF (-gsplit-dwarf: skeleton units in the binary, the rest in
# .dwo files beside it or in the compilation directory, or in one .dwp
# package) resolves exactly as the same build without it: every access
# of the corpus and globals fixtures, gcc and clang, -O0 and -O2, and the
# annotated layouts.  A missing .dwo is said once, and its accesses are
# misses, never guesses.
. "$(dirname "$0")/lib.sh"
dt_require gcc

for fx in corpus globals; do
	src=$DT_SRC/tests/fixtures/$fx.c
	fns=$(dt_fixture_functions "$src")
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

# DWARF packages: the .dwo files merged into BINARY.dwp (llvm-dwp), read
# by libdw 0.191 or later.  Debian 12's tools make a package of gcc's
# DWARF 4 split units and of clang's DWARF 5 ones; of gcc's DWARF 5
# units llvm-dwp 14 makes none (it does not end) and gold's dwp one
# without their .debug_info.
for fx in corpus globals; do
	src=$DT_SRC/tests/fixtures/$fx.c
	fns=$(dt_fixture_functions "$src")
	for build in gcc-gdwarf-4 clang-gdwarf-5; do
		cc=${build%%-*} dw=${build#*-}
		for o in 0 2; do
			b=dwp-$fx-$cc-$o
			mkdir $b && (
				cd $b && $cc -O$o -g -$dw -o plain "$src" &&
				$cc -O$o -g -$dw -gsplit-dwarf -c -o $fx.o "$src" &&
				$cc -o split $fx.o && timeout 60 llvm-dwp -e split -o split.dwp &&
				rm $fx.dwo && "$DTINSNS" plain $fns | cut -f1 >addrs
			)
			dt_test "$fx, $cc -$dw -O$o: a .dwp package answers as the plain build" "
				cd $b && test -s split.dwp && ! test -e $fx.dwo &&
				'$DTRESOLVE' -v -e plain addrs | cut -f1-4,6-7 >want &&
				'$DTRESOLVE' -v -e split addrs 2>err | cut -f1-4,6-7 >got &&
				dt_cmp want got && grep -q '	ok\$' got || dt_show err
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
for cc in $(dt_cc_list); do
	b=corpus-$cc-2
	dt_test "split DWARF, $cc: the code view's source lines are the plain build's" '
		for fn in $(dt_fixture_functions "$DT_SRC/tests/fixtures/corpus.c" | sort -u | head -n 12); do
			"$DTRESOLVE" -e '$b'-plain --aggregate=code=$fn '$b'.addrs |
				sed "s/ in '$b'-plain / in BINARY /"
		done >want &&
		for fn in $(dt_fixture_functions "$DT_SRC/tests/fixtures/corpus.c" | sort -u | head -n 12); do
			"$DTRESOLVE" -e '$b'-split --aggregate=code=$fn '$b'.addrs |
				sed "s/ in '$b'-split / in BINARY /"
		done >got &&
		dt_cmp want got && test $(grep -c "^  corpus\.c:[0-9]" got) -ge 12
	'
done
dt_test 'a missing .dwo: said once, every access a miss' '
	mkdir gone && cp $b-split gone/ && cd gone &&
	mv ../$b.dwo ../$b.dwo.away &&
	"$DTRESOLVE" -v -e $b-split ../$b.addrs >out 2>err;
	mv ../$b.dwo.away ../$b.dwo &&
	test $(grep -c "split DWARF file .*$b.dwo. not found" err) = 1 &&
	! awk -F"\t" "\$2 !~ /^\\(/" out | grep -q . || dt_show out err
'
# A .dwo or a .dwp that is a FIFO (or any file that is not regular):
# libdw would open it blocking, so it is never opened; its units miss.
dt_test 'a FIFO in the place of the .dwo: no hang, said once, every access a miss' '
	mkdir fifo-dwo && cp $b-split fifo-dwo/ && cd fifo-dwo &&
	mv ../$b.dwo ../$b.dwo.away && mkfifo ../$b.dwo &&
	timeout 30 "$DTRESOLVE" -v -e $b-split ../$b.addrs >out 2>err;
	rc=$?; rm ../$b.dwo && mv ../$b.dwo.away ../$b.dwo &&
	test $rc = 0 && test $(wc -l <out) = $(wc -l <../$b.addrs) &&
	test $(grep -c "not a regular file: not opened" err) = 1 &&
	! awk -F"\t" "\$2 !~ /^\\(/" out | grep -q . || dt_show out err
'
dt_test 'a FIFO named BINARY.dwp: no hang, every access a miss' '
	mkdir fifo-dwp && cp $b-split fifo-dwp/ && cd fifo-dwp &&
	mkfifo $b-split.dwp &&
	timeout 30 "$DTRESOLVE" -v -e $b-split ../$b.addrs >out 2>err &&
	grep -q "$b-split.dwp., which is not a regular file" err &&
	! awk -F"\t" "\$2 !~ /^\\(/" out | grep -q . || dt_show out err
'
dt_test 'a directory named like the .dwo: no answer from it, no crash' '
	mkdir dir-dwo && cp $b-split dir-dwo/ && cd dir-dwo &&
	mv ../$b.dwo ../$b.dwo.away && mkdir ../$b.dwo &&
	timeout 30 "$DTRESOLVE" -v -e $b-split ../$b.addrs >out 2>err;
	rc=$?; rmdir ../$b.dwo && mv ../$b.dwo.away ../$b.dwo &&
	test $rc = 0 && ! awk -F"\t" "\$2 !~ /^\\(/" out | grep -q . ||
	dt_show out err
'
dt_done
