#!/usr/bin/env python3
"""Per-tile phases of the 64-row walker's alternate scorer (units of >= 16 tiles) from a trace file
(kernels/sm90_trace.h), in cycles (clock64): READY (data waited for) to SCORED (score steps summed),
to SOFTMAX (P made), EMPTY (P buffer free), FULL (P handed over), and with v134e's diagnostic fields
(28-field files) HALF0 (half 0 summed) and SOFT0 (half 0's P made, before the EMPTY wait), or with
diag/s43-softmax-stamps' (29-field files) REFIN (the other scorer's references in hand), MAXED (the
tile's maxima and references) and PUB (references, rescale and vote published). Medians
over every stamped tile of every CTA, tiles 2.. of each scorer (past the first two)."""
import struct, sys
import numpy as np
READY, SCORED, SOFTMAX, EMPTY, FULL, HALF0, SOFT0 = 21, 22, 23, 24, 25, 26, 27
REFIN, MAXED, PUB = 26, 27, 28
for path in sys.argv[1:]:
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
    print(f"{path}: {len(rows)} tiles (clock64 cycles; median / p10 / p90)")
    for k in rows[0]:
        v = np.array([r[k] for r in rows])
        print(f"  {k:18s} {np.median(v):8.0f} {np.percentile(v, 10):8.0f} {np.percentile(v, 90):8.0f}")
