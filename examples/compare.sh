#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The shared driver of the examples: build a workload -O2 -g (as is, and
# with -DVARIANT: the layout a person chose), profile it with perf's
# cpu-clock and each sample's registers, ask dtprof for its advice on TYPE
# (through dtresolve: the registers give the data addresses that confirm
# or refute sharing between threads) and build a third time with it
# (-DADVISED, the advice written to advised.h), profile both, and print
# dtprof's report, the sharing table, the advice, the annotated layouts
# before and after the advice side by side, and the run times of the
# three builds, each timed alone (perf stat -r 5), not under perf record.
#   compare.sh SOURCE VARIANT 'TYPE' 'ARGS' [PLUGIN] [WORKDIR]
# Environment: PERF (default perf), CC (default gcc), DTRESOLVE (default
# the dtresolve beside PLUGIN, else on PATH).
set -eu
src=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
variant=$2 type=$3 args=$4
here=$(cd "$(dirname "$0")" && pwd)
plugin=${5:-$here/../build/dtplugin.so}
# perf looks for a relative --dlfilter in the current directory
case $plugin in /*) ;; */*) plugin=$(cd "$(dirname "$plugin")" && pwd)/$(basename "$plugin") ;; esac
dtresolve=${DTRESOLVE:-$(dirname "$plugin")/dtresolve}
[ -x "$dtresolve" ] || dtresolve=dtresolve
work=${6:-$(mktemp -d)}
perf=${PERF:-perf}
name=$(basename "$src" .c)
# what dtresolve reads: where each sample is, when, and its registers
fields=comm,pid,tid,time,event,ip,sym,symoff,dso,uregs
mkdir -p "$work"
cd "$work"

build() {	# build OUTPUT [CFLAGS...]
	out=$1
	shift
	${CC:-gcc} -O2 -g -pthread "$@" -I. -o "$out" "$src"
}
record() {	# record BINARY: perf.data, with each sample's registers
	# shellcheck disable=SC2086
	"$perf" record -q -e cpu-clock --user-regs -o "$1.data" "./$1" $args >/dev/null
}
timeit() {	# timeit BINARY: its run time alone, the mean of five runs
	# shellcheck disable=SC2086
	"$perf" stat -r 5 -e task-clock -o "$1.stat" "./$1" $args >/dev/null &&
	awk -v b="$1" '/seconds time elapsed/ {
		printf "%s: %s s elapsed (mean of 5 runs, +- %s s)\n", b, $1, $3 }' \
		"$1.stat" >>times
}
through_registers() {	# through_registers BINARY DTRESOLVE-ARGS...
	b=$1
	shift
	"$perf" script -i "$b.data" -F $fields --show-mmap-events 2>/dev/null |
		"$dtresolve" "$@" 2>/dev/null
}

rm -f times
build "$name"
build "$name-$variant" -D"$variant"
record "$name"
through_registers "$name" --aggregate="advise=$type" >advised.h
record "$name-$variant"
advised=
if grep -q '^_Static_assert' advised.h; then
	build "$name-ADVISED" -DADVISED
	record "$name-ADVISED"
	advised=$name-ADVISED
fi
for v in "$name" "$name-$variant" $advised; do
	timeit "$v"
done

echo "=== perf script --dlfilter dtplugin.so   ($name, as is)"
"$perf" script -i "$name.data" --dlfilter "$plugin" 2>/dev/null | head -n 18
echo
echo "=== dtresolve --aggregate='sharing=$type'   (data addresses from the registers)"
through_registers "$name" --aggregate="sharing=$type" | head -n 16
echo
echo "=== dtresolve --aggregate='advise=$type'   (written to advised.h)"
cat advised.h
for v in "$name" "$name-$variant" $advised; do
	"$perf" script -i "$v.data" --dlfilter "$plugin" --dlarg "annotate=$type" \
		2>/dev/null | sed -n '/^Annotate type/,$p' >"$v.annotate"
done
after=${advised:-$name-$variant}
echo
echo "=== --dlarg 'annotate=$type': as is (left), ${after#"$name-"} (right)"
awk 'NR == FNR { left[FNR] = $0; n = FNR; next }
     { right[FNR] = $0; m = FNR }
     END { for (i = 1; i <= (n > m ? n : m); i++)
		printf "%-76s| %s\n", substr(left[i], 1, 76), right[i] }' \
	"$name.annotate" "$after.annotate"
echo
echo "=== run time alone, perf stat -r 5 (as is, -D$variant by hand, -DADVISED by dtprof)"
cat times
