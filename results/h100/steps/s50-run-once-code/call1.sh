#!/usr/bin/env bash
# Session 50, call 1: session 49's once-a-unit changes, remeasured (its device files were lost with
# the session). v151 (build: issue_first_wave rolled, the 64-row walker's partial rows stored without
# the per-row check; without v150's rolled cast, which measured nothing) and v153 (build-v153-q-regs:
# v151 plus the 64-row walker's Q cast from global memory into registers, no staging in the ring)
# beside main (build-main): mixed-mla at eight placements, three rounds, warm and emptied instruction
# caches; traces of v151 and v153 on the two short 64-row shapes; then the evidence of v151's build.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=130 bash scripts/device-compare-builds.sh build-main build-v153-q-regs build > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=130 bash scripts/device-compare-builds.sh build-main build-v153-q-regs build > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,4,16,1024 4,4,32,8192" timeout -k 10 60 \
    bash scripts/device-trace.sh build-trace-v151-partial-rows build-trace-v153-q-regs > /dev/null 2>&1
echo "traces done ($((SECONDS - t0)) s)"
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
mkdir -p $OUT/p1 $OUT/p2
OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
OUT=$OUT/p2 bash scripts/device-evidence.sh 2
tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
echo "total $((SECONDS - t0)) s"
