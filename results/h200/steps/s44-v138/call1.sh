#!/usr/bin/env bash
# Session 44, call 1: v138 (wip/v138-sum-vote, 7d5c561: the alternate scorer makes P against the tile
# before's references first and votes on the rows' P sums; maxima only on a unit's first tile, where a
# sum passes 2^slack, or on a redo) beside main (7318f31): v138's stall test; the known peaked failure
# and milder peaked scores on 64-row units (moves after the first tile: the late move and the redo
# run) on both, with every case's check; layout test, correctness, planted bugs and mixed-mla at eight
# placements, four rounds (device-compare-builds.sh); trace builds of both on b128-q4 and b32-q4-8k,
# read by ../s43-v134e/alt-phases.py.
set -u
S=results/h200/steps/s44-v138
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 -s INT 60 build-v138-sum-vote/mla-bench-stall run --quiet --kernel sm90 --out $OUT/stall tests/gpu/stall-order.json > $OUT/stall.log 2>&1
echo "stall v138: exit $? ($((SECONDS - t0)) s); pass $(tail -n +2 $OUT/stall/stall-order.csv 2>/dev/null | awk -F, '$NF == "pass"' | wc -l)"
for b in build build-v138-sum-vote; do
    for cfg in tests/gpu/peaked-scores.json $S/peaked-mild.json; do
        n=$(basename $cfg .json)-$b
        timeout -k 5 -s INT 90 $b/mla-bench run --quiet --kernel sm90 --out $OUT/$n $cfg > $OUT/$n.log 2>&1
        echo "== $n: exit $?; $(grep -E 'cases:' $OUT/$n.log)"
        python3 $S/check-margin.py $OUT/$n/*.json
    done
done
echo "peaked done ($((SECONDS - t0)) s)"
OUT=$OUT/cmp ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=300 bash scripts/device-compare-builds.sh build build-v138-sum-vote
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/t
for tb in main v138-sum-vote; do
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
(cd $OUT && tar -czf misc.tgz gpu.txt stall* peaked-* t && rm -rf stall* peaked-* t)
echo "total $((SECONDS - t0)) s"
