#!/usr/bin/env bash
# Evidence for the sweep and the regression gate, in one GPU session: a split sweep of mixed-mla (with
# its tuning file), a "tuned" run from that file, an A/A pair (the same binary twice) and an A/B pair
# (a planted slowdown: one extra pass over the KV cache a call). Everything lands in $OUT/evidence.tar.gz.
set -uo pipefail
. "$(dirname "$0")/device-env.sh"
mkdir -p "$OUT/e"
B=${MLA_BENCH:-build/mla-bench}   # MLA_BENCH: a stand-in, for tests/scripts/sweep-gate-tuning.sh
# The tuning file is named after the GPU, as mla-bench names its default (`mla-bench info` prints it),
# so that collect-evidence.sh files it as that GPU's; without that name nothing runs (a file under
# a made-up name would be filed as some GPU's tuning).
dev=$($B info 2>/dev/null | awk '$1 == "tuning" { print $2 }')
[ -n "$dev" ] || { echo "device-sweep-gate: '$B info' named no tuning file: nothing run" >&2; exit 4; }
tuning=$OUT/e/tuning/$(basename "$dev")
$B sweep --quiet --plot --splits 1,2,4,8,16,32,64 --out "$OUT/e/sweep" --tuning "$tuning" \
    configs/mixed-mla.json 2>&1 | tee "$OUT/e/sweep.log"
$B run --quiet --tuning "$tuning" --out "$OUT/e/tuned" configs/mixed-mla-tuned.json 2>&1 | tee "$OUT/e/tuned.log"
$B run --quiet --out "$OUT/e/aa-1" configs/mixed-mla.json > "$OUT/e/aa-1.log" 2>&1
$B run --quiet --out "$OUT/e/aa-2" configs/mixed-mla.json > "$OUT/e/aa-2.log" 2>&1
$B run --quiet --inject-fault extra-kv-pass --out "$OUT/e/ab-slow" configs/mixed-mla.json 2>&1 | tee "$OUT/e/ab-slow.log"
tar -C "$OUT" -czf "$OUT/evidence.tar.gz" e && rm -rf "$OUT/e"
