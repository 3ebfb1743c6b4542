#!/usr/bin/env bash
# Session 51, call 1. On an H200: the evidence of main's build (`build`, cdafa0c: v151's kernels),
# which the fiftieth session could not run (only H100s were lent). On any GPU: v154a (the 64-row
# walker's first tile issued before Q's loads, not behind thread 0's 18) and v154b (the CTA's first
# tile issued by a scorer at once) beside main, eight placements, three rounds, warm and with the
# instruction caches emptied; traces of main and v154b on the short 64-row shapes. On an H100
# instead of the evidence: the placement control session 50 lacked (v150's parent 5c1bfe4 and main
# under CUDA_MODULE_LOADING=EAGER, warm).
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
if grep -q H200 $OUT/gpu.txt; then
    mkdir -p $OUT/p1 $OUT/p2
    OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
    tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
    OUT=$OUT/p2 bash scripts/device-evidence.sh 2
    tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
    echo "evidence done ($((SECONDS - t0)) s)"
fi
B="build build-v154a-tile0-first build-v154b-scorer-tile0"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=110 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=110 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,4,16,1024 4,4,32,8192" timeout -k 10 60 \
    bash scripts/device-trace.sh build-trace-main build-trace-v154b-scorer-tile0 > /dev/null 2>&1
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
echo "traces done ($((SECONDS - t0)) s)"
if ! grep -q H200 $OUT/gpu.txt; then
    scripts/env-build.sh build-5c1bfe4 old-e CUDA_MODULE_LOADING=EAGER
    scripts/env-build.sh build main-e CUDA_MODULE_LOADING=EAGER
    OUT=$OUT/eager ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=80 bash scripts/device-compare-builds.sh \
        build-old-e build-main-e > $OUT/eager-log.txt 2>&1
    grep -E '^(round|done)' $OUT/eager-log.txt
fi
echo "total $((SECONDS - t0)) s"
