#!/usr/bin/env bash
# Session 52, call 10: the GPU tests (make test-gpu's script) on main with v160 merged (d5c6325).
set -u
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
timeout -k 10 300 bash tests/gpu/run.sh build/mla-bench > $OUT/gpu-tests.log 2>&1
echo "gpu tests: exit $?: $(tail -n 1 $OUT/gpu-tests.log)"
grep -E "^FAIL|known failure|correctness \(|stalled" $OUT/gpu-tests.log
