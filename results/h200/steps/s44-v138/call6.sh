#!/usr/bin/env bash
# Session 44, call 6: v139 (wip/v139-scores-rs, the alternate scorer's Q as the register operand of its
# score steps: each reads only K from shared memory; one fragment set, so both halves of a step are
# waited for before the next is loaded; 4 spill instructions a tile) beside main (the build of bafed6c, whose kernels main still has): layout
# test, correctness, planted bugs and mixed-mla at eight placements, three rounds.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
OUT=$OUT/cmp ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=150 bash scripts/device-compare-builds.sh build build-v139-scores-rs
echo "total $((SECONDS - t0)) s"
