#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-slow: nine recordings, each adding and removing eleven uprobes
# contrib/dtprof-record: a recording with the allocator's calls beside
# the samples, checked against the blocks the program printed; and no
# probe left behind, whichever way it ends (its end, the command's
# failure, perf's, Ctrl-C, SIGTERM), nor added when it refuses.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require_perf_record
REC=$DT_SRC/contrib/dtprof-record
[ -w /sys/kernel/tracing/uprobe_events ] || [ -w /sys/kernel/debug/tracing/uprobe_events ] ||
	dt_skip_all "no uprobes to add here (not root, or no uprobe_events in tracefs)"

gcc -O2 -g -o allocs "$DT_SRC/tests/fixtures/allocs.c"
# probes GROUP: the probes of group GROUP perf lists now
probes() {
	perf probe -l 2>/dev/null | grep -c "^ *$1:" || true
}
# group ERRFILE: the group a run said it added
group() {
	sed -n 's/.* probes on the allocator (\(dtprof_[0-9]*\):\*).*/\1/p' "$1"
}

dt_test 'a recording: the samples, and every block the program printed, allocated and freed' '
	"$REC" -o al.data -- ./allocs 3 >blocks 2>rec.err &&
	g=$(group rec.err) && test -n "$g" &&
	perf script -i al.data -F event,trace 2>/dev/null >events &&
	grep -q "cpu-clock" events &&
	for b in $(awk "/^block/ && \$4 != \"aligned\" { print \$2 }" blocks | sort -u); do
		grep -q "__return: .* ret=$b\$" events &&
		grep -q "$g:free_${g#dtprof_}: .* ptr=$b\$" events || return 1
	done &&
	# posix_memalign: its block where it stores it, its return 0
	b=$(awk "/^block/ && \$4 == \"aligned\" { print \$2 }" blocks) && test -n "$b" &&
	grep -q "$g:pmemalign_block_${g#dtprof_}: .* ptr=$b\$" events &&
	grep -q "$g:pmemalign_${g#dtprof_}: .* size=0x28\$" events &&
	grep -q "$g:pmemalign_${g#dtprof_}__return: .* ret=0x0\$" events &&
	grep -q "$g:free_${g#dtprof_}: .* ptr=$b\$" events &&
	grep -q "$g:malloc_${g#dtprof_}: .* size=0x28\$" events &&
	grep -q "$g:calloc_${g#dtprof_}: .* nmemb=0x8 size=0x8\$" events &&
	grep -q "$g:realloc_${g#dtprof_}: .* size=0x200\$" events || dt_show rec.err events
'
dt_test 'its probes are gone after it' '
	g=$(group rec.err) && test "$(probes "$g")" = 0
'

# perf 6.1 refuses an event name another group holds: each run names
# its events apart, so two at once both record
dt_test 'two runs at once: both record their blocks, no probe left' '
	"$REC" -o c1.data -- ./allocs 2 >c1.blocks 2>c1.err & p1=$!
	"$REC" -o c2.data -- ./allocs 2 >c2.blocks 2>c2.err & p2=$!
	wait $p1 && wait $p2 &&
	for c in c1 c2; do
		g=$(group $c.err) && test -n "$g" && test "$(probes "$g")" = 0 &&
		perf script -i $c.data -F event,trace 2>/dev/null >$c.events &&
		b=$(awk "/^block/ { print \$2; exit }" $c.blocks) && test -n "$b" &&
		grep -q "$g:[a-z_]*_${g#dtprof_}__return: .* ret=$b\$" $c.events || return 1
	done || dt_show c1.err c2.err
'

dt_test 'the command fails: its status, no probe left' '
	{ "$REC" -o f.data -- sh -c "exit 3" 2>f.err; test $? != 0; } &&
	g=$(group f.err) && test -n "$g" && test "$(probes "$g")" = 0 || dt_show f.err
'

dt_test 'perf record fails (an unknown event): an error, no probe left' '
	{ "$REC" -o e.data -e no-such-event -- ./allocs 1 >/dev/null 2>e.err; test $? != 0; } &&
	g=$(group e.err) && test -n "$g" && test "$(probes "$g")" = 0 || dt_show e.err
'

# a signal while the command runs: passed on to perf, which writes what
# it has; the probes removed, the status that of the signal
for sig in INT TERM; do
	dt_test "SIG$sig while recording: perf.data written, no probe left" "
		env --default-signal=INT \"\$REC\" -o s$sig.data -- sleep 30 2>s$sig.err &
		pid=\$!
		for _ in \$(seq 50); do grep -q 'probes on the allocator' s$sig.err && break; sleep 0.1; done
		g=\$(group s$sig.err) && test -n \"\$g\" && test \"\$(probes \"\$g\")\" -gt 0 &&
		sleep 0.5 && kill -$sig \$pid && { wait \$pid; st=\$?; } &&
		test \$st = $( [ $sig = INT ] && echo 130 || echo 143 ) &&
		test \"\$(probes \"\$g\")\" = 0 &&
		perf script -i s$sig.data -F event 2>/dev/null | grep -q . || dt_show s$sig.err
	"
done

# another allocator in front of the C library's (LD_PRELOAD, as jemalloc's):
# --allocator probes it, and -k gives the samples its clock
dt_test '--allocator LIB, -k CLOCKID: the blocks through LIB, on that clock' '
	gcc -O2 -shared -fPIC -o malloclog.so "$DT_SRC/tests/malloclog.c" -ldl &&
	rm -f m.log &&
	LD_PRELOAD=$PWD/malloclog.so MALLOCLOG=$PWD/m.log MALLOCLOG_STARTS=1 \
		"$REC" --allocator "$PWD/malloclog.so" \
		-k CLOCK_MONOTONIC -o lib.data -- ./allocs 2 >lib.blocks 2>lib.err &&
	g=$(group lib.err) && test -n "$g" && test "$(probes "$g")" = 0 &&
	perf script -i lib.data -F event,trace 2>/dev/null >lib.events &&
	perf report -i lib.data --header-only 2>/dev/null | grep -q "clockid = 1" &&
	for b in $(awk "/^block/ && \$4 != \"aligned\" { print \$2 }" lib.blocks | sort -u); do
		grep -q "__return: .* ret=$b\$" lib.events && grep -q "^a ${b#0x} " m.log || return 1
	done || dt_show lib.err lib.events
'
dt_test '--allocator: not a library, or one without malloc; a bad -k' '
	{ "$REC" --allocator ./no-such.so -o b1.data -- ./allocs 1 2>b1.err; test $? = 2; } &&
	{ "$REC" --allocator /bin/true -o b2.data -- ./allocs 1 2>b2.err; test $? = 2; } &&
	{ "$REC" -k "a b" -o b3.data -- ./allocs 1 2>b3.err; test $? = 2; } &&
	grep -q "no such library" b1.err && grep -q "defines no malloc" b2.err &&
	test ! -e b1.data && test ! -e b2.data && test ! -e b3.data || dt_show b1.err b2.err b3.err
'

dt_test 'no uprobes here: refused, exit 3, nothing added or recorded' '
	before=$(perf probe -l 2>/dev/null | wc -l) &&
	{ DTPROF_TRACEFS=$PWD/none "$REC" -o n.data -- ./allocs 1 >/dev/null 2>n.err; test $? = 3; } &&
	grep -q "^dtprof-record: this kernel has no uprobes" n.err && test ! -e n.data &&
	test "$(perf probe -l 2>/dev/null | wc -l)" = "$before" || dt_show n.err
'
dt_test 'not a program, or no command: refused, exit 3 and 2' '
	{ "$REC" -o x.data -- no-such-program 2>x.err; test $? = 3; } &&
	grep -q "no program .no-such-program." x.err && test ! -e x.data &&
	{ "$REC" -o x.data 2>u.err; test $? = 2; } && grep -q "^usage: dtprof-record" u.err ||
	dt_show x.err u.err
'
dt_done
