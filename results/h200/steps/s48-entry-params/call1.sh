#!/usr/bin/env bash
# Session 48, call 1: v146 (each CTA's first unit, range and scales in one 64-byte record of the
# launch's parameters, loaded at the kernel's first instruction) and v146b (v146, and one word of each
# line of the arguments loaded beside it) beside main (94da713), mixed-mla at eight placements, three
# rounds, with the instruction caches warm (the tables' setting) and then emptied before every timed
# call (ICACHE=cold: placement cannot move the short 64-row shapes there). Each build's first round
# runs its tests (layout, correctness, planted bugs) and dumps its SASS.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
B="build-main build-v146-entry-params build-v146b-touch-args"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=170 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
echo "warm done ($((SECONDS - t0)) s)"
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=170 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "total $((SECONDS - t0)) s"
