#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Static addresses (tests/fixtures/globals.c): pc-relative and absolute
# operands, and registers loaded with a static's address (lea, adrp + add),
# name the global, static or function-static variable, its type and field;
# arrays name their element.  Every compiler (AArch64 cross-compiled),
# -O0 and -O2, PIE and not: no wrong type, at least 85% right.  The
# answer does not depend on what was asked before.  A variable its unit
# only declares is named by the declaration.
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

# A variable the accessing unit only declares ("extern struct pair x;"),
# defined where no DWARF describes it (assembly, like the kernel's
# phys_base) or with hidden visibility (the linker makes its symbol
# local): named by the unit's declaration and the ELF symbol at the
# address, without walking every unit.  The truth is the linker's: the
# symbol objdump names at the instruction's target.  clang writes no
# declarations for externs: unknown there, never wrong.
cat >pair.h <<'SRC'
struct pair { long lo, hi; };
extern struct pair asm_pair;
extern struct pair hidden_pair __attribute__((visibility("hidden")));
SRC
cat >use.c <<'SRC'
#include "pair.h"
__attribute__((noinline)) long asm_hi(void) { return asm_pair.hi; }
__attribute__((noinline)) long hidden_hi(void) { return hidden_pair.hi; }
int main(void) { return (int)(asm_hi() + hidden_hi()); }
SRC
cat >def.c <<'SRC'
#include "pair.h"
struct pair hidden_pair = { 1, 2 };
SRC
cat >asm.s <<'SRC'
	.globl asm_pair
	.data
	.balign 8
	.type asm_pair, @object
	.size asm_pair, 16
asm_pair:
	.quad 3, 4
	.section .note.GNU-stack,"",@progbits
SRC
# Linked where a kernel is too (0xffffffff81000000, -mcmodel=kernel):
# such addresses have the top bits the index's thread-local and per-CPU
# keys are tagged with, and are no such key.
for cc in $(dt_cc_list); do
	for at in user kernel; do
		b=decl-$cc-$at
		case $at in
		user) $cc -O2 -g -o $b use.c def.c asm.s 2>cc.err ;;
		kernel) $cc -O2 -g -mcmodel=kernel -fno-pie -no-pie -nostdlib -static \
			-Wl,-Ttext-segment=0xffffffff81000000 -Wl,-e,main \
			-o $b use.c def.c asm.s 2>cc.err ;;
		esac
		"$DTINSNS" $b asm_hi hidden_hi | grep '	mov[a-z]* [^,]*(' >decl.insns
		cut -f1 decl.insns | "$DTRESOLVE" -v -e $b | cut -f2,3,4,6 >got
		# gcc reaches both at rip+disp (objdump names the targets);
		# clang writes no declarations (and loads asm_pair's address
		# from the GOT in a program)
		case $cc in
		clang*) named='hidden_pair' ;;
		*) named='asm_pair hidden_pair' ;;
		esac
		dt_test "$cc, $at addresses: a variable its unit declares, defined in assembly or hidden, is named by its declaration" "
			test \$(wc -l <got) = 2 &&
			for v in $named; do
				objdump -d $b | grep -q \"<\$v+0x8>\" &&
				grep -q \"^struct pair	8	hi	\$v\$\" got || exit 1
			done &&
			! grep -v '^struct pair	8	hi	' got | grep -v '^(unknown)	0		' ||
			dt_show decl.insns got
		"
	done
done

# What the index of every unit is not walked for.  A read of a constant
# the compiler placed (a literal of floating-point code, ".LC0"): no data
# symbol covers its address, so no variable is there (the truth: the
# symbol table of the linked program).  A library's variable the program
# has a copy of (its .symtab says "stderr@GLIBC_2.2.5"): named by the
# unit's declaration.  A thread-local another unit of a library defines,
# read initial-exec ("mov x@gottpoff(%rip),%rax; mov %fs:0x8(%rax)"): the
# unit's declaration and the STT_TLS symbol at that offset name it.
cat >walk.h <<'SRC'
struct pair { long lo, hi; };
extern __thread struct pair tls_pair;
SRC
cat >walk-use.c <<'SRC'
#include <stdio.h>
#include "walk.h"
__attribute__((noinline)) double scale(double x) { return x * 1.2345678; }
__attribute__((noinline)) int say(const char *s) { return fputs(s, stderr); }
__attribute__((noinline)) long tls_hi(void) { return tls_pair.hi; }
SRC
cat >walk-def.c <<'SRC'
#include "walk.h"
__thread struct pair tls_pair = { 1, 2 };
int main(int argc, char **argv) { (void)argv; return (int)scale(argc) + say(""); }
SRC
# covered ADDR BINARY: a sized data symbol covers ADDR (hex, no 0x)
covered() {
	readelf -sW "$2" | awk -v a=$((0x$1)) '$4 == "OBJECT" && $3 > 0 {
		s = strtonum("0x" $2); if (a >= s && a < s + $3) f = 1 } END { exit !f }'
}
for cc in $(dt_cc_list); do
	for pie in -pie -no-pie; do
		b=walk-$cc$pie
		$cc -O2 -g -fPIE $pie -o $b walk-use.c walk-def.c 2>cc.err
		"$DTINSNS" $b scale | grep '(%rip)' | head -n 1 >lit.insn
		target=$(objdump -d $b | awk -v pc=$(cut -f1 lit.insn | sed 's/^0x//') \
			'$1 == pc ":" { for (i = 1; i <= NF; i++) if ($i == "#") print $(i + 1) }')
		dt_test "$cc $pie: a literal of floating-point code is no variable, and no unit is walked for it" "
			test -n '$target' && ! covered '$target' $b &&
			cut -f1 lit.insn | DTPROF_DEBUG=1 '$DTRESOLVE' -v -e $b >got 2>trace &&
			grep -q '	no_var	' got && grep -q 'compiler data' trace &&
			! grep -q 'indexing every unit' trace || dt_show lit.insn got trace
		"
		"$DTINSNS" $b say | grep 'mov .*(%rip),' >say.insn
		case $cc in
		clang*) want='(unknown)	0		' ;;	# no declarations
		*) want='FILE*	0		stderr' ;;
		esac
		dt_test "$cc $pie: the program's copy of libc's stderr is named by its declaration" "
			test \$(wc -l <say.insn) = 1 &&
			objdump -d $b | grep -q \"<stderr@GLIBC[_0-9.]*>\" &&
			cut -f1 say.insn | DTPROF_DEBUG=1 '$DTRESOLVE' -v -e $b 2>trace | cut -f2-4,6 >got &&
			grep -qxF '$want' got || dt_show say.insn got
		"
	done
	$cc -O2 -g -fPIC -shared -ftls-model=initial-exec -o libwalk-$cc.so walk-use.c walk-def.c 2>cc.err
	"$DTINSNS" libwalk-$cc.so tls_hi | grep '%fs:' >tls.insn
	case $cc in
	clang*) walks=1 ;;	# no declarations: every unit's index finds it
	*) walks=0 ;;
	esac
	dt_test "$cc: a library's thread-local another unit defines is named ($walks walks of every unit)" "
		test \$(wc -l <tls.insn) = 1 &&
		cut -f1 tls.insn | DTPROF_DEBUG=1 '$DTRESOLVE' -v -e libwalk-$cc.so >got 2>trace &&
		cut -f2-4,6 got | grep -q '^struct pair	8	hi	tls_pair\$' &&
		test \$(grep -c 'indexing every unit' trace) = $walks || dt_show tls.insn got trace
	"
done

# gcc's biased base for tokens[i]: the address in regs, the index moving it
gcc -O2 -g -o biased "$DT_SRC/tests/fixtures/biased-base.c"
"$DTINSNS" biased init_tokens | grep '(%rsi,%rcx,8)' >biased.insn
dt_test 'a biased base register in the array before: no member of it' "
	test \$(wc -l <biased.insn) = 1 &&
	objdump -d biased | grep -q 'lea .*<regs+0x38>' &&
	cut -f1 biased.insn | '$DTRESOLVE' -v -e biased >got &&
	test -s got && ! grep -q 'struct reg' got || dt_show biased.insn got
"
dt_done
