#!/usr/bin/env bash
# The performance gate for a CI runner with a GPU: build, run the gate config, compare against the
# committed baseline, keep the tables as artifacts. Exit codes are mla-bench's: 0 no regression,
# 3 a regression, 1 a check failed, 2 usage/config/baseline error, 4 GPU error.
#
#   scripts/ci-perf-gate.sh [CONFIG] [BASELINE]
#     CONFIG    default configs/mixed-mla.json
#     BASELINE  default results/h200/sm90/mixed-mla.json (results of the same config on the same GPU)
#   Environment: ARTIFACTS (default artifacts/perf-gate), MAX_REGRESSION (default 5%).
#
# The baseline must come from the same kind of GPU (compare refuses a different device name) and the
# same kernel. To move the baseline after an intended change, commit the new run's JSON over it.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-configs/mixed-mla.json}
BASELINE=${2:-results/h200/sm90/mixed-mla.json}
ARTIFACTS=${ARTIFACTS:-artifacts/perf-gate}
MAX_REGRESSION=${MAX_REGRESSION:-5%}

make -j"$(nproc)"
mkdir -p "$ARTIFACTS"
./build/mla-bench info | tee "$ARTIFACTS/info.txt"
set +e
./build/mla-bench run --quiet --plot --out "$ARTIFACTS" --baseline "$BASELINE" \
    --max-regression "$MAX_REGRESSION" "$CONFIG" 2>&1 | tee "$ARTIFACTS/gate.txt"
rc=${PIPESTATUS[0]}
set -e
stem=$(basename "$CONFIG" .json)
./build/mla-bench compare --quiet --max-regression "$MAX_REGRESSION" --json "$ARTIFACTS/compare.json" --plot \
    "$BASELINE" "$ARTIFACTS/$stem.json" > /dev/null 2>&1 || true
case $rc in
    0) echo "perf gate: no regression against $BASELINE" ;;
    3) echo "perf gate: REGRESSION against $BASELINE (see $ARTIFACTS/gate.txt and compare.svg)" ;;
    1) echo "perf gate: a correctness check FAILED (see $ARTIFACTS/gate.txt)" ;;
    *) echo "perf gate: error $rc (see $ARTIFACTS/gate.txt)" ;;
esac
exit "$rc"
