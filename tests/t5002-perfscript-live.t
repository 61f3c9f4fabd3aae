#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-slow: live perf recordings of several workloads
# perf record -> perf script -> dtresolve, live, with every perf installed:
# a PIE calling into a shared library of the fixtures.  Every perf script
# form dtresolve reads must give the same types, sample for sample, as the
# plugin on the same perf.data.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require_perf_record

src=$DT_SRC/tests/fixtures
gcc -O2 -g -fPIC -shared -o libwalk.so "$src/walk.c"
gcc -O2 -g -pthread -o wl "$src/workload.c" -L. -lwalk -Wl,-rpath,"$PWD"

# per-type sample totals of a report tsv: "type<TAB>samples", sorted
type_totals() {
	awk -F'\t' 'NR > 1 { n[$2 == "(unknown)" ? $2 " " $4 : $2] += $5 }
		    END { for (t in n) if (n[t]) print t "\t" n[t] }' "$1" | sort
}

for perf in $(dt_perf_list); do
	v=$(dt_perf_version $perf)
	dt_test "perf $v: cpu-clock and page faults recorded" "
		$perf record -q -e cpu-clock -F 2000 -o c-$v.data ./wl walk 0.4 >/dev/null 2>&1 &&
		$perf record -q -d -e page-faults -o f-$v.data ./wl walk 0.1 >/dev/null 2>&1
	"
	for data in c-$v.data f-$v.data; do
		dt_perf_script $perf -i $data --dlarg format=tsv >plugin.tsv 2>/dev/null
		type_totals plugin.tsv >want
		forms="ip ip,sym,symoff,dso comm,pid,tid,time,event,period,ip,sym,symoff,dso"
		[ "$v" = 6.1 ] || forms="$forms ip,dsoff ip,sym,symoff,dso,dsoff"
		# memory events print the data address before the ip
		[ $data = f-$v.data ] && forms="$forms event,addr,ip,sym,dso comm,pid,event,addr,ip,sym,symoff,dso"
		for f in $forms; do
			for mm in --show-mmap-events ""; do
				# without maps, bare addresses cannot be placed
				# nor a symbol without its offset
				[ -z "$mm" ] && { [ "$f" = ip ] || [ "$f" = event,addr,ip,sym,dso ]; } && continue
				$perf script -i $data -F $f $mm 2>/dev/null >script.txt
				# a line without its event is taken as skidding
				# (cpu-clock); faults are exact: say so
				skid=
				case $data,$f in f-*,*event*) ;; f-*) skid=--skid=off ;; esac
				"$DTRESOLVE" $skid --aggregate --format=tsv script.txt >dt.tsv 2>dt.err
				type_totals dt.tsv >got
				# Exact routes (maps, dsoff): the same rows, reasons
				# included.  The sym+off route is exact for types; a
				# symbol perf knows and the ELF table does not (rare,
				# seen once in 6 runs) may change only which reason an
				# unattributed sample gets.
				case "$mm,$f" in
				--show-mmap-events,*|*dsoff*) exact=1 ;;
				*) exact=0 ;;
				esac
				if [ $exact = 1 ]; then
					dt_test "perf $v, $data, -F $f $mm: same types and reasons as the plugin" \
						'dt_cmp want got'
				else
					dt_test "perf $v, $data, -F $f $mm: same types as the plugin, same total" '
						grep -v "^(unknown)" want >want.t && grep -v "^(unknown)" got >got.t &&
						dt_cmp want.t got.t &&
						test "$(awk -F"\t" "{ n += \$2 } END { print n }" want)" = \
						     "$(awk -F"\t" "{ n += \$2 } END { print n }" got)"
					'
				fi
			done
		done
	done
	dt_test "perf $v: the plugin's totals are perf's sample count" "
		test \$(awk -F'\t' 'NR > 1 { n += \$5 } END { print n }' plugin.tsv) = \
		     \$($perf script -i f-$v.data -F ip 2>/dev/null | wc -l)
	"
	# the design's pipeline on a PIE: -F ip,addr has runtime addresses
	# and no maps: said once, with what to add; with them it resolves
	dt_test "perf $v: -F ip,addr of a PIE with -e says once what to add" "
		$perf script -i f-$v.data -F ip,addr 2>/dev/null >ipaddr &&
		'$DTRESOLVE' -e wl ipaddr >out 2>err &&
		test \$(wc -l <out) = \$(wc -l <ipaddr) &&
		test \$(grep -c 'outside every segment' err) = 1 &&
		grep -q 'perf script -F pid,ip,addr --show-mmap-events' err || dt_show err
	"
	dt_test "perf $v: -F pid,ip,addr --show-mmap-events of the same PIE resolves" "
		$perf script -i f-$v.data -F pid,ip,addr --show-mmap-events 2>/dev/null |
			'$DTRESOLVE' -f perf >out 2>err &&
		grep -q '^struct ' out && ! grep -q 'outside every segment' err || dt_show err
	"
done
dt_done
