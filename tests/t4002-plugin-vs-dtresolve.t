#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# One aggregation module, two front ends: the plugin inside perf script and
# dtresolve --aggregate on perf script's text print the same tables for the
# same samples.  (A static non-PIE program: its runtime addresses are its
# link-time addresses, so dtresolve -e needs no maps.)
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require_perf_record

src=$DT_SRC/tests/fixtures
if ! gcc -O2 -g -static -o wls "$src/workload.c" "$src/walk.c" 2>cc.err; then
	dt_skip_all "no static libc: $(head -n 1 cc.err)"
fi

for perf in $(dt_perf_list); do
	v=$(dt_perf_version $perf)
	dt_test "perf $v: recorded" "
		$perf record -q -e cpu-clock:u -o s-$v.data ./wls loops 6 >/dev/null 2>rec.err
	"
	ips() { $perf script -i s-$v.data -F ip | sed 's/^ */0x/'; }
	for fmt in tsv json; do
		dt_perf_script $perf -i s-$v.data --dlarg format=$fmt >plugin.$fmt 2>plugin.err
		ips | "$DTRESOLVE" --skid -e wls --aggregate --format=$fmt \
			--event cpu-clock:u >dtresolve.$fmt 2>dtresolve.err
	done
	# dtresolve counts each line with period 1: compare the sample columns
	dt_test "perf $v: tsv report tables are identical (samples)" '
		cut -f1-5 plugin.tsv >a && cut -f1-5 dtresolve.tsv >b && dt_cmp a b &&
		grep -q "^cpu-clock:u	struct hotrec	16	hot	" a
	'
	dt_test "perf $v: json reports list the same types in the same order" '
		sed "s/\"period\":\[[0-9]*\]//g; s/\"period\":[0-9]*//g; s/\"dso\":\"[^\"]*\"//g" plugin.json >a &&
		sed "s/\"period\":\[[0-9]*\]//g; s/\"period\":[0-9]*//g; s/\"dso\":\"[^\"]*\"//g" dtresolve.json >b &&
		dt_cmp a b
	'
	dt_perf_script $perf -i s-$v.data --dlarg annotate --dlarg format=tsv >plugin.ann 2>/dev/null
	ips | "$DTRESOLVE" --skid -e wls --aggregate=annotate --format=tsv \
		--event cpu-clock:u >dtresolve.ann
	dt_test "perf $v: annotated layouts are identical (samples)" '
		awk -F"\t" -v OFS="\t" "{ NF = 10; print }" plugin.ann >a &&
		awk -F"\t" -v OFS="\t" "{ NF = 10; print }" dtresolve.ann >b &&
		dt_cmp a b && grep -q "^cpu-clock:u	struct hotrec	16	8	1	member	hot	long int	0	[1-9]" a
	'
done
dt_done
