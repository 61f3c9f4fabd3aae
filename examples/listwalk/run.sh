#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Example (a): the list link alone in the second cache line, then moved up
# with the other hot fields.   run.sh [PLUGIN] [WORKDIR]
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../compare.sh" "$here/listwalk.c" REORDERED "struct record" \
	"100000 150" "$@"
