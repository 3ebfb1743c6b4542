#!/usr/bin/env python3
"""Prints the results folder for the runs under DIR: results/<model>, named after the GPU that every
run's JSON records (device.name "NVIDIA H100 80GB HBM3" -> results/h100). The collect scripts file
by it, so a run on one GPU model is never filed as another's evidence: the device tool may lend an
H100 where an H200 was asked for. Exits 1, naming the files, when the runs disagree or none records
a device. With --name, the folder of one device name as `mla-bench info` prints it (the perf gate's
default baseline is that GPU model's).
    scripts/results-dir.py /tmp/unpacked-call
    scripts/results-dir.py --name "NVIDIA H100 80GB HBM3"
    scripts/results-dir.py --self-test
"""
import contextlib
import io
import json
import os
import re
import sys
import tempfile


def model(name):
    # The model is the first word that looks like one (H100, H200, A100, MI300X); the vendor's
    # prefix and the memory's size vary between boards of one chip and say nothing of its speed.
    for word in name.split():
        if re.fullmatch(r"[A-Z]{1,3}[0-9]{2,4}[A-Z]?", word):
            return word.lower()
    return None


def self_test():
    """Each folder's verdict, planted: a lone model is named, mixed or unnamed runs are refused."""
    cases = [  # device names of the runs in one folder (None: a JSON without a device), want
        (["NVIDIA H200"], "results/h200"),
        (["NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"], "results/h100"),
        (["AMD Instinct MI300X"], "results/mi300x"),
        (["NVIDIA H100 80GB HBM3", "NVIDIA H200"], None),
        ([None], None),
        (["NVIDIA Graphics Device"], None),
    ]
    bad = 0
    for names, want in cases:
        with tempfile.TemporaryDirectory() as d:
            for i, n in enumerate(names):
                os.makedirs(os.path.join(d, "r%d" % i))
                with open(os.path.join(d, "r%d" % i, "run.json"), "w") as fh:
                    json.dump({"device": {"name": n}} if n else {"cases": []}, fh)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(["results-dir.py", d])
            got = out.getvalue().strip() if rc == 0 else None
            ok = got == want and (rc == 0) == (want is not None)
            bad += not ok
            print("%s %s -> %s (exit %d)" % ("ok  " if ok else "FAIL", names, got, rc))
    for name, want in [("NVIDIA H100 80GB HBM3", "results/h100"), ("NVIDIA H200", "results/h200"),
                       ("stand-in device", None)]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(["results-dir.py", "--name", name])
        got = out.getvalue().strip() if rc == 0 else None
        ok = got == want and (rc == 0) == (want is not None)
        bad += not ok
        print("%s --name %r -> %s (exit %d)" % ("ok  " if ok else "FAIL", name, got, rc))
    print("%d passed, %d failed" % (len(cases) + 3 - bad, bad))
    return 1 if bad else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) == 3 and argv[1] == "--name":
        m = model(argv[2])
        if m is None:
            sys.stderr.write("results-dir: no GPU model in the device name %r\n" % argv[2])
            return 1
        print("results/" + m)
        return 0
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        sys.stderr.write(__doc__.split("\n    ")[0] + "\nusage: results-dir.py DIR | --name NAME | --self-test\n")
        return 2
    seen = {}
    for root, _, files in os.walk(argv[1]):
        for f in sorted(files):
            if not f.endswith(".json"):
                continue
            path = os.path.join(root, f)
            try:
                with open(path) as fh:
                    dev = json.load(fh).get("device")
            except (OSError, ValueError, AttributeError):
                continue   # not a run's file (a config, a compare's output)
            if isinstance(dev, dict) and isinstance(dev.get("name"), str):
                seen.setdefault(dev["name"], path)
    if not seen:
        sys.stderr.write("results-dir: no run's JSON under %s records device.name\n" % argv[1])
        return 1
    models = {model(n) for n in seen}
    if len(models) != 1 or None in models:
        sys.stderr.write("results-dir: the runs under %s are not of one known GPU model: %s\n" %
                         (argv[1], "; ".join("%r (%s)" % (n, p) for n, p in sorted(seen.items()))))
        return 1
    print("results/" + models.pop())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
