#!/usr/bin/env bash
# Session 53, call 3: v162 (the 32-row walker's row sums laid out [row][warp], one 16-byte load a row
# for the unit's normalisers and log-sum-exps, where four 4-byte loads a row took ~0.4 µs of the
# unit's end in call 2's trace) beside main (474d4a2: v160's kernels), eight placements, three rounds
# warm and three with the instruction caches emptied; the GPU tests on v162's build; traces of both
# on b32-q1-kv1024 and b4-q1-kv1024.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
V=build-v162-rs-sums-vec
timeout -k 10 150 bash tests/gpu/run.sh $V/mla-bench > $OUT/gpu-tests.log 2>&1
echo "gpu tests: exit $? ($((SECONDS - t0)) s): $(tail -n 1 $OUT/gpu-tests.log)"
grep -E "^FAIL|peaked margin|stall" $OUT/gpu-tests.log
B="build-main $V"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=90 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=90 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,1,32,1024 4,1,32,1024" timeout -k 10 60 \
    bash scripts/device-trace.sh build-trace-main build-trace-v162-rs-sums-vec > /dev/null 2>&1
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
tar -C $OUT -czf $OUT/logs.tgz warm-log.txt cold-log.txt && rm -f $OUT/warm-log.txt $OUT/cold-log.txt
echo "traces done; total $((SECONDS - t0)) s"
