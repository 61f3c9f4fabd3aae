#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# contrib/pipelines.sh: each documented pipeline on a real profile.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require_perf_record

src=$DT_SRC/tests/fixtures
gcc -O2 -g -o wl "$src/workload.c" "$src/walk.c"
perf record -q -e cpu-clock -F 2000 -o perf.data ./wl walk 0.3 >/dev/null 2>&1
export DTRESOLVE
p=$DT_SRC/contrib/pipelines.sh

dt_test 'top-types: struct hotrec first' '
	sh $p top-types perf.data >out 2>err && head -n 1 out | grep -q " struct hotrec$"
'
dt_test 'top-fields: +16 (hot) first, only that type' '
	sh $p top-fields "struct hotrec" perf.data >out 2>err &&
	head -n 1 out | grep -q " struct hotrec +16 (hot)$" && ! grep -v "struct hotrec +" out
'
dt_test 'by-function: walk_hot reads struct hotrec +16 (hot)' '
	sh $p by-function perf.data >out 2>err &&
	head -n 1 out | grep -q " walk_hot	struct hotrec +16 (hot)$"
'
dt_test 'by-event: the report table with the event column' '
	sh $p by-event perf.data >out 2>err && grep -q "^# event .cpu-clock." out
'
dt_test 'show prints a pipeline; no argument prints usage and exits 2' '
	sh $p show top-types | grep -q DTRESOLVE &&
	{ sh $p >out 2>err; test $? = 2; } && grep -q top-fields err
'
dt_done
