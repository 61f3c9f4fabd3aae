#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# C++ (classes, base-class members, this, references, the vtable pointer)
# and Rust (repr(C) and default-repr structs, references, slices,
# Option<Box<T>>) fixtures,
# labeled like the C corpus: no wrong type anywhere, at least 90% right at
# -O2.
. "$(dirname "$0")/lib.sh"

check() {	# check NAME SOURCE BINARY LEVEL
	"$DT_SRC/tests/corpus-eval" -v "$2" "$3" >"$3.eval" 2>"$3.err"
	echo "# $1: $(awk '$1 == "total"' "$3.eval")"
	set -- "$1" "$2" "$3" "$4" $(awk '$1 == "total"' "$3.eval") total 0 0 0 -1 0
	dt_test "$1: no wrong type among $6 accesses" \
		"test $6 -ge 8 && test $9 = 0 || dt_show $3.eval $3.err"
	if [ "$4" = 2 ]; then
		dt_test "$1: at least 90% right ($7 of $6)" \
			"test \$(( $7 * 100 )) -ge \$(( $6 * 90 )) || dt_show $3.eval"
	fi
}

for cxx in g++ clang++; do
	command -v $cxx >/dev/null 2>&1 || { [ "${DT_TEST_STRICT:-0}" = 1 ] &&
		dt_test "$cxx installed (DT_TEST_STRICT=1)" false; continue; }
	for o in 0 1 2 3; do
		$cxx -O$o -g -o cxx-$cxx-$o "$DT_SRC/tests/fixtures/cxx.cc"
		check "$cxx -O$o" "$DT_SRC/tests/fixtures/cxx.cc" cxx-$cxx-$o $o
	done
done

rustc=$(command -v rustc || ls "$HOME/.cargo/bin/rustc" 2>/dev/null || true)
if [ -z "$rustc" ]; then
	[ "${DT_TEST_STRICT:-0}" = 1 ] && dt_test 'rustc installed (DT_TEST_STRICT=1)' false
else
	echo "# $($rustc --version)"
	for o in 0 1 2 3; do
		$rustc -g -C opt-level=$o -o rust-$o "$DT_SRC/tests/fixtures/rust.rs" 2>rustc.err ||
			{ dt_test "rustc -O$o builds" 'dt_show rustc.err'; continue; }
		check "rustc -O$o" "$DT_SRC/tests/fixtures/rust.rs" rust-$o $o
		[ $o = 0 ] && continue
		dt_test "rustc -O$o: fields read through Option<Box<T>>, every access right" "
			awk '\$3 ~ /^rs_(boxed|next)_val\$/ { n++; if (\$1 != \"correct\") bad++ }
			     END { exit !(n >= 3 && !bad) }' rust-$o.eval ||
			{ grep 'rs_boxed_val\|rs_next_val' rust-$o.eval; false; }"
	done
fi
dt_done
