#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Data addresses from sampled registers, checked by execution on the
# test fixture, the three examples and a real program (perf itself, -O2
# -g, running perf report): each profiled with perf record --user-regs,
# each (charged access, sampled instruction) pair with an address run
# again under gdb (tests/addr-check.sh).  Prints one row per program.
#   addresses.sh BUILD WORKDIR
set -eu
build=$1 work=$2
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
cd "$work"
export DTRESOLVE="$build/dtresolve"
perf=${PERF:-perf}

record() {	# record NAME COMMAND...: NAME.data
	name=$1
	shift
	"$perf" record -q -e cpu-clock --user-regs -o "$name.data" -- "$@" >/dev/null 2>&1
}
row() {	# row NAME BINARY HITS -- COMMAND...: the checked line, as a table row
	name=$1
	shift
	out=$(sh "$src/tests/addr-check.sh" "$@" 2>"$name.wrong" || true)
	echo "$out" | awk -v n="$name" '{
		printf "| %-22s | %7d | %7d (%5.1f%%) | %5d | %7d | %5d |\n",
			n, $2, $4, $2 ? 100 * $4 / $2 : 0, $6, $8, $12 }'
}

gcc -O2 -g -pthread -o procshare "$src/tests/fixtures/procshare.c"
for ex in listwalk fq counters; do
	gcc -O2 -g -pthread -o $ex "$src/examples/$ex/$ex.c"
done
record procshare ./procshare threads 300000000
record listwalk ./listwalk 100000 40
record fq ./fq 200000000
record counters ./counters 50000000
realperf=$(sh "$src/bench/real-binary.sh" "$build/bench")
# ten reports of the fq profile: a few thousand samples of perf's own code
record perf-report sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do
	'$realperf' report -i fq.data --stdio --sort sym,dso; done"

echo "data addresses from --user-regs, checked under gdb (addresses.sh)"
echo
echo "| program                | samples | with an address   | pairs | checked | wrong |"
echo "|------------------------|---------|-------------------|-------|---------|-------|"
row "procshare (fixture)" procshare.data procshare 20 -- ./procshare threads 3000000
row "listwalk (example)" listwalk.data listwalk 10 -- ./listwalk 20000 4
row "fq (example)" fq.data fq 10 -- ./fq 3000000
row "counters (example)" counters.data counters 10 -- ./counters 3000000
row "perf report (real)" perf-report.data "$realperf" 5 -- \
	"$realperf" report -i fq.data --stdio --sort sym,dso
echo
echo "samples: the program's own (its binary, not libraries or the kernel);"
echo "pairs: distinct (charged access, sampled instruction) with an address;"
echo "checked: gdb runs of them whose address dtresolve computed again and"
echo "matched; wrong: computed, and not an address the access touched."
