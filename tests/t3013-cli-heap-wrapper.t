#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A program that allocates through its own wrapper (tests/fixtures/
# wrapped.c: xmalloc returns malloc's block as a void *): without
# dtprof-record --wrapper the blocks' site is inside the wrapper and
# proves no type; with it, the wrapper's call holds malloc's and the
# blocks go to its caller's site, typed by the caller's variable, and
# the samples libc's memset takes in them are typed by their block
# (checked against the blocks the program printed: 0 wrong).  The plugin
# reads the same sites.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require python3
dt_require_perf_record
[ -w /sys/kernel/tracing/uprobe_events ] || [ -w /sys/kernel/debug/tracing/uprobe_events ] ||
	dt_skip_all "no uprobes to add here (not root, or no uprobe_events in tracefs)"
REC=$DT_SRC/contrib/dtprof-record
gcc -O2 -g -o wrapped "$DT_SRC/tests/fixtures/wrapped.c"
fields=comm,pid,tid,time,event,ip,sym,symoff,dso,uregs,trace
for w in plain wrap; do
	set --
	[ $w = wrap ] && set -- --wrapper xmalloc:1
	"$REC" "$@" -o $w.data -- ./wrapped 3 >$w.blocks 2>$w.err ||
		dt_skip_all "dtprof-record failed: $(tail -n 1 $w.err)"
	perf script -i $w.data -F $fields --show-mmap-events 2>/dev/null >$w.txt
	"$DTRESOLVE" --aggregate=objects --format=tsv $w.txt >$w.sites 2>/dev/null
	"$DTRESOLVE" -f json $w.txt >$w.json 2>/dev/null
done

dt_test 'without --wrapper: the blocks'"'"' site is in the wrapper, and proves no type' '
	awk -F"\t" "\$4 ~ /^xmalloc\\+/ && \$1 == \"\" && \$8 == 3 { ok = 1 }
		\$1 == \"struct item\" { bad = 1 } END { exit !ok || bad }" plain.sites &&
	! grep -q "\"by_address\":true.*\"type\":\"struct item\"\|\"type\":\"struct item\".*\"by_address\":true" plain.json ||
	dt_show plain.sites
'
dt_test 'with --wrapper xmalloc:1: the caller'"'"'s site, typed by its variable, with the blocks' '
	awk -F"\t" "\$1 == \"struct item\" && \$3 == \"it\" && \$4 ~ /^make_item\\+/ &&
		\$8 == 3 && \$12 == 144 { ok = 1 } END { exit !ok }" wrap.sites ||
	dt_show wrap.sites wrap.err
'
dt_test 'memset'"'"'s samples in them typed by their block: in a block the program had (0 wrong)' '
	size=$(awk "/^block/ { print \$3; exit }" wrap.blocks) &&
	python3 "$DT_SRC/tests/printed-blocks.py" wrap.blocks wrap.json 5 \
		"struct item=struct item:$size" || dt_show wrap.json
'
dt_test 'a wrapper COMMAND does not define: refused, exit 1, no probe left' '
	"$REC" --wrapper no_such_fn:1 -o x.data -- ./wrapped 1 >/dev/null 2>x.err & pid=$!
	{ wait $pid; test $? = 1; } && grep -q "wrapper no_such_fn: not in" x.err &&
	test "$(perf probe -l 2>/dev/null | grep -c "^ *dtprof_$pid:")" = 0 || dt_show x.err
'
dt_test 'a bad --wrapper: exit 2' '
	{ "$REC" --wrapper xmalloc -- true 2>b1.err; test $? = 2; } &&
	{ "$REC" --wrapper "x;y:1" -- true 2>b2.err; test $? = 2; } &&
	{ "$REC" --wrapper xmalloc:7 -- true 2>b3.err; test $? = 2; } || dt_show b1.err b2.err b3.err
'
dt_test 'the plugin reads the same sites' '
	dt_perf_script perf -i wrap.data --dlarg objects --dlarg format=tsv >plugin.sites 2>plugin.err &&
	cut -f1-14 wrap.sites | sort >want && cut -f1-14 plugin.sites | sort >got &&
	grep -q "^struct item	" got && dt_cmp want got
'
dt_done
