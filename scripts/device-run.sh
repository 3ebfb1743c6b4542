#!/usr/bin/env bash
# One full GPU session: describe the GPU, run the GPU tests, then benchmark configs. Logs and tables
# go under $OUT (default ./device-out). Expects a binary built elsewhere and .deps/lib beside it
# (scripts/bundle-deps.sh); rebuilds nothing.
#   scripts/device-run.sh [CONFIG...]      (default: configs/mixed-mla.json)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
configs=("$@"); [ ${#configs[@]} -gt 0 ] || configs=(configs/mixed-mla.json)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv || true
  build/mla-bench info; } 2>&1 | tee "$OUT/info.log"
MB_KEEP_DIR="$OUT" bash tests/gpu/run.sh build/mla-bench > "$OUT/gpu-tests.log" 2>&1
tail -n 30 "$OUT/gpu-tests.log"
build/mla-bench run --out "$OUT/tables" "${configs[@]}" 2>&1 | tee "$OUT/run.log"
