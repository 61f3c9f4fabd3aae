#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-slow: perf script on profiles recorded at several sizes
# Work done before and beside the samples, with every perf installed:
# perf.data's build-id table read as perf reads it (tests/dtbuildids
# against perf buildid-list), the binaries it names opened by the
# resolving thread before their samples come, what opening them says
# kept until a sample asks (a binary perf script filters out says
# nothing), and the tables of a profile over several binaries the same
# whichever thread answered which site (threads=2: perf's thread helps
# at the end, the other builds whole-binary indexes while it waits), and
# whichever counted which sample (perf's thread counts answered sites'
# samples itself once the other has caught up, and hands samples over
# again at the first site without an answer).
. "$(dirname "$0")/lib.sh"
dt_require gcc strip strace
dt_require_perf_record

cat >spin.c <<'EOF'
#include <stdlib.h>
volatile long sink;
long spin(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * 3; return s; }
int main(int c, char **v) { sink = spin(c > 1 ? atol(v[1]) : 1000); return 0; }
EOF
gcc -O2 -g -o withdbg spin.c
gcc -O2 -g -o nodbg spin.c && strip nodbg

for perf in $(dt_perf_list); do
	v=$(dt_perf_version $perf)
	data=two-$v.data
	dt_test "perf $v: two programs recorded, one without debug info" "
		$perf record -q --buildid-all -e cpu-clock -F 4000 -o $data -- \
			sh -c './withdbg 200000000; ./nodbg 200000000' >/dev/null 2>rec.err &&
		$perf script -i $data -F comm 2>/dev/null | grep -q nodbg
	"
	dt_test "perf $v: the build-id table as perf buildid-list reads it" "
		$DT_BUILD/tests/dtbuildids $data | cut -d' ' -f1,2 | sort >ours &&
		$perf buildid-list -i $data | sort >perfs &&
		grep -q ' $PWD/nodbg\$' ours && dt_cmp perfs ours
	"
	# (--buildid-all: the kernel's entry even when, on a busy machine,
	# the run had no kernel sample)
	dt_test "perf $v: the kernel's entry is the kernel's, the programs' are this machine's" "
		$DT_BUILD/tests/dtbuildids $data >entries &&
		grep -q ' \[kernel.kallsyms\] kernel\$' entries &&
		grep -q ' $PWD/withdbg\$' entries || dt_show entries
	"
	# the resolving thread opens nodbg although perf script leaves out
	# its samples, and keeps what opening it says to itself
	dt_test "perf $v: nodbg opened ahead by the resolving thread, not by a sample" "
		strace -f -e trace=openat -o trace \
			\${dt_san_preload:+-E LD_PRELOAD=\$dt_san_preload -E ASAN_OPTIONS=detect_leaks=0} \
			$perf script -i $data --comm withdbg --dlfilter '$DT_PLUGIN' \
			--dlarg threads=2 --dlarg stat >stat 2>err &&
		awk -v pid=\$(head -n 1 trace | cut -d' ' -f1) '
			\$1 != pid && /\\/nodbg\", O_RDONLY\\|O_NONBLOCK/ { found = 1 }
			END { exit !found }' trace || dt_show trace
	"
	dt_test "perf $v: a binary with no sample asked for says nothing" "
		test -s stat && ! grep -q nodbg err || dt_show err
	"
	dt_test "perf $v: one asked for says once that it has no debug info" "
		dt_perf_script $perf -i $data --dlarg stat >stat 2>err &&
		test \$(grep -c \"'$PWD/nodbg' has no debug info\" err) = 1 || dt_show err
	"
	# perf.data in perf's pipe format, on standard input: no table to
	# read ahead, the same tables as without the second thread
	dt_test "perf $v: a perf.data in pipe format: the same tables with either thread count" "
		$perf record -q -e cpu-clock -F 4000 -o - -- ./withdbg 100000000 >pipe-$v.data 2>rec.err &&
		dt_perf_script $perf -i - --dlarg stat --dlarg threads=1 <pipe-$v.data >t1 2>/dev/null &&
		dt_perf_script $perf -i - --dlarg stat --dlarg threads=2 <pipe-$v.data >t2 2>/dev/null &&
		grep -q '^total' t1 && dt_cmp t1 t2
	"
done

# a profile over several binaries (the program, libc, ld.so, the shell,
# the kernel): every table the same with the helper, the indexes made
# while waiting, and with neither
perf=perf
dt_test "a profile over several binaries recorded" "
	$perf record -q -e cpu-clock -F 8000 -o many.data -- \
		sh -c './withdbg 100000000; ls -lR /usr/include >/dev/null; ./withdbg 50000000' >/dev/null 2>rec.err
"
for t in 1 2; do
	dt_perf_script $perf -i many.data --dlarg format=tsv --dlarg report --dlarg stat \
		--dlarg annotate --dlarg sharing --dlarg threads=$t >many.t$t 2>many.err$t
done
dt_test "several binaries: threads=1 and threads=2 print the same tables" "
	test -s many.t1 && dt_cmp many.t1 many.t2
"
dt_test "several binaries: the same messages, each once" "
	sort many.err1 >e1 && sort many.err2 >e2 && dt_cmp e1 e2 &&
	test \$(sort many.err2 | uniq -d | wc -l) = 0
"

# A long run of one loop's samples (perf's thread counts them once the
# other has caught up: no table needs their threads, so as sums), then a
# list walk's new sites (the other thread again), then the loop again; a
# static program, so that the other thread catches up soon (no libc debug
# info to open first).  Kernel sites come all along (no vmlinux: answered
# by perf's thread).
cat >phases.c <<'EOF'
#include <stdlib.h>
volatile long sink;
struct node { struct node *next; long v; };
__attribute__((noinline)) long spin(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * 3; return s; }
__attribute__((noinline)) long walk(const struct node *h, long rounds)
{
	long s = 0;
	for (long r = 0; r < rounds; r++)
		for (const struct node *p = h; p; p = p->next)
			s += p->v;
	return s;
}
int main(int c, char **v)
{
	long n = c > 1 ? atol(v[1]) : 1000;
	struct node *h = NULL;
	for (int i = 0; i < 1000; i++) {
		struct node *p = malloc(sizeof(*p));
		p->v = i;
		p->next = h;
		h = p;
	}
	sink = spin(n);
	sink += walk(h, n / 2000);
	sink += spin(n / 2);
	return 0;
}
EOF
dt_test "phases recorded: a loop, a list walk, the loop" "
	gcc -O2 -g -static -o phases phases.c &&
	$perf record -q -e cpu-clock -c 10000 -o phases.data ./phases 300000000 >/dev/null 2>rec.err
"
# perf's thread tallies a site's later samples (per thread, when a table
# keeps threads) and hands the others over
for t in 1 2; do
	DTPROF_DEBUG=1 dt_perf_script $perf -i phases.data --dlarg format=tsv --dlarg report \
		--dlarg stat --dlarg code=walk --dlarg threads=$t >phases.t$t 2>phases.err$t
	DTPROF_DEBUG=1 dt_perf_script $perf -i phases.data --dlarg format=tsv --dlarg report \
		--dlarg sharing --dlarg threads=$t >shared.t$t 2>shared.err$t
done
dt_test "phases: threads=1 and threads=2 print the same tables" "
	grep -q '^cpu-clock	struct node	8	v	' phases.t1 && dt_cmp phases.t1 phases.t2
"
# counts FILE: handed, counted on perf's thread, held, from DTPROF_DEBUG's
# line; the three add up to the profile's samples; and the pauses perf's
# thread tried, and those that found the other thread behind
counts() {
	sed -n "s/.*: \([0-9]*\) samples handed to the resolving thread, \([0-9]*\) counted on perf.s, \([0-9]*\) held in sums there; .* \([0-9]*\) pauses tried, \([0-9]*\) with that thread behind;.*$/\1 \2 \3 \4 \5/p" "$1" >counts &&
	read -r handed here held tried behind <counts && test $((handed + here + held)) = "$nsamples" ||
	dt_show "$1"
}
nsamples=$($perf script -i phases.data -F ip 2>/dev/null | wc -l)
dt_test "phases: perf's thread held samples in sums, and handed samples over" '
	counts phases.err2 && test $held -gt 0 && test $handed -gt 0 || dt_show phases.err2
'
dt_test "phases with sharing: threads=1 and threads=2 print the same tables" "
	grep -q '^struct node	' shared.t1 && dt_cmp shared.t1 shared.t2
"
# with each sample's thread kept (sharing), perf's thread still tallies a
# site's later samples, one tally per thread; the tables are those of
# one thread counting one sample at a time (the test above)
dt_test "phases with sharing: perf's thread tallied samples of their thread, and handed samples over" '
	counts shared.err2 && test $held -gt 0 && test $handed -gt 0 || dt_show shared.err2
'
# threads unasked: a second thread on the profile's first run (every
# instruction to name), none once every binary's answers are kept (a
# second thread would only cost CPU), the same tables either way
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
for run in 1 2; do
	DTPROF_CACHE_DIR=$PWD/auto-cache DTPROF_DEBUG=1 dt_perf_script $perf -i phases.data \
		--dlarg format=tsv --dlarg report >auto.t$run 2>auto.err$run
done
dt_test "unasked, the first run hands samples to a second thread (with CPUs for it)" '
	counts auto.err1 && if [ "$cpus" -gt 1 ]; then test $handed -gt 0; else test $handed = 0; fi &&
	! grep -q "one thread" auto.err1 || dt_show auto.err1
'
dt_test "unasked, a run with every answer kept takes one thread, and says so" '
	counts auto.err2 && test $handed = 0 &&
	if [ "$cpus" -gt 1 ]; then grep -q "answers kept: one thread" auto.err2; fi || dt_show auto.err2
'
dt_test "unasked, both runs print the tables threads=1 prints" '
	dt_cmp auto.t1 auto.t2 && head -n 30 phases.t1 | grep "^cpu-clock	struct node" >want &&
	grep -F -f want auto.t1 >/dev/null
'
dt_done
