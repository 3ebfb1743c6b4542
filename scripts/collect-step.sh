#!/usr/bin/env bash
# Files one build's run of scripts/device-kernel-iter.sh (its iter-<build>.tgz, as
# scripts/device-compare-builds.sh brings it back) as a step of results/NOTES.md:
# results/<gpu>/steps/sm90-wgmma-<STEP>/ (<gpu> the model the run records, scripts/results-dir.py;
# RESULTS=DIR to file elsewhere) gets the layout test's log, the correctness sweep, the planted
# bugs' counts and the timed mixed-mla tables, as measured.
#   scripts/collect-step.sh /work/.device/1/iter-build-cvt-widen.tgz v36-cvt-widen
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,6p' "$0"; exit 2; }
tgz=$1 step=$2
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$tgz"
src=$(echo "$tmp"/iter-*)
[ -d "$src" ] || { echo "collect-step: $tgz holds no iter-* folder" >&2; exit 1; }
[ -f "$src/m/mixed-mla.csv" ] || { echo "collect-step: $tgz has no timed run (its layout test failed?): $(tail -n 1 "$src/layout.log")" >&2; exit 1; }
# Older runs have their planted-bug counts only in their device call's output.
[ -f "$src/planted-bugs.log" ] || { echo "collect-step: $tgz has no planted-bugs.log (device-kernel-iter.sh writes it since the ninth wgmma session)" >&2; exit 1; }
R=${RESULTS:-$(python3 scripts/results-dir.py "$src")}
dst=$R/steps/sm90-wgmma-$step
mkdir -p "$dst"
cp "$src/layout.log" "$dst/layout-test.log"
cp "$src/c/correctness.csv" "$dst/gpu-correctness.csv"
cp "$src"/m/mixed-mla.{csv,json,md} "$dst/"
cp "$src/planted-bugs.log" "$dst/"
echo "$dst: $(awk -F, 'NR > 1 && $NF != "pass"' "$dst/gpu-correctness.csv" | wc -l) correctness cases not passing; $(tr '\n' ';' < "$dst/planted-bugs.log")"
