#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# make coverage: every labeled fixture, every compiler, -O0..-O3, through
# tests/corpus-eval: per category, accesses that got the right type,
# offset and field, a wrong field, a wrong type, or no answer.
set -eu
: "${DT_BUILD:=build}"
export DT_BUILD
src=$(cd "$(dirname "$0")/.." && pwd)
fx=$src/tests/fixtures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rustc=$(command -v rustc || ls "$HOME/.cargo/bin/rustc" 2>/dev/null || true)
# compiler:fixture pairs, in table order
pairs="gcc:corpus.c clang:corpus.c gcc:globals.c clang:globals.c gcc:stack.c
	clang:stack.c g++:cxx.cc clang++:cxx.cc rustc:rust.rs
	aarch64-linux-gnu-gcc:corpus.c aarch64-linux-gnu-gcc:stack.c
	aarch64-linux-gnu-gcc:globals.c"

build() {	# build COMPILER LEVEL SOURCE OUT
	case $1 in
	rustc) "$rustc" -g -C opt-level=$2 -o "$4" "$3" 2>/dev/null ;;
	*) "$1" -O$2 -g -o "$4" "$3" 2>/dev/null ;;
	esac
}

printf '%-13s %-8s %-4s %8s %8s %11s %10s %8s\n' category compiler -O \
	accesses correct wrong_field wrong_type unknown
for o in 0 1 2 3; do
	for pair in $pairs; do
		cc=${pair%%:*} f=${pair#*:}
		[ $cc = rustc ] && [ -z "$rustc" ] && continue
		command -v $cc >/dev/null 2>&1 || [ $cc = rustc ] || continue
		bin=$work/$cc-$o-${f%%.*}
		build $cc $o "$fx/$f" "$bin" || { echo "$cc -O$o $f: build failed" >&2; continue; }
		"$src/tests/corpus-eval" "$fx/$f" "$bin" |
			awk -v cc=$cc -v o=$o 'NR > 1 && $1 != "total" {
				if (cc ~ /aarch64/) { cc = "a64-gcc"; $1 = $1 }
				printf "%-13s %-8s %-4s %8d %8d %11d %10d %8d\n", $1, cc, o, $2, $3, $4, $5, $6 }'
	done | tee "$work/rows-$o"
	awk -v o=$o '{ a += $4; c += $5; f += $6; w += $7; u += $8 }
		END { printf "%-13s %-8s %-4s %8d %8d %11d %10d %8d   %.1f%% right\n",
		      "all", "-", o, a, c, f, w, u, a ? 100 * c / a : 0 }' "$work/rows-$o"
done

# The same fixtures with tracking off (registers only through variables)
echo
echo "without tracking (DTPROF_NO_TRACK=1):"
for o in 0 1 2 3; do
	for pair in $pairs; do
		cc=${pair%%:*} f=${pair#*:}
		bin=$work/$cc-$o-${f%%.*}
		[ -x "$bin" ] || continue
		DTPROF_NO_TRACK=1 "$src/tests/corpus-eval" "$fx/$f" "$bin" |
			awk '$1 == "total"'
	done | awk -v o=$o '{ a += $2; c += $3; f += $4; w += $5; u += $6 }
		END { printf "%-13s %-8s %-4s %8d %8d %11d %10d %8d   %.1f%% right\n",
		      "all", "-", o, a, c, f, w, u, a ? 100 * c / a : 0 }'
done
