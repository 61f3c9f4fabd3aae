#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# dtprof on real programs nobody wrote for its tests, checked by
# execution: Debian's lua5.4, zstd, sqlite3 and memcached (apt-get
# source, built -O2 -g) and perf itself (linux-source-6.1, as make bench
# builds it), each run on a workload of its own under perf record -e
# cpu-clock --user-regs -k CLOCK_MONOTONIC, with tests/malloclog.so
# logging every heap block.  dtresolve names each sample's type and
# computes its data address from the registers; tests/heap-oracle.py
# checks every typed answer whose address lies in a live heap block or a
# static variable of the binary: the object claimed must lie inside it.
# Prints one row per program, then each program's five largest reasons
# for samples left unnamed, with their hottest function, and writes its
# 30 hottest typed rows (bench/spot-rows.py) to NAME.spot.md for the
# spot check by hand.  Then every executed instruction of smaller runs
# of all five (perf: its report of the header alone) under valgrind's lackey: tests/malloclog.so's marks
# put the heap events in place among the accesses, and heap-oracle.py
# --lackey checks each typed answer against every access it made.
#   accuracy-real.sh BUILD WORKDIR
set -eu
build=$1 work=$2
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work/src"
cd "$work"
perf=${PERF:-perf}
# perf 6.12 from source, its crash on these profiles fixed (perf-6.12-src.sh)
p612=$(sh "$src/bench/perf-6.12-src.sh" "$src/build/perf-6.12-src" || true)
fields=comm,pid,tid,time,event,ip,sym,symoff,dso,uregs

# --- the programs, built once ---
sources() {	# sources PACKAGE...: apt-get source, once
	for p in "$@"; do
		ls -d src/"$p"-*/ >/dev/null 2>&1 && continue
		sh "$src/contrib/install-deps.sh" --deb-src-source >/dev/null
		(cd src && apt-get source -qq "$p" >/dev/null 2>&1) ||
			{ echo "accuracy-real: apt-get source $p failed" >&2; exit 1; }
	done
}
sources lua5.4 libzstd sqlite3 memcached
lua_dir=$(ls -d src/lua5.4-*/src | head -n 1)
if [ ! -x "$lua_dir/lua" ]; then
	# Debian's Makefile needs libtool; the interpreter is its .c files
	echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$lua_dir/lua5.4-deb-multiarch.h"
	(cd "$lua_dir" && gcc -O2 -g -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -Wl,-E -o lua \
		$(ls ./*.c | grep -v luac.c) -lm -ldl)
fi
zstd_dir=$(ls -d src/libzstd-*/programs | head -n 1)
[ -x "$zstd_dir/zstd" ] ||
	make -s -C "$zstd_dir" zstd CFLAGS="-O2 -g" -j"$(nproc)" >zstd-build.log 2>&1
sqlite_dir=$(ls -d src/sqlite3-*/ | head -n 1)
if [ ! -x "$sqlite_dir/sqlite3" ]; then
	# the amalgamation is made by tclsh; the shell is two files
	sh "$src/contrib/install-deps.sh" --if-missing tcl8.6
	(cd "$sqlite_dir" && ./configure -q --disable-tcl >../../sqlite-build.log 2>&1 &&
		make sqlite3.c shell.c >>../../sqlite-build.log 2>&1 &&
		gcc -O2 -g -o sqlite3 shell.c sqlite3.c -lm) ||
		{ echo "accuracy-real: building sqlite3 failed: sqlite-build.log" >&2; exit 1; }
fi
mc_dir=$(ls -d src/memcached-*/ | head -n 1)
if [ ! -x "$mc_dir/memcached" ]; then
	sh "$src/contrib/install-deps.sh" --if-missing libevent-dev
	(cd "$mc_dir" && ./configure -q CFLAGS="-O2 -g" >../../memcached-build.log 2>&1 &&
		make -j"$(nproc)" memcached >>../../memcached-build.log 2>&1) ||
		{ echo "accuracy-real: building memcached failed: memcached-build.log" >&2; exit 1; }
fi
realperf=$(sh "$src/bench/real-binary.sh" "$build/bench")
gcc -O2 -shared -fPIC -o malloclog.so "$src/tests/malloclog.c" -ldl

# --- the workloads ---
[ -s text.in ] || head -c 20000000 /dev/urandom | base64 >text.in
[ -s report.in.data ] ||
	"$perf" record -q -e cpu-clock -o report.in.data -- "$zstd_dir/zstd" -q -f -T2 -6 \
		text.in -o /dev/null >/dev/null 2>&1

record() {	# record NAME COMMAND...: NAME.data and NAME.mlog
	name=$1
	shift
	rm -f "$name.mlog"
	"$perf" record -q -e cpu-clock -k CLOCK_MONOTONIC --user-regs -o "$name.data" -- \
		env MALLOCLOG="$PWD/$name.mlog" LD_PRELOAD="$PWD/malloclog.so" "$@" \
		>/dev/null 2>&1
}
record lua "$lua_dir/lua" "$src/bench/real/tables.lua"
record zstd "$zstd_dir/zstd" -q -f -T2 -10 text.in -o /dev/null
rm -f sqlite.db
record sqlite "$sqlite_dir/sqlite3" sqlite.db ".read $src/bench/real/workload.sql"
# memcached: four server threads, four client connections; it ends (and
# flushes its heap log) on SIGINT
port=$((20000 + $$ % 20000))
serve() {	# serve RUNNER SECONDS: memcached under RUNNER (record, lackey)
	port=$((port + 1))
	rm -f memcached.pid
	# memcached sets its descriptor limit, soft and hard, to its
	# connections (-c); valgrind keeps 12 descriptors of its own at the
	# top of the limit and refuses any other hard limit than the rest
	# (without this the server exits before serving, under lackey)
	(ulimit -n 1024 2>/dev/null
	 $1 memcached "$mc_dir/memcached" -u root -U 0 -l 127.0.0.1 -p "$port" -t 4 \
		-c 1012 -P "$PWD/memcached.pid") &
	rec=$!
	for _ in $(seq 300); do [ -s memcached.pid ] && break; sleep 0.1; done
	python3 "$src/bench/real/memcache-load.py" "$port" "$2" ||
		echo "accuracy-real: the memcached workload failed under $1" >&2
	kill -INT "$(cat memcached.pid)" 2>/dev/null || true
	wait "$rec" || true
}
serve record 5
record perf-report sh -c "for i in 1 2 3; do
	'$realperf' report -i report.in.data --stdio --sort sym,dso >/dev/null 2>&1; done"

# --- each checked ---
check() {	# check NAME BINARY: the table row, and NAME.reasons
	name=$1 bin=$(realpath "$2")
	"$perf" script -i "$name.data" --ns -F $fields --show-mmap-events 2>/dev/null >"$name.txt"
	"$build/dtresolve" -f json "$name.txt" 2>/dev/null >"$name.json"
	# the function of each line, beside its answer (one answer per line)
	sed 's/.* \([^ ]*\)+0x[0-9a-f]* (.*/\1/' "$name.txt" | paste -d'\t' - "$name.json" |
		grep -F "\"dso\":\"$bin\"" >"$name.own" || true
	own=$(grep -c . "$name.own" || true)
	typed=$(grep -F '"type_size":' "$name.own" | grep -c '"reason":"ok"' || true)
	oracle=$(python3 "$src/tests/heap-oracle.py" "$name.mlog" "$name.json" "$bin" \
		2>"$name.wrong" || true)
	if [ -n "$p612" ]; then
		# the types perf 6.12 names in the program's own binary, its
		# pseudo types ("(unknown)", "(stack operation)") apart; a
		# crash of it is its answer too: said, not shown
		rc=0
		sh -c '"$@" >p612.out' sh "$p612" report -i "$name.data" --stdio -s dso,type \
			-F sample,dso,type 2>/dev/null || rc=$?
		if [ "$rc" -gt 128 ]; then
			p612_col="crashed"
		else
			p612_col=$(awk -v d="$(basename "$bin")" '
				!/^#/ && $2 == d { n += $1; if ($3 !~ /^\(/) t += $1 }
				END { if (n) printf "%d (%.1f%%)", t, 100 * t / n; else print "no rows" }' p612.out)
		fi
	else
		p612_col="not built"
	fi
	case $oracle in
	answers*) ;;
	*) oracle="no verdict"
	   echo "accuracy-real: the heap oracle gave $name no verdict: $work/$name.wrong" >&2 ;;
	esac
	echo "$oracle" | awk -v n="$name" -v own="$own" -v t="$typed" -v p="$p612_col" '
	$1 != "answers" { printf "| %-12s | %7d | no verdict: %s.wrong |\n", n, own, n; next }
	{
		printf "| %-12s | %7d | %6d (%5.1f%%) | %-18s | %7d | %7d | %6d | %5d |\n",
			n, own, t, own ? 100 * t / own : 0, p, $6, $12, $8, $10
		if ($14) printf "%s %d\n", n, $14 >"punned.txt" }'
	# reasons: count, and the function with most of them
	awk -F'\t' '{ r = $2; sub(/.*"reason":"/, "", r); sub(/".*/, "", r)
		if (r == "ok") next; n[r]++; f[r "\t" $1]++ }
	     END { for (k in f) { split(k, a, "\t")
			if (f[k] > best[a[1]]) { best[a[1]] = f[k]; where[a[1]] = a[2] } }
		   for (r in n) printf "%d\t%s\t%s (%d)\n", n[r], r, where[r], best[r] }' \
		"$name.own" | sort -rn | head -n 5 >"$name.reasons"
	# the hottest typed rows, laid out for the spot check by hand
	python3 "$src/bench/spot-rows.py" "$name.json" "$bin" 30 >"$name.spot.md" ||
		echo "accuracy-real: no spot-check rows for $name" >&2
}

# --- every executed instruction, under valgrind's lackey (small runs) ---
lackey() {	# lackey NAME BINARY ARG...: NAME.lackey, the oracle's line
	name=$1 bin=$(realpath "$2")
	shift 2
	rm -f "$name.lk.mlog"
	env MALLOCLOG="$PWD/$name.lk.mlog" MALLOCLOG_MARKS=1 LD_PRELOAD="$PWD/malloclog.so" \
		valgrind --tool=lackey --trace-mem=yes --log-file="$PWD/$name.trace" "$bin" "$@" \
		>/dev/null 2>"$name.lk.err" || true
	python3 "$src/tests/heap-oracle.py" --lackey "$name.lk.mlog" "$name.trace" "$bin" \
		"$build/dtresolve" >"$name.lackey" 2>"$name.lk.wrong" || true
	[ -s "$name.lackey" ] ||
		echo "accuracy-real: $name under lackey gave no verdict: $work/$name.lk.err, $work/$name.lk.wrong" >&2
	rm -f "$name.trace"	# gigabytes
}
sh "$src/contrib/install-deps.sh" --if-missing valgrind
head -c 50000 text.in >tiny.in
sed 's/200000/300/' "$src/bench/real/workload.sql" >small.sql
lackey lua "$lua_dir/lua" "$src/bench/real/tables.lua" 0.001
lackey zstd "$zstd_dir/zstd" -q -f -3 tiny.in -o /dev/null
rm -f small.db
lackey sqlite "$sqlite_dir/sqlite3" small.db ".read small.sql"
serve lackey 1
# perf's own list loops: its report of the header alone (symbol loading
# makes a whole report too slow under lackey)
lackey perf-report "$realperf" report -i report.in.data --header-only

echo "real programs, checked by execution (accuracy-real.sh)"
echo
rm -f punned.txt
echo "| program      | samples | typed by dtprof  | typed by perf 6.12 | in heap | statics | right  | wrong |"
echo "|--------------|---------|------------------|--------------------|---------|---------|--------|-------|"
check lua "$lua_dir/lua"
check zstd "$zstd_dir/zstd"
check sqlite "$sqlite_dir/sqlite3"
check memcached "$mc_dir/memcached"
check perf-report "$realperf"
echo
echo "samples: the program's own binary's; typed: named a type with a size"
echo "(not a pseudo type, not a miss); perf 6.12: its perf report -s dso,type"
echo "on the same perf.data, the samples of the binary it names a type for (not"
echo "its pseudo types: unknown, stack operation), of its own count of the"
echo "binary's samples (perf-6.12-src.sh: built from source with its crash"
echo "fixed); in heap: typed answers whose data address (from"
echo "the registers) lies in a heap block live at the sample; statics: in one of"
echo "the binary's static variables instead; right and wrong: the object claimed"
echo "inside that block or variable, or not (heap-oracle.py)."
if [ -s punned.txt ]; then
	echo "Not counted: answers at the start of a static smaller than the type, which"
	echo "the program itself takes for one (sqlite's one-byte fakeCursor, a BtCursor):"
	sed 's/^/  /' punned.txt
fi
echo
echo "every executed instruction, under valgrind's lackey (smaller runs: Lua's"
echo "workload at 0.001, zstd -3 on 50 kB, 300 rows of SQL, memcached for 1 s,"
echo "perf report --header-only): instructions of the program that touched one"
echo "heap block or static of it, typed by dtprof, the object claimed inside it"
echo "at every one of the typed instructions' accesses (checked)"
echo
echo "| program      | executed | typed  | right  | wrong | punned |   checked |"
echo "|--------------|----------|--------|--------|-------|--------|-----------|"
for name in lua zstd sqlite memcached perf-report; do
	if [ -s "$name.lackey" ]; then
		awk -v n="$name" '{ printf "| %-12s | %8d | %6d | %6d | %5d | %6d | %9d |\n",
			n, $2, $4, $6, $8, $10, $12 }' "$name.lackey"
	else
		printf '| %-12s | no verdict: %s.lk.err, %s.lk.wrong |\n' "$name" "$name" "$name"
	fi
done
for name in lua zstd sqlite memcached perf-report; do
	echo
	echo "$name: the largest reasons left unnamed (samples, reason, hottest function)"
	sed 's/^/  /' "$name.reasons"
done
echo
echo "the 30 hottest typed rows of each, to judge by hand (doc/ACCURACY.md):"
echo "  $work/NAME.spot.md"

