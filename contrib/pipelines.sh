#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# dtprof in UNIX pipelines: perf script text through dtresolve.  Each
# subcommand is one pipeline, printed by "pipelines.sh show NAME".
#
#   pipelines.sh top-types [perf.data]          types by samples
#   pipelines.sh top-fields TYPE [perf.data]    fields of one type by samples
#   pipelines.sh by-function [perf.data]        function -> type +offset (field)
#   pipelines.sh by-event [perf.data]           one column per event (loads
#                                               vs stores: record both)
#   pipelines.sh show NAME                      print the pipeline itself
#
# PERF and DTRESOLVE name the programs (default: perf, dtresolve on PATH).
set -eu
PERF=${PERF:-perf}
DTRESOLVE=${DTRESOLVE:-dtresolve}
F=comm,pid,tid,time,event,period,ip,sym,symoff,dso

top_types() {
	"$PERF" script -i "$1" -F $F --show-mmap-events 2>/dev/null |
		"$DTRESOLVE" -f tsv | awk -F'\t' '$2 != "(perf record)" { print $2 }' |
		sort | uniq -c | sort -rn
}

top_fields() {
	"$PERF" script -i "$2" -F $F --show-mmap-events 2>/dev/null |
		"$DTRESOLVE" -f perf | awk -v t="$1 +" 'index($0, t) == 1' |
		sort | uniq -c | sort -rn
}

by_function() {
	# dtresolve answers line for line: paste puts the function beside it
	tmp=$(mktemp -d)
	"$PERF" script -i "$1" -F $F 2>/dev/null >"$tmp/lines"
	sed 's/.* \([^ ]*\)+0x[0-9a-f]* (.*/\1/' "$tmp/lines" >"$tmp/functions"
	"$DTRESOLVE" -f perf "$tmp/lines" >"$tmp/types"
	paste -d'\t' "$tmp/functions" "$tmp/types" | sort | uniq -c | sort -rn
	rm -rf "$tmp"
}

by_event() {
	"$PERF" script -i "$1" -F $F --show-mmap-events 2>/dev/null |
		"$DTRESOLVE" --aggregate
}

cmd=${1:-}
if [ $# -gt 0 ]; then shift; fi
case $cmd in
top-types) top_types "${1:-perf.data}" ;;
top-fields) [ $# -ge 1 ] || { echo "usage: pipelines.sh top-fields TYPE [perf.data]" >&2; exit 2; }
	top_fields "$1" "${2:-perf.data}" ;;
by-function) by_function "${1:-perf.data}" ;;
by-event) by_event "${1:-perf.data}" ;;
show) [ $# -ge 1 ] || { echo "usage: pipelines.sh show NAME" >&2; exit 2; }
	sed -n "/^$(echo "$1" | tr - _)() {/,/^}/p" "$0" ;;
*) sed -n '3,14s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
