#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin's tables of a profile whose DWARF names hold a tab, a
# newline, ESC, BEL, a C1 control and bytes that are not UTF-8
# (tests/fuzz/hostile-names): tsv rows as wide as their header, json that
# parses, no control byte on the terminal.
. "$(dirname "$0")/lib.sh"
dt_require gcc python3
dt_require_perf_record

cat >loop.c <<'EOF2'
struct zzz_tag { long pad; int aaa_name; int bbb_name; };
__attribute__((noinline)) int get_a(struct zzz_tag *p) { return p->aaa_name; }
__attribute__((noinline)) int get_b(struct zzz_tag *p) { return p->bbb_name; }
int main(void)
{
	static struct zzz_tag t;
	struct zzz_tag *volatile tp = &t;
	volatile long s = 0;

	for (long i = 0; i < 200000000; i++)
		s += get_a(tp) + get_b(tp);
	return (int)s;
}
EOF2
sh "$DT_SRC/tests/fuzz/hostile-names" evil loop.c &&
	perf record -q -N -e cpu-clock -o p.data ./evil >/dev/null 2>rec.err ||
	dt_skip_all "cannot build or record the fixture: $(head -n 1 rec.err)"

clean() {
	python3 - "$@" <<'EOF2'
import sys
for name in sys.argv[1:]:
    text = open(name, 'rb').read().decode('utf-8')
    bad = [c for c in text if (ord(c) < 0x20 and c not in '\t\n') or 0x7f <= ord(c) < 0xa0]
    if bad:
        sys.exit('%s: %r' % (name, bad[:5]))
EOF2
}
# every line of FILE as wide as its first
same_width() {
	awk -F'\t' 'NR == 1 { n = NF } NF != n { print "line " NR ": " NF " of " n; bad = 1 }
		END { exit bad }' "$1"
}

dt_test 'the report: the hostile struct is there, escaped' '
	dt_perf_script perf -i p.data --dlarg report >out 2>err &&
	grep -q "struct z\\\\x1b\]0;pwned\\\\x07\\\\xc0tag" out && clean out err ||
	dt_show out err
'
for view in report annotate sharing; do
	dt_test "$view, tsv: every row as wide as the header" "
		dt_perf_script perf -i p.data --dlarg $view --dlarg format=tsv >out.tsv 2>/dev/null &&
		grep -q pwned out.tsv && same_width out.tsv && clean out.tsv || dt_show out.tsv
	"
	dt_test "$view, json: every line parses" "
		dt_perf_script perf -i p.data --dlarg $view --dlarg format=json >out.json 2>/dev/null &&
		python3 -c 'import json, sys
for l in open(sys.argv[1], \"rb\"): json.loads(l.decode(\"utf-8\"))' out.json &&
		clean out.json || dt_show out.json
	"
done
dt_test 'the tsv merges back as it was' '
	dt_perf_script perf -i p.data --dlarg format=tsv >t.tsv 2>/dev/null &&
	"$DTRESOLVE" --merge --format=tsv t.tsv >m.tsv && dt_cmp t.tsv m.tsv
'
dt_done
