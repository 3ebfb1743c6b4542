#!/usr/bin/env bash
# Session 52, call 6: v159 and v159b (the 32-row rows-split walker's P V with three and four steps'
# wgmmas in flight, was two) beside main (4a24716), eight placements, three rounds warm and with the
# instruction caches emptied; traces of the three on b32-q1-kv1024 and b4-q1-kv1024.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
B="build-main build-v159-rs-pv-depth3 build-v159b-rs-pv-depth4"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=110 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=120 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,1,32,1024 4,1,32,1024" timeout -k 10 90 \
    bash scripts/device-trace.sh build-trace-main build-trace-v159-rs-pv-depth3 build-trace-v159b-rs-pv-depth4 > /dev/null 2>&1
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
echo "traces done; total $((SECONDS - t0)) s"
