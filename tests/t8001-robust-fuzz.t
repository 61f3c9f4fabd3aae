#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-slow: the fuzz corpus replayed through every parser
# Fuzzing what parses input: random request lines, and binaries whose ELF
# and DWARF are corrupted.  Nothing may crash, every line gets its answer.
. "$(dirname "$0")/lib.sh"
dt_require gcc perl

gcc -O2 -g -o corpus "$DT_SRC/tests/fixtures/corpus.c"
"$DTINSNS" corpus $(dt_fixture_functions "$DT_SRC/tests/fixtures/corpus.c") | cut -f1 >addrs

# Lines made of fragments of valid requests, random bytes and noise.
perl -e '
	srand(7);
	my @addr = map { chomp; $_ } `cat addrs`;
	my @frag = (@addr, qw(rdi %rax r15d x0 -0x58 16 0x 0X -- % + - 99999999999999999999),
		    "0xffffffffffffffff", "\t", " ", "");
	for (1 .. 20000) {
		my $r = rand();
		if ($r < 0.2) {
			print join("", map { chr(int(rand(256))) } 1 .. int(rand(60))) =~ s/\n//gr, "\n";
		} else {
			print join(rand() < 0.5 ? " " : "\t",
				   map { $frag[int(rand(@frag))] } 1 .. 1 + int(rand(4))), "\n";
		}
	}' >fuzz-lines

dt_test 'random request lines: no crash, one answer line per line' '
	dt_no_crash "$DTRESOLVE" --stat -e corpus fuzz-lines >out 2>err &&
	test $(wc -l <out) = $(wc -l <fuzz-lines) &&
	test "$(awk "\$1 == \"total\" { print \$2 }" err)" = $(wc -l <fuzz-lines)
'

crashes=0
for seed in $(seq 1 60); do
	"$DT_SRC/tests/mutate-elf" $seed corpus mutant
	dt_no_crash "$DTRESOLVE" --stat -e mutant addrs >out 2>err ||
		{ crashes=$((crashes + 1)); echo "# seed $seed crashed:"; sed 's/^/#   /' err | tail -5; }
	test $(wc -l <out) = $(wc -l <addrs) ||
		{ crashes=$((crashes + 1)); echo "# seed $seed lost lines"; }
done
dt_test '60 corrupted binaries: no crash, every line answered' 'test $crashes = 0'

# children.c's own reading of the units (every DIE of every unit, beside
# libdw's walk) on the same corrupted binaries: no crash, no memory error
crashes=0
for seed in $(seq 1 60); do
	"$DT_SRC/tests/mutate-elf" $seed corpus mutant
	dt_no_crash "$DT_BUILD/tests/unit-children" mutant >out 2>&1 ||
		{ crashes=$((crashes + 1)); echo "# seed $seed crashed:"; sed 's/^/#   /' out | tail -5; }
done
dt_test '60 corrupted binaries: every DIE walked by the unit shapes, no crash' 'test $crashes = 0'
dt_done
