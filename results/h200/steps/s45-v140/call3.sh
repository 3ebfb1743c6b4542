#!/usr/bin/env bash
# Session 45, call 3. Calls 1-2: whatever shortened the alternate scorer's score steps or softmax
# (v140's ring of three, v140b/c's earlier refills), its period stayed ~5,580 cycles for two tiles, as
# if a resource the roles share sets it. Is it the score steps' operand reads from shared memory (3 KB
# a half-step, the rate probe's two-thirds rate)? diag/s45-scores-rs-const (afcc416, wrong results):
# the alternate scorer's Q from registers (a constant), no shared-memory read for A, at v140-ctl's
# registers (88 / 168, one V^T fragment a P V step); traced and timed beside v140-ctl. And v142
# (wip/v142-scores-rs2): Q from registers for real, two fragment sets loaded by ldmatrix two
# half-steps ahead, at the same registers; traced, then beside main and v140-ctl: layout test,
# correctness, planted bugs, mixed-mla at eight placements, three rounds.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/t
for tb in v140-ctl s45-scores-rs-const v142-scores-rs2; do
    for shape in 128,4,16,8192 32,4,32,8192; do
        IFS=, read -r bs q h kv <<< "$shape"
        n=$tb-b$bs-q$q-h$h
        printf '{"cases":[{"name":"t","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","warmup":3,"min_runs":5,"max_runs":5}]}' $bs $q $h $kv > $OUT/t/$n.json
        MB_TRACE=$OUT/t/$n.bin timeout -k 10 -s INT 60 build-trace-$tb/mla-bench run --quiet --kernel sm90 --out $OUT/t/$n $OUT/t/$n.json > $OUT/t/$n.log 2>&1
        echo "=== $n: exit $?"
        python3 results/h200/steps/s43-v134e/alt-phases.py $OUT/t/$n.bin 2>&1 | tee $OUT/t/$n-alt.txt
        rm -f $OUT/t/$n.bin
    done
done
echo "traces done ($((SECONDS - t0)) s)"
for r in 1 2; do
    for b in build-v140-ctl build-s45-scores-rs-const; do
        timeout -k 10 -s INT 120 $b/mla-bench run --quiet --kernel sm90 --filter '^b(32|128)-q4-kv8192' --set placements=4 --out $OUT/time-$b-$r configs/mixed-mla.json > $OUT/time-$b-$r.log 2>&1
        echo "== $b round $r: exit $?"
        grep -E '^b(32|128)-q4' $OUT/time-$b-$r.log | cut -c1-110
    done
done
echo "diag timed ($((SECONDS - t0)) s)"
OUT=$OUT/cmp ROUNDS=3 PLACEMENTS=8 ONE_FILE=1 BUDGET_S=200 bash scripts/device-compare-builds.sh build build-v140-ctl build-v142-scores-rs2 > $OUT/cmp-log.txt 2>&1
grep -E '^(===|layout|correctness|drop|wrong|split|round|done)' $OUT/cmp-log.txt
echo "compare done ($((SECONDS - t0)) s)"
(cd $OUT && tar -czf misc.tgz gpu.txt cmp-log.txt t time-* && rm -rf t time-*)
echo "total $((SECONDS - t0)) s"
