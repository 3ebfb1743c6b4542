#!/usr/bin/env bash
# Session 51, call 6: on an H200, the evidence of main's build (`build`, cdafa0c's kernels: v151's);
# on any GPU, traces of main (396c02f, whose trace build stamps the entry's steps) on the short
# shapes, to split the ~1.4 µs from a CTA's entry to its first unit's start.
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
    echo "evidence done ($((SECONDS - t0)) s)"
fi
mkdir -p $OUT/tr
OUT=$OUT/tr RUNS=3 SHAPES="32,4,16,1024 4,4,32,8192 32,1,32,1024 4,1,32,1024" timeout -k 10 90 \
    bash scripts/device-trace.sh build-trace-main > /dev/null 2>&1
tar -C $OUT -czf $OUT/tr.tgz tr && rm -rf $OUT/tr
echo "total $((SECONDS - t0)) s"
