#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Samples typed by address, checked against a second witness of the heap.

    heap-truth.py MALLOCLOG ANSWERS.json

The run was recorded by dtprof-record --allocator malloclog.so -k
CLOCK_MONOTONIC with tests/malloclog.so preloaded (MALLOCLOG_STARTS=1):
the probes on malloclog's allocator give dtresolve its blocks, and
malloclog's own log, written by the program's process itself with the
same clock, is the witness of every block's bytes (its usable size) and
life.  ANSWERS.json is dtresolve -f json of that recording.

Each answer marked by_address must have its data address in a block
malloclog had live at the sample's time, and the object it claims (its
type at the address less the offset, as tests/heap-oracle.py reads a
claim) must fit in that block.  (What type a block's site proves is
checked apart, against the sizes the code asks for: alloc-sites.py.)
Prints "by_address B in_block N right R wrong W", each wrong answer on
stderr; exit 1 when W > 0.
"""
import bisect
import importlib.util
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "heap_oracle", os.path.join(here, "..", "tests", "heap-oracle.py"))
oracle = importlib.util.module_from_spec(spec)
spec.loader.exec_module(oracle)


def main():
    blocks = oracle.blocks_of(sys.argv[1])
    starts = {p: [b[0] for b in v] for p, v in blocks.items()}
    widest = max((b[1] - b[0] for v in blocks.values() for b in v), default=0)
    n = in_block = right = wrong = 0
    for line in open(sys.argv[2]):
        a = json.loads(line)
        if not a.get("by_address"):
            continue
        n += 1
        x, t, pid = int(a["data_addr"], 16), a["time"], a.get("pid")
        bl, st = blocks.get(pid, []), starts.get(pid, [])
        i, hit = bisect.bisect_right(st, x) - 1, None
        while i >= 0 and st[i] + widest > x:
            s, e, ta, tf = bl[i]
            if s <= x < e and ta <= t < tf:
                hit = bl[i]
                break
            i -= 1
        if not hit:
            wrong += 1
            print("wrong, in no live block: %s" % line.strip(), file=sys.stderr)
            continue
        in_block += 1
        if oracle.claim_fits(a, x - hit[0], hit[1] - hit[0]):
            right += 1
        else:
            wrong += 1
            print("wrong, does not fit [%#x, %#x): %s" % (hit[0], hit[1], line.strip()),
                  file=sys.stderr)
    print("by_address %d in_block %d right %d wrong %d" % (n, in_block, right, wrong))
    return 1 if wrong else 0


sys.exit(main())
