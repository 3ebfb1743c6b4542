#!/usr/bin/env bash
# Session 45, call 2. Call 1's trace of v140 (the alternate scorer's half-steps in a ring of three)
# had its score steps 10 % shorter and its softmax 25 % shorter, but its wait for the tile's data
# 244 -> 704 cycles, and the period the same: a stage is refilled only once the multipliers' P V of the
# tile four back is done, and that P V waits for the next tile's scores (SCORED). Here: v140b (the
# alternate tiles' P V not waiting for SCORED), v140c (the refill issued before the P V's wgmmas are
# waited for: V^T's codes are in registers by then), v140bc (both) and v141 (both on main's ring of
# two) beside main and v140: layout test, correctness, planted bugs, mixed-mla at eight placements,
# three rounds; and v140bc's trace on the long q_len-4 shapes.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/t
for tb in v140bc; do
    for shape in 128,4,16,8192 32,4,32,8192; do
        IFS=, read -r bs q h kv <<< "$shape"
        n=$tb-b$bs-q$q-h$h
        printf '{"cases":[{"name":"t","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","warmup":3,"min_runs":5,"max_runs":5}]}' $bs $q $h $kv > $OUT/t/$n.json
        MB_TRACE=$OUT/t/$n.bin timeout -k 10 -s INT 60 build-trace-$tb/mla-bench run --quiet --kernel sm90 --out $OUT/t/$n $OUT/t/$n.json > $OUT/t/$n.log 2>&1
        echo "=== $n: exit $?"
        python3 results/h200/steps/s43-v134e/alt-phases.py $OUT/t/$n.bin 2>&1 | tee $OUT/t/$n-alt.txt
        python3 scripts/trace-tiles.py $OUT/t/$n.bin > $OUT/t/$n-tiles.txt 2>&1
        gzip -9 $OUT/t/$n.bin
    done
done
echo "traces done ($((SECONDS - t0)) s)"
OUT=$OUT/cmp ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=330 bash scripts/device-compare-builds.sh build build-v140-alt-ring3 build-v140b-noscored build-v140c-early-refill build-v140bc build-v141-refill-early > $OUT/cmp-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cmp-log.txt
echo "compare done ($((SECONDS - t0)) s)"
(cd $OUT && tar -czf misc.tgz gpu.txt cmp-log.txt t && rm -rf t)
echo "total $((SECONDS - t0)) s"
