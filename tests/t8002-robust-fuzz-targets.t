#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-slow: every fuzz target's corpus, under each parser
# The fixed-seed pass over the fuzz targets (the long runs are make fuzz,
# with AFL++): instruction decoding and tracking on mutated code of both
# architectures (tests/dtfuzz), perf script text mutated line by line
# through dtresolve, an object file's ELF mutated, and every input the
# fuzzers ever found (tests/fuzz/found/TARGET/) and a sample of what
# AFL++ kept for new paths (tests/fuzz/corpus/TARGET/) replayed; and
# perf.data's build-id table mutated (tests/dtbuildids).  No
# crash, no sanitizer report, every line answered.
. "$(dirname "$0")/lib.sh"
dt_require gcc clang perl objcopy timeout

fuzz=$DT_SRC/tests/fuzz
DTFUZZ=$DT_BUILD/tests/dtfuzz
RUNS=${DT_FUZZ_RUNS:-100}

# code of the corpus fixture, 256 bytes a seed
seeds() {	# seeds BINARY PREFIX
	objcopy -O binary --only-section=.text "$1" $2.text &&
	split -b 256 -a 3 $2.text $2.seed.
}

for cc in $(dt_cc_list cross); do
	case $cc in aarch64*) arch=a64 ;; *) arch=x86-$cc ;; esac
	$cc -O2 -g -o $arch "$DT_SRC/tests/fixtures/corpus.c"
	seeds $arch $arch
	set -- $arch.seed.*
	nseeds=$#
	crashes=0
	for i in $(seq 1 $RUNS); do
		eval "seed=\${$(( (i % nseeds) + 1 ))}"
		"$fuzz/mutate" $i $seed m
		dt_no_crash "$DTFUZZ" $arch node_key m 2>err ||
			{ crashes=$((crashes + 1)); echo "# $cc seed $i crashed:"; tail -3 err | sed 's/^/#   /'; }
	done
	dt_test "$cc: $RUNS mutated functions decoded and tracked, no crash" 'test $crashes = 0'
done

# perf script text of perf 6.1 and 6.12 (tests/fixtures/perfscript)
crashes=0 lost=0
set -- "$DT_SRC"/tests/fixtures/perfscript/*.txt
for i in $(seq 1 $RUNS); do
	eval "seed=\${$(( (i % $#) + 1 ))}"
	"$fuzz/mutate" $i "$seed" lines
	dt_no_crash "$DTRESOLVE" --stat lines >out 2>err ||
		{ crashes=$((crashes + 1)); echo "# perf script seed $i crashed"; }
	# a line is what ends in a newline, or a last line without one
	test $(wc -l <out) = $(awk "END { print NR }" lines) ||
		{ lost=$((lost + 1)); echo "# perf script seed $i: lines lost"; }
done
dt_test "$RUNS mutated perf script texts: no crash, every line answered" \
	'test $crashes = 0 && test $lost = 0'

# a relocatable file (a kernel module is one), x86-64 and AArch64: its
# sections, symbols and relocations mutated, every address line still
# answered
for cc in $(dt_cc_list a64 | grep -v clang); do
	$cc -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -c -o rel.o \
		"$DT_SRC/tests/fixtures/globals.c"
	"$DTINSNS" rel.o get_b set_a bump conf3_x | cut -f1 >rel.addrs
	crashes=0 lost=0
	for i in $(seq 1 $RUNS); do
		"$fuzz/mutate" $i rel.o m.o
		dt_no_crash "$DTRESOLVE" -e m.o rel.addrs >out 2>err ||
			{ crashes=$((crashes + 1)); echo "# $cc object file seed $i crashed:"; tail -3 err | sed 's/^/#   /'; }
		test $(wc -l <out) = $(wc -l <rel.addrs) || { lost=$((lost + 1)); echo "# $cc object file seed $i: lines lost"; }
	done
	dt_test "$cc: $RUNS mutated object files: no crash, every line answered" \
		'test -s rel.addrs && test $crashes = 0 && test $lost = 0'
done

# split DWARF: a .dwo mutated where the skeleton's libdw looks for it,
# a DWARF package likewise; and a binary whose DWARF names hold any byte
# (tests/fuzz/hostile-names) mutated: every line answered
mkdir split dwp
(cd split && gcc -O2 -g -gsplit-dwarf -c -o corpus.o "$DT_SRC/tests/fixtures/corpus.c" &&
	gcc -o corpus corpus.o && mv corpus.dwo corpus.dwo.seed)
"$DTINSNS" split/corpus node_key cl_map item_val | cut -f1 >split.addrs
(cd dwp && clang -O2 -g -gdwarf-5 -gsplit-dwarf -c -o corpus.o "$DT_SRC/tests/fixtures/corpus.c" &&
	clang -o split corpus.o && llvm-dwp -e split -o split.dwp.seed && rm -f corpus.dwo) ||
	rm -f dwp/split.dwp.seed
"$DTINSNS" dwp/split node_key cl_map item_val | cut -f1 >dwp.addrs
sh "$fuzz/hostile-names" names
"$DTINSNS" names get_a get_b | cut -f1 >names.addrs
# mutated SEED WHERE BINARY ADDRS WHAT: $RUNS mutations of SEED at WHERE,
# BINARY's ADDRS resolved each time
mutated() {
	crashes=0 lost=0 m_addrs=$4
	for i in $(seq 1 $RUNS); do
		"$fuzz/mutate" $i "$1" "$2"
		dt_no_crash timeout 60 "$DTRESOLVE" -e "$3" "$4" >out 2>err ||
			{ crashes=$((crashes + 1)); echo "# $5 seed $i crashed:"; tail -3 err | sed 's/^/#   /'; }
		test $(wc -l <out) = $(wc -l <"$4") || { lost=$((lost + 1)); echo "# $5 seed $i: lines lost"; }
	done
	dt_test "$RUNS mutated $5: no crash, every line answered" \
		'test -s "$m_addrs" && test $crashes = 0 && test $lost = 0'
}
mutated split/corpus.dwo.seed split/corpus.dwo split/corpus split.addrs '.dwo files'
if [ -f dwp/split.dwp.seed ]; then
	mutated dwp/split.dwp.seed dwp/split.dwp dwp/split dwp.addrs 'DWARF packages'
else
	dt_skip 'mutated DWARF packages' 'clang -gsplit-dwarf and llvm-dwp made no package'
fi
cp names names.seed
mutated names.seed names names names.addrs 'binaries with hostile DWARF names'

# perf.data's build-id table (read ahead by the plugin): perf 6.1's and
# 6.12's, cut down to the bytes read (tests/fuzz/perfdata-seed), mutated
DTBUILDIDS=$DT_BUILD/tests/dtbuildids
crashes=0
set -- "$fuzz"/corpus/perfdata/*
for i in $(seq 1 $RUNS); do
	eval "seed=\${$(( (i % $#) + 1 ))}"
	"$fuzz/mutate" $i "$seed" m.data
	dt_no_crash "$DTBUILDIDS" -c m.data >/dev/null 2>err ||
		{ crashes=$((crashes + 1)); echo "# perf.data seed $i crashed:"; tail -3 err | sed 's/^/#   /'; }
done
dt_test "$RUNS mutated perf.data build-id tables: no crash" 'test $crashes = 0'
dt_test "the unmutated seeds read whole: perf 6.1's with its kernel" "
	\"$DTBUILDIDS\" \"$fuzz/corpus/perfdata/perf-6.1\" | grep -q ' \[kernel.kallsyms\] kernel\$' &&
	\"$DTBUILDIDS\" \"$fuzz/corpus/perfdata/perf-6.12\" | grep -q ' /usr/lib/.*/ld-linux-x86-64.so.2\$'
"

# what the fuzzers found or kept: each input replayed on its target
gcc -O2 -g -o corpus "$DT_SRC/tests/fixtures/corpus.c"
"$DTINSNS" corpus node_key cl_map item_val | cut -f1 >addrs
replayed=0 crashes=0
for f in "$fuzz"/found/*/* "$fuzz"/corpus/*/*; do
	[ -f "$f" ] || continue
	target=$(basename "$(dirname "$f")")
	case $target in
	lines)		dt_no_crash "$DTRESOLVE" -e corpus "$f" >/dev/null 2>&1 ;;
	perfscript)	dt_no_crash "$DTRESOLVE" "$f" >/dev/null 2>&1 ;;
	elf)		dt_no_crash "$DTRESOLVE" -e "$f" addrs >/dev/null 2>&1 ;;
	decode-x86)	dt_no_crash "$DTFUZZ" x86-gcc node_key "$f" 2>/dev/null ;;
	decode-a64)	[ -f a64 ] && dt_no_crash "$DTFUZZ" a64 node_key "$f" 2>/dev/null ;;
	perfdata)	dt_no_crash "$DTBUILDIDS" -c "$f" >/dev/null 2>&1 ;;
	dwo)		cp "$f" split/corpus.dwo &&
			dt_no_crash "$DTRESOLVE" -e split/corpus split.addrs >/dev/null 2>&1 ;;
	dwp)		[ -f dwp/split.dwp.seed ] && cp "$f" dwp/split.dwp &&
			dt_no_crash "$DTRESOLVE" -e dwp/split dwp.addrs >/dev/null 2>&1 ;;
	*)		echo "# unknown fuzz target $target"; false ;;
	esac || { crashes=$((crashes + 1)); echo "# $f crashed"; }
	replayed=$((replayed + 1))
done
dt_test "$replayed inputs the fuzzers kept: replayed, no crash" 'test $crashes = 0 && test $replayed -gt 50'
dt_done
