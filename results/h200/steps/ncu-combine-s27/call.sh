#!/usr/bin/env bash
# Session 27, call 6: the combine kernel under Nsight Compute (main), caches as the decode left them: is
# its read of the partials L2 hits, and at what rate (v109's traces: ~12 GB/s an SM in the decode's merge).
set -uo pipefail
. scripts/device-env.sh
mkdir -p "$OUT"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for p in 32,4,16,1024 4,1,32,1024 32,4,32,8192; do
    IFS=, read -r b q h kv <<< "$p"
    printf '{"cases":[{"name":"probe","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","warmup":1,"min_runs":1,"max_runs":1}]}' \
        "$b" "$q" "$h" "$kv" > "$OUT/probe.json"
    timeout -k 10 150 "$NCU" --clock-control none --cache-control none -k regex:combine -c 1 -o "$OUT/rep-$b-$q-$h-$kv" \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section LaunchStats \
        --section Occupancy --section WarpStateStats \
        --metrics lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
        build/mla-bench run --kernel sm90 --out "$OUT/probe" "$OUT/probe.json" > "$OUT/ncu-log-$p.txt" 2>&1
    echo "ncu $p: exit $?"
    "$NCU" -i "$OUT/rep-$b-$q-$h-$kv.ncu-rep" > "$OUT/ncu-combine-$b-$q-$h-$kv.txt" 2>&1
    grep -E "Duration|hit_rate|lookup_hit|lookup_miss|dram__bytes|L2 Hit|Mem Busy|Max Bandwidth|Memory Throughput|DRAM Throughput|Warp Cycles Per Issued|Achieved Occupancy" "$OUT/ncu-combine-$b-$q-$h-$kv.txt" | head -20
done
rm -rf "$OUT/probe" "$OUT"/*.ncu-rep "$OUT/probe.json"
(cd "$OUT" && tar -czf ncu-combine.tgz ncu-*.txt) && rm -f "$OUT"/ncu-*.txt
