#!/usr/bin/env bash
# Session 46, call 5: the walker model with the multipliers' rescale check in one load (WM_RESCALE1),
# then v144 (wip/v144-rescale-one-load, a13bcf0: that check in the kernel) beside main (d10526b's
# kernels): layout test, correctness, planted bugs, mixed-mla at eight placements, three rounds.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 90 build/sm90-walker-model 2>&1 | tee $OUT/walker-model.txt | grep -E "SMs|rescale|fp8 88|fp8 F1"
echo "model done ($((SECONDS - t0)) s)"
OUT=$OUT/cmp ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=200 bash scripts/device-compare-builds.sh build-main build-v144 > $OUT/cmp-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cmp-log.txt
echo "total $((SECONDS - t0)) s"
