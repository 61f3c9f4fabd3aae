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
candidates, "{ts.hash|h.alimit}"), its size as pahole reads the DWARF.
An answer of BINARY whose address is in none is checked the same way
against BINARY's static variables (its symbol table's data objects,
placed by the answer's load bias: addr less link_pc).  Prints one line:
"answers A addressed D in_heap H right R wrong W in_globals G punned P"
(right and wrong of both; punned: a static smaller than the type claimed
at its very start, which the program itself takes for one, as sqlite's
one-byte fakeCursor for a BtCursor), then each wrong and punned answer
(JSON, with its block) on stderr.  Exit 1 when W > 0.

    heap-oracle.py --lackey MALLOCLOG TRACE BINARY DTRESOLVE

Every executed instruction instead of the sampled ones: TRACE is valgrind
lackey's --trace-mem=yes log of a run with tests/malloclog.so and
MALLOCLOG_MARKS=1 (whose marker loads put the heap events in place among
the accesses).  Each instruction of BINARY that touched one heap block
or static variable of it (and nothing else of either) is asked of
DTRESOLVE (link-time address, no skid), and its typed answer is checked
as above against every one of its accesses, in a second pass over the
trace.  Prints "executed E typed T right R wrong W punned P accesses A"
(A: the accesses checked), each wrong answer on stderr, and exits 1
when W > 0.
"""
import bisect
import json
import re
import subprocess
import sys

_layouts = {}


def parse_layouts(out, types):
    """pahole's printed types into types (see layouts_of)."""
    depth, name, kind, members, last = 0, None, None, {}, None
    for line in out.splitlines():
        if depth == 0:
            h = re.match(r"(?:typedef )?(struct|union)\s*(\w*)\s*\{", line)
            if h:
                kind = h.group(1)
                name = "%s %s" % (kind, h.group(2)) if h.group(2) else None
                members, last = {}, None
        elif depth == 1:
            a = re.match(r"\s+(.*?)\s*\b(\w+)((?:\[\d+\])*);\s+/\*\s+(\d+)\s+(\d+)\s+\*/", line)
            if a:
                dims = re.findall(r"\d+", a.group(3))
                count, size = int(dims[0]) if dims else 0, int(a.group(5))
                members[a.group(2)] = (a.group(1).strip(), int(a.group(4)), size,
                                       count, size // count if count else 0)
                last = a.group(2)
        depth += line.count("{") - line.count("}")
        if depth == 0 and line.startswith("}"):
            td = re.match(r"\}\s*(\w+);", line)
            if kind == "struct" and last and members[last][3]:
                mtype, off, size, count, stride = members[last]
                members[last] = (mtype, off, size, max(count, 4096), stride)
            for n in filter(None, (name, td.group(1) if td else None)):
                types.setdefault(n, members)
            name = None


def pahole_out(args):
    try:
        return subprocess.run(["pahole"] + args, capture_output=True, text=True,
                              timeout=300).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def layouts_of(binary):
    """{type name: {member: (type, offset, size, count, stride)}} of every
    struct and union pahole prints of BINARY (top-level members; an
    array's element count and size; count 0: not an array; a last array
    member, C's old flexible array, taken as long).  A typedef of an
    anonymous struct is known by the typedef's name."""
    if binary not in _layouts:
        _layouts[binary] = {}
        parse_layouts(pahole_out([binary]), _layouts[binary])
    return _layouts[binary]


def layout(binary, typename):
    """A type's members (layouts_of), by its name as dtresolve spells it:
    "struct T", "union U", or a typedef's name."""
    types = layouts_of(binary)
    if typename in types:
        return types[typename]
    if not typename.startswith(("struct ", "union ")):
        for kind in ("struct ", "union "):
            if kind + typename in types:
                return types[kind + typename]
        # a typedef of an anonymous struct: printed only when asked for
        parse_layouts(pahole_out(["-C", typename, binary]), types)
        types.setdefault(typename, {})
        return types[typename]
    return {}


def index_shifts(binary, typename, field):
    """Where else the object may start than the answer's offset says: an
    element index in the field ("crawlerstats[1].x", "a.b[0].c") names
    one element for any (the dataflow knows the stride, not the index),
    so the access may be in element k of each such array.  The shifts
    (bytes to add to the offset), at most 4096 of them."""
    shifts = [0]
    t = typename
    for comp in field.split("."):
        if not comp or "{" in comp or "|" in comp:
            break
        m = re.match(r"(\w+)((?:\[\d+\])*)$", comp)
        if not m:
            break
        mem = layout(binary, t).get(m.group(1))
        if not mem:
            break
        mtype, _, _, count, stride = mem
        idx = re.findall(r"\d+", m.group(2))
        if idx and count:
            j = int(idx[0])
            if len(shifts) * count > 4096:
                break
            shifts = [d + (k - j) * stride for d in shifts for k in range(count)]
        t = mtype
    return shifts


def claim_fits(a, rel, bsize):
    """Whether the object answer a claims, its access rel bytes into a
    block of bsize, lies inside the block (for some element of each
    array its field indexes)."""
    ext = extent(a)
    for d in index_shifts(a["dso"], a["type"], a.get("field", "")):
        lo = rel - a["offset"] - d
        if lo >= 0 and lo + ext <= bsize:
            return True
    return False


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
    members = layout(binary, "union " + union)
    best = None
    for head, rest in (split_candidates(path) if path else [(m, "") for m in members]):
        if head not in members:
            continue
        mtype, _, size = members[head][:3]
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
            if op == "s":
                # MALLOCLOG_STARTS: the process ran a program, the
                # blocks of the image before are gone
                for k in [k for k in live if k[0] == pid]:
                    a, e, ta = live.pop(k)
                    out.setdefault(pid, []).append((a, e, ta, t))
            elif op == "a":
                live[(pid, addr)] = (addr, addr + size, t)
            elif (pid, addr) in live:
                a, e, ta = live.pop((pid, addr))
                out.setdefault(pid, []).append((a, e, ta, t))
    for (pid, _), (a, e, ta) in live.items():
        out.setdefault(pid, []).append((a, e, ta, 1 << 63))
    for v in out.values():
        v.sort()
    return out


def globals_of(binary):
    """BINARY's data objects with a size: sorted (start, end) link-time."""
    out = []
    try:
        nm = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True,
                            text=True, timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired):
        return out
    for line in nm.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "dDbBrRvV" and int(p[1], 16):
            a = int(p[0], 16)
            out.append((a, a + int(p[1], 16)))
    out.sort()
    return out


def main():
    by_pid = blocks_of(sys.argv[1])
    starts_of = {p: [b[0] for b in v] for p, v in by_pid.items()}
    binary = sys.argv[3] if len(sys.argv) > 3 else None
    # the widest block, to bound the search back from an address
    widest = max((b[1] - b[0] for v in by_pid.values() for b in v), default=0)
    statics = globals_of(binary) if binary else []
    static_starts = [g[0] for g in statics]
    n = addressed = in_heap = in_globals = right = wrong = punned = 0
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
            if not hit and "link_pc" in a:
                # a static of the binary, at its link address
                lx = x - (int(a["addr"], 16) - int(a["link_pc"], 16))
                j = bisect.bisect_right(static_starts, lx) - 1
                if j >= 0 and lx < statics[j][1]:
                    bias = x - lx
                    hit = (statics[j][0] + bias, statics[j][1] + bias, "static")
                    in_globals += 1
            elif hit:
                in_heap += 1
            if not hit:
                continue
            lo = x - a["offset"]
            if claim_fits(a, x - hit[0], hit[1] - hit[0]):
                right += 1
            elif len(hit) == 3 and lo == hit[0]:
                # the program itself takes a smaller static for a T
                # (sqlite's one-byte fakeCursor returned as a BtCursor *)
                punned += 1
                print("punned: %s static [%#x, %#x)" % (line.strip(), hit[0], hit[1]),
                      file=sys.stderr)
            else:
                wrong += 1
                print("wrong: %s block [%#x, %#x)" % (line.strip(), hit[0], hit[1]),
                      file=sys.stderr)
    print("answers %d addressed %d in_heap %d right %d wrong %d in_globals %d punned %d" %
          (n, addressed, in_heap, right, wrong, in_globals, punned))
    sys.exit(1 if wrong else 0)


def text_ranges(binary):
    """BINARY's executable PT_LOAD ranges, link-time."""
    out = []
    r = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout
    for line in r.splitlines():
        p = line.split()
        if p and p[0] == "LOAD" and "E" in p[6:-1]:
            va, memsz = int(p[2], 16), int(p[5], 16)
            out.append((va, va + memsz))
    return out


def lackey_accesses(mlog, trace, binary):
    """Walk TRACE, replaying MALLOCLOG's heap events in their places:
    yields (link pc, (kind, rel, block size)) for each executed
    instruction of BINARY that touched one heap block or static and
    nothing else of either, and finally (None, rep): the link pcs of
    rep-prefixed string instructions, each iteration of which moves its
    operand (never asked).  A generator so that a second pass walks the
    same trace the same way."""
    events, base, size, bias = [], None, 0, 0
    with open(mlog) as f:
        for line in f:
            p = line.split()
            if len(p) != 5:
                continue
            if p[0] == "m":
                base, size = int(p[1], 16), int(p[2], 16)
            elif p[0] == "b":
                bias = int(p[1], 16)
            elif p[0] in "af":
                events.append((p[0], int(p[1], 16), int(p[2], 16)))
    if base is None:
        sys.exit("heap-oracle: %s has no marks (MALLOCLOG_MARKS=1)" % mlog)
    texts = text_ranges(binary)
    statics = globals_of(binary)
    static_starts = [g[0] for g in statics]
    starts, ends = [], {}          # live heap blocks
    next_event = 0
    cur, hits = None, []

    def place(x):
        """(kind, rel, size) of the heap block or static holding x."""
        i = bisect.bisect_right(starts, x) - 1
        if i >= 0 and x < ends[starts[i]]:
            return ("h", x - starts[i], ends[starts[i]] - starts[i])
        lx = x - bias
        j = bisect.bisect_right(static_starts, lx) - 1
        if j >= 0 and lx < statics[j][1]:
            return ("s", lx - statics[j][0], statics[j][1] - statics[j][0])
        return None

    rep = set()
    last_pc = None
    with open(trace) as f:
        for line in f:
            if line.startswith("I"):
                if cur is not None and len(hits) == 1:
                    yield cur, hits[0]
                hits = []
                pc = int(line[3:line.index(",")], 16) - bias
                if pc == last_pc:
                    rep.add(pc)
                last_pc = pc
                cur = pc if any(lo <= pc < hi for lo, hi in texts) else None
                continue
            if len(line) < 4 or line[1] not in "LSM" or line[0] != " ":
                continue
            x = int(line[3:line.index(",")], 16)
            if base <= x < base + size:
                # the next heap event, in its place
                if next_event < len(events):
                    op, a, n = events[next_event]
                    next_event += 1
                    if op == "a" and a not in ends:
                        bisect.insort(starts, a)
                        ends[a] = a + n
                    elif op == "f" and a in ends:
                        del ends[a]
                        starts.pop(bisect.bisect_left(starts, a))
                continue
            if cur is None:
                continue
            h = place(x)
            if h:
                hits.append(h)
    if cur is not None and len(hits) == 1:
        yield cur, hits[0]
    yield None, rep


def lackey_main(mlog, trace, binary, dtresolve):
    # first pass: which instructions to ask about
    pcs, rep = set(), set()
    for pc, hit in lackey_accesses(mlog, trace, binary):
        if pc is None:
            rep = hit
        else:
            pcs.add(pc)
    pcs = sorted(pcs - rep)
    answers = subprocess.run([dtresolve, "--skid=off", "-f", "json", "-e", binary],
                             input="".join("%#x\n" % pc for pc in pcs),
                             capture_output=True, text=True).stdout.splitlines()
    if len(answers) != len(pcs):
        sys.exit("heap-oracle: dtresolve answered %d of %d" % (len(answers), len(pcs)))
    typed_of = {}
    for pc, line in zip(pcs, answers):
        a = json.loads(line)
        if a.get("reason") == "ok" and a.get("type_size"):
            a["dso"] = binary
            typed_of[pc] = (a, line.strip())
    # second pass: every access of every typed instruction against its
    # answer (a verdict kept per distinct placement, a bounded memo)
    bad_of, fits, checked = {}, {}, 0
    for pc, hit in lackey_accesses(mlog, trace, binary):
        if pc is None or pc not in typed_of:
            continue
        checked += 1
        key = (pc, hit)
        if key in fits:
            continue
        kind, rel, bsize = hit
        ok = claim_fits(typed_of[pc][0], rel, bsize)
        if len(fits) > 1000000:
            fits.clear()
        fits[key] = ok
        if ok:
            continue
        punned = kind == "s" and rel - typed_of[pc][0]["offset"] == 0
        # a wrong placement outranks a punned one
        if pc not in bad_of or (bad_of[pc][0] == "s" and bad_of[pc][3] and not punned):
            bad_of[pc] = (kind, rel, bsize, punned)
    right = wrong = punned = 0
    for pc in sorted(typed_of):
        bad = bad_of.get(pc)
        line = typed_of[pc][1]
        if not bad:
            right += 1
        elif bad[3]:
            punned += 1
            print("punned: %#x %s static of %d bytes" % (pc, line, bad[2]), file=sys.stderr)
        else:
            wrong += 1
            print("wrong: %#x %s %s at +%d of %d bytes" %
                  (pc, line, "heap block" if bad[0] == "h" else "static",
                   bad[1], bad[2]), file=sys.stderr)
    print("executed %d typed %d right %d wrong %d punned %d accesses %d" %
          (len(pcs), len(typed_of), right, wrong, punned, checked))
    sys.exit(1 if wrong else 0)


if __name__ != "__main__":
    pass    # imported (bench/heap-truth.py reads claims as this does)
elif len(sys.argv) == 6 and sys.argv[1] == "--lackey":
    lackey_main(*sys.argv[2:])
else:
    main()
