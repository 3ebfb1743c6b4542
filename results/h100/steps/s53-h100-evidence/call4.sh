#!/usr/bin/env bash
# Session 53, call 4: the store probe (tests/gpu/sm90_store_probe.hip: a 32-row unit's rows written by
# the walker's pattern and others), then the evidence of main's build (`build`, aae14cf: v162's
# kernels) on whichever Hopper the call gets, both parts, for results/<model>/.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
timeout -k 5 60 build/sm90-store-probe 2>&1 | tee $OUT/store-probe.txt
mkdir -p $OUT/p1 $OUT/p2
OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
OUT=$OUT/p2 bash scripts/device-evidence.sh 2
tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
echo "total $((SECONDS - t0)) s"
