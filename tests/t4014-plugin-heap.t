#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin reads dtprof-record's allocator events (their payloads, by
# the event formats perf.data carries, with libtraceevent): the heap's
# blocks and sites are those dtresolve reads from perf script's text, in
# either thread mode; the samples typed by address are dtresolve's alone
# (the plugin gets no registers).  A pipe carries no formats: the events
# are left out, and said so.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require_perf_record
dt_record_allocs
"$DTRESOLVE" --aggregate=objects --format=tsv al.txt 2>/dev/null | cut -f1-14 | sort >want
for t in 1 2; do
	DTPROF_DEBUG=1 dt_perf_script perf -i al.data --dlarg objects --dlarg format=tsv \
		--dlarg threads=$t >objects.t$t 2>err.t$t
done

dt_test 'the sites, sizes and counts of blocks are dtresolve'"'"'s (one thread)' '
	grep -q "^struct item	" want && cut -f1-14 objects.t1 | sort >got1 && dt_cmp want got1
'
dt_test 'and the same with a second thread' '
	cut -f1-14 objects.t2 | sort >got2 && dt_cmp want got2
'
dt_test 'every allocator event kept the blocks, none left out' '
	n=$(grep -c "dtprof_[0-9]*:" al.txt) &&
	grep -q "^dtplugin: $n allocator events of dtprof-record kept the heap" err.t1 &&
	! grep -q "left out" err.t1 || dt_show err.t1
'
dt_test 'perf script reading a pipe: the events left out, and why' '
	"$DT_SRC/contrib/dtprof-record" -o - -- sh -c "./allocs 3 >/dev/null" 2>rec2.err |
		dt_perf_script perf -i - --dlarg objects >/dev/null 2>pipe.err &&
	grep -q "allocator events of dtprof-record left out (perf reads a pipe" pipe.err ||
	dt_show rec2.err pipe.err
'
dt_done
