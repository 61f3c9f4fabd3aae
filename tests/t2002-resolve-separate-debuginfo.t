#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Debug info kept apart from the binary is found through libdwfl: by
# .gnu_debuglink next to the binary, and by build-id under a debug root.
. "$(dirname "$0")/lib.sh"
dt_require gcc objcopy strip readelf

gcc -O2 -g -Wl,--build-id -o corpus "$DT_SRC/tests/fixtures/corpus.c"
"$DTINSNS" corpus node_key cl_map item_val | cut -f1 >addrs
"$DTRESOLVE" -e corpus addrs >want
id=$(readelf -n corpus | sed -n "s/.*Build ID: \([0-9a-f]*\).*/\1/p")

dt_test 'the full binary resolves the requests' '
	grep -q "struct callchain_list	16	ms.map" want
'
dt_test '.gnu_debuglink: same answers from a stripped binary' '
	mkdir link && objcopy --only-keep-debug corpus link/corpus.debug &&
	strip --strip-debug -o link/corpus corpus &&
	objcopy --add-gnu-debuglink=link/corpus.debug link/corpus &&
	"$DTRESOLVE" -e link/corpus addrs >out 2>err &&
	dt_cmp want out && ! test -s err
'
dt_test 'build-id tree under --debuginfo-path: same answers' '
	test -n "$id" &&
	dir=root/.build-id/$(echo $id | cut -c1-2) && mkdir -p $dir &&
	objcopy --only-keep-debug corpus $dir/$(echo $id | cut -c3-).debug &&
	mkdir bin && strip --strip-debug -o bin/corpus corpus &&
	"$DTRESOLVE" --debuginfo-path="$PWD/root" -e bin/corpus addrs >out 2>err &&
	dt_cmp want out && ! test -s err
'
dt_test '--debug-dir DIR: the same build-id tree, default paths kept' '
	"$DTRESOLVE" --debug-dir="$PWD/root" -e bin/corpus addrs >out 2>err &&
	dt_cmp want out && ! test -s err
'
dt_test "perf's build-id cache (~/.debug/.build-id/xx/rest/debug): same answers" '
	d=home/.debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-) &&
	mkdir -p $d && objcopy --only-keep-debug corpus $d/debug &&
	HOME=$PWD/home "$DTRESOLVE" -e bin/corpus addrs >out 2>err &&
	dt_cmp want out && ! test -s err
'
dt_test 'without the debug root the same binary says no_debuginfo' '
	"$DTRESOLVE" -v -e bin/corpus addrs >out 2>err &&
	test $(grep -c "	no_debuginfo	" out) = 3 && grep -q "has no debug info" err
'
dt_done
