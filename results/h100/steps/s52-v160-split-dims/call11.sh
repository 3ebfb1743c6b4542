#!/usr/bin/env bash
# Session 52, call 11: main with v160 and its fix (8685590): the GPU tests (the peaked known failure's
# margin among them, which v160 before the fix broke), then v160-fixed beside the pre-v160 main
# (cf958df), eight placements, two rounds warm.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
timeout -k 10 120 bash tests/gpu/run.sh build/mla-bench > $OUT/gpu-tests.log 2>&1
echo "gpu tests: exit $? ($((SECONDS - t0)) s): $(tail -n 1 $OUT/gpu-tests.log)"
grep -E "^FAIL|peaked margin" $OUT/gpu-tests.log
OUT=$OUT/warm ROUNDS=2 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=75 bash scripts/device-compare-builds.sh build-cf958df build > $OUT/warm-log.txt 2>&1
grep -E '^(round|done)' $OUT/warm-log.txt
echo "total $((SECONDS - t0)) s"
