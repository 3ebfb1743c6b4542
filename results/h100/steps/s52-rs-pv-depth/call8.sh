#!/usr/bin/env bash
# Session 52, call 8: the wgmma rate probe (tests/gpu/sm90_wgmma_rate.hip, with m64n16k16 added: the
# 32-row walker's P V wgmma), to see whether that wgmma's issue rate bounds the walker's P V (v159).
set -u
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 10 150 build-probe/sm90-wgmma-rate > $OUT/wgmma-rate.txt 2>&1
echo "probe: exit $?"
head -40 $OUT/wgmma-rate.txt
