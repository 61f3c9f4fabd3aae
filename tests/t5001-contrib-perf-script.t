#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# contrib/dtprof-perf-script.py, for perf builds without --dlfilter: run as
# perf script -s, it finds the same hot rows as the plugin.
. "$(dirname "$0")/lib.sh"
dt_require gcc nm
dt_require_perf_record
perf version --build-options 2>/dev/null | grep -q "libpython: \[ on" ||
	dt_skip_all "this perf has no Python scripting"

src=$DT_SRC/tests/fixtures
gcc -O2 -g -o wl "$src/workload.c" "$src/walk.c"
perf record -q -e cpu-clock -o w.data ./wl walk 0.4 >/dev/null 2>&1
dt_perf_script perf -i w.data --dlarg format=tsv >plugin.tsv 2>/dev/null
DTRESOLVE=$DTRESOLVE perf script -i w.data -s "$DT_SRC/contrib/dtprof-perf-script.py" \
	>script.out 2>script.err

for row in 'struct hotrec	16	hot' 'struct hotrec	0	next'; do
	set -- $row
	want=$(dt_tsv_count "$1 $2" $3 $4 4 plugin.tsv)
	got=$(awk -v l="$1 $2 +$3 ($4)" 'index($0, l) { print $2 }' script.out)
	dt_test "'$1 $2 +$3 ($4)': the script counts what the plugin counts ($want)" \
		"test '$got' = '$want' && test '$want' -gt 0 || dt_show script.out script.err"
done
dt_test 'the script says when totals do not add up, and here they do' '
	grep -q "^# dtprof (perf script -s): [0-9]* samples" script.out &&
	! grep -q ERROR script.out
'
dt_done
