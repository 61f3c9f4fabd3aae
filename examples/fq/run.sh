#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Example (b): packet counters written on one CPU in the cache line of
# parameters read on another, then given a line of their own.
#   run.sh [PLUGIN] [WORKDIR]
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../compare.sh" "$here/fq.c" FIXED "struct fq_sched_data" \
	"200000000" "$@"
