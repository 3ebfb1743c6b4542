#!/usr/bin/env bash
# Session 50, call 2: v153b (build: v153 with the first wave's tiles 1..S issued once the issuing
# thread's first Q piece is in, not after the cast's barrier) beside main (build-main), v151
# (build-v151-partial-rows) and v153 (build-v153-q-regs): call 1 found v153's cold instruction caches
# faster (-2.9 % geomean) but its warm b32-q4-kv1024 +0.8 % against v151's -5.7 %, and its trace's
# tile periods longer (p90 2.9 -> 4.2 us): tiles 1-3 waited for the cast. Mixed-mla at eight
# placements, three rounds, warm and emptied instruction caches; traces of v151 and v153b on the two
# short 64-row shapes; then the evidence of v153b's build.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
B="build-main build-v151-partial-rows build-v153-q-regs build"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=160 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=160 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,4,16,1024 4,4,32,8192" timeout -k 10 60 \
    bash scripts/device-trace.sh build-trace-v151-partial-rows build-trace-v153b-issue-landed > /dev/null 2>&1
echo "traces done ($((SECONDS - t0)) s)"
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
mkdir -p $OUT/p1 $OUT/p2
OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
OUT=$OUT/p2 bash scripts/device-evidence.sh 2
tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
echo "total $((SECONDS - t0)) s"
