import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
def why(c):
    k = c["check"]
    if c["name"] == "peaked-control":
        return None if c["status"] == "pass" else "the control fails"
    row = k["row_rel_l2"]          # null where the output held a NaN
    if k["n_nonfinite"] or k["n_outside"] > 2 or row is None or row > 6e-3:
        return "worst row %s, %d outside, %d non-finite" % ("NaN" if row is None else "%.2e" % row, k["n_outside"],
                                                           k["n_nonfinite"])
    return None
bad = [(c["name"], why(c)) for c in cases if why(c)]
print("peaked margin: %d of %d cases within (worst row <= 6e-3, <= 2 elements outside, all finite; the control passes)%s"
      % (len(cases) - len(bad), len(cases), ": " + "; ".join("%s: %s" % b for b in bad) if bad else ""))
sys.exit(1 if bad or len(cases) != 5 else 0)
