#!/usr/bin/env bash
# Session 53, call 6: the store probe with its 8-byte pattern (pairs8), then v163 (the 32-row walker's
# rows stored 8 bytes a lane, each lane's two rows' pairs exchanged with lane g ^ 1: 16 stores a
# thread where 32 were) beside main (4b92fd4: v162's kernels), eight placements, three rounds warm
# and three with the instruction caches emptied; the GPU tests on v163's build; traces of both on
# b32-q1-kv1024 and b4-q1-kv1024. Predicted: the trace's stores -0.1 to -0.15 µs, b4-q1 and
# b32-q1-kv1024 -0.5 to -1 %.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
V=build-v163-rs-stores8
timeout -k 5 60 $V/sm90-store-probe 2>&1 | tee $OUT/store-probe.txt
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
    bash scripts/device-trace.sh build-trace-main build-trace-v163-rs-stores8 > /dev/null 2>&1
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
tar -C $OUT -czf $OUT/logs.tgz warm-log.txt cold-log.txt store-probe.txt && rm -f $OUT/warm-log.txt $OUT/cold-log.txt
echo "traces done; total $((SECONDS - t0)) s"
