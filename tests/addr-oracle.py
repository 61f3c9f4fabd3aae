# SPDX-License-Identifier: GPL-3.0-or-later
"""Truth for data addresses computed from sampled registers, by execution.

Run inside gdb (x86-64):
    ORACLE_BINARY=PATH ORACLE_PAIRS=FILE ORACLE_OUT=PREFIX [ORACLE_HITS=N] \
        gdb -q -batch -nx -x tests/addr-oracle.py --args PROGRAM ARGS...

ORACLE_PAIRS holds lines "ACCESS_PC PC" (link-time hex addresses in
ORACLE_BINARY): an access dtresolve charged a sample at PC to.  For each
pair, at each of its first N executions, this script stops at ACCESS_PC,
computes the addresses its memory operands are about to touch from the
registers (reading gdb's disassembly, not dtprof's decoder), steps to PC
and writes, as perf script would print it with -F uregs, a sample at PC
with the registers there (PREFIX.lines), and the true addresses
(PREFIX.truth: one line per sample, "PC ADDR[,ADDR]").  dtresolve run on
PREFIX.lines must compute one of those addresses for each line, or none.
A path that leaves the straight line from ACCESS_PC before PC is not a
sample this pair stands for, and is dropped (counted in PREFIX.stat).
"""
import os
import re

import gdb

PERF_NAMES = [("rax", "AX"), ("rbx", "BX"), ("rcx", "CX"), ("rdx", "DX"),
              ("rsi", "SI"), ("rdi", "DI"), ("rbp", "BP"), ("rsp", "SP"),
              ("rip", "IP"), ("r8", "R8"), ("r9", "R9"), ("r10", "R10"),
              ("r11", "R11"), ("r12", "R12"), ("r13", "R13"), ("r14", "R14"),
              ("r15", "R15")]
REG64 = {}
for _n in ("ax", "bx", "cx", "dx", "si", "di", "bp", "sp"):
    REG64["r" + _n] = "r" + _n
    REG64["e" + _n] = None          # 32-bit: dtresolve gives no address
for _i in range(8, 16):
    REG64["r%d" % _i] = "r%d" % _i
    REG64["r%dd" % _i] = None
REG64["rip"] = "rip"

MEM = re.compile(r"(?:%(\w\w):)?(-?0x[0-9a-f]+|-?\d+)?\((%\w+)?(?:,(%\w+)(?:,(\d))?)?\)")


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & (2**64 - 1)


def operand_addresses(asm, pc, length):
    """The addresses the memory operands of asm touch; None: skip it."""
    text = asm.split("#")[0]
    out = []
    for m in MEM.finditer(text):
        seg, disp, base, index, scale = m.groups()
        if seg in ("fs", "gs"):
            return None
        d = int(disp, 0) if disp else 0
        b = base[1:] if base else None
        i = index[1:] if index else None
        if b == "rip":
            out.append((pc + length + d) & (2**64 - 1))
            continue
        if (b and REG64.get(b) is None) or (i and REG64.get(i) is None):
            return None
        v = (reg(b) if b else 0) + (reg(i) * int(scale or 1) if i else 0) + d
        out.append(v & (2**64 - 1))
    return out or None


def main():
    binary = os.path.realpath(os.environ["ORACLE_BINARY"])
    hits_each = int(os.environ.get("ORACLE_HITS", "20"))
    if hits_each < 1:
        raise SystemExit("addr-oracle: ORACLE_HITS must be at least 1")
    prefix = os.environ["ORACLE_OUT"]
    pairs = {}
    with open(os.environ["ORACLE_PAIRS"]) as f:
        for line in f:
            a, p = line.split()
            pairs.setdefault(int(a, 16), set()).add(int(p, 16))
    pairs = {a: sorted(t) for a, t in pairs.items()}
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("starti", to_string=True)
    base = None
    maps = []
    for line in gdb.execute("info proc mappings", to_string=True).splitlines():
        f = line.split()
        if len(f) >= 6 and os.path.realpath(f[-1]) == binary:
            start, off = int(f[0], 16), int(f[3], 16)
            if base is None or start - off < base:
                base = start - off
            maps.append((start, int(f[2], 16), off, f[4] if len(f) > 6 else ""))
    if base is None:
        raise SystemExit("addr-oracle: %s is not mapped" % binary)
    # a PIE's link-time addresses start at 0; a fixed executable's are real
    with open(binary, "rb") as f:
        f.seek(16)
        pie = int.from_bytes(f.read(2), "little") == 3   # ET_DYN
    bias = base if pie else 0
    left = {}
    for a in pairs:
        gdb.execute("break *%#x" % (a + bias), to_string=True)
        left[a + bias] = hits_each
    gdb.execute("set scheduler-locking step")
    lines = open(prefix + ".lines", "w")
    truth = open(prefix + ".truth", "w")
    pid = gdb.selected_inferior().pid
    for start, size, off, _ in maps:
        lines.write("prog %d/%d 0.000000: PERF_RECORD_MMAP2 %d/%d: [%#x(%#x) @ %#x "
                    "00:00 0 0]: r-xp %s\n" % (pid, pid, pid, pid, start, size,
                                               off, binary))
    stat = {"checked": 0, "off_path": 0, "skipped": 0}
    arch = gdb.selected_frame().architecture()
    while left:
        try:
            gdb.execute("continue", to_string=True)
        except gdb.error:
            break
        if not gdb.selected_inferior().pid:
            break
        pc = reg("rip")
        if pc not in left:
            continue
        insn = arch.disassemble(pc)[0]
        want = operand_addresses(insn["asm"], pc, insn["length"])
        # the pairs of one access take turns
        todo = pairs[pc - bias]
        target = todo[(hits_each - left[pc]) % len(todo)] + bias
        left[pc] -= 1
        if not left[pc]:
            gdb.execute("clear *%#x" % pc, to_string=True)
            del left[pc]
        if want is None:
            stat["skipped"] += 1
            continue
        # step to one of the sampled pcs, on the straight line only
        at = pc
        steps = 0
        while at != target and steps < 64:
            gdb.execute("stepi", to_string=True)
            steps += 1
            nxt = reg("rip")
            if nxt <= at or nxt > target:
                break
            at = nxt
        ok = at == target
        if not ok:
            stat["off_path"] += 1
            continue
        tid = gdb.selected_thread().ptid[1]
        regs = " ".join("%s:%#x" % (p, reg(g)) for g, p in PERF_NAMES)
        lines.write("prog %d/%d 1.000000: cpu-clock: %16x (%s) ABI:2 %s\n" %
                    (pid, tid, at, binary, regs))
        truth.write("%#x %s\n" % (at, ",".join("%#x" % w for w in want)))
        stat["checked"] += 1
    lines.close()
    truth.close()
    with open(prefix + ".stat", "w") as f:
        for k in sorted(stat):
            f.write("%s %d\n" % (k, stat[k]))
    gdb.execute("kill", to_string=True)


main()
