#!/usr/bin/env bash
# Session 48, call 2: v147 (the rows-split walkers' bf16 output pairs by one cvt, bf16x2_of: the
# 64-row kernel 900 instructions shorter, its tile loops rescheduled by ptxas) beside main (94da713),
# mixed-mla at eight placements, four rounds, with the instruction caches warm and then emptied
# before every timed call (ICACHE=cold), as call 1.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
B="build-main build-v147-out-cvt"
OUT=$OUT/warm ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=150 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
echo "warm done ($((SECONDS - t0)) s)"
OUT=$OUT/cold ICACHE=cold ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=150 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "total $((SECONDS - t0)) s"
