#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# --merge and --diff on hostile tables: counts that would pass 64 bits
# are an error naming the line, never a wrapped sum; CRLF tables read as
# LF ones (their rows join their twins).  --diff in json: the tsv's rows.
. "$(dirname "$0")/lib.sh"
dt_require gcc

gcc -O2 -g -o corpus "$DT_SRC/tests/fixtures/corpus.c"
"$DTINSNS" corpus node_key cl_map item_val | cut -f1 >addrs
"$DTRESOLVE" -e corpus --aggregate --format=tsv addrs >a.tsv

max=18446744073709551615
dt_test 'a row of 2^64 - 1 samples merged with a table: an error naming the line' '
	awk -F"\t" -v OFS="\t" -v m=$max "NR == 3 { \$5 = m; \$6 = m } { print }" a.tsv >huge.tsv &&
	dt_must_fail "$DTRESOLVE" --merge --format=tsv a.tsv huge.tsv >out 2>err &&
	grep -q "^dtresolve: huge.tsv:3: its counts and those before it sum past 2^64 - 1" err ||
	dt_show out err
'

dt_test 'that row alone merges (no sum passes 64 bits)' '
	sed -n "1p;3p" huge.tsv >one.tsv &&
	"$DTRESOLVE" --merge --format=tsv one.tsv >out 2>err &&
	grep -q "	$max	$max	" out || dt_show out err
'

dt_test 'a CRLF copy of a table merges into the LF one: every count doubled' '
	sed "s/\$/\r/" a.tsv >crlf.tsv &&
	"$DTRESOLVE" --merge --format=tsv a.tsv crlf.tsv >out 2>err &&
	"$DTRESOLVE" --merge --format=tsv a.tsv a.tsv >want 2>>err &&
	dt_cmp want out && ! grep -q "$(printf "\r")" out || dt_show err
'

dt_test '--diff of a table and its CRLF copy: no change anywhere' '
	"$DTRESOLVE" --diff --format=tsv a.tsv crlf.tsv >out 2>err &&
	test -s out &&
	awk -F"\t" "NR > 1 { n++; if (\$8 != \$9 || \$12 != \"+0.0000\") bad++ }
		END { exit bad || n < 8 }" out ||
	dt_show out err
'

dt_test '--diff in json: one document, a member per tsv column, row for row' '
	awk -F"\t" -v OFS="\t" "NR == 3 { \$5 = \$5 * 3 } NR <= 4 { print }" a.tsv >b.tsv &&
	"$DTRESOLVE" --diff --format=tsv a.tsv b.tsv >d.tsv 2>err &&
	"$DTRESOLVE" --diff --format=json a.tsv b.tsv >d.json 2>>err &&
	python3 -c "
import json, sys
rows = json.load(open(\"d.json\"))[\"diff\"]
tsv = [l.rstrip(\"\\n\").split(\"\\t\") for l in open(\"d.tsv\")]
head, body = tsv[0], tsv[1:]
assert len(rows) == len(body) > 0, (len(rows), len(body))
for j, t in zip(rows, body):
    for k, v in zip(head, t):
        if v == \"\":
            assert k not in j or j[k] == \"\", (k, j)
        elif k in (\"event\", \"type\", \"field\"):
            assert j[k] == v, (k, j[k], v)
        else:
            assert abs(float(j[k]) - float(v)) < 1e-9, (k, j[k], v)
" || dt_show d.tsv d.json err
'

dt_done
