#!/usr/bin/env python3
"""Each case of a run's JSON: exit code-free summary of its check (row rel-L2, elements outside, non-finite)."""
import json, sys
for path in sys.argv[1:]:
    doc = json.load(open(path))
    for c in doc["cases"]:
        k = c["check"]
        f = lambda v: "NaN" if v is None else "%.3e" % v
        print("%-36s row_rel_l2 %s rel_l2 %s outside %d nonfinite %d %s" % (c["name"], f(k["row_rel_l2"]), f(k["rel_l2"]),
              k["n_outside"], k["n_nonfinite"], c.get("status", "")))
