#!/usr/bin/env bash
# Session 49, call 2: once-a-unit code made smaller. v150 (build-v150-cast-rolled: the 64-row walker's Q
# cast in a rolled loop, one piece at a time: its kernel 7,048 -> 6,568 instructions) and v151 (build:
# v150, issue_first_wave's loop rolled, and the 64-row walker's partial rows stored without the per-row
# check: 5,688 instructions; the 32-row rows-split kernel 3,096 -> 2,952) beside main (build-main),
# mixed-mla at eight placements, three rounds, warm and emptied instruction caches; trace builds of
# main and v151 on three shapes with the L2 flushed (as timed) and hot (the code stays in the L2);
# then the evidence of v151's build, filed only if it lands. `build` travels slimmed as build-dev.
set -u
t0=$SECONDS
rm -rf build && mv build-dev build
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=130 bash scripts/device-compare-builds.sh build-main build-v150-cast-rolled build > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=130 bash scripts/device-compare-builds.sh build-main build-v150-cast-rolled build > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
for l2 in cold hot; do
    mkdir -p $OUT/tr-$l2
    OUT=$OUT/tr-$l2 L2=$l2 RUNS=3 SHAPES="32,4,16,1024 4,4,32,8192 128,4,16,8192" timeout -k 10 100 \
        bash scripts/device-trace.sh build-trace-main build-trace-v151-partial-rows > /dev/null 2>&1
done
echo "traces done ($((SECONDS - t0)) s)"
tar -C $OUT -czf $OUT/tr.tgz tr-cold tr-hot && rm -rf $OUT/tr-cold $OUT/tr-hot
mkdir -p $OUT/p1 $OUT/p2
OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
OUT=$OUT/p2 bash scripts/device-evidence.sh 2
tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
echo "total $((SECONDS - t0)) s"
