#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Load a dtprof HTML page in headless Chromium: print its DOM after the
# page's script ran (with #selftest: the type table sorted and checked),
# or save a screenshot.
#   html-check.sh dom PAGE            DOM on stdout
#   html-check.sh shot PAGE PNG [WxH] screenshot (default 1500x1150)
# Environment: CHROMIUM (default: chromium).
set -eu
chromium=${CHROMIUM:-chromium}
page=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
# a profile directory of its own: no state shared with other runs
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
# (no background connections: this machine's network is closed, and
# their refusals are noise in the log shown on failure)
run() {
	HOME=$home timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
		--no-first-run --disable-quic --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$home/profile" "$@" 2>"$home/log" ||
	{ rc=$?; echo "html-check.sh: chromium failed ($rc):" >&2; cat "$home/log" >&2; exit $rc; }
}
case $1 in
dom)	run --dump-dom "file://$page#selftest" ;;
shot)	run --screenshot="$3" --window-size="${4:-1500,1150}" "file://$page" >/dev/null
	test -s "$3" ;;
*)	echo "usage: html-check.sh dom PAGE | shot PAGE PNG [W,H]" >&2; exit 2 ;;
esac
