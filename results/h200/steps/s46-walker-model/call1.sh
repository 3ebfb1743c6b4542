#!/usr/bin/env bash
# Session 46, call 1: the walker model (build/sm90-walker-model: the long 64-row units' walker without
# its data, fp8 scores as they are against f16 scores, S^T = K Q^T, with two or one P buffers), run
# twice, and on the same GPU the real walker's trace (main, a trace build) on the long q_len-4 shapes,
# for the model's fp8 line to be read against.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
build/sm90-walker-model 2>&1 | tee $OUT/walker-model.txt
echo "model done ($((SECONDS - t0)) s)"
RUNS=5 ALT=1 SHAPES="128,4,16,8192 32,4,32,8192" bash scripts/device-trace.sh build-trace-main > $OUT/trace-log.txt 2>&1
grep -E '^===|period|scorer' $OUT/trace-log.txt | head -40
echo "trace done ($((SECONDS - t0)) s)"
build/sm90-walker-model 2>&1 | tee $OUT/walker-model-2.txt
echo "total $((SECONDS - t0)) s"
