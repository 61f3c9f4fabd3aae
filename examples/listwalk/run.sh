#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Example (a): build listwalk -O2 -g twice (the link at the end of the
# record, and reordered first), profile each with perf's cpu-clock, and
# show dtprof's report and the two annotated layouts of struct record.
#   run.sh [PLUGIN] [WORKDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
plugin=${1:-$here/../../build/dtplugin.so}
# perf looks for a relative --dlfilter in the current directory: make it absolute
case $plugin in /*) ;; */*) plugin=$(cd "$(dirname "$plugin")" && pwd)/$(basename "$plugin") ;; esac
work=${2:-$(mktemp -d)}
perf=${PERF:-perf}
mkdir -p "$work"
cd "$work"

cc=${CC:-gcc}
$cc -O2 -g -o listwalk "$here/listwalk.c"
$cc -O2 -g -DREORDERED -o listwalk-reordered "$here/listwalk.c"

for v in listwalk listwalk-reordered; do
	echo "== perf record -e cpu-clock ./$v" >&2
	/usr/bin/time -f "   $v: %e s" "$perf" record -q -e cpu-clock -o $v.data \
		./$v 100000 150 >/dev/null
done

echo
echo "=== perf script --dlfilter dtplugin.so   (listwalk: the report)"
"$perf" script -i listwalk.data --dlfilter "$plugin" 2>/dev/null | head -n 16
for v in listwalk listwalk-reordered; do
	"$perf" script -i $v.data --dlfilter "$plugin" \
		--dlarg "annotate=struct record" 2>/dev/null |
		sed -n '/^Annotate type/,$p' >$v.annotate
done
echo
echo "=== --dlarg 'annotate=struct record': before (left) and after the reorder (right)"
awk '{ printf "%-76s|\n", substr($0, 1, 76) }' listwalk.annotate >left
paste -d' ' left listwalk-reordered.annotate
