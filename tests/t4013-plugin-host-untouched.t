#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The library and the plugin leave their host alone: no signal handler,
# no blocked signal, no malloc tuning, no heap growth, no environment
# change inside perf (a preloaded watcher compares perf script with the
# plugin against perf script with a drop-all dlfilter), and no such call
# in libdtprof.a at all: heap tuning and SIGABRT handling are
# dtresolve's own (frontend/process.c).
. "$(dirname "$0")/lib.sh"
dt_require gcc nm
dt_require_perf_record

gcc -O2 -shared -fPIC -o hostwatch.so "$DT_SRC/tests/hostwatch.c" -ldl
gcc -O2 -shared -fPIC -I"$DT_SRC/bench" -o null.so "$DT_SRC/bench/null-dlfilter.c"
gcc -O2 -g -o wl "$DT_SRC/tests/fixtures/workload.c" "$DT_SRC/tests/fixtures/walk.c" &&
	perf record -N -q -e cpu-clock -o p.data ./wl loops 5 >/dev/null 2>rec.err ||
	dt_skip_all "perf record failed: $(head -n 1 rec.err)"

watch() {	# watch LOG DLFILTER: perf script with the watcher preloaded
	_log=$1
	shift
	HOSTWATCH=$PWD/$_log LD_PRELOAD="${dt_san_preload:+$dt_san_preload:}$PWD/hostwatch.so" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
		perf script -i p.data --dlfilter "$@" >/dev/null 2>>watch.err
}

dt_test 'the watcher sees what it watches (perf itself catches signals)' '
	watch null.log "$PWD/null.so" && grep -q "^signal .* caught" null.log &&
	grep -q "^mallopt 0$" null.log || dt_show null.log watch.err
'
dt_test 'perf with the plugin: the same handlers, mask, malloc and environment' '
	watch plugin.log "$DT_PLUGIN" --dlarg stat &&
	watch plugin1.log "$DT_PLUGIN" --dlarg threads=1 &&
	dt_cmp null.log plugin.log && dt_cmp null.log plugin1.log
'
dt_test 'libdtprof.a calls nothing that changes its host' '
	nm -u "$DT_BUILD/libdtprof.a" >undef &&
	! grep -wE "sigaction|signal|mallopt|sbrk|madvise|getenv|secure_getenv|setenv|putenv" undef ||
	{ grep -wE "sigaction|signal|mallopt|sbrk|madvise|getenv|secure_getenv|setenv|putenv" undef; false; }
'
dt_test 'the plugin catches no signal and tunes no heap' '
	nm -D "$DT_PLUGIN" >dyn &&
	! grep -wE "U (sigaction|signal|mallopt|sbrk)" dyn || dt_show dyn
'
dt_done
