#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A shared library's thread-locals read the initial-exec way
# (tests/fixtures/tls-ie.c: "mov x@gottpoff(%rip),%rax; mov %fs:8(%rax),%eax",
# glibc's tcache and errno): named with their type and field through the
# GOT slot's TPOFF relocation, the slot loaded in the same basic block or
# (tie_across) in another, gcc and clang, -O0 and -O2, no wrong answer
# (clang -O2 keeps one field of the static struct and drops its location:
# unknown there);
# each answer checked on the running program, where gdb stops at the
# instruction and says which variable $fs_base + base + disp is in.
. "$(dirname "$0")/lib.sh"
dt_require gdb

fx=$DT_SRC/tests/fixtures
funcs="tie_call tie_depth tie_set_flags tie_count tie_slot2 tie_across"
for cc in $(dt_cc_list); do
	for o in 0 2; do
		lib=libtlsie-$cc-$o.so bin=tie-$cc-$o
		dt_shared_pair $cc $o "$fx/tls-ie.c" "$fx/tls-ie-main.c" $lib $bin ||
			{ dt_test "$cc -O$o builds" 'dt_show cc.err; false'; continue; }
		"$DTINSNS" $lib $funcs >$bin.all
		grep '%fs:' $bin.all >$bin.insns
		cut -f1 $bin.insns | "$DTRESOLVE" -v -e $lib >$bin.ans
		paste $bin.insns $bin.ans | cut -f1-3,5-7,9,10 >$bin.got
		right=$(awk -F'\t' '$8 == "ok"' $bin.got | wc -l)
		dt_test "$cc -O$o: %fs:(%reg) after the GOT load names the thread-local ($right of $(wc -l <$bin.got))" '
			test $right -ge 2 &&
			grep -q "^0x[0-9a-f]*	tie_count	[a-z]* .*%fs:(%r[a-z0-9]*)	int	0		tie_counter	ok$" $bin.got &&
			grep -q "^0x[0-9a-f]*	tie_across	mov %fs:(%rcx),%[a-z0-9]*	int	0		tie_counter	ok$" $bin.got &&
			! grep -v "	ok$" $bin.got | grep -qv "	(unknown)	" ||
			dt_show $bin.got
		'
		# truth from execution: gdb says where $fs_base + base + disp
		# lies (tests/lib.sh)
		dt_test "$cc -O$o: gdb on the running program: each access is inside the variable named, at its offset" '
			dt_tls_truth $bin $lib %fs: || dt_show $bin.checks $bin.where
		'
	done
done
dt_done
