#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What allocation sites prove, checked against the sizes the code asks for.

    alloc-sites.py DTSITE BINARY [FUNC:ARG ...]

Every direct call in BINARY (objdump -d) to an allocating function FUNC
(its ARGth argument the bytes asked for; ARG 0: none, only counted) is a
site; DTSITE (tests/dtsite) says what type its return address proves.
Where the size is a constant the call's own block loads into the
argument register just before it (mov $N, %edi), the claim "the block
starts with a T" needs N >= sizeof(T): a smaller block cannot hold one,
and such a site is a wrong answer (or code that lies about its block),
listed on stderr.  Without FUNC:ARG, the C library's and the kernel's
allocators (malloc, calloc, realloc, operator new; kmalloc and its kin of
Linux 6.1 to 6.18).  x86-64 only.  Prints one summary line:
"calls C typed T sized S exact E larger L smaller W unsized U".  Exit 1
when W > 0.
"""
import re
import subprocess
import sys

ARGS = {1: ("rdi", "edi"), 2: ("rsi", "esi"), 3: ("rdx", "edx"), 4: ("rcx", "ecx")}
DEFAULT = {
    "malloc": 1, "calloc": 0, "realloc": 2, "aligned_alloc": 2, "_Znwm": 1, "_Znam": 1,
    "__kmalloc": 1, "__kmalloc_node": 1, "kmalloc_trace": 3, "kmalloc_node_trace": 4,
    "kmalloc_large": 1, "kmalloc_large_node": 1, "__kmalloc_node_track_caller": 1,
    "kvmalloc_node": 1, "krealloc": 2, "kmem_cache_alloc": 0, "kmem_cache_alloc_lru": 0,
    "kmem_cache_alloc_node": 0,
    # 6.10 and later: the allocation profiling names
    "__kmalloc_noprof": 1, "__kmalloc_node_noprof": 1, "__kmalloc_cache_noprof": 3,
    "__kmalloc_cache_node_noprof": 4, "kmem_cache_alloc_noprof": 0,
    "kmem_cache_alloc_lru_noprof": 0, "kmem_cache_alloc_node_noprof": 0,
    "__kvmalloc_node_noprof": 1, "krealloc_noprof": 2,
}
CALL = re.compile(r"^\s*([0-9a-f]+):\s+call\s+[0-9a-f]+ <([^>+]+)(?:@plt)?>\s*$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
STOP = re.compile(r"^(j|ret|call|ud2|int3|hlt)")


def main():
    dtsite, binary = sys.argv[1], sys.argv[2]
    funcs = dict(DEFAULT)
    if len(sys.argv) > 3:
        funcs = {f: int(a) for f, a in (x.rsplit(":", 1) for x in sys.argv[3:])}
    od = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", binary],
                          stdout=subprocess.PIPE, text=True, errors="replace")
    sites = []          # (return address, function, size or None)
    recent = []         # the block's instructions so far: (mnemonic, operands)
    pending = None
    for line in od.stdout:
        m = INSN.match(line)
        if not m:
            recent = []
            continue
        addr, mnem, ops = m.groups()
        if pending is not None:
            sites.append((int(addr, 16),) + pending)
            pending = None
        c = CALL.match(line)
        if c and c.group(2).replace("@plt", "") in funcs:
            f = c.group(2).replace("@plt", "")
            arg = funcs[f]
            size = None
            if arg in ARGS:
                for mn, op in reversed(recent):
                    # the last write to the argument's register
                    dst = op.split(",")[-1].strip() if "," in op else ""
                    if dst.lstrip("%") in ARGS[arg]:
                        k = re.match(r"\$0x([0-9a-f]+),", op)
                        if mn.startswith("mov") and k:
                            size = int(k.group(1), 16)
                        break
            pending = (f, size)
        if STOP.match(mnem):
            recent = []
        else:
            recent.append((mnem, ops))
    od.wait()
    if not sites:
        print("calls 0 typed 0 sized 0 exact 0 larger 0 smaller 0 unsized 0")
        return 0
    out = subprocess.run([dtsite, binary], input="".join("%x\n" % s[0] for s in sites),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    typed = sized = exact = larger = smaller = unsized = 0
    for (pc, f, size), line in zip(sites, out):
        w = line.split("\t")
        if len(w) < 4 or w[1] == "-":
            continue
        typed += 1
        tsize = int(w[2])
        if size is None or not tsize:
            unsized += 1
            continue
        sized += 1
        if size == tsize:
            exact += 1
        elif size > tsize:
            larger += 1
        else:
            smaller += 1
            print("smaller: %#x %s(%d) proves %s (%d bytes) by %s" %
                  (pc, f, size, w[1], tsize, w[3]), file=sys.stderr)
    print("calls %d typed %d sized %d exact %d larger %d smaller %d unsized %d" %
          (len(sites), typed, sized, exact, larger, smaller, unsized))
    return 1 if smaller else 0


sys.exit(main())
