"""One case written by `mla-bench run --dump DIR` (DIR/<case>/: meta.json and .npy files) as float64
numpy arrays, for the scripts that re-check or explain a case outside the tool (tests/gpu/recheck_dump.py,
scripts/worst-row.py). fp8 is decoded by ml_dtypes when present, else by its own table; a paged cache
is read through its dumped page table."""
import json
import os

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


class Case:
    """meta (meta.json), load(name) (one .npy), q (total_q, heads, dk) as the path saw it, kv (cache rows,
    dk) dequantised, qo / kvp (the indptrs), out (the tool's output) and ref (its reference)."""

    def __init__(self, d):
        self.dir = d
        self.meta = json.load(open(os.path.join(d, "meta.json")))
        lut = fp8_table(self.meta["fp8"])
        if self.meta.get("q_quant") == "none":   # bf16 Q, stored as raw bits
            self.q = (self.load("q_bf16").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        else:
            self.q = lut[self.load("q_fp8")] * self.meta["q_scale"]
        self.kv = lut[self.load("kv_fp8")] * float(self.load("kv_scale")[0])
        self.qo, self.kvp = self.load("qo_indptr"), self.load("kv_indptr")
        self.out, self.ref = self.load("out_f32").astype(np.float64), self.load("ref").astype(np.float64)
        self.page = self.meta.get("page_size", 0)   # dumps from before paged caches have no page_size: flat
        if self.page:                               # read once: rows() runs for every batch and query
            self.table, self.pip = self.load("page_table").astype(np.int64), self.load("page_indptr")

    def load(self, name):
        return np.load(os.path.join(self.dir, name + ".npy"))

    def rows(self, b):
        """The cache rows of batch b's tokens in order: kv_indptr's range when the cache is flat, else
        found through the page table."""
        if not self.page:
            return np.arange(self.kvp[b], self.kvp[b + 1])
        j = np.arange(self.kvp[b + 1] - self.kvp[b])
        return self.table[self.pip[b] + j // self.page] * self.page + j % self.page

    def seen(self, b, i):
        """How many of batch b's tokens query i sees (the last q_len tokens are the new ones when causal)."""
        n = self.kvp[b + 1] - self.kvp[b]
        return n - (self.meta["q_len"] - 1 - i) if self.meta["causal"] else n

    def scores(self, b, i):
        """Exact scores (natural units, sm_scale applied) of query i of batch b: (heads, seen), and the
        keys they were taken over."""
        keys = self.kv[self.rows(b)][: self.seen(b, i)]
        return self.q[self.qo[b] + i] @ keys.T * self.meta["sm_scale"], keys
