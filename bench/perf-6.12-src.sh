#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perf 6.12 built from Debian's linux-source-6.12 (bookworm-security; the
# package is downloaded and unpacked here, never installed), for setting
# its data-type figures beside dtprof's on the same perf.data.
#   perf-6.12-src.sh [DIR]     (default build/perf-6.12-src)
# Prints the perf binary's path; cached: a second run only prints it.
#
# As shipped, perf 6.12's disassembler gives maps__find_ams() a map it
# holds no reference to, which drops it (util/disasm.c, call__parse,
# jump__parse and the call-target lookup): perf report -s type and perf
# annotate --data-type end in a crash (or refcount_inc's assertion) on
# every profile tried here, Debian's bookworm-backports binary too.  The
# three initializers take a reference instead (map__get); nothing else
# of perf changes.  Building takes a few minutes, once.
set -eu
dir=${1:-build/perf-6.12-src}
bin=$dir/out/perf
if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
	echo "$bin"
	exit 0
fi
here=$(cd "$(dirname "$0")/.." && pwd)
sh "$here/contrib/install-deps.sh" --if-missing libtraceevent-dev libelf-dev libdw-dev \
	libzstd-dev libslang2-dev libunwind-dev flex bison xz-utils >&2
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ ! -d "$dir/linux-source-6.12" ]; then
	deb=$(ls "$dir"/linux-source-6.12_*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		(cd "$dir" && apt-get download -qq linux-source-6.12 >&2) ||
			{ echo "perf-6.12-src: apt-get download linux-source-6.12 failed" >&2; exit 1; }
		deb=$(ls "$dir"/linux-source-6.12_*.deb | head -n 1)
	fi
	dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards '*/linux-source-6.12.tar.xz' |
		tar -C "$dir" -xJ --wildcards 'linux-source-6.12/tools' 'linux-source-6.12/include' \
			'linux-source-6.12/arch/x86' 'linux-source-6.12/arch/arm64/tools' \
			'linux-source-6.12/arch/arm64/include' 'linux-source-6.12/scripts' \
			'linux-source-6.12/lib' 'linux-source-6.12/kernel' 'linux-source-6.12/Makefile'
	rm -f "$deb"
	disasm=$dir/linux-source-6.12/tools/perf/util/disasm.c
	sed -i 's/\.ms = { \.map = map, },/.ms = { .map = map__get(map), },/' "$disasm"
	n=$(grep -c 'map = map__get(map), }' "$disasm")
	[ "$n" = 3 ] || { echo "perf-6.12-src: the map reference fix applied $n times, not 3" >&2; exit 1; }
fi
mkdir -p "$dir/out"
echo "perf-6.12-src: building perf 6.12 (a few minutes, once): $dir/build.log" >&2
make -C "$dir/linux-source-6.12/tools/perf" O="$dir/out" WERROR=0 \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_JEVENTS=1 NO_LIBBPF=1 NO_BPF_SKEL=1 \
	-j"$(nproc)" >"$dir/build.log" 2>&1 ||
	{ echo "perf-6.12-src: the build failed: $dir/build.log" >&2; exit 1; }
"$bin" --version >&2
echo "$bin"
