#!/usr/bin/env bash
# Session 44, call 2: v138b (wip/v138-sum-vote, 2bf8701: v138 with the redo agreed by the scorer's
# four warps at EMPTY; call 1's v138 hung where a warp redid a tile alone) beside main (f7f83e9,
# whose GPU tests now hold the known peaked failure to its margin and add two passing peaked cases on
# 64-row units): v138b's stall test; the known failure with run.sh's margin check and the new cases,
# on main, v138b and two mutants of it (never redo; the late move leaves P unrescaled), which must
# fail them; layout test, correctness, planted bugs and mixed-mla at eight placements, four rounds;
# a trace of v138b on b128-q4 and b32-q4-8k.
set -u
S=results/h200/steps/s44-v138
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 -s INT 60 build-v138-sum-vote/mla-bench-stall run --quiet --kernel sm90 --out $OUT/stall tests/gpu/stall-order.json > $OUT/stall.log 2>&1
echo "stall v138b: exit $? ($((SECONDS - t0)) s); pass $(tail -n +2 $OUT/stall/stall-order.csv 2>/dev/null | awk -F, '$NF == "pass"' | wc -l)"
for b in build build-v138-sum-vote build-s44-mut-noredo build-s44-mut-norescale; do
    timeout -k 5 -s INT 60 $b/mla-bench run --quiet --kernel sm90 --out $OUT/peaked-$b tests/gpu/peaked-scores.json > $OUT/peaked-$b.log 2>&1
    echo "== $b peaked: exit $? (1 expected); $(grep -E 'cases:' $OUT/peaked-$b.log)"
    python3 $S/peaked-margin.py $OUT/peaked-$b/peaked-scores.json; echo "margin check: exit $?"
    timeout -k 5 -s INT 60 $b/mla-bench run --quiet --kernel sm90 --filter '^scales-64row' --out $OUT/s64-$b tests/gpu/correctness.json > $OUT/s64-$b.log 2>&1
    echo "== $b scales-64row: exit $? (0 expected); $(grep -E 'cases:' $OUT/s64-$b.log)"
    python3 $S/check-margin.py $OUT/s64-$b/correctness.json
done
echo "peaked done ($((SECONDS - t0)) s)"
OUT=$OUT/cmp ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=280 bash scripts/device-compare-builds.sh build build-v138-sum-vote
echo "compare done ($((SECONDS - t0)) s)"
mkdir -p $OUT/t
for shape in 128,4,16,8192 32,4,32,8192; do
    IFS=, read -r bs q h kv <<< "$shape"
    n=v138b-b$bs-q$q-h$h
    printf '{"cases":[{"name":"t","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","warmup":3,"min_runs":5,"max_runs":5}]}' $bs $q $h $kv > $OUT/t/$n.json
    MB_TRACE=$OUT/t/$n.bin timeout -k 10 -s INT 60 build-trace-v138-sum-vote/mla-bench run --quiet --kernel sm90 --out $OUT/t/$n $OUT/t/$n.json > $OUT/t/$n.log 2>&1
    echo "=== $n: exit $?"
    python3 results/h200/steps/s43-v134e/alt-phases.py $OUT/t/$n.bin 2>&1 | tee $OUT/t/$n-alt.txt
    rm -f $OUT/t/$n.bin
done
(cd $OUT && tar -czf misc.tgz gpu.txt stall* peaked-* s64-* t && rm -rf stall* peaked-* s64-* t)
echo "total $((SECONDS - t0)) s"
