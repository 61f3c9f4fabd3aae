#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The sym+0xOFF route of perf script lines: symbols from the binary's
# tables, and the PLT entries perf names itself ("calloc@plt").
. "$(dirname "$0")/lib.sh"
dt_require gcc objdump

src=$DT_SRC/tests/fixtures
gcc -O2 -g -o wl "$src/workload.c" "$src/walk.c"
plt=$(objdump -d wl | sed -n 's/^0*\([0-9a-f]*\) <calloc@plt>:$/\1/p')

dt_test 'a function symbol plus offset: the instruction there' '
	echo "     7f0000001000 node_key+0x0 ($PWD/wl)" >line &&
	"$DTRESOLVE" -v line >out 2>err &&
	grep -q "	struct node	8	key	.*	ok	sym$" out
'
dt_test 'a PLT entry perf names (calloc@plt): decoded, not no_insn' '
	test -n "$plt" &&
	echo "     7f0000002000 calloc@plt+0x0 ($PWD/wl)" >line &&
	"$DTRESOLVE" -v line >out 2>err &&
	! grep -q "no_insn" out && grep -q "	sym$" out &&
	echo 0x$plt | "$DTRESOLVE" -v -e wl | cut -f2-4 >want &&
	cut -f2-4 out >got && dt_cmp want got
'
dt_test 'a symbol the binary does not have: no_insn, the line still answered' '
	echo "     7f0000002000 no_such_function+0x4 ($PWD/wl)" >line &&
	"$DTRESOLVE" -v line >out 2>err && grep -q "	no_insn	sym$" out
'

# PLT layouts differ per ISA (x86-64: a 16-byte stub first; AArch64: 32):
# every calloc@plt and free@plt must start where objdump says
printf '#include <stdlib.h>\nint main(void) { void *p = calloc(1, 8); free(p); return p == 0; }\n' >plt.c
for cc in gcc aarch64-linux-gnu-gcc; do
	command -v $cc >/dev/null 2>&1 || { [ "${DT_TEST_STRICT:-0}" = 1 ] || continue; }
	od=objdump
	[ $cc = gcc ] || od=aarch64-linux-gnu-objdump
	dt_test "$cc: @plt names start at objdump's entries" "
		$cc -O2 -o plt-$cc plt.c &&
		for f in calloc free; do
			want=\$($od -d plt-$cc | sed -n \"s/^0*\([0-9a-f]*\) <\$f@plt>:\$/0x\1/p\") &&
			got=\$('$DT_BUILD/tests/dtinsns' plt-$cc \$f@plt | head -n 1 | cut -f1) &&
			echo \"\$f: \$got, objdump \$want\" && test -n \"\$want\" && test \"\$got\" = \"\$want\" || exit 1
		done
	"
done
dt_done
