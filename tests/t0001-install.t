#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# make install puts every piece where its user looks for it: dtresolve on
# PATH, the plugin in perf's dlfilters directory, man pages, completion.
. "$(dirname "$0")/lib.sh"
dt_require make
# install from the build under test, never rebuilding it with other flags
case $DT_BUILD in */san) san=SANITIZE=1 ;; *) san= ;; esac
# a program linking the sanitizer build's archive needs their runtimes
case $DT_BUILD in */san) san_cc=-fsanitize=address,undefined ;; *) san_cc= ;; esac

dt_test 'make install DESTDIR=... installs every file' '
	make -s -C "$DT_SRC" O="$DT_BUILD" $san install DESTDIR="$PWD/root" PREFIX=/usr \
		DLFILTERDIR=/usr/lib/perf-core/dlfilters >log 2>&1 &&
	test -x root/usr/bin/dtresolve && test -x root/usr/bin/dtprof-record &&
	test -f root/usr/share/man/man1/dtprof-record.1 &&
	test -f root/usr/lib/perf-core/dlfilters/dtplugin.so &&
	test -f root/usr/share/man/man1/dtresolve.1 &&
	test -f root/usr/share/man/man1/dtplugin.1 &&
	test -f root/usr/share/bash-completion/completions/dtresolve
'
dt_test 'the library installs for programs that link it (header, archive, pkg-config)' '
	test -f root/usr/include/dtprof/dtprof.h && test -f root/usr/lib/libdtprof.a &&
	test -f root/usr/lib/pkgconfig/dtprof.pc &&
	cat >linkit.c <<EOF &&
#include <dtprof.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	struct dt_session *s;
	struct dt_answer a;
	if (argc < 2 || dt_session_open(argv[1], NULL, &s))
		return 1;
	dt_resolve_pc(s, 0, &a);
#if DTPROF_VERSION_NUMBER != DTPROF_VERSION_MAJOR * 10000 + DTPROF_VERSION_MINOR * 100 + DTPROF_VERSION_PATCH
#error version macros
#endif
	printf("%s %d %s\n", DTPROF_VERSION, DTPROF_VERSION_NUMBER, dt_reason_str(a.reason));
	dt_session_close(s);
	return 0;
}
EOF
	flags=$(PKG_CONFIG_SYSROOT_DIR=$PWD/root PKG_CONFIG_PATH=$PWD/root/usr/lib/pkgconfig \
		pkg-config --cflags --libs --static dtprof) &&
	cc $san_cc -o linkit linkit.c $flags -ldl >cc.log 2>&1 &&
	./linkit ./linkit | grep -q "^0\.[0-9.]* [0-9]* [a-z_]*$" || dt_show cc.log
'
dt_test 'the installed archive defines only the API: dt_* names dtprof.h declares' '
	nm -g --defined-only root/usr/lib/libdtprof.a | awk "NF == 3 { print \$3 }" | sort >globals &&
	test -s globals && ! grep -v "^dt_" globals &&
	grep -o "dt_[a-z0-9_]*(" root/usr/include/dtprof/dtprof.h | tr -d "(" | sort -u >declared &&
	comm -23 globals declared >undeclared && dt_cmp /dev/null undeclared
'
dt_test 'a program with a function named as an internal one links (line_parse)' '
	printf "int line_parse(void) { return 0; }\nint section_named(void) { return 1; }\n" >clash.c &&
	sed "s/return 0;\$/return line_parse() + section_named() - 1;/" linkit.c >linkit2.c &&
	cat clash.c >>linkit2.c &&
	flags=$(PKG_CONFIG_SYSROOT_DIR=$PWD/root PKG_CONFIG_PATH=$PWD/root/usr/lib/pkgconfig \
		pkg-config --cflags --libs --static dtprof) &&
	cc $san_cc -o linkit2 linkit2.c $flags -ldl >cc2.log 2>&1 && ./linkit2 ./linkit2 >/dev/null ||
	dt_show cc2.log
'
dt_test 'make install PREFIX=DIR keeps the plugin under DIR' '
	make -s -C "$DT_SRC" O="$DT_BUILD" $san install DESTDIR="$PWD/pfx" PREFIX=/opt/dtprof \
		>log 2>&1 &&
	test -f pfx/opt/dtprof/libexec/perf-core/dlfilters/dtplugin.so &&
	test -z "$(find pfx -path pfx/opt -prune -o -type f -print)" || dt_show log
'
dt_test 'the build takes CPPFLAGS, WERROR=0 drops -Werror, clean removes O= only' '
	make -s -n -B -C "$DT_SRC" O="$PWD/o" CPPFLAGS=-DDT_CPPFLAGS_SEEN "$PWD/o/lib/engine/util.o" >n1 &&
	grep -q -- "-DDT_CPPFLAGS_SEEN" n1 && grep -q -- "-Werror" n1 &&
	make -s -n -B -C "$DT_SRC" O="$PWD/o" WERROR=0 "$PWD/o/lib/engine/util.o" >n2 &&
	! grep -q -- "-Werror" n2 &&
	make -s -n -C "$DT_SRC" O="$PWD/o" clean >n3 && grep -qx "rm -rf $PWD/o" n3 ||
	dt_show n1 n2 n3
'
dt_test 'an object is built again when its flags change, not otherwise' '
	make -s -C "$DT_SRC" O="$PWD/st" "$PWD/st/lib/engine/util.o" >s1 2>&1 &&
	make -C "$DT_SRC" O="$PWD/st" "$PWD/st/lib/engine/util.o" >s2 2>&1 &&
	! grep -q "CC .*util.c" s2 &&
	make -C "$DT_SRC" O="$PWD/st" CFLAGS="-O1 -g" "$PWD/st/lib/engine/util.o" >s3 2>&1 &&
	grep -q "CC .*util.c" s3 || dt_show s1 s2 s3
'
dt_test 'the build stops at a view that includes the engine' '
	mkdir tree && cp -r "$DT_SRC/Makefile" "$DT_SRC/lib" tree/ &&
	make -s -C tree O="$PWD/lay" "$PWD/lay/.layers" >l1 2>&1 &&
	sed -i "s|#include \"report.h\"|#include \"report.h\"\n#include \"../engine/internal.h\"|" \
		tree/lib/report/html.c &&
	! make -s -C tree O="$PWD/lay2" "$PWD/lay2/.layers" >l2 2>&1 &&
	grep -q "crosses a layer" l2 || dt_show l1 l2
'
dt_test 'the default plugin directory is perf --exec-path/dlfilters' '
	! command -v perf >/dev/null ||
	{ make -s -C "$DT_SRC" O="$DT_BUILD" $san install DESTDIR="$PWD/def" >log 2>&1 &&
	  test -f "def$(perf --exec-path)/dlfilters/dtplugin.so"; }
'
dt_test 'the installed dtresolve runs' '
	root/usr/bin/dtresolve --version | grep -q "^dtresolve (dtprof)"
'
dt_test 'man pages render without warnings' '
	! command -v groff >/dev/null ||
	{ for m in dtresolve dtplugin dtprof-record; do
		groff -man -Tutf8 -ww "$DT_SRC/doc/$m.1" >/dev/null 2>warn || exit 1
		! test -s warn || dt_show warn || exit 1
	  done; }
'
dt_test 'perf script --list-dlfilters describes the plugin' '
	! command -v perf >/dev/null ||
	{ cp "$DT_PLUGIN" dtplugin.so &&
	  dt_perf perf script --list-dlfilters 2>&1 | grep -q "dtplugin.so .*data-type"; }
'
dt_done
