#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-slow: a system-wide recording of the kernel's heap
# contrib/dtprof-record --kernel: the kmem: tracepoints and cpu-clock
# with the kernel's registers, system-wide while a command runs; both
# front ends follow the same blocks from them, none of those events is
# counted as a sample, and without them every sample's answer is the
# same.  (Typing the kernel's samples by their blocks needs the running
# kernel's DWARF, which this test does not assume: bench/alloc-sites.py
# checks what kmalloc's call sites prove in Debian's vmlinux.)
. "$(dirname "$0")/lib.sh"
dt_require python3
dt_require_perf_record
REC=$DT_SRC/contrib/dtprof-record
tracefs=/sys/kernel/tracing
[ -e $tracefs/events/kmem/kmalloc ] || tracefs=/sys/kernel/debug/tracing
[ -e $tracefs/events/kmem/kmalloc ] ||
	dt_skip_all "no kmem: tracepoints in tracefs (CONFIG_TRACEPOINTS, or tracefs not mounted)"
perf record -q -a -e cpu-clock -o "$dt_trash/.a.data" -- true >"$dt_trash/.a.log" 2>&1 ||
	dt_skip_all "perf cannot record system-wide here: $(head -n 1 "$dt_trash/.a.log")"
# system-wide: no other test records meanwhile (lib.sh)
dt_record_lock -x

# the command: a file opened and closed 300 times (a struct file each,
# from the filp cache, and the path's name from names_cache)
"$REC" --kernel -o k.data -- sh -c 'i=0; while [ $i -lt 300 ]; do : </etc/hostname; i=$((i + 1)); done' \
	>/dev/null 2>rec.err
status=$?
perf script -i k.data --ns -F comm,pid,tid,time,event,ip,sym,symoff,dso,iregs,trace \
	--show-mmap-events 2>/dev/null >k.txt
grep "kmem:" k.txt >kmem.txt || true

dt_test 'a recording: the kmem: events, the samples with their registers' '
	test $status = 0 && grep -q "the kernel.s heap (-e kmem:kmalloc" rec.err &&
	grep -q "kmem:kmem_cache_alloc: call_site=[^ ]*+0x[0-9a-f]* ptr=0x[0-9a-f]* name=filp bytes_req=[0-9]" kmem.txt &&
	grep -q "kmem:kfree: call_site=" kmem.txt &&
	grep "cpu-clock:" k.txt | grep -q "(\[kernel.kallsyms\]) ABI:2 " || dt_show rec.err k.txt
'

# (uprobe_events itself may hold another run's probes: t5008 beside it)
dt_test 'no uprobe added: the recording holds the kmem: events and the samples only' '
	perf report -i k.data --header-only 2>/dev/null | sed -n "s/^# event : name = \([^,]*\),.*/\1/p" |
		sort -u >events &&
	! grep -qv "^cpu-clock\$\|^kmem:\|^dummy:" events && grep -q "^kmem:kmalloc\$" events &&
	! grep -q "probes on the allocator" rec.err || dt_show events rec.err
'

# the blocks each front end follows, against the events themselves
python3 - <<'EOF' >want
import re
allocs = events = 0
for l in open("kmem.txt"):
    m = re.search(r" kmem:(\w+): .*? ptr=(\S+)", l)
    if not m:
        continue
    events += 1
    if m.group(1) in ("kmalloc", "kmalloc_node", "kmem_cache_alloc",
                      "kmem_cache_alloc_node") and m.group(2) != "(nil)":
        allocs += 1
print("# %d allocator events, %d blocks" % (events, allocs))
EOF
dt_test 'dtresolve follows every block the events made' '
	"$DTRESOLVE" --aggregate=objects k.txt >objects 2>objects.err &&
	sed -n "s/ at [0-9]* sites.*//p" objects >got && dt_cmp want got &&
	! grep -q "without the fields" objects.err || dt_show objects objects.err
'

dt_test 'the plugin follows the same blocks' '
	dt_perf_script perf -i k.data --dlarg objects >pobjects 2>pobjects.err &&
	sed -n "s/ at [0-9]* sites.*//p" pobjects >pgot && dt_cmp want pgot &&
	grep "^#" objects >o1 && grep "^#" pobjects >o2 && dt_cmp o1 o2 ||
	dt_show pobjects pobjects.err
'

# without the kernel's DWARF its sites stay apart, named as perf names
# them (alloc_empty_file+0x3c), the same in both front ends
dt_test 'the sites by their function, untyped: the same in both' '
	"$DTRESOLVE" --aggregate=objects --format=tsv k.txt 2>/dev/null | sort >sites.d &&
	dt_perf_script perf -i k.data --dlarg objects --dlarg format=tsv 2>/dev/null | sort >sites.p &&
	dt_cmp sites.d sites.p &&
	awk -F"\t" "\$4 ~ /^[A-Za-z_][A-Za-z0-9_.]*\\+0x[0-9a-f]+\$/ && \$7 == \"[kernel.kallsyms]\" { n++ }
		END { exit n < 2 }" sites.d || dt_show sites.d sites.p
'

dt_test 'no kmem: event counted as a sample' '
	"$DTRESOLVE" --stat k.txt >/dev/null 2>stat &&
	n=$(grep -c " cpu-clock: " k.txt) &&
	awk -F"\t" -v n="$n" "\$1 == \"total\" { t = \$2 } END { exit t != n }" stat ||
	dt_show stat
'

dt_test 'without the kmem: events: every answer the same' '
	grep -v " kmem:" k.txt >plain.txt &&
	"$DTRESOLVE" -f json k.txt 2>/dev/null | grep -v "\"(allocator)\"" >with.json &&
	"$DTRESOLVE" -f json plain.txt 2>/dev/null >plain.json &&
	dt_cmp plain.json with.json
'

dt_test 'refused without the tracepoints: exit 3, nothing recorded' '
	mkdir -p empty &&
	{ DTPROF_TRACEFS=$PWD/empty "$REC" --kernel -o none.data -- true 2>none.err; test $? = 3; } &&
	test ! -e none.data && grep -q "no kmem: tracepoints" none.err || dt_show none.err
'

dt_test '--kernel with --wrapper: a usage error' '
	{ "$REC" --kernel --wrapper xmalloc:1 -o w.data -- true 2>w.err; test $? = 2; } &&
	test ! -e w.data || dt_show w.err
'
dt_done
