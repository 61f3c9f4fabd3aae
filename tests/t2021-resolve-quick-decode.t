#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The x86-64 quick decoder (arch/x86_64_quick.c) hands out libopcodes'
# own tokens for the instructions it takes: tests/unit-quick compares the
# two on every instruction of programs gcc and clang compile here at
# -O0, -O2, -O3 and -Os (and with AVX2, whose vector instructions it
# leaves to libopcodes), each cut short too.  And the answers: every
# instruction of those programs resolved with and without it
# (DTPROF_NO_QUICK_DECODE=1), the same output byte for byte.
. "$(dirname "$0")/lib.sh"
dt_require gcc
UNIT=$DT_BUILD/tests/unit-quick
fx=$DT_SRC/tests/fixtures

for cc in $(dt_cc_list); do
	bins=
	for o in 0 2 3 s; do
		for src in corpus globals stack tls; do
			$cc -O$o -g -o $src-$cc-$o "$fx/$src.c" -lpthread 2>/dev/null &&
				bins="$bins $src-$cc-$o"
		done
	done
	$cc -O3 -g -mavx2 -o corpus-$cc-avx2 "$fx/corpus.c" &&
		bins="$bins corpus-$cc-avx2"
	dt_test "$cc: 17 programs built" "test $(echo $bins | wc -w) -eq 17"
	dt_test "$cc: the quick decoder's tokens are libopcodes' on every instruction" "
		'$UNIT' $bins >unit-$cc 2>&1 && ! grep -q '^not ok' unit-$cc &&
		test \$(grep -c '^ok' unit-$cc) -ge 50 || dt_show unit-$cc
	"
	sed -n 's/^ok [0-9]* - \([^ ]*\): \(.*taken by the quick decoder\)/#   \1: \2/p' unit-$cc | head -4
	for b in $bins; do
		"$DT_BUILD/tests/dtinsns" $b $(nm --defined-only $b |
			awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u) 2>/dev/null |
			cut -f1 >$b.insns
		"$DT_BUILD/dtresolve" --stat -e $b $b.insns >$b.quick 2>>$b.quick
		DTPROF_NO_QUICK_DECODE=1 "$DT_BUILD/dtresolve" --stat -e $b $b.insns \
			>$b.slow 2>>$b.slow
		cmp -s $b.quick $b.slow || echo $b >>differ-$cc
		cat $b.insns >>all-$cc
	done
	dt_test "$cc: every instruction answered the same with and without it ($(wc -l <all-$cc) instructions)" "
		test \$(wc -l <all-$cc) -gt 2000 && test ! -e differ-$cc || dt_show differ-$cc
	"
done

# a larger program not written for the test: dtresolve itself (-O2 -g)
dt=$DT_BUILD/dtresolve
"$DT_BUILD/tests/dtinsns" "$dt" $(nm --defined-only "$dt" |
	awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u) 2>/dev/null | cut -f1 >dt.insns
"$dt" --stat -e "$dt" dt.insns >dt.quick 2>&1
DTPROF_NO_QUICK_DECODE=1 "$dt" --stat -e "$dt" dt.insns >dt.slow 2>&1
dt_test "dtresolve's own $(wc -l <dt.insns) instructions answered the same with and without it" "
	test \$(wc -l <dt.insns) -gt 20000 && cmp dt.quick dt.slow
"

dt_test "DTPROF_NO_QUICK_DECODE=1 turns it off, and says so under DTPROF_DEBUG" "
	DTPROF_DEBUG=1 DTPROF_NO_QUICK_DECODE=1 '$DT_BUILD/dtresolve' -e corpus-gcc-2 corpus-gcc-2.insns \
		2>&1 >/dev/null | grep -q 'every instruction decoded by libopcodes' &&
	DTPROF_DEBUG=1 '$DT_BUILD/dtresolve' -e corpus-gcc-2 corpus-gcc-2.insns \
		2>&1 >/dev/null | grep -q . &&
	! DTPROF_DEBUG=1 '$DT_BUILD/dtresolve' -e corpus-gcc-2 corpus-gcc-2.insns \
		2>&1 >/dev/null | grep -q 'decoded by libopcodes'
"
dt_done
