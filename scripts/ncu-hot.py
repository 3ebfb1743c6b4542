#!/usr/bin/env python3
"""The SASS instructions that collect the most warp-stall samples, from the per-instruction table that
scripts/device-kernel-iter.sh writes for each probe (src-*.csv, `ncu --page source --csv --print-source
sass`), with each one's three largest stall reasons. A stall is charged to the instruction that waits,
so read the reason against the instruction before it (e.g. long_sb on an instruction that overwrites a
cp.async's address register is the copy not yet taken by the load unit).

    scripts/ncu-hot.py src-32-1-16-8192.csv [count]

With --by-opcode, the stall samples and executed warp instructions summed by opcode instead: where
issue slots go, when a kernel is bound by how many instructions it runs rather than by one stall.

    scripts/ncu-hot.py --by-opcode src-32-4-32-8192.csv [count]

With --phases, the samples and executed warp instructions of a unit's three parts, split where the
code's first and last wgmma sit: before (the plan, Q's load and cast, each tile's top: its waits and
copy issue), the tile span, after (the loop's end, the row sums and stores). Where a short unit's time
goes, when its tile work is not most of it. Where the score wgmmas (QGMMA) all come before the P V's
(HGMMA), the tile span is split too: scores, the softmax between them, P V.

    scripts/ncu-hot.py --phases src-32-4-16-1024.csv

With --loops, each tile loop (the innermost loops that hold a wgmma, found by their backward branches,
as scripts/cubin-ops.py finds them) on its own: its samples, stall reasons and executed opcodes. In the
three-warpgroup kernel each role has its own tile loop, so this is each role's account: how often the
scorer's warp issues, and what it waits on, apart from the multipliers'.

    scripts/ncu-hot.py --loops src-128-4-16-8192.csv
    scripts/ncu-hot.py --self-test        --loops on a synthetic table: two roles' loops and a wait's
                                          retry that jumps back from past an EXIT
"""
import collections
import csv
import sys

from sass_loops import tile_loops


def by_opcode(header, data, count):
    src, samples = header.index("Source"), header.index("Warp Stall Sampling (All Samples)")
    executed = header.index("Instructions Executed")
    stalls, issued = collections.Counter(), collections.Counter()
    for r in data:
        words = [w for w in r[src].split() if not w.startswith("@")]
        if not words:
            continue
        op = words[0].split(".")[0]
        stalls[op] += float(r[samples] or 0)
        issued[op] += float(r[executed] or 0)
    ts, ti = sum(stalls.values()), sum(issued.values())
    print(f"{ts:.0f} samples, {ti:.0f} warp instructions executed")
    print("opcode       samples  executed")
    for op, v in stalls.most_common(count):
        print(f"{op:12s} {100 * v / ts:6.1f}%  {100 * issued[op] / ti:6.1f}%  ({issued[op]:.0f})")


def phases(header, data):
    addr, src = header.index("Address"), header.index("Source")
    samples, executed = header.index("Warp Stall Sampling (All Samples)"), header.index("Instructions Executed")
    base = int(data[0][addr], 16)
    rows = [(int(r[addr], 16) - base, r[src], float(r[samples] or 0), float(r[executed] or 0)) for r in data]
    gmma = [a for a, s, _, e in rows if "GMMA" in s and e > 0]
    qg = [a for a, s, _, e in rows if "QGMMA" in s and e > 0]
    hg = [a for a, s, _, e in rows if "HGMMA" in s and e > 0]
    ts, te = sum(r[2] for r in rows), sum(r[3] for r in rows)
    print(f"{ts:.0f} samples, {te:.0f} warp instructions executed")
    spans = [("before the first wgmma", 0, min(gmma) - 1), ("wgmma span", min(gmma), max(gmma))]
    if qg and hg and max(qg) < min(hg):   # a tile's parts, where its code runs scores, softmax, P V in order
        spans += [("  score wgmmas", min(qg), max(qg)), ("  softmax (between)", max(qg) + 1, min(hg) - 1),
                  ("  P V wgmmas", min(hg), max(hg))]
    for name, lo, hi in spans + [("after the last wgmma", max(gmma) + 1, rows[-1][0])]:
        n = sum(r[2] for r in rows if lo <= r[0] <= hi)
        e = sum(r[3] for r in rows if lo <= r[0] <= hi)
        print(f"{name:24s} {lo:06x}-{hi:06x}  samples {100 * n / ts:5.1f}%  instructions {100 * e / te:5.1f}%")


def loops(header, data):
    addr, src = header.index("Address"), header.index("Source")
    samples, executed = header.index("Warp Stall Sampling (All Samples)"), header.index("Instructions Executed")
    reasons = [i for i, h in enumerate(header) if h.startswith("stall_") and "Not Issued" not in h]
    base = int(data[0][addr], 16)
    rows = [(int(r[addr], 16) - base, r[src].strip(), r) for r in data]
    words = [[w.rstrip(";") for w in s.split() if not w.startswith("@") and w != ";"] for _, s, _ in rows]
    ops = [w[0].split(".")[0] if w else "" for w in words]
    index = {a: i for i, (a, _, _) in enumerate(rows)}
    targets = {i: index[int(w[-1], 16) - base] for i, w in enumerate(words)
               if ops[i] == "BRA" and w[-1].startswith("0x") and int(w[-1], 16) - base in index}
    inner = [(rows[a][0], rows[b][0]) for a, b in tile_loops(ops, targets)]   # scripts/sass_loops.py
    total = sum(float(r[samples] or 0) for _, _, r in rows)
    print(f"{total:.0f} samples; {len(inner)} tile loop(s)")
    for lo, hi in inner:
        part = [(s, r) for a, s, r in rows if lo <= a <= hi]
        n = sum(float(r[samples] or 0) for _, r in part)
        e = sum(float(r[executed] or 0) for _, r in part)
        print(f"loop {lo:06x}-{hi:06x}: {len(part)} instructions, samples {n:.0f} ({100 * n / total:.1f}%), "
              f"{e:.0f} warp instructions executed")
        why = collections.Counter()
        ops = collections.Counter()
        for s, r in part:
            for i in reasons:
                why[header[i][6:]] += float(r[i] or 0)
            words = [w for w in s.split() if not w.startswith("@")]
            if words:
                ops[words[0].split(".")[0]] += float(r[executed] or 0)
        print("  stalls: " + ", ".join(f"{k} {100 * v / n:.1f}%" for k, v in why.most_common(8) if n))
        print("  executed: " + ", ".join(f"{k} {100 * v / e:.1f}%" for k, v in ops.most_common(10) if e))


def self_test():
    """Two tile loops (0x10-0x40 with a wgmma, 0x60-0x90 with another) and an out-of-line retry at 0xb0
    (past the EXIT at 0xa0) that branches back to 0x70: --loops must find exactly the two loops, with
    each one's own samples and stall reasons."""
    import contextlib
    import io
    header = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed", "stall_wait",
              "stall_selected", "stall_wait (Not Issued)"]
    code = [(0x00, "MOV R1, R2 ;", 0, 0, 0), (0x10, "FADD R3, R3, R4 ;", 10, 100, 1),
            (0x20, "QGMMA.64x64x32 R4, gdesc[UR8] ;", 30, 100, 0), (0x30, "FADD R3, R3, R5 ;", 20, 100, 1),
            (0x40, "@P0 BRA 0x1010 ;", 0, 100, 0), (0x50, "BAR.SYNC 0x1 ;", 5, 10, 0),
            (0x60, "F2FP.F16.E4M3.UNPACK_B R6, R7 ;", 40, 200, 0), (0x70, "HGMMA.64x64x16.F32 R8, R6 ;", 8, 100, 0),
            (0x80, "LDSM.16.MT88.2 R7, [R9] ;", 2, 100, 0), (0x90, "@P1 BRA 0x1060 ;", 0, 100, 0),
            (0xa0, "EXIT ;", 0, 1, 0), (0xb0, "BRA 0x1070 ;", 0, 1, 0)]
    data = [[f"0x{0x1000 + a:x}", f"      {src}", str(n), str(e), str(w), str(n - w), "0"] for a, src, n, e, w in code]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        loops(header, data)
    text = out.getvalue()
    want = ["2 tile loop(s)", "loop 000010-000040: 4 instructions, samples 60", "loop 000060-000090: 4 instructions, samples 50",
            "wait 3.3%", "F2FP 40.0%"]
    missing = [w for w in want if w not in text]
    if missing or "000070-0000b0" in text:
        print(text)
        sys.exit(f"ncu-hot self-test: FAIL (missing {missing})")
    print("ncu-hot self-test: ok (two tile loops found, the retry past the EXIT not taken for one)")


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    mode = args[0] if args[:1] in (["--by-opcode"], ["--phases"], ["--loops"]) else None
    args = args[1:] if mode else args
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    rows = list(csv.reader(open(args[0], newline="")))
    header, data = rows[1], rows[2:]
    if mode == "--by-opcode":
        return by_opcode(header, data, int(args[1]) if len(args) == 2 else 20)
    if mode == "--phases":
        return phases(header, data)
    if mode == "--loops":
        return loops(header, data)
    addr, src = header.index("Address"), header.index("Source")
    samples = header.index("Warp Stall Sampling (All Samples)")
    reasons = [i for i, h in enumerate(header) if h.startswith("stall_") and "Not Issued" not in h]
    total = sum(float(r[samples] or 0) for r in data)
    base = int(data[0][addr], 16)
    print(f"{total:.0f} samples; offset from the kernel's first instruction")
    count = int(args[1]) if len(args) == 2 else 30
    for r in sorted(data, key=lambda r: -float(r[samples] or 0))[:count]:
        top = sorted(((float(r[i] or 0), header[i][6:]) for i in reasons), reverse=True)[:3]
        print(f"{int(r[addr], 16) - base:06x} {100 * float(r[samples]) / total:5.1f}%  {r[src].strip()[:58]:58s} "
              + " ".join(f"{n}={v:.0f}" for v, n in top))


if __name__ == "__main__":
    main()
