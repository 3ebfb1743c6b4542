#!/usr/bin/env bash
# Session 54, call 6: main at c8df08c (the plan uploaded on the kernels' stream; the GPU test of it).
# The new test's sweep on the build before the fix (build-old, 1444efc): it must fail there. Then on an
# H200 main's evidence (part 1 holds the GPU tests; part 2 where the time allows); elsewhere the GPU
# tests alone.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
build-old/mla-bench sweep --quiet --no-tuning --splits 8,16,32 --out $OUT/neg tests/gpu/plan-upload.json > $OUT/neg.log 2>&1
echo "the test's sweep before the fix: exit $? (want 4) $(grep -h -- '- ERROR' $OUT/neg/*-points.md | head -1)"
rm -rf $OUT/neg
if grep -q H200 $OUT/gpu.txt; then
    mkdir -p $OUT/p1 $OUT/p2
    OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
    tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
    if [ $((SECONDS - t0)) -lt 200 ]; then
        OUT=$OUT/p2 bash scripts/device-evidence.sh 2
        tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
    else echo "part 2: no time left"; fi
else
    timeout -k 5 200 bash tests/gpu/run.sh build/mla-bench > $OUT/gpu-tests.log 2>&1
    echo "GPU tests: exit $? $(tail -n 1 $OUT/gpu-tests.log)"
    grep -E '^FAIL|plan uploaded|just before' $OUT/gpu-tests.log
fi
echo "total $((SECONDS - t0)) s"
