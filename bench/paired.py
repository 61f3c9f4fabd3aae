#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""paired.py ROUNDS NAME=COMMAND...: CPU of commands side by side.

Runs each command once a round, in turn, ROUNDS times, and prints for
each its median CPU (user + system of it and its children, from rusage)
and wall time, and its CPU as a ratio to the first command's of the same
round: the median, the interquartile range, and the ratio of the fastest
runs.  On a shared machine the load changes between rounds, so a ratio
taken within one round moves less than the times do.  For two builds of
the plugin, say:

  bench/paired.py 11 "null=perf script -i P --dlfilter build/bench/null-dlfilter.so" \\
      "old=perf script -i P --dlfilter old.so" "new=perf script -i P --dlfilter new.so"

(two builds of one engine share a cache directory: each keeps its own
answers file).  The commands' output is discarded.
"""
import os
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit() or \
            not all('=' in a for a in sys.argv[2:]):
        sys.exit(__doc__.split('\n\n')[0])
    rounds = int(sys.argv[1])
    cmds = [a.split('=', 1) for a in sys.argv[2:]]
    cpu = {n: [] for n, _ in cmds}
    wall = {n: [] for n, _ in cmds}
    for _ in range(rounds):
        for name, cmd in cmds:
            t0 = time.monotonic()
            p = subprocess.Popen(cmd, shell=True, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            wall[name].append(time.monotonic() - t0)
            cpu[name].append(ru.ru_utime + ru.ru_stime)
            if status:
                sys.exit(f"paired.py: {name} failed ({status:#x}): {cmd}")
    base = cmds[0][0]
    for name, _ in cmds:
        r = sorted(c / b for c, b in zip(cpu[name], cpu[base]))
        q = len(r) // 4
        print(f"{name:12s} CPU {statistics.median(cpu[name]):7.3f} s  "
              f"wall {statistics.median(wall[name]):7.3f} s  "
              f"/ {base}: {statistics.median(r):.3f} "
              f"(iqr {r[q]:.3f}-{r[-1 - q]:.3f}; fastest {min(cpu[name]) / min(cpu[base]):.3f})")


main()
