"""Re-checks every case dumped by `mla-bench run --dump DIR` with an independent implementation:
numpy in float64, fp8 decoded by ml_dtypes when present (else by its own table), a paged cache read
through its dumped page table. Exit 1 on disagreement."""
import json
import os
import sys

import numpy as np


def fp8_table(flavour):
    try:
        import ml_dtypes
        dt = ml_dtypes.float8_e4m3fn if flavour == "e4m3fn" else ml_dtypes.float8_e4m3fnuz
        return np.arange(256, dtype=np.uint8).view(dt).astype(np.float64)
    except ImportError:
        bias = 7 if flavour == "e4m3fn" else 8
        codes = np.arange(256)
        e, m, s = (codes >> 3) & 15, codes & 7, np.where(codes & 0x80, -1.0, 1.0)
        v = np.where(e == 0, m * 2.0 ** (1 - bias - 3), (1 + m / 8) * 2.0 ** (e - bias))
        return s * v


def cache_rows(meta, load, kvp):
    """rows(b): the cache rows of batch b's tokens in order, kv_indptr's range when the cache is flat,
    else found through the dumped page table."""
    page = meta.get("page_size", 0)   # dumps from before paged caches have no page_size: flat
    if not page:
        return lambda b: np.arange(kvp[b], kvp[b + 1])
    table, pip = load("page_table").astype(np.int64), load("page_indptr")
    def rows(b):
        j = np.arange(kvp[b + 1] - kvp[b])
        return table[pip[b] + j // page] * page + j % page
    return rows


def recheck(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    load = lambda n: np.load(os.path.join(d, n + ".npy"))
    lut = fp8_table(meta["fp8"])
    if meta.get("q_quant") == "none":   # bf16 Q, stored as raw bits
        q = (load("q_bf16").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    else:
        q = lut[load("q_fp8")] * meta["q_scale"]
    kv = lut[load("kv_fp8")] * float(load("kv_scale")[0])
    qo, kvp = load("qo_indptr"), load("kv_indptr")
    out, ref = load("out_f32").astype(np.float64), load("ref").astype(np.float64)
    mine = np.zeros_like(out)
    rows = cache_rows(meta, load, kvp)
    q_len, causal = meta["q_len"], meta["causal"]
    for b in range(meta["batch"]):
        keys = kv[rows(b)]
        for i in range(q_len):
            seen = len(keys) - (q_len - 1 - i) if causal else len(keys)
            s = q[qo[b] + i] @ keys[:seen].T * meta["sm_scale"]          # (heads, seen)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            mine[qo[b] + i] = (p / p.sum(axis=1, keepdims=True)) @ keys[:seen, :meta["dv"]]
    rel = lambda a, r: np.linalg.norm(a - r) / np.linalg.norm(r)
    e_out, e_ref = rel(out, mine), rel(ref, mine)
    # a page table must give every token its own row inside the cache
    used = np.concatenate([rows(b) for b in range(meta["batch"])])
    layout_ok = len(np.unique(used)) == len(used) and used.min() >= 0 and used.max() < len(kv)
    ok = e_out < 5e-3 and e_ref < 1e-5 and layout_ok
    pages = f", page_size {meta['page_size']} {meta['page_order']}" if meta.get("page_size") else ""
    print(f"  {os.path.basename(d)}: tool output vs numpy rel L2 {e_out:.2e}, tool reference vs numpy {e_ref:.2e}"
          f"{pages}{'' if layout_ok else ', rows reused or outside the cache'} {'ok' if ok else 'MISMATCH'}")
    return ok


dirs = sorted(os.path.join(sys.argv[1], x) for x in os.listdir(sys.argv[1]))
results = [recheck(d) for d in dirs]
sys.exit(0 if results and all(results) else 1)
