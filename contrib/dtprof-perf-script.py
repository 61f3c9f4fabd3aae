# SPDX-License-Identifier: GPL-3.0-or-later
"""Data-type profile for perf builds without --dlfilter (perf < 5.14):

    perf script -s contrib/dtprof-perf-script.py

perf calls process_event() per sample; each sample's binary and
symbol+offset go to a dtresolve process per binary (found on PATH, or in
$DTRESOLVE), and the answers are counted per type and offset, like the
plugin's report.  Link-time addresses come from the ELF symbol table
(symbol address + offset), so a sample in a stripped binary or without a
symbol counts as no_dso; where two local symbols share a name the first
is used.  The plugin is faster and exact: prefer it where perf has
--dlfilter.
"""
import collections
import os
import subprocess
import sys

DTRESOLVE = os.environ.get("DTRESOLVE", "dtresolve")


class Binary:
    """One binary: its symbol table and a dtresolve answering for it."""

    def __init__(self, path, skid):
        self.symbols = {}
        self.proc = None
        self.cache = {}
        try:
            out = subprocess.run(["nm", "--defined-only", path],
                                 capture_output=True, text=True).stdout
        except OSError:
            return
        for line in out.splitlines():
            fields = line.split()
            if len(fields) == 3 and fields[1] in "tTwW":
                self.symbols.setdefault(fields[2], int(fields[0], 16))
        if not self.symbols:
            return
        args = [DTRESOLVE, "-v", "-e", path] + (["--skid"] if skid else [])
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True,
                                     bufsize=1)

    def answer(self, symbol, symoff):
        """(type, offset, field, reason) of symbol+symoff."""
        if self.proc is None or symbol not in self.symbols:
            return ("(unknown)", 0, "", "no_dso")
        addr = self.symbols[symbol] + symoff
        if addr not in self.cache:
            # dtresolve answers each line before it waits for the next
            self.proc.stdin.write("%#x\n" % addr)
            cols = self.proc.stdout.readline().rstrip("\n").split("\t")
            self.cache[addr] = (cols[1], int(cols[2]), cols[3], cols[6])
        return self.cache[addr]


binaries = {}
counts = collections.defaultdict(collections.Counter)   # event -> key -> n
totals = collections.Counter()


def precise(event):
    """Breakpoints and :p events land on the access itself."""
    return event.startswith("mem:") or ":p" in event


def process_event(param_dict):
    event = param_dict.get("ev_name", "samples")
    dso = param_dict.get("dso", "")
    symbol = param_dict.get("symbol")
    symoff = param_dict.get("symoff", 0)
    totals[event] += 1
    if not dso or dso.startswith("[") or symbol is None:
        counts[event][("(unknown)", None, "no_dso")] += 1
        return
    if dso not in binaries:
        binaries[dso] = Binary(dso, not precise(event))
    typ, off, field, reason = binaries[dso].answer(symbol, symoff)
    if reason != "ok":
        counts[event][("(unknown)", None, reason)] += 1
    else:
        counts[event][(typ, off, field)] += 1


def trace_end():
    for event, c in counts.items():
        total = totals[event]
        print("# dtprof (perf script -s): %d samples of '%s'" % (total, event))
        by_type = collections.Counter()
        for (typ, _, _), n in c.items():
            by_type[typ] += n
        for typ, n in by_type.most_common():
            print("%7.2f%% %9d  %s" % (100.0 * n / total, n, typ))
            rows = [(k, v) for k, v in c.items() if k[0] == typ]
            for (t, off, field), m in sorted(rows, key=lambda kv: -kv[1]):
                label = (("%s +%d (%s)" % (t, off, field or "no field"))
                         if off is not None else "%s %s" % (t, field))
                print("%7.2f%% %9d      %s" % (100.0 * m / total, m, label))
        if sum(c.values()) != total:
            print("# ERROR: rows add up to %d of %d" % (sum(c.values()), total))
    for b in binaries.values():
        if b.proc:
            b.proc.stdin.close()
            b.proc.wait()
