#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Example (c): two threads' counters in one cache line (false sharing
# between two writers), then each thread's counters on a line of their own.
#   run.sh [PLUGIN] [WORKDIR]
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../compare.sh" "$here/counters.c" FIXED "struct link_stats" \
	"200000000" "$@"
