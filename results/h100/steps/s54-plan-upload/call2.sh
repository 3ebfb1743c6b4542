#!/usr/bin/env bash
# Session 54, call 2: call 1's diag sweep at 16 rows met "an illegal memory access" at
# b32-q4-kv1024-h16's 32-split point (the same plan as its 16-split point, which passed). Is it main's
# 16-row walker (many one-tile units a CTA, reachable with 16 heads at q_len 1), or the diag's path?
# (1) main's build on h16-q1 shapes with 4-16 one-tile units a CTA; (2) the diag's point again, run and
# swept twice; (3) the diag's point under compute-sanitizer memcheck.
set -u
t0=$SECONDS
D=results/h200/steps/s54-call
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
mkdir -p $OUT/c2
timeout -k 5 -s INT 150 build/mla-bench run --kernel sm90 --out $OUT/c2/main $D/call2-main.json > $OUT/c2/main.log 2>&1
echo "main: exit $? $(grep '^cases:' $OUT/c2/main.log) ($((SECONDS - t0)) s)"; grep -E "ERROR|error" $OUT/c2/main.log | head -5
B=build-unit-rows/mla-bench
MB_UNIT_ROWS=16 timeout -k 5 -s INT 100 $B run --kernel sm90 --out $OUT/c2/diag $D/call2-diag.json > $OUT/c2/diag.log 2>&1
echo "diag run: exit $? $(grep '^cases:' $OUT/c2/diag.log) ($((SECONDS - t0)) s)"; grep -E "ERROR|error" $OUT/c2/diag.log | head -5
for i in 1 2; do
    MB_UNIT_ROWS=16 timeout -k 5 -s INT 60 $B sweep --no-tuning --filter 'b32-q4-kv1024.*graph' --splits 1,2,4,8,16,32 \
        --out $OUT/c2/sweep$i configs/mixed-mla.json > $OUT/c2/sweep$i.log 2>&1
    echo "diag sweep $i: exit $? ($((SECONDS - t0)) s)"; grep -E "ERROR|error" $OUT/c2/sweep$i.log | head -3
done
rm -f $OUT/c2/*/*.json $OUT/c2/*/*.svg
MB_UNIT_ROWS=16 timeout -k 5 150 compute-sanitizer --tool memcheck --print-limit 20 $B run --kernel sm90 --out $OUT/c2/san \
    $D/call2-san.json > $OUT/c2/san.log 2>&1
echo "sanitizer: exit $? ($((SECONDS - t0)) s)"; grep -E "ERROR SUMMARY|Invalid|at 0x|by thread|Address" $OUT/c2/san.log | head -12
tar -C $OUT -czf $OUT/c2.tgz c2 && rm -rf $OUT/c2
echo "total $((SECONDS - t0)) s"
