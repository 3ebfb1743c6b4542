#!/usr/bin/env python3
"""What the sm90 kernel's tiles wait for, in time, from a trace build's stamps (`make TRACE=1`,
kernels/sm90_trace.h; run with MB_TRACE=FILE on one eager case): the rows-split walker (32- and 64-row
units, both warpgroups on every tile) or the alternate-tile one (16-row units, tile j walked by
warpgroup j % 2). Ncu samples say where warps stall; the stamps say how the two warpgroups move
against each other and against the copies:

  period   a warpgroup's time from one tile's top to the next one's
  drift    how far warpgroup 0 is ahead of warpgroup 1 at a tile's top (negative: behind), in tiles
  offset   (alternate tiles) warpgroup 1's tile top after warpgroup 0's tile before it, in periods
  wait     a warpgroup's wait for the tile's data at its top (0 when it had landed)
  lead     the time from a copy's issue to the first (or only) warpgroup's arrival at that tile
  landing  issue to the data's arrival, from the tiles where some warpgroup waited (the wait ended when
           the copy landed): the copy's latency under this load
  scores   tile top (data there) to P^T stored: score wgmmas and softmax; split, in files with 14
           fields, into  wgmmas  (the data to the score wgmmas summed)  and  softmax  (that to P^T)
  P V      P^T stored to the P V issued; tail: that to the next tile's top (the P V's wait)
  prologue a CTA's first copy issued to its first tile's top (Q's load and cast; a CTA's first unit)
  Q load, Q cast, to top   each unit's start split (files with unit stamps, 12 fields): its start to
           Q in shared memory, to Q cast, to its first tile's top (where Q is cast from global memory
           or loaded as fp8, the load holds it all and the cast reads 0)
  entry    (16 fields) the CTA's start to its first unit's start: the plan's reads
  unit end (16 fields) a unit's last P V issued to its rows stored: the P V's end, row sums, stores;
           split (21 fields) into  drain  (to the later warpgroup's last P V waited for),  sums  (the
           slower warpgroup's row sums),  barrier  (to the CTA barrier where the stores start: at 64
           rows the barrier alone, with alternate tiles the warpgroups' merge too; none at 32 rows)
           and  stores  (to the stores issued and the CTA's last barrier); end skew: warpgroup 1's
           drain after warpgroup 0's
  span     a CTA's first copy issued to its last P V issued (the rest of a call: launch, entry, the
           unit's end, the combine)

The 64-row walker of TMA tiles (sm90_unit_pc.h, sm90_unit_ps.h; one scorer before v119, two since, the
first of which stamps; in units scored on alternate tiles, v123, each tile's own scorer, where "s wait"
means nothing): the lines above are its two multipliers' (scores: their wait for the tile's P; softmax: the
same less the first V^T load; P V: their P V to its end; sums 0 and barrier the wait for the
scorer's row sums at a unit's end), and its scorer's follow (files with 26 fields):
  s period the scorer's time from one tile's P handed over to the next one's
  s wait   its wait for the tile's data (from its previous hand-over)
  s wgmmas its score wgmmas summed;  s softmax  its P made;  s empty  its wait for both multipliers'
           release of the tile two back (its P buffer and stage);  s handoff  P stored and handed over
  P lag    a multiplier's receipt of a tile's P after the scorer handed it over (short: the
           multipliers waited for the scorer; long: the scorer was ahead)

Each line: 10th, 50th and 90th percentile over every tile of every CTA, in µs at the SM clock the file
records (the maximum; clock64 counts real cycles, so under a lower clock the µs read short), or at
--clock-mhz MHZ: the clock inside the kernel, which the GPU lowers under load (thirty-fourth session:
b128-q4 ran at ~1,620 MHz while the file records 1,980; measure it with diag/s34-clock-probe,
results/h200/steps/patches-s34/).
A stamp after a barrier is its release only in builds from the seventeenth session on (sm90_trace.h:
a clock read right after bar.sync took the warp's arrival). Older traces' phases that end at a
barrier (barrier, the multipliers' scores, s empty, P lag) read its arrival, and the wait for the
release landed in the phase after it (P V, s handoff): P lag came out negative.

    scripts/trace-tiles.py trace.bin[.gz] [--clock-mhz MHZ] [--first-unit] [--cta N [--svg OUT.svg]]
        (--first-unit: also the CTAs' first unit and first tiles on the entry's time axis, and in
        files of 29 fields the entry's own steps; --cta: that CTA's first 24 tiles, one a line; --svg:
        drawn as bars, a lane a warpgroup, each bar's time in its tooltip)
    scripts/trace-tiles.py --self-test             (a synthetic trace with known drift and latency)
"""
import gzip
import struct
import sys

import numpy as np

MAGIC = 0x52543953
ISSUE, TOP, READY, SOFTMAX, END = 0, 1, 3, 5, 7
UNIT, Q_LANDED, Q_CAST, SCORED, STORED, ENTRY, DRAINED, SUMMED, SYNCED = 9, 10, 11, 12, 14, 15, 16, 18, 20
PC_READY, PC_SCORED, PC_SOFTMAX, PC_EMPTY, PC_FULL = 21, 22, 23, 24, 25
ENTRY_SYNCED, ENTRY_PARAMS, ENTRY_ROLE = 26, 27, 28
SCORER = ("s period", "s wait", "s wgmmas", "s softmax", "s empty", "s handoff", "P lag")


def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
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


def walked(s):
    """The CTA's complete tiles (0 .. n-1) and, per tile, the warpgroups that walked it: both (the
    rows-split walker) or one, tile j by warpgroup j % 2 (the alternate-tile walker)."""
    fields = lambda w: s[:, [f + w for f in (TOP, READY, SOFTMAX, END)]] > 0
    own = [np.all(fields(w), axis=1) for w in (0, 1)]
    both = own[0] & own[1]
    alternate = np.arange(len(s)) % 2
    if both[:1].all():
        done, wgs = both & (s[:, ISSUE] > 0), [(0, 1)] * len(s)
    else:
        done = np.where(alternate == 0, own[0], own[1]) & ~both & (s[:, ISSUE] > 0)
        wgs = [(w,) for w in alternate]
    n = int(np.argmin(done)) if not done.all() else len(done)   # stamped tiles run from 0
    return n, wgs[:n], 1 if both[:1].all() else 2


def measures(t):
    """Per-tile measures in cycles, each a flat array over every CTA's complete tiles."""
    m = {k: [] for k in ("period", "drift", "offset", "wait", "lead", "landing", "scores", "wgmmas", "softmax",
                         "P V", "tail", "prologue", "entry", "Q load", "Q cast", "to top", "unit end", "drain", "sums",
                         "barrier", "stores", "end skew", "span") + SCORER}
    for c in range(t.shape[0]):
        s = t[c]
        n, wgs, step = walked(s)
        if n < 3:
            continue
        s = s[:n]
        top = lambda j, w: s[j, TOP + w]
        pairs = [(j, w) for j in range(n) for w in wgs[j]]
        period = [top(j + step, w) - top(j, w) for j, w in pairs if j + step < n]
        m["period"] += period
        per = np.median(period)
        if step == 1:   # > 0: warpgroup 0 reached the tile first
            m["drift"] += [(top(j, 1) - top(j, 0)) / per for j in range(n)]
        else:           # 0.5: the warpgroups' tiles evenly interleaved
            m["offset"] += [(top(j + 1, 1) - top(j, 0)) / per for j in range(0, n - 1, 2)]
        field = lambda f: np.array([s[j, f + w] for j, w in pairs], dtype=float)
        wait = field(READY) - field(TOP)
        m["wait"] += list(wait)
        first = np.array([min(top(j, w) for w in wgs[j]) for j in range(n)])
        m["lead"] += list(first - s[:, ISSUE])
        for j in range(n):
            landed = [s[j, READY + w] for w in wgs[j] if s[j, READY + w] - top(j, w) > 200]
            if landed:
                m["landing"].append(min(landed) - s[j, ISSUE])
        m["scores"] += list(field(SOFTMAX) - field(READY))
        if s.shape[1] > SCORED + 1:
            m["wgmmas"] += list(field(SCORED) - field(READY))
            m["softmax"] += list(field(SOFTMAX) - field(SCORED))
        m["P V"] += list(field(END) - field(SOFTMAX))
        m["tail"] += [top(j + step, w) - s[j, END + w] for j, w in pairs if j + step < n]
        start = s[:step, ISSUE].min()
        m["prologue"].append(first[:step].min() - start)
        m["span"].append(max(s[j, END + w] for j, w in pairs[-2:]) - start)
        if s.shape[1] > PC_FULL and (s[:, PC_FULL] > 0).all():   # the three-warpgroup walker's scorer
            full = s[:, PC_FULL]
            m["s period"] += list(np.diff(full))
            m["s wait"] += list(s[1:, PC_READY] - full[:-1])
            m["s wgmmas"] += list(s[:, PC_SCORED] - s[:, PC_READY])
            m["s softmax"] += list(s[:, PC_SOFTMAX] - s[:, PC_SCORED])
            m["s empty"] += list(s[2:, PC_EMPTY] - s[2:, PC_SOFTMAX])
            m["s handoff"] += list(full - s[:, PC_EMPTY])
            m["P lag"] += [s[j, SOFTMAX + w] - full[j] for j in range(n) for w in (0, 1)]
        if s.shape[1] > Q_CAST:
            units = list(np.nonzero(s[:, UNIT] > 0)[0]) + [n]
            whole = n == len(t[c]) or t[c][n, ISSUE] == 0   # no stamped tile past n: the last unit ends at n
            for j, j2 in zip(units, units[1:]):
                m["Q load"].append(s[j, Q_LANDED] - s[j, UNIT])
                m["Q cast"].append(s[j, Q_CAST] - s[j, Q_LANDED])
                m["to top"].append(first[j:j + step].min() - s[j, Q_CAST])
                if s.shape[1] > ENTRY and s[j, STORED] > 0 and (j2 < n or whole):
                    last = max(s[i, END + w] for i in range(j, j2) for w in wgs[i])
                    m["unit end"].append(s[j, STORED] - last)
                    ws = [w for w in (0, 1) if s.shape[1] > SYNCED and s[j, DRAINED + w] > 0]   # both, where both walk the unit
                    if ws and all(s[j, SUMMED + w] > 0 for w in ws):
                        drained = max(s[j, DRAINED + w] for w in ws)
                        summed = max(s[j, SUMMED + w] for w in ws)
                        m["drain"].append(drained - last)
                        m["sums"].append(max(s[j, SUMMED + w] - s[j, DRAINED + w] for w in ws))
                        if s[j, SYNCED] > 0:
                            m["barrier"].append(s[j, SYNCED] - summed)
                        m["stores"].append(s[j, STORED] - (s[j, SYNCED] if s[j, SYNCED] > 0 else summed))
                        if len(ws) == 2:
                            m["end skew"].append(s[j, DRAINED + 1] - s[j, DRAINED])
            if s.shape[1] > ENTRY and s[0, ENTRY] > 0 and s[0, UNIT] > 0:
                m["entry"].append(s[0, UNIT] - s[0, ENTRY])
    return {k: np.array(v, dtype=float) for k, v in m.items()}


def report(t, khz, out=sys.stdout, recorded_khz=None):
    m = measures(t)
    if not len(m["period"]):   # the caller decides whether that ends the run (--first-unit reads on)
        print("trace-tiles: no CTA has three complete tiles (the dims-split walker, for pages of other than a multiple of 64 tokens, stamps none)", file=sys.stderr)
        return None
    us = 1e3 / khz
    walker = "scorers and multipliers" if len(m["s period"]) else "rows split" if len(m["drift"]) else "alternate tiles"
    given = "" if recorded_khz in (None, khz) else f" (given; the file records {recorded_khz / 1e3:.0f})"
    print(f"{len(m['lead'])} tiles of {len(m['span'])} CTAs ({walker}); clock {khz / 1e3:.0f} MHz{given}; p10 / p50 / p90", file=out)
    for k, v in m.items():
        if not len(v):
            if k not in ("Q load", "Q cast", "to top", "wgmmas", "softmax", "drift", "offset", "entry", "unit end",
                         "drain", "sums", "barrier", "stores", "end skew") + SCORER:
                print(f"{k:8s} none", file=out)
            continue
        p = np.percentile(v, [10, 50, 90])
        if k == "drift":
            print(f"{k:8s} {p[0]:8.2f} {p[1]:8.2f} {p[2]:8.2f} tiles   |drift| > 1 tile in {np.mean(np.abs(v) > 1):.0%} of tiles", file=out)
        elif k == "offset":
            print(f"{k:8s} {p[0]:8.2f} {p[1]:8.2f} {p[2]:8.2f} periods (0.5: evenly interleaved)", file=out)
        else:
            print(f"{k:8s} {p[0] * us:8.3f} {p[1] * us:8.3f} {p[2] * us:8.3f} µs   mean {v.mean() * us:.3f}  (n {len(v)})", file=out)
    if len(m["P lag"]) and np.median(m["P lag"]) < 0:
        print("warning: P lag < 0: a multiplier cannot take P before it is handed over, so these stamps took "
              "barriers' arrival (trace builds before 8dd553b): barrier, scores, s empty and P lag read "
              "short, P V and s handoff long", file=out)
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


FIRST_WAVE_TILES = 4


def first_unit(t, khz, out=sys.stdout):
    """The CTAs' start on one time axis: each stamp of a CTA's first unit and first tiles as time since
    the CTA's entry, the median over the CTAs that stamped it. Where the first wave is bound by DRAM
    (the short 64-row shapes, fifty-first session), this shows which copies arrive when, whoever issued
    them. "ready" is warpgroup 0's wait for the tile ended: the copy's landing, or its own arrival if
    later (its top)."""
    us = 1e3 / khz
    rows = [("entry synced", 0, ENTRY_SYNCED), ("regs moved", 0, ENTRY_ROLE), ("params in", 0, ENTRY_PARAMS)]
    rows = [r for r in rows if t.shape[2] > r[2]]   # files with 29 fields (fifty-first session)
    rows += [("unit start", 0, UNIT), ("Q landed", 0, Q_LANDED), ("Q cast", 0, Q_CAST)]
    for j in range(FIRST_WAVE_TILES):
        rows += [(f"tile {j} issued", j, ISSUE), (f"tile {j} top", j, TOP), (f"tile {j} ready", j, READY)]
    rows.append(("unit stored", 0, STORED))
    print("the CTAs' start, µs after each CTA's entry (median over the CTAs that stamped it)", file=out)
    got = {}
    for name, j, f in rows:
        ok = (t[:, 0, ENTRY] > 0) & (t[:, j, f] > 0)
        if ok.any():
            got[name] = float(np.median(t[ok, j, f] - t[ok, 0, ENTRY])) * us
            print(f"{name:14s} {got[name]:8.2f}  (n {int(ok.sum())})", file=out)
    return got


def svg_timeline(t, khz, c, path, tiles=24):
    """CTA c's first tiles as an SVG: a lane a warpgroup, each tile's phases as coloured bars (data
    wait, score wgmmas, softmax, P V issue, the tail until its next tile), and above them each copy
    from its issue to the first warpgroup's arrival at its tile."""
    s, us = t[c], 1e3 / khz
    n, wgs, step = walked(s)
    n = min(n, tiles)
    if n < 1:
        sys.exit(f"trace-tiles: CTA {c} has no complete tile")
    t0 = min(s[0, ISSUE], min(s[0, TOP + w] for w in wgs[0]))
    t1 = max(s[j, END + w] for j in range(n) for w in wgs[j])
    width, left, lane = 1100.0, 70.0, 26
    x = lambda v: left + (v - t0) / max(t1 - t0, 1) * (width - left - 10)
    scored = s.shape[1] > SCORED + 1
    phases = [("wait", TOP, READY, "#d62728"), ("scores" if not scored else "wgmmas", READY, SCORED if scored else SOFTMAX, "#1f77b4")]
    phases += [("softmax", SCORED, SOFTMAX, "#ff7f0e")] if scored else []
    phases += [("P V", SOFTMAX, END, "#2ca02c")]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{4 * lane + 40}" font-family="sans-serif" font-size="11">',
           f'<text x="4" y="14">CTA {c}, tiles 0-{n - 1}: {(t1 - t0) * us:.2f} µs; copies (issue to first arrival), then each warpgroup</text>']
    for j in range(n):
        first = min(s[j, TOP + w] for w in wgs[j])
        y = 22 + (j % 2) * 6
        out.append(f'<line x1="{x(s[j, ISSUE]):.1f}" y1="{y}" x2="{x(first):.1f}" y2="{y}" stroke="#7f7f7f" stroke-width="3"><title>copy {j}: lead {(first - s[j, ISSUE]) * us:.3f} µs</title></line>')
        for w in wgs[j]:
            y = 40 + w * lane
            marks = [(name, s[j, a + w], s[j, b + w], colour) for name, a, b, colour in phases]
            nxt = j + step
            if nxt < n:
                marks.append(("tail", s[j, END + w], s[nxt, TOP + w], "#c7c7c7"))
            for name, a0, b0, colour in marks:
                out.append(f'<rect x="{x(a0):.1f}" y="{y}" width="{max(x(b0) - x(a0), 0.5):.1f}" height="{lane - 6}" fill="{colour}">'
                           f'<title>tile {j}, warpgroup {w}: {name} {(b0 - a0) * us:.3f} µs</title></rect>')
    for w in (0, 1):
        out.append(f'<text x="4" y="{40 + w * lane + 14}">wg {w}</text>')
    legend = [(n_, c_) for n_, _, _, c_ in phases] + [("tail", "#c7c7c7")]
    for i, (name, colour) in enumerate(legend):
        out.append(f'<rect x="{left + 90 * i}" y="{40 + 2 * lane + 8}" width="10" height="10" fill="{colour}"/>'
                   f'<text x="{left + 90 * i + 14}" y="{40 + 2 * lane + 17}">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def self_test():
    """Two warpgroups on every tile, warpgroup 0 a quarter tile ahead; copies take 1500 cycles and are
    issued when the later warpgroup is done with the tile three before; then alternate tiles. The
    measures must find those numbers."""
    rng = np.random.default_rng(1)
    ctas, tiles, period, lat, ahead = 4, 40, 4000, 1500, 1000
    t = np.zeros((8, 64, 21), dtype=np.int64)
    for c in range(ctas):
        clock = 10_000 + 100 * c
        issue = {j: clock - 500 for j in range(3)}
        t[c, 0, UNIT], t[c, 0, Q_LANDED], t[c, 0, Q_CAST] = clock - 900, clock - 400, clock - 250
        t[c, 0, ENTRY] = clock - 1500
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
        t[c, 0, STORED] = t[c, tiles - 1, END:END + 2].max() + 800
        # the end: warpgroup 1 drains 40 later, sums take 100 and 150, the barrier 50, the stores 300
        t[c, 0, DRAINED], t[c, 0, DRAINED + 1] = t[c, 0, STORED] - 650, t[c, 0, STORED] - 610
        t[c, 0, SUMMED], t[c, 0, SUMMED + 1] = t[c, 0, STORED] - 550, t[c, 0, STORED] - 460
        t[c, 0, SYNCED] = t[c, 0, STORED] - 300
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
        ("entry", np.median(m["entry"]), 600, 0),
        ("unit end", np.median(m["unit end"]), 800, 0),
        ("drain", np.median(m["drain"]), 190, 0),
        ("sums", np.median(m["sums"]), 150, 0),
        ("barrier", np.median(m["barrier"]), 160, 0),
        ("stores", np.median(m["stores"]), 300, 0),
        ("end skew", np.median(m["end skew"]), 40, 0),
    ]
    # The alternate-tile walker: tile j walked by warpgroup j % 2 alone, each warpgroup a tile every
    # 5000 cycles, warpgroup 1 starting 2000 after warpgroup 0 (offset 0.4); copies issued when the
    # warpgroup starts its tile before, landing 1200 later, so no wait.
    p = np.zeros((8, 64, 16), dtype=np.int64)
    for c in range(ctas):
        for j in range(tiles):
            w = j % 2
            top = 10_000 + 5000 * (j // 2) + 2000 * w
            p[c, j, ISSUE] = top - 5000 if j >= 2 else 9000
            p[c, j, TOP + w], p[c, j, READY + w] = top, top + 50
            p[c, j, SCORED + w], p[c, j, SOFTMAX + w], p[c, j, END + w] = top + 1000, top + 1700, top + 4600
    q = measures(p)
    checks += [
        ("alternate: period", np.median(q["period"]), 5000, 1),
        ("alternate: offset", np.median(q["offset"]), 0.4, 0.001),
        ("alternate: tail", np.median(q["tail"]), 400, 1),
        ("alternate: no drift", len(q["drift"]), 0, 0),
    ]
    # The three-warpgroup walker: the same multipliers (26 fields), and a scorer that hands each tile's P
    # over 250 cycles before multiplier 0 receives it, after 700 cycles of score wgmmas, 300 of softmax,
    # 300 waiting for the tile two back and 100 storing P.
    u = np.zeros((8, 64, 26), dtype=np.int64)
    u[:, :, :21] = t
    for c in range(ctas):
        for j in range(tiles):
            full = t[c, j, SOFTMAX] - 250
            u[c, j, PC_FULL], u[c, j, PC_EMPTY] = full, full - 100
            u[c, j, PC_SOFTMAX], u[c, j, PC_SCORED], u[c, j, PC_READY] = full - 400, full - 700, full - 1400
    v = measures(u)
    checks += [
        ("scorer: period", np.median(v["s period"]), period, 50),
        ("scorer: wgmmas", np.median(v["s wgmmas"]), 700, 0),
        ("scorer: softmax", np.median(v["s softmax"]), 300, 0),
        ("scorer: empty", np.median(v["s empty"]), 300, 0),
        ("scorer: handoff", np.median(v["s handoff"]), 100, 0),
        ("scorer: P lag", np.min(v["P lag"]), 250, 0),
        ("scorer: none in 21 fields", len(m["s period"]), 0, 0),
    ]
    # Stamps that took a barrier's arrival: the multipliers "receive" P before the scorer hands it over.
    import io
    for lag, warned in ((250, False), (-300, True)):
        w = u.copy()
        w[:, :, PC_FULL] = w[:, :, SOFTMAX] - lag
        text = io.StringIO()
        report(w, 1_980_000, text)
        checks.append((f"scorer: P lag {lag}: warning {'printed' if warned else 'absent'}",
                       int("warning: P lag < 0" in text.getvalue()), int(warned), 0))
    # A given clock: the same cycles read 1980 / 990 = 2x the µs, and the header says so.
    at_max, at_half = io.StringIO(), io.StringIO()
    report(u, 1_980_000, at_max)
    report(u, 990_000, at_half, recorded_khz=1_980_000)
    def period_p50(text):
        line = next(l for l in text.getvalue().splitlines() if l.split()[:1] == ["period"])
        return float(line.split()[2])
    checks.append(("given clock: µs scale by the clocks' ratio", period_p50(at_half) / period_p50(at_max), 2.0, 0.01))
    checks.append(("given clock: named in the header", int("(given; the file records 1980)" in at_half.getvalue()), 1, 0))
    # The first unit on the entry's axis: Q lands 1100 cycles after the entry; tile 3 was issued at the
    # end of warpgroup 1's tile 0 (2900 after its data, which landed 1500 after its issue, 1000 after the
    # entry, at the latest of the CTAs' jittered tops).
    fu = first_unit(t, 1_000_000, io.StringIO())
    # With the entry's steps (29 fields): the setmaxnreg 300 cycles after the entry, the parameters 500.
    e = np.zeros((8, 64, 29), dtype=np.int64)
    e[:, :, :21] = t
    e[:ctas, 0, ENTRY_ROLE], e[:ctas, 0, ENTRY_PARAMS] = t[:ctas, 0, ENTRY] + 300, t[:ctas, 0, ENTRY] + 500
    fe = first_unit(e, 1_000_000, io.StringIO())
    checks += [
        ("first unit: params in", fe["params in"] * 1e3, 500, 0),
        ("first unit: regs moved", fe["regs moved"] * 1e3, 300, 0),
        ("first unit: no entry steps in 21 fields", int("params in" in fu), 0, 0),
        ("first unit: Q landed", fu["Q landed"] * 1e3, 1100, 0),
        ("first unit: tile 0 issued", fu["tile 0 issued"] * 1e3, 1000, 0),
        ("first unit: tile 3 issued", fu["tile 3 issued"] * 1e3, 1500 + ahead + 2900, 20),
        ("first unit: rows", len(fu), 3 + 3 * FIRST_WAVE_TILES + 1, 0),
    ]
    bad = [f"{k}: {got:.3f}, expected {want} ± {tol}" for k, got, want, tol in checks if abs(got - want) > tol]
    # The timeline: 24 tiles, two warpgroups, four phases and a tail each (none after the last tile).
    import os, tempfile, xml.etree.ElementTree as ET
    fd, svg = tempfile.mkstemp(suffix=".svg")
    os.close(fd)
    svg_timeline(t, 1_980_000, 0, svg)
    rects = [e for e in ET.parse(svg).getroot().iter() if e.tag.endswith("rect") and e.find("{*}title") is not None]
    os.unlink(svg)
    if len(rects) != 24 * 2 * 5 - 2:
        bad.append(f"timeline: {len(rects)} bars, expected {24 * 2 * 5 - 2}")
    # A planted fault must show: copies that land later than the next tile's top make every tile wait.
    t2 = t.copy()
    t2[:, :, READY:READY + 2] += 3000
    if np.median(measures(t2)["wait"]) < 2900:
        bad.append("a planted 3000-cycle landing delay did not show as waits")
    for b in bad:
        print("FAIL", b)
    print(f"{len(checks) + 2 - len(bad)} passed, {len(bad)} failed")
    return 1 if bad else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    args, opts = [], {}
    it = iter(argv[1:])
    for a in it:
        if a in ("--cta", "--svg", "--clock-mhz"):
            opts[a] = next(it, None)
        elif a == "--first-unit":
            opts[a] = ""
        else:
            args.append(a)
    if len(args) != 1 or None in opts.values() or ("--svg" in opts and "--cta" not in opts):
        usage = __doc__[__doc__.index("    scripts/trace-tiles.py trace.bin"):]   # the docstring's usage block
        print("\n".join(l.strip() for l in usage.strip().splitlines()), file=sys.stderr)
        return 2
    given_khz = None
    if "--clock-mhz" in opts:
        try:
            mhz = float(opts["--clock-mhz"])
        except ValueError:
            mhz = 0.0
        if not 100 <= mhz <= 10_000:
            print(f"trace-tiles: --clock-mhz: expected a clock in MHz in [100, 10000], got '{opts['--clock-mhz']}'", file=sys.stderr)
            return 2
        given_khz = int(round(mhz * 1000))
    t, recorded = load(args[0])
    khz = given_khz or recorded
    # Units of one or two tiles (b4-q1's) have no period to report, but their start still reads.
    if report(t, khz, recorded_khz=recorded) is None and "--first-unit" not in opts:
        return 1
    if "--first-unit" in opts:
        first_unit(t, khz)
    if "--cta" in opts:
        timeline(t, khz, int(opts["--cta"]))
    if "--svg" in opts:
        svg_timeline(t, khz, int(opts["--cta"]), opts["--svg"])
        print(f"wrote {opts['--svg']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
