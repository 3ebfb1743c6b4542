#!/usr/bin/env bash
# Session 56, call 4, on call 3's machine while it was held (GPU-28d41249, an H100, where call 3's H200
# evidence ran nothing): call 1's warm comparison again, on a second GPU.
nvidia-smi --query-gpu=name,uuid --format=csv,noheader | tee $OUT/gpu.txt; export LD_LIBRARY_PATH=$PWD/.deps/lib; OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=120 bash scripts/device-compare-builds.sh build-main build-v164-split-counts build-s55-v164-decode-only > $OUT/warm-log.txt 2>&1; grep -E '^(===|correctness|round|done)' $OUT/warm-log.txt
