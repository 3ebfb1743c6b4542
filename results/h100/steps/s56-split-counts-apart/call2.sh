#!/usr/bin/env bash
# Session 56, call 2, on call 1's machine while it was warm (GPU-858662de): the same three builds
# with the instruction caches emptied before every timed call, as session 55's call 2 measured v164.
nvidia-smi --query-gpu=name,uuid --format=csv,noheader; export LD_LIBRARY_PATH=$PWD/.deps/lib; OUT=$OUT/cold ICACHE=cold ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=130 bash scripts/device-compare-builds.sh build-main build-v164-split-counts build-s55-v164-decode-only > $OUT/cold-log.txt 2>&1; grep -E '^(===|correctness|round|done)' $OUT/cold-log.txt
