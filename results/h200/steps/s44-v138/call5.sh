#!/usr/bin/env bash
# Session 44, call 5: which part of the multipliers' P V slows the 64-row alternate scorer's chain
# (call 4: without it the scorer's period falls 28 %): diag/s44-pv-nowiden (c78d3af: the P V's
# wgmmas without V's widening) and diag/s44-pv-nomma (60f845a: the widening without the wgmmas), both
# wrong results; trace builds of main and of both on b128-q4 and b32-q4-8k, read by
# ../s43-v134e/alt-phases.py, and both long q_len-4 shapes timed (the diagnostics' checks fail); also
# timed, diag/s44-pv-depth1 (one step of P V wgmmas in flight instead of two, every walker).
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/t
for tb in main s44-pv-nowiden s44-pv-nomma; do
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
for b in build build-s44-pv-nowiden build-s44-pv-nomma build-s44-pv-depth1; do
    for r in 1 2; do
        timeout -k 10 -s INT 120 $b/mla-bench run --quiet --kernel sm90 --filter '^b(32|128)-q4-kv8192' --set placements=4 --out $OUT/time-$b-$r configs/mixed-mla.json > $OUT/time-$b-$r.log 2>&1
        echo "== $b round $r: exit $?"
        grep -E '^b(32|128)-q4' $OUT/time-$b-$r.log | cut -c1-110
    done
done
(cd $OUT && tar -czf misc.tgz gpu.txt t time-* && rm -rf t time-*)
echo "total $((SECONDS - t0)) s"
