#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A kernel's per-CPU variables (tests/fixtures/percpu.c, linked from
# address 0 in .data..percpu as Linux links them): "%gs:0x38" and
# "%gs:-0x401127(%rip)" name the variable at that per-CPU offset with its
# type and field, gcc and clang, -O0 and -O2; the truth is the symbol
# table's per-CPU symbol at the offset.  The same low address read
# without %gs names nothing.  "%gs:0x8(%rax)", where rax holds a
# per-CPU pointer (this_cpu_ptr, a struct's __percpu member), names the
# pointer's target type and field.  (Debian's
# vmlinux: make bench-kernel checks every per-CPU access of a quarter
# of the kernel the same way.)  AArch64: "mrs x1, tpidr_el1" added to a
# per-CPU variable's address (this_cpu_ptr) names the variable and field.
. "$(dirname "$0")/lib.sh"

src=$DT_SRC/tests/fixtures/percpu.c
for cc in $(dt_cc_list); do
	for o in 0 2; do
		bin=pc-$cc-$o
		$cc -O$o -g -fno-pie -no-pie -Wl,-T,"$DT_SRC/tests/fixtures/percpu.lds" \
			-o $bin "$src" 2>cc.err || { dt_test "$cc -O$o builds" 'dt_show cc.err; false'; continue; }
		"$DTINSNS" $bin stats_misses stats_flags counter_inc slot2 plain_low \
			this_cpu_ptr_read zone_misses zone_flags_set >$bin.all
		grep "%gs:\|plain_low	mov 0x" $bin.all >$bin.insns
		cut -f1 $bin.insns | "$DTRESOLVE" -v -e $bin >$bin.ans
		paste $bin.insns $bin.ans | cut -f2,3,5,6,7,9,10 >$bin.got
		dt_test "$cc -O$o: %gs:OFFSET names the per-CPU variable and field there" '
			grep -q "^stats_misses	mov %gs:0x[0-9a-f]*,.*	struct rq_stats	8	misses	rq_stats	ok$" $bin.got &&
			grep -q "^stats_flags	mov[a-z]* %gs:0x[0-9a-f]*,.*	struct rq_stats	20	flags	rq_stats	ok$" $bin.got ||
			dt_show $bin.got
		'
		dt_test "$cc -O$o: %gs:OFFSET(%rip) (newer kernels) names the variable too" '
			grep -q "^counter_inc	incl %gs:-0x[0-9a-f]*(%rip)	int	0		pcpu_counter	ok$" $bin.got &&
			grep -q "^slot2	mov %gs:-0x[0-9a-f]*(%rip),.*	[a-z ]*long[a-z ]*	0		pcpu_slots	ok$" $bin.got ||
			dt_show $bin.got
		'
		dt_test "$cc -O$o: the offset read without %gs names nothing" '
			grep -q "^plain_low	mov 0x[0-9a-f]*,.*	(unknown)	0			no_var$" $bin.got ||
			dt_show $bin.got
		'
		dt_test "$cc -O$o: %gs:(%reg) and %gs:OFFSET(%reg): the per-CPU pointer's target and field" '
			grep -q "^this_cpu_ptr_read	mov %gs:(%r[a-z0-9]*),.*	long\( int\)\{0,1\}	0		p	ok$" $bin.got &&
			grep -q "^zone_misses	mov %gs:0x8(%r[a-z0-9]*),.*	struct rq_stats	8	misses	z	ok$" $bin.got &&
			grep -q "^zone_flags_set	mov %[a-z0-9]*,%gs:0x14(%r[a-z0-9]*)	struct rq_stats	20	flags	z	ok$" $bin.got ||
			dt_show $bin.got
		'
		# truth from the symbol table: each %gs: answer names the
		# per-CPU symbol whose extent holds the offset (rip-relative:
		# from the next instruction's address)
		dt_test "$cc -O$o: every %gs: answer is the symbol table's variable at that offset" '
			nm -S $bin | awk "NF == 4 && \$1 ~ /^0000000000000/ && \$3 ~ /^[dDbB]$/" >$bin.pcpu &&
			paste $bin.insns $bin.ans | perl -e "
				my @syms = map { [ map { /^[0-9a-f]+\\z/ ? hex : \$_ } (split)[0, 1, 3] ] } \`cat $bin.pcpu\`;
				my (%next, \$prev);
				for (\`cat $bin.all\`) { my (\$pc) = split /\t/; \$next{\$prev} = hex(\$pc) if defined \$prev; \$prev = \$pc; }
				my (\$n, \$bad) = (0, 0);
				while (<STDIN>) {
					chomp; my @f = split /\t/;
					my (\$disp, \$rip) = \$f[2] =~ /%gs:(-?0x[0-9a-f]++)(\(%rip\))?(?!\(%r)/;
					next unless defined \$disp && \$f[9] eq q(ok);
					my \$d = \$disp =~ /^-/ ? -hex(substr(\$disp, 1)) : hex(\$disp);
					if (\$rip) { use integer; \$d += \$next{\$f[0]}; }
					my (\$t) = map { \$_->[2] } grep { \$d >= \$_->[0] && \$d < \$_->[0] + \$_->[1] } @syms;
					\$n++; \$bad++ unless defined \$t && \$t eq \$f[8];
				}
				exit(\$n >= 4 && !\$bad ? 0 : 1);
			" || dt_show $bin.got $bin.pcpu
		'
	done
	# a per-CPU variable another unit defines, read through this
	# unit's declaration (DECLARE_PER_CPU): named, and by gcc's
	# declaration without walking every unit nor this unit's functions
	# (clang writes no declaration: the index of every unit names it)
	bin=pc2-$cc
	dt_test "$cc: two units, one reading the other's per-CPU variable" "
		$cc -O2 -g -fno-pie -no-pie -Wl,-T,'$DT_SRC/tests/fixtures/percpu.lds' -o $bin \
			'$src' '$DT_SRC/tests/fixtures/percpu-other.c' 2>cc.err ||
		{ dt_show cc.err; false; }
	"
	"$DTINSNS" $bin other_misses | grep '%gs:' | cut -f1 >$bin.pc
	DTPROF_DEBUG=1 "$DTRESOLVE" -v -e $bin <$bin.pc >$bin.ans 2>$bin.trace
	dt_test "$cc: the other unit's %gs:OFFSET names its variable and field" "
		test -s $bin.pc &&
		grep -q '	struct rq_stats	8	misses	$bin	rq_stats	ok	' $bin.ans ||
		dt_show $bin.ans
	"
	if [ "$cc" = gcc ]; then
		dt_test "$cc: by the declaration, no unit walked for it" "
			! grep -q 'indexing every unit\|indexing the statics' $bin.trace ||
			dt_show $bin.trace
		"
	fi
done

# AArch64 (Linux links .data..percpu at a kernel address there): "mrs x1,
# tpidr_el1" is this CPU's offset, added to the variable's address
a64=aarch64-linux-gnu-gcc
if command -v $a64 >/dev/null 2>&1; then
	for o in 0 2; do
		bin=pc-a64-$o
		dt_test "$a64 -O$o builds, .data..percpu its own section" "
			$a64 -O$o -g -Wl,-T,'$DT_SRC/tests/fixtures/percpu-a64.lds' -o $bin \
				'$DT_SRC/tests/fixtures/percpu-a64.c' &&
			aarch64-linux-gnu-readelf -SW $bin | grep -q ' \.data\.\.percpu '"
		"$DTINSNS" $bin stats_misses stats_flags counter_read counter_add >$bin.all
		grep -v '\[sp' $bin.all | grep '	ld[a-z]* \|	st[a-z]* ' >$bin.insns
		cut -f1 $bin.insns | "$DTRESOLVE" -v -e $bin >$bin.ans
		paste $bin.insns $bin.ans | cut -f2,3,5,6,7,9,10 >$bin.got
		dt_test "$a64 -O$o: tpidr_el1 plus a per-CPU variable's address names it and its field" '
			grep -q "^stats_misses	ldr x0, \[x[0-9]*, #8\]	struct rq_stats	8	misses	rq_stats	ok$" $bin.got &&
			grep -q "^stats_flags	ldr[a-z]* w0, \[x[0-9]*, #20\]	struct rq_stats	20	flags	rq_stats	ok$" $bin.got &&
			grep -q "^counter_read	ldr w0, \[x[0-9]*.*\]	int	0		pcpu_counter	ok$" $bin.got &&
			test "$(grep -c "^counter_add	.*	int	0		pcpu_counter	ok$" $bin.got)" = 2 &&
			test "$(wc -l <$bin.got)" = 5 || dt_show $bin.all $bin.got
		'
	done
else
	dt_test "aarch64: $a64 is installed (DT_TEST_STRICT)" \
		"test '${DT_TEST_STRICT:-0}' != 1"
fi
dt_done
