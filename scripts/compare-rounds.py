#!/usr/bin/env python3
"""Builds timed side by side over several rounds (scripts/device-compare-builds.sh with ROUNDS=N), each
case's change against a base build, called only where the rounds separate. Why rounds: in one device
call two builds of the *same* kernel code differed by up to 3 % on a shape (results/NOTES.md, eleventh
wgmma session: v55 left the 16-row kernel untouched and b32-q1-8k read +2.9 %), while the steps being
judged moved 1-3 %. One timed run a build cannot tell those apart; rounds run in alternating order
(A B C, C B A, ...) measure that spread and cancel a linear drift of the machine.

    scripts/compare-rounds.py DIR [--base BUILD] [--mode graph|eager]
    scripts/compare-rounds.py --self-test

DIR holds what the device call brought back: iter-<build>.tgz (round 1, the timed run of
scripts/device-kernel-iter.sh) and rounds.tgz (rounds 2..N: rounds/<build>/r<k>/<config>.csv; the
config is mixed-mla unless the call set CONFIG, e.g. configs/paged.json for small pages). BUILD
defaults to `build` (main). Each cell: the mean of the build's round medians, its change against the
base's, and a verdict: faster / slower when every round of one lies beyond every round of the other
(complete separation: by chance, with n rounds each, in 2 of C(2n, n) orders: 33 % at n = 2, 10 % at 3,
2.9 % at 4, as the header line says), else same. Prints a Markdown table for results/NOTES.md.
"""
import csv
import io
import math
import os
import sys
import tarfile
import tempfile


def case_key(name):
    """A case's name without its mode part (mixed-mla: "b4-q1-kv1024-h32/mode=graph"; paged:
    "b4-q1-kv1024-h32/page_size=16/page_order=shuffled", the mode a column only)."""
    return "/".join(p for p in name.split("/") if not p.startswith("mode="))


def read_csv(text, mode):
    """{case: median µs} for the rows of one mode."""
    return {case_key(r["name"]): float(r["median_us"]) for r in csv.DictReader(io.StringIO(text)) if r["mode"] == mode}


def table_csv(names, folder):
    """The run's table in `folder` of a tar listing (the one .csv a run writes there; CONFIG picks it)."""
    return [n for n in names if n.rsplit("/", 1)[0] == folder and n.endswith(".csv")]


def load(folder, mode):
    """{build: [ {case: median} per round ]}, round 1 from each iter-<build>.tgz, later ones from rounds.tgz."""
    runs = {}
    for f in sorted(os.listdir(folder)):
        if f.startswith("iter-") and f.endswith(".tgz"):
            build = f[len("iter-"):-len(".tgz")]
            with tarfile.open(os.path.join(folder, f)) as t:
                m = table_csv(t.getnames(), f"iter-{build}/m")   # none where the layout test failed
                runs[build] = [read_csv(t.extractfile(m[0]).read().decode(), mode)] if m else []
    rounds = os.path.join(folder, "rounds.tgz")
    if os.path.exists(rounds):
        with tarfile.open(rounds) as t:
            names = sorted((n for n in t.getnames() if n.count("/") == 3 and table_csv([n], n.rsplit("/", 1)[0])),
                           key=lambda n: int(n.split("/")[2][1:]))
            for n in names:   # rounds/<build>/r<k>/<config stem>.csv
                build = n.split("/")[1]
                runs.setdefault(build, []).append(read_csv(t.extractfile(n).read().decode(), mode))
    return {b: r for b, r in runs.items() if r}


def verdict(base, other):
    if min(other) > max(base):
        return "slower"
    if max(other) < min(base):
        return "faster"
    return "same"


def table(runs, base):
    if base not in runs:
        raise SystemExit(f"compare-rounds: no base build '{base}' among {sorted(runs)}")
    builds = [base] + sorted(b for b in runs if b != base)
    n = min(len(runs[b]) for b in builds)
    cases = [s for s in runs[base][0] if all(s in r for b in builds for r in runs[b][:n])]
    if not cases:
        raise SystemExit(f"compare-rounds: no case that every build ran in each of {n} round(s)")
    chance = 2 / math.comb(2 * n, n)
    out = [f"{n} round(s) a build; complete separation by chance: {100 * chance:.1f} %" +
           (" (one round: no verdicts)" if n < 2 else ""),
           "", "| case | " + " | ".join(builds) + " |", "|---" * (len(builds) + 1) + "|"]
    logs = {b: 0.0 for b in builds}
    calls = {}
    for s in cases:
        b0 = [r[s] for r in runs[base][:n]]
        cells = []
        for b in builds:
            v = [r[s] for r in runs[b][:n]]
            mean = sum(v) / n
            logs[b] += math.log(mean)
            cell = f"{mean:.1f} [{min(v):.1f}–{max(v):.1f}]"
            if b != base:
                call = verdict(b0, v) if n >= 2 else "—"
                calls[(s, b)] = call
                cell += f" {100 * (mean / (sum(b0) / n) - 1):+.1f} % {call}"
            cells.append(cell)
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    geo = {b: math.exp(logs[b] / len(cases)) for b in builds}
    out.append("| geomean | " + " | ".join(
        f"{geo[b]:.2f}" + ("" if b == base else f" {100 * (geo[b] / geo[base] - 1):+.1f} %") for b in builds) + " |")
    return out, calls


def self_test():
    """Three builds over three rounds: `build` (base), `build-same` (the base's numbers shuffled between
    rounds: must be same everywhere), `build-slow` (3 % slower on one shape with rounds that do not
    overlap, and on another shape 3 % slower on average but overlapping: same)."""
    base = {"a": [100.0, 101.0, 100.5], "b": [50.0, 50.6, 50.3], "c": [10.0, 10.1, 10.2]}
    same = {k: list(reversed(v)) for k, v in base.items()}
    slow = {"a": [103.2, 104.0, 103.6], "b": [50.1, 53.0, 52.3], "c": [10.0, 10.1, 10.2]}
    header = "name,mode,median_us\n"
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        def csv_of(cols, k):   # shape a as a paged case (the mode a column only), b and c as mixed-mla's
            return header + "".join(f"{s}/page_size=16,graph,{v[k]}\n{s}/page_size=16,eager,{2 * v[k]}\n" if s == "a" else
                                    f"{s}/mode=graph,graph,{v[k]}\n{s}/mode=eager,eager,{2 * v[k]}\n" for s, v in cols.items())

        def add(t, name, text):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))

        builds = {"build": base, "build-same": same, "build-slow": slow}
        for b, cols in builds.items():
            with tarfile.open(os.path.join(d, f"iter-{b}.tgz"), "w:gz") as t:
                add(t, f"iter-{b}/m/mixed-mla.csv", csv_of(cols, 0))
        with tarfile.open(os.path.join(d, "rounds.tgz"), "w:gz") as t:
            for b, cols in builds.items():
                for k in (1, 2):
                    add(t, f"rounds/{b}/r{k + 1}/mixed-mla.csv", csv_of(cols, k))
        runs = load(d, "graph")
        lines, calls = table(runs, "build")
        checks = [
            (len(runs["build"]) == 3, "three rounds read for the base"),
            (lines[0].startswith("3 round(s)") and "10.0 %" in lines[0], "the header gives n = 3 and 10 % chance"),
            (all(calls[(s, "build-same")] == "same" for s in ("a/page_size=16", "b", "c")), "the same numbers in another order are same"),
            (calls[("a/page_size=16", "build-slow")] == "slower", "3 % slower, rounds apart: slower"),
            (calls[("b", "build-slow")] == "same", "3 % slower on average, rounds overlapping: same"),
            (calls[("c", "build-slow")] == "same", "identical: same"),
            (any(r.startswith("| a/page_size=16 |") and "+3.1 % slower" in r for r in lines), "the change is printed"),
            (load(d, "eager")["build"][0]["a/page_size=16"] == 200.0, "--mode eager reads the eager rows"),
        ]
        one = {b: r[:1] for b, r in runs.items()}
        checks.append((all(c == "—" for c in table(one, "build")[1].values()), "one round: no verdicts"))
        for ok, what in checks:
            print(("ok   " if ok else "FAIL ") + what)
            fails += not ok
    print(f"{len(checks) - fails} passed, {fails} failed")
    return 1 if fails else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    args = argv[1:]
    base, mode = "build", "graph"
    if "--base" in args:
        i = args.index("--base")
        base = args[i + 1] if i + 1 < len(args) else sys.exit("compare-rounds: --base needs a build folder name")
        del args[i:i + 2]
    if "--mode" in args:
        i = args.index("--mode")
        mode = args[i + 1] if i + 1 < len(args) else ""
        if mode not in ("graph", "eager"):
            sys.exit("compare-rounds: --mode expects graph or eager")
        del args[i:i + 2]
    if len(args) != 1 or not os.path.isdir(args[0]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    runs = load(args[0], mode)
    if not runs:
        sys.exit(f"compare-rounds: {args[0]} holds no iter-<build>.tgz with a timed run")
    print("\n".join(table(runs, base)[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
