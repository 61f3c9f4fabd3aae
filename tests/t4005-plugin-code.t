#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# --dlarg code=SYMBOL (and dtresolve --aggregate=code=SYMBOL) on a real
# cpu-clock profile of the listwalk example: every sample perf took in the
# function is on one of its instructions, the accesses name their type,
# field and kind, skid-compensated samples are charged to the access they
# came from, and both front ends agree.  And --dlarg stat alone.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require_perf_record

gcc -O2 -g -o lw "$DT_SRC/examples/listwalk/listwalk.c"
dt_test 'listwalk: recorded with cpu-clock' '
	perf record -q -e cpu-clock -o lw.data ./lw 100000 30 >/dev/null 2>&1
'
dt_perf_script perf -i lw.data --dlarg code=count_matches --dlarg format=tsv >code.tsv 2>/dev/null
dt_perf_script perf -i lw.data --dlarg code=count_matches >code.txt 2>/dev/null
perf script -i lw.data -F ip,sym 2>/dev/null | grep -c ' count_matches$' >perf_n

dt_test 'every sample perf took in count_matches is on one of its instructions' '
	awk -F"\t" "NR > 1 { n += \$5 } END { print n }" code.tsv >got &&
	dt_cmp perf_n got && test $(cat got) -gt 100
'
dt_test 'the link.next load is named, and charged the samples that skid past it' '
	awk -F"\t" "\$10 == \"struct record\" && \$12 == \"link.next\" && \$13 == \"load\" && \$6 > \$5" code.tsv | grep -q . ||
	dt_show code.tsv
'
dt_test 'the key load takes the most charged samples, and no more than were taken' '
	top=$(awk -F"\t" "NR > 1 && \$6 > max { max = \$6; f = \$12 } END { print f }" code.tsv) &&
	test "$top" = key &&
	awk -F"\t" "NR > 1 { s += \$5; c += \$6 } END { exit !(c <= s) }" code.tsv || dt_show code.tsv
'
dt_test 'instructions carry their source file and line' '
	awk -F"\t" "NR > 1 && \$7 !~ /listwalk\\.c\$/" code.tsv | grep -q . && dt_show code.tsv ||
	! awk -F"\t" "NR > 1 && \$8 == 0" code.tsv | grep -q .
'
dt_test 'the human view: source lines between instructions, the access and its kind' '
	grep -q "^Code: count_matches in .*/lw " code.txt &&
	grep -q "^  listwalk.c:[0-9]*  " code.txt &&
	grep -Eq "^ +[0-9]+ +[0-9]+  0x[0-9a-f]+ +mov .*struct record \+112 \(link.next\) load\$" code.txt ||
	dt_show code.txt
'
dt_test 'dtresolve on perf script text counts the same per instruction' '
	perf script -i lw.data -F ip,sym,symoff,dso 2>/dev/null |
		"$DTRESOLVE" --aggregate=code=count_matches --format=tsv 2>/dev/null >dt.tsv &&
	cut -f4-6 code.tsv >want && cut -f4-6 dt.tsv >got && dt_cmp want got
'
dt_test 'the json view is the tsv view' '
	dt_perf_script perf -i lw.data --dlarg code=count_matches --dlarg format=json >code.json 2>/dev/null &&
	perl -MJSON::PP -e "
		my \$d = decode_json(join q(), <STDIN>);
		print join(qq(\t), sprintf(q(%#x), \$_->{address}), \$_->{samples}, \$_->{charged}), qq(\n)
			for @{\$d->{code}};
	" <code.json >got && awk -F"\t" "NR > 1 { print \$4 \"\t\" \$5 \"\t\" \$6 }" code.tsv >want &&
	dt_cmp want got
'
dt_test '--dlarg stat alone prints the reasons table only' '
	dt_perf_script perf -i lw.data --dlarg stat >stat.txt 2>/dev/null &&
	grep -q "^# reason	cpu-clock" stat.txt && grep -q "^total	" stat.txt &&
	! grep -q "Data Type" stat.txt || dt_show stat.txt
'
dt_test 'an unknown function is said' '
	dt_perf_script perf -i lw.data --dlarg code=no_such_function 2>/dev/null |
		grep -q "^No function .no_such_function. in the binaries sampled"
'
dt_test '--aggregate=code needs a function' '
	dt_must_fail "$DTRESOLVE" --aggregate=code </dev/null 2>err && grep -q "name the function" err
'
# Every instruction of a large binary (dtresolve itself), highest address
# first, each charged to the access before it (--skid=on): the rows per
# instruction grow while a sample's two rows are looked up.  The row
# looked up first was once kept across that growth and written after it
# was freed (perf and dtresolve crashed on some binaries; unit-report pins
# it on every build).
dt_test 'every instruction of dtresolve charged to its access: the page is made' '
	objdump -d --no-show-raw-insn "$DTRESOLVE" |
		awk "/^ +[0-9a-f]+:/ { sub(\":\", \"\", \$1); print \"0x\" \$1 }" | sort -r >pcs &&
	test $(wc -l <pcs) -gt 20000 &&
	"$DTRESOLVE" -e "$DTRESOLVE" --skid=on --aggregate=html <pcs >pcs.html 2>pcs.err &&
	grep -q "</html>" pcs.html || dt_show pcs.err
'
# The plugin's code view and page over a profile of ls, libc and the
# kernel (many instructions, counted one at a time and as sums), their
# totals those of perf.
dt_test 'a profile of many instructions: the code view and the page, totals as perf' '
	perf record -q -e cpu-clock -c 10000 -o ls.data -- ls -lR /usr/include >/dev/null 2>&1 &&
	dt_perf_script perf -i ls.data --dlarg code=main --dlarg threads=1 >ls.code 2>ls.err &&
	dt_perf_script perf -i ls.data --dlarg html=ls.html --dlarg threads=2 >/dev/null 2>>ls.err &&
	grep -q "</html>" ls.html &&
	dt_perf_script perf -i ls.data --dlarg stat --dlarg code=main >ls.stat 2>>ls.err &&
	grep "^total	" ls.stat | cut -f2 >got &&
	perf script -i ls.data -F ip 2>/dev/null | wc -l >want && dt_cmp want got ||
	dt_show ls.err
'
dt_done
