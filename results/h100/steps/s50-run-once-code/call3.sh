#!/usr/bin/env bash
# Session 50, call 3: is v153's warm loss against v151 (b32-q4-kv1024 +6 %, b4-q4 +3 % over two H100
# calls, where emptied instruction caches read it 7 % and 4 % faster) a draw of where the driver put
# the code? The same two binaries under CUDA_MODULE_LOADING=EAGER (another fixed placement: README,
# "How it times") beside the default, warm, eight placements, three rounds. Then, on an H200 only,
# the evidence of v151's build (`build`, b0a62b5) for the results/h200 tables.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=$PWD/.deps/lib
scripts/env-build.sh build-v151-partial-rows v151e CUDA_MODULE_LOADING=EAGER
scripts/env-build.sh build-v153-q-regs v153e CUDA_MODULE_LOADING=EAGER
OUT=$OUT/warm ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=170 bash scripts/device-compare-builds.sh \
    build-v151-partial-rows build-v153-q-regs build-v151e build-v153e > $OUT/warm-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/warm-log.txt
echo "compare done ($((SECONDS - t0)) s)"
if grep -q H200 $OUT/gpu.txt; then
    mkdir -p $OUT/p1 $OUT/p2
    OUT=$OUT/p1 PROBES= bash scripts/device-evidence.sh 1
    tar -C $OUT -czf $OUT/p1.tgz p1 && rm -rf $OUT/p1
    OUT=$OUT/p2 bash scripts/device-evidence.sh 2
    tar -C $OUT -czf $OUT/p2.tgz p2 && rm -rf $OUT/p2
fi
echo "total $((SECONDS - t0)) s"
