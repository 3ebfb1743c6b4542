#!/usr/bin/env bash
# Session 54, call 4: the diag sweep's illegal address (call 3: auto,16,32 fails at 32 with three
# placements, passes with one; 32 alone and 8,32 pass) under compute-sanitizer with the sweep's own
# settings, so that the failing sequence runs whole; and CUDA_LAUNCH_BLOCKING to name the launch. Then
# the three shapes call 1's sweep at 16 rows did not reach.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
B=build-unit-rows/mla-bench
mkdir -p $OUT/c4
MB_UNIT_ROWS=16 CUDA_LAUNCH_BLOCKING=1 timeout -k 5 -s INT 60 $B sweep --no-tuning --filter 'b32-q4-kv1024.*graph' \
    --splits 16,32 --out $OUT/c4/blocking configs/mixed-mla.json > $OUT/c4/blocking.log 2>&1
echo "launch blocking: exit $? $(grep -h '^- ERROR' $OUT/c4/blocking/*-points.md | head -2) ($((SECONDS - t0)) s)"
MB_UNIT_ROWS=16 timeout -k 5 -s INT 60 $B sweep --no-tuning --filter 'b32-q4-kv1024.*eager' \
    --splits 16,32 --out $OUT/c4/eager configs/mixed-mla.json > $OUT/c4/eager.log 2>&1
echo "eager: exit $? $(grep -h '^- ERROR' $OUT/c4/eager/*-points.md | head -2) ($((SECONDS - t0)) s)"
MB_UNIT_ROWS=16 timeout -k 5 300 compute-sanitizer --tool memcheck --print-limit 10 $B sweep --no-tuning \
    --filter 'b32-q4-kv1024.*graph' --splits 16,32 --out $OUT/c4/san configs/mixed-mla.json > $OUT/c4/san.log 2>&1
echo "sanitizer: exit $? ($((SECONDS - t0)) s)"
grep -E "ERROR SUMMARY|Invalid|at 0x|by thread|Address|Program hit|kernel" $OUT/c4/san.log | head -30
grep -h '^- ERROR' $OUT/c4/san/*-points.md | head -2
# call 1's sweep at 16 rows stopped at that error: its last three shapes
MB_UNIT_ROWS=16 timeout -k 5 -s INT 90 $B sweep --quiet --no-tuning --filter 'b32-q1-kv1024.*graph|b32-q4-kv8192.*graph|b128-q4.*graph' \
    --splits 1,2,4,8,16,32 --out $OUT/c4/sweep-16-rest configs/mixed-mla.json > $OUT/c4/sweep-16-rest.log 2>&1
echo "sweep at 16 rows, the rest: exit $? ($((SECONDS - t0)) s)"
rm -f $OUT/c4/*/*.json $OUT/c4/*/*.svg
tar -C $OUT -czf $OUT/c4.tgz c4 && rm -rf $OUT/c4
echo "total $((SECONDS - t0)) s"
