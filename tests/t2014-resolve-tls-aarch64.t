#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# AArch64 thread-locals (tests/fixtures/tls.c), TLS variant I: "mrs x0,
# tpidr_el0; add x0, x0, #0x10; ldr x1, [x0, #8]" reads the program's block
# after the 16-byte thread control block.  GCC gives them no DWARF location
# on AArch64, so each is placed by its ELF symbol (one STT_TLS symbol of
# that name and size).  Named with type and field at -O0 and -O2; each
# answer checked on the running program: qemu-user's trace of the address
# every instruction touched, against where the program says its copies are.
. "$(dirname "$0")/lib.sh"
dt_require aarch64-linux-gnu-gcc qemu-aarch64
plugin=$DT_BUILD/tests/qemu-trace.so
test -f "$plugin" || dt_skip_all "no $plugin (make tests builds it)"

funcs="count_call count_hit get_flags set_depth slot2 slot_i pair_hi"
for o in 0 2; do
	bin=tls-a64-$o
	aarch64-linux-gnu-gcc -O$o -g -static -o $bin "$DT_SRC/tests/fixtures/tls.c" 2>cc.err ||
		{ dt_test "aarch64 gcc -O$o builds" 'dt_show cc.err; false'; continue; }
	"$DTINSNS" $bin $funcs | grep '	ld\|	st' | grep -v 'x29\|sp\]\|sp, #' >$bin.insns
	cut -f1 $bin.insns | "$DTRESOLVE" -v -e $bin >$bin.ans
	paste $bin.insns $bin.ans | cut -f1-3,5-7,9,10 >$bin.got
	dt_test "aarch64 gcc -O$o: every thread-local access named with type and field" '
		test $(wc -l <$bin.got) -ge 9 && ! grep -qv "	ok$" $bin.got &&
		grep -q "^0x[0-9a-f]*	count_hit	ldr x[0-9]*, \[x[0-9]*, #8\]	struct counters	8	hits	tc	ok$" $bin.got &&
		grep -q "^0x[0-9a-f]*	pair_hi	ldr[a-z]* w0, \[x0, #[0-9]*\]	pair_t	2	hi	pair	ok$" $bin.got ||
		dt_show $bin.got
	'
	dt_test "aarch64 gcc -O$o: qemu on the running program: each access is inside the variable named, at its offset" '
		{ qemu-aarch64 -plugin "$plugin",out=$bin.trace ./$bin a b >$bin.where
		  true; } &&	# (its exit status is what main computed)
		test $(wc -l <$bin.where) = 4 &&
		perl -e "
			my (%base, %size, %elem, %want, %hit);
			open my \$w, q(<), q($bin.where) or die;
			while (<\$w>) { my (\$v, \$a, \$s, \$e) = split; (\$base{\$v}, \$size{\$v}, \$elem{\$v}) = (hex(\$a), \$s, \$e); }
			open my \$g, q(<), q($bin.got) or die;
			while (<\$g>) { chomp; my @f = split /\t/; \$want{hex(\$f[0])} = [\$f[6], \$f[4]]; }
			open my \$t, q(<), q($bin.trace) or die;
			my \$pc;
			while (<\$t>) {
				if (/^I\s+([0-9a-f]+),/) { \$pc = hex(\$1); next; }
				next unless /^\s+[LSM]\s+([0-9a-f]+),/ && defined \$pc && \$want{\$pc};
				my (\$var, \$off) = @{\$want{\$pc}};
				my \$d = hex(\$1) - \$base{\$var};
				exit 1 unless \$d >= 0 && \$d < \$size{\$var} && \$d % \$elem{\$var} == \$off;
				\$hit{\$pc} = 1;
			}
			exit(keys(%hit) == keys(%want) ? 0 : 2);
		" || dt_show $bin.got $bin.where
	'
done
dt_done
