#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Heap blocks by allocation site (dtprof-record's allocator events through
# perf script): each site typed by the variable its pointer goes to, the
# samples no instruction types (libc's memset on the program's blocks)
# typed by their block, checked against the blocks the program printed;
# an item read through the wrong type flagged; without the allocator's
# events, exactly the answers of before.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require python3
dt_require_perf_record
dt_record_allocs

dt_test 'the sites: each typed by its variable, with its blocks' '
	"$DTRESOLVE" --aggregate=objects --format=tsv al.txt >sites 2>err &&
	awk -F"\t" "\$1 == \"struct item\" && \$3 == \"it\" && \$4 ~ /^make_item\\+/ &&
		\$8 == 3 && \$9 == 3 && \$12 == 40 { ok++ }
		\$1 == \"long int\" && \$3 == \"v\" && \$12 == 64 && \$8 == 1 { ok++ }
		\$1 == \"long int\" && \$3 == \"v\" && \$12 == 512 && \$8 == 1 { ok++ }
		END { exit ok != 3 }" sites || dt_show sites err
'

# a block too small for the type its variable says (short_record's 96
# bytes of a 128-byte struct record): its samples are in it, none typed by it
dt_test 'a block smaller than its site'"'"'s type types nothing' '
	awk -F"\t" "\$1 == \"struct record\" && \$3 == \"part\" && \$4 ~ /^short_record\+/ &&
		\$12 == 96 && \$15 > 0 && \$16 == 0 { ok = 1 } END { exit !ok }" sites ||
	dt_show sites
'

# posix_memalign's block (aligned_item): its store probed, the block
# followed at its site, typed by the variable its pointer is reloaded
# into from the slot posix_memalign stored it in
dt_test 'posix_memalign'"'"'s block at its site, typed by the reload' '
	awk -F"\t" "\$1 == \"struct item\" && \$3 == \"it\" && \$4 ~ /^aligned_item\+/ &&
		\$8 == 1 && \$9 == 1 && \$12 == 40 { ok = 1 } END { exit !ok }" sites ||
	dt_show sites
'

# every answer typed by address: its data address in a block the program
# printed, of the type it printed, at the offset the address says
"$DTRESOLVE" -f json al.txt >al.json 2>/dev/null
dt_test 'samples typed by their block: in a block the program had, of its type (0 wrong)' '
	python3 "$DT_SRC/tests/printed-blocks.py" blocks al.json 10 "struct item=struct item:40" \
		"long=long int:8" "aligned=struct item:40" "short=-" || dt_show al.json
'

dt_test 'the tables mark them: a column, a json key, the stat line' '
	"$DTRESOLVE" --aggregate --format=tsv al.txt >types.tsv 2>/dev/null &&
	head -n 1 types.tsv | grep -q "	type_id	by_address\$" &&
	awk -F"\t" "\$2 == \"long int\" && \$NF > 0 { ok = 1 } END { exit !ok }" types.tsv &&
	"$DTRESOLVE" --aggregate --format=json al.txt >types.json 2>/dev/null &&
	python3 -c "
import json
d = json.load(open(\"types.json\"))
# the program own long int (libc has one too, which may come first)
t = [t for t in d[\"types\"] if t[\"type\"] == \"long int\" and t[\"by_address\"][0] > 0]
assert t and t[0][\"by_address\"][0] <= t[0][\"samples\"][0] and t[0][\"dso\"].endswith(\"/allocs\")
" &&
	"$DTRESOLVE" --aggregate=objects al.txt >objects.txt 2>/dev/null &&
	grep -q "^# [0-9]* samples had a data address in a block, [1-9][0-9]* of them typed by it" objects.txt &&
	grep -q "^# in blocks of typed sites, typed by their instruction: [1-9][0-9]* as what the block holds there, [1-9][0-9]* as what it cannot hold" objects.txt &&
	! grep -q "ERROR" types.tsv objects.txt || dt_show types.tsv objects.txt
'

# the consistency check: misread() reads an item through a struct pair *,
# and only its samples contradict their block, each telling both types
dt_test 'the check flags the item read as a pair, and nothing else' '
	n=$(sed -n "s/^# in blocks of typed sites, .* \([0-9]*\) as what it cannot hold\$/\1/p" objects.txt) &&
	test "$n" -gt 0 &&
	grep "cannot hold this" al.json >contra.json &&
	test "$(grep -c . contra.json)" = "$n" &&
	! grep -v "\"type\":\"struct pair\",\"offset\":8,\"field\":\"b\"" contra.json | grep -q . &&
	grep -q "site proves struct item (variable it)" contra.json || dt_show objects.txt contra.json
'

dt_test 'a table with samples typed by address merges into itself doubled' '
	"$DTRESOLVE" --merge --format=tsv types.tsv types.tsv >merged 2>err &&
	awk -F"\t" "{ k = \$1 FS \$2 FS \$3 FS \$4 FS \$(NF - 2) }
		NR == FNR { if (FNR > 1) want[k] = \$NF * 2; next }
		FNR > 1 && want[k] != \$NF { bad++ } END { exit bad }" types.tsv merged ||
	dt_show merged err
'

# with the task events: the fixture's exec ends the blocks of the process
# image before it (dtprof-record's sh and env); the answers the same
dt_test 'with exec lines (--show-task-events): the same answers' '
	perf script -i al.data -F comm,pid,tid,time,event,ip,sym,symoff,dso,uregs,trace \
		--show-mmap-events --show-task-events 2>/dev/null >tasks.txt &&
	grep -q "PERF_RECORD_COMM exec" tasks.txt &&
	"$DTRESOLVE" -f json tasks.txt 2>/dev/null | grep -v "\"(perf record)\"" >tasks.json &&
	grep -v "\"(perf record)\"" al.json >al.samples.json &&
	dt_cmp al.samples.json tasks.json
'

dt_test 'the plugin keeps the allocator events out of its tables (t4014: its blocks)' '
	dt_perf_script perf -i al.data --dlarg format=tsv >plugin.tsv 2>plugin.err &&
	! grep -q "left out" plugin.err &&
	! grep -q "dtprof_" plugin.tsv && grep -q "^cpu-clock	struct item	" plugin.tsv &&
	! grep -q "WARNING" plugin.tsv || dt_show plugin.err plugin.tsv
'

# the profile without its allocator events: no sample typed by address,
# and every other answer as it was
grep -v " dtprof_[0-9]*:" al.txt >plain.txt
dt_test 'without the allocator events: the answers of before, none by address' '
	"$DTRESOLVE" -f json plain.txt >plain.json 2>/dev/null &&
	! grep -q "by_address" plain.json &&
	python3 -c "
import json, sys
full = [json.loads(l) for l in open(\"al.json\")]
full = [a for a in full if a[\"type\"] != \"(allocator)\"]
plain = [json.loads(l) for l in open(\"plain.json\")]
assert len(full) == len(plain), (len(full), len(plain))
keys = (\"addr\", \"type\", \"offset\", \"field\", \"reason\", \"access\")
same = by = 0
for a, b in zip(full, plain):
    if a.get(\"by_address\"):
        by += 1
        assert b[\"reason\"] != \"ok\", (a, b)   # typed only where its instruction did not
        continue
    assert all(a.get(k) == b.get(k) for k in keys), (a, b)
    same += 1
print(same, \"the same,\", by, \"typed by address\")
sys.exit(not (same >= 50 and by > 0))
"
'
dt_done
