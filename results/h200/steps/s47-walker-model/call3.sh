#!/usr/bin/env bash
# Session 47, call 3: the kernel's own 64-row walker (ps_run) on the model's stream, one unit of 256
# tiles a CTA (the model's "the kernel's walker" row), beside the model's rows; then the real kernel
# through mla-bench on one unit a CTA at 256 and 512 tiles (long-units.json: the difference is the
# steady tile, fixed costs cancel).
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 120 build/sm90-walker-model > $OUT/walker-model.txt 2>&1; echo "rc $?"
grep -E "v144|random|walker" $OUT/walker-model.txt
timeout -k 5 200 build/mla-bench run results/h200/steps/s47-walker-model/long-units.json --out $OUT/run --quiet > $OUT/run-log.txt 2>&1
echo "run rc $?"; grep -E "b132|device" $OUT/run-log.txt
timeout -k 5 120 build/sm90-walker-model > $OUT/walker-model-2.txt 2>&1; echo "rc $?"
grep -E "v144, 4 st, random|walker" $OUT/walker-model-2.txt
echo "total $((SECONDS - t0)) s"
