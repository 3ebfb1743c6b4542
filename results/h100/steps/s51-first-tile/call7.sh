#!/usr/bin/env bash
# Session 51, call 7. On an H200: the evidence of main's build (`build`, 396c02f: v151's kernels).
# On any GPU: v157 (v155's bulk copies of Q; the CTA's first unit's, and its first tile's copy,
# issued by thread 0 at the kernel's start, before the roles split) beside main, eight placements,
# three rounds, warm and with the instruction caches emptied; traces of main (396c02f's trace build,
# with the entry's stamps) and v157 on the short 64-row shapes.
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
B="build build-v157-q-bulk-at-entry"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=75 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=75 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,4,16,1024 4,4,32,8192" timeout -k 10 60 \
    bash scripts/device-trace.sh build-trace-main build-trace-v157-q-bulk-at-entry > /dev/null 2>&1
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
echo "traces done; total $((SECONDS - t0)) s"
