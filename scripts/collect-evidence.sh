#!/usr/bin/env bash
# Files the evidence that scripts/device-evidence.sh brought back into results/<model>/ (results/h200,
# results/h100: the GPU model its runs record, scripts/results-dir.py), where the README and the
# regression gate read it: the tables as measured (never edited), the gate's comparisons and every
# chart (SVG by `mla-bench plot` or the run itself, PNG by rsvg-convert when it is installed), the
# tuning file, and the profile under results/<model>/steps/ncu/ named after LABEL. Needs `make` first.
# MB_RESULTS_ROOT (default results) moves the whole filing elsewhere (the host tests use it).
#   scripts/collect-evidence.sh PART1_DIR PART2_DIR LABEL     e.g. /work/.device/3 /work/.device/4 v34
# Either part may be "-" to skip it, or the archive `device-evidence.sh both` brought back in place of
# its folder (e.g. /work/.device/5/p1.tgz /work/.device/5/p2.tgz v162). Afterwards: `git diff --stat
# results/`, then the README's numbers and results/NOTES.md from the new tables.
set -euo pipefail
[ $# -eq 3 ] || { sed -n '2,11p' "$0"; exit 2; }
p1=$1 p2=$2 label=$3
cd "$(dirname "$0")/.."
ROOT=${MB_RESULTS_ROOT:-results}
R=
B=build/mla-bench
[ -x "$B" ] || { echo "collect-evidence: $B not built (run make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A part's archive (p1.tgz: its folder p1) is unpacked and its folder read as the part's.
unpack() {
    case $1 in
    *.tgz)
        mkdir -p "$tmp/$2" && tar -C "$tmp/$2" -xzf "$1" || { echo "collect-evidence: $1: not a readable archive" >&2; exit 1; }
        local d=("$tmp/$2"/*)
        [ ${#d[@]} -eq 1 ] && [ -d "${d[0]}" ] || { echo "collect-evidence: $1 holds more than one folder" >&2; exit 1; }
        part=${d[0]} ;;
    *) part=$1 ;;
    esac
}
unpack "$p1" a1; p1=$part
unpack "$p2" a2; p2=$part
png() { if command -v rsvg-convert > /dev/null; then rsvg-convert "$1.svg" -o "$1.png"; else echo "no rsvg-convert: $1.png not redrawn" >&2; fi; }

# Each GPU model's evidence goes to its own folder (the device tool may lend an H100 where an H200 was
# asked for, and an H100's tables are not an H200's baseline): every archive is checked before anything
# is filed, and archives of two models, or of none known, are refused.
# Each archive is unpacked here once, into the folder its files are filed from.
for a in "$p1/tables.tar.gz:tables" "$p1/floor.tgz:floor" "$p1/iter-build.tgz:iter-build" "$p2/variants.tar.gz:v" "$p2/evidence.tar.gz:e"; do
    [ -f "${a%:*}" ] || continue
    tar -C "$tmp" -xzf "${a%:*}"
    got=$(python3 scripts/results-dir.py "$tmp/${a##*:}") ||
        { echo "collect-evidence: ${a%:*}: which GPU it ran on is not known" >&2; exit 1; }
    got=$ROOT/${got#results/}
    [ -z "$R" ] || [ "$got" = "$R" ] ||
        { echo "collect-evidence: ${a%:*} ran on ${got##*/}, the other archives on ${R##*/}: nothing filed" >&2; exit 1; }
    R=$got
done
[ -n "$R" ] || { echo "collect-evidence: no archive to file in $p1 or $p2" >&2; exit 1; }
mkdir -p "$R"/{sm90,portable,paged,ablation,accuracy,sweep,tuned,gate} "$ROOT/tuning"
echo "collect-evidence: filing into $R"

# A profiling-only call (ONLY_PROBES=1 scripts/device-kernel-iter.sh) brings back iter-build.tgz alone:
# its profiles are filed, the rest of part 1 only when its GPU test log is there.
if [ "$p1" != - ] && [ ! -f "$p1/gpu-tests.log" ] && [ ! -f "$p1/iter-build.tgz" ]; then
    echo "collect-evidence: $p1 holds neither part 1 (gpu-tests.log) nor profiles (iter-build.tgz)" >&2; exit 1
fi
if [ "$p1" != - ] && [ -f "$p1/gpu-tests.log" ]; then
    for f in info.log gpu-tests.log correctness-sm90.csv correctness-portable.csv tables.tar.gz paged.tgz; do
        [ -f "$p1/$f" ] || { echo "collect-evidence: $p1/$f missing (part 1 incomplete?)" >&2; exit 1; }
    done
    grep -Eq '^[0-9]+ passed, 0 failed$' <(tail -n 1 "$p1/gpu-tests.log") ||
        { echo "collect-evidence: the GPU tests did not all pass: $(tail -n 1 "$p1/gpu-tests.log")" >&2; exit 1; }
    cp "$p1/info.log" "$p1/gpu-tests.log" "$R/"
    cp "$p1/correctness-sm90.csv" "$R/sm90/gpu-correctness.csv"
    cp "$p1/correctness-portable.csv" "$R/portable/gpu-correctness.csv"
    # The layout test's own lines: from after "kernels under test" to its "N passed, N failed".
    awk 'NR > 1 { print } /^[0-9]+ passed, [0-9]+ failed$/ { exit }' "$p1/gpu-tests.log" > "$R/sm90/layout-test.log"
    sed -nE 's/^ok   ([a-z-]+) \(sm90\): the check fails ([0-9]+) of ([0-9]+) cases$/\1: caught in \2 of \3/p' \
        "$p1/gpu-tests.log" > "$R/sm90/planted-bugs.log"
    for k in sm90 portable; do cp "$tmp"/tables/$k/mixed-mla.{csv,json,md} "$R/$k/"; done
    "$B" plot "$R/sm90/mixed-mla.json" > /dev/null && png "$R/sm90/mixed-mla"
    tar -C "$tmp" -xzf "$p1/paged.tgz"
    cp "$tmp"/paged/paged.{csv,json,md,svg} "$R/paged/" && png "$R/paged/paged"
    # The read-once floor (part 1 archives before the fifty-second session have none).
    if [ -f "$p1/floor.tgz" ]; then mkdir -p "$R/floor" && cp "$tmp"/floor/mixed-mla-floor.{json,md,csv} "$R/floor/"; fi
fi
if [ "$p1" != - ] && [ -f "$p1/iter-build.tgz" ]; then
    RESULTS=$R scripts/collect-profile.sh "$p1/iter-build.tgz" "$label"
fi

if [ "$p2" != - ]; then
    # Part 2's two halves may come from separate calls (scripts/device-ablation.sh: variants.tar.gz;
    # scripts/device-sweep-gate.sh: evidence.tar.gz): each is filed if present, and the README must
    # say which commit the tables of a half left out are.
    [ -f "$p2/variants.tar.gz" ] || [ -f "$p2/evidence.tar.gz" ] ||
        { echo "collect-evidence: $p2 holds neither variants.tar.gz nor evidence.tar.gz" >&2; exit 1; }
    if [ -f "$p2/variants.tar.gz" ]; then
        cp "$tmp"/v/ablation/ablation.{csv,json,md,svg} "$R/ablation/" && cp "$tmp/v/ablation.log" "$R/ablation/run.log"
        png "$R/ablation/ablation"
        cp "$tmp"/v/accuracy/accuracy.{csv,json,md} "$R/accuracy/"
    else
        echo "collect-evidence: no $p2/variants.tar.gz: ablation and accuracy not refiled" >&2
    fi
fi
if [ "$p2" != - ] && [ -f "$p2/evidence.tar.gz" ]; then
    cp "$tmp"/e/sweep/* "$R/sweep/" && png "$R/sweep/mixed-mla-sweep"
    cp "$tmp"/e/tuned/* "$R/tuned/"
    cp "$tmp"/e/tuning/*.json "$ROOT/tuning/"   # named after the GPU (device-sweep-gate.sh)
    for x in aa-1 aa-2 ab-slow; do
        for ext in csv json md; do cp "$tmp/e/$x/mixed-mla.$ext" "$R/gate/$x.$ext"; done
    done
    # The gate's verdicts (exit 3 on the A/B pair is the point of it).
    "$B" compare --quiet --json "$R/gate/aa.json" --plot "$R/gate/aa-1.json" "$R/gate/aa-2.json" || true
    "$B" compare --quiet --json "$R/gate/ab.json" --plot "$R/gate/aa-1.json" "$R/gate/ab-slow.json" || true
    png "$R/gate/aa" && png "$R/gate/ab"
fi
git status --short "$ROOT/" 2>/dev/null || true
