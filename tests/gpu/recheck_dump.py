"""Re-checks every case dumped by `mla-bench run --dump DIR` with an independent implementation:
numpy in float64 (scripts/mbdump.py reads the dump). Exit 1 on disagreement."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from mbdump import Case  # noqa: E402


def recheck(d):
    c = Case(d)
    mine = np.zeros_like(c.out)
    for b in range(c.meta["batch"]):
        for i in range(c.meta["q_len"]):
            s, keys = c.scores(b, i)                                           # (heads, seen)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            mine[c.qo[b] + i] = (p / p.sum(axis=1, keepdims=True)) @ keys[:, :c.meta["dv"]]
    rel = lambda a, r: np.linalg.norm(a - r) / np.linalg.norm(r)
    e_out, e_ref = rel(c.out, mine), rel(c.ref, mine)
    # a page table must give every token its own row inside the cache
    used = np.concatenate([c.rows(b) for b in range(c.meta["batch"])])
    layout_ok = len(np.unique(used)) == len(used) and used.min() >= 0 and used.max() < len(c.kv)
    ok = e_out < 5e-3 and e_ref < 1e-5 and layout_ok
    meta = c.meta
    pages = f", page_size {meta['page_size']} {meta['page_order']}" if meta.get("page_size") else ""
    print(f"  {os.path.basename(d)}: tool output vs numpy rel L2 {e_out:.2e}, tool reference vs numpy {e_ref:.2e}"
          f"{pages}{'' if layout_ok else ', rows reused or outside the cache'} {'ok' if ok else 'MISMATCH'}")
    return ok


if __name__ == "__main__":
    dirs = sorted(os.path.join(sys.argv[1], x) for x in os.listdir(sys.argv[1]))
    results = [recheck(d) for d in dirs]
    sys.exit(0 if results and all(results) else 1)
