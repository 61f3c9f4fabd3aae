#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-slow: random programs built by three compilers, each run under valgrind
# Code nobody wrote for the tests: random programs from tests/gen (random
# struct layouts, access patterns), built by gcc and clang at every -O
# level, each memory instruction checked against what it touched when the
# program ran (valgrind lackey; for AArch64 builds qemu-user with
# tests/gen/qemu-trace.c).  No build may name a wrong type or field; each
# must get at least 90% right.  make fuzz-accuracy runs many seeds.
. "$(dirname "$0")/lib.sh"
dt_require valgrind perl
gen=$DT_SRC/tests/gen
seeds="1 2"
builds=
for cc in $(dt_cc_list); do
	for o in 0 1 2 3 s; do
		builds="$builds $cc-O$o"
	done
done
a64=aarch64-linux-gnu-gcc
if command -v $a64 >/dev/null 2>&1 && command -v qemu-aarch64 >/dev/null 2>&1; then
	builds="$builds $a64-O0 $a64-O2"
else
	dt_test "$a64 and qemu-aarch64 are installed (DT_TEST_STRICT)" \
		"test '${DT_TEST_STRICT:-0}' != 1"
fi

dt_test "the generated programs build, run and are scored" "
	'$gen/run' -j 2 out 1 2 $builds >table 2>err && ! grep . err || dt_show err
"
grep '^build\|(all)' table | sed 's/^/#   /'
for b in $builds; do
	row=$(awk -v b=$b '$1 == b && $2 == "(all)"' table)
	set -- ${row:-$b (all) 0 0 -1 -1 0 0%}
	dt_test "$b: at least 40 accesses labeled by execution ($3)" "test $3 -ge 40"
	dt_test "$b: no wrong type ($6) and no wrong field ($5)" "
		test $6 = 0 && test $5 = 0 || { grep '^$b' out/*-$b.verdicts | grep ' wrong'; false; }"
	dt_test "$b: at least 90% right ($4 of $3)" "test \$(( $4 * 100 )) -ge \$(( $3 * 90 ))"
	# a call's result kept across a call to a small leaf, in a register
	# the leaf never writes (gcc's -fipa-ra): every one followed
	row=$(awk -v b=$b '$1 == b && $2 == "call_result"' table)
	[ -n "$row" ] && set -- $row &&
	dt_test "$b: every call result followed ($4 of $3)" "test $4 = $3"
done

# The scorer must notice a wrong answer: a dtresolve that says struct s1
# where the real one says struct s0.
mkdir -p liar/tests
ln -s "$DT_BUILD/tests/dtinsns" liar/tests/dtinsns
cat >liar/dtresolve <<LIAR
#!/bin/sh
"$DTRESOLVE" "\$@" | sed 's/	struct s0	/	struct s1	/'
LIAR
chmod +x liar/dtresolve
dt_test "a wrong type is scored as wrong" "
	DT_BUILD=\$PWD/liar '$gen/check-one' 1 gcc 2 \$PWD >liar.out &&
	grep -q ' wrong ' liar.out
"
dt_done
