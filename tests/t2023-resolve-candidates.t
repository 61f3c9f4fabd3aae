#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# When an access cannot decide between union members (same size, same
# kind), the field names every candidate ("u.{lnglen|hnext}") in every
# format; where the access's size or kind decides, the one member.  The
# same for bitfields sharing a byte: a load taken apart by a shift the
# code computes names them all, a shift by a constant and a mask the
# one whose bits they keep.
. "$(dirname "$0")/lib.sh"
dt_require gcc

fixture=$DT_SRC/tests/fixtures/unions.c
for cc in $(dt_cc_list); do
	for o in 0 2; do
		b=un-$cc-$o
		$cc -O$o -g -o $b "$fixture"
		ans() { dt_answers $b "$@"; }
		dt_test "$cc -O$o: a length or a pointer: both named" "
			ans str_u >out && grep -q 'struct tstring	8	u.{lnglen|hnext}$' out ||
			dt_show out
		"
		dt_test "$cc -O$o: a byte of an IPv4 or IPv6 address: both named" "
			ans addr_byte >out && grep -q 'struct addr	4	a.{ipv4\\[0\\]|ipv6\\[0\\]}$' out ||
			dt_show out
		"
		dt_test "$cc -O$o: a float load names the float, an int load the int" "
			ans num_f >out && grep -q 'union num	0	f$' out &&
			ans num_i >out2 && grep -q 'union num	0	i$' out2 || dt_show out out2
		"
		dt_test "$cc -O$o: a byte of bitfields shifted by a variable: both named" "
			ans task_prio >out && grep -q 'struct task	0	{state|prio}$' out ||
			dt_show out
		"
		# -O0 shifts and masks after a trip through the stack: then
		# both bitfields are named, never prio alone
		dt_test "$cc -O$o: shifted by a constant and masked: the one" "
			ans task_state_set >out &&
			if [ $o = 2 ]; then grep -q 'struct task	0	state$' out
			else grep -q 'struct task	0	\\(state\\|{state|prio}\\)$' out; fi ||
			dt_show out
		"
		dt_test "$cc -O$o: json and perf formats carry the candidates" "
			ans str_u --format=json >out.json && grep -q '\"field\":\"u.{lnglen|hnext}\"' out.json &&
			ans str_u --format=perf >out.perf && grep -q '^struct tstring +8 (u.{lnglen|hnext})$' out.perf ||
			dt_show out.json out.perf
		"
	done
done
# AArch64: ubfx names the bits it extracts, lsr then and the bits kept
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
	aarch64-linux-gnu-gcc -O2 -g -o un-a64 "$fixture"
	dt_test 'aarch64 -O2: ubfx names the bitfield, a variable shift both' '
		"$DTINSNS" un-a64 task_state_set | grep "\[" | cut -f1 |
			"$DTRESOLVE" -e un-a64 >out && grep -q "struct task	0	state$" out &&
		"$DTINSNS" un-a64 task_prio | grep "\[" | cut -f1 |
			"$DTRESOLVE" -e un-a64 >out2 && grep -q "struct task	0	{state|prio}$" out2 ||
		dt_show out out2
	'
elif [ "${DT_TEST_STRICT:-0}" = 1 ]; then
	dt_test 'aarch64 -O2: ubfx names the bitfield' 'false # no aarch64-linux-gnu-gcc'
fi
# annotate and html charge a bitfield with the samples its bits named
# (prio's by a shift alone: "movzbl (%rdi),%eax; shr $0x3,%al"), and the
# samples that could not tell the bits apart to the group
cat >bits.c <<'EOF'
struct flags { unsigned state:3; unsigned prio:5; unsigned other:8; long pad; };
__attribute__((noinline)) unsigned get_state(struct flags *f) { return f->state; }
__attribute__((noinline)) unsigned get_prio(struct flags *f) { return f->prio; }
__attribute__((noinline)) unsigned get_both(struct flags *f) { return f->state * f->prio; }
int main(void)
{
	struct flags f = { 1, 2, 3, 0 };
	return (int)(get_state(&f) + get_prio(&f) + get_both(&f));
}
EOF
gcc -O2 -g -o bits bits.c
{ "$DTINSNS" bits get_state get_prio | grep "(%rdi)" | cut -f1
  for k in 1 2; do "$DTINSNS" bits get_both | grep "(%rdi)" | cut -f1; done; } >bits.addrs
dt_test 'annotate: a bitfield has the samples its bits named; the rest is the group s' '
	"$DTRESOLVE" -e bits --aggregate=annotate=flags <bits.addrs >bits.ann 2>&1 &&
	grep -q "^ *1 .* unsigned int state:3$" bits.ann &&
	grep -q "^ *1 .* unsigned int prio:5$" bits.ann &&
	grep -q "^ *2 .* /\* bits not told apart: {state|prio} \*/$" bits.ann &&
	"$DTRESOLVE" -e bits --aggregate=html <bits.addrs >bits.html 2>/dev/null &&
	grep -q "<i>bits not told apart: {state|prio}</i></td><td>0</td><td>1</td><td>2<" bits.html ||
	dt_show bits.ann
'
# a union of pointers: what the loaded pointer is dereferenced as next
# decides the member ("mov 0x8(%rdi),%rax; movsbl 0xc(%rax),%eax": a
# whole char at 12 is struct ta's small, in struct tb only the middle
# of z)
cat >deref.c <<'EOF'
struct ta { long x; int tag; char small; };
struct tb { long y; long z; };
union u { struct ta *a; struct tb *b; };
struct holder { long h; union u p; };
__attribute__((noinline)) int use(struct holder *h) { return h->p.a->small; }
__attribute__((noinline)) long both(struct holder *h) { return (long)h->p.b; }
int main(void)
{
	struct ta t = { 1, 2, 3 };
	struct holder h = { 0, { &t } };
	return use(&h) + (int)both(&h);
}
EOF
gcc -O2 -g -o deref deref.c
dt_test 'a union of pointers: the next dereference names the member; none, the candidates' '
	dt_answers deref use -f perf >deref.use &&
	dt_answers deref both -f perf >deref.both &&
	grep -qx "struct holder +8 (p.a)" deref.use &&
	grep -qx "struct holder +8 (p.{a|b})" deref.both ||
	dt_show deref.use deref.both
'
dt_done
