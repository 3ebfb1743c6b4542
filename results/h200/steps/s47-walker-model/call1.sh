#!/usr/bin/env bash
# Session 47, call 1: the walker model with what it still lacked against the walker (the kernel's box
# copies, values like the kernel's, the refill's barrier waited for by one multiplier, 40 launches of
# sustained load), then on the same GPU the real kernel on the long q_len-4 shapes (graph, cold, one
# placement), for its cycles a tile (time x the SM clock it records / the unit's tiles).
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 120 build/sm90-walker-model 2>&1 | tee $OUT/walker-model.txt
echo "model done ($((SECONDS - t0)) s)"
timeout -k 5 120 build/mla-bench run configs/mixed-mla.json --filter 'b(128|32)-q4-kv8192.*graph' --out $OUT/run --quiet > $OUT/run-log.txt 2>&1
echo "run rc $?"; tail -8 $OUT/run-log.txt
timeout -k 5 120 build/sm90-walker-model 2>&1 > $OUT/walker-model-2.txt
grep -E "v144|random|box|MUL" $OUT/walker-model-2.txt
echo "total $((SECONDS - t0)) s"
