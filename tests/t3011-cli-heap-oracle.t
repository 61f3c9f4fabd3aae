#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-slow: a recording and a run under valgrind's lackey
# The heap truth make accuracy-real checks real programs with: every heap
# block of a run (tests/malloclog.so, LD_PRELOAD), and each typed answer
# whose data address (from the registers) lies in a live block, or in a
# static variable of the binary, must claim an object inside it
# (tests/heap-oracle.py).  On a fixture whose objects
# are heap blocks of their own: every such answer right; and the oracle
# says wrong when an answer's offset is moved off its object.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require python3
dt_require_perf_record

gcc -O2 -shared -fPIC -o malloclog.so "$DT_SRC/tests/malloclog.c" -ldl
gcc -O2 -g -pthread -o ps "$DT_SRC/tests/fixtures/procshare.c"
perf record -q -N -e cpu-clock -k CLOCK_MONOTONIC --user-regs -o heap.data -- \
	env MALLOCLOG="$PWD/heap.mlog" LD_PRELOAD="$PWD/malloclog.so" ./ps private 200000000 \
	>objects 2>rec.err || dt_skip_all "perf record failed: $(head -n 1 rec.err)"
perf script -i heap.data --ns -F comm,pid,tid,time,event,ip,sym,symoff,dso,uregs \
	--show-mmap-events 2>/dev/null | "$DTRESOLVE" -f json >heap.json 2>/dev/null

dt_test 'the log has the objects the program printed, with their process' '
	for o in $(tail -n 2 objects | awk "{ print \$2 }"); do
		grep -q "^a ${o#0x} [0-9a-f]* [0-9]* [0-9]*$" heap.mlog || return 1
	done
'

dt_test 'every struct stats answer in a heap block lies inside it (0 wrong)' '
	python3 "$DT_SRC/tests/heap-oracle.py" heap.mlog heap.json "$PWD/ps" >verdict 2>wrong &&
	awk "\$6 >= 100 && \$6 + \$12 == \$8 && \$10 == 0 { ok = 1 } END { exit !ok }" verdict ||
	dt_show verdict wrong
'

# the same answers, each claiming an object that starts before its own
# (offset N read as 1N): the objects start their blocks, so it is outside
dt_test 'an answer moved off its object is wrong' '
	sed "s/\"offset\":\([0-9]\)/\"offset\":1\1/" heap.json >moved.json &&
	! python3 "$DT_SRC/tests/heap-oracle.py" heap.mlog moved.json "$PWD/ps" >moved 2>/dev/null &&
	awk "\$10 > 0 { ok = 1 } END { exit !ok }" moved || dt_show moved
'
# every executed instruction: the same fixture under valgrind's lackey,
# the heap events put in place by malloclog's marks
if command -v valgrind >/dev/null 2>&1; then
	env MALLOCLOG="$PWD/lk.mlog" MALLOCLOG_MARKS=1 LD_PRELOAD="$PWD/malloclog.so" \
		valgrind --tool=lackey --trace-mem=yes --log-file="$PWD/lk.trace" \
		./ps private 20000 >lk.objects 2>lk.err
	printf '#!/bin/sh\n"%s" "$@" | sed "s/\\"offset\\":\\([0-9]\\)/\\"offset\\":1\\1/"\n' \
		"$DTRESOLVE" >moved-dtresolve
	chmod +x moved-dtresolve
fi
dt_test 'under lackey, every executed instruction on a heap object is right' '
	command -v valgrind >/dev/null 2>&1 &&
	grep -q "^m [0-9a-f]* 100000 0 " lk.mlog &&
	python3 "$DT_SRC/tests/heap-oracle.py" --lackey lk.mlog lk.trace "$PWD/ps" \
		"$DTRESOLVE" >lk.verdict 2>lk.wrong &&
	awk "\$2 >= 2 && \$4 >= 2 && \$4 == \$6 && \$8 == 0 { ok = 1 } END { exit !ok }" lk.verdict ||
	dt_show lk.err lk.verdict lk.wrong
'
dt_test 'under lackey, an answer moved off its object is wrong' '
	! python3 "$DT_SRC/tests/heap-oracle.py" --lackey lk.mlog lk.trace "$PWD/ps" \
		"$PWD/moved-dtresolve" >lk.moved 2>/dev/null &&
	awk "\$8 > 0 { ok = 1 } END { exit !ok }" lk.moved || dt_show lk.moved
'
# every access, not the first few placements of each instruction: one
# load right on nineteen blocks and wrong on the twentieth, too short
if command -v valgrind >/dev/null 2>&1; then
	gcc -O2 -g -o short "$DT_SRC/tests/fixtures/shortlast.c"
	env MALLOCLOG="$PWD/sh.mlog" MALLOCLOG_MARKS=1 LD_PRELOAD="$PWD/malloclog.so" \
		valgrind --tool=lackey --trace-mem=yes --log-file="$PWD/sh.trace" \
		./short >/dev/null 2>sh.err
fi
dt_test 'under lackey, the one access of twenty outside its block is found' '
	command -v valgrind >/dev/null 2>&1 &&
	! python3 "$DT_SRC/tests/heap-oracle.py" --lackey sh.mlog sh.trace "$PWD/short" \
		"$DTRESOLVE" >sh.verdict 2>sh.wrong &&
	awk "\$8 == 1 && \$12 >= 20 { ok = 1 } END { exit !ok }" sh.verdict &&
	grep -q "struct big.*heap block at +48 of 56 bytes" sh.wrong ||
	dt_show sh.err sh.verdict sh.wrong
'
dt_done
