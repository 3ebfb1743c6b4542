#!/usr/bin/env python3
"""DIAG (diag/s30-entry-stamps only): a trace file's CTA entry split into its phases, medians over the
CTAs in µs at the trace's clock: start -> past the CTA barrier -> the scales' multiplier ready -> the
first unit in registers -> the unit's start (S9T_UNIT of the CTA's first tile).
  python3 scripts/entry-split.py TRACE.bin"""
import statistics, struct, sys
raw = open(sys.argv[1], 'rb').read()
magic, ctas, tiles, fields, khz = struct.unpack_from('<5I', raw)
assert magic == 0x52543953, 'not a trace file'
ENTRY, UNIT = 15, 9
def at(c, t, f):
    return struct.unpack_from('<Q', raw, 20 + 8 * ((c * tiles + t) * fields + f))[0]
names = ['barrier', 'scales', 'unit read', 'to unit start']
spans = [[] for _ in names]
for c in range(ctas):
    pts = [at(c, 0, ENTRY), at(c, 1, ENTRY), at(c, 2, ENTRY), at(c, 3, ENTRY), at(c, 0, UNIT)]
    if min(pts) <= 1:
        continue
    for i in range(4):
        spans[i].append((pts[i + 1] - pts[i]) / (khz / 1000.0))
for n, v in zip(names, spans):
    if v:
        print('%-14s %7.3f µs median (p10 %.3f, p90 %.3f, n %d)' % (n, statistics.median(v), sorted(v)[len(v) // 10], sorted(v)[9 * len(v) // 10], len(v)))
