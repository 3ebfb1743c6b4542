#!/usr/bin/env bash
# Session 52, call 9: v160 (the 32-row walker's P V with the value dims split between the warpgroups:
# 16 m64n32k16 a warpgroup, a CTA barrier a tile) beside main (4a24716's kernels), eight placements,
# three rounds warm and with the instruction caches emptied; its roles' barriers under a stall
# (mla-bench-stall, tests/gpu/stall-order.json); traces of both on b32-q1-kv1024 and b4-q1-kv1024.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
timeout -k 5 -s INT 60 build-v160-rs-dims-split/mla-bench-stall run --quiet --kernel sm90 --out $OUT/stall tests/gpu/stall-order.json > $OUT/stall.log 2>&1
echo "stall: exit $? ($(tail -n 1 $OUT/stall.log))"
B="build-main build-v160-rs-dims-split"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=90 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=90 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,1,32,1024 4,1,32,1024" timeout -k 10 60 \
    bash scripts/device-trace.sh build-trace-main build-trace-v160-rs-dims-split > /dev/null 2>&1
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
echo "traces done; total $((SECONDS - t0)) s"
