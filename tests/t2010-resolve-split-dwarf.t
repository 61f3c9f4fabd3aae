#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Split DWARF (-gsplit-dwarf: skeleton units in the binary, the rest in
# .dwo files): not read yet.  It must be said, once, and every access
# count as no_debuginfo, never as a guess; resolving it as the plain build
# does is a known gap, kept here as a TODO test.
. "$(dirname "$0")/lib.sh"
dt_require gcc

src=$DT_SRC/tests/fixtures/corpus.c
gcc -O2 -g -o plain "$src"
gcc -O2 -g -gsplit-dwarf -c -o split.o "$src" && gcc -o split split.o
"$DTINSNS" plain node_key cl_map item_val | cut -f1 >addrs
"$DTRESOLVE" -e plain addrs >want

dt_test 'split DWARF: said once, every access no_debuginfo or a pseudo type' '
	test -f split.dwo &&
	"$DTRESOLVE" -v -e split addrs >out 2>err &&
	test $(grep -c "split units (.dwo, -gsplit-dwarf)" err) = 1 &&
	test $(wc -l <err) = 1 &&
	! awk -F"\t" "\$2 !~ /^\\(/" out | grep -q . || dt_show out err
'
dt_todo 'split DWARF resolves as the plain build' '
	"$DTRESOLVE" -e split addrs >out 2>/dev/null && dt_cmp want out
'
dt_done
