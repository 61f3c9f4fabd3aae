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
		$cc -O$o -g -fPIC -shared -o $lib "$fx/tls-ie.c" 2>cc.err &&
			$cc -O$o -g -o $bin "$fx/tls-ie-main.c" -L. -ltlsie-$cc-$o \
				-Wl,-rpath,'$ORIGIN' 2>>cc.err ||
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
		# truth from execution: stop at each answered instruction and
		# ask gdb where $fs_base + base + disp lies (hits come in the
		# order main calls the functions: each says which check it is)
		awk -F'\t' '$8 == "ok" && match($3, /%fs:(-?0x[0-9a-f]+)?\(%r[a-z0-9]+\)/) {
			m = substr($3, RSTART + 4, RLENGTH - 4)
			d = m; sub(/\(.*/, "", d); if (d == "") d = "0"
			r = m; sub(/.*\(%/, "", r); sub(/\)/, "", r)
			print $1 "\t" $2 "\t" d "\t" r "\t" $5 "\t" $7 "\t" $4 }' $bin.got >$bin.checks
		nm $lib | awk '$2 ~ /^[tT]$/ { print $3 "\t" $1 }' >$bin.funcs
		{
			echo "set breakpoint pending on"
			echo "start"
			n=0
			while IFS='	' read pc fn disp reg off var type; do
				n=$((n + 1))
				base=$(awk -F'\t' -v f=$fn '$1 == f { print $2 }' $bin.funcs)
				echo "break *((char *)$fn + $(printf %d $((pc - 0x$base))))"
				echo "commands"
				echo "silent"
				echo "p $n"
				echo "p/d (long)\$fs_base + \$$reg + $disp - (long)&$var"
				echo "p sizeof($var)"
				echo "p sizeof($type)"
				echo "continue"
				echo "end"
			done <$bin.checks
			echo "continue"
		} >$bin.gdb
		dt_test "$cc -O$o: gdb on the running program: each access is inside the variable named, at its offset" '
			test $(wc -l <$bin.checks) -ge 2 &&
			gdb -batch -x $bin.gdb ./$bin 2>/dev/null | awk "/^[$][0-9]+ = / { print \$3 }" |
				paste - - - - | sort -n >$bin.where &&
			test $(wc -l <$bin.where) -ge $(wc -l <$bin.checks) &&
			awk -F"\t" "NR == FNR { off[NR] = \$5; n = NR; next }
				{ i++; if (\$1 != i || \$2 < 0 || \$2 >= \$3 || \$2 % \$4 != off[i]) bad++ }
				END { exit bad || i != n }" $bin.checks $bin.where ||
			dt_show $bin.checks $bin.where
		'
	done
done
dt_done
