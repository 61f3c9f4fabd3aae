#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Data addresses from sampled registers, checked by execution:
#   addr-check.sh PERF.DATA BINARY HITS -- COMMAND [ARG...]
# PERF.DATA was recorded with --user-regs running COMMAND.  dtresolve
# computes the data address of every sample; each (charged access, sampled
# instruction) pair of BINARY that got one is run again under gdb
# (tests/addr-oracle.py: HITS times each), and dtresolve, given the
# registers gdb saw at the sampled instruction, must compute an address
# the access touched there, or none.  Prints
#   samples S addressed A pairs P checked C none N wrong W
# (S, A: BINARY's samples in PERF.DATA and those with an address) and each
# wrong line on stderr; exits 1 when W > 0 or nothing was checked.
# Environment: DTRESOLVE (default dtresolve), PERF (default perf); the work
# files go to the current directory (addr-check.*).
set -eu
[ $# -ge 5 ] && [ "$4" = -- ] || {
	echo "usage: addr-check.sh PERF.DATA BINARY HITS -- COMMAND [ARG...]" >&2
	exit 2
}
data=$1 bin=$(realpath "$2") hits=$3
shift 4
here=$(cd "$(dirname "$0")" && pwd)
dtresolve=${DTRESOLVE:-dtresolve}
perf=${PERF:-perf}

"$perf" script -i "$data" -F comm,pid,tid,time,event,ip,sym,symoff,dso,uregs \
	--show-mmap-events 2>/dev/null | "$dtresolve" -f json 2>/dev/null |
	grep -F "\"dso\":\"$bin\"" >addr-check.json || true
samples=$(grep -c . addr-check.json || true)
grep -F '"data_addr":' addr-check.json >addr-check.addressed || true
addressed=$(grep -c . addr-check.addressed || true)
sed 's/.*"link_pc":"\([^"]*\)","access_pc":"\([^"]*\)".*/\2 \1/' addr-check.addressed |
	sort -u >addr-check.pairs
pairs=$(grep -c . addr-check.pairs || true)
if [ "$pairs" -gt 0 ]; then
	ORACLE_BINARY=$bin ORACLE_PAIRS=addr-check.pairs ORACLE_OUT=$PWD/addr-check \
		ORACLE_HITS=$hits gdb -q -batch -nx -x "$here/addr-oracle.py" \
		--args "$@" >addr-check.gdb 2>&1 || true
	"$dtresolve" -f json addr-check.lines 2>/dev/null | grep -v '"(perf record)"' >addr-check.got
else
	: >addr-check.got
	: >addr-check.truth
fi
sed 's/.*"data_addr":"\([^"]*\)".*/\1/;t;s/.*/none/' addr-check.got |
	paste -d' ' - addr-check.truth |
	awk -v s="$samples" -v a="$addressed" -v p="$pairs" '
		{ n = split($3, t, ","); ok = 0
		  for (i = 1; i <= n; i++) ok += t[i] == $1
		  if ($1 == "none") none++
		  else if (ok) good++
		  else { bad++; print "addr-check: wrong: " $0 > "/dev/stderr" } }
		END { printf "samples %d addressed %d pairs %d checked %d none %d wrong %d\n",
			s, a, p, good, none, bad
		      exit bad > 0 || good == 0 }'
