#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Answers kept across runs (lib/engine/answerstore.c): a second run of a
# binary reads its first run's answers from the cache instead of naming
# its instructions again, and answers the same; a file that is damaged,
# hostile, another engine's or another build's is not used, and the
# answers are still the same; a binary stripped of its DWARF (the same
# build-id) never takes the answers its DWARF gave; nothing is kept
# without a cache.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require python3

gcc -O2 -g -o corpus "$DT_SRC/tests/fixtures/corpus.c"
"$DTINSNS" corpus node_key cl_map item_val | cut -f1 >addrs
export DTPROF_CACHE_DIR="$PWD/cache"
run() {	# run OUT [ARGS]: dtresolve -v on addrs, its trace in OUT.err
	out=$1
	shift
	DTPROF_DEBUG=1 "$DTRESOLVE" -v -e corpus "$@" addrs >"$out" 2>"$out.err"
}
DTPROF_NO_CACHE=1 "$DTRESOLVE" -v -e corpus addrs >want 2>/dev/null
DTPROF_NO_CACHE=1 "$DTRESOLVE" -v -e corpus --skid=on addrs >want.skid 2>/dev/null

dt_test 'without a cache: nothing kept' '
	DTPROF_NO_CACHE=1 "$DTRESOLVE" -e corpus addrs >/dev/null 2>&1 && test ! -e cache
'
dt_test 'the first run keeps its answers, the second reads them: the same answers, no decoding' '
	run one && dt_cmp want one &&
	test -n "$(find cache -name "*.answers-*")" &&
	run two && dt_cmp want two &&
	grep -q "answers read from the cache" two.err &&
	grep -q "instructions, [0-9]* branch targets" one.err &&
	! grep -q "instructions, [0-9]* branch targets" two.err || dt_show one.err two.err
'
dt_test 'another skid rule: answers of its own, each the same as without a cache' '
	run skid1 --skid=on && dt_cmp want.skid skid1 &&
	run skid2 --skid=on && dt_cmp want.skid skid2 && run again && dt_cmp want again
'
# damage the file every way a reader could trip on
file=$(find cache -name "*.answers-*" | head -n 1)
cp "$file" good
python3 - good <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
def put(name, data):
    open(name, "wb").write(bytes(data))
put("cut", b[:len(b) // 2])                        # truncated
put("magic", b"XXXXXXXX" + b[8:])                  # not ours
e = bytearray(b); e[8] ^= 1; put("engine", e)      # another engine
k = bytearray(b); k[40] ^= 1; put("key", k)        # another build's key
n = bytearray(b); struct.pack_into("<I", n, 48, 0xffffffff); put("count", n)
# the first entry's type string offset far past the strings
s = bytearray(b); struct.pack_into("<I", s, 56 + 64, 0x7fffffff); put("string", s)
# the strings without their last NUL
z = bytearray(b); z[-1] = 0x41; put("nonul", z)
# its reason out of range
r = bytearray(b); r[56 + 60] = 200; put("reason", r)
PY
for bad in cut magic engine key count string nonul reason; do
	dt_test "a cache file damaged ($bad): not used, the same answers" "
		cp $bad '$file' && dt_no_crash run bad.$bad && dt_cmp want bad.$bad &&
		{ grep -q 'not used' bad.$bad.err || test $bad = key; }
	"
done
dt_test 'a FIFO in its place: not opened for reading, the same answers' '
	rm -f "$file" && mkfifo "$file" && run fifo && dt_cmp want fifo && rm -f "$file"
'
dt_test 'a binary that named nothing keeps an empty file: the next session builds nothing ahead' '
	gcc -O2 -g -o other "$DT_SRC/tests/fixtures/corpus.c" -DDT_OTHER_BUILD=1 &&
	"$DTRESOLVE" -e other </dev/null >/dev/null 2>&1 &&
	DTPROF_DEBUG=1 "$DTRESOLVE" -e other </dev/null >/dev/null 2>other.err &&
	grep -q "0 answers read from the cache" other.err || dt_show other.err
'
dt_test 'the binary stripped of its DWARF (the same build-id): none of the answers its DWARF gave' '
	cp corpus stripped && strip --strip-debug stripped &&
	DTPROF_NO_CACHE=1 "$DTRESOLVE" -v -e stripped addrs 2>/dev/null | cut -f1-4,7 >want.strip &&
	DTPROF_DEBUG=1 "$DTRESOLVE" -v -e stripped addrs >s1 2>s1.err &&
	cut -f1-4,7 s1 >got.strip && dt_cmp want.strip got.strip &&
	grep -q "no_debuginfo" got.strip || dt_show s1.err
'
dt_done
