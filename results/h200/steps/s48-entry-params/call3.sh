#!/usr/bin/env bash
# Session 48, call 3: the evidence at 4e116a4 (v147 landed): part 1 (GPU tests, mixed-mla on both
# kernels, the paged table; no profile) and part 2 (accuracy, ablation, the split sweep, a tuned run,
# the gate's pairs) of scripts/device-evidence.sh, filed by scripts/collect-evidence.sh; then three
# more rounds of v147 (build) beside the kernels before it (build-main, 94da713), as call 2's.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/p1 $OUT/p2
OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
OUT=$OUT/p2 bash scripts/device-evidence.sh 2
tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
echo "evidence done ($((SECONDS - t0)) s)"
export LD_LIBRARY_PATH=$PWD/.deps/lib
OUT=$OUT/cmp ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=150 bash scripts/device-compare-builds.sh build-main build > $OUT/cmp-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cmp-log.txt
echo "total $((SECONDS - t0)) s"
