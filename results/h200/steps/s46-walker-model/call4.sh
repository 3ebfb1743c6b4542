#!/usr/bin/env bash
# Session 46, call 4: the walker model with the rescale added (WM_RESCALE: the scorer's alpha and moved
# flags each tile and the multipliers' check and rescale of O behind them, as pc_multiply_unit does),
# without and with four stages of data: how much of the model's 13 % gap to the walker that is.
set -u
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 90 build/sm90-walker-model 2>&1 | tee $OUT/walker-model.txt
timeout -k 5 90 build/sm90-walker-model 2>&1 | tee $OUT/walker-model-2.txt
