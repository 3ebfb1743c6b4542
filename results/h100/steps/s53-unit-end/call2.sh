#!/usr/bin/env bash
# Session 53, call 2: v161 (the 32-row walker's row sums crossing at the last tile's barrier, its
# normalisers made under the last P V) beside main (474d4a2: v160's kernels), eight placements,
# three rounds warm and three with the instruction caches emptied; the GPU tests on v161's build (the
# stall order and the peaked margin among them); traces of both on b32-q1-kv1024 and b4-q1-kv1024;
# `mla-bench info`'s new tuning line and device-sweep-gate.sh's reading of it.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
V=build-v161-rs-sums-early
{ build-main/mla-bench info; echo "device-sweep-gate's name: $(basename "$(build-main/mla-bench info 2>/dev/null | awk '$1 == "tuning" { print $2 }')" .json)"; } > $OUT/info.txt 2>&1
tail -n 2 $OUT/info.txt
timeout -k 10 150 bash tests/gpu/run.sh $V/mla-bench > $OUT/gpu-tests.log 2>&1
echo "gpu tests: exit $? ($((SECONDS - t0)) s): $(tail -n 1 $OUT/gpu-tests.log)"
grep -E "^FAIL|peaked|stall" $OUT/gpu-tests.log
B="build-main $V"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=90 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=90 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,1,32,1024 4,1,32,1024" timeout -k 10 60 \
    bash scripts/device-trace.sh build-trace-main build-trace-v161-rs-sums-early > /dev/null 2>&1
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
tar -C $OUT -czf $OUT/logs.tgz warm-log.txt cold-log.txt && rm -f $OUT/warm-log.txt $OUT/cold-log.txt
echo "traces done; total $((SECONDS - t0)) s"
