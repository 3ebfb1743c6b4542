#!/usr/bin/env bash
# Session 43, call 2: why v134e is +12 % on the long q_len-4 shapes. Trace builds (make TRACE=1) of
# main (898c59d) and of v134e with two more stamps in its alternate scorer (630a81f: half 0 summed,
# half 0's P made): one eager run each of b128-q4 and b32-q4-8k, the last launch's stamps read by
# alt-phases.py (this folder) and scripts/trace-tiles.py. A trace build's times are not the kernel's.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/t
for b in build-trace build-trace-v134e; do
    for shape in 128,4,16,8192 32,4,32,8192; do
        IFS=, read -r bs q h kv <<< "$shape"
        n=$b-b$bs-q$q-h$h
        printf '{"cases":[{"name":"t","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","warmup":3,"min_runs":5,"max_runs":5}]}' $bs $q $h $kv > $OUT/t/$n.json
        MB_TRACE=$OUT/t/$n.bin timeout -k 10 -s INT 60 $b/mla-bench run --quiet --kernel sm90 --out $OUT/t/$n $OUT/t/$n.json > $OUT/t/$n.log 2>&1
        echo "=== $n: exit $? ($((SECONDS - t0)) s)"
        python3 results/h200/steps/s43-v134e/alt-phases.py $OUT/t/$n.bin 2>&1 | tee $OUT/t/$n-alt.txt
        python3 scripts/trace-tiles.py $OUT/t/$n.bin > $OUT/t/$n.txt 2>&1
        grep -E '^ *(period|s period|s wait|s wgmmas|s softmax|s empty|s handoff|P lag|wait|P V) ' $OUT/t/$n.txt
        gzip $OUT/t/$n.bin
    done
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "total $((SECONDS - t0)) s"
