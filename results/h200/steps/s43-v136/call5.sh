#!/usr/bin/env bash
# Session 43, call 5: v136 (wip/v136-vote-maxima, 477b0e8: v135's pairwise trees plus the quad maxima,
# the shuffles, only where a lane's scores pass a row's reference by the slack) beside main (898c59d): its stall test and
# the known peaked failure, then layout test, correctness, planted bugs and mixed-mla at eight
# placements, four rounds (device-compare-builds.sh); then a trace build of v136 with the softmax
# phase's three stamps (diag/s43-v136-stamps, b791ca5), read by ../s43-v134e/alt-phases.py, against
# call 3's trace of main with the same stamps.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 -s INT 60 build-v136/mla-bench-stall run --quiet --kernel sm90 --out $OUT/stall tests/gpu/stall-order.json > $OUT/stall.log 2>&1
echo "stall v136: exit $? ($((SECONDS - t0)) s); pass $(tail -n +2 $OUT/stall/stall-order.csv 2>/dev/null | awk -F, '$NF == "pass"' | wc -l)"
for b in build build-v136; do
    timeout -k 5 -s INT 60 $b/mla-bench run --quiet --kernel sm90 --out $OUT/peaked-$b tests/gpu/peaked-scores.json > $OUT/peaked-$b.log 2>&1
    echo "peaked $b: exit $? (expected 1 on sm90); $(grep -E 'cases:' $OUT/peaked-$b.log)"
    grep -E 'q_len|^[a-z].*(PASS|FAIL)' $OUT/peaked-$b.log | cut -c1-40,150-240 | head -6
done
OUT=$OUT/cmp ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=400 bash scripts/device-compare-builds.sh build build-v136
mkdir -p $OUT/t
for shape in 128,4,16,8192 32,4,32,8192; do
    IFS=, read -r bs q h kv <<< "$shape"
    n=v136sm-b$bs-q$q-h$h
    printf '{"cases":[{"name":"t","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","warmup":3,"min_runs":5,"max_runs":5}]}' $bs $q $h $kv > $OUT/t/$n.json
    MB_TRACE=$OUT/t/$n.bin timeout -k 10 -s INT 60 build-trace-v136sm/mla-bench run --quiet --kernel sm90 --out $OUT/t/$n $OUT/t/$n.json > $OUT/t/$n.log 2>&1
    echo "=== $n: exit $?"
    python3 results/h200/steps/s43-v134e/alt-phases.py $OUT/t/$n.bin 2>&1 | tee $OUT/t/$n-alt.txt
    gzip $OUT/t/$n.bin
done
(cd $OUT && tar -czf misc.tgz gpu.txt stall* peaked-* t && rm -rf stall* peaked-* t)
echo "total $((SECONDS - t0)) s"
