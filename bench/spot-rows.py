#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# The hottest typed rows of one program's profile, laid out for a spot
# check by hand (doc/ACCURACY.md): samples, the charged instruction
# (objdump), its source line (addr2line, the innermost inlined one, and
# the line's text when the file is here), and dtprof's answer.  The
# verdict column is left for the reader.
#   spot-rows.py NAME.json BINARY [N]
# NAME.json: dtresolve -f json of perf script text with link_pc and
# access_pc (as accuracy-real.sh writes it).
import collections
import json
import subprocess
import sys


def first_insn(binary, pc):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "att",
                          "--start-address=%#x" % pc, "--stop-address=%#x" % (pc + 16),
                          binary], capture_output=True, text=True).stdout
    for line in out.splitlines():
        p = line.split(":", 1)
        if len(p) == 2 and p[0].strip() == "%x" % pc:
            return " ".join(p[1].split())
    return "?"


def source_of(binary, pc):
    out = subprocess.run(["addr2line", "-i", "-e", binary, "%#x" % pc],
                         capture_output=True, text=True).stdout.splitlines()
    where = out[0].split(" (discriminator")[0] if out else "??:0"
    path, _, line = where.rpartition(":")
    text = ""
    try:
        with open(path, errors="replace") as f:
            for i, t in enumerate(f, 1):
                if str(i) == line:
                    text = " ".join(t.split())
                    break
    except OSError:
        pass
    short = path.rsplit("/", 1)[-1] + ":" + line
    return short, text[:70]


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: spot-rows.py NAME.json BINARY [N]")
    name, binary = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    rows = collections.Counter()
    typed = 0
    with open(name) as f:
        for line in f:
            a = json.loads(line)
            if (a.get("dso") != binary or a.get("reason") != "ok" or
                    not a.get("type_size") or "access_pc" not in a):
                continue
            typed += 1
            rows[(int(a["access_pc"], 16), a["type"], a["offset"], a["field"])] += 1
    top = rows.most_common(n)
    print("%d rows, %d of %d typed samples" %
          (len(top), sum(c for _, c in top), typed))
    print()
    print("| samples | instruction | source | answer | verdict |")
    print("|---|---|---|---|---|")
    for (pc, t, off, field), c in top:
        where, text = source_of(binary, pc)
        ans = "%s +%d%s" % (t, off, " (%s)" % field if field else "")
        print("| %d | `%s` | %s `%s` | %s | |" %
              (c, first_insn(binary, pc), where, text.replace("|", "\\|"),
               ans.replace("|", "\\|")))


main()
