#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Build a large real -O2 -g program for benchmarks: perf, from Debian's
# linux-source-6.1 package, into $1 (default build/bench).  Cached: a
# second run only prints the path.  Prints the binary's path on stdout.
set -eu
dir=${1:-build/bench}
bin=$dir/perf-build/perf
if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$tarball" ] || { echo "real-binary: no /usr/src/linux-source-*.tar.xz (apt-get install linux-source-6.1)" >&2; exit 1; }
mkdir -p "$dir/perf-build"
echo "real-binary: building perf from $tarball (about 90 s, once)" >&2
tar -C "$dir" -xf "$tarball" --wildcards '*/tools' '*/include' '*/arch/x86' \
	'*/scripts' '*/Makefile' '*/lib'
src=$(ls -d "$dir"/linux-source-* | head -n 1)
# DEBUG=1 drops perf's own -O6, so -O2 is what the compiler sees
make -C "$src/tools/perf" O="$(cd "$dir/perf-build" && pwd)" DEBUG=1 \
	EXTRA_CFLAGS="-O2 -DNDEBUG=1" \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_JEVENTS=1 NO_LIBBPF=1 NO_BPF_SKEL=1 \
	NO_LIBTRACEEVENT=1 -j"$(nproc)" >"$dir/perf-build.log" 2>&1 ||
	{ echo "real-binary: perf build failed, see $dir/perf-build.log" >&2; exit 1; }
echo "$bin"
