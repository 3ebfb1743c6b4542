#!/usr/bin/env python3
"""Prints the README's tables of measured numbers from the result files, so that no number in them is
typed by hand. Run from the repository root; paste the output over the table it replaces.

  scripts/readme-tables.py stands LABEL=SOURCE ...   graph medians of mixed-mla, one column a SOURCE,
                                                     with issue #3's floor, FlashMLA and target columns
  scripts/readme-tables.py ablation | paged | accuracy | uneven   from results/h200/<name>/<name>.csv
                                                     (uneven: against its equal-splits/ baseline)

A SOURCE is a CSV path, or REV:PATH for a table as it was committed at REV (older kernels' columns).

  scripts/readme-tables.py --check README.md          exit 1 unless every row of the ablation, paged,
                                                      accuracy and uneven tables is in the file as printed (CI;
                                                      the stands table takes its columns as arguments)
"""
import csv
import io
import math
import subprocess
import sys

SHAPES = ["b4-q1-kv1024-h32", "b4-q4-kv8192-h32", "b32-q1-kv8192-h16", "b32-q4-kv1024-h16",
          "b32-q1-kv1024-h32", "b32-q4-kv8192-h32", "b128-q1-kv8192-h16", "b128-q4-kv8192-h16"]
# Issue #3's columns, measured on this H200 by the issue's author (not by mla-bench).
FLOOR = [4.9, 10.2, 45.6, 10.2, 10.2, 51.4, 145, 145]
FLASHMLA = [16.8, 32.5, 70.6, 28.7, 25.1, 121.9, 217.5, 224.3]
TARGET = [9, 18, 55, 16, 15, 80, 165, 170]


def rows_of(source):
    if ":" in source and not source.startswith("/"):
        rev, path = source.split(":", 1)
        text = subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout
    else:
        with open(source) as f:
            text = f.read()
    return list(csv.DictReader(io.StringIO(text)))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def table(head, body):
    """A markdown table's lines."""
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in body]


def stands(args):
    cols = []
    for a in args:
        label, source = a.split("=", 1)
        graph = {r["name"].split("/")[0]: float(r["median_us"]) for r in rows_of(source) if r["mode"] == "graph"}
        missing = [s for s in SHAPES if s not in graph]
        if missing:
            sys.exit(f"readme-tables: {source}: no graph-mode row for {', '.join(missing)}")
        cols.append((label, [graph[s] for s in SHAPES]))
    cols += [("read-once floor", FLOOR), ("FlashMLA fp8", FLASHMLA), ("target", TARGET)]
    body = [[s] + [f"{c[1][i]:.1f}" if isinstance(c[1][i], float) else str(c[1][i]) for c in cols]
            for i, s in enumerate(SHAPES)]
    gm = [f"{geomean(c[1]):.1f}" for c in cols[:-1]] + ["≤ 38"]   # the issue's goal, not its shapes' mean
    gm[0] = f"**{gm[0]}**"
    body.append(["geometric mean"] + gm)
    return table(["shape"] + [c[0] for c in cols], body)


def ablation():
    r = {x["name"]: x for x in rows_of("results/h200/ablation/ablation.csv")}
    body = []
    for s in SHAPES:
        def f(name, key="median_us"):
            return float(r[f"{s}/{name}"][key])
        cast, amax = f("mode=graph/q_quant=cast"), f("mode=graph/q_quant=amax")
        body.append([s, f"{cast:.1f}", f"{amax:.1f}", f"{amax - cast:+.1f}",
                     f"{f('mode=eager/q_quant=cast', 'quant_us'):.1f} / {f('mode=eager/q_quant=amax', 'quant_us'):.1f}",
                     f"{f('mode=eager/q_quant=cast'):.1f} / {f('mode=eager/q_quant=cast', 'host_wall_us'):.1f}",
                     f"{f('plan=rebuild'):.1f} / {f('plan=rebuild', 'host_wall_us'):.1f}"])
    return table(["shape", "graph: cast µs", "graph: amax µs", "amax − cast", "eager quant stage: cast / amax µs",
           "plan cached: GPU / host µs", "plan rebuilt: GPU / host µs"], body)


def paged():
    r = {x["name"]: float(x["median_us"]) for x in rows_of("results/h200/paged/paged.csv")}
    layouts = ["flat", "page_size=64/page_order=contiguous", "page_size=64/page_order=shuffled",
               "page_size=16/page_order=shuffled", "page_size=1/page_order=shuffled"]
    body = [[s] + [f"{r[f'{s}/{l}']:.1f}" if f"{s}/{l}" in r else "" for l in layouts] for s in SHAPES]
    return table(["shape", "flat", "64 contiguous", "64 shuffled", "16 shuffled", "1 shuffled"], body)


def accuracy():
    r = {x["name"]: x for x in rows_of("results/h200/accuracy/accuracy.csv")}
    stds = ["0.01", "0.1", "1", "10", "100", "300"]
    body = []
    for q in ("cast", "amax"):
        body.append([f"{q}: fidelity"] + [f"{float(r[f'qstd/q_std={s}/q_quant={q}']['fid_rel_l2']):.3f}" for s in stds])
    def pct(n, x):
        return "0" if n == 0 else f"{100 * n / (int(x['batch']) * int(x['q_len']) * int(x['heads']) * 576):.3g} %"
    cells = []
    for s in stds:
        x = r[f"qstd/q_std={s}/q_quant=cast"]
        cells.append(f"{pct(int(x['q_saturated']), x)} / {pct(int(x['q_below_normal']), x)}")
    body.append(["cast: Q saturated / below normal"] + cells)
    return table(["q_std"] + stds, body)


def uneven():
    """configs/uneven.json in graph mode: auto now (results/h200/uneven/) against the equal splits it
    replaced (the same run of the commit before, equal-splits/), with each plan's most splits a batch."""
    rows = {}
    for side, src in (("now", "results/h200/uneven/uneven.csv"), ("was", "results/h200/uneven/equal-splits/uneven.csv")):
        for x in rows_of(src):
            if x["mode"] == "graph":
                rows.setdefault(x["name"].split("/")[0], {})[side] = x
    body = []
    for name, r in rows.items():
        a, b = float(r["was"]["median_us"]), float(r["now"]["median_us"])
        body.append([name, f"{a:.1f} ({r['was']['splits']})", f"{b:.1f} ({r['now']['splits']})", f"{100 * (b - a) / a:+.1f} %"])
    return table(["shape", "before: equal splits", "auto now", "change"], body)


def check(path):
    """The file's tables against the result files: a number edited by hand, or tables left behind
    when the results were re-measured, fail here."""
    with open(path) as f:
        have = {line.strip() for line in f}
    missing = [f"{kind.__name__}: {row}" for kind in CHECKED for row in kind() if row.strip() not in have]
    for m in missing:
        print(f"readme-tables: {path} lacks {m}", file=sys.stderr)
    if missing:
        sys.exit(1)
    print(f"readme-tables: {path}'s ablation, paged, accuracy and uneven tables match results/h200/")


CHECKED = (ablation, paged, accuracy, uneven)   # the tables whose sources are fixed, so --check can print them

if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    named = {f.__name__: f for f in CHECKED}
    if what == "--check" and len(sys.argv) == 3:
        check(sys.argv[2])
    elif what == "stands" and len(sys.argv) > 2:
        print("\n".join(stands(sys.argv[2:])))
    elif what in named and len(sys.argv) == 2:
        print("\n".join(named[what]()))
    else:
        sys.exit(__doc__)
