#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Skid compensation, measured on two cpu-clock profiles whose truth is
# known (tests/fixtures/walk.c):
#   walk_hot: a memory-bound list walk; the time is the loads of p->hot
#             and p->next, so samples belong to struct hotrec.
#   divide_after_load: one load of n->key, then dependent divisions; the
#             time is the divisions', so no sample belongs to a field.
# For each, the share of the function's samples given to a type, with
# --skid=off and --skid=on.
set -eu
DT_BUILD=$(cd "${DT_BUILD:-build}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
gcc -O2 -g -o wl "$src/tests/fixtures/workload.c" "$src/tests/fixtures/walk.c"
perf record -q -e cpu-clock -F 4000 -o walk.data ./wl walk 1 >/dev/null 2>&1
perf record -q -e cpu-clock -F 4000 -o divide.data ./wl divide 50000000 >/dev/null 2>&1

share() {	# share DATA FUNCTION SKID: "typed/total fields..."
	perf script -i "$1" -F ip,sym,symoff,dso --show-mmap-events 2>/dev/null |
		grep -e PERF_RECORD -e " $2+" >lines
	"$DT_BUILD/dtresolve" --skid="$3" -f perf lines 2>/dev/null |
		grep -v '^(perf record)$' | sort | uniq -c | sort -rn >answers
	awk -v fn="$2" -v skid="$3" '
		{ n += $1 } $2 !~ /^\(/ { typed += $1 }
		NR <= 2 { top = top sprintf("  %d %s", $1, substr($0, index($0, $2))) }
		END { printf "%-18s skid=%-3s %5d samples, %5.1f%% given to a type;%s\n",
		      fn, skid, n, n ? 100 * typed / n : 0, top }' answers
}

echo "skid compensation (the true answer: walk_hot -> struct hotrec; divide_after_load -> none)"
for skid in off on; do share walk.data walk_hot $skid; done
for skid in off on; do share divide.data divide_after_load $skid; done
