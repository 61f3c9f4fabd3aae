#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin uses a binary only when it is the build perf recorded: the
# file at the recorded path, else perf's build-id cache copy, each checked
# against the recorded build-id.  Another build (or one without a
# build-id) gives no_dso and a message, never another program's types.
. "$(dirname "$0")/lib.sh"
dt_require gcc readelf
dt_require_perf_record

src=$DT_SRC/tests/fixtures
gcc -O2 -g -Wl,--build-id -o wl "$src/workload.c" "$src/walk.c" &&
	HOME=$PWD/h perf record -N -q -e cpu-clock -o p.data ./wl loops 20 \
		>/dev/null 2>rec.err ||
	dt_skip_all "perf record of the workload failed: $(head -n 1 rec.err)"
id=$(readelf -n wl | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
cp wl wl.recorded
cache=home/.debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-)
mkdir -p $cache

# report HOME: the plugin's tsv types table and stat of p.data
report() {
	HOME=$PWD/$1 dt_perf_script perf -i p.data --dlarg format=tsv --dlarg report \
		--dlarg stat >$1.tsv 2>$1.err
}
# samples of wl counted as no_dso in FILE's stat rows
no_dso() {
	awk -F'\t' '$1 == "no_dso" { print $2 }' "$1"
}

dt_test 'the recorded binary in place: its types' '
	report home &&
	grep -q "struct hotrec" home.tsv &&
	test "$(no_dso home.tsv)" = 0 || dt_show home.tsv home.err
'

# another program, with other types, at the recorded path
gcc -O2 -g -Wl,--build-id -o wl "$src/corpus.c"
gcc -O1 -g -Wl,--build-id -o other "$src/workload.c" "$src/walk.c" -DVARIANT=1

dt_test 'another build in place, the recorded one in the cache: the cache copy' '
	cp wl.recorded $cache/elf &&
	report home &&
	grep -q "struct hotrec" home.tsv &&
	test "$(no_dso home.tsv)" = 0 || dt_show home.tsv home.err
'

dt_test 'another build in place and in the cache: no_dso, said, no types of theirs' '
	cp other $cache/elf &&
	report home &&
	! grep -q "struct hotrec" home.tsv &&
	test "$(no_dso home.tsv)" -gt 1000 &&
	grep -q "neither is perf.s build-id cache copy" home.err ||
	dt_show home.tsv home.err
'

dt_test 'a build without a build-id in place, no cache: no_dso, said' '
	gcc -O2 -g -Wl,--build-id=none -o wl "$src/workload.c" "$src/walk.c" &&
	rm -f $cache/elf &&
	report home &&
	! grep -q "struct hotrec" home.tsv &&
	test "$(no_dso home.tsv)" -gt 1000 &&
	grep -q "not the binary that was recorded" home.err ||
	dt_show home.tsv home.err
'

dt_done
