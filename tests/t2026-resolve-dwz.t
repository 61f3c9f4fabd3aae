#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# dwz -m, as Debian's dh_dwz runs it on packages with several binaries:
# the types and declarations the binaries share move to a supplementary
# file that each binary's partial units import.  Arrays there sit in
# units that name no language (libdw cannot size them by itself), and
# the indexes of containers and statics must walk those units too.
# Bounds are unsigned data forms (bounds.c: a char[200]'s upper bound,
# 199, in one byte).  With the supplementary file: every answer as before
# dwz.  Without it: said once, and each answer the same or unknown, never
# another one.
. "$(dirname "$0")/lib.sh"
dt_require gcc clang dwz

n=0
for build in "gcc -gdwarf-5" "clang -gdwarf-4"; do
	for fixture in corpus globals bounds; do
		n=$((n + 1))
		d=dz$n
		mkdir $d
		$build -O2 -o $d/a "$DT_SRC/tests/fixtures/$fixture.c" 2>/dev/null ||
			echo "$build $fixture failed" >&2
		"$DTINSNS" $d/a $(nm $d/a | awk '$2 ~ /^[tT]$/ { print $3 }') 2>/dev/null |
			grep '(' | cut -f1 >$d/addrs
		"$DTRESOLVE" -e $d/a $d/addrs >$d/want 2>/dev/null
		cp $d/a $d/b
		(cd $d && dwz -m common.debug -M "$PWD/common.debug" a b) >$d/dwz.log 2>&1
		dt_test "$build, $fixture: with dwz's supplementary file, every answer as before" "
			readelf -S $d/a | grep -q gnu_debugaltlink &&
			test \$(wc -l <$d/addrs) -ge \$(case $fixture in bounds) echo 4 ;; *) echo 15 ;; esac) &&
			'$DTRESOLVE' -e $d/a $d/addrs >$d/got 2>$d/err && dt_cmp $d/want $d/got &&
			test ! -s $d/err || dt_show $d/dwz.log $d/err
		"
		mv $d/common.debug $d/gone.debug
		dt_test "$build, $fixture: without it, said once; the same answer or unknown" "
			'$DTRESOLVE' -e $d/a $d/addrs >$d/got 2>$d/err &&
			test \$(grep -c 'supplementary debug file (dwz).*common.debug.*cannot be found' $d/err) = 1 &&
			paste $d/want $d/got | awk -F'\t' '\$2 != \$6 && \$6 != \"(unknown)\" { bad = 1 } END { exit bad }' ||
			{ paste $d/want $d/got | awk -F'\t' '\$2 != \$6'; dt_show $d/err; }
		"
	done
done
dt_done
