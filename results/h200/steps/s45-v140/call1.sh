#!/usr/bin/env bash
# Session 45, call 1. (a) What an fp8 P costs against the gate, measured at last (it had been
# estimated since the first wgmma session): diag/s45-p-fp8 rounds P to e4m3 before its f16 store on
# every sm90 walker, so the P V multiplies what an fp8 P V would; the correctness sweep and mixed-mla's
# checks on it. (b) Trace builds of main and v140 (the alternate scorer's half-steps in a ring of
# three) on the long q_len-4 shapes, read by ../s43-v134e/alt-phases.py. (c) v140, v140s (the split
# scorer's steps in a ring of three too) and v140's register control (main's rings at 88 / 168, one
# V^T fragment a P V step) beside main: layout test, correctness, planted bugs, mixed-mla at eight
# placements, three rounds.
set -u
S=results/h200/steps/s45-v140
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for cfg in tests/gpu/correctness.json configs/mixed-mla.json; do
    n=$(basename $cfg .json)
    extra=; [ $n = mixed-mla ] && extra="--set min_runs=3 --set max_runs=3"
    timeout -k 5 -s INT 240 build-s45-p-fp8/mla-bench run --quiet --kernel sm90 $extra --out $OUT/pfp8-$n $cfg > $OUT/pfp8-$n.log 2>&1
    echo "== p-fp8 $n: exit $? ($((SECONDS - t0)) s); $(grep -E 'cases:' $OUT/pfp8-$n.log)"
    python3 results/h200/steps/s44-v138/check-margin.py $OUT/pfp8-$n/$n.json > $OUT/pfp8-$n-checks.txt
    python3 $S/worst-rows.py $OUT/pfp8-$n-checks.txt
done
echo "p-fp8 done ($((SECONDS - t0)) s)"
mkdir -p $OUT/t
for tb in main v140-alt-ring3; do
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
OUT=$OUT/cmp ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=260 bash scripts/device-compare-builds.sh build build-v140-alt-ring3 build-v140s build-v140-ctl
echo "compare done ($((SECONDS - t0)) s)"
(cd $OUT && tar -czf misc.tgz gpu.txt pfp8-* t && rm -rf pfp8-* t)
echo "total $((SECONDS - t0)) s"
