#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Install the Debian packages dtprof needs.
#   install-deps.sh [--if-missing] PACKAGE...
# As root: apt-get update (once) and install what is missing.  Otherwise
# print the exact apt-get line and fail.  With --if-missing, do nothing when
# all are installed (so 'make check' costs nothing on a ready machine).
set -u
if_missing=0
[ "${1:-}" = --if-missing ] && { if_missing=1; shift; }

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-deps: not a Debian system; install the equivalents of: $*" >&2
	exit 0
fi
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
[ $if_missing = 1 ] && echo "install-deps: installing:$missing" >&2
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages; as root run:" >&2
	echo "  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || exit 1
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
