#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# make bench: dtresolve's throughput, each figure beside a reference tool
# doing comparable DWARF work on the same addresses, measured in this run.
#   cold:   every distinct memory instruction of perf (-O2 -g), once each;
#           reference: eu-addr2line -f -i (CU lookup, line table, function
#           and inline scopes for every address)
#   cached: 1,000,000 lines drawn from 1,000 of those instructions;
#           reference: eu-addr2line -f -i on the first 20,000 of the lines
# Timing: wall clock of one run each; peak RSS from GNU time.
set -eu
: "${DT_BUILD:=build}"
src=$(cd "$(dirname "$0")/.." && pwd)
work=$DT_BUILD/bench
mkdir -p "$work"
bin=$(sh "$src/bench/real-binary.sh" "$work")

# naming itself is measured: no answers read from an earlier run's cache
# (bench/plugin.sh measures what keeping them saves)
DTPROF_NO_ANSWERS=1
export DTPROF_NO_ANSWERS

now() { date +%s.%N; }
# run CMD with stdin/stdout redirected by the caller; sets secs and rss_kb
measure() {
	t0=$(now)
	/usr/bin/time -f %M -o "$work/rss" "$@"
	t1=$(now)
	secs=$(echo "$t1 - $t0" | bc -l)
	rss_kb=$(tail -n 1 "$work/rss")
}
rate() { echo "$1 / $2" | bc -l | xargs printf '%.0f'; }

echo "binary: $bin ($(du -h "$bin" | cut -f1))"
nm --defined-only "$bin" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u >"$work/syms"
"$DT_BUILD/tests/dtinsns" "$bin" $(cat "$work/syms") 2>/dev/null >"$work/insns" || true
# memory operands: a parenthesised address, not lea or nop
grep -v '	lea\|	nop' "$work/insns" | grep '(' | cut -f1 | sort -u >"$work/mem"
n=$(wc -l <"$work/mem")
echo "functions: $(wc -l <"$work/syms"), instructions: $(wc -l <"$work/insns"), distinct memory instructions: $n"
echo

measure "$DT_BUILD/dtresolve" --stat -e "$bin" "$work/mem" >"$work/cold.out" 2>"$work/cold.stat"
dt_secs=$secs dt_rss=$rss_kb
measure eu-addr2line -f -i -e "$bin" <"$work/mem" >"$work/cold.ref"
ref_secs=$secs ref_rss=$rss_kb
dt_rate=$(rate "$n" "$dt_secs")
ref_rate=$(rate "$n" "$ref_secs")
printf '%-8s %-26s %10s %12s %10s\n' path tool lines lines/s "peak RSS"
printf '%-8s %-26s %10d %12d %8d KB\n' cold "dtresolve" "$n" "$dt_rate" "$dt_rss"
printf '%-8s %-26s %10d %12d %8d KB\n' cold "eu-addr2line -f -i" "$n" "$ref_rate" "$ref_rss"
cold_ratio=$(echo "$dt_rate / $ref_rate" | bc -l | xargs printf '%.2f')

shuf -n 1000 --random-source="$work/mem" "$work/mem" >"$work/m1000"
perl -e 'srand(1); my @a = map { chomp; $_ } `cat $ARGV[0]`;
	 print $a[int(rand(@a))], "\n" for 1 .. 1000000' "$work/m1000" >"$work/lines1m"
head -n 20000 "$work/lines1m" >"$work/lines20k"
measure "$DT_BUILD/dtresolve" -e "$bin" "$work/lines1m" >"$work/cached.out"
dt_secs=$secs dt_rss=$rss_kb
measure eu-addr2line -f -i -e "$bin" <"$work/lines20k" >"$work/cached.ref"
ref_secs=$secs ref_rss=$rss_kb
dt_rate=$(rate 1000000 "$dt_secs")
ref_rate=$(rate 20000 "$ref_secs")
printf '%-8s %-26s %10d %12d %8d KB\n' cached "dtresolve" 1000000 "$dt_rate" "$dt_rss"
printf '%-8s %-26s %10d %12d %8d KB\n' cached "eu-addr2line -f -i" 20000 "$ref_rate" "$ref_rss"
cached_ratio=$(echo "$dt_rate / $ref_rate" | bc -l | xargs printf '%.1f')
echo
echo "cold path:   dtresolve / eu-addr2line = ${cold_ratio}x"
echo "cached path: dtresolve / eu-addr2line = ${cached_ratio}x ($dt_rate lines/s)"
# the 1,000 instructions' first answers (decoding and analysing their
# functions, opening the binary) are part of that figure
measure "$DT_BUILD/dtresolve" -e "$bin" "$work/m1000" >/dev/null
printf "             of its %.2f s, the 1,000 first answers alone take %.2f s\n" "$dt_secs" "$secs"
echo
echo "resolution of every memory instruction of $(basename "$bin") (dtresolve --stat):"
sed 's/^/  /' "$work/cold.stat"
no_track=$(DTPROF_NO_TRACK=1 "$DT_BUILD/dtresolve" --stat -e "$bin" "$work/mem" 2>&1 >/dev/null |
	awk '$1 == "resolved" { print $3 "%" }')
echo "  (without instruction tracking, DTPROF_NO_TRACK=1: resolved $no_track)"
echo
echo "instruction tracking checked against DWARF, at the instructions where a"
echo "variable names the base register too (tests/dttrack; nested = the same"
echo "field named from a member struct, disagree = casts or tracking errors):"
"$DT_BUILD/tests/dttrack" "$bin" <"$work/mem" | sed 's/^/  /'
