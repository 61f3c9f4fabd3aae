#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# heap-real.sh BUILD WORK: the real programs of accuracy-real.sh (built
# there, in WORK) recorded by contrib/dtprof-record, each through dtresolve
# with and without its allocator events: of the program's own samples
# (user space), those typed without allocation sites and with them, and
# how the two methods agree where both answer (a sample its instruction
# typed, in a block of a typed site: the block holds that object there,
# or cannot: one of the two is wrong).  The kernel column: samples in
# the kernel, mostly the uprobes' own handling.  Lua and SQLite once
# more with their own allocating functions probed too (NAME-own).
set -eu
build=$1 work=$2
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$work"
fields=comm,pid,tid,time,event,ip,sym,symoff,dso,uregs,trace
lua=$(ls src/lua5.4-*/src/lua 2>/dev/null | head -n 1)
zstd=$(ls src/libzstd-*/programs/zstd 2>/dev/null | head -n 1)
sqlite=$(ls src/sqlite3-*/sqlite3 2>/dev/null | head -n 1)
[ -x "$lua" ] && [ -x "$zstd" ] && [ -x "$sqlite" ] && [ -s text.in ] ||
	{ echo "heap-real: run make accuracy-real first (it builds the programs)" >&2; exit 1; }

# capture FILE [dtprof-record options...] -- COMMAND...: FILE.data, and
# in FILE.txt the program's own samples with its allocator's events (the
# kernel's, mostly the uprobes' handling, which the recording adds, are
# in FILE.all only: counted apart); $wrap runs dtprof-record (empty, or
# env with malloclog's variables)
wrap=
capture() {
	f=$1
	shift
	$wrap "$src/contrib/dtprof-record" -o "$f.data" "$@" >/dev/null 2>"$f.rec" ||
		{ echo "heap-real: dtprof-record $f failed: $(tail -n 1 "$f.rec")" >&2; exit 1; }
	perf script -i "$f.data" --ns -F $fields --show-mmap-events --show-task-events 2>/dev/null |
		tee "$f.all" | grep -v "cpu-clock: .*(\[kernel.kallsyms\])" >"$f.txt"
}
record() {	# record NAME [--wrapper FUNC:N]... -- COMMAND...
	name=$1
	shift
	capture "$name-heap" "$@"
	grep -v " dtprof_[0-9]*:" "$name-heap.txt" >"$name-plain.txt" || true
}
# runs FUNC: FUNC NAME [--wrapper FUNC:N]... -- COMMAND... for each
# program, and Lua and SQLite once more with their own allocating
# functions named (--wrapper): Lua's objects through luaC_newobj over
# luaM_malloc_, SQLite's through sqlite3DbMallocZero and
# sqlite3DbMallocRawNN over sqlite3Malloc
runs() {
	"$1" lua -- "$lua" "$src/bench/real/tables.lua"
	"$1" zstd -- "$zstd" -q -f -T2 -10 text.in -o /dev/null
	rm -f sqlite-heap.db
	"$1" sqlite -- "$sqlite" sqlite-heap.db ".read $src/bench/real/workload.sql"
	"$1" lua-own --wrapper luaC_newobj:3 --wrapper luaM_malloc_:2 -- \
		"$lua" "$src/bench/real/tables.lua"
	rm -f sqlite-heap.db
	"$1" sqlite-own --wrapper sqlite3DbMallocZero:2 --wrapper sqlite3DbMallocRawNN:2 \
		--wrapper sqlite3Malloc:1 -- "$sqlite" sqlite-heap.db \
		".read $src/bench/real/workload.sql"
}
runs record

printf '%-10s %9s %9s %9s %16s %16s %8s %7s %7s %11s\n' program kernel user events \
	"typed, no sites" "typed, sites" "by addr" agree contra "sites typed"
for name in lua zstd sqlite lua-own sqlite-own; do
	"$build/dtresolve" --stat "$name-plain.txt" >/dev/null 2>"$name-plain.stat"
	"$build/dtresolve" --stat "$name-heap.txt" >/dev/null 2>"$name-heap.stat"
	"$build/dtresolve" --aggregate=objects --format=json "$name-heap.txt" \
		>"$name-objects.json" 2>/dev/null
	kernel=$(grep -c "cpu-clock: .*(\[kernel.kallsyms\])" "$name-heap.all" || true)
	python3 - "$name" "$kernel" <<'PY'
import json, sys
name, kernel = sys.argv[1], int(sys.argv[2])
def stat(path):
    rows = {}
    for l in open(path):
        w = l.split("\t")
        if len(w) >= 2 and not l.startswith("#"):
            rows[w[0]] = int(w[1])
    return rows
plain, heap = stat(name + "-plain.stat"), stat(name + "-heap.stat")
o = json.load(open(name + "-objects.json"))
sites = o["sites"]
typed = sum(1 for s in sites if s["type"])
total = plain["total"]
pct = lambda n: "%d (%.1f%%)" % (n, 100.0 * n / total if total else 0)
print("%-10s %9d %9d %9d %16s %16s %8d %7d %7d %11s" % (name, kernel, total, o["allocator_events"],
      pct(plain["resolved"]), pct(heap["resolved"]), o["by_address"], o["agreed"],
      o["contradicted"], "%d of %d" % (typed, len(sites))))
PY
done

# what each allocation site proves, against the constant size it asks
# for (a block smaller than the type proven would make it wrong): the
# C library's allocator, and each program's own (its --wrapper functions)
echo
echo "allocation sites against the sizes they ask for (bench/alloc-sites.py):"
sites() {	# sites NAME BINARY [FUNC:ARG...]
	name=$1
	shift
	printf '  %-8s %s\n' "$name" "$(python3 "$src/bench/alloc-sites.py" "$build/tests/dtsite" "$@" 2>"$name-sites.err")"
	sed 's/^/    /' "$name-sites.err"
}
sites lua "$lua"
sites lua-own "$lua" luaC_newobj:3 luaM_malloc_:2
sites zstd "$zstd"
sites sqlite "$sqlite"
sites sqlite-own "$sqlite" sqlite3Malloc:1 sqlite3MallocZero:1 sqlite3DbMallocZero:2 \
	sqlite3DbMallocRaw:2 sqlite3DbMallocRawNN:2 sqlite3_malloc:1 sqlite3_malloc64:1
perf=$(ls "$build"/bench/perf-build/perf 2>/dev/null || true)
[ -x "$perf" ] && sites perf "$perf" malloc:1 calloc:0 realloc:2 zalloc:1

# every sample typed by address against a second witness of the heap:
# the same runs with tests/malloclog.so preloaded, whose allocator the
# probes are put on (--allocator) and whose own log, on the samples'
# clock, says which blocks were live (bench/heap-truth.py)
gcc -O2 -shared -fPIC -o malloclog.so "$src/tests/malloclog.c" -ldl
echo
echo "samples typed by address against malloclog's blocks (bench/heap-truth.py):"
truth() {	# truth NAME [--wrapper FUNC:N]... -- COMMAND...
	name=$1
	shift
	rm -f "$name.truth.mlog"
	wrap="env LD_PRELOAD=$PWD/malloclog.so MALLOCLOG=$PWD/$name.truth.mlog MALLOCLOG_STARTS=1"
	capture "$name-truth" --allocator "$PWD/malloclog.so" -k CLOCK_MONOTONIC "$@"
	wrap=
	"$build/dtresolve" -f json "$name-truth.txt" 2>/dev/null >"$name-truth.json"
	printf '  %-10s %s\n' "$name" \
		"$(python3 "$src/bench/heap-truth.py" "$name.truth.mlog" "$name-truth.json" 2>"$name-truth.wrong")"
	head -n 3 "$name-truth.wrong" | sed 's/^/    /'
}
runs truth
