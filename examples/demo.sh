#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# make demo: the built-in example, end to end: record example (a) with
# perf and print dtprof's report and the annotated layout of its hot struct.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${DT_BUILD:=$here/../build}"
work=$DT_BUILD/demo
rm -rf "$work"
exec sh "$here/listwalk/run.sh" "$DT_BUILD/dtplugin.so" "$work"
