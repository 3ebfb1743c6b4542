#!/usr/bin/env bash
# Session 43, call 8: part 2 of the evidence at 932fb4f (the kernels of 26dccef, v136): accuracy,
# ablation, the split sweep, a tuned run and the gate's pairs (scripts/device-evidence.sh 2), filed by
# scripts/collect-evidence.sh.
set -u
mkdir -p $OUT/p2
OUT=$OUT/p2 bash scripts/device-evidence.sh 2
tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
