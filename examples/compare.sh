#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The shared driver of the examples: build a workload -O2 -g twice (as is,
# and with -DVARIANT: the reordered layout), profile each with perf's
# cpu-clock, print dtprof's report of the first and the annotated layouts
# of TYPE side by side.
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

${CC:-gcc} -O2 -g -pthread -o "$name" "$src"
${CC:-gcc} -O2 -g -pthread -D"$variant" -o "$name-$variant" "$src"
rm -f times
for v in "$name" "$name-$variant"; do
	# shellcheck disable=SC2086
	/usr/bin/time -f "$v: %e s elapsed" -a -o times "$perf" record -q \
		-e cpu-clock -o "$v.data" "./$v" $args >/dev/null
done

echo "=== perf script --dlfilter dtplugin.so   ($name, as is)"
"$perf" script -i "$name.data" --dlfilter "$plugin" 2>/dev/null | head -n 18
for v in "$name" "$name-$variant"; do
	"$perf" script -i "$v.data" --dlfilter "$plugin" --dlarg "annotate=$type" \
		2>/dev/null | sed -n '/^Annotate type/,$p' >"$v.annotate"
done
echo
echo "=== --dlarg 'annotate=$type': as is (left), -D$variant (right)"
awk 'NR == FNR { left[FNR] = $0; n = FNR; next }
     { right[FNR] = $0; m = FNR }
     END { for (i = 1; i <= (n > m ? n : m); i++)
		printf "%-76s| %s\n", substr(left[i], 1, 76), right[i] }' \
	"$name.annotate" "$name-$variant.annotate"
echo
echo "=== run time under perf record"
cat times
