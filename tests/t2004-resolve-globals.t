#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Static addresses (tests/fixtures/globals.c): pc-relative and absolute
# operands, and registers loaded with a static's address (lea, adrp + add),
# name the global, static or function-static variable, its type and field;
# arrays name their element.  Every compiler (AArch64 cross-compiled),
# -O0 and -O2, PIE and not: no wrong type, at least 85% right.  The
# answer does not depend on what was asked before.
. "$(dirname "$0")/lib.sh"

src=$DT_SRC/tests/fixtures/globals.c
a64=aarch64-linux-gnu-gcc
command -v $a64 >/dev/null 2>&1 || { [ "${DT_TEST_STRICT:-0}" = 1 ] && a64=missing-$a64 || a64=; }
# shellcheck disable=SC2016
dt_eval_builds "$src" g 'no wrong type, at least 85% right' \
	'test $n -ge 9 && test $wrong = 0 && test $((right * 100)) -ge $((n * 85))' \
	$(dt_cc_list) $a64

# The order of questions must not change an answer: an access that finds
# no variable in its unit indexes every unit's unit-level variables; a
# function's static in one of those units is still found afterwards.
cat >a.c <<'SRC'
int pick(int i) { return "abcdefgh"[i & 7]; }
SRC
cat >b.c <<'SRC'
int count(void) { static int calls; return ++calls; }
int main(int argc, char **argv) { (void)argv; return pick(argc) + count(); }
SRC
for cc in $(dt_cc_list); do
	$cc -O2 -g -o order-$cc a.c b.c 2>cc.err
	"$DTINSNS" order-$cc pick >pick.insns
	"$DTINSNS" order-$cc count | grep '(%rip)' >count.insns
	dt_test "$cc: a function's static is named after a miss elsewhere indexed every unit" "
		grep -q . pick.insns && grep -q . count.insns &&
		cut -f1 count.insns | '$DTRESOLVE' -v -e order-$cc | cut -f2,4,6,7 >alone &&
		cat pick.insns count.insns | cut -f1 | '$DTRESOLVE' -v -e order-$cc |
			tail -n \$(wc -l <count.insns) | cut -f2,4,6,7 >after &&
		grep -q '^int		calls	ok\$' alone && dt_cmp alone after ||
		dt_show pick.insns count.insns alone after
	"
done
dt_done
