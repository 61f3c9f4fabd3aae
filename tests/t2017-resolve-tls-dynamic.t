#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A shared library's thread-locals read the general- and local-dynamic
# ways (tests/fixtures/tls-gd.c, -fPIC's default: "lea x@tlsgd(%rip),%rdi;
# call __tls_get_addr@plt; mov (%rax),%eax"): named with their type and
# field through the GOT pair's relocations, gcc and clang, -O0 and -O2,
# no wrong answer (clang -O2 renames the static array and drops its
# location: unknown there); each answer checked on the running program,
# where gdb stops at the instruction and says which variable the address
# is in (tests/lib.sh dt_tls_truth).
. "$(dirname "$0")/lib.sh"
dt_require gdb

fx=$DT_SRC/tests/fixtures
funcs="tgd_count tgd_calls tgd_set_flags tgd_slot2 tgd_both"
for cc in $(dt_cc_list); do
	for o in 0 2; do
		lib=libtlsgd-$cc-$o.so bin=tgd-$cc-$o
		dt_shared_pair $cc $o "$fx/tls-gd.c" "$fx/tls-gd-main.c" $lib $bin ||
			{ dt_test "$cc -O$o builds" 'dt_show cc.err; false'; continue; }
		"$DTINSNS" $lib $funcs >$bin.all
		# the accesses after each call (not the stack's)
		grep '(%r[a-z0-9]*)' $bin.all | grep -v 'lea \|nop\|%r[sb]p)' >$bin.insns
		cut -f1 $bin.insns | "$DTRESOLVE" -v -e $lib >$bin.ans
		paste $bin.insns $bin.ans | cut -f1-3,5-7,9,10 >$bin.got
		right=$(awk -F'\t' '$8 == "ok"' $bin.got | wc -l)
		dt_test "$cc -O$o: __tls_get_addr's result names the thread-local ($right of $(wc -l <$bin.got))" '
			test $right -ge 4 &&
			grep -q "^0x[0-9a-f]*	tgd_count	.*(%r[a-z0-9]*).*	int	0		tgd_counter	ok$" $bin.got &&
			grep -q "^0x[0-9a-f]*	tgd_calls	mov (%rax),%rax	struct tstats	0	calls	tgd_stats	ok$" $bin.got &&
			grep -q "^0x[0-9a-f]*	tgd_set_flags	mov %[a-z0-9]*,0xc(%rax)	struct tstats	12	flags	tgd_stats	ok$" $bin.got &&
			! grep -v "	ok$" $bin.got | grep -qv "	(unknown)	" ||
			dt_show $bin.got
		'
		dt_test "$cc -O$o: gdb on the running program: each access is inside the variable named, at its offset" '
			dt_tls_truth $bin $lib "" || dt_show $bin.checks $bin.where
		'
	done
done
dt_done
