#!/usr/bin/env bash
# Session 54, call 3: the diag sweep's illegal address (calls 1-2: b32-q4-kv1024-h16 at 16 rows, its
# 32-split point after its 16-split one, same plan; `run` of the same points passes). Which sequences
# fail, and compute-sanitizer's word on the failing one.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
B=build-unit-rows/mla-bench
mkdir -p $OUT/c3
sw() {   # sw NAME SPLITS [--set ...]: the shape's graph case swept at 16 rows
    local n=$1 s=$2; shift 2
    MB_UNIT_ROWS=16 timeout -k 5 -s INT 60 $B sweep --no-tuning --filter 'b32-q4-kv1024.*graph' --splits $s "$@" \
        --out $OUT/c3/$n configs/mixed-mla.json > $OUT/c3/$n.log 2>&1
    echo "$n ($s $*): exit $? $(grep -h '^- ERROR' $OUT/c3/$n/*-points.md | head -2) ($((SECONDS - t0)) s)"
}
sw a 16,32
sw b 32
sw c 8,32
sw d 16,32 --set placements=1
sw e 32,16
sw f 16,16
# and main's build on its own 16-row shapes, swept the same way
timeout -k 5 -s INT 90 build/mla-bench sweep --no-tuning --filter 'b32-q1-kv8192.*graph' --splits 16,32,64 \
    --out $OUT/c3/main configs/mixed-mla.json > $OUT/c3/main.log 2>&1
echo "main b32-q1-8k 16,32,64: exit $? ($((SECONDS - t0)) s)"
MB_UNIT_ROWS=16 timeout -k 5 200 compute-sanitizer --tool memcheck --print-limit 10 $B sweep --no-tuning \
    --filter 'b32-q4-kv1024.*graph' --splits 16,32 --set min_runs=2 --set max_runs=3 --set warmup=0 \
    --out $OUT/c3/san configs/mixed-mla.json > $OUT/c3/san.log 2>&1
echo "sanitizer: exit $? ($((SECONDS - t0)) s)"
grep -E "ERROR SUMMARY|Invalid|at 0x|by thread|Address|Saved host backtrace|in /" $OUT/c3/san.log | head -30
rm -f $OUT/c3/*/*.json $OUT/c3/*/*.svg
tar -C $OUT -czf $OUT/c3.tgz c3 && rm -rf $OUT/c3
echo "total $((SECONDS - t0)) s"
