#!/usr/bin/env bash
# Evidence for the variants (q_quant, plan) in one GPU session: the correctness sweep (which now holds
# amax, none and rebuild cases), the accuracy-vs-Q-scale config and the ablation config. Tables and
# logs land in $OUT/variants.tar.gz.
set -uo pipefail
. "$(dirname "$0")/device-env.sh"
mkdir -p "$OUT/v"
B=build/mla-bench
$B run --quiet --out "$OUT/v/correctness" tests/gpu/correctness.json > "$OUT/v/correctness.log" 2>&1
echo "correctness: exit $?"; tail -n 3 "$OUT/v/correctness.log"
$B run --quiet --out "$OUT/v/accuracy" configs/accuracy.json > "$OUT/v/accuracy.log" 2>&1
echo "accuracy: exit $?"
$B run --quiet --plot --out "$OUT/v/ablation" configs/ablation.json > "$OUT/v/ablation.log" 2>&1
echo "ablation: exit $?"
tar -C "$OUT" -czf "$OUT/variants.tar.gz" v && rm -rf "$OUT/v"
