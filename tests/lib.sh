# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by every tests/*.t: a trash directory per test file, TAP output,
# helpers for comparing output and checking that nothing crashed.
#
#   dt_test 'description' 'commands joined with &&'
#   dt_done                     (prints the plan; exit status = failures)
#   dt_skip_all 'reason'        (a failure instead when DT_TEST_STRICT=1)
#   dt_skip 'description' 'why' (one check this machine cannot make)
#   dt_cmp EXPECTED ACTUAL      (diff -u)
#   cond || dt_show FILE...     (print FILE as the failure's evidence, fail)
#   dt_no_crash CMD...          (any exit code below 128, no sanitizer report)
#   dt_must_fail CMD...         (non-zero exit below 128)
#   dt_cc_list [cross]          (the C compilers to build fixtures with;
#                               with an argument, AArch64 gcc too)
#   dt_all_right EVAL FUNCTION  (every access of FUNCTION correct)
#   dt_fixture_functions SOURCE (the functions a fixture labels)
#   dt_corpus_build_id          (corpus, addrs, want and $id in the trash)

set -u
DT_SRC=$(cd "$(dirname "$0")/.." && pwd)
DT_BUILD=$(cd "${DT_BUILD:-$DT_SRC/build}" && pwd) || exit 1
export DT_BUILD
DTRESOLVE=$DT_BUILD/dtresolve
DTINSNS=$DT_BUILD/tests/dtinsns
DT_TEST_NAME=$(basename "$0" .t)

dt_trash=$(mktemp -d "${TMPDIR:-/tmp}/dtprof-$DT_TEST_NAME.XXXXXX") || exit 1
trap 'cd / && rm -rf "$dt_trash"' EXIT
cd "$dt_trash" || exit 1

dt_count=0
dt_failures=0

dt_test() {
	dt_count=$((dt_count + 1))
	if (eval "$2") >"$dt_trash/.log" 2>&1; then
		echo "ok $dt_count - $1"
	else
		dt_failures=$((dt_failures + 1))
		echo "not ok $dt_count - $1"
		sed 's/^/#   /' "$dt_trash/.log"
		# and its start on stderr, which prove shows without -v (CI logs)
		sed -n "1,40s/^/# $DT_TEST_NAME $dt_count: /p" "$dt_trash/.log" >&2
	fi
}

# A known bug: reported, not counted as a failure until it passes.
dt_todo() {
	dt_count=$((dt_count + 1))
	if (eval "$2") >"$dt_trash/.log" 2>&1; then
		echo "ok $dt_count - $1 # TODO passes now: make it a dt_test"
	else
		echo "not ok $dt_count - $1 # TODO"
	fi
}

# A check this machine cannot make, with the reason: TAP's skip.
dt_skip() {
	dt_count=$((dt_count + 1))
	echo "ok $dt_count - $1 # SKIP $2"
}

dt_done() {
	echo "1..$dt_count"
	exit $((dt_failures > 0))
}

dt_skip_all() {
	if [ "${DT_TEST_STRICT:-0}" = 1 ]; then
		echo "1..1"
		echo "not ok 1 - prerequisite missing under DT_TEST_STRICT=1: $*"
		exit 1
	fi
	echo "1..0 # SKIP $*"
	exit 0
}

# Skip-or-fail unless every named command exists.
# dt_corpus_build_id: in the trash, corpus (the corpus fixture, gcc -O2
# -g, with a build-id), addrs (the accesses of three of its functions) and
# want (dtresolve's answers to them); sets id to the build-id in hex
dt_corpus_build_id() {
	gcc -O2 -g -Wl,--build-id -o corpus "$DT_SRC/tests/fixtures/corpus.c" &&
	"$DTINSNS" corpus node_key cl_map item_val | cut -f1 >addrs &&
	"$DTRESOLVE" -e corpus addrs >want &&
	id=$(readelf -n corpus | sed -n "s/.*Build ID: \([0-9a-f]*\).*/\1/p")
}

dt_require() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || dt_skip_all "$c not installed"
	done
}

# Show files as the reason of a failure: "cond || dt_show FILE..." fails.
dt_show() {
	cat "$@"
	return 1
}

dt_cmp() {
	diff -u "$1" "$2"
}

# Died of a signal: the shell's 128 + signal number (perf's own error exits,
# such as 234 for -EINVAL, are not crashes).
dt_crashed() {
	[ "$1" -gt 128 ] && [ "$1" -lt 160 ]
}

dt_no_crash() {
	"$@"
	rc=$?
	if dt_crashed $rc; then
		echo "crashed: exit $rc: $*" >&2
		return 1
	fi
	return 0
}

dt_must_fail() {
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "expected failure, got success: $*" >&2
		return 1
	fi
	if dt_crashed $rc; then
		echo "crashed: exit $rc: $*" >&2
		return 1
	fi
	return 0
}

dt_cc_list() {
	for cc in gcc clang ${1:+aarch64-linux-gnu-gcc}; do
		if command -v $cc >/dev/null 2>&1; then
			echo $cc
		elif [ "${DT_TEST_STRICT:-0}" = 1 ]; then
			echo "dt_cc_list: $cc missing under DT_TEST_STRICT=1" >&2
			echo missing-$cc
		fi
	done
}

# dt_fixture_functions SOURCE: the functions a labeled fixture's
# "@expect KIND FUNCTION:" comments name.
dt_fixture_functions() {
	sed -n 's/.*@expect [a-z_]* \([a-z_0-9]*\):.*/\1/p' "$1"
}

# dt_all_right EVAL FUNCTION: corpus-eval -v output EVAL has at least one
# access of FUNCTION, and every one is correct.
dt_all_right() {
	awk -v f="$2" '$3 == f { n++; if ($1 != "correct") bad++ }
		END { exit !(n > 0 && bad == 0) }' "$1"
}

# dt_eval_builds SOURCE PREFIX 'WHAT' 'RULE' CC...: build the labeled
# fixture SOURCE with each CC at -O0 and -O2, PIE and not, score it with
# corpus-eval, and test RULE on each build ($n accesses, $right correct,
# $wrong of a wrong type), described as WHAT.
dt_eval_builds() {
	src=$1 prefix=$2 what=$3 rule=$4
	shift 4
	for cc; do
		for o in 0 2; do
			for pie in pie no-pie; do
				bin=$prefix-$cc-$o-$pie
				dt_test "$cc -O$o -$pie: builds" "$cc -O$o -g -$pie -o $bin '$src'"
				"$DT_SRC/tests/corpus-eval" -v "$src" $bin >$bin.eval 2>$bin.err
				set -- $(awk '$1 == "total"' $bin.eval) total 0 0 0 -1 0
				n=$2 right=$3 wrong=$5
				dt_test "$cc -O$o -$pie: $what ($right of $n)" \
					"$rule || dt_show $bin.eval $bin.err"
			done
		done
	done
}

# dt_answers BINARY FUNCTION [DTRESOLVE-ARG...]: dtresolve's answers for
# FUNCTION's instructions with a memory operand (a parenthesised one).
dt_answers() {
	_bin=$1 _fn=$2
	shift 2
	"$DTINSNS" "$_bin" "$_fn" | grep "(" | cut -f1 | "$DTRESOLVE" -e "$_bin" "$@"
}

# Address of the Nth instruction (1-based) of SYMBOL in BINARY.
dt_insn_addr() {
	"$DTINSNS" "$1" "$2" | sed -n "${3:-1}p" | cut -f1
}

# Replace addresses in output by <ADDR>.
dt_normalize() {
	sed -e 's/0x[0-9a-f]\{3,16\}/<ADDR>/g'
}

# dt_shared_pair CC LEVEL LIBSRC MAINSRC LIB BIN: the shared library LIB
# (libNAME.so) built from LIBSRC, and the program BIN from MAINSRC linked
# with it, finding it beside itself; the compilers' messages in cc.err.
dt_shared_pair() {
	name=${5#lib}
	$1 -O$2 -g -fPIC -shared -o "$5" "$3" 2>cc.err &&
		$1 -O$2 -g -o "$6" "$4" -L. -l"${name%.so}" -Wl,-rpath,'$ORIGIN' 2>>cc.err
}

# dt_tls_truth BIN LIB SEG: truth from execution for the thread-local
# answers in BIN.got (lines of dtinsns pasted with dtresolve -v, cut to:
# pc, function, instruction, type, offset, field, variable, reason): gdb
# runs ./BIN, stops at each answered instruction of LIB whose operand is
# SEG-relative ("%fs:0x8(%rax)" with SEG %fs: the thread pointer is
# added) or, with SEG empty, a plain "0x8(%rax)", and says where that
# address lies from the variable named (hits come in the order main
# calls the functions: each says which check it is).  True when there
# are at least two, and each is inside its variable at the offset named.
dt_tls_truth() {
	bin=$1 lib=$2 seg=$3
	awk -F'	' -v seg="$seg" '$8 == "ok" && match($3, seg "(-?0x[0-9a-f]+)?\\(%r[a-z0-9]+\\)") &&
	    (seg != "" || $3 !~ /%[a-z]s:/) {
		m = substr($3, RSTART + length(seg), RLENGTH - length(seg))
		d = m; sub(/\(.*/, "", d); if (d == "") d = "0"
		r = m; sub(/.*\(%/, "", r); sub(/\)/, "", r)
		print $1 "\t" $2 "\t" d "\t" r "\t" $5 "\t" $7 "\t" $4 }' $bin.got >$bin.checks
	nm $lib | awk '$2 ~ /^[tT]$/ { print $3 "\t" $1 }' >$bin.funcs
	tp=
	[ -n "$seg" ] && tp='(long)$fs_base + '
	{
		echo "set breakpoint pending on"
		echo "start"
		n=0
		while IFS='	' read pc fn disp reg off var type; do
			n=$((n + 1))
			base=$(awk -F'\t' -v f=$fn '$1 == f { print $2 }' $bin.funcs)
			echo "break *((char *)$fn + $(printf %d $((pc - 0x$base))))"
			echo "commands"
			echo "silent"
			echo "p $n"
			echo "p/d $tp\$$reg + $disp - (long)&$var"
			echo "p sizeof($var)"
			echo "p sizeof($type)"
			echo "continue"
			echo "end"
		done <$bin.checks
		echo "continue"
	} >$bin.gdb
	test $(wc -l <$bin.checks) -ge 2 &&
	gdb -batch -x $bin.gdb ./$bin 2>/dev/null | awk '/^[$][0-9]+ = / { print $3 }' |
		paste - - - - | sort -n >$bin.where &&
	test $(wc -l <$bin.where) -ge $(wc -l <$bin.checks) &&
	awk -F'\t' 'NR == FNR { off[NR] = $5; n = NR; next }
		{ i++; if ($1 != i || $2 < 0 || $2 >= $3 || $2 % $4 != off[i]) bad++ }
		END { exit bad || i != n }' $bin.checks $bin.where
}

# ---- perf ----
DT_PLUGIN=${DT_PLUGIN:-$DT_BUILD/dtplugin.so}

# perf binaries to test with: Debian's, and 6.12 where installed beside it
dt_perf_list() {
	command -v perf >/dev/null 2>&1 && echo perf
	p612=$(ls "$DT_SRC"/build/perf-6.12/usr/bin/perf 2>/dev/null)
	if [ -n "$p612" ]; then
		echo "$p612"
	elif [ "${DT_TEST_STRICT:-0}" = 1 ]; then
		echo "dt_perf_list: perf 6.12 missing under DT_TEST_STRICT=1" >&2
		echo missing-perf-6.12
	fi
}

# Version tag of a perf binary: 6.1, 6.12...
dt_perf_version() {
	"$1" --version 2>/dev/null | sed -n 's/^perf version \([0-9]*\.[0-9]*\).*/\1/p'
}

# Skip (fail under DT_TEST_STRICT=1) unless perf can record here.
# dt_record_allocs: tests/fixtures/allocs.c (-O2 -g) recorded by
# contrib/dtprof-record into al.data (blocks: the blocks it printed), and
# perf script's text of it, registers and probe payloads, in al.txt;
# skips the whole file where uprobes cannot be added
dt_record_allocs() {
	[ -w /sys/kernel/tracing/uprobe_events ] || [ -w /sys/kernel/debug/tracing/uprobe_events ] ||
		dt_skip_all "no uprobes to add here (not root, or no uprobe_events in tracefs)"
	gcc -O2 -g -o allocs "$DT_SRC/tests/fixtures/allocs.c"
	# a recording that lost events (perf's buffer full on a busy machine)
	# may miss an allocation the checks count on: made again (three at most)
	for _ in 1 2 3; do
		"$DT_SRC/contrib/dtprof-record" -o al.data -- ./allocs 3 >blocks 2>rec.err ||
			dt_skip_all "dtprof-record failed: $(tail -n 1 rec.err)"
		perf report -i al.data --stats 2>/dev/null | grep -q "LOST" || break
	done
	perf script -i al.data -F comm,pid,tid,time,event,ip,sym,symoff,dso,uregs,trace \
		--show-mmap-events 2>/dev/null >al.txt
}

dt_require_perf_record() {
	dt_require perf
	perf record -q -e cpu-clock -o "$dt_trash/.probe.data" -- true \
		>"$dt_trash/.probe.log" 2>&1 ||
		dt_skip_all "perf cannot record here: $(head -n 1 "$dt_trash/.probe.log")"
	dt_record_lock -s
}

# A system-wide recording (perf record -a: t5009) sees and slows every
# other test's processes, and the tests that judge timing (t3010's
# threads, t4004's premise) then fail by chance under prove -j2: it
# holds this lock alone (dt_record_lock -x), every other recording test
# shares it (-s) until it ends.  Taken on fd 9; no flock(1): no lock.
dt_record_lock() {
	command -v flock >/dev/null 2>&1 || return 0
	exec 9>>"${TMPDIR:-/tmp}/dtprof-tests-record.lock"
	flock "$1" 9
}

# A sanitizer build of the plugin needs its runtime loaded into perf.
case "$DT_BUILD" in
*/san)
	dt_san_preload="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
	;;
*)	dt_san_preload= ;;
esac

# Run perf so that it can load the plugin under test: dt_perf PERF ARGS...
dt_perf() {
	_perf=$1
	shift
	if [ -n "$dt_san_preload" ]; then
		LD_PRELOAD=$dt_san_preload ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
			"$_perf" "$@"
	else
		"$_perf" "$@"
	fi
}

# A perf command that loads the plugin under test, for programs that run
# perf themselves (dtresolve --merge and --diff read PERF): prints its path.
dt_perf_command() {
	cat >"$dt_trash/.perf-for-plugin" <<-EOF
	#!/bin/sh
	[ -n "$dt_san_preload" ] && export LD_PRELOAD=$dt_san_preload \\
		ASAN_OPTIONS="\${ASAN_OPTIONS:-}:detect_leaks=0"
	exec $1 "\$@"
	EOF
	chmod +x "$dt_trash/.perf-for-plugin"
	echo "$dt_trash/.perf-for-plugin"
}

# perf script with the plugin: dt_perf_script PERF ARGS...
dt_perf_script() {
	_p=$1
	shift
	dt_perf "$_p" script --dlfilter "$DT_PLUGIN" "$@"
}

# Value of column COL (1-based) of the tsv row whose first fields are
# "TYPE<TAB>OFFSET<TAB>FIELD" in FILE.
dt_tsv_count() {
	awk -F'\t' -v t="$1" -v o="$2" -v f="$3" -v c="$4" \
		'$2 == t && $3 == o && $4 == f { n += $(c + 1); found = 1 }
		 END { print found ? n : 0 }' "$5"
}
