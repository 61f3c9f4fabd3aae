#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Install the Debian packages dtprof needs.
#   install-deps.sh [--if-missing] PACKAGE[>=VERSION]...
#   install-deps.sh --backports-source
#   install-deps.sh --deb-src-source
# As root: apt-get update (once) and install what is missing.  Otherwise
# print the exact apt-get line and fail.  With --if-missing, do nothing when
# all are installed (so 'make check' costs nothing on a ready machine).
# PACKAGE>=VERSION: an older one is missing too, and is installed from
# the release's backports (libdw reads DWARF packages, .dwp, from 0.191
# on; Debian 12 has 0.188, bookworm-backports 0.192).
# --backports-source: only add the backports source to apt's lists.
# --deb-src-source: add the release's source packages (apt-get source),
# signed as its binary packages are, and update apt's lists.
set -u
if_missing=0
[ "${1:-}" = --if-missing ] && { if_missing=1; shift; }

codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
backports_source() {
	grep -rqs "$codename-backports" /etc/apt/sources.list /etc/apt/sources.list.d/ ||
		echo "deb http://deb.debian.org/debian $codename-backports main" \
			>/etc/apt/sources.list.d/dtprof-backports.list
}
if [ "${1:-}" = --backports-source ]; then
	[ -n "$codename" ] && backports_source
	exit
fi
if [ "${1:-}" = --deb-src-source ]; then
	[ -n "$codename" ] || exit 1
	grep -rqs "^deb-src .*$codename main\|^Types:.*deb-src" /etc/apt/sources.list \
		/etc/apt/sources.list.d/ && exit 0
	[ "$(id -u)" = 0 ] || { echo "install-deps: as root, add a deb-src line for $codename" >&2; exit 1; }
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $codename main" \
		>/etc/apt/sources.list.d/dtprof-src.list
	apt-get update -qq
	exit
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-deps: not a Debian system; install the equivalents of: $*" >&2
	exit 0
fi
installed() { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null | sed -n 's/^install ok installed //p'; }
missing= newer=
for spec in "$@"; do
	p=${spec%%>=*}
	v=$(installed "$p")
	if [ "$p" = "$spec" ]; then
		[ -n "$v" ] || missing="$missing $p"
	elif [ -z "$v" ] || dpkg --compare-versions "$v" lt "${spec#*>=}"; then
		newer="$newer $p"
	fi
done
[ -z "$missing$newer" ] && exit 0
[ $if_missing = 1 ] && echo "install-deps: installing:$missing${newer:+ (from $codename-backports:$newer)}" >&2
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages; as root run:" >&2
	[ -n "$missing" ] && echo "  apt-get update && apt-get install -y$missing" >&2
	[ -n "$newer" ] && echo "  (with $codename-backports in apt's sources) apt-get install -y -t $codename-backports$newer" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
[ -n "$newer" ] && backports_source
apt-get update -qq >&2 || exit 1
# shellcheck disable=SC2086
[ -z "$missing" ] || apt-get install -y -qq --no-install-recommends $missing >&2 || exit 1
# shellcheck disable=SC2086
[ -z "$newer" ] || apt-get install -y -qq --no-install-recommends -t "$codename-backports" $newer >&2
