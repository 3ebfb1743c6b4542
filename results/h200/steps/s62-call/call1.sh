#!/usr/bin/env bash
# Session 62, call 1: the evidence of main's build (`build`, 94117ff: v162's kernels) on an H200,
# both parts, for results/h200/. The guard in device-evidence.sh runs nothing on any other GPU.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
EVIDENCE_GPU=H200 PROBES= bash scripts/device-evidence.sh both
echo "total $((SECONDS - t0)) s"
