# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by every tests/*.t: a trash directory per test file, TAP output,
# helpers for comparing output and checking that nothing crashed.
#
#   dt_test 'description' 'commands joined with &&'
#   dt_done                     (prints the plan; exit status = failures)
#   dt_skip_all 'reason'        (a failure instead when DT_TEST_STRICT=1)
#   dt_cmp EXPECTED ACTUAL      (diff -u)
#   dt_no_crash CMD...          (any exit code below 128, no sanitizer report)
#   dt_must_fail CMD...         (non-zero exit below 128)
#   dt_cc_list                  (the C compilers to build fixtures with)

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
dt_require() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || dt_skip_all "$c not installed"
	done
}

dt_cmp() {
	diff -u "$1" "$2"
}

dt_no_crash() {
	"$@"
	rc=$?
	if [ $rc -ge 128 ]; then
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
	if [ $rc -ge 128 ]; then
		echo "crashed: exit $rc: $*" >&2
		return 1
	fi
	return 0
}

dt_cc_list() {
	for cc in gcc clang; do
		if command -v $cc >/dev/null 2>&1; then
			echo $cc
		elif [ "${DT_TEST_STRICT:-0}" = 1 ]; then
			echo "dt_cc_list: $cc missing under DT_TEST_STRICT=1" >&2
			echo missing-$cc
		fi
	done
}

# Address of the Nth instruction (1-based) of SYMBOL in BINARY.
dt_insn_addr() {
	"$DTINSNS" "$1" "$2" | sed -n "${3:-1}p" | cut -f1
}

# Replace addresses in output by <ADDR>.
dt_normalize() {
	sed -e 's/0x[0-9a-f]\{3,16\}/<ADDR>/g'
}
