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
	fdload=$(sym skid-$cc skid_fdload) sysret=$(sym skid-$cc skid_sysret)
	dt_test "$cc: --skid never looks back across a syscall (the kernel's time)" "
		test -n '$fdload' && test -n '$sysret' &&
		echo $fdload | \"\$DTRESOLVE\" -e skid-$cc | grep -q 'struct node	8	key' &&
		echo $sysret | \"\$DTRESOLVE\" --skid -v -e skid-$cc >out &&
		grep -q '	no_mem_op	' out
	"
done

# AArch64: svc enters the kernel as syscall does
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
	cat >svc.c <<'EOF2'
struct node { struct node *next; long key; long val; };
__attribute__((noinline, used)) long skid_svc(struct node *n)
{
	register long x0 asm("x0");
	asm volatile("skid_a64load: ldr x0, [%1, #8]\n\t"
		     "mov x8, #172\n\t"
		     "svc #0\n\t"
		     "skid_a64ret: cmn x0, #4095\n\t"
		     ".globl skid_a64load, skid_a64ret\n\t"
		     : "=r"(x0) : "r"(n) : "x8", "cc", "memory");
	return x0;
}
int main(void) { return 0; }
EOF2
	aarch64-linux-gnu-gcc -O2 -g -o svc svc.c
	dt_test 'aarch64: --skid never looks back across svc' '
		load=$(sym svc skid_a64load) ret=$(sym svc skid_a64ret) &&
		echo $load | "$DTRESOLVE" -e svc | grep -q "struct node	8	key" &&
		echo $ret | "$DTRESOLVE" --skid -v -e svc >out &&
		grep -q "	no_mem_op	" out || dt_show out
	'
elif [ "${DT_TEST_STRICT:-0}" = 1 ]; then
	dt_test 'aarch64: --skid never looks back across svc' 'false # no aarch64-linux-gnu-gcc'
fi
dt_done
