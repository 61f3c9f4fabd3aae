#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# When fewer samples reach the plugin than perf.data holds (perf stopped
# early: out of memory, "Unexpected error"; or its options left samples
# out), the tables and stderr say so: a table never looks complete when
# it is not.  perf script --time stands for the early stop here: both
# call stop() with part of the samples seen.
. "$(dirname "$0")/lib.sh"
dt_require gcc python3
dt_require_perf_record

src=$DT_SRC/tests/fixtures
gcc -O2 -g -o wl "$src/workload.c" "$src/walk.c" &&
	perf record -N -q -e cpu-clock -o p.data ./wl loops 10 >/dev/null 2>rec.err ||
	dt_skip_all "perf record failed: $(head -n 1 rec.err)"
n=$(perf script -i p.data -F time 2>/dev/null | wc -l)
# the time of the sample a third of the way through: --time ends there
cut_at=$(perf script -i p.data -F time 2>/dev/null | sed -n "$((n / 3))p" | tr -d ' :')

dt_test 'the samples perf.data holds, counted as perf script counts them' '
	"$DT_BUILD/tests/dtbuildids" -c p.data >ids &&
	test "$(head -n 1 ids)" = "samples $n" || dt_show ids
'
# the last sample's time, which the plugin compares with the last it saw
dt_test 'the last sample time perf.data records is perf script'"'"'s last' '
	last=$(perf script -i p.data -F time 2>/dev/null | tail -n 1 | tr -d " :" | tr -d .) &&
	got=$(sed -n "s/^times [0-9]* \([0-9]*\)[0-9][0-9][0-9]$/\1/p" ids) &&
	test -n "$got" && test "$got" = "$(echo $last | sed "s/^0*//")" || dt_show ids
'

dt_test 'every sample read: no warning' '
	dt_perf_script perf -i p.data --dlarg stat --dlarg report >out 2>err &&
	! grep -qi "only .* of the" out err && test $n -gt 300 || dt_show out err
'

dt_test 'part of the samples read: said on stderr with both counts' '
	dt_perf_script perf -i p.data --time ,$cut_at >out 2>err &&
	seen=$(awk "/data-type profile/ { getline; print }" out | sed -n "s/.*only \([0-9]*\) of the \([0-9]*\) samples.*/\1 \2/p") &&
	test -n "$seen" && set -- $seen && test $2 = $n && test $1 -lt $n &&
	grep -q "^dtplugin: only $1 of the $n samples in perf.data reached the plugin" err ||
	dt_show out err
'

dt_test 'the warning in the tsv and json tables; the tsv still merges' '
	dt_perf_script perf -i p.data --time ,$cut_at --dlarg format=tsv >t.tsv 2>/dev/null &&
	head -n 1 t.tsv | grep -q "^# WARNING: only [0-9]* of the $n samples" &&
	"$DTRESOLVE" --merge --format=tsv t.tsv >m.tsv &&
	dt_perf_script perf -i p.data --time ,$cut_at --dlarg format=json >t.json 2>/dev/null &&
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"incomplete\"][\"samples_in_file\"] == int(sys.argv[2]), d.get(\"incomplete\")" t.json $n ||
	dt_show t.tsv t.json
'

dt_test 'the stat table says it too' '
	dt_perf_script perf -i p.data --time ,$cut_at --dlarg stat >out 2>/dev/null &&
	grep -q "^# WARNING: only" out || dt_show out
'
dt_done
