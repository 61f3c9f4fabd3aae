#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The shared driver of the examples: build a workload -O2 -g (as is, and
# with -DVARIANT: the layout a person chose), profile it with perf's
# cpu-clock, ask dtprof for its advice on TYPE and build a third time with
# it (-DADVISED, the advice written to advised.h), profile both, and print
# dtprof's report, the advice, the annotated layouts before and after the
# advice side by side, and the run times of the three builds.
#   compare.sh SOURCE VARIANT 'TYPE' 'ARGS' [PLUGIN] [WORKDIR]
# Environment: PERF (default perf), CC (default gcc).
set -eu
src=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
variant=$2 type=$3 args=$4
here=$(cd "$(dirname "$0")" && pwd)
plugin=${5:-$here/../build/dtplugin.so}
# perf looks for a relative --dlfilter in the current directory
case $plugin in /*) ;; */*) plugin=$(cd "$(dirname "$plugin")" && pwd)/$(basename "$plugin") ;; esac
work=${6:-$(mktemp -d)}
perf=${PERF:-perf}
name=$(basename "$src" .c)
mkdir -p "$work"
cd "$work"

build() {	# build OUTPUT [CFLAGS...]
	out=$1
	shift
	${CC:-gcc} -O2 -g -pthread "$@" -I. -o "$out" "$src"
}
record() {	# record BINARY: perf.data and the time it took
	# shellcheck disable=SC2086
	/usr/bin/time -f "$1: %e s elapsed" -a -o times "$perf" record -q \
		-e cpu-clock -o "$1.data" "./$1" $args >/dev/null
}

rm -f times
build "$name"
build "$name-$variant" -D"$variant"
record "$name"
"$perf" script -i "$name.data" --dlfilter "$plugin" --dlarg "advise=$type" \
	2>/dev/null >advised.h
record "$name-$variant"
advised=
if grep -q '^_Static_assert' advised.h; then
	build "$name-ADVISED" -DADVISED
	record "$name-ADVISED"
	advised=$name-ADVISED
fi

echo "=== perf script --dlfilter dtplugin.so   ($name, as is)"
"$perf" script -i "$name.data" --dlfilter "$plugin" 2>/dev/null | head -n 18
echo
echo "=== --dlarg 'advise=$type'   (written to advised.h)"
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
echo "=== run time under perf record (as is, -D$variant by hand, -DADVISED by dtprof)"
cat times
