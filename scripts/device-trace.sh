#!/usr/bin/env bash
# One device call that stamps the sm90 kernel's tiles (kernels/sm90_trace.h) on a few shapes, for
# each trace build named (`make BUILD=build-trace TRACE=1`, or scripts/build-branches.sh on a branch
# carrying the stamps with TRACE=1 in the environment): one eager call a shape, its stamps written by
# MB_TRACE and read by scripts/trace-tiles.py on the device. $OUT gets trace-<build>.txt (the summaries)
# and traces.tgz (the stamp files, for --cta timelines here). ~10 s a shape and build.
# RUNS=N (default 1) times each shape N times after 3 warm-up calls, as the sessions 43-45 traces did
# with 5; ALT=1 adds scripts/alt-phases.py's summary of the 64-row walker's alternate scorer (units of
# 16 tiles or more) to each shape's. L2=hot runs them with "l2": "hot" (no flush before a call: the
# kernel's code and the plan stay in the L2), its files named -l2hot: what a phase owes to the flush.
#   SHAPES="128,4,16,8192 32,1,16,8192" scripts/device-trace.sh build-trace build-trace-v55-score-ring3
#   RUNS=5 ALT=1 SHAPES="128,4,16,8192 32,4,32,8192" scripts/device-trace.sh build-trace-main build-trace-x
set -uo pipefail
. "$(dirname "$0")/device-env.sh"
[ $# -gt 0 ] || { sed -n '2,11p' "$0"; exit 2; }
runs=${RUNS:-1}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "device-trace: RUNS expects a count >= 1, got '$runs'" >&2; exit 2; }
warmup=$([ "$runs" -gt 1 ] && echo 3 || echo 1)
mkdir -p "$OUT/traces"
for b in "$@"; do
    for p in ${SHAPES:-128,4,16,8192 32,4,32,8192 4,4,32,8192 32,1,16,8192}; do
        IFS=, read -r bs q h kv <<< "$p"
        name=$b-b$bs-q$q-h$h-kv$kv${L2:+-l2$L2}
        printf '{"cases":[{"name":"trace","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","l2":"%s","warmup":%s,"min_runs":%s,"max_runs":%s}]}' \
            "$bs" "$q" "$h" "$kv" "${L2:-cold}" "$warmup" "$runs" "$runs" > "$OUT/traces/$name.json"
        MB_TRACE="$OUT/traces/$name.bin" timeout -k 10 -s INT 60 "$b/mla-bench" run --quiet --kernel sm90 \
            --out "$OUT/traces/$name" "$OUT/traces/$name.json" > "$OUT/traces/$name.log" 2>&1
        echo "=== $name: run exit $?"
        python3 scripts/trace-tiles.py "$OUT/traces/$name.bin" 2>&1
        [ -z "${ALT:-}" ] || python3 scripts/alt-phases.py "$OUT/traces/$name.bin" 2>&1
    done > "$OUT/trace-$b${L2:+-l2$L2}.txt"
    cat "$OUT/trace-$b${L2:+-l2$L2}.txt"
done
(cd "$OUT" && tar -czf traces.tgz traces) && rm -rf "$OUT/traces"
