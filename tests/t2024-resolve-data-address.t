#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Data addresses from a sample's registers (perf script -F ...,uregs), one
# operand form at a time, on x86-64 and AArch64 (tests/fixtures/
# dataaddr.c): the address is base + index * scale + displacement, or the
# instruction's own address + displacement (pc-relative), moved by the
# load bias (the sampled ip less its link-time address); none, with the
# reason, for a thread-local (its segment or thread pointer is not in the
# registers), a 32-bit index ("w1, sxtw"), a base overwritten before the
# sampled ip, registers of another ip, or a line without them.
. "$(dirname "$0")/lib.sh"
dt_require gcc

# line BIN FUNC OFF BIAS REGS...: a sample at FUNC+OFF as perf script
# prints it with -F pid,tid,time,event,ip,sym,symoff,dso,uregs; the
# register dump names the ip itself as IPNAME
line() {
	_bin=$1 _f=$2 _off=$3 _bias=$4
	shift 4
	_start=0x$(nm "$_bin" | awk -v f="$_f" '$3 == f { print $1 }')
	_ip=$((_start + _off + _bias))
	printf 'p 7/7 1.000000: cpu-clock:  %16x %s+0x%x (%s) ABI:2 %s %s:0x%x\n' \
		$_ip "$_f" $((_off)) "$PWD/$_bin" "$*" "$ipname" $_ip
}
# answers FILE: "data_addr" or "none:why" per line
answers() {
	"$DTRESOLVE" -f json "$1" |
		sed 's/.*"data_addr":"\([^"]*\)".*/\1/;t;s/.*"no_data_addr":"\([^"]*\)".*/none:\1/;t;s/.*/-/'
}

gcc -O2 -g -o x86 "$DT_SRC/tests/fixtures/dataaddr.c"
bias=0x555555554000	# a PIE's load address
ipname=IP
{
	line x86 get 0 $bias DI:0x7ffd1000		# mov 0x10(%rdi),%rax
	line x86 get 4 $bias DI:0x7ffd1000		# ret: skid to the mov
	line x86 idx 0 $bias DI:0x7ffd2000 SI:0x3	# mov (%rdi,%rsi,8),%rax
	line x86 getg 0 $bias AX:0x0			# mov g_counter(%rip),%rax
	line x86 gettl 0 $bias AX:0x0			# mov %fs:-8,%rax
	line x86 chase 6 $bias DI:0x7ffd3000 AX:0x7ffd4000	# ret after mov (%rax),%rax
	line x86 get 0 $bias SI:0x1			# rdi not recorded
} >x86.lines
# the same sample, its registers taken at another ip (a kernel sample's
# user registers)
sed '1!d; s/IP:0x[0-9a-f]*/IP:0x1234/' x86.lines >>x86.lines
sed '1!d; s/ ABI:2.*//' x86.lines >>x86.lines
g=$(printf '0x%x' $((0x$(nm x86 | awk '$3 == "g_counter" { print $1 }') + bias)))
answers x86.lines >x86.got
cat >x86.want <<EOF
0x7ffd1010
0x7ffd1010
0x7ffd2018
$g
none:segment
none:reg_changed
none:reg_not_recorded
none:regs_of_other_ip
-
EOF
dt_test 'x86-64: base+disp, skid, index*scale, pc-relative with the load bias; none for %fs, a changed base, missing or foreign registers' '
	dt_cmp x86.want x86.got || dt_show x86.lines
'

if command -v aarch64-linux-gnu-gcc >/dev/null; then
	aarch64-linux-gnu-gcc -O2 -g -static -o a64 "$DT_SRC/tests/fixtures/dataaddr.c"
	ipname=pc
	{
		line a64 get 0 0 x0:0x7ffd1000			# ldr x0, [x0, #16]
		line a64 idx 0 0 x0:0x7ffd2000 x1:0x3		# ldr x0, [x0, x1, lsl #3]
		line a64 idx32 0 0 x0:0x7ffd2000 x1:0x3		# ldr x0, [x0, w1, sxtw #3]
		line a64 chase 8 0 x0:0x7ffd4000		# ret after ldr x0, [x0]
	} >a64.lines
	answers a64.lines >a64.got
	printf '%s\n' 0x7ffd1010 0x7ffd2018 none:narrow_regs none:reg_changed >a64.want
	dt_test 'AArch64: base+imm, index lsl, none for a w index or a changed base' '
		dt_cmp a64.want a64.got || dt_show a64.lines
	'
else
	dt_test 'AArch64: base+imm, index lsl, none for a w index or a changed base' \
		'dt_skip "no aarch64-linux-gnu-gcc"'
fi
dt_done
