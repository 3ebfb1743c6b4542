#!/usr/bin/env bash
# Files the Nsight Compute probes of one build's device-kernel-iter.sh run (its iter-<build>.tgz, with
# PROBES set) under $RESULTS/steps/ncu/ (default: the folder of the GPU model the probes' runs
# record, scripts/results-dir.py; RESULTS=DIR files elsewhere, as in collect-step.sh) named after
# LABEL: per shape the report's text, and the hottest instructions, opcodes, phases and tile loops
# (scripts/ncu-hot.py) of its per-instruction table. Used by scripts/collect-evidence.sh for main,
# and on its own for a branch's build.
#   scripts/collect-profile.sh /work/.device/4/iter-build-v52-four-stages.tgz v52-four-stages
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,8p' "$0"; exit 2; }
tgz=$1 label=$2
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$tgz"
if [ -z "${RESULTS:-}" ]; then
    RESULTS=$(python3 scripts/results-dir.py "$tmp") ||
        { echo "collect-profile: $tgz: which GPU it ran on is not known" >&2; exit 1; }
fi
dst=$RESULTS/steps/ncu
mkdir -p "$dst"
n=0
for rep in "$tmp"/iter-*/ncu-[0-9]*.txt; do
    [ -e "$rep" ] || continue
    IFS=- read -r b q h kv <<< "$(basename "$rep" .txt | sed 's/^ncu-//')"
    shape=b$b-q$q-h$h-kv$kv
    src="$(dirname "$rep")/src-$b-$q-$h-$kv.csv"
    cp "$rep" "$dst/$label-ncu-$shape.txt"
    n=$((n + 1))
    # no per-instruction table where device-kernel-iter.sh leaves SourceCounters out (64-row shapes)
    [ -f "$src" ] || { echo "collect-profile: $shape has no per-instruction table (report text only)"; continue; }
    python3 scripts/ncu-hot.py "$src" > "$dst/$label-hot-instructions-$shape.txt"
    python3 scripts/ncu-hot.py --by-opcode "$src" > "$dst/$label-opcodes-$shape.txt"
    python3 scripts/ncu-hot.py --phases "$src" > "$dst/$label-phases-$shape.txt"
    python3 scripts/ncu-hot.py --loops "$src" > "$dst/$label-loops-$shape.txt"
done
echo "collect-profile: $n profile(s) of $tgz filed as $dst/$label-*"
