#!/usr/bin/env bash
# Session 47, call 4: the machine code (cuobjdump, which this toolkit lacks here) of the model's v144
# walker (walk<..., WM_RESCALE1, 4 stages>), of the kernel's roles in the model (walk_kernel_roles)
# and of main's 64-row decode kernel, to read what the kernel's tile loops issue beyond the model's.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
$CUOBJDUMP --version | tail -1
$CUOBJDUMP -sass -fun '_Z4walkILb0ELi2ELi88ELi168ELi1ELi32ELi4EEvPKh14CUtensorMap_stPxS3_' build/sm90-walker-model > $OUT/model-v144.sass 2>&1; echo "rc $?"
$CUOBJDUMP -sass -fun '_Z17walk_kernel_roles14mb_decode_args' build/sm90-walker-model > $OUT/model-roles.sass 2>&1; echo "rc $?"
$CUOBJDUMP -sass -fun '_Z18decode_sm90_kernelILi64ELb1ELb0EEv14mb_decode_args14mb_first_units' build/mla-bench > $OUT/decode-64.sass 2>&1; echo "rc $?"
wc -l $OUT/*.sass
echo "total $((SECONDS - t0)) s"
