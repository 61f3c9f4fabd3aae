#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Samples typed by address, against the blocks the program printed.

    printed-blocks.py BLOCKS ANSWERS.json MIN LABEL=TYPE:SIZE...

BLOCKS: the fixture's "block ADDR SIZE LABEL" lines; each LABEL's blocks
hold objects of TYPE (as answers spell it), SIZE bytes each, or none
("LABEL=-": a block too small for its site's type).  Every answer of
ANSWERS.json (dtresolve -f json) marked by_address must lie in such a
block, of its type, at the offset its address says (within an
element).  Prints "N typed by address, W wrong", each wrong answer
before; exit 1 when W > 0 or N < MIN.
"""
import json
import sys

blocks_file, answers, least = sys.argv[1], sys.argv[2], int(sys.argv[3])
holds = {}
for arg in sys.argv[4:]:
    label, what = arg.split("=", 1)
    holds[label] = None if what == "-" else (what.rsplit(":", 1)[0], int(what.rsplit(":", 1)[1]))
blocks = []
for line in open(blocks_file):
    w = line.split()
    if w and w[0] == "block":
        blocks.append((int(w[1], 16), int(w[2]), holds[" ".join(w[3:])]))
n = bad = 0
for line in open(answers):
    a = json.loads(line)
    if not a.get("by_address"):
        continue
    n += 1
    d = int(a["data_addr"], 16)
    if not [b for b in blocks if b[0] <= d < b[0] + b[1] and b[2] and b[2][0] == a["type"] and
            (d - b[0]) % b[2][1] == a["offset"]]:
        bad += 1
        print("wrong:", line.strip())
print(n, "typed by address,", bad, "wrong")
sys.exit(1 if bad or n < least else 0)
