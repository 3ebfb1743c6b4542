#!/usr/bin/env python3
"""What the rows-split walker's tiles wait for, in time, from a trace build's stamps (`make TRACE=1`,
kernels/sm90_trace.h; run with MB_TRACE=FILE on one eager case). Ncu samples say where warps stall; the
stamps say how the two warpgroups move against each other and against the copies:

  period   a warpgroup's time from one tile's top to the next one's
  drift    how far warpgroup 0 is ahead of warpgroup 1 at a tile's top (negative: behind), in tiles
  wait     a warpgroup's wait for the tile's data at its top (0 when it had landed)
  lead     the time from a copy's issue to the first warpgroup's arrival at that tile
  landing  issue to the data's arrival, from the tiles where some warpgroup waited (the wait ended when
           the copy landed): the copy's latency under this load
  scores   tile top (data there) to P^T stored: score wgmmas and softmax; split, in files with 14
           fields, into  wgmmas  (the data to the score wgmmas summed)  and  softmax  (that to P^T)
  P V      P^T stored to the P V issued; tail: that to the next tile's top (the P V's wait)
  prologue a CTA's first copy issued to its first tile's top (Q's load and cast; a CTA's first unit)
  Q load, Q cast, to top   each unit's start split (files with unit stamps, 12 fields): its start to
           Q in shared memory, to Q cast, to its first tile's top (where Q is cast from global memory
           or loaded as fp8, the load holds it all and the cast reads 0)
  span     a CTA's first copy issued to its last P V issued (the rest of a call: launch, the plan's
           reads, the stores after the last tile, the combine)

Each line: 10th, 50th and 90th percentile over every tile of every CTA, in µs at the SM clock the file
records (the maximum; clock64 counts real cycles, so under a lower clock the µs read long).

    scripts/trace-tiles.py trace.bin [--cta N]     (--cta: also that CTA's first 24 tiles, one a line)
    scripts/trace-tiles.py --self-test             (a synthetic trace with known drift and latency)
"""
import struct
import sys

import numpy as np

MAGIC = 0x52543953
ISSUE, TOP, READY, SOFTMAX, END = 0, 1, 3, 5, 7
UNIT, Q_LANDED, Q_CAST, SCORED = 9, 10, 11, 12


def load(path):
    with open(path, "rb") as f:
        head = f.read(20)
        if len(head) != 20:
            sys.exit(f"trace-tiles: {path}: shorter than its header")
        magic, ctas, tiles, fields, khz = struct.unpack("<5I", head)
        if magic != MAGIC:
            sys.exit(f"trace-tiles: {path}: not a trace (magic {magic:#x}, expected {MAGIC:#x})")
        body = np.frombuffer(f.read(), dtype="<u8")
    if body.size != ctas * tiles * fields:
        sys.exit(f"trace-tiles: {path}: {body.size} stamps, expected {ctas} x {tiles} x {fields}")
    return body.reshape(ctas, tiles, fields).astype(np.int64), khz


def measures(t):
    """Per-tile measures in cycles, each a flat array over every CTA's complete tiles."""
    m = {k: [] for k in ("period", "drift", "wait", "lead", "landing", "scores", "P V", "tail", "prologue", "span",
                         "Q load", "Q cast", "to top", "wgmmas", "softmax")}
    for c in range(t.shape[0]):
        s = t[c]
        done = np.all(s[:, TOP:END + 2] > 0, axis=1) & (s[:, ISSUE] > 0)
        n = int(np.argmin(done)) if not done.all() else len(done)   # stamped tiles run from 0
        if n < 3:
            continue
        s = s[:n]
        top = s[:, TOP:TOP + 2]
        period = np.diff(top, axis=0)
        m["period"] += list(period.ravel())
        per = np.median(period)
        m["drift"] += list((top[:, 1] - top[:, 0]) / per)   # > 0: warpgroup 0 reached the tile first
        wait = s[:, READY:READY + 2] - top
        m["wait"] += list(wait.ravel())
        m["lead"] += list(top.min(axis=1) - s[:, ISSUE])
        waited = wait > 200
        land = np.where(waited, s[:, READY:READY + 2], np.iinfo(np.int64).max).min(axis=1)
        some = waited.any(axis=1)
        m["landing"] += list(land[some] - s[some, ISSUE])
        m["scores"] += list((s[:, SOFTMAX:SOFTMAX + 2] - s[:, READY:READY + 2]).ravel())
        m["P V"] += list((s[:, END:END + 2] - s[:, SOFTMAX:SOFTMAX + 2]).ravel())
        m["tail"] += list((top[1:] - s[:-1, END:END + 2]).ravel())
        m["prologue"].append(top[0].min() - s[0, ISSUE])
        m["span"].append(s[-1, END:END + 2].max() - s[0, ISSUE])
        if s.shape[1] > SCORED + 1:
            m["wgmmas"] += list((s[:, SCORED:SCORED + 2] - s[:, READY:READY + 2]).ravel())
            m["softmax"] += list((s[:, SOFTMAX:SOFTMAX + 2] - s[:, SCORED:SCORED + 2]).ravel())
        if s.shape[1] > Q_CAST:
            units = s[:, UNIT] > 0
            m["Q load"] += list(s[units, Q_LANDED] - s[units, UNIT])
            m["Q cast"] += list(s[units, Q_CAST] - s[units, Q_LANDED])
            m["to top"] += list(top[units].min(axis=1) - s[units, Q_CAST])
    return {k: np.array(v, dtype=float) for k, v in m.items()}


def report(t, khz, out=sys.stdout):
    m = measures(t)
    if not len(m["period"]):
        sys.exit("trace-tiles: no CTA has three complete tiles (was the case a rows-split one, 32 or 64 rows, with TMA tiles?)")
    us = 1e3 / khz
    print(f"{len(m['wait']) // 2} tiles of {len(m['span'])} CTAs; clock {khz / 1e3:.0f} MHz; p10 / p50 / p90", file=out)
    for k, v in m.items():
        if not len(v):
            if k not in ("Q load", "Q cast", "to top", "wgmmas", "softmax"):   # older files have none
                print(f"{k:8s} none", file=out)
            continue
        p = np.percentile(v, [10, 50, 90])
        if k == "drift":
            print(f"{k:8s} {p[0]:8.2f} {p[1]:8.2f} {p[2]:8.2f} tiles   |drift| > 1 tile in {np.mean(np.abs(v) > 1):.0%} of tiles", file=out)
        else:
            print(f"{k:8s} {p[0] * us:8.3f} {p[1] * us:8.3f} {p[2] * us:8.3f} µs   mean {v.mean() * us:.3f}  (n {len(v)})", file=out)
    return m


def timeline(t, khz, c):
    s, us = t[c], 1e3 / khz
    t0 = s[s > 0].min() if (s > 0).any() else 0
    print(f"CTA {c}, µs from its first stamp: issue | top0 ready0 softmax0 end0 | top1 ready1 softmax1 end1")
    for j in range(min(24, s.shape[0])):
        if not s[j].any():
            break
        f = [(x - t0) * us if x else float("nan") for x in s[j]]
        print(f"{j:3d} {f[0]:7.2f} | " + " ".join(f"{f[k]:7.2f}" for k in (1, 3, 5, 7)) + " | " +
              " ".join(f"{f[k]:7.2f}" for k in (2, 4, 6, 8)))


def self_test():
    """Two warpgroups, warpgroup 0 a quarter tile ahead; copies take 1500 cycles and are issued when
    the later warpgroup is done with the tile three before; the measures must find those numbers."""
    rng = np.random.default_rng(1)
    ctas, tiles, period, lat, ahead = 4, 40, 4000, 1500, 1000
    t = np.zeros((8, 64, 14), dtype=np.int64)
    for c in range(ctas):
        clock = 10_000 + 100 * c
        issue = {j: clock - 500 for j in range(3)}
        t[c, 0, UNIT], t[c, 0, Q_LANDED], t[c, 0, Q_CAST] = clock - 900, clock - 400, clock - 250
        for j in range(tiles):
            land = issue[j] + lat
            t[c, j, ISSUE] = issue[j]
            for w in range(2):
                top = clock + (0 if w == 0 else ahead) + int(rng.integers(0, 20))
                ready = max(top, land)
                t[c, j, TOP + w], t[c, j, READY + w] = top, ready
                t[c, j, SOFTMAX + w], t[c, j, END + w] = ready + 1800, ready + 2900
                t[c, j, SCORED + w] = ready + 1100
            issue[j + 3] = t[c, j, END + 1]          # the later warpgroup's end frees the stage
            clock = max(clock + period, land)
    m = measures(t)
    checks = [
        ("period", np.median(m["period"]), period, 50),
        ("drift", np.median(m["drift"]), ahead / period, 0.02),
        ("landing", np.median(m["landing"]), lat, 30),
        ("scores", np.median(m["scores"]), 1800, 1),
        ("prologue", np.median(m["prologue"]), 500, 20),
        ("Q load", np.median(m["Q load"]), 500, 1),
        ("softmax", np.median(m["softmax"]), 700, 1),
        ("to top", np.median(m["to top"]), 250, 20),
    ]
    bad = [f"{k}: {got:.3f}, expected {want} ± {tol}" for k, got, want, tol in checks if abs(got - want) > tol]
    # A planted fault must show: copies that land later than the next tile's top make every tile wait.
    t2 = t.copy()
    t2[:, :, READY:READY + 2] += 3000
    if np.median(measures(t2)["wait"]) < 2900:
        bad.append("a planted 3000-cycle landing delay did not show as waits")
    for b in bad:
        print("FAIL", b)
    print(f"{len(checks) + 1 - len(bad)} passed, {len(bad)} failed")
    return 1 if bad else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--cta"):
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    t, khz = load(argv[1])
    report(t, khz)
    if len(argv) == 4:
        timeline(t, khz, int(argv[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
