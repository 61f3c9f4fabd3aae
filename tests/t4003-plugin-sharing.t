#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The evidence a layout change needs, on real cpu-clock profiles of the
# examples: loads and stores per field, threads per cache line (the fq
# example's false sharing, gone in its fixed layout), profiles compared
# (listwalk's link.next moves to line 0) and merged, and the tsv schema
# loaded into SQL.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require_perf_record

ex=$DT_SRC/examples
gcc -O2 -g -pthread -o fq "$ex/fq/fq.c"
gcc -O2 -g -pthread -DFIXED -o fq-fixed "$ex/fq/fq.c"
gcc -O2 -g -o lw "$ex/listwalk/listwalk.c"
gcc -O2 -g -DREORDERED -o lw-reordered "$ex/listwalk/listwalk.c"

# samples, loads, stores of a field in an annotate tsv
field_counts() {
	awk -F'\t' -v f="$1" '$2 == "struct fq_sched_data" && $6 == "member" && $7 == f {
		print $10, $12, $13 }' "$2"
}

for v in fq fq-fixed; do
	dt_test "$v: recorded with cpu-clock, two threads" "
		perf record -q -e cpu-clock -F 15000 -o $v.data ./$v 200000000 >/dev/null 2>rec.err
	"
	dt_perf_script perf -i $v.data --dlarg 'annotate=struct fq_sched_data' \
		--dlarg format=tsv >$v.ann 2>/dev/null
	dt_perf_script perf -i $v.data --dlarg sharing --dlarg format=tsv >$v.share 2>/dev/null
	dt_perf_script perf -i $v.data --dlarg 'annotate=struct fq_sched_data' >$v.ann.txt 2>/dev/null
done

dt_test 'fq: the counters are written, the parameters only read' '
	stores=0
	for f in stat_packets stat_bytes; do
		set -- $(field_counts $f fq.ann)
		stores=$((stores + ${3:-0}))
	done
	test $stores -gt 0 || dt_show fq.ann || return 1
	for f in quantum initial_quantum flow_plimit flow_max_rate low_rate_threshold orphan_mask; do
		set -- $(field_counts $f fq.ann)
		test "${2:-0}" -gt 0 && test "$3" = 0 || { echo "$f: $*"; false; } || return 1
	done || dt_show fq.ann
'
dt_test 'fq: line 0 is a false-sharing suspect between the writer and the reader' '
	awk -F"\t" "\$1 == \"struct fq_sched_data\" && \$2 == 0" fq.share >line0 &&
	grep -q "	false_sharing	suspected	[0-9]*$" line0 &&
	w=$(awk -F"\t" "\$4 == \"stat_bytes\" && \$9 > 0 { print \$5 }" line0 | sort -u) &&
	r=$(awk -F"\t" "\$4 == \"quantum\" { print \$5 }" line0 | sort -u) &&
	test -n "$w" && test -n "$r" && test "$w" != "$r" || dt_show fq.share
'
dt_test 'fq fixed: no line of struct fq_sched_data is flagged' '
	grep -q "^struct fq_sched_data	" fq-fixed.share &&
	! awk -F"\t" "\$1 == \"struct fq_sched_data\" && \$11 != \"\"" fq-fixed.share | grep -q . ||
	dt_show fq-fixed.share
'
# The same profile as perf script text: the plugin's table, row for row
# (test 3 checks what the table says; this one, that both paths say it).
dt_test 'fq: dtresolve --aggregate=sharing on perf script text gives the plugin'"'"'s table' '
	perf script -i fq.data -F pid,tid,ip,sym,symoff,dso 2>dt.err |
		"$DTRESOLVE" --aggregate=sharing --format=tsv >dt.share 2>>dt.err &&
	grep -q "^struct fq_sched_data	0	.*	false_sharing	suspected	[0-9]*$" dt.share &&
	dt_cmp fq.share dt.share || dt_show dt.err
'
dt_test 'fq: the human sharing table names the line and both threads' '
	dt_perf_script perf -i fq.data --dlarg sharing >share.txt 2>/dev/null &&
	grep -q "^struct fq_sched_data, cache line 0 (offsets 0..63): .* 2 threads: false sharing, suspected" share.txt ||
	dt_show share.txt
'
dt_test 'fq: annotate flags line 0 on its banner, and no line of the fixed layout' '
	grep -q "^# ---------- cache line 0 (offset 0): .*; 2 threads: false sharing, suspected -" fq.ann.txt &&
	grep -q "^# ---------- cache line 0 (offset 0): .*threads* -" fq-fixed.ann.txt &&
	! grep -q "sharing, suspected" fq-fixed.ann.txt || dt_show fq.ann.txt fq-fixed.ann.txt
'

# --- compared and merged (dtresolve runs perf for perf.data files) ---
PERF=$(dt_perf_command perf)
DTPROF_PLUGIN=$DT_PLUGIN
export PERF DTPROF_PLUGIN
for v in lw lw-reordered; do
	perf record -q -e cpu-clock -o $v.data ./$v 100000 40 >/dev/null 2>&1
done
dt_test 'listwalk: --diff follows link.next from line 1 to line 0' '
	"$DTRESOLVE" --diff --format=tsv lw.data lw-reordered.data >diff.tsv 2>diff.err &&
	awk -F"\t" "\$2 == \"struct record\" && \$3 == \"link.next\" { print \$4, \$5, \$6, \$7 }" diff.tsv >got &&
	echo "112 1 0 0" >want && dt_cmp want got || dt_show diff.tsv diff.err
'
dt_test 'listwalk: the human diff shows the move' '
	"$DTRESOLVE" --diff lw.data lw-reordered.data >diff.txt 2>/dev/null &&
	grep -E "^ +[0-9.]+% +[0-9.]+% +[-+][0-9.]+% +112 -> 0 +1 -> 0 +struct record \(link.next\)" diff.txt ||
	dt_show diff.txt
'
dt_perf_script perf -i lw.data --dlarg format=tsv >a.tsv 2>/dev/null
dt_test 'diff of a table with itself: every delta is zero' '
	"$DTRESOLVE" --diff --format=tsv a.tsv a.tsv >self.tsv &&
	test $(wc -l <self.tsv) -gt 3 &&
	! awk -F"\t" "NR > 1 && (\$12 != \"+0.0000\" || \$8 != \$9)" self.tsv | grep -q . || dt_show self.tsv
'
# (doubled with %.0f: mawk prints a sum past 2^31, a period, as 2.511e+09)
dt_test 'merge of a table with itself doubles every count' '
	"$DTRESOLVE" --merge --format=tsv a.tsv a.tsv >twice.tsv &&
	awk -F"\t" -v OFS="\t" "NR > 1 { for (i = 5; i <= 21; i++) \$i = sprintf(\"%.0f\", \$i * 2) } { print }" \
		a.tsv | sort >want &&
	sort twice.tsv >got && dt_cmp want got
'
dt_test 'merge of a table read from a pipe: the table whole, as from the file' '
	mkfifo fifo.tsv && { cat a.tsv >fifo.tsv & } &&
	"$DTRESOLVE" --merge --format=tsv fifo.tsv >piped.tsv 2>piped.err &&
	"$DTRESOLVE" --merge --format=tsv a.tsv >file.tsv &&
	test -s file.tsv && dt_cmp file.tsv piped.tsv || dt_show piped.err
'
dt_test 'merge reads perf.data through the plugin, and annotate keeps the layout' '
	"$DTRESOLVE" --merge --aggregate=annotate lw.data a.tsv >ann.txt 2>ann.err &&
	grep -q "^Annotate type: .struct record. (128 bytes, 2 cache lines)" ann.txt || dt_show ann.txt ann.err
'
dt_test 'a table that is not one: the file and line are named, exit 1' '
	printf "type\toffset\n" >bad.tsv;
	"$DTRESOLVE" --merge bad.tsv >/dev/null 2>bad.err; test $? = 1 &&
	grep -q "bad.tsv:1: not a dtprof types table" bad.err || dt_show bad.err
'
if command -v sqlite3 >/dev/null; then
	dt_test 'the tsv schema loads into SQL (sqlite3): samples add up to the total' '
		sqlite3 :memory: ".mode tabs" ".import a.tsv t" \
			"select sum(samples) from t;" >sql.out &&
		test "$(cat sql.out)" = "$(perf script -i lw.data -F ip 2>/dev/null | wc -l)" || dt_show sql.out
	'
	dt_test 'contrib/types.sql gives the columns their types: numbers sort as numbers' '
		sqlite3 typed.db <"$DT_SRC/contrib/types.sql" &&
		sqlite3 typed.db ".mode tabs" ".import --skip 1 a.tsv types" &&
		test "$(sqlite3 typed.db "select count(*) from types where typeof(samples) != \"integer\"")" = 0 &&
		test "$(sqlite3 typed.db "select sum(samples) from types")" = "$(cat sql.out)" &&
		sqlite3 typed.db "select samples from types order by samples desc limit 2" >top &&
		test "$(sed -n 1p top)" -ge "$(sed -n 2p top)" || dt_show top
	'
elif [ "${DT_TEST_STRICT:-0}" = 1 ]; then
	dt_test 'sqlite3 is installed (DT_TEST_STRICT=1)' false
fi
dt_done
