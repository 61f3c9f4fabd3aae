#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# dtresolve -e BINARY with perf script lines: a line's sym+0xOFF is used
# before -e (as dtresolve(1) orders the rules), and a line naming another
# file is never read through -e, even one of the same base name.
. "$(dirname "$0")/lib.sh"
dt_require gcc nm

mkdir a b
gcc -O2 -g -pie -fPIE -o a/prog "$DT_SRC/tests/fixtures/corpus.c"
gcc -O2 -g -pie -fPIE -o b/prog "$DT_SRC/tests/fixtures/advise-align.c"

# perf_lines BIN PATH FUNCTION...: perf script -F ip,sym,symoff,dso lines
# of BIN's memory instructions in FUNCTIONs, as a PIE run at
# 0x555555554000 prints them, naming the binary PATH
perf_lines() {
	bin=$1 path=$2
	shift 2
	"$DTINSNS" $bin "$@" | grep "(" | while IFS='	' read addr fn insn; do
		start=0x$(nm $bin | awk -v f=$fn '$3 == f { print $1 }')
		printf '     %x %s+0x%x (%s)\n' $((0x555555554000 + addr)) $fn \
			$((addr - start)) "$path"
	done
}

dt_test 'lines of the -e binary (a PIE): read by sym+0xOFF, right answers' '
	perf_lines a/prog "$PWD/a/prog" node_key cl_map item_val >a.lines &&
	test $(wc -l <a.lines) -ge 3 &&
	"$DTRESOLVE" -v -e a/prog a.lines >out 2>err &&
	"$DTINSNS" a/prog node_key cl_map item_val | grep "(" | cut -f1 |
		"$DTRESOLVE" -e a/prog | cut -f2-4 >want &&
	cut -f2-4 out >got && dt_cmp want got &&
	test "$(cut -f8 out | sort -u)" = sym &&
	! grep -q "no_insn" out || dt_show out err
'

dt_test 'lines of another prog (same base name) with -e a/prog: its own answers' '
	perf_lines b/prog "$PWD/b/prog" touch_cplx touch_wide >b.lines &&
	test $(wc -l <b.lines) -ge 3 &&
	"$DTRESOLVE" -v -e a/prog b.lines >out 2>err &&
	! grep -q "struct node\|struct item\|callchain" out &&
	grep -q "struct cplx\|struct wide" out &&
	test "$(cut -f5 out | sort -u)" = "$PWD/b/prog" || dt_show out err
'

# non-PIE builds: another binary's link-time addresses fall in -e's code
mkdir a2 b2
gcc -O2 -g -no-pie -o a2/prog "$DT_SRC/tests/fixtures/corpus.c"
gcc -O2 -g -no-pie -o b2/prog "$DT_SRC/tests/fixtures/advise-align.c"

dt_test 'another prog without sym+0xOFF: never mapped through -e' '
	"$DTINSNS" b2/prog touch_cplx touch_wide | grep "(" |
		awk -v p="$PWD/b2/prog" "{ printf \" %16x [unknown] (%s)\\n\", \$1, p }" >b.nosym &&
	test $(wc -l <b.nosym) -ge 3 &&
	"$DTRESOLVE" -v -e a2/prog b.nosym >out 2>err &&
	test $(wc -l <out) = $(wc -l <b.nosym) &&
	test "$(cut -f7 out | sort -u)" = no_insn || dt_show b.nosym out err
'

dt_test 'a recorded path missing here, same base name: stands for -e' '
	sed "s|$PWD/a/prog|/elsewhere/prog|" a.lines >moved.lines &&
	"$DTRESOLVE" -v -e a/prog moved.lines >out 2>err &&
	cut -f2-4 out >got && dt_cmp want got || dt_show out err
'

dt_done
