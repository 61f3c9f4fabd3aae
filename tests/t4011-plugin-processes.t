#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Threads of different processes share no memory: a profile of two
# single-threaded processes, one writing a field and one reading another
# of the same struct, flags nothing and advises no padding, in the
# plugin and through dtresolve (perf script -F pid,tid); the same two
# loops as two threads of one process on one object are still flagged.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require_perf_record

gcc -O2 -g -pthread -o ps "$DT_SRC/tests/fixtures/procshare.c"
perf record -q -N -e cpu-clock -o procs.data -- \
	sh -c './ps write 300000000 & ./ps read 300000000; wait' >/dev/null 2>rec.err &&
perf record -q -N -e cpu-clock -o thr.data -- ./ps threads 300000000 >/dev/null 2>>rec.err ||
	dt_skip_all "perf record failed: $(head -n 1 rec.err)"

# the sharing table and the advice for struct stats from DATA
views() {
	dt_perf_script perf -i $1.data --dlarg sharing --dlarg advise=stats >$1.out 2>$1.err
}

dt_test 'two processes: struct stats seen in both, nothing flagged' '
	views procs &&
	grep -q "^struct stats, cache line 0 .*: [0-9]* samples, 2 threads of 2 processes$" procs.out &&
	grep -q "^# [0-9]* type cache lines touched, [0-9]* by more than one thread, 0 flagged (0 confirmed, 0 suspected), 0 refuted$" procs.out ||
	dt_show procs.out procs.err
'

dt_test 'two processes: no padding, no alignment advised' '
	! grep -q "aligned(64)\|ALIGNMENT CHANGES" procs.out &&
	grep -q "nothing worth changing" procs.out || dt_show procs.out
'

dt_test 'two processes through dtresolve (-F pid,tid): nothing flagged' '
	perf script -i procs.data -F pid,tid,event,ip,sym,symoff,dso --show-mmap-events \
		2>/dev/null | "$DTRESOLVE" --aggregate=sharing >dt.out 2>dt.err &&
	grep -q "2 threads of 2 processes" dt.out && grep -q " 0 flagged (0 confirmed, 0 suspected), 0 refuted$" dt.out ||
	dt_show dt.out dt.err
'

dt_test 'two threads of one process, one object: false sharing, suspected' '
	views thr &&
	grep -q "^struct stats, cache line 0 .*, 2 threads: false sharing, suspected$" thr.out ||
	dt_show thr.out thr.err
'

# Two processes running the same code: each site sampled in both, its
# first sample in the second process tallied (not counted one at a
# time); the sharing and annotate tables the same as dtresolve counting
# every sample in turn, with one thread and with two.
dt_test 'one code in two processes: the tables of one-at-a-time counting' '
	perf record -q -N -e cpu-clock -o same.data -- \
		sh -c "./ps read 200000000 & ./ps read 200000000; wait" >/dev/null 2>>rec.err &&
	perf script -i same.data -F pid,tid,event,period,ip,sym,symoff,dso 2>/dev/null >same.txt &&
	"$DTRESOLVE" --aggregate=sharing --format=tsv same.txt >dt.share 2>dt.err &&
	"$DTRESOLVE" --aggregate=annotate --format=tsv same.txt >dt.ann 2>>dt.err &&
	grep -q "^struct stats	.*	[0-9]*	[0-9]*$" dt.share &&
	test "$(awk -F"\t" "NR > 1 && \$1 == \"struct stats\" { print \$NF }" dt.share | sort -u | wc -l)" = 2 &&
	for t in 1 2; do
		dt_perf_script perf -i same.data --dlarg threads=$t --dlarg sharing \
			--dlarg format=tsv >p$t.share 2>/dev/null &&
		dt_perf_script perf -i same.data --dlarg threads=$t --dlarg annotate \
			--dlarg format=tsv >p$t.ann 2>/dev/null &&
		dt_cmp dt.share p$t.share && dt_cmp dt.ann p$t.ann || return 1
	done || dt_show dt.err
'

# and only each site's first sample is counted one at a time, as in the
# report that keeps no threads (DTPROF_DEBUG says how many)
dt_test 'one code in two processes: a site counted one at a time once, not once a process' '
	for v in report sharing; do
		DTPROF_DEBUG=1 dt_perf_script perf -i same.data --dlarg threads=1 --dlarg $v \
			2>&1 >/dev/null | sed -n "s/.* \([0-9]*\) counted on perf.s.*/\1/p" >$v.counted
	done &&
	test -s report.counted && dt_cmp report.counted sharing.counted
'

dt_test 'the sharing tsv names each touch'"'"'s process' '
	dt_perf_script perf -i procs.data --dlarg sharing --dlarg format=tsv >s.tsv 2>/dev/null &&
	head -n 1 s.tsv | grep -q "	evidence	pid$" &&
	test $(awk -F"\t" "NR > 1 && \$1 == \"struct stats\" { print \$13 }" s.tsv | sort -u | wc -l) = 2 ||
	dt_show s.tsv
'
dt_done
