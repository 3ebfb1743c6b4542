#!/usr/bin/env python3
"""Summary of check-margin.py's lines (one a case): how many cases pass the 5e-3 worst-row gate, and the
distribution of their worst-row relative L2 errors (min, median, max), with the worst five named."""
import re, statistics, sys
rows = []
for line in open(sys.argv[1]):
    m = re.match(r"(\S+)\s+row_rel_l2 (\S+) rel_l2 (\S+) outside (\d+) nonfinite (\d+)", line)
    if m:
        v = float("inf") if m.group(2) == "NaN" else float(m.group(2))
        rows.append((v, m.group(1), float("inf") if m.group(3) == "NaN" else float(m.group(3)), int(m.group(4))))
if not rows:
    sys.exit("worst-rows: no case lines in " + sys.argv[1])
rows.sort()
vals = [r[0] for r in rows]
print("cases %d, worst row <= 5e-3: %d; worst-row rel L2 min %.3e median %.3e max %.3e; whole rel L2 median %.3e"
      % (len(rows), sum(v <= 5e-3 for v in vals), vals[0], statistics.median(vals), vals[-1], statistics.median(r[2] for r in rows)))
for v, name, rel, out in rows[-5:]:
    print("  %-36s worst row %.3e, whole %.3e, outside %d" % (name, v, rel, out))
