#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Static addresses (tests/fixtures/globals.c): pc-relative and absolute
# operands, and registers loaded with a static's address (lea, adrp + add),
# name the global, static or function-static variable, its type and field;
# arrays name their element.  Every compiler (AArch64 cross-compiled),
# -O0 and -O2, PIE and not: no wrong type, at least 85% right.
. "$(dirname "$0")/lib.sh"

src=$DT_SRC/tests/fixtures/globals.c
a64=aarch64-linux-gnu-gcc
command -v $a64 >/dev/null 2>&1 || { [ "${DT_TEST_STRICT:-0}" = 1 ] && a64=missing-$a64 || a64=; }
# shellcheck disable=SC2016
dt_eval_builds "$src" g 'no wrong type, at least 85% right' \
	'test $n -ge 9 && test $wrong = 0 && test $((right * 100)) -ge $((n * 85))' \
	$(dt_cc_list) $a64
dt_done
