#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Bad input loses nothing: every line gets its answer line and a reason,
# every problem one clear message on stderr, and nothing crashes.
. "$(dirname "$0")/lib.sh"
dt_require gcc strip objcopy

gcc -O2 -g -o corpus "$DT_SRC/tests/fixtures/corpus.c"
gcc -O2 -o nodwarf "$DT_SRC/tests/fixtures/corpus.c"
cp corpus stripped && strip stripped
head -c 300 corpus >truncated
echo "not an elf" >text
key=$(dt_insn_addr corpus node_key)
printf '%s\n' "$key" "$key" >two

# count lines of a reason in --stat output (stderr)
stat_of() { awk -v r="$1" '$1 == r { print $2 }' "$2"; }

dt_test 'garbage lines: one bad_line answer each, a message naming the line' '
	printf "%s\n" "$key" "hello world" "" "0x12 rdi" "$key rdi nope" "$key" >in &&
	"$DTRESOLVE" -v --stat -e corpus in >out 2>err &&
	test $(wc -l <out) = 6 &&
	test $(grep -c "	bad_line	" out) = 4 &&
	grep -q "^dtresolve: in:2: neither ADDR \[REG OFFSET\] nor a perf script line with an address: .hello world.$" err &&
	grep -q "^dtresolve: in:3: empty line" err &&
	grep -q "^dtresolve: in:5: offset is not" err &&
	test "$(stat_of bad_line err)" = 4 && test "$(stat_of total err)" = 6
'
dt_test '1,000 garbage lines: 20 named, the rest counted, every line answered' '
	awk "BEGIN { for (i = 0; i < 1000; i++) print \"garbage\", i }" >junk &&
	"$DTRESOLVE" -e corpus junk >out 2>err &&
	test $(wc -l <out) = 1000 &&
	test $(grep -c "^dtresolve: junk:[0-9]*: neither" err) = 20 &&
	grep -q "^dtresolve: 980 more messages about input lines not shown (the first 20 were)$" err &&
	test $(wc -l <err) = 21 || dt_show err
'
dt_test 'lines naming 1,000 missing binaries: 20 said, the rest counted' '
	awk "BEGIN { for (i = 0; i < 1000; i++)
		printf \"     5638%08x f+0x10 (/nonexistent/d%d)\\n\", i, i }" >dsos &&
	"$DTRESOLVE" -v dsos >out 2>err &&
	test $(wc -l <out) = 1000 && test $(grep -c "no_dso" out) = 1000 &&
	test $(grep -c "^dtresolve: cannot open ./nonexistent/d" err) = 20 &&
	grep -q "^dtresolve: 980 more messages about binaries not shown (the first 20 were)$" err ||
	dt_show err
'
dt_test 'binary garbage and a NUL byte: still one line each' '
	printf "\001\002\377\n0x10\000junk\n\n" >in &&
	"$DTRESOLVE" -e corpus in >out 2>err &&
	test $(wc -l <out) = 3 && grep -q "in:1: .*\\\\x01\\\\x02\\\\xff" err
'
dt_test 'a 1 MB line is one bad line, its excerpt cut short' '
	head -c 1000000 /dev/zero | tr "\0" a >in && echo >>in && echo "$key" >>in &&
	"$DTRESOLVE" -e corpus in >out 2>err &&
	test $(wc -l <out) = 2 && test $(wc -c <err) -lt 300 && grep -q "aaa\.\.\..$" err
'
dt_test 'unknown register: no_reg and a message naming it' '
	echo "$key foo 8" | "$DTRESOLVE" -v -e corpus >out 2>err &&
	grep -q "	no_reg	" out &&
	grep -q "^dtresolve: <stdin>:1: unknown register .foo. for x86-64$" err
'
dt_test 'an address outside any code: no_insn' '
	echo 0xdead0000 | "$DTRESOLVE" -v -e corpus >out 2>err &&
	grep -q "^0xdead0000	(unknown)	0		corpus		no_insn	" out
'
dt_test 'data decoded as code: the ELF header, .rodata and .data are no_insn' '
	for sec in .rodata .data; do
		readelf -SW corpus | awk -v s=$sec "\$2 == s { print \"0x\" \$4 }"
	done >data &&
	test $(wc -l <data) = 2 && echo 0x0 >>data &&
	"$DTRESOLVE" -v -e corpus data >out 2>err &&
	test $(grep -c "	(unknown)	0		corpus		no_insn	addr$" out) = 3 ||
	dt_show data out err
'
dt_test 'an address in code not covered by DWARF (_start): no_cu or no_var' '
	start=$(dt_insn_addr corpus _start 1) && test -n "$start" &&
	"$DTINSNS" corpus _start | cut -f1 | "$DTRESOLVE" -v -e corpus >out &&
	! grep -q "	ok	" out || grep "	ok	" out | grep -q "(stack operation)"
'
dt_test 'stripped binary: one message, answers say no_debuginfo' '
	"$DTRESOLVE" -v --stat -e stripped two >out 2>err &&
	test $(grep -c "has no debug info" err) = 1 &&
	test $(grep -c "	no_debuginfo	" out) = 2
'
dt_test 'stripped binary: every instruction of every function, and data, is no_debuginfo or a stack pseudo type' '
	nm corpus | awk "\$2 ~ /^[tT]$/ { print \$3 }" >funcs &&
	"$DTINSNS" corpus $(cat funcs) | cut -f1 >all &&
	echo 0x0 >>all && test $(wc -l <all) -gt 100 &&
	"$DTRESOLVE" -v -e stripped all >out 2>err &&
	test $(wc -l <out) = $(wc -l <all) &&
	awk -F"\t" "\$7 != \"no_debuginfo\" && \$2 != \"(stack operation)\" &&
		\$2 != \"(stack canary)\" { bad++; print } END { exit bad }" out ||
	dt_show err
'
dt_test 'binary built without -g: no_debuginfo' '
	addr=$(dt_insn_addr nodwarf node_key) &&
	echo "$addr" | "$DTRESOLVE" -v -e nodwarf >out 2>err &&
	grep -q "	no_debuginfo	" out && grep -q "nodwarf. has no debug info" err
'
dt_test 'stack operations need no DWARF' '
	ret=$(dt_insn_addr nodwarf node_key 2) &&
	echo "$ret" | "$DTRESOLVE" -e nodwarf 2>/dev/null | grep -q "(stack operation)"
'
dt_test 'truncated ELF: a message, every line no_dso, exit 1' '
	{ "$DTRESOLVE" -v --stat -e truncated two >out 2>err; test $? = 1; } &&
	grep -q "^dtresolve: cannot open .truncated.: corrupt or truncated ELF file" err &&
	test $(grep -c "	no_dso	" out) = 2 && test "$(stat_of no_dso err)" = 2
'
dt_test 'a binary cut short of its section headers: said to be truncated, not "no debug info"' '
	head -c $(( $(stat -c %s corpus) - 64 )) corpus >cut &&
	"$DTRESOLVE" -v -e cut two >out 2>err && test $(wc -l <out) = 2 &&
	grep -q "cut. is truncated ([0-9]* of [0-9]* bytes)" err || dt_show err
'
dt_test 'not an ELF file: says so, exit 1' '
	{ "$DTRESOLVE" -e text two >out 2>err; test $? = 1; } &&
	grep -q "cannot open .text.: not an ELF file" err && test $(wc -l <out) = 2
'
dt_test 'missing binary: No such file or directory, exit 1' '
	{ "$DTRESOLVE" -e nothere two >out 2>err; test $? = 1; } &&
	grep -q "cannot open .nothere.: No such file or directory" err &&
	test $(wc -l <out) = 2
'
mkfifo fifo
dt_test 'a FIFO as the binary: refused at once (it would block), every line answered' '
	{ timeout 20 "$DTRESOLVE" -e fifo two >out 2>err; test $? = 1; } &&
	grep -q "cannot open .fifo.: not a regular file" err && test $(wc -l <out) = 2
'
dt_test 'a FIFO named by a perf script line: no_dso for it, the next line resolved' '
	printf "     7f0000001000 main+0x0 ($PWD/fifo)\n" >lines &&
	cat two >>lines &&
	timeout 20 "$DTRESOLVE" -v -e corpus lines >out 2>err &&
	test $(wc -l <out) = 3 && head -n 1 out | grep -q "	no_dso	" &&
	grep -q "not a regular file" err && tail -n 2 out | grep -q "	ok	"
'
# a path cut at 2047 bytes would be "$PWD/././.../corpus", a real binary
perl -e 'my $p = shift; $p .= "./" while length($p) + 6 < 2046;
	$p .= "/" while length($p) + 6 < 2047; print "$p" . "corpus\n";
	print "$p" . "corpus" . "x" x 60 . "\n"' "$PWD/" >longpath
dt_test 'a binary path too long to hold is refused, never cut and opened' '
	cut=$(head -n 1 longpath) && long=$(tail -n 1 longpath) &&
	test ${#cut} = 2047 && test -x "$cut" &&
	printf "     7f0000001000 main+0x0 (%s)\n" "$long" >line &&
	"$DTRESOLVE" -v line >out 2>err &&
	grep -q "	no_dso	" out && grep -q "longer than 2047 bytes" err || dt_show out err
'
dt_test 'no -e: one message, every line no_dso' '
	"$DTRESOLVE" -v two >out 2>err &&
	test $(grep -c "use -e BINARY" err) = 1 && test $(grep -c "	no_dso	" out) = 2
'
dt_test 'an unreadable input file: message, exit 1, the others still answered' '
	{ "$DTRESOLVE" -e corpus two missing.txt two >out 2>err; test $? = 1; } &&
	grep -q "cannot open .missing.txt." err && test $(wc -l <out) = 4
'
dt_test 'a directory as input: message, exit 1, no crash' '
	{ "$DTRESOLVE" -e corpus . >out 2>err; test $? = 1; } &&
	grep -q "error reading" err
'
dt_test '--stat: every line counted once, totals add up' '
	cat two two >in && printf "junk\n0xdead0000\n" >>in &&
	"$DTRESOLVE" --stat -e corpus in >out 2>err &&
	test "$(stat_of total err)" = 6 &&
	test $(( $(stat_of resolved err) + $(stat_of bad_line err) + $(stat_of no_insn err) )) = 6
'
dt_done
