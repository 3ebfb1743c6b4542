#!/usr/bin/env bash
# The performance gate for a CI runner with a GPU: build, run the gate config, compare against the
# committed baseline, keep the tables as artifacts. Exit codes are mla-bench's: 0 no regression,
# 3 a regression, 1 a check failed, 2 usage/config/baseline error, 4 GPU error.
#
#   scripts/ci-perf-gate.sh [CONFIG] [BASELINE]
#     CONFIG    default configs/mixed-mla.json
#     BASELINE  default results/<model>/sm90/mixed-mla.json for the GPU model `mla-bench info` names
#               (results/h200/... on an H200, results/h100/... on an H100; scripts/results-dir.py):
#               results of the same config on the same kind of GPU
#   Environment: ARTIFACTS (default artifacts/perf-gate), MAX_REGRESSION (default 5%),
#                CONFIRM (default 1: a regression must show again in a second run; 0 to trust one run),
#                SKIP_MAKE (1: use the build/ already there, e.g. built by an earlier step or carried to
#                a machine without the build's dependencies), MLA_BENCH (the binary, default
#                ./build/mla-bench; the host tests give a stand-in to check the confirmation logic).
#
# Why a second run: one process's run can read a case a few percent slow on its own, every sample of
# it (the recorded A/A pair results/h200/gate/aa-*.json has b32-q4-kv1024 graph 26.4 against 28.1 us,
# which 5 % calls regressed, while twelve processes of the same binary read 26.2-26.6; within a run
# the samples agree to ~1 %, so the Mann-Whitney test cannot see it). A real regression shows in both
# runs; a false alarm would have to strike twice. The first run's tables stay the artifacts.
# The baseline must come from the same kind of GPU (compare refuses a different device name) and the
# same kernel. To move the baseline after an intended change, commit the new run's JSON over it.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-configs/mixed-mla.json}
ARTIFACTS=${ARTIFACTS:-artifacts/perf-gate}
MAX_REGRESSION=${MAX_REGRESSION:-5%}
CONFIRM=${CONFIRM:-1}
BIN=${MLA_BENCH:-./build/mla-bench}

[ "${SKIP_MAKE:-0}" = 1 ] || make -j"$(nproc)"
mkdir -p "$ARTIFACTS"
"$BIN" info | tee "$ARTIFACTS/info.txt"
if [ $# -ge 2 ]; then
    BASELINE=$2
else
    # `device        NVIDIA H100 80GB HBM3 (nvidia, sm_90)`: the name without the part in brackets.
    name=$(sed -n 's/^device  *\(.*\) (.*$/\1/p' "$ARTIFACTS/info.txt" | head -n 1)
    dir=$(python3 scripts/results-dir.py --name "$name") ||
        { echo "perf gate: no baseline for the device \"$name\": give one (scripts/ci-perf-gate.sh CONFIG BASELINE)"; exit 2; }
    BASELINE=$dir/sm90/$(basename "$CONFIG" .json).json
    [ -f "$BASELINE" ] ||
        { echo "perf gate: no baseline $BASELINE for this GPU model: record one (scripts/collect-evidence.sh) or give one"; exit 2; }
fi
echo "perf gate: baseline $BASELINE"
set +e
"$BIN" run --quiet --plot --out "$ARTIFACTS" --baseline "$BASELINE" \
    --max-regression "$MAX_REGRESSION" "$CONFIG" 2>&1 | tee "$ARTIFACTS/gate.txt"
rc=${PIPESTATUS[0]}
runs="in one run (CONFIRM=0)"
if [ "$rc" -eq 3 ] && [ "$CONFIRM" = 1 ]; then
    runs="in both runs"
    echo "perf gate: a regression in the first run; confirming with a second run"
    "$BIN" run --quiet --out "$ARTIFACTS/confirm" --baseline "$BASELINE" \
        --max-regression "$MAX_REGRESSION" "$CONFIG" 2>&1 | tee "$ARTIFACTS/confirm.txt"
    rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] && echo "perf gate: the second run shows no regression: the first run's was noise (kept in gate.txt)"
fi
set -e
stem=$(basename "$CONFIG" .json)
"$BIN" compare --quiet --max-regression "$MAX_REGRESSION" --json "$ARTIFACTS/compare.json" --plot \
    "$BASELINE" "$ARTIFACTS/$stem.json" > /dev/null 2>&1 || true
case $rc in
    0) echo "perf gate: no regression against $BASELINE" ;;
    3) echo "perf gate: REGRESSION against $BASELINE, $runs (see $ARTIFACTS/gate.txt, confirm.txt if any, and compare.svg)" ;;
    1) echo "perf gate: a correctness check FAILED (see $ARTIFACTS/gate.txt)" ;;
    *) echo "perf gate: error $rc (see $ARTIFACTS/gate.txt)" ;;
esac
exit "$rc"
