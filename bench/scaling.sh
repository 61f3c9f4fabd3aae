#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# make bench: crafted inputs that once took quadratic time, each at 10,000
# and 200,000 rows: a types table with that many fields of one struct
# (--merge, --diff), perf script lines naming that many missing binaries,
# and garbage lines.  Prints CPU seconds and peak RSS for each size, and
# the 200k/10k ratios: linear work gives about 20x in time (less where a
# start-up cost dominates the small run) and at most 20x in memory.
#   sh bench/scaling.sh BUILD WORKDIR
set -eu
build=$1 work=$2
mkdir -p "$work"
dtresolve=$build/dtresolve

hdr='event	type	offset	field	samples	period	loads	stores	rmw	weight	weight_samples	src_L1	src_LFB	src_L2	src_L3	src_HITM	src_RAM	src_remote_RAM	src_remote_cache	src_uncached	src_other	build_id	dso	type_id'
make_inputs() {
	n=$1
	{ echo "$hdr"; awk -v n=$n 'BEGIN { for (i = 0; i < n; i++)
		printf "lines\tstruct big\t%d\tf%d\t%d\t%d\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t\t\t\n", i, i, i + 1, i + 1 }'
	} >"$work/table-$n.tsv"
	awk -v n=$n 'BEGIN { for (i = 0; i < n; i++)
		printf "     5638%08x walk_hot+0x10 (/nonexistent/dso%d)\n", i, i }' \
		>"$work/dsos-$n.txt"
	awk -v n=$n 'BEGIN { srand(1); for (i = 0; i < n; i++) {
		s = ""; for (j = 0; j < 30; j++) s = s substr("abc xyz:;()[]", int(rand() * 13) + 1, 1)
		print s } }' >"$work/garbage-$n.txt"
}

# run NAME N CMD...: CPU seconds and peak RSS of CMD into $work/NAME-N.time
run() {
	name=$1 n=$2
	shift 2
	/usr/bin/time -f '%U %S %M' -o "$work/$name-$n.time" "$@" >/dev/null 2>&1 || true
}

for n in 10000 200000; do
	make_inputs $n
	run merge $n "$dtresolve" --merge --format=tsv "$work/table-$n.tsv"
	run diff $n "$dtresolve" --diff --format=tsv "$work/table-$n.tsv" "$work/table-$n.tsv"
	run dsos $n "$dtresolve" "$work/dsos-$n.txt"
	run garbage $n "$dtresolve" "$work/garbage-$n.txt"
done

printf '%-34s %9s %9s %9s %9s %7s %7s\n' 'crafted input (rows)' '10k CPU' '200k CPU' '10k RSS' '200k RSS' 'CPU x' 'RSS x'
for name in merge diff dsos garbage; do
	case $name in
	merge) what='--merge, fields of one struct' ;;
	diff) what='--diff, fields of one struct' ;;
	dsos) what='lines naming missing binaries' ;;
	garbage) what='garbage lines' ;;
	esac
	read u1 s1 m1 <"$work/$name-10000.time"
	read u2 s2 m2 <"$work/$name-200000.time"
	awk -v w="$what" -v u1=$u1 -v s1=$s1 -v m1=$m1 -v u2=$u2 -v s2=$s2 -v m2=$m2 'BEGIN {
		c1 = u1 + s1; c2 = u2 + s2
		printf "%-34s %8.2fs %8.2fs %7.0fMB %7.0fMB %6.1fx %6.1fx\n", w, c1, c2,
			m1 / 1024, m2 / 1024, (c1 > 0 ? c2 / c1 : 0), m2 / m1 }'
done
