#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# dtresolve's command line: --help, --version, usage errors, and the three
# output formats on the same requests (address form and tuple form).
. "$(dirname "$0")/lib.sh"
dt_require gcc

dt_test '--help prints usage on stdout and exits 0' '
	"$DTRESOLVE" --help >out 2>err &&
	grep -q "^usage: dtresolve" out && grep -q -- "--format" out && ! test -s err
'
dt_test '--version prints the version' '
	"$DTRESOLVE" --version >out && grep -q "^dtresolve (dtprof) [0-9]" out
'
dt_test 'an unknown option exits 2 with a message on stderr only' '
	{ "$DTRESOLVE" --bogus </dev/null >out 2>err; test $? = 2; } &&
	! test -s out && grep -q "bogus" err
'
dt_test 'an unknown format exits 2 and names it' '
	{ "$DTRESOLVE" --format=xml </dev/null >out 2>err; test $? = 2; } &&
	grep -q "unknown format .xml." err
'

gcc -O2 -g -o corpus "$DT_SRC/tests/fixtures/corpus.c"
key=$(dt_insn_addr corpus node_key)
map=$(dt_insn_addr corpus cl_map)
val=$(dt_insn_addr corpus item_val)
dbl=$(dt_insn_addr corpus wu_d)
ret=$(dt_insn_addr corpus node_key 2)
cat >requests <<EOF
$key
$map
$val
$dbl
$ret
$key rdi 8
$key %rdi 0x10
$val rdi -112
EOF

dt_test 'tsv: ADDR TYPE OFFSET FIELD, one line per request' '
	"$DTRESOLVE" -e corpus requests | dt_normalize >out &&
	printf "%s\n" \
		"<ADDR>	struct node	8	key" \
		"<ADDR>	struct callchain_list	16	ms.map" \
		"<ADDR>	struct item	128	val" \
		"<ADDR>	struct with_union	8	u.d" \
		"<ADDR>	(stack operation)	0	" \
		"<ADDR>	struct node	8	key" \
		"<ADDR>	struct node	16	val" \
		"<ADDR>	struct item	0	a" >want &&
	dt_cmp want out
'
dt_test 'tsv -v appends dso, variable, reason and how the line was read' '
	"$DTRESOLVE" -v -e corpus requests | dt_normalize >out &&
	printf "%s\n" \
		"<ADDR>	struct node	8	key	corpus	n	ok	addr" \
		"<ADDR>	struct callchain_list	16	ms.map	corpus	c	ok	addr" \
		"<ADDR>	struct item	128	val	corpus	it	ok	addr" \
		"<ADDR>	struct with_union	8	u.d	corpus	w	ok	addr" \
		"<ADDR>	(stack operation)	0		corpus		ok	addr" \
		"<ADDR>	struct node	8	key	corpus	n	ok	tuple" \
		"<ADDR>	struct node	16	val	corpus	n	ok	tuple" \
		"<ADDR>	struct item	0	a	corpus	it	ok	tuple" >want &&
	dt_cmp want out
'
dt_test 'perf: the spelling of perf report -s typeoff' '
	"$DTRESOLVE" --format=perf -e corpus requests >out &&
	cat >want <<-\EOF &&
	struct node +8 (key)
	struct callchain_list +16 (ms.map)
	struct item +128 (val)
	struct with_union +8 (u.d)
	(stack operation)
	struct node +8 (key)
	struct node +16 (val)
	struct item +0 (a)
	EOF
	dt_cmp want out
'
dt_test 'json: one object per line' '
	"$DTRESOLVE" -f json -e corpus requests | dt_normalize >out &&
	sed -n 1p out >first &&
	echo "{\"addr\":\"<ADDR>\",\"type\":\"struct node\",\"offset\":8,\"field\":\"key\",\"type_size\":24,\"var\":\"n\",\"reason\":\"ok\",\"access\":\"load\",\"dso\":\"corpus\"}" >want &&
	dt_cmp want first && test $(wc -l <out) = 8 &&
	{ ! command -v python3 >/dev/null ||
	  python3 -c "import json,sys; [json.loads(l) for l in sys.stdin]" <out; }
'
dt_test 'files named as arguments are read in order, - is stdin' '
	echo $key | "$DTRESOLVE" -e corpus requests - requests >out &&
	test $(wc -l <out) = 17
'
dt_test 'output to a pipe is flushed line by line' '
	mkfifo in &&
	{ "$DTRESOLVE" -e corpus <in | cat >out & } &&
	exec 9>in && echo $key >&9 && sleep 1 &&
	grep -q "struct node" out; rc=$?; exec 9>&-; wait; test $rc = 0
'
dt_done
