#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Instruction tracking, one capability at a time, on the labeled corpus:
# each function below needs one thing the dataflow (lib/engine/track.c)
# proves, and every one of its accesses must come out right.  Where the
# capability is what makes it right, the same function must come out
# worse with tracking off (DTPROF_NO_TRACK=1): the test exercises it.
#   next_next_key    two hops through loaded members (and -O0 reloads)
#   next_cond        a loaded pointer kept across a branch
#   first_val        a direct callee's return type (first_key_set: a store)
#   node_i_next_key  a pointer member of an element, through an index
#   table_key        a pointer loaded from a static array of pointers
#   point_i_x        -O0: p + i * sizeof(*p) keeps the type
#   node_i_val       -O0: i * 24 from shifts and adds (gcc), imul (clang)
#   last_key         a loop at the entry: the parameter's entry value
#   point_sum        p++ in a loop: moved by whole elements
#   sum_items        a variable's location list past its block is not it
#   ev_first_weight  a list_head cast to its container: past the list_head's
#                    end it is never a second list_head (a wrong type); the
#                    one struct embedding a list_head where the offset fits
#                    (containers.c) names it
. "$(dirname "$0")/lib.sh"

corpus=$DT_SRC/tests/fixtures/corpus.c

check() {	# check CC LEVEL "FUNCTIONS" "FUNCTIONS THAT NEED TRACKING"
	cc=$1 o=$2 bin=corpus-$1-O$2
	dt_test "$cc -O$o: corpus builds" "$cc -O$o -g -o $bin '$corpus'"
	"$DT_SRC/tests/corpus-eval" -v "$corpus" $bin >$bin.eval 2>&1
	DTPROF_NO_TRACK=1 "$DT_SRC/tests/corpus-eval" -v "$corpus" $bin >$bin.notrack 2>&1
	for f in $3; do
		dt_test "$cc -O$o: $f: every access right" \
			"dt_all_right $bin.eval $f || { grep -w $f $bin.eval; false; }"
	done
	for f in $4; do
		dt_test "$cc -O$o: $f needs tracking (not all right without it)" \
			"! dt_all_right $bin.notrack $f"
	done
}

o2_needs="next_next_key next_cond first_val first_key_set node_i_next_key table_key"
for cc in $(dt_cc_list); do
	check $cc 0 "next_next_key next_cond first_val node_i_next_key table_key
		point_i_x node_i_val last_key point_sum" \
		"next_next_key next_cond first_val node_i_next_key table_key
		point_i_x node_i_val last_key point_sum"
	check $cc 2 "$o2_needs last_key point_sum sum_items" "$o2_needs"
	bin=corpus-$cc-O2
	dt_test "$cc -O2: ev_first_weight: the container's field, by container inference, not a list_head" "
		awk '\$3 == \"ev_first_weight\" { v[\$1]++ }
		     END { exit !(v[\"correct\"] == 2 && !v[\"unknown\"] && !v[\"wrong_type\"]) }' $bin.eval ||
		{ grep ev_first_weight $bin.eval; false; }"
done

# AArch64, cross-compiled: write-back ("ld2 {...}, [x2], #32") and
# sbfiz-scaled indexes in the vectorised loop; shifts and adds at -O0
a64=aarch64-linux-gnu-gcc
if command -v $a64 >/dev/null 2>&1; then
	check $a64 3 "point_sum node_i_next_key table_key" "node_i_next_key table_key"
	check $a64 0 "node_i_val point_i_x next_next_key" "node_i_val point_i_x next_next_key"
	# "str xzr, [sp, #N]" (T *p = NULL at -O0) stores no register: the
	# dataflow must not index its registers with -1 (make check SANITIZE=1)
	cat >xzr.c <<'EOF'
struct node { struct node *next; long key; };
long xzr(struct node *n) { struct node *p = 0; if (n) p = n->next; return p ? p->key : 0; }
EOF
	dt_test "aarch64 -O0: a store of xzr into a pointer's slot, then its reload" "
		$a64 -O0 -g -shared -fPIC -o xzr.so xzr.c &&
		aarch64-linux-gnu-objdump -d xzr.so | grep -q 'str.*xzr' &&
		'$DTINSNS' xzr.so xzr | cut -f1 | '$DTRESOLVE' -v -e xzr.so >xzr.out &&
		grep -q '	struct node	8	key	' xzr.out || dt_show xzr.out
	"
else
	dt_test "aarch64: $a64 is installed (DT_TEST_STRICT)" \
		"test '${DT_TEST_STRICT:-0}' != 1"
fi
dt_done
