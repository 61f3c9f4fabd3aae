#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Relocatable files (object files, and kernel modules, which are object
# files): their code relocated as a link would leave it, so the corpus
# and globals fixtures built -c answer as the same code linked into a
# program, gcc, clang and AArch64 gcc, -O0 and -O2 (with their CFI in
# .debug_frame, as the kernel builds modules).  An access to a variable the file does
# not define is named by its declaration there (unknown when that has
# no size, or clang wrote none), never as one of the file's own; its own
# per-CPU variables through %gs.  A module is found by
# perf's name for it ("[globals_mod]", '-' and '_' alike) under
# DIR/lib/modules/RELEASE of a --debug-dir, as Debian's -dbg packages
# lay modules out.  (Debian's ext4 and sch_fq modules: make bench-kernel
# checks every rip-relative access against the module's relocations.)
. "$(dirname "$0")/lib.sh"

# answers KEYFILE BINARY < INSNS: "function#n<TAB>answer" per instruction
answers() {
	tee insns | awk -F'\t' '{ if ($2 != f) { f = $2; n = 0 } print $2 "#" n++ }' >keys
	cut -f1 insns | "$DTRESOLVE" -v -e "$2" 2>>"$1.err" | cut -f2-4,6-7 | paste keys - >"$1"
}

for fx in corpus globals; do
	src=$DT_SRC/tests/fixtures/$fx.c
	fns=$(dt_fixture_functions "$src")
	for cc in $(dt_cc_list a64); do
		for o in 0 2; do
			b=$fx-$cc-$o
			$cc -O$o -g -fno-asynchronous-unwind-tables -fno-unwind-tables \
				-c -o $b.o "$src" &&
				$cc -o $b $b.o
			"$DTINSNS" $b $fns | answers $b.want $b
			"$DTINSNS" $b.o $fns | answers $b.got $b.o
			dt_test "$fx, $cc -O$o: the object file answers as the program" "
				test -s $b.want && dt_cmp $b.want $b.got && grep -q '	ok\$' $b.got &&
				! test -s $b.got.err || dt_show $b.got.err
			"
		done
	done
done

# gcc's CFI in .eh_frame: libdwfl does not relocate it, so -O0's frame
# based variables are unknown; never another answer.
src=$DT_SRC/tests/fixtures/corpus.c
fns=$(dt_fixture_functions "$src")
gcc -O0 -g -c -o eh.o "$src" && gcc -o eh eh.o
"$DTINSNS" eh $fns | answers eh.want eh
"$DTINSNS" eh.o $fns | answers eh.got eh.o
dt_test 'gcc -O0 with .eh_frame: each answer the program s, or unknown' '
	paste eh.want eh.got | awk -F"\t" "\$8 != \"(unknown)\" &&
		(\$2 != \$8 || \$3 != \$9 || \$4 != \$10 || \$5 != \$11 || \$6 != \$12)" >bad &&
	! test -s bad && grep -q "	ok\$" eh.got || dt_show bad
'

src=$DT_SRC/tests/fixtures/extern-var.c
for cc in $(dt_cc_list); do
	for o in 0 2; do
		b=extern-$cc-$o
		$cc -O$o -g -fno-asynchronous-unwind-tables -c -o $b.o "$src"
		"$DTINSNS" $b.o read_theirs bump_theirs name_theirs read_ours bump_ours >$b.insns
		grep '(%rip)' $b.insns | grep -v '	lea' >$b.rip
		cut -f1 $b.rip | "$DTRESOLVE" -v -e $b.o 2>/dev/null | paste $b.rip - | cut -f2,5,6,7,9,10 >$b.got
		# clang writes no DWARF for extern declarations: unknown
		case $cc in
		clang) theirs='(unknown)	0			no_var' counter=$theirs ;;
		*) theirs='struct conf	8	b	their_conf	ok' counter='int	0		their_counter	ok' ;;
		esac
		dt_test "$cc -O$o: a variable the file does not define: its declaration's type" "
			grep -q '^read_theirs	$theirs\$' $b.got &&
			grep -q '^bump_theirs	$counter\$' $b.got &&
			grep -q '^read_ours	struct conf	8	b	our_conf	ok\$' $b.got &&
			grep -q '^bump_ours	int	0		our_counter	ok\$' $b.got || dt_show $b.got
		"
		dt_test "$cc -O$o: one declared without a size is unknown" "
			grep -q '^name_theirs	' $b.got &&
			! grep '^name_theirs	' $b.got | grep -v '	(unknown)	' | grep -q . || dt_show $b.got
		"
	done
done

# a module's own per-CPU variables (tests/fixtures/percpu.c built -c):
# %gs: names them as in a kernel (t2012), and a per-CPU pointer's
# target through %gs:(%reg); their address without %gs, nothing
for cc in $(dt_cc_list); do
	for o in 0 2; do
		b=percpu-$cc-$o
		$cc -O$o -g -fno-pie -fno-asynchronous-unwind-tables -c -o $b.o \
			"$DT_SRC/tests/fixtures/percpu.c"
		"$DTINSNS" $b.o stats_misses counter_inc slot2 plain_low this_cpu_ptr_read |
			grep "%gs:\|plain_low	mov" >$b.insns
		cut -f1 $b.insns | "$DTRESOLVE" -v -e $b.o 2>/dev/null | paste $b.insns - |
			cut -f2,5,6,7,9,10 >$b.got
		dt_test "$cc -O$o: a module's per-CPU variables through %gs, not without" '
			grep -q "^stats_misses	struct rq_stats	8	misses	rq_stats	ok\$" $b.got &&
			grep -q "^counter_inc	int	0		pcpu_counter	ok\$" $b.got &&
			grep -q "^slot2	[a-z ]*long[a-z ]*	0		pcpu_slots	ok\$" $b.got &&
			grep -q "^plain_low	(unknown)	0			no_var\$" $b.got &&
			grep -q "^this_cpu_ptr_read	long\( int\)\{0,1\}	0		p	ok\$" $b.got ||
			dt_show $b.got
		'
	done
done

# a module by perf's name, in a debug tree laid out as Debian's
release=$(uname -r)
mkdir -p dbg/lib/modules/$release/kernel/fx && cp globals-gcc-2.o dbg/lib/modules/$release/kernel/fx/globals-mod.ko
"$DTINSNS" globals-gcc-2.o $(dt_fixture_functions "$DT_SRC/tests/fixtures/globals.c") >mod.insns
perl -e '
	my ($first, $fn);
	while (<STDIN>) {
		my ($pc, $f) = split /\t/;
		($first, $fn) = (hex($pc), $f) if !defined $fn || $f ne $fn;
		printf "ffffffffc0a%05x %s+0x%x ([globals_mod])\n", hex($pc) & 0xfffff, $f, hex($pc) - $first;
	}' <mod.insns >mod.lines
dt_test 'a kernel module by perf s name, from a debug tree: as the object file' '
	"$DTRESOLVE" -v --skid=off --debug-dir="$PWD/dbg" mod.lines 2>mod.err | cut -f2-4,6-7 >mod.got &&
	cut -f2- globals-gcc-2.got >mod.want && dt_cmp mod.want mod.got && ! test -s mod.err ||
	dt_show mod.err
'
dt_test 'a module by the .ko path perf read: its copy in the debug tree' '
	sed "s|(\[globals_mod\])|(/lib/modules/$release/kernel/fx/globals-mod.ko)|" mod.lines >path.lines &&
	grep -q "globals-mod.ko)\$" path.lines &&
	"$DTRESOLVE" -v --skid=off --debug-dir="$PWD/dbg" path.lines 2>path.err | cut -f2-4,6-7 >path.got &&
	dt_cmp mod.want path.got && ! test -s path.err || dt_show path.err
'
dt_test 'a module with no file: said once, its samples no_dso' '
	sed "s/globals_mod/no_such_mod/" mod.lines >none.lines &&
	"$DTRESOLVE" -v --debug-dir="$PWD/dbg" none.lines >none.out 2>none.err &&
	test "$(grep -c "no file for kernel module .\[no_such_mod\]." none.err)" = 1 &&
	! cut -f7 none.out | grep -v "^no_dso\$" | grep -q . || dt_show none.out none.err
'

# AArch64, built as a kernel builds (-fno-pie): the kernel's variables
# through adrp and add or ldr, named by the file's declarations
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || [ "${DT_TEST_STRICT:-0}" = 1 ]; then
	for o in 0 2; do
		b=extern-a64-$o
		aarch64-linux-gnu-gcc -O$o -g -fno-pie -fno-asynchronous-unwind-tables \
			-fno-unwind-tables -c -o $b.o "$DT_SRC/tests/fixtures/extern-var.c"
		"$DTINSNS" $b.o read_theirs bump_theirs read_ours bump_ours >$b.insns
		grep '	ld\|	st' $b.insns | grep -v '\[sp\|stp\|ldp' >$b.mem
		cut -f1 $b.mem | "$DTRESOLVE" -v -e $b.o 2>$b.err | paste $b.mem - |
			cut -f2,5,6,7,9,10 >$b.got
		dt_test "aarch64-linux-gnu-gcc -O$o -fno-pie: the declaration's type for what the file does not define" "
			grep -q '^read_theirs	struct conf	8	b	their_conf	ok\$' $b.got &&
			grep -q '^bump_theirs	int	0		their_counter	ok\$' $b.got &&
			grep -q '^read_ours	struct conf	8	b	our_conf	ok\$' $b.got &&
			grep -q '^bump_ours	int	0		our_counter	ok\$' $b.got &&
			! test -s $b.err || dt_show $b.got $b.err
		"
	done
fi
dt_done
