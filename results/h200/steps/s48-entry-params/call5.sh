#!/usr/bin/env bash
# Session 48, call 5: v148r (build: the 32-row rows-split walker's row normalisation by rcp.approx instead of a
# checked division, its kernel 3,264 -> 3,096 instructions, every other kernel byte-identical) beside main (build-main, 3fbf753,
# v147's kernels), mixed-mla at eight placements, three rounds, with the instruction caches warm and
# then emptied; then the evidence of v148r's build (parts 1 and 2 of scripts/device-evidence.sh, no
# profile), to be filed only if v148r lands.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=120 bash scripts/device-compare-builds.sh build-main build > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=120 bash scripts/device-compare-builds.sh build-main build > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/p1 $OUT/p2
OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
OUT=$OUT/p2 bash scripts/device-evidence.sh 2
tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
echo "total $((SECONDS - t0)) s"
