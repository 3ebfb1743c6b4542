#!/usr/bin/env bash
# Session 50, call 5: v153e (build: v153c with the 64-row walker's Q loaded a row group a warp, whole
# sectors a load, one wavefront a half-warp's stores) beside v151 (build-v151-partial-rows). Call 4's
# traces put v153c's loss in Q's arrival: unit start to Q cast 5.3 us against v151's 3.7 + 0.56 (the
# q_piece order's loads take half of every sector they touch). Predicted: Q in ~3.7 us and cast in
# ~0.15, so b32-q4-kv1024 warm ~-2 % against v151 and emptied ~-7 % (v153's), the long shapes as
# v151. Mixed-mla, eight placements, four rounds, warm and emptied instruction caches; traces of
# v153e on the two short 64-row shapes; then the evidence of v153e's build (filed only if it lands).
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
B="build-v151-partial-rows build"
OUT=$OUT/warm ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=100 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
OUT=$OUT/cold ICACHE=cold ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=100 bash scripts/device-compare-builds.sh $B > $OUT/cold-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cold-log.txt
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,4,16,1024 4,4,32,8192" timeout -k 10 40 \
    bash scripts/device-trace.sh build-trace-v151-partial-rows build-trace-v153e-row-groups > /dev/null 2>&1
echo "traces done ($((SECONDS - t0)) s)"
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
mkdir -p $OUT/p1 $OUT/p2
OUT=$OUT/p1 PROBES= timeout -k 10 150 bash scripts/device-evidence.sh 1
tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
OUT=$OUT/p2 timeout -k 10 100 bash scripts/device-evidence.sh 2
tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
echo "total $((SECONDS - t0)) s"
