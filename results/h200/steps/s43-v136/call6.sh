#!/usr/bin/env bash
# Session 43, call 6: part 1 of the evidence at 26dccef (v136 landed): GPU tests, mixed-mla on both
# kernels, the paged table (scripts/device-evidence.sh 1, no profile), filed by
# scripts/collect-evidence.sh.
set -u
mkdir -p $OUT/p1
OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
