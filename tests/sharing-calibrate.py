#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Calibrate the sharing verdicts on samples whose truth is known.

Two threads of one process touch one object (one writes, one reads), in
visits: a visit lasts about D seconds, the next comes about G later
(exponential, or all along, or in turns).  A cpu-clock sample lands on
the object at RATE a second while a thread is there.  The truth is the
visits: how long the threads were there within the 10 ms window of
each other.  dtresolve's verdict for each trial is scored against it:

  refuted while they were within a window of each other for 5% of
  either one's time there (shared): wrong
  confirmed while they never came within a window (apart): wrong

Each trial is a type of its own (struct t<i>) in a generated binary, so
one dtresolve run grades 300 trials; each round draws them anew from a
fixed seed, so a run prints the same table for the same dtresolve.
usage: sharing-calibrate.py DTRESOLVE WORKDIR [ROUNDS]   (3 by default)
(make accuracy-sharing; tests/t3014)"""
import collections, os, random, re, subprocess, sys, zlib

N = 300
WINDOW = 0.010


def build(work):
    src, exe = os.path.join(work, "cal.c"), os.path.join(work, "cal")
    with open(src, "w") as f:
        for i in range(N):
            f.write("struct t%d { long a, b; };\n" % i)
            f.write("__attribute__((noinline)) void w%d(struct t%d *s) { s->a = 1; }\n" % (i, i))
            f.write("__attribute__((noinline)) long r%d(struct t%d *s) { return s->b; }\n" % (i, i))
        f.write("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-O2", "-g", "-o", exe, src], check=True)
    pcs = {}
    for line in subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout.split("\n"):
        p = line.split()
        if len(p) == 3 and re.fullmatch(r"[wr]\d+", p[2]):
            pcs[p[2]] = int(p[0], 16)
    return exe, pcs


def visits(rng, d, g, t0, t1):
    """[(start, end)] of one thread's visits in [t0, t1)."""
    out, t = [], t0 + rng.expovariate(1 / g) if g else t0
    while t < t1:
        end = min(t + (rng.expovariate(1 / d) if d else t1), t1)
        out.append((t, end))
        t = end + (rng.expovariate(1 / g) if g else t1)
    return out


def samples(rng, vs, rate):
    out = []
    for a, b in vs:
        t = a
        while True:
            t += rng.expovariate(rate)
            if t >= b:
                break
            out.append(t)
    return out


def truth(va, vb):
    """How two threads' visits met: shared when one thread's came within
    WINDOW of the other's for 5% of its time there or more (the share a
    confirmation takes), apart when never, brief between."""
    near = [0.0, 0.0]
    for a0, a1 in va:
        for b0, b1 in vb:
            near[0] += max(0.0, min(a1, b1 + WINDOW) - max(a0, b0 - WINDOW))
            near[1] += max(0.0, min(b1, a1 + WINDOW) - max(b0, a0 - WINDOW))
    if not near[0] and not near[1]:
        return "apart"
    time = [sum(b - a for a, b in v) or 1e-9 for v in (va, vb)]
    return "shared" if max(near[0] / time[0], near[1] / time[1]) >= 0.05 else "brief"


SCENARIOS = [
    # name, T, rate while there, writer (D, G), reader (D, G) or "turns"
    ("all along, 1 sample/s", 10, 1, (0, 0), (0, 0)),
    ("all along, 5 samples/s", 5, 5, (0, 0), (0, 0)),
    ("all along, 50 samples/s", 2, 50, (0, 0), (0, 0)),
    ("short visits (lock), 1 ms every 50 ms", 5, 400, (0.001, 0.05), (0.001, 0.05)),
    ("bursts, 2 ms every 300 ms", 5, 1000, (0.002, 0.3), (0.002, 0.3)),
    ("batches, 50 ms every 500 ms", 5, 100, (0.05, 0.5), (0.05, 0.5)),
    ("batches, 200 ms every 1 s", 10, 20, (0.2, 1.0), (0.2, 1.0)),
    ("turns: one, 50 ms apart, the other", 4, 50, "turns", 0.05),
    ("turns, sparse: 5 samples/s", 10, 5, "turns", 0.05),
    ("ping-pong: 100 ms each, 20 ms apart", 4, 200, "pingpong", (0.1, 0.02)),
    ("set up in 20 ms, then used by the other", 5, 200, "setup", 0.02),
]


def trial(rng, sc):
    name, T, rate, w, r = sc
    if w == "turns":
        vw, vr = [(0, T / 2 - r / 2)], [(T / 2 + r / 2, T)]
    elif w == "setup":
        vw, vr = [(0, r)], visits(rng, 0.05, 0.2, r + 0.05, T)
    elif w == "pingpong":
        seg, gap = r
        vw, vr, t, who = [], [], 0.0, 0
        while t < T:
            (vw if who == 0 else vr).append((t, min(t + seg, T)))
            t += seg + gap
            who ^= 1
    else:
        vw, vr = visits(rng, *w, 0, T), visits(rng, *r, 0, T)
    return samples(rng, vw, rate), samples(rng, vr, rate), truth(vw, vr)


def grade(dtr, work, exe, pcs, sc, seed):
    rng = random.Random(seed)
    ev, truths = [], []
    for i in range(N):
        w, r, t = trial(rng, sc)
        truths.append(t)
        base = 0x7ffd00000000 + i * 0x1000
        ev += [(t, 11, base, pcs["w%d" % i], "w%d" % i) for t in w]
        ev += [(t, 12, base + 8, pcs["r%d" % i], "r%d" % i) for t in r]
    ev.sort()
    txt = os.path.join(work, "cal.txt")
    with open(txt, "w") as f:
        for t, tid, a, pc, fn in ev:
            f.write("cal 1/%d %d.%09d: %16x %16x %s+0x0 (%s)\n" %
                    (tid, 1 + int(t), int(t % 1 * 1e9), a, 0x555555554000 + pc, fn, exe))
    out = subprocess.run([dtr, "--skid=off", "--aggregate=sharing", txt],
                         capture_output=True, text=True, check=True).stdout
    got = {}
    for m in re.finditer(r"^struct t(\d+), cache line 0 [^:]*: \d+ samples?, (\d+) threads?(?:: (.*))?$", out, re.M):
        v = (m.group(3) or "").split(", ")[-1].split(" (")[0]
        got[int(m.group(1))] = v if m.group(2) == "2" else "one thread"
    c = collections.Counter()
    for i in range(N):
        v = got.get(i, "no samples")
        c[(truths[i], v)] += 1
    return c


def main():
    dtr, work = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    os.makedirs(work, exist_ok=True)
    exe, pcs = build(work)
    print("| scenario | trials | shared | apart | confirmed | suspected | refuted | wrong |")
    print("|---|---|---|---|---|---|---|---|")
    for sc in SCENARIOS:
        c = collections.Counter()
        for k in range(rounds):
            c += grade(dtr, work, exe, pcs, sc, zlib.crc32(sc[0].encode()) + 7919 * k)
        by_truth, by_verdict = collections.Counter(), collections.Counter()
        for (t, v), k in c.items():
            by_truth[t] += k
            by_verdict[v] += k
        wrong = c[("shared", "refuted")] + c[("apart", "confirmed")]
        print("| %s | %d | %d | %d | %d | %d | %d | %d |" %
              (sc[0], sum(c.values()), by_truth["shared"], by_truth["apart"],
               by_verdict["confirmed"], by_verdict["suspected"], by_verdict["refuted"], wrong))


if __name__ == "__main__":
    main()
