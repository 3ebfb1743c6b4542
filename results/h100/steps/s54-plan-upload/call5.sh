#!/usr/bin/env bash
# Session 54, call 5: the illegal address of calls 1-4, explained as the plan's upload racing the first
# call (hipMemcpy on the legacy stream, from pageable memory; the kernels on a non-blocking stream).
# Sweeps whose 16- and 32-split points share a plan (no hipFree between the upload and the call):
# main before the fix (build-old, 1444efc) and after it (build, 001ebdf) on 16-row shapes with many
# one-tile units a CTA; the diag before (build-unit-rows, 1b2c5eb) and after (build-s54-unit-rows,
# a0084bf); then the fixed diag's whole sweep at 16 rows, and the fixed main's GPU tests.
set -u
t0=$SECONDS
D=results/h200/steps/s54-call
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
mkdir -p $OUT/c5
sw() {   # sw NAME BINARY UNIT_ROWS FILTER SPLITS CONFIG
    MB_UNIT_ROWS=$3 timeout -k 5 -s INT 90 $2 sweep --quiet --no-tuning --filter "$4" --splits $5 --out $OUT/c5/$1 $6 \
        > $OUT/c5/$1.log 2>&1
    echo "$1: exit $? $(grep -h '^- ERROR' $OUT/c5/$1/*-points.md | head -3 | tr '\n' ' ') ($((SECONDS - t0)) s)"
}
for i in 1 2; do
    sw main-old-$i build-old/mla-bench "" . 8,16,32 $D/call5-shapes.json
    sw main-fix-$i build/mla-bench "" . 8,16,32 $D/call5-shapes.json
done
sw diag-old build-unit-rows/mla-bench 16 'b32-q4-kv1024' 16,32 configs/mixed-mla.json
sw diag-fix build-s54-unit-rows/mla-bench 16 'b32-q4-kv1024' 16,32 configs/mixed-mla.json
sw diag-fix-16 build-s54-unit-rows/mla-bench 16 graph 1,2,4,8,16,32 configs/mixed-mla.json
rm -f $OUT/c5/*/*.json $OUT/c5/*/*.svg
timeout -k 5 200 bash tests/gpu/run.sh build/mla-bench > $OUT/c5/gpu-tests.log 2>&1
echo "GPU tests (fixed main): exit $? $(tail -n 1 $OUT/c5/gpu-tests.log) ($((SECONDS - t0)) s)"
grep -E '^FAIL' $OUT/c5/gpu-tests.log
tar -C $OUT -czf $OUT/c5.tgz c5 && rm -rf $OUT/c5
echo "total $((SECONDS - t0)) s"
