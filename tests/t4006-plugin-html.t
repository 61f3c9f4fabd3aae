#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# --dlarg html=FILE and dtresolve --aggregate=html on real cpu-clock
# profiles of the listwalk and fq examples, loaded in headless Chromium:
# the page is self-contained, its script runs without error (the type
# table sorts), and it shows the hot struct's heat map, sharing flag,
# advice and code view.
. "$(dirname "$0")/lib.sh"
dt_require gcc chromium
dt_require_perf_record

check=$DT_SRC/contrib/html-check.sh
gcc -O2 -g -o lw "$DT_SRC/examples/listwalk/listwalk.c"
gcc -O2 -g -pthread -o fq "$DT_SRC/examples/fq/fq.c"
dt_test 'listwalk and fq: recorded with cpu-clock' '
	perf record -q -e cpu-clock -o lw.data ./lw 100000 30 >/dev/null 2>&1 &&
	perf record -q -e cpu-clock -F 10000 -o fq.data ./fq 200000000 >/dev/null 2>&1
'
dt_perf_script perf -i lw.data --dlarg html=lw.html >/dev/null 2>lw.err
dt_perf_script perf -i fq.data --dlarg html=fq.html >/dev/null 2>fq.err

dt_test 'the page is self-contained: no network, no external script or font' '
	test -s lw.html &&
	! grep -Eiq "https?://|<link|<script[^>]+src|@import|url\\(" lw.html || dt_show lw.err
'
dt_test 'Chromium runs its script without an error, and the type table sorts' '
	sh "$check" dom lw.html >lw.dom &&
	grep -q "<body[^>]* data-selftest=\"pass\"" lw.dom &&
	grep -q "<body[^>]* data-ok=\"1\"" lw.dom || dt_show lw.dom
'
dt_test 'the hot struct is drawn by cache line, with link alone in line 1' '
	grep -q "<section id=\"t0\"><h2>struct record</h2>" lw.dom &&
	grep -q "cache line 1 (offset 64): [1-9][0-9]* samples" lw.dom &&
	grep -q "title=\"+112 link.next: [1-9][0-9]* samples" lw.dom || dt_show lw.dom
'
dt_test 'the advice sits beside the layout, and the code view below' '
	grep -q "<div class=\"adv\"><h3>Advice</h3>" lw.dom &&
	grep -q " \* dtprof advice for struct record: " lw.dom &&
	grep -q "struct list_head link;.*/\* +[0-9]* (was +112)" lw.dom &&
	grep -q "<h3>count_matches <small>" lw.dom &&
	grep -q "<pre class=\"code\">.*Code: count_matches" lw.dom || dt_show lw.dom
'
dt_test 'fq: the shared line carries its false-sharing flag' '
	sh "$check" dom fq.html >fq.dom &&
	grep -q "cache line 0 (offset 0): .*2 threads: <span class=\"flag\">false sharing, suspected</span>" fq.dom ||
	dt_show fq.dom
'
dt_test 'dtresolve --aggregate=html gives the page too' '
	perf script -i lw.data -F ip,sym,symoff,dso 2>/dev/null |
		"$DTRESOLVE" --aggregate=html >dt.html 2>/dev/null &&
	sh "$check" dom dt.html >dt.dom &&
	grep -q "data-selftest=\"pass\"" dt.dom && grep -q "<h2>struct record</h2>" dt.dom ||
	dt_show dt.dom
'
dt_test 'the scale switch redraws the cells (linear, then log again)' '
	grep -q "<body[^>]* data-scale=\"pass\"" lw.dom || dt_show lw.dom
'
# a struct of 66 lines with samples in its first and last: the 64 lines
# between are folded into one, nested members named by their path
cat >big.c <<'EOF'
struct inner { long x, y; };
struct big { long a; char pad[4096]; struct inner in; };
struct big the_big;
__attribute__((noinline)) long touch(struct big *b) { return b->a + b->in.y; }
int main(void) { return (int)touch(&the_big); }
EOF
gcc -O2 -g -o big big.c
"$DTINSNS" big touch | grep "(%rdi)" | cut -f1 >big.addrs
dt_test 'a big struct: lines without samples folded, nested names in full' '
	test -s big.addrs && for k in 1 2 3 4; do cat big.addrs; done |
		"$DTRESOLVE" -e big --aggregate=html >big.html 2>big.err &&
	grep -q "cache lines 1\.\.63: no samples" big.html &&
	test $(grep -o "<div class=\"line\">" big.html | wc -l) = 2 &&
	grep -q "title=\"+4112 in\.y: [1-9]" big.html ||
	dt_show big.err
'
dt_test 'a screenshot renders' '
	sh "$check" shot lw.html lw.png && test $(wc -c <lw.png) -gt 20000
'
dt_test 'html= to a file that cannot be written fails, naming it' '
	dt_perf_script perf -i lw.data --dlarg html=/nonexistent/dir/x.html >/dev/null 2>err;
	grep -q "cannot write ./nonexistent/dir/x.html." err || dt_show err
'
dt_done
