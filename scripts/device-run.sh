#!/usr/bin/env bash
# One full GPU session: describe the GPU, run the GPU tests, then benchmark configs with every kernel
# the GPU runs. Logs and tables go under $OUT (default ./device-out); the tables also as one
# tables.tar.gz. Expects a binary built elsewhere and .deps/lib beside it (scripts/bundle-deps.sh).
#   scripts/device-run.sh [CONFIG...]      (default: configs/mixed-mla.json)
set -uo pipefail
. "$(dirname "$0")/device-env.sh"
mkdir -p "$OUT"
configs=("$@"); [ ${#configs[@]} -gt 0 ] || configs=(configs/mixed-mla.json)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv || true
  build/mla-bench info; } 2>&1 | tee "$OUT/info.log"
MB_KEEP_DIR="$OUT" bash tests/gpu/run.sh build/mla-bench > "$OUT/gpu-tests.log" 2>&1
grep -E '^(ok|FAIL)|passed' "$OUT/gpu-tests.log"
for k in sm90 portable; do
    build/mla-bench run --quiet --kernel "$k" --out "$OUT/tables/$k" "${configs[@]}" 2>&1 | tee -a "$OUT/run.log"
done
tar -C "$OUT" -czf "$OUT/tables.tar.gz" tables && rm -rf "$OUT/tables"
