#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Put Debian's perf 6.12 (bookworm-backports) in a private folder beside the
# system's perf 6.1, so tests and benchmarks can run both.
#   install-perf-6.12.sh [DIR]     (default build/perf-6.12)
# Prints the path of the perf binary.  As root it adds the backports source
# and the libraries perf 6.12 needs; it never replaces /usr/bin/perf.
set -eu
dir=${1:-build/perf-6.12}
find_perf() { ls "$dir"/usr/bin/perf_6.12 "$dir"/usr/bin/perf 2>/dev/null | head -n 1; }
p=$(find_perf || true)
if [ -n "$p" ] && "$p" --version >/dev/null 2>&1; then
	echo "$p"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "install-perf-6.12: run as root" >&2; exit 1; }
sh "$(dirname "$0")/install-deps.sh" --backports-source
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
deps=$(apt-cache show linux-perf/bookworm-backports | sed -n 's/^Depends: //p' | head -n 1 |
	tr ',' '\n' | sed 's/(.*//; s/|.*//; s/:any//; s/ //g' | grep -v '^$')
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $deps >&2
tmp=$(mktemp -d)
(cd "$tmp" && apt-get download -qq linux-perf/bookworm-backports >&2)
mkdir -p "$dir"
dpkg -x "$tmp"/linux-perf_*.deb "$dir"
rm -rf "$tmp"
p=$(find_perf)
"$p" --version >&2
echo "$p"
