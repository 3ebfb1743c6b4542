#!/usr/bin/env bash
# Session 54, call 1. On an H200: main's evidence (`build`, 7cf0c53: v162's kernels), both parts, then
# as much of the diagnostic below as the call's time allows. On another GPU: the diagnostic alone.
# The diagnostic: diag/s54-unit-rows (build-unit-rows, 1b2c5eb: main's kernels; MB_UNIT_ROWS=16|32
# groups a case's rows by that many and launches that walker): the correctness sweep at 16 and 32
# rows, then mixed-mla's graph cases swept over splits at the kernel's own rows, 16 and 32, one GPU.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
if grep -q H200 $OUT/gpu.txt; then
    mkdir -p $OUT/p1 $OUT/p2
    OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
    tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
    OUT=$OUT/p2 bash scripts/device-evidence.sh 2
    tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
    echo "evidence done at $((SECONDS - t0)) s"
fi
B=build-unit-rows/mla-bench
mkdir -p $OUT/ur
# each step only where its timeout still ends before the call's ~570 s
left() { [ $((SECONDS - t0 + $1)) -lt 570 ]; }
for r in 16 32; do
    left 60 || { echo "correctness at $r rows: no time left"; continue; }
    MB_UNIT_ROWS=$r timeout -k 5 -s INT 60 $B run --quiet --kernel sm90 --out $OUT/ur/corr-$r tests/gpu/correctness.json \
        > $OUT/ur/corr-$r.log 2>&1
    echo "correctness at $r rows: exit $? $(grep '^cases:' $OUT/ur/corr-$r.log) ($((SECONDS - t0)) s)"
    rm -f $OUT/ur/corr-$r/*.json
done
for r in 64 16 32; do
    left 100 || { echo "sweep at $r rows: no time left"; continue; }
    v=$r; [ $r = 64 ] && v=
    MB_UNIT_ROWS=$v timeout -k 5 -s INT 100 $B sweep --quiet --no-tuning --filter graph --splits 1,2,4,8,16,32 \
        --out $OUT/ur/sweep-$r configs/mixed-mla.json > $OUT/ur/sweep-$r.log 2>&1
    echo "sweep at $r rows: exit $? ($((SECONDS - t0)) s)"
    rm -f $OUT/ur/sweep-$r/*.json $OUT/ur/sweep-$r/*.svg
done
tar -C $OUT -czf $OUT/ur.tgz ur && rm -rf $OUT/ur
echo "total $((SECONDS - t0)) s"
