#!/usr/bin/env bash
# Session 55, call 3. On an H200 first: main's evidence (build-main, 134f6b3: v162's kernels), both
# parts. On any GPU: why v164 lost (call 2: b32-q4-kv1024 +13 %, b32-q1-kv1024 +10 %, b4-q1 +7 %):
# main, v164 and a diagnostic whose decode counts its split units in as v164's does while its
# combine waits for the whole decode grid as main's does (the count's barrier and fence alone), eight
# placements, three rounds warm.
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
B="build-main build-v164-split-counts build-s55-v164-decode-only"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=130 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
echo "total $((SECONDS - t0)) s"
