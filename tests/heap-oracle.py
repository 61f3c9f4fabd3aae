# SPDX-License-Identifier: GPL-3.0-or-later
"""Check dtresolve's typed answers against the heap blocks a run used.

    heap-oracle.py MALLOCLOG ANSWERS.json [BINARY]

MALLOCLOG: tests/malloclog.so's log of the run perf recorded with
-k CLOCK_MONOTONIC and --user-regs; ANSWERS.json: dtresolve -f json of
perf script -F ...,pid,...,time,...,uregs --ns (blocks are matched in the
sample's process).  For every typed answer with a
data address (of BINARY's samples, when given) inside a heap block live
at the sample's time, the object claimed, type T at the address less the
offset, sizeof(T) long, must lie inside that block; for a union, the
member the field goes through (any of them when the field names
candidates, "{ts.hash|h.alimit}"), its size as pahole reads the DWARF.  Prints one line:
"answers A addressed D in_heap H right R wrong W", then each wrong answer
(JSON, with its block) on stderr.  Exit 1 when W > 0.
"""
import bisect
import json
import re
import subprocess
import sys

_members = {}


def union_members(binary, union):
    """{member: (type, size)} of a union's top-level members, from pahole."""
    key = (binary, union)
    if key not in _members:
        members = {}
        try:
            out = subprocess.run(["pahole", "-C", union, binary], capture_output=True,
                                 text=True, timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        depth = 0
        for line in out.splitlines():
            m = re.match(r"\s+(.*?)\s*\b(\w+)(\[\d+\])*;\s+/\*\s+(\d+)\s+(\d+)\s+\*/", line)
            if depth == 1 and m:
                members[m.group(2)] = (m.group(1).strip(), int(m.group(5)))
            depth += line.count("{") - line.count("}")
        _members[key] = members
    return _members[key]


def split_candidates(path):
    """'{a.x|b}.y' or 'a.b': the alternatives at this level, each with
    the rest of its path."""
    if not path.startswith("{"):
        head, _, rest = path.partition(".")
        return [(head.split("[")[0], rest)]
    alts, depth, cur = [], 0, ""
    for i, ch in enumerate(path[1:], 1):
        if depth == 0 and ch in "|}":
            head, _, rest = cur.partition(".")
            alts.append((head.split("[")[0], rest))
            cur = ""
            if ch == "}":
                break
            continue
        depth += (ch == "{") - (ch == "}")
        cur += ch
    return alts


def union_extent(binary, union, path):
    """The bytes a claim through union `union` along `path` needs: the
    member it goes through (the least of candidates), followed into a
    member that is a union itself."""
    members = union_members(binary, union)
    best = None
    for head, rest in (split_candidates(path) if path else [(m, "") for m in members]):
        if head not in members:
            continue
        mtype, size = members[head]
        if mtype.startswith("union ") and rest:
            size = union_extent(binary, mtype[len("union "):], rest) or size
        best = size if best is None else min(best, size)
    return best


def extent(a):
    """Bytes from the object's start the answer claims."""
    t = a["type"]
    if not t.startswith("union "):
        return a["type_size"]
    return union_extent(a["dso"], t[len("union "):], a.get("field", "")) or a["type_size"]


def blocks_of(path):
    """Per process: (start, end, t_alloc, t_free) per block, by start."""
    live = {}
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) != 5:
                continue
            op, addr, size, t, pid = p[0], int(p[1], 16), int(p[2], 16), int(p[3]), int(p[4])
            if op == "a":
                live[(pid, addr)] = (addr, addr + size, t)
            elif (pid, addr) in live:
                a, e, ta = live.pop((pid, addr))
                out.setdefault(pid, []).append((a, e, ta, t))
    for (pid, _), (a, e, ta) in live.items():
        out.setdefault(pid, []).append((a, e, ta, 1 << 63))
    for v in out.values():
        v.sort()
    return out


def main():
    by_pid = blocks_of(sys.argv[1])
    starts_of = {p: [b[0] for b in v] for p, v in by_pid.items()}
    binary = sys.argv[3] if len(sys.argv) > 3 else None
    # the widest block, to bound the search back from an address
    widest = max((b[1] - b[0] for v in by_pid.values() for b in v), default=0)
    n = addressed = in_heap = right = wrong = 0
    with open(sys.argv[2]) as f:
        for line in f:
            a = json.loads(line)
            if binary and a.get("dso") != binary:
                continue
            if a.get("reason") != "ok" or not a.get("type_size") or "time" not in a:
                continue
            n += 1
            if "data_addr" not in a:
                continue
            addressed += 1
            x, t = int(a["data_addr"], 16), a["time"]
            blocks = by_pid.get(a.get("pid"), [])
            starts = starts_of.get(a.get("pid"), [])
            i = bisect.bisect_right(starts, x) - 1
            hit = None
            steps = 0
            while i >= 0 and starts[i] + widest > x and steps < 4096:
                steps += 1
                s, e, ta, tf = blocks[i]
                if s <= x < e and ta <= t < tf:
                    hit = blocks[i]
                    break
                i -= 1
            if not hit:
                continue
            in_heap += 1
            lo = x - a["offset"]
            hi = lo + extent(a)
            if hit[0] <= lo and hi <= hit[1]:
                right += 1
            else:
                wrong += 1
                print("wrong: %s block [%#x, %#x)" % (line.strip(), hit[0], hit[1]),
                      file=sys.stderr)
    print("answers %d addressed %d in_heap %d right %d wrong %d" %
          (n, addressed, in_heap, right, wrong))
    sys.exit(1 if wrong else 0)


main()
