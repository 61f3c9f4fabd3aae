#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin on perf.data files of over 1,000,000 cpu-clock samples, in one
# run: a static program (all samples in one binary: the per-sample cost)
# and a dynamic one whose samples also touch libc (plus the one-time read
# of libc's debug info, which Debian ships zlib-compressed), beside:
#   - perf script with a do-nothing dlfilter (the floor: perf's own cost)
#   - perf 6.12's perf report -s type,typeoff and perf annotate --data-type
#     on the same file, where perf 6.12 is installed
# Wall time, CPU time and peak RSS from GNU time.  The plugin resolves on
# a second CPU while perf reads (its default with two CPUs or more), and
# in perf's own thread (threads=1): both are measured.
#   plugin.sh BUILD WORKDIR
set -eu
build=$1 work=$2
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
cd "$work"

gcc -O2 -g -pthread -o wl "$src/tests/fixtures/workload.c" "$src/tests/fixtures/walk.c"
gcc -O2 -g -pthread -static -o wls "$src/tests/fixtures/workload.c" "$src/tests/fixtures/walk.c"
# every 10 us of cpu time, two threads: about 200k samples a second
[ -s big.data ] || perf record -q -e cpu-clock -c 10000 -o big.data ./wl walk 5 2 >/dev/null 2>&1
[ -s static.data ] || perf record -q -e cpu-clock -c 10000 -o static.data ./wls loops 70 >/dev/null 2>&1
n=$(perf script -i big.data -F ip 2>/dev/null | wc -l)
ns=$(perf script -i static.data -F ip 2>/dev/null | wc -l)

now() { date +%s.%N; }
# timed CMD...: runs CMD (its output in out.$$ and err.$$); sets wall, cpu
# (user + system, all threads) and rss (KB)
timed() {
	t0=$(now)
	/usr/bin/time -f '%M %U %S' -o rss "$@" >out.$$ 2>err.$$ || true
	t1=$(now)
	wall=$(echo "$t1 - $t0" | bc -l)
	set -- $(tail -n 1 rss)
	rss=$1 cpu=$(echo "$2 + $3" | bc -l)
}
# row NAME CMD...: the best of three timed runs (this machine is shared and
# noisy; the minimum is the run least disturbed); prints a row with that
# run's CPU time and peak RSS, sets secs
row() {
	name=$1
	shift
	secs=
	for try in 1 2 3; do
		timed "$@"
		if [ -z "$secs" ] || [ "$(echo "$wall < $secs" | bc -l)" = 1 ]; then
			secs=$wall best_cpu=$cpu best_rss=$rss
		fi
	done
	printf '%-44s %8.2f s %8.2f s %9d KB\n' "$name" "$secs" "$best_cpu" "$best_rss"
}

# The plugin keeps inflated copies of compressed debug files (Debian's
# libc and ld.so debug info) and each binary's answers in a cache of its
# own, as every run after a machine's first finds them; each profile's
# first run below starts with it empty, and is printed apart (the
# rounds after it read the answers it kept).
DTPROF_CACHE_DIR=$PWD/cache
export DTPROF_CACHE_DIR
# paired rounds of each comparison: on this shared machine a ratio moves
# by 0.03 between rounds, and the median of five moved by as much
rounds=${DT_BENCH_ROUNDS:-11}

# median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# versus_floor DATA NAME: the do-nothing filter, the filter that calls
# resolve_ip for every sample and drops it (the least any plugin pays),
# the plugin resolving in perf's thread (threads=1), the plugin as
# installed (unasked: a second thread on this 2-CPU machine, unless every
# binary's answers are kept) and with a second thread asked for
# (threads=2) on DATA, one after the
# other, $rounds times: the load of this shared machine changes between
# runs, so each ratio is taken within one round and the median of the
# rounds is printed (the range too), of wall time and of CPU time (user and
# system, all threads: what a busy machine pays).  A row per command shows
# its fastest run, with that run's CPU and RSS.
ratio_line() {	# ratio_line WHAT FILE: "WHAT 1.23x (1.10-1.30)"
	printf '%s %.2fx (%.2f-%.2f)' "$1" "$(median <"$2")" \
		"$(sort -g "$2" | head -n 1)" "$(sort -g "$2" | tail -n 1)"
}
versus_floor() {
	data=$1 what=$2
	f_best= r_best= p1_best= p2_best=
	rm -rf "$DTPROF_CACHE_DIR"
	timed perf script -i "$data" --dlfilter "$build/bench/null-dlfilter.so"
	f=$wall
	timed perf script -i "$data" --dlfilter "$build/dtplugin.so"
	first=$(echo "$wall / $f" | bc -l)
	for k in w1 w2 cr c1 c2 ct; do : >ratios.$k.$$; done
	for try in $(seq "$rounds"); do
		timed perf script -i "$data" --dlfilter "$build/bench/null-dlfilter.so"
		f=$wall fc=$cpu
		[ -n "$f_best" ] && [ "$(echo "$f >= ${f_best%% *}" | bc -l)" = 1 ] || f_best="$f $cpu $rss"
		timed perf script -i "$data" --dlfilter "$build/bench/resolve-ip-dlfilter.so"
		echo "$cpu / $fc" | bc -l >>ratios.cr.$$
		[ -n "$r_best" ] && [ "$(echo "$wall >= ${r_best%% *}" | bc -l)" = 1 ] || r_best="$wall $cpu $rss"
		timed perf script -i "$data" --dlfilter "$build/dtplugin.so" --dlarg threads=1
		echo "$wall / $f" | bc -l >>ratios.w1.$$
		echo "$cpu / $fc" | bc -l >>ratios.c1.$$
		[ -n "$p1_best" ] && [ "$(echo "$wall >= ${p1_best%% *}" | bc -l)" = 1 ] || p1_best="$wall $cpu $rss"
		timed perf script -i "$data" --dlfilter "$build/dtplugin.so"
		echo "$wall / $f" | bc -l >>ratios.w2.$$
		echo "$cpu / $fc" | bc -l >>ratios.c2.$$
		[ -n "$p2_best" ] && [ "$(echo "$wall >= ${p2_best%% *}" | bc -l)" = 1 ] || p2_best="$wall $cpu $rss"
		cp out.$$ plugin.out
		timed perf script -i "$data" --dlfilter "$build/dtplugin.so" --dlarg threads=2
		echo "$cpu / $fc" | bc -l >>ratios.ct.$$
	done
	printf '%-52s %10s %10s %12s\n' "run (fastest of $rounds)" "wall" "CPU" "peak RSS"
	for r in "null-dlfilter.so (the floor)|$f_best" "resolve-ip-dlfilter.so|$r_best" \
		 "dtplugin.so --dlarg threads=1|$p1_best" "dtplugin.so|$p2_best"; do
		set -- ${r#*|}
		printf '%-52s %8.2f s %8.2f s %9d KB\n' "perf script --dlfilter ${r%%|*}" "$1" "$2" "$3"
	done
	ratio=$(median <ratios.w2.$$)
	printf 'plugin / floor = %.2fx  (%s; median of %d paired runs, range %.2f-%.2f; threads=1: %.2fx)\n' \
		"$ratio" "$what" "$rounds" "$(sort -g ratios.w2.$$ | head -n 1)" "$(sort -g ratios.w2.$$ | tail -n 1)" \
		"$(median <ratios.w1.$$)"
	echo "  CPU / the floor's CPU: $(ratio_line resolve-ip ratios.cr.$$), $(ratio_line plugin ratios.c2.$$), $(ratio_line threads=2 ratios.ct.$$), $(ratio_line threads=1 ratios.c1.$$)"
	printf '  the first run, an empty cache (no inflated debug file, no answers kept yet): %.2fx the floor\n' "$first"
	rm -f ratios.*.$$
}

echo "static.data (static program): $ns samples"
versus_floor static.data "per-sample cost"
echo
echo "big.data (dynamic program, samples in libc too): $n samples ($(du -h big.data | cut -f1))"
versus_floor big.data "small dynamic program"
plugin=${p2_best%% *}
cp plugin.out plugin.report
row "perf script --dlfilter dtplugin.so annotate" perf script -i big.data --dlfilter "$build/dtplugin.so" --dlarg annotate
libc=$(ls /usr/lib/x86_64-linux-gnu/libc.so.6 2>/dev/null || true)
if [ -n "$libc" ]; then
	t0=$(now)
	echo | DTPROF_NO_CACHE=1 "$build/dtresolve" -e "$libc" >/dev/null 2>&1
	t1=$(now)
	echo | "$build/dtresolve" -e "$libc" >/dev/null 2>&1
	t2=$(now)
	echo "  of which one-time: opening libc's debug info $(echo "$t1 - $t0" | bc -l | xargs printf '%.2f') s" \
	     "($(echo "$t2 - $t1" | bc -l | xargs printf '%.2f') s from the cache's inflated copy)"
fi

# The hard case: a large dynamic -O2 -g program, perf itself (built by
# real-binary.sh) running perf report on big.data: at least 1 M samples
# (the profile size the goal is set for) over thousands of distinct
# instructions in perf, libc, ld.so and the kernel.  Sampling every 20 us
# slows perf report down about tenfold; the sample count, not the run
# time, is what matters here, and it depends on the machine: the two
# reports are repeated as often as a first recording says it takes.
bigperf=$(sh "$src/bench/real-binary.sh" "$build/bench")
record_reports() {	# record_reports N: both reports, N times over
	cmd=
	for i in $(seq "$1"); do
		cmd="$cmd '$bigperf' report -i big.data --stdio -s sym;"
		cmd="$cmd '$bigperf' report -i big.data --stdio -s dso,sym;"
	done
	perf record -q -e cpu-clock -c 20000 -o perfreport.data -- sh -c "$cmd" \
		>/dev/null 2>&1
}
samples() {
	perf script -i "$1" -F ip 2>/dev/null | wc -l
}
if [ ! -s perfreport.data ]; then
	record_reports 1
	np=$(samples perfreport.data)
	[ "$np" -ge 1000000 ] || [ "$np" -eq 0 ] ||
		record_reports $(( (1050000 + np - 1) / np ))
fi
np=$(samples perfreport.data)
sites=$(perf script -i perfreport.data -F ip,dso 2>/dev/null | sort -u | wc -l)
echo
echo "perfreport.data (large dynamic program: perf -O2 -g running perf report): $np samples, $sites distinct instructions"
versus_floor perfreport.data "large dynamic program"
# The same program on a profile five times larger (issue 30's: about
# 5 M samples over the same instructions), where the per-sample CPU is
# what the ratio shows: perf report repeated as the first recording says.
if [ ! -s perfreport-5m.data ]; then
	mv perfreport.data perfreport-1m.data
	record_reports 1
	np1=$(samples perfreport.data)
	[ "$np1" -eq 0 ] || record_reports $(( (5000000 + np1 - 1) / np1 ))
	mv perfreport.data perfreport-5m.data
	mv perfreport-1m.data perfreport.data
fi
n5=$(samples perfreport-5m.data)
echo
echo "perfreport-5m.data (the same program, a long run): $n5 samples"
versus_floor perfreport-5m.data "large dynamic program, 5 M samples"
# What each view adds per sample (issue 30: each under 1.3x the floor's
# CPU): the 5 M profile through the plugin with one view asked for,
# $rounds rounds of the floor and every view in turn, as ratios of CPU to that
# round's floor.
views_versus_floor() {
	data=$1
	# the code view of the program's own hottest function
	hot=$(perf script -i "$data" -F ip,sym,dso 2>/dev/null | head -n 200000 |
	      grep -v "libc\|ld-linux\|kernel\|unknown" | awk '{ print $2 }' | sort |
	      uniq -c | sort -rn | awk '{ print $2; exit }')
	set -- report annotate stat sharing advise "code=$hot" "html=$PWD/view.html"
	for v; do : >"ratios.view.${v%%=*}.$$"; done
	for try in $(seq "$rounds"); do
		timed perf script -i "$data" --dlfilter "$build/bench/null-dlfilter.so"
		fc=$cpu
		for v; do
			timed perf script -i "$data" --dlfilter "$build/dtplugin.so" --dlarg "$v"
			echo "$cpu / $fc" | bc -l >>"ratios.view.${v%%=*}.$$"
		done
	done
	line=
	for v; do
		line="$line$(ratio_line "${v%%=*}" "ratios.view.${v%%=*}.$$"), "
		rm -f "ratios.view.${v%%=*}.$$"
	done
	echo "  CPU / the floor's CPU, one view each (code=$hot): ${line%, }"
	rm -f view.html
}
echo "perfreport-5m.data, each view:"
views_versus_floor perfreport-5m.data

# a small profile of the same program: one perf report at 40 us, about
# 90,000 samples, where the one-time costs (opening debug info, indexes,
# function maps) are most of the plugin's
if [ ! -s perfreport-small.data ]; then
	perf record -q -e cpu-clock -c 40000 -o perfreport-small.data -- \
		"$bigperf" report -i big.data --stdio -s sym >/dev/null 2>&1
fi
nsm=$(perf script -i perfreport-small.data -F ip 2>/dev/null | wc -l)
echo "perfreport-small.data (the same, small profile): $nsm samples"
versus_floor perfreport-small.data "small profile, large dynamic program"

# perf 6.12 from source, its crash on data-type reports fixed (perf-6.12-src.sh)
p612=$(sh "$src/bench/perf-6.12-src.sh" "$src/build/perf-6.12-src" 2>/dev/null || true)
if [ -n "$p612" ]; then
	echo
	row "perf 6.12 report -s type,typeoff --stdio" "$p612" report -i big.data -s type,typeoff --stdio
	rows=$(grep -v '^#' out.$$ | grep -c '[a-z]' || true)
	report=$secs
	if [ "$rows" -eq 0 ]; then
		echo "  perf 6.12 report printed no data-type rows for this profile (exit and stderr: $(tail -n 1 err.$$))"
	else
		echo "  perf 6.12 report / dtplugin = $(echo "$report / $plugin" | bc -l | xargs printf '%.2f')x"
	fi
	row "perf 6.12 annotate --data-type --stdio" "$p612" annotate -i big.data --data-type --stdio
	rows=$(grep -v '^#' out.$$ | grep -c '[a-z]' || true)
	if [ "$rows" -eq 0 ]; then
		echo "  perf 6.12 annotate printed no data-type rows for this profile ($(tail -n 1 err.$$))"
	else
		echo "  perf 6.12 annotate / dtplugin = $(echo "$secs / $plugin" | bc -l | xargs printf '%.2f')x"
	fi
else
	echo "perf 6.12 not installed (contrib/install-perf-6.12.sh): no comparison with it"
fi
echo
echo "perf script text through dtresolve --aggregate (memory stays flat):"
perf script -i big.data -F comm,pid,tid,time,event,period,ip,sym,symoff,dso \
	--show-mmap-events >big.txt 2>/dev/null
lines=$(wc -l <big.txt)
for times in 1 10; do
	t0=$(now)
	for i in $(seq $times); do cat big.txt; done |
		/usr/bin/time -f %M -o rss "$build/dtresolve" --aggregate >/dev/null 2>&1
	t1=$(now)
	secs=$(echo "$t1 - $t0" | bc -l)
	printf '  %9d lines  %8.2f s  %9.0f lines/s  peak RSS %d KB\n' \
		$((lines * times)) "$secs" "$(echo "$lines * $times / $secs" | bc -l)" \
		"$(tail -n 1 rss)"
done
rm -f big.txt

echo
echo "dtplugin's report (head):"
head -n 12 plugin.report | sed 's/^/  /'
rm -f out.$$ err.$$ rss
