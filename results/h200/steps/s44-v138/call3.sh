#!/usr/bin/env bash
# Session 44, call 3: main's GPU tests (tests/gpu/run.sh at bafed6c: the known peaked failure held to
# its margin, two passing peaked cases on 64-row units); a mutant of main (diag/s44-mut-main-lsum: the
# alternate scorer's row sums not rescaled where a reference moves) on those tests, which must fail;
# v138c (wip/v138c-warp-rescore, 3e940e9: v138 with a warp's redo scored by the warp-level fp8 mma,
# no barrier) with its stall test, whose build (MB_DIAG_REDO) rescores every late move past 2^9, on
# the peaked tests too, and a mutant of its rescoring (the last step left out) in that build, which
# must fail them; then v138c beside main: layout test, correctness, planted bugs, mixed-mla at eight
# placements, four rounds.
set -u
S=results/h200/steps/s44-v138
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 10 300 bash tests/gpu/run.sh build/mla-bench > $OUT/gpu-tests.log 2>&1
echo "GPU tests (main): exit $? ($((SECONDS - t0)) s): $(tail -n 1 $OUT/gpu-tests.log)"
grep -E '^(FAIL|ok   known|ok   correctness|ok   sm90 roles|peaked margin)' $OUT/gpu-tests.log
peaked() {  # label binary
    timeout -k 5 -s INT 60 $2 run --quiet --kernel sm90 --out $OUT/peaked-$1 tests/gpu/peaked-scores.json > $OUT/peaked-$1.log 2>&1
    echo "== $1 peaked: exit $? (1 expected); $(grep -E 'cases:' $OUT/peaked-$1.log)"
    python3 $S/peaked-margin.py $OUT/peaked-$1/peaked-scores.json; echo "margin check: exit $?"
    timeout -k 5 -s INT 60 $2 run --quiet --kernel sm90 --filter '^scales-64row' --out $OUT/s64-$1 tests/gpu/correctness.json > $OUT/s64-$1.log 2>&1
    echo "== $1 scales-64row: exit $? (0 expected); $(grep -E 'cases:' $OUT/s64-$1.log)"
    python3 $S/check-margin.py $OUT/s64-$1/correctness.json
}
peaked mut-main-lsum build-s44-mut-main-lsum/mla-bench
timeout -k 5 -s INT 60 build-v138c-warp-rescore/mla-bench-stall run --quiet --kernel sm90 --out $OUT/stall tests/gpu/stall-order.json > $OUT/stall.log 2>&1
echo "stall v138c: exit $? ($((SECONDS - t0)) s); pass $(tail -n +2 $OUT/stall/stall-order.csv 2>/dev/null | awk -F, '$NF == "pass"' | wc -l)"
peaked v138c build-v138c-warp-rescore/mla-bench
peaked v138c-redo-build build-v138c-warp-rescore/mla-bench-stall
peaked mut-v138c-rescore-redo-build build-s44-mut-v138c-rescore/mla-bench-stall
echo "peaked done ($((SECONDS - t0)) s)"
OUT=$OUT/cmp ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=200 bash scripts/device-compare-builds.sh build build-v138c-warp-rescore
echo "compare done ($((SECONDS - t0)) s)"
(cd $OUT && tar -czf misc.tgz gpu.txt gpu-tests.log stall* peaked-* s64-* && rm -rf stall* peaked-* s64-*)
echo "total $((SECONDS - t0)) s"
