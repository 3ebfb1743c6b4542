#!/usr/bin/env bash
# Session 50, call 4: v153c (build-v153c-tile0-first: v153 with the first tile's copy issued before
# the 64-row walker's Q loads) beside v151 (build-v151-partial-rows) and main (build-main). Call 2's
# traces put v153's warm loss in the unit's start: from its start to the first copy's issue ~2.9 us
# against v151's ~1.3 (the 18 loads a thread ahead of the copy). Predicted: v153c warm at v151's times
# or better on the short 64-row shapes (b32-q4-kv1024 ~22.2 us against 22.6 on call 2's H100), its
# emptied-cache times at v153's (-13 % against main). Mixed-mla, eight placements, four rounds, warm
# and emptied instruction caches; traces of v151 and v153c on the two short 64-row shapes.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
B="build-main build-v151-partial-rows build-v153c-tile0-first"
OUT=$OUT/warm ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=140 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=140 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,4,16,1024 4,4,32,8192" timeout -k 10 60 \
    bash scripts/device-trace.sh build-trace-v151-partial-rows build-trace-v153c-tile0-first > /dev/null 2>&1
echo "traces done ($((SECONDS - t0)) s)"
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
echo "total $((SECONDS - t0)) s"
