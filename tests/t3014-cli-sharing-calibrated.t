#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The sharing verdicts against a known truth: two threads visit one
# object in patterns a program has (all along, short lock-like visits,
# bursts, batches, turns, ping-pong, set up by one and used by the
# other), their samples drawn at random from fixed seeds, and each
# verdict is scored against the visits (tests/sharing-calibrate.py).
# A flag refuted while the threads were there together, or confirmed
# while they never came within a window, is wrong.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require nm
dt_require python3

python3 "$DT_SRC/tests/sharing-calibrate.py" "$DTRESOLVE" "$PWD/cal" 1 >cal.md 2>cal.err
# row NAME: "trials shared apart confirmed suspected refuted wrong"
row() {
	awk -F' *[|] *' -v n="$1" '$2 == n { print $3, $4, $5, $6, $7, $8, $9 }' cal.md
}

dt_test 'every scenario graded, 300 trials each' '
	test $(grep -c "^| [a-z].* | 300 | " cal.md) = 11 || dt_show cal.md cal.err
'

dt_test 'no verdict wrong in threads there together: all along, lock-like visits, bursts' '
	for s in "all along, 1 sample/s" "all along, 5 samples/s" \
		 "all along, 50 samples/s" "short visits (lock), 1 ms every 50 ms" \
		 "bursts, 2 ms every 300 ms"; do
		set -- $(row "$s")
		test "$7" = 0 || { echo "$s: $*"; cat cal.md; return 1; }
	done
'

dt_test 'batches of work: at most 1% wrong' '
	for s in "batches, 50 ms every 500 ms" "batches, 200 ms every 1 s"; do
		set -- $(row "$s")
		test "$7" -le 3 || { echo "$s: $*"; cat cal.md; return 1; }
	done
'

# and the verdicts still tell: threads apart are refuted, not only left
# suspected, and threads all along at 50 samples a second confirmed
dt_test 'threads apart refuted (turns, set-up), never confirmed; dense sharing confirmed' '
	for s in "turns: one, 50 ms apart, the other" "turns, sparse: 5 samples/s" \
		 "set up in 20 ms, then used by the other"; do
		set -- $(row "$s")
		test "$4" = 0 && test $(($6 * 10)) -ge $(($1 * 8)) ||
			{ echo "$s: $*"; cat cal.md; return 1; }
	done
	set -- $(row "ping-pong: 100 ms each, 20 ms apart")
	test "$4" = 0 || { cat cal.md; return 1; }
	set -- $(row "all along, 50 samples/s")
	test $(($4 * 10)) -ge $(($1 * 9)) || { cat cal.md; return 1; }
'
dt_done
