#!/usr/bin/env bash
# Session 56, call 3: on an H200 only, the evidence of main's kernels (build-main, 134f6b3: v162's
# kernels; main since changed no kernel or host code path it runs), both parts; elsewhere only its name.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
grep -q H200 $OUT/gpu.txt || exit 0
export LD_LIBRARY_PATH=$PWD/.deps/lib
rm -rf build && cp -r build-main build
mkdir -p $OUT/p1 $OUT/p2
OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
OUT=$OUT/p2 bash scripts/device-evidence.sh 2
tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
echo "total $((SECONDS - t0)) s"
