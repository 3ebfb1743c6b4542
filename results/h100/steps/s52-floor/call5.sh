#!/usr/bin/env bash
# Session 52, call 5: main with `mla-bench floor` (this session's working tree): the GPU tests (the new
# floor test among them), then the read-once floor of mixed-mla's cases on this GPU, for results/<model>/floor/.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
timeout -k 10 300 bash tests/gpu/run.sh build/mla-bench > $OUT/gpu-tests.log 2>&1
echo "gpu tests: exit $? ($((SECONDS - t0)) s): $(tail -n 1 $OUT/gpu-tests.log)"
grep -E "^FAIL|^ok   floor|^floor:" $OUT/gpu-tests.log
timeout -k 10 120 build/mla-bench floor --quiet --out $OUT/floor configs/mixed-mla.json > $OUT/floor.log 2>&1
echo "floor: exit $? ($((SECONDS - t0)) s)"
cat $OUT/floor.log
echo "total $((SECONDS - t0)) s"
