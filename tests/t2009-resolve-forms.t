#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Access forms the accuracy generator (tests/gen) found left unknown or
# named wrong, one labeled function each (tests/fixtures/forms.c), built by
# every compiler at -O0..-O3 and for AArch64:
#   robj_weight    container_of, node deep inside: a negative offset
#   hobj_val       the node first: past its end is the container
#   big_val        the pointer in a scale-1 index ("0xf0(%rax,%rdi,1)")
#   vals_i         gcc -O0 folds part of a member's offset into the index
#   rec5_sum       a pointer moved backwards round a loop joins again
#   flags_inlined  the bit tested names the bitfield (-O1 and up: -O0
#                  loads the whole byte)
#   holder_set_d   a double stored into a union names the double
#   tagged_b       (annotate) a hit in a union member's tail padding is
#                  the padding's row, not the member's
# and, on a precise event, a sample on a jcc that macro-fused with a
# memory compare belongs to the compare.
. "$(dirname "$0")/lib.sh"

forms=$DT_SRC/tests/fixtures/forms.c
for cc in $(dt_cc_list cross); do
	for o in 0 1 2 3; do
		bin=forms-$cc-O$o
		dt_test "$cc -O$o: forms build" "$cc -O$o -g -o $bin '$forms'"
		"$DT_SRC/tests/corpus-eval" -v "$forms" $bin >$bin.eval 2>&1
		fns="robj_weight hobj_val big_val vals_i rec5_sum holder_set_d tagged_b"
		[ $o = 0 ] || fns="$fns flags_inlined"
		for f in $fns; do
			dt_test "$cc -O$o: $f: every access right" \
				"dt_all_right $bin.eval $f || { grep -w $f $bin.eval; false; }"
		done
	done
done

dt_test "annotate: a hit in a member's padding counts for the padding, not the member" '
	gcc -O2 -g -o forms-pad "$forms" &&
	pc=$("$DTINSNS" forms-pad tagged_b | head -n 1 | cut -f1) &&
	printf "%s rdi 20\n%s rdi 16\n" $pc $pc |
		"$DTRESOLVE" -e forms-pad --aggregate=annotate --format=tsv >ann &&
	grep "^lines	struct tagged	" ann | cut -f3,6,7,11 >got &&
	printf "0\ttype\tstruct tagged\t2\n0\tmember\tkind\t0\n4\thole\t\t0\n8\tmember\tu\t1\n8\tmember\tbig\t1\n8\tmember\ta\t0\n16\tmember\tb\t1\n17\tpadding\t\t1\n8\tmember\tsmall\t0\n" >want &&
	dt_cmp want got
'

dt_test "two containers fit: unknown, and -v names both" '
	gcc -O2 -g -o forms-k "$forms" &&
	"$DTINSNS" forms-k kboth | grep "0x8(%r" | cut -f1 | "$DTRESOLVE" -v -e forms-k >k.out &&
	grep "	(unknown)	0		.*	bad_offset	addr	2 containers fit: " k.out &&
	grep -q "struct kone+8" k.out && grep -q "struct ktwo+8" k.out || dt_show k.out
'

# five containers fit: the search stops past four (the answer is
# "several" whatever the count) and -v says so, naming four
cat >kfive.c <<'KFIVE'
struct kn { struct kn *next; };
struct c1 { struct kn k; long a; };
struct c2 { struct kn k; long b; };
struct c3 { struct kn k; long c; };
struct c4 { struct kn k; long d; };
struct c5 { struct kn k; long e; };
__attribute__((noinline)) long kfive(struct kn *n)
{
	return ((struct c1 *)n->next)->a;
}
int main(void)
{
	static struct c1 x1; static struct c2 x2; static struct c3 x3;
	static struct c4 x4; static struct c5 x5;
	x1.k.next = &x1.k;
	return (int)(kfive(&x1.k) + x2.b + x3.c + x4.d + x5.e);
}
KFIVE
dt_test "five containers fit: unknown, and -v says more than four, naming four" '
	gcc -O2 -g -o kfive kfive.c &&
	"$DTINSNS" kfive kfive | grep "0x8(%r" | cut -f1 | "$DTRESOLVE" -v -e kfive >k5.out &&
	grep "	(unknown)	0		.*	bad_offset	addr	more than 4 containers fit: " k5.out &&
	test $(grep -o "struct c[1-5]+8" k5.out | wc -l) = 4 || dt_show k5.out
'

# macro fusion: "cmp ..,0x8(%rdi); jcc" is one micro-op; a precise sample
# on the jcc is the compare's (perf annotate does the same)
cat >fuse.c <<'FUSE'
struct lim { long lo; long hi; };
__attribute__((noinline)) int over(struct lim *l, long v) { return v > l->hi ? 1 : 2; }
int main(void) { struct lim l = { 0, 5 }; return over(&l, 3); }
FUSE
dt_test "a precise sample on a fused jcc is the compare's access" '
	gcc -O1 -g -o fuse fuse.c &&
	"$DTINSNS" fuse over >insns &&
	jcc=$(awk -F"\t" "\$3 ~ /^j/ { print \$1; exit }" insns) &&
	cmp=$(awk -F"\t" -v j=$jcc "\$1 == j { print prev; exit } { prev = \$1 }" insns) &&
	grep -q "cmp.*0x8(%rdi)" insns &&
	printf "%x over+0x%x ($PWD/fuse)\n" $jcc $((jcc - 0x$(nm fuse | awk "\$3 == \"over\" { print \$1 }"))) >line &&
	"$DTRESOLVE" --skid=off line >out && cat out &&
	grep -q "	struct lim	8	hi$" out
'
dt_done
