#!/usr/bin/env bash
# Files a comparison of builds that scripts/device-compare-builds.sh ran with ROUNDS >= 2 (its
# compare.tgz, or the folder it was unpacked into) as results/<gpu>/steps/sm90-wgmma-rounds-NAME/
# (<gpu> the model the runs record, scripts/results-dir.py; RESULTS=DIR to file elsewhere):
# each build's timed table of every round (mixed-mla's, or CONFIG's; round 1 from its iter-*.tgz, the others from
# rounds.tgz), as measured, and scripts/compare-rounds.py's verdicts in both modes against `build`
# (BASE=FOLDER for another base build, e.g. a stripped copy of main's carried as build-main).
# File each build's tests with scripts/collect-step.sh as well. A call that timed rounds without the
# tests (no iter-*.tgz) files its rounds alone.
#   scripts/collect-rounds.sh /work/.device/2/compare.tgz v80b-v80c
set -euo pipefail
shopt -s nullglob
[ $# -eq 2 ] || { sed -n '2,9p' "$0"; exit 2; }
src=$1 name=$2
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -f "$src" ]; then mkdir "$tmp/in" && tar -C "$tmp/in" -xzf "$src" && src=$tmp/in; fi
[ -f "$src/rounds.tgz" ] || { echo "collect-rounds: $src has no rounds.tgz (was ROUNDS >= 2?)" >&2; exit 1; }
mkdir -p "$tmp/x"
for f in "$src"/iter-*.tgz; do tar -C "$tmp/x" -xzf "$f"; done
tar -C "$tmp/x" -xzf "$src/rounds.tgz"
R=${RESULTS:-$(python3 scripts/results-dir.py "$tmp/x")}
dst=$R/steps/sm90-wgmma-rounds-$name
mkdir -p "$dst"
for d in "$tmp"/x/iter-*; do
    b=${d##*/iter-}
    # a build whose tests stopped before its timed run (its layout test missing, say) has no round 1
    csv=("$d"/m/*.csv)
    [ ${#csv[@]} -gt 0 ] || { echo "collect-rounds: $b has no round 1 (its iter stopped early)" >&2; continue; }
    mkdir -p "$dst/$b/r1" && cp "${csv[@]}" "$dst/$b/r1/"
done
for d in "$tmp"/x/rounds/*/r*; do
    b=$(basename "$(dirname "$d")")
    mkdir -p "$dst/$b/$(basename "$d")" && cp "$d"/*.csv "$dst/$b/$(basename "$d")/"
done
for mode in graph eager; do   # a config timed in one mode only (configs/paged.json: graph) has one verdict table
    python3 scripts/compare-rounds.py "$src" --base "${BASE:-build}" --mode "$mode" > "$dst/compare-rounds-$mode.md" ||
        { rm -f "$dst/compare-rounds-$mode.md"; echo "collect-rounds: no $mode verdicts" >&2; }
done
echo "$dst: $(find "$dst" -name '*.csv' | wc -l) tables"
