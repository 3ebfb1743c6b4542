#!/usr/bin/env bash
# Session 46, call 2: the walker model again (call 1's rows), with data (stages filled from a stream
# of ~1.2 GB the walker's way: fp8 with four stages, f16 with three and two P buffers or four and one),
# and with one piece left out at a time (softmax, REF, SCORED, P V); run twice.
set -u
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
build/sm90-walker-model 2>&1 | tee $OUT/walker-model.txt
build/sm90-walker-model 2>&1 | tee $OUT/walker-model-2.txt
