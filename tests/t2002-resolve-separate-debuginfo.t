#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Debug info kept apart from the binary is found by dtprof's own search:
# by .gnu_debuglink next to the binary, and by build-id under a debug
# root — and only a regular file with the binary's build-id (or, without
# build-ids, the debuglink's CRC) is taken: a debuglink to a FIFO or out
# of the debug directories, or a debug file of another build (perf's
# build-id cache included), is refused without a hang or a wrong answer.
. "$(dirname "$0")/lib.sh"
dt_require gcc objcopy strip readelf

dt_corpus_build_id

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

# --- debug files that must not be taken ---
# another build of the same program: other code, other build-id
sed "s/^struct callchain_list {/struct callchain_list { long pad[3];/" \
	"$DT_SRC/tests/fixtures/corpus.c" >other.c
gcc -O2 -g -Wl,--build-id -o other other.c
gcc -O2 -g -Wl,--build-id=none -o nobid "$DT_SRC/tests/fixtures/corpus.c"
gcc -O2 -g -Wl,--build-id=none -o nobid-other other.c
no_debuginfo_all() {	# every answer no_debuginfo, in time
	timeout 60 "$DTRESOLVE" -v -e "$1" addrs >out 2>err &&
	test $(wc -l <out) = $(wc -l <addrs) && test $(grep -c "	no_debuginfo	" out) = 3 ||
	dt_show out err
}
dt_test "perf's build-id cache holding another build's debug file: refused, said" '
	d=badhome/.debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-) &&
	mkdir -p $d && objcopy --only-keep-debug other $d/debug &&
	HOME=$PWD/badhome no_debuginfo_all bin/corpus &&
	grep -q "is not a debug file of .*another build-id" err || dt_show err
'
dt_test 'a build-id tree with another build under that id: refused' '
	dir=badroot/.build-id/$(echo $id | cut -c1-2) && mkdir -p $dir &&
	objcopy --only-keep-debug other $dir/$(echo $id | cut -c3-).debug &&
	"$DTRESOLVE" --debuginfo-path="$PWD/badroot" -v -e bin/corpus addrs >out 2>err &&
	test $(grep -c "	no_debuginfo	" out) = 3 || dt_show out
'
dt_test 'a debuglink whose file has another CRC (no build-ids): refused' '
	mkdir crc && objcopy --only-keep-debug nobid-other crc/nobid.debug &&
	objcopy --only-keep-debug nobid crc/right.debug &&
	strip --strip-debug -o crc/nobid nobid &&
	objcopy --add-gnu-debuglink=crc/right.debug crc/nobid &&
	mv crc/right.debug crc/right.keep &&
	cp crc/nobid.debug crc/right.debug && no_debuginfo_all crc/nobid &&
	mv crc/right.keep crc/right.debug &&
	"$DTRESOLVE" -e crc/nobid addrs >out && "$DTRESOLVE" -e nobid addrs >want2 &&
	dt_cmp want2 out
'
dt_test 'a debuglink naming a FIFO: no hang, no debug info' '
	mkdir fifo && strip --strip-debug -o fifo/corpus corpus &&
	objcopy --only-keep-debug corpus fifo/corpus.debug &&
	objcopy --add-gnu-debuglink=fifo/corpus.debug fifo/corpus &&
	rm fifo/corpus.debug && mkfifo fifo/corpus.debug &&
	no_debuginfo_all fifo/corpus
'
dt_test 'a debuglink out of the debug directories (../../dev/zero): not followed' '
	mkdir esc && strip --strip-debug -o esc/corpus corpus &&
	printf "../../../../../../dev/zero\0\0\0\0\0\0" >link.sec &&
	objcopy --add-section .gnu_debuglink=link.sec esc/corpus &&
	no_debuginfo_all esc/corpus
'
dt_done
