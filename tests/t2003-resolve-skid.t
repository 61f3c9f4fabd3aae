#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# --skid: a sample of a non-precise event is given to the nearest memory
# access before it in its basic block, never across a block boundary.
. "$(dirname "$0")/lib.sh"
dt_require gcc nm

sym() { nm "$1" | awk -v s="$2" '$3 == s { print "0x" $1 }' | sed 's/^0x0*/0x/'; }

for cc in $(dt_cc_list); do
	$cc -O2 -g -o skid-$cc "$DT_SRC/tests/fixtures/skid.c"
	load=$(sym skid-$cc skid_load) after=$(sym skid-$cc skid_after)
	target=$(sym skid-$cc skid_target)
	dt_test "$cc: labels found" "test -n '$load' && test -n '$after' && test -n '$target'"
	dt_test "$cc: without --skid the sample's own instruction is used" "
		echo $after | \"\$DTRESOLVE\" -v -e skid-$cc >out &&
		grep -q '	no_mem_op	' out
	"
	dt_test "$cc: with --skid the load before it is attributed" "
		echo $after | \"\$DTRESOLVE\" --skid -e skid-$cc | cut -f2- >out &&
		echo $load | \"\$DTRESOLVE\" -e skid-$cc | cut -f2- >want &&
		dt_cmp want out && grep -q 'struct node	8	key' out
	"
	dt_test "$cc: --skid keeps the sample's address in the answer" "
		echo $after | \"\$DTRESOLVE\" --skid -e skid-$cc | cut -f1 >out &&
		echo $after >want && dt_cmp want out
	"
	dt_test "$cc: --skid does not look back across a branch target" "
		echo $target | \"\$DTRESOLVE\" --skid -v -e skid-$cc >out &&
		grep -q '	no_mem_op	' out
	"
done
dt_done
