#!/usr/bin/env bash
# Session 47, call 2: the walker model with the scorers' score steps in turns (WM_TURN: a tile's steps
# start once the other scorer's steps of the tile before are done), beside v144's rows; run twice.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 120 build/sm90-walker-model > $OUT/walker-model.txt 2>&1; echo "rc $?"
timeout -k 5 120 build/sm90-walker-model > $OUT/walker-model-2.txt 2>&1; echo "rc $?"
grep -E "v144|turns|random" $OUT/walker-model.txt $OUT/walker-model-2.txt
echo "total $((SECONDS - t0)) s"
