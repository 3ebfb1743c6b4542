#!/usr/bin/env bash
# Session 47, call 5: the walker model as committed (its "the kernel's walker" row now takes the unit
# in the launch's parameters, as the kernel does: no spill, the kernel's loop lengths), then v145
# (wip/v145-q-desc-lo: Q's descriptor by a 32-bit add in score_halves) beside main (5d43b4a's
# kernels): layout test, correctness, planted bugs, mixed-mla at eight placements, three rounds.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 120 build/sm90-walker-model > $OUT/walker-model.txt 2>&1; echo "model rc $?"
grep -E "v144, 4 st|random|walker" $OUT/walker-model.txt
echo "model done ($((SECONDS - t0)) s)"
OUT=$OUT/cmp ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=220 bash scripts/device-compare-builds.sh build-main build-v145-q-desc-lo > $OUT/cmp-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cmp-log.txt
echo "total $((SECONDS - t0)) s"
