#!/usr/bin/env bash
# Session 43, call 1: v134e (wip/v134e-pipelined, abb669c: the long units' scorer takes a tile's
# halves one after the other, half 1's first score step issued before half 0's exponentials, its P
# and the EMPTY wait) beside main (898c59d, kernel of 91325c3): its stall test, then the layout
# test, correctness sweep, planted bugs and mixed-mla at eight placements, four rounds
# (device-compare-builds.sh). First, where ptxas put v134's ring-of-three spills (eb66dc3's cubin,
# compiled here; this toolkit has no SASS reader).
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for b in build-v134e; do
    timeout -k 5 -s INT 60 $b/mla-bench-stall run --quiet --kernel sm90 --out $OUT/stall-$b tests/gpu/stall-order.json > $OUT/stall-$b.log 2>&1
    echo "stall $b: exit $? ($((SECONDS - t0)) s); pass $(tail -n +2 $OUT/stall-$b/stall-order.csv 2>/dev/null | awk -F, '$NF == "pass"' | wc -l)"
done
for c in v134-ring3; do
    cuobjdump --dump-sass build-sass/$c.cubin > $OUT/sass-$c.txt 2>&1
    echo "sass $c: $(wc -l < $OUT/sass-$c.txt) lines, $(grep -c -E 'STL|LDL' $OUT/sass-$c.txt) STL/LDL"
done
OUT=$OUT/cmp ROUNDS=4 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=420 bash scripts/device-compare-builds.sh build build-v134e
(cd $OUT && tar -czf misc.tgz gpu.txt stall-* sass-*.txt && rm -rf stall-* sass-*.txt)
echo "total $((SECONDS - t0)) s"
