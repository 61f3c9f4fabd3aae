#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The labeled corpus (tests/fixtures/corpus.c), built with every compiler
# at -O0..-O3: every memory access through a register is checked against
# its function's labels.  No level may name a wrong type or a wrong field
# (candidates, {l|p}, are right when each one is); at every level at
# least 93% of the accesses must be right in type, offset and field, and
# pointer chains (followed by instruction tracking) at least 90%.  Without
# tracking (DTPROF_NO_TRACK=1) -O0 must fall well below: the dataflow is
# what resolves it.  Where a variable also names the base register,
# tests/dttrack checks the dataflow's answer agrees with it.
. "$(dirname "$0")/lib.sh"

corpus=$DT_SRC/tests/fixtures/corpus.c
# AArch64 too, cross-compiled: decoded and resolved from the ELF, never run
for cc in $(dt_cc_list cross); do
	for o in 0 1 2 3; do
		bin=corpus-$cc-O$o
		dt_test "$cc -O$o: corpus builds" "$cc -O$o -g -o $bin '$corpus'"
		"$DT_SRC/tests/corpus-eval" -v "$corpus" "$bin" >$bin.eval 2>$bin.err
		echo "# $cc -O$o"
		grep -v '^[a-z_]* *0x' $bin.eval | sed 's/^/#   /'
		total=$(awk '$1 == "total" { print }' $bin.eval)
		set -- ${total:-total 0 0 0 -1 0}
		dt_test "$cc -O$o: evaluation counted at least 60 accesses ($2)" \
			"test $2 -ge 60 || dt_show $bin.err"
		dt_test "$cc -O$o: no access named with a wrong type ($5 of $2)" \
			"test '$5' = 0 || { grep ^wrong_type $bin.eval; false; }"
		dt_test "$cc -O$o: no access named with a wrong field ($4 of $2)" \
			"test '$4' = 0 || { grep ^wrong_field $bin.eval; false; }"
		dt_test "$cc -O$o: at least 93% right type, offset and field ($3 of $2)" \
			"test \$(( $3 * 100 )) -ge \$(( $2 * 93 )) || { grep -v ^correct $bin.eval; false; }"
		chain=$(awk '$1 == "chain" { print $2, $3 }' $bin.eval)
		set -- ${chain:-0 -1}
		dt_test "$cc -O$o: pointer chains tracked, at least 90% right ($2 of $1)" \
			"test $1 -ge 10 && test \$(( $2 * 100 )) -ge \$(( $1 * 90 ))"
		if [ $o = 0 ]; then
			DTPROF_NO_TRACK=1 "$DT_SRC/tests/corpus-eval" "$corpus" "$bin" >$bin.notrack
			untracked=$(awk '$1 == "total" { print $3 }' $bin.notrack)
			total=$(awk '$1 == "total" { print $3 }' $bin.eval)
			dt_test "$cc -O0: tracking is what resolves -O0 (${untracked:-?} right without, $total with)" \
				"test \$(( ${untracked:-1000} * 2 )) -lt ${total:-0}"
		else
			"$DT_BUILD/tests/dtinsns" $bin $(nm --defined-only $bin |
				awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u) 2>/dev/null |
				cut -f1 >$bin.insns
			"$DT_BUILD/tests/dttrack" -v $bin <$bin.insns >$bin.track
			sed 's/^/#   dttrack: /' $bin.track
			dt_test "$cc -O$o: the dataflow agrees with DWARF wherever both answer" \
				"tail -n 1 $bin.track | awk '\$2 > 20 && \$8 == 0 { ok = 1 } END { exit !ok }'"
		fi
	done
done

# The evaluator itself must notice a wrong answer: mislabel one function.
sed 's/@expect param node_key: struct node +8 (key)/@expect param node_key: struct point +8 (key)/' \
	"$corpus" >mislabeled.c
dt_test "a mislabeled corpus is reported as a wrong type" '
	grep -q "node_key: struct point" mislabeled.c &&
	gcc -O2 -g -o mislabeled mislabeled.c &&
	"$DT_SRC/tests/corpus-eval" mislabeled.c mislabeled >eval &&
	awk "\$1 == \"total\" && \$5 >= 1 { found = 1 } END { exit !found }" eval
'
dt_done
