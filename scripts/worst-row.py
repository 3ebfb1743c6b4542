#!/usr/bin/env python3
"""Explains a dumped case's worst output row (`mla-bench run --dump DIR`; one case folder of it): the
row (one query token x one head) whose output is furthest from a float64 softmax, the tokens that carry
its weight, and how far the kernel's scores would have to be off to give the output it gave.

It fits the tool's output row as a mix of the top tokens' value rows plus the rest of the row's exact
output (least squares over the 512 value dims); each fitted weight against the exact one is a shift of
that token's score, in base-2 units, relative to the top token's. Shifts of a few hundredths on the top
tokens with a small fit residual say the scores are what is off (e.g. a tensor core's short sum); a
large residual says the error is not a re-weighting of those tokens (a lost token, a wrong value, a
scale).

    scripts/worst-row.py DUMP/CASE [--top K]     (K: tokens to fit, default 4)
    scripts/worst-row.py --self-test             (plants a known score shift in a synthetic dump)
"""
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mbdump import Case  # noqa: E402

LOG2E = 1.4426950408889634


def softmax(s):
    p = np.exp(s - s.max())
    return p / p.sum()


def worst_row(c):
    """(relative L2 error, batch, query index, head) of the row furthest from the float64 output."""
    worst = (-1.0, 0, 0, 0)
    for b in range(c.meta["batch"]):
        for i in range(c.meta["q_len"]):
            s, keys = c.scores(b, i)
            for h in range(c.meta["heads"]):
                exact = softmax(s[h]) @ keys[:, : c.meta["dv"]]
                err = np.linalg.norm(c.out[c.qo[b] + i, h] - exact) / np.linalg.norm(exact)
                worst = max(worst, (err, b, i, h))
    return worst


def explain(c, top):
    """The worst row's report as lines of text, and the fitted score shifts of its top tokens (base 2,
    relative to the top token; the first is 0 by definition)."""
    err, b, i, h = worst_row(c)
    s, keys = c.scores(b, i)
    p, v = softmax(s[h]), keys[:, : c.meta["dv"]]
    order = np.argsort(-p)[:top]
    rest = np.setdiff1d(np.arange(len(p)), order)
    # out ~ sum_j w_j v_j (top tokens) + w_rest * (the rest's exact mix): top + 1 unknowns, 512 equations
    rest_mix = p[rest] @ v[rest] / p[rest].sum() if len(rest) and p[rest].sum() > 0 else np.zeros(v.shape[1])
    basis = np.vstack([v[order], rest_mix]).T
    got = c.out[c.qo[b] + i, h]
    w, *_ = np.linalg.lstsq(basis, got, rcond=None)
    resid = np.linalg.norm(basis @ w - got) / np.linalg.norm(got)
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.log2(w[: len(order)] / w[0]) - np.log2(p[order] / p[order[0]])
    lines = [f"worst row: batch {b}, query {i}, head {h}: rel L2 {err:.2e} against float64 "
             f"({len(p)} tokens seen; fit residual {resid:.1e} of the row)",
             "  token   score (base 2)   exact weight   fitted weight   score shift (base 2)"]
    for k, j in enumerate(order):
        lines.append(f"  {j:5d}   {s[h, j] * LOG2E:14.4f}   {p[j]:12.4e}   {w[k]:13.4e}   {shift[k]:+.4f}")
    lines.append(f"  rest    {'':14s}   {p[rest].sum():12.4e}   {w[-1]:13.4e}")
    return lines, shift


def write_dump(d, q8, kv8, kv_scale, out, ref, q_len=1, causal=True):
    """A one-batch dump in `--dump`'s layout (only what mbdump.Case reads)."""
    os.makedirs(d)
    meta = {"batch": 1, "q_len": q_len, "heads": q8.shape[1], "causal": causal, "dk": q8.shape[2],
            "dv": out.shape[2], "sm_scale": 1 / 24, "q_scale": 1.0, "fp8": "e4m3fn", "q_quant": "cast",
            "page_size": 0}
    json.dump(meta, open(os.path.join(d, "meta.json"), "w"))
    arrays = {"q_fp8": q8, "kv_fp8": kv8, "kv_scale": np.array([kv_scale], np.float32),
              "qo_indptr": np.array([0, q_len], np.int32), "kv_indptr": np.array([0, len(kv8)], np.int32),
              "out_f32": out.astype(np.float32), "ref": ref.astype(np.float32)}
    for name, a in arrays.items():
        np.save(os.path.join(d, name + ".npy"), a)


def self_test():
    """A peaked synthetic row whose output is made with the second token's score moved by +0.05 (base 2)
    must come back with that shift (and ~0 on the others); the exact output must give ~0 everywhere."""
    rng = np.random.default_rng(7)
    codes = np.arange(256, dtype=np.uint8)
    finite = codes[(codes & 0x7F) != 0x7F]                       # e4m3fn: 0x7f / 0xff are NaN
    q8 = rng.choice(finite, size=(1, 1, 576)).astype(np.uint8)
    kv8 = rng.choice(finite, size=(300, 576)).astype(np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        # the KV scale that gives the scores a spread of 3 (natural units): a few tokens carry the row
        write_dump(os.path.join(tmp, "unit"), q8, kv8, 1.0, np.zeros((1, 1, 512)), np.zeros((1, 1, 512)))
        kv_scale = 3.0 / Case(os.path.join(tmp, "unit")).scores(0, 0)[0].std()
        write_dump(os.path.join(tmp, "exact"), q8, kv8, kv_scale, np.zeros((1, 1, 512)), np.zeros((1, 1, 512)))
        c = Case(os.path.join(tmp, "exact"))
        s, keys = c.scores(0, 0)
        p = softmax(s[0])
        top = np.argsort(-p)[:4]
        if p[top[1]] < 1e-3:
            sys.exit("self-test: the synthetic row is not peaked the right way (its second token carries no weight)")
        exact = p @ keys[:, :512]
        planted = s[0].copy()
        planted[top[1]] += 0.05 / LOG2E
        moved = softmax(planted) @ keys[:, :512]
        ok = True
        for name, out, want in (("exact", exact, 0.0), ("planted", moved, 0.05)):
            d = os.path.join(tmp, name + "-case")
            write_dump(d, q8, kv8, kv_scale, out.reshape(1, 1, 512), exact.reshape(1, 1, 512))
            lines, shift = explain(Case(d), 4)
            good = abs(shift[1] - want) < 2e-3 and np.all(np.abs(np.delete(shift, 1)) < 2e-3)
            print(f"{name}: second token's shift {shift[1]:+.4f}, want {want:+.4f}: {'ok' if good else 'WRONG'}")
            ok &= bool(good)
        print("worst-row self-test:", "passed" if ok else "FAILED")
        return 0 if ok else 1


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    top = 4
    if len(args) == 3 and args[1] == "--top":
        top, args = int(args[2]), args[:1]
    if len(args) != 1:
        sys.exit(__doc__)
    lines, _ = explain(Case(args[0]), top)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
