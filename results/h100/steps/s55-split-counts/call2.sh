#!/usr/bin/env bash
# Session 55, call 2. On an H200 first: main's evidence (build-main, 134f6b3: v162's kernels), both
# parts. On any GPU: v164 (the decode counts its split units in at each CTA's end; the combine merges a
# group once its splits are in, instead of after the whole decode grid) beside main: the GPU tests on
# v164's build, then eight placements, three rounds warm and three with the instruction caches emptied.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
if grep -q H200 $OUT/gpu.txt; then
    rm -rf build && cp -r build-main build
    mkdir -p $OUT/p1 $OUT/p2
    OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
    tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
    OUT=$OUT/p2 bash scripts/device-evidence.sh 2
    tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
    echo "evidence done ($((SECONDS - t0)) s)"
fi
V=build-v164-split-counts
timeout -k 10 150 bash tests/gpu/run.sh $V/mla-bench > $OUT/gpu-tests.log 2>&1
echo "gpu tests: exit $? ($((SECONDS - t0)) s): $(tail -n 1 $OUT/gpu-tests.log)"
grep -E "^FAIL|peaked margin|stall" $OUT/gpu-tests.log
B="build-main $V"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=100 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=100 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
tar -C $OUT -czf $OUT/logs.tgz warm-log.txt cold-log.txt && rm -f $OUT/warm-log.txt $OUT/cold-log.txt
echo "total $((SECONDS - t0)) s"
