#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The parser on perf script text recorded from perf 6.1 and 6.12 (every
# form dtresolve reads; tests/fixtures/perfscript/generate.sh made them):
# what it reads from each line must stay what was reviewed.
. "$(dirname "$0")/lib.sh"

dir=$DT_SRC/tests/fixtures/perfscript
for t in "$dir"/*.txt; do
	name=$(basename "$t" .txt)
	dt_test "$name: parsed as reviewed" "
		'$DT_BUILD/tests/dtparse' <'$t' >got && dt_cmp '${t%.txt}.expect' got
	"
done
dt_test 'every fixture line is understood (no bad line)' "
	cat '$dir'/*.expect >all && ! grep '^bad' all
"
dt_test 'samples of both perf versions carry pid, event, symbol+offset and dso' "
	grep -q \"^sample pid=[0-9]* addr=0x[0-9a-f]* event='cpu-clock' sym='walk_hot' symoff=0x[0-9a-f]* dso='.*/libwalk.so' period=1000000\" '$dir/perf-6.1-default.expect' &&
	grep -q \"^sample pid=[0-9]* addr=0x[0-9a-f]* event='cpu-clock' sym='walk_hot' symoff=0x[0-9a-f]* dso='.*/libwalk.so' period=1000000\" '$dir/perf-6.12-default.expect'
"
dt_test 'perf 6.12 dsoff: the offset is split from the dso' "
	grep -q \"dso='.*/libwalk.so' dsoff=0x[0-9a-f]*\" '$dir/perf-6.12-ip-dsoff.expect'
"
dt_test 'memory events: the ip is the second address, after the data address' "
	grep -q 'data-addr' '$dir/perf-6.1-fault-addr-ip.expect'
"

# Lines perf prints that the recordings above do not show
cat >odd.txt <<'EOF'
             add 1234 [001]  5299.126083:     250000 cpu-clock:u:            401136 add (/tmp/a b/prog)
            prog  1234 mem:0x555555555580:x:      555555555580 std::vector<int, std::allocator<int> >::push_back(int const&)+0x14 (/tmp/x/prog)
            prog  1234 cycles:pp:      7f0000401136 [unknown] ([unknown])
 kworker/0:1-eve    12 [000]    10.000000:     250000 cpu-clock:  ffffffff81000000 schedule+0x1 ([kernel.kallsyms])
 PERF_RECORD_FORK(11051:11051):(11050:11050)
 PERF_RECORD_EXIT(11051:11051):(11050:11050)
EOF
cat >odd.want <<'EOF'
sample pid=1234 addr=0x401136 event='cpu-clock:u' sym='add' dso='/tmp/a b/prog' period=250000
sample pid=1234 addr=0x555555555580 event='mem:0x555555555580:x' sym='std::vector<int, std::allocator<int> >::push_back(int const&)' symoff=0x14 dso='/tmp/x/prog' period=1
sample pid=1234 addr=0x7f0000401136 event='cycles:pp' sym='' dso='[unknown]' period=1
sample pid=12 addr=0xffffffff81000000 event='cpu-clock' sym='schedule' symoff=0x1 dso='[kernel.kallsyms]' period=250000
fork pid=11051 parent=11050
record
EOF
dt_test 'odd lines: a symbol spelled in hex, C++ names, paths with blanks, comm with blanks' '
	"$DT_BUILD/tests/dtparse" <odd.txt >got && dt_cmp odd.want got
'
dt_done
