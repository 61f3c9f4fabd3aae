# SPDX-License-Identifier: GPL-3.0-or-later
"""Check dtresolve's data addresses against the objects a program printed.

    addr-objects.py NAME OBJECTS JSON

OBJECTS has lines "object 0xADDR" (the program's own pointers); JSON is
dtresolve -f json.  Every "struct stats" answer with a data address must
touch an object: address - offset is one of them.  Prints "NAME right
none wrong", and each wrong line.
"""
import json
import sys

name, objects, answers = sys.argv[1:4]
truth = {int(l.split()[1], 16) for l in open(objects) if l.startswith("object ")}
right = none = wrong = 0
for line in open(answers):
    a = json.loads(line)
    if a.get("type") != "struct stats":
        continue
    if "data_addr" not in a:
        none += 1
    elif int(a["data_addr"], 16) - a["offset"] in truth:
        right += 1
    else:
        wrong += 1
        print("wrong:", line.strip(), file=sys.stderr)
print(name, right, none, wrong)
