#!/usr/bin/env bash
# One device call that stamps the sm90 kernel's tiles (kernels/sm90_trace.h) on a few shapes, for
# each trace build named (`make BUILD=build-trace TRACE=1`, or scripts/build-branches.sh on a branch
# carrying the stamps with TRACE=1 in the environment): one eager call a shape, its stamps written by
# MB_TRACE and read by scripts/trace-tiles.py on the device. $OUT gets trace-<build>.txt (the summaries)
# and traces.tgz (the stamp files, for --cta timelines here). ~10 s a shape and build.
#   SHAPES="128,4,16,8192 32,1,16,8192" scripts/device-trace.sh build-trace build-trace-v55-score-ring3
set -uo pipefail
. "$(dirname "$0")/device-env.sh"
[ $# -gt 0 ] || { sed -n '2,7p' "$0"; exit 2; }
mkdir -p "$OUT/traces"
for b in "$@"; do
    for p in ${SHAPES:-128,4,16,8192 32,4,32,8192 4,4,32,8192 32,1,16,8192}; do
        IFS=, read -r bs q h kv <<< "$p"
        name=$b-b$bs-q$q-h$h-kv$kv
        printf '{"cases":[{"name":"trace","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","warmup":1,"min_runs":1,"max_runs":1}]}' \
            "$bs" "$q" "$h" "$kv" > "$OUT/traces/$name.json"
        MB_TRACE="$OUT/traces/$name.bin" timeout -k 10 -s INT 60 "$b/mla-bench" run --quiet --kernel sm90 \
            --out "$OUT/traces/$name" "$OUT/traces/$name.json" > "$OUT/traces/$name.log" 2>&1
        echo "=== $name: run exit $?"
        python3 scripts/trace-tiles.py "$OUT/traces/$name.bin" 2>&1
    done > "$OUT/trace-$b.txt"
    cat "$OUT/trace-$b.txt"
done
(cd "$OUT" && tar -czf traces.tgz traces) && rm -rf "$OUT/traces"
