#!/usr/bin/env python3
"""Per-tile phases of the 64-row walker's alternate scorer (units of >= 16 tiles) from a trace file
(kernels/sm90_trace.h), in cycles (clock64): READY (data waited for) to SCORED (score steps summed),
to SOFTMAX (P made), EMPTY (P buffer free), FULL (P handed over), and with v134e's diagnostic fields
(28-field files) HALF0 (half 0 summed) and SOFT0 (half 0's P made, before the EMPTY wait), or with
diag/s43-softmax-stamps' (29-field files) REFIN (the other scorer's references in hand), MAXED (the
tile's maxima and references) and PUB (references, rescale and vote published). Medians
over every stamped tile of every CTA, tiles 2.. of each scorer (past the first two).

    scripts/alt-phases.py TRACE.bin ...     (trace builds: scripts/device-trace.sh with ALT=1)
    scripts/alt-phases.py --self-test       a synthetic trace whose phases are known

(Written in the forty-third session as results/h200/steps/s43-v134e/alt-phases.py, which the device
calls of sessions 43-45 ran.)"""
import struct, sys
import numpy as np
READY, SCORED, SOFTMAX, EMPTY, FULL, HALF0, SOFT0 = 21, 22, 23, 24, 25, 26, 27
REFIN, MAXED, PUB = 26, 27, 28


def phases(path):
    """The median / p10 / p90 of each phase, by name, and the tiles read."""
    raw = open(path, "rb").read()
    magic, ctas, tiles, fields, khz = struct.unpack("<5I", raw[:20])
    s = np.frombuffer(raw[20:], dtype="<u8").reshape(ctas, tiles, fields).astype(np.int64)
    rows = []
    for c in range(ctas):
        t = s[c]
        ok = np.where((t[:, READY] > 0) & (t[:, FULL] > 0))[0]
        for i in ok:
            if i < 2 or i + 2 >= tiles or t[i + 2, READY] == 0:
                continue
            r = {"own period": t[i + 2, READY] - t[i, READY]}
            if fields == 29:
                r.update({"score steps": t[i, SCORED] - t[i, READY], "REF in": t[i, REFIN] - t[i, SCORED],
                          "maxima": t[i, MAXED] - t[i, REFIN], "publish": t[i, PUB] - t[i, MAXED],
                          "exps": t[i, SOFTMAX] - t[i, PUB], "EMPTY wait": t[i, EMPTY] - t[i, SOFTMAX],
                          "hand-over": t[i, FULL] - t[i, EMPTY]})
            elif fields == 28 and t[i, HALF0] > 0:
                r.update({"half 0 steps": t[i, HALF0] - t[i, READY], "softmax 0": t[i, SOFT0] - t[i, HALF0],
                          "EMPTY wait": t[i, EMPTY] - t[i, SOFT0], "P0 + half 1 steps": t[i, SCORED] - t[i, EMPTY],
                          "softmax 1": t[i, SOFTMAX] - t[i, SCORED], "hand-over": t[i, FULL] - t[i, SOFTMAX]})
            else:
                r.update({"score steps": t[i, SCORED] - t[i, READY], "softmax": t[i, SOFTMAX] - t[i, SCORED],
                          "EMPTY wait": t[i, EMPTY] - t[i, SOFTMAX], "hand-over": t[i, FULL] - t[i, EMPTY]})
            r["READY to FULL"] = t[i, FULL] - t[i, READY]
            r["wait for data"] = t[i, READY] - t[i - 2, FULL]
            rows.append(r)
    if not rows:
        sys.exit(f"alt-phases: {path}: no alternate scorer's tile with both neighbours stamped (a units of "
                 f"16 tiles or more, in a trace build?)")
    return {k: [np.median(v), np.percentile(v, 10), np.percentile(v, 90)]
            for k, v in ((k, np.array([r[k] for r in rows])) for k in rows[0])}, len(rows)


def self_test():
    """One CTA of 12 tiles, 26 fields: tile i ready at 3000 i + 100, then 1500 of steps, 700 of softmax,
    100 of EMPTY wait and 200 of hand-over; so a period of 6000 and a wait for data of 3500."""
    import os, tempfile
    ctas, tiles, fields = 1, 12, 26
    t = np.zeros((ctas, tiles, fields), dtype="<u8")
    for i in range(tiles):
        r = 3000 * i + 100
        t[0, i, [READY, SCORED, SOFTMAX, EMPTY, FULL]] = [r, r + 1500, r + 2200, r + 2300, r + 2500]
    fd, path = tempfile.mkstemp(suffix=".bin")
    with os.fdopen(fd, "wb") as f:
        f.write(struct.pack("<5I", 0, ctas, tiles, fields, 1000000) + t.tobytes())
    got, n = phases(path)
    os.unlink(path)
    want = {"own period": 6000, "score steps": 1500, "softmax": 700, "EMPTY wait": 100, "hand-over": 200,
            "READY to FULL": 2500, "wait for data": 3500}
    bad = [k for k in want if got[k][0] != want[k]]
    print(f"alt-phases self-test: {n} tiles, " + ("ok" if not bad and n == tiles - 4 else f"wrong: {bad}, {n} tiles"))
    return 1 if bad or n != tiles - 4 else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if not sys.argv[1:]:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        got, n = phases(path)
        print(f"{path}: {n} tiles (clock64 cycles; median / p10 / p90)")
        for k, (med, p10, p90) in got.items():
            print(f"  {k:18s} {med:8.0f} {p10:8.0f} {p90:8.0f}")
