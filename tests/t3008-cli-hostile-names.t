#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# DWARF strings, file names, paths and source lines may hold any byte.
# Every output escapes control characters and bytes that are not UTF-8
# as \xHH: no tab or newline splits a tsv row, no ESC reaches the
# terminal, every JSON line parses, and every input line still gets one
# output line.
. "$(dirname "$0")/lib.sh"
dt_require gcc python3

esc=$(printf '\033')
# a header whose lines hold ESC sequences, and a unit that says its code
# comes from a file of a hostile name and from that header
printf 'int pad;\n/* \033]0;owned\007 \033[31m red */\n' >text.h
cat >names.c <<EOF2
struct zzz_tag { long pad; int aaa_name; int bbb_name; };
#line 2 "$PWD/text.h"
__attribute__((noinline)) int get_a(struct zzz_tag *p) { return p->aaa_name; }
#line 1 "ev\\033[7mil.c"
__attribute__((noinline)) int get_b(struct zzz_tag *p) { return p->bbb_name; }
int main(void) { static struct zzz_tag t; return get_a(&t) + get_b(&t); }
EOF2
# DWARF names with a tab, a newline, ESC, BEL, a C1 control and bytes
# that are not UTF-8
sh "$DT_SRC/tests/fuzz/hostile-names" evil names.c ||
	dt_skip_all "cannot build the fixture"
"$DTINSNS" evil get_a get_b | cut -f1 >addrs

# clean FILE...: no ESC, BEL or C1 control, and valid UTF-8
clean() {
	python3 - "$@" <<'EOF2'
import sys
for name in sys.argv[1:]:
    data = open(name, 'rb').read()
    text = data.decode('utf-8')            # raises on bytes that are not UTF-8
    bad = [c for c in text if (ord(c) < 0x20 and c not in '\t\n') or 0x7f <= ord(c) < 0xa0]
    if bad:
        sys.exit('%s: %r' % (name, bad[:5]))
EOF2
}
# json_lines FILE: every line a JSON value
json_lines() {
	python3 -c 'import json, sys
for l in open(sys.argv[1], "rb"): json.loads(l.decode("utf-8"))' "$1"
}
# fields FILE N: every line has N tab-separated fields
fields() {
	awk -F'\t' -v n=$2 'NF != n { print "line " NR ": " NF " fields"; bad = 1 } END { exit bad }' "$1"
}

dt_test 'answers, tsv: one line each, four fields, escaped' '
	"$DTRESOLVE" -e evil addrs >out 2>err &&
	test $(wc -l <out) = $(wc -l <addrs) && fields out 4 && clean out err &&
	grep -q "struct z\\\\x1b\]0;pwned\\\\x07\\\\xc0tag	8	a\\\\x09b\\\\x0ac\\\\x1b\[31m\\\\xff$" out ||
	dt_show out err
'

dt_test 'answers, -v: eight fields' '
	"$DTRESOLVE" -v -e evil addrs >out 2>err &&
	test $(wc -l <out) = $(wc -l <addrs) && fields out 8 && clean out || dt_show out err
'

dt_test 'answers, json: every line parses' '
	"$DTRESOLVE" --format=json -e evil addrs >out 2>err &&
	test $(wc -l <out) = $(wc -l <addrs) && json_lines out && clean out || dt_show out err
'

dt_test 'answers, perf: escaped' '
	"$DTRESOLVE" --format=perf -e evil addrs >out 2>err &&
	test $(wc -l <out) = $(wc -l <addrs) && clean out || dt_show out err
'

for view in report annotate advise; do
	dt_test "--aggregate=$view, terminal: escaped" "
		\"\$DTRESOLVE\" -e evil --aggregate=$view addrs >out 2>err &&
		test -s out && clean out err || dt_show out err
	"
	dt_test "--aggregate=$view, tsv: every row as wide as the header" "
		\"\$DTRESOLVE\" -e evil --aggregate=$view --format=tsv addrs >out 2>err &&
		test -s out && clean out &&
		fields out \$(head -n 1 out | awk -F'\t' '{ print NF }') || dt_show out err
	"
	dt_test "--aggregate=$view, json: parses" "
		\"\$DTRESOLVE\" -e evil --aggregate=$view --format=json addrs >out 2>err &&
		python3 -m json.tool out >/dev/null && clean out || dt_show out err
	"
done

dt_test 'a tsv table of escaped names merges back to the same table' '
	"$DTRESOLVE" -e evil --aggregate --format=tsv addrs >t.tsv &&
	"$DTRESOLVE" --merge --format=tsv t.tsv >m.tsv 2>err &&
	dt_cmp t.tsv m.tsv || dt_show err
'

dt_test 'code view: file names and source lines escaped, every format' '
	for fn in get_a get_b; do
		for f in perf tsv json; do
			"$DTRESOLVE" -e evil --aggregate=code=$fn --format=$f addrs \
				>$fn.$f 2>>err || return 1
		done
		python3 -m json.tool $fn.json >/dev/null && fields $fn.tsv 13 || return 1
	done &&
	clean get_a.* get_b.* &&
	grep -q "owned" get_a.perf && grep -q "ev\\\\x1b\[7mil.c" get_b.perf ||
	dt_show get_a.perf get_b.perf err
'

dt_test 'html: no control byte in the page' '
	"$DTRESOLVE" -e evil --aggregate=html addrs >page.html 2>err &&
	grep -q "pwned" page.html && clean page.html || dt_show err
'

dt_test 'a perf script line naming a hostile path: the message and -v escaped' '
	printf "     5638%08x get_a+0x0 (/tmp/x\033]0;y\007/evil\377)\n" 1 >line &&
	"$DTRESOLVE" -v line >out 2>err &&
	test $(wc -l <out) = 1 && fields out 8 && clean out err &&
	grep -q "x\\\\x1b\]0;y\\\\x07/evil\\\\xff" err || dt_show out err
'

dt_done
