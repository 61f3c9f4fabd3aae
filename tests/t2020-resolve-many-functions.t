#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A session keeps the decoded instructions and the variables' register
# homes of the functions asked about lately only (funcmap_trim,
# scope_trim; DTPROF_KEEP_FUNCTIONS, 2048 by default): a kernel's
# questions span thousands of functions.  A function whose map and homes
# were freed is built again when asked about, and every answer is the one
# a session keeping everything gives, whatever the order of the questions:
# in order, backwards, and round-robin over 60 functions (each question in
# a function whose map was freed since its last one) with 4 kept; and the
# note of an access that fits several containers lists the same ones.
. "$(dirname "$0")/lib.sh"
# each run names its instructions (no answers kept from the last run's):
# the maps and homes this tests are built by naming
export DTPROF_NO_ANSWERS=1

# p->next->b: the loaded pointer's type comes from the dataflow (track.c,
# over the map's blocks); p itself from the register homes.  Five structs
# embed a link at +8: a read past the link fits them all, and the note
# names the first four; each struct's own field is asked about too, which
# interns its name before the index of containers is made, or after.
perl -e '
	print "struct node { long a, b; struct node *next; int c[4]; };\n";
	for my $k (0 .. 59) {
		print "__attribute__((noinline)) long f$k(struct node *p, int i)\n",
		      "{\n\tlong s = p->a * $k;\n\tif (p->next)\n",
		      "\t\ts += p->next->b + p->next->c[i & 3];\n\treturn s;\n}\n";
	}
	print "struct link { struct link *next; };\n";
	for my $b (reverse "A" .. "E") {
		print "struct box$b { long a; struct link l; long $b; };\n",
		      "__attribute__((noinline)) long get$b(struct box$b *x) { return x->$b; }\n";
	}
	print "__attribute__((noinline)) long past(struct link *p) { return ((long *)p)[1]; }\n";
	print "int main(void) { return 0; }\n";' >many.c
fns="$(seq -f 'f%g' 0 59) getA getB getC getD getE past"

for cc in $(dt_cc_list); do
	for o in 0 2; do
		bin=many-$cc-$o
		dt_test "$cc -O$o: builds" "$cc -O$o -g -o $bin many.c"
		"$DTINSNS" $bin $fns | grep '(' | grep -v '	lea' >$bin.insns
		cut -f1 $bin.insns >$bin.forward
		tac $bin.forward >$bin.backward
		# the k-th access of every function, then the k+1-th
		awk -F'\t' '{ print ++k[$2] "\t" NR "\t" $1 }' $bin.insns |
			sort -n -k1,1 -k2,2 | cut -f3 >$bin.round
		"$DTRESOLVE" -v -e $bin $bin.forward >$bin.all 2>&1
		for order in forward backward round; do
			DTPROF_KEEP_FUNCTIONS=4 DTPROF_DEBUG=1 "$DTRESOLVE" -v -e $bin \
				$bin.$order >$bin.$order.out 2>$bin.$order.log
		done
		dt_test "$cc -O$o: 4 kept, round-robin: maps and homes freed and built again" "
			test \$(wc -l <$bin.round) -ge 120 &&
			grep -q 'decoded functions freed, [1-4] kept' $bin.round.log &&
			grep -q 'register homes of [0-9]* functions freed, [1-4] kept' $bin.round.log ||
			dt_show $bin.round.log"
		for order in forward backward round; do
			dt_test "$cc -O$o: 4 kept, $order: the answers of a session keeping all" "
				sort $bin.all >all.sorted && sort $bin.$order.out >order.sorted &&
				dt_cmp all.sorted order.sorted"
		done
		# every function's p->next->b named, from its own map and homes
		dt_test "$cc -O$o: round-robin: each function's p->next->b is struct node +8 (b)" "
			awk -F'\t' 'NR == FNR { fn[\$1] = \$2; next }
				\$2 == \"struct node\" && \$3 == 8 && \$4 == \"b\" { b[fn[\$1]] = 1 }
				END { n = 0; for (f in b) n++; print n; exit n != 60 }' \
				$bin.insns $bin.round.out"
	done
done

dt_test 'a bad DTPROF_KEEP_FUNCTIONS is said, and the default kept' "
	DTPROF_KEEP_FUNCTIONS=some \"\$DTRESOLVE\" -v -e many-gcc-2 many-gcc-2.forward \
		>bad.out 2>bad.err &&
	grep -q \"DTPROF_KEEP_FUNCTIONS='some' is not a number of functions (1 or more): 2048 are kept\" bad.err &&
	test \$(grep -c DTPROF_KEEP_FUNCTIONS bad.err) = 1 && dt_cmp many-gcc-2.all bad.out"
dt_done
