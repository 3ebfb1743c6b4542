#!/usr/bin/env bash
# Session 45, call 4: the wgmma rate probe (tests/gpu/sm90_wgmma_rate.hip) with its new section, the
# long 64-row units' mix: the alternate scorers' score steps (fp8 m64n32k32, ring of two, with their
# adds) on warpgroups 2-3 and the multipliers' P V (f16 m64n64k16 from registers, 2 or 4 in flight) on
# 0-1, free-running for a fixed budget of cycles, alone and together. Calls 1-3 found the walker's
# period invariant at ~5,580 cycles for two tiles whatever its chain looked like; if the two kinds of
# wgmma together take about that for a scorer's tile, the tensor pipe under this mix is the bound.
set -u
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 10 300 build-probe/sm90-wgmma-rate 2>&1 | tee $OUT/wgmma-rate.txt
echo "exit $?"
