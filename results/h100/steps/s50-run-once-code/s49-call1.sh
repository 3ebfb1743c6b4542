#!/usr/bin/env bash
# Session 49, call 1: v149 (build: the 64-row walker's Q cast by all 512 threads, the scorers taking 4 of
# each thread's 9 pieces' worth, the multipliers 5; the split scorer's tile loop unchanged, the alternate
# scorer's and the multipliers' rescheduled) beside main (build-main, 5c1bfe4), mixed-mla at eight
# placements, three rounds, with the instruction caches warm and then emptied; then trace builds of
# both on four shapes (the unit's phases: Q load, Q cast, tiles, unit end); then the evidence of
# v149's build (parts 1 and 2 of scripts/device-evidence.sh, no profile), filed only if v149 lands.
# The build folder travels slimmed as build-dev (what the GPU tests and the evidence run).
set -u
t0=$SECONDS
rm -rf build && mv build-dev build
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=120 bash scripts/device-compare-builds.sh build-main build > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=120 bash scripts/device-compare-builds.sh build-main build > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=5 SHAPES="32,4,16,1024 4,4,32,8192 4,1,32,1024 128,4,16,8192" timeout -k 10 150 \
    bash scripts/device-trace.sh build-trace-main build-trace-v149-cast-512 > /dev/null 2>&1
echo "traces done ($((SECONDS - t0)) s)"
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
mkdir -p $OUT/p1 $OUT/p2
OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
OUT=$OUT/p2 bash scripts/device-evidence.sh 2
tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
echo "total $((SECONDS - t0)) s"
