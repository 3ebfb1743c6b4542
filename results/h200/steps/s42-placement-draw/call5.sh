#!/usr/bin/env bash
# Session 42, call 5: where in a call a slow placement loses its time. A trace build of main
# (make TRACE=1; its stamps, kernels/sm90_trace.h, come from the last eager launch of a run), eager
# b32-q4-kv1024-h16, whose placement 0 reads fast and 1 slow in eager mode (calls 3 and 4): traced
# with one placement (the last launch is placement 0's) and with two (placement 1's), three processes
# each; first the build's own draw, timed on eight placements without stamps.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/t
timeout -k 10 -s INT 120 build/mla-bench run --quiet --kernel sm90 --filter 'b32-q4-kv1024|b4-q4' --set placements=8 --out $OUT/t/draw configs/mixed-mla.json > $OUT/t/draw.log 2>&1
echo "draw: exit $? ($((SECONDS - t0)) s)"
python3 - "$OUT/t/draw/mixed-mla.json" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))['cases']:
    print('%-32s %7.2f  [%s]' % (c['name'], c['time_us']['median'], ' '.join('%.2f' % x for x in c['placement_medians_us'])))
PY
for shape in 32,4,16,1024 4,4,32,8192; do
  IFS=, read -r b q h kv <<< "$shape"
  for r in 1 2 3; do
    for pl in 1 2; do
      n=b$b-q$q-p$pl-$r
      printf '{"cases":[{"name":"t","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","placements":%s,"warmup":3,"min_runs":20,"max_runs":20}]}' $b $q $h $kv $pl > $OUT/t/$n.json
      MB_TRACE=$OUT/t/$n.bin timeout -k 10 -s INT 60 build/mla-bench run --quiet --kernel sm90 --out $OUT/t/$n $OUT/t/$n.json > $OUT/t/$n.log 2>&1
      echo "=== $n: exit $? ($((SECONDS - t0)) s) $(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['cases'][0]; print(c['time_us']['median'], c['placement_medians_us'])" $OUT/t/$n/$n.json 2>&1 | tail -1)"
      python3 scripts/trace-tiles.py $OUT/t/$n.bin > $OUT/t/$n.txt 2>&1
      grep -E '^ *(entry|prologue|Q load|Q cast|to top|wait|scores|wgmmas|softmax|P V|s wait|s wgmmas|s softmax|unit end|stores|span)' $OUT/t/$n.txt | head -20
    done
  done
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "total $((SECONDS - t0)) s"
