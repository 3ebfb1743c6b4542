#!/usr/bin/env bash
# Session 43, call 3: what main's long-unit scorer spends its ~1,650-cycle softmax phase on. A trace
# build of diag/s43-softmax-stamps (59458fe: main plus three stamps in ps_score_alt: the other
# scorer's references in hand, the tile's maxima and references, all published) beside main's trace
# build; b128-q4 and b32-q4-8k, one eager run each, read by alt-phases.py.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/t
for b in build-trace build-trace-sm; do
    for shape in 128,4,16,8192 32,4,32,8192; do
        IFS=, read -r bs q h kv <<< "$shape"
        n=$b-b$bs-q$q-h$h
        printf '{"cases":[{"name":"t","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","warmup":3,"min_runs":5,"max_runs":5}]}' $bs $q $h $kv > $OUT/t/$n.json
        MB_TRACE=$OUT/t/$n.bin timeout -k 10 -s INT 60 $b/mla-bench run --quiet --kernel sm90 --out $OUT/t/$n $OUT/t/$n.json > $OUT/t/$n.log 2>&1
        echo "=== $n: exit $? ($((SECONDS - t0)) s)"
        python3 results/h200/steps/s43-v134e/alt-phases.py $OUT/t/$n.bin 2>&1 | tee $OUT/t/$n-alt.txt
        gzip $OUT/t/$n.bin
    done
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "total $((SECONDS - t0)) s"
