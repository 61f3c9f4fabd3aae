#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The walk of a DIE's children by the unit's abbreviations (children.c)
# visits what libdw's dwarf_child and dwarf_siblingof visit, DIE for DIE,
# on binaries of every producer and form here: gcc, clang and AArch64 gcc
# at -O0 and -O2, DWARF 4 and 5, C++ (namespaces, classes nested in
# classes), Rust, split units in .dwo files.  gcc's subtrees are jumped
# over by their DW_AT_sibling; clang emits none, so its are walked
# through.  Every child is handed out by the shapes, none left to libdw,
# but those of split units: libdw walks them all.  The same walk checks
# each DIE's declaring file's hash (lib/dwarf/linefiles.c) and each
# location read by lib/dwarf/loclist.c against libdw's.
. "$(dirname "$0")/lib.sh"
dt_require gcc
UNIT=$DT_BUILD/tests/unit-children

walk() {	# walk NAME BINARY...: the unit test's checks on them, all ok
	name=$1
	shift
	dt_test "$name: every DIE walked as libdw walks it" "
		'$UNIT' $* >out 2>&1 && ! grep -q '^not ok' out && grep -q '^ok' out ||
		dt_show out
	"
}

fx=$DT_SRC/tests/fixtures
for cc in $(dt_cc_list cross); do
	for dw in 4 5; do
		for o in 0 2; do
			$cc -O$o -g -gdwarf-$dw -o c-$cc-$dw-$o "$fx/corpus.c" 2>/dev/null
			$cc -O$o -g -gdwarf-$dw -o g-$cc-$dw-$o "$fx/globals.c" 2>/dev/null
		done
	done
	walk "$cc: corpus and globals, DWARF 4 and 5, -O0 and -O2" \
		c-$cc-* g-$cc-*
	$cc -O2 -g -gsplit-dwarf -c -o split-$cc.o "$fx/corpus.c" &&
		$cc -o split-$cc split-$cc.o
	walk "$cc: split units in a .dwo (libdw's walk)" --split split-$cc
done

# Relative paths: the line table's directories then are relative to the
# compilation directory, and linefiles.c's file hashes must still be
# those of the names libdw composes.
mkdir -p rel/inc
printf '#pragma once\nstruct in_hdr { int a; long b; };\n' >rel/inc/hdr.h
printf '#include "hdr.h"\n#include "../rel/inc/hdr.h"\nstruct in_main { struct in_hdr h; int c; };\nstruct in_main g;\nint main(void) { return g.h.a; }\n' >rel/main.c
for cc in $(dt_cc_list); do
	for dw in 4 5; do
		$cc -O2 -g -gdwarf-$dw -I rel/inc -o rel-$cc-$dw rel/main.c
	done
	walk "$cc: relative source and include directories, DWARF 4 and 5" rel-$cc-*
done

if command -v g++ >/dev/null; then
	for o in 0 2; do
		g++ -O$o -g -o cxx-$o "$fx/cxx.cc"
	done
	walk "g++: namespaces and nested classes" cxx-0 cxx-2
fi
if command -v clang++ >/dev/null; then
	clang++ -O2 -g -o cxx-clang "$fx/cxx.cc"
	walk "clang++: namespaces and nested classes" cxx-clang
fi
rustc=$(command -v rustc || ls "$HOME/.cargo/bin/rustc" 2>/dev/null || true)
if [ -n "$rustc" ]; then
	"$rustc" -g -C opt-level=2 -o rust "$fx/rust.rs" 2>/dev/null
	walk "rustc: a Rust program's units" rust
fi

# dwz -m output: each binary's units and partial units with the
# supplementary file beside them, and without it (its references then
# lead nowhere: the walk must still visit what libdw visits)
if command -v dwz >/dev/null 2>&1; then
	gcc -O2 -g -o dz-a "$fx/corpus.c" && cp dz-a dz-b &&
		dwz -m dz-common.debug -M "$PWD/dz-common.debug" dz-a dz-b >dwz.log 2>&1
	walk "dwz -m: partial units, the supplementary file beside them" dz-a dz-b
	mv dz-common.debug dz-gone.debug
	walk "dwz -m: partial units, the supplementary file gone" dz-a dz-b
else
	dt_skip "dwz -m output" "dwz not installed"
fi

# one large real debug file: libc's (libc6-dbg), 2,000 units
libc=$(ldd "$UNIT" | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
id=$(readelf -n "$libc" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
debug=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
if [ -n "$id" ] && [ -f "$debug" ]; then
	walk "libc's debug file (libc6-dbg)" "$debug"
elif [ "${DT_TEST_STRICT:-0}" = 1 ]; then
	dt_test "libc's debug file (libc6-dbg) is installed" "false"
else
	dt_skip "libc's debug file" "libc6-dbg not installed"
fi

dt_done
