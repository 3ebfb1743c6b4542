#!/usr/bin/env bash
# Session 52, call 4: why v158 (four stages in the 32-row walker) lost ~1 us on b32-q1-kv1024 while its
# CTAs' spans did not grow. Diagnostics beside main (b74d96f), eight placements, three rounds, warm:
#   pad37k, pad66k: main's 32-row rows-split block padded to v158's size (175,792 bytes) and to the
#     64-row walker's (204,896), the machine code of every kernel byte-identical to main's;
#   v158b: as in call 3;
#   prime: main's binary and v158b's with MB_DIAG_PRIME_SMEM=200000 (the stamp kernel, the last on
#     every SM before the call's first event, holds 200,000 bytes of shared memory).
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
bash scripts/env-build.sh build-s52-prime prime200k MB_DIAG_PRIME_SMEM=200000
bash scripts/env-build.sh build-s52-prime-v158b prime200k-v158b MB_DIAG_PRIME_SMEM=200000
B="build-main build-s52-rs-smem-pad37k build-s52-rs-smem-pad66k build-v158b-rs-whole-wave build-prime200k build-prime200k-v158b"
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=400 bash scripts/device-compare-builds.sh $B > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
echo "total $((SECONDS - t0)) s"
