#!/usr/bin/env python3
"""The SASS instructions that collect the most warp-stall samples, from the per-instruction table that
scripts/device-kernel-iter.sh writes for each probe (src-*.csv, `ncu --page source --csv --print-source
sass`), with each one's three largest stall reasons. A stall is charged to the instruction that waits,
so read the reason against the instruction before it (e.g. long_sb on an instruction that overwrites a
cp.async's address register is the copy not yet taken by the load unit).

    scripts/ncu-hot.py src-32-1-16-8192.csv [count]
"""
import csv
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    rows = list(csv.reader(open(sys.argv[1], newline="")))
    header, data = rows[1], rows[2:]
    addr, src = header.index("Address"), header.index("Source")
    samples = header.index("Warp Stall Sampling (All Samples)")
    reasons = [i for i, h in enumerate(header) if h.startswith("stall_") and "Not Issued" not in h]
    total = sum(float(r[samples] or 0) for r in data)
    base = int(data[0][addr], 16)
    print(f"{total:.0f} samples; offset from the kernel's first instruction")
    count = int(sys.argv[2]) if len(sys.argv) == 3 else 30
    for r in sorted(data, key=lambda r: -float(r[samples] or 0))[:count]:
        top = sorted(((float(r[i] or 0), header[i][6:]) for i in reasons), reverse=True)[:3]
        print(f"{int(r[addr], 16) - base:06x} {100 * float(r[samples]) / total:5.1f}%  {r[src].strip()[:58]:58s} "
              + " ".join(f"{n}={v:.0f}" for v, n in top))


if __name__ == "__main__":
    main()
