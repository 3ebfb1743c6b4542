#!/usr/bin/env bash
# Session 46, call 3: the walker model with one scorer for every tile in three warpgroups (whole
# m64n64k32 score steps in a ring of two, its softmax between the next tile's steps), beside the rows
# of call 2 (a refactor of the multipliers' loop into wm_multiply since); run twice. Its first try
# hung (call3-hung-log.txt): the one scorer asked for 176 registers by setmaxnreg.inc, which waits for
# registers another warpgroup gives up, and none did; now it runs at the launch's 168, and each run is
# bounded by timeout, stdout line-buffered.
set -u
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 90 build/sm90-walker-model 2>&1 | tee $OUT/walker-model.txt
timeout -k 5 90 build/sm90-walker-model 2>&1 | tee $OUT/walker-model-2.txt
