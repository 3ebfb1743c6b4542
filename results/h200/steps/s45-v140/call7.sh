#!/usr/bin/env bash
# Session 45, call 7: v143 (wip/v143-whole-steps, a9ffcf2: the alternate scorer's score steps whole,
# m64n64k32 with a ring of one, so each step reads Q once for the tile's 64 tokens: a third less of
# the scores' operand traffic, where call 3's diagnostic without the A reads ran at a 7 % higher clock)
# beside main: both traced on the long q_len-4 shapes, then layout test, correctness, planted bugs,
# mixed-mla at eight placements, three rounds.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/t
for tb in main v143-whole-steps; do
    for shape in 128,4,16,8192 32,4,32,8192; do
        IFS=, read -r bs q h kv <<< "$shape"
        n=$tb-b$bs-q$q-h$h
        printf '{"cases":[{"name":"t","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","warmup":3,"min_runs":5,"max_runs":5}]}' $bs $q $h $kv > $OUT/t/$n.json
        MB_TRACE=$OUT/t/$n.bin timeout -k 10 -s INT 60 build-trace-$tb/mla-bench run --quiet --kernel sm90 --out $OUT/t/$n $OUT/t/$n.json > $OUT/t/$n.log 2>&1
        echo "=== $n: exit $?"
        python3 results/h200/steps/s43-v134e/alt-phases.py $OUT/t/$n.bin 2>&1 | tee $OUT/t/$n-alt.txt
        rm -f $OUT/t/$n.bin
    done
done
echo "traces done ($((SECONDS - t0)) s)"
OUT=$OUT/cmp ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=150 bash scripts/device-compare-builds.sh build build-v143-whole-steps > $OUT/cmp-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cmp-log.txt
echo "compare done ($((SECONDS - t0)) s)"
(cd $OUT && tar -czf misc.tgz gpu.txt cmp-log.txt t && rm -rf t)
echo "total $((SECONDS - t0)) s"
