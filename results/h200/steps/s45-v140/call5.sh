#!/usr/bin/env bash
# Session 45, call 5: does v140 (the alternate scorer's ring of three) gain where its tiles' copies
# land sooner? Under b128-q4 its trace waited 704 cycles a tile for data (main 244) and its period
# stayed main's: a stage is refilled only after the tile four back's P V, and four stages are all the
# shared memory holds. Here 8 CTAs (b8-q4-kv8192-h16, one split: 128-tile units) with the cache hot in
# the L2 and cold: main, v140 and v140bc timed, three rounds; main and v140 traced (hot).
set -u
S=results/h200/steps/s45-v140
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for r in 1 2 3; do
    for b in build build-v140-alt-ring3 build-v140bc; do
        timeout -k 10 -s INT 60 $b/mla-bench run --quiet --kernel sm90 --out $OUT/la-$b-$r $S/lookahead.json > $OUT/la-$b-$r.log 2>&1
        echo "== $b round $r: exit $?"
        grep -E '^b8-q4' $OUT/la-$b-$r.log | cut -c1-150
    done
done
mkdir -p $OUT/t
for tb in main v140-alt-ring3; do
    n=$tb-b8-q4-h16-hot
    printf '{"cases":[{"name":"t","batch":8,"q_len":4,"heads":16,"kv_len":8192,"num_kv_splits":1,"l2":"hot","mode":"eager","warmup":3,"min_runs":5,"max_runs":5}]}' > $OUT/t/$n.json
    MB_TRACE=$OUT/t/$n.bin timeout -k 10 -s INT 60 build-trace-$tb/mla-bench run --quiet --kernel sm90 --out $OUT/t/$n $OUT/t/$n.json > $OUT/t/$n.log 2>&1
    echo "=== $n: exit $?"
    python3 $S/../s43-v134e/alt-phases.py $OUT/t/$n.bin 2>&1 | tee $OUT/t/$n-alt.txt
    rm -f $OUT/t/$n.bin
done
(cd $OUT && tar -czf misc.tgz gpu.txt la-* t && rm -rf la-* t)
echo "total $((SECONDS - t0)) s"
