#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-slow: out of memory at hundreds of allocation points, and a run under valgrind
# Out of memory at every place a run allocates (tests/failmalloc.c fails
# every allocation after the first N), in dtresolve and in the plugin:
# never an abort or a crash (libdw's asserts and OOM exit included), never
# a wrong answer or a wrong message;
# either a clean stop that says out of memory (exit 1), or every line
# answered, each as without the limit or as no_memory, said on stderr and
# counted in the totals.  Also with the debug info apart and compressed,
# its inflated copy written to the cache and read from it under the limit,
# and a session whose second thread runs out of memory inside libdw; and
# under valgrind, which looks like out of memory to errno, it is not.
. "$(dirname "$0")/lib.sh"
dt_require gcc valgrind
case $DT_BUILD in */san)
	# the sanitizers own malloc: an interposed one cannot run under them
	echo "1..0 # SKIP the sanitizer build allocates through its own runtime"
	exit 0 ;;
esac

gcc -O2 -shared -fPIC -o failmalloc.so "$DT_SRC/tests/failmalloc.c" -ldl
gcc -O2 -g -o corpus "$DT_SRC/tests/fixtures/corpus.c"
"$DTINSNS" corpus $(dt_fixture_functions "$DT_SRC/tests/fixtures/corpus.c") | cut -f1 >addrs
"$DTRESOLVE" -v -e corpus addrs >want
lines=$(wc -l <addrs)

bad=0 stops=0 partial=0
runs() {	# for good (DT_FAIL_COUNT unset), then for 40 allocations
	for n in $(seq 0 2 120) $(seq 130 25 600) 800 1200 2000 4000 8000 16000; do
		echo "$n -"
		echo "$n 40"
	done
}
# judge RC: the run's exit status and out, err against want (lines long);
# a failure is counted in bad and shown
judge() {
	why=
	if [ $1 -ge 2 ]; then
		why="exit $1"
	elif [ $1 = 1 ]; then
		grep -q "out of memory\|Cannot allocate memory" err || why="exit 1 without saying out of memory"
		stops=$((stops + 1))
	elif [ $(wc -l <out) != $lines ]; then
		why="$(wc -l <out) of $lines lines"
	else
		# each line as without the limit, or no_memory
		paste want out | awk -F'\t' -v n=$(head -1 want | awk -F'\t' '{ print NF }') '
			{ same = 1; for (i = 1; i <= n; i++) if ($i != $(i + n)) same = 0
			  if (!same && $(n + 7) != "no_memory") { print "wrong: " $0; exit 1 } }' ||
			why="a changed answer that is not no_memory"
		if grep -q "	no_memory	" out; then
			partial=$((partial + 1))
			grep -q "out of memory" err || why="no_memory answers, nothing said"
		fi
		test "$(awk '$1 == "total" { print $2 }' err)" = $lines || why="totals do not add up"
	fi
	if [ -n "$why" ]; then
		bad=$((bad + 1))
		echo "# DT_FAIL_AFTER=$n DT_FAIL_COUNT=$count: $why"
		sed 's/^/#   /' err | tail -3
	fi
}
runs >plan
# naming under the limit: no answers kept from an earlier run read
while read n count; do
	[ $count = - ] && count=
	DT_FAIL_AFTER=$n DT_FAIL_COUNT=$count LD_PRELOAD=$PWD/failmalloc.so \
		DTPROF_NO_ANSWERS=1 "$DTRESOLVE" -v --stat -e corpus addrs >out 2>err
	judge $?
done <plan
dt_test "out of memory at every place: no crash, no wrong answer or message ($stops clean stops, $partial runs with no_memory answers)" \
	'test $bad = 0 && test $partial -gt 0'

# The debug info apart and zlib-compressed, as Debian's -dbg packages ship
# it: the inflated copy is written to the cache under the limit (a fresh
# cache each run), and read from it under the limit, with the answers the
# first run kept there
mkdir -p zroot/.build-id bin
id=$(readelf -n corpus | sed -n "s/.*Build ID: \([0-9a-f]*\).*/\1/p")
mkdir -p zroot/.build-id/$(echo "$id" | cut -c1-2)
objcopy --only-keep-debug --compress-debug-sections=zlib corpus \
	zroot/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
strip --strip-debug -o bin/corpus corpus
DTPROF_CACHE_DIR=$PWD/warm "$DTRESOLVE" -v --debuginfo-path="$PWD/zroot" -e bin/corpus addrs >want
bad_before=$bad
for n in $(seq 0 3 150) 200 300 500 1000 2000 4000 8000; do
	for cache in cold warm; do
		count=40
		rm -rf cold
		DT_FAIL_AFTER=$n DT_FAIL_COUNT=$count LD_PRELOAD=$PWD/failmalloc.so \
			DTPROF_CACHE_DIR=$PWD/$cache "$DTRESOLVE" -v --stat \
			--debuginfo-path="$PWD/zroot" -e bin/corpus addrs >out 2>err
		judge $?
	done
done
dt_test "compressed debug info, its copy and kept answers stored and read out of memory: no crash, no wrong answer or message" \
	'test -n "$id" && test -f warm/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug &&
	 test -f warm/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).answers-* &&
	 test $bad = $bad_before'

# The plugin, with its second thread, driven as perf drives it: the same
# promises inside perf, where a stop would lose the report (unit-plugin's
# DT_PLUGIN_OOM mode arms failmalloc.so from start() on, each run in a
# child).  The plugin installs no signal handler in perf, so libdw's own
# asserts on a failed allocation end a few runs, as libdw means them to:
# told from a crash by the stack, and at most a tenth of the runs.
dt_test 'the plugin out of memory at every place: every sample counted, no crash' '
	DT_PLUGIN_OOM=1 LD_PRELOAD=$PWD/failmalloc.so "$DT_BUILD/tests/unit-plugin" \
		"${DT_PLUGIN:-$DT_BUILD/dtplugin.so}" >plugin-oom.tap 2>plugin-oom.err &&
	grep -q "^1\.\.10$" plugin-oom.tap && ! grep -q "^not ok" plugin-oom.tap &&
	grep -q "out of memory" plugin-oom.err || dt_show plugin-oom.tap plugin-oom.err
'

# A session used from two threads, the second out of memory inside libdw
# at each of its allocations in turn: libdw 0.192 then leaves its table
# of threads NULL, and ending that Dwarf would crash (oom.c)
dt_test 'a session whose second thread ran out of memory in libdw closes' '
	LD_PRELOAD=$PWD/failmalloc.so "$DT_BUILD/tests/oom-session" >session-oom.tap 2>session-oom.err &&
	grep -q "^1\.\.2$" session-oom.tap && ! grep -q "^not ok" session-oom.tap ||
	dt_show session-oom.tap
'

# Not out of memory: under valgrind, whose brk segment is 8 MB, glibc's
# malloc grows its heap by mmap and leaves errno ENOMEM after allocations
# that succeeded.  dtresolve on its own memory instructions (a heap well
# past 8 MB): every answer as without valgrind, nothing said
"$DT_BUILD/tests/dtinsns" "$DTRESOLVE" $(nm --defined-only "$DTRESOLVE" |
	awk '$2 ~ /^[tT]$/ { print $3 }' | head -n 400) 2>/dev/null |
	grep '(' | cut -f1 >self
"$DTRESOLVE" -v -e "$DTRESOLVE" self >self.want 2>/dev/null
dt_test "under valgrind: $(wc -l <self) answers as without it, no out of memory" '
	test $(wc -l <self) -gt 5000 &&
	valgrind --tool=none -q "$DTRESOLVE" -v -e "$DTRESOLVE" self >self.got 2>self.err &&
	! grep -q "out of memory" self.err && dt_cmp self.want self.got
'
dt_done
