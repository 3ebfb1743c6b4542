#!/usr/bin/env bash
# Session 44, call 4: what the 64-row alternate scorer's chain is without the multipliers' P V
# (diag/s44-nopv, b956a5a: no P V wgmma and no V widening; wrong results): trace builds of main
# (bafed6c) and of the diagnostic on b128-q4 and b32-q4-8k, read by ../s43-v134e/alt-phases.py, and
# both long q_len-4 shapes timed (graph and eager; the diagnostic's checks fail by design).
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/t
for tb in main s44-nopv; do
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
for b in build build-s44-nopv; do
    for r in 1 2; do
        timeout -k 10 -s INT 120 $b/mla-bench run --quiet --kernel sm90 --filter '^b(32|128)-q4-kv8192' --set placements=4 --out $OUT/time-$b-$r configs/mixed-mla.json > $OUT/time-$b-$r.log 2>&1
        echo "== $b round $r: exit $?"
        grep -E '^b(32|128)-q4' $OUT/time-$b-$r.log | cut -c1-110
    done
done
(cd $OUT && tar -czf misc.tgz gpu.txt t time-* && rm -rf t time-*)
echo "total $((SECONDS - t0)) s"
