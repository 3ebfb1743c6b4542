#!/usr/bin/env bash
# Session 42, call 1: the evidence at the current commit (device-evidence.sh parts 1 and 2, no
# profile), then the instruction-cache counters of the decode with the caches as a timed call finds
# them (ncu --cache-control none, application replay), icache warm against cold, four shapes.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
O=$OUT
OUT=$O/e1 PROBES= bash scripts/device-evidence.sh 1
echo "part 1 at $((SECONDS - t0)) s"
OUT=$O/e2 bash scripts/device-evidence.sh 2
echo "part 2 at $((SECONDS - t0)) s"
tar -C $O -czf $O/e1.tgz e1 && tar -C $O -czf $O/e2.tgz e2 && rm -rf $O/e1 $O/e2
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
mkdir -p $O/icc
for p in 32,4,16,1024 4,4,32,8192 4,1,32,1024 128,4,16,8192; do
  IFS=, read -r b q h kv <<< "$p"
  for ic in warm cold; do
    [ $((SECONDS - t0)) -lt 520 ] || { echo "skip $p $ic (time)"; continue; }
    printf '{"cases":[{"name":"p","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","icache":"%s","placements":1,"warmup":3,"min_runs":6,"max_runs":6}]}' \
      $b $q $h $kv $ic > /tmp/p.json
    f=$O/icc/b$b-q$q-h$h-kv$kv-$ic.txt
    s=$SECONDS
    # -s 8: a decode of the timed loop (the check's and the warm-up calls come first), the previous
    # call's code left in the SM's caches as the timed calls find it
    timeout -k 5 110 $NCU --clock-control none --cache-control none --replay-mode application -k regex:decode_sm90 -s 8 -c 1 \
      --metrics gpu__time_duration.sum,sm__icc_requests.sum,sm__icc_requests_lookup_hit.sum,sm__icc_requests_lookup_miss.sum,sm__icc_requests_lookup_miss_tag_miss.sum,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio \
      build/mla-bench run --quiet --kernel sm90 --out /tmp/pout /tmp/p.json > $f 2>&1
    echo "$p $ic: exit $? in $((SECONDS - s)) s"
    grep -E 'duration|icc_|no_instruction|imc_miss|inst_executed' $f | tr -s ' ' | sed 's/^/   /'
  done
done
tar -C $O -czf $O/icc.tgz icc && rm -rf $O/icc
echo "total $((SECONDS - t0)) s"
