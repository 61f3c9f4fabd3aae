#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The program's thread-locals (tests/fixtures/tls.c), read at a fixed
# offset below the thread pointer (x86-64 local-exec, "%fs:-0x18"): named
# with their type and field, gcc and clang, -O0 and -O2, PIE and not, no
# wrong type; and each answer checked against the running program, where
# gdb says how far below the thread pointer the variable really is.
. "$(dirname "$0")/lib.sh"
dt_require gdb

src=$DT_SRC/tests/fixtures/tls.c
# shellcheck disable=SC2016
# (clang -O0 indexes an array by loading the thread pointer itself,
# "%fs:0x0", the thread's control block: unknown, not ours)
dt_eval_builds "$src" t 'no wrong type, every thread-local but the %fs:0x0 load right' \
	'test $n -ge 6 && test $wrong = 0 && test $((right * 100)) -ge $((n * 80))' $(dt_cc_list)

# truth from execution: "%fs:DISP" falls inside the variable the answer
# names, where gdb finds it below the thread pointer, at the answer's
# offset within its type (an array's element: modulo the element's size)
bin=t-gcc-2-pie
"$DTINSNS" $bin count_call count_hit get_flags set_depth slot2 slot_i pair_hi |
	grep "%fs:" >fs.insns
cut -f1 fs.insns | "$DTRESOLVE" -v -e $bin >fs.ans
paste fs.insns fs.ans | awk -F'\t' '$10 == "ok" {
	match($3, /%fs:-?0x[0-9a-f]+/); d = substr($3, RSTART + 4, RLENGTH - 4)
	print d "\t" $6 "\t" $9 "\t" $5 }' >checks
{
	echo "break slot2"
	echo "run"
	while IFS='	' read disp off var type; do
		echo "p (long)&$var - (long)\$fs_base"
		echo "p sizeof($var)"
		echo "p sizeof($type)"
	done <checks
} >gdb.cmds
dt_test 'gdb on the running program: every %fs: offset is inside the variable named, at its offset' '
	test $(wc -l <checks) -ge 5 &&
	gdb -batch -x gdb.cmds ./$bin 2>/dev/null | awk "/^[$][0-9]+ = / { print \$3 }" |
		paste - - - >where && test $(wc -l <where) = $(wc -l <checks) &&
	paste checks where | perl -ne "
		chomp; my (\$d, \$off, \$var, \$type, \$base, \$size, \$tsize) = split /\t/;
		\$d = \$d =~ s/^-// ? -hex(\$d) : unpack(q(q), pack(q(Q), hex(\$d)));
		my \$delta = \$d - \$base;
		exit 1 unless \$delta >= 0 && \$delta < \$size && \$delta % \$tsize == \$off;
	" || dt_show checks where
'
dt_done
