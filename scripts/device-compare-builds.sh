#!/usr/bin/env bash
# One device call for several kernel builds side by side (scripts/build-branches.sh makes them):
# scripts/device-kernel-iter.sh once per build folder (layout test, sm90 correctness, planted bugs,
# mixed-mla timed; each leaves $OUT/iter-<folder>.tgz), then, with PEAKED=1, the known failure
# (tests/gpu/peaked-scores.json) dumped with the first build and explained by scripts/worst-row.py on
# the device: the dumps are ~20 MB a case, so only $OUT/worst-rows.txt comes back. At most 8 files
# come back from a device call: five builds and the peaked text fit. With ROUNDS=N (N >= 2) the timed
# config is then run N - 1 more times a build, the builds in alternating order (reversed on even
# rounds), into $OUT/rounds.tgz: scripts/compare-rounds.py calls a change only where the rounds
# separate (two builds of the same code have differed by 3 % in one call); ~6-7 s a build a round
# (mixed-mla, thirty-ninth session), each round line gives the seconds elapsed; the first round, with
# each build's tests, ~18 s a build. With ONE_FILE=1 everything it wrote goes back
# as one $OUT/compare.tgz (a call returns at most eight files: two comparisons in one call lost the
# second one's rounds); unpack it into a folder and give that folder to compare-rounds.py, and file it
# with scripts/collect-rounds.sh. With PLACEMENTS=N every timed run has "placements": N (a copy of the
# config under the same name): a change to either kernel can move every placement of a short 64-row
# shape at once, and eight brought two builds within their spread where three did not (README, "How it
# times"). Code that never runs moves them too (a walker grown by dead code: +4-9 % on b32-q4-kv1024,
# README "How it times"): to judge a change there, add a control build that only moves the code
# (results/h200/steps/sm90-wgmma-rounds-s39-code-shift/diag-shift*.patch on the same base). One binary
# under several environments (CUDA_MODULE_LOADING=EAGER, a diagnostic's MB_DIAG_* knob) compares the
# same way: scripts/env-build.sh makes each a build folder of wrappers.
# With ICACHE=cold every timed run has "icache": "cold" (the A/B of a change to the short 64-row
# shapes, where the warm verdict is partly a draw of the code's place; README "How it times"); the
# eviction adds ~0.2 ms a timed call, and a cold mixed-mla run at 8 placements still takes ~7 s
# (results/h200/steps/s41-evict-sliced/).
# With BUDGET_S=N a further round starts only if the last one would still end within N seconds of
# the start, so a call's time limit is kept; every build then has the same number of rounds, and the
# log says where it stopped. The first estimate is the first round's timed runs (a second a build
# added), not the whole first round: its tests took ~20 s a build against ~7 s for a timed run, and
# that estimate stopped two of the fifty-first session's comparisons after one round.
# Two configs in one device call: run it once per config, each with its own OUT under the call's, and
# file each archive with scripts/collect-rounds.sh (thirty-eighth session: mixed-mla and paged).
#   scripts/device-compare-builds.sh build build-ex2-ftz build-p-stmatrix build-vt-stmatrix
#   ROUNDS=3 PLACEMENTS=8 scripts/device-compare-builds.sh build build-v61
#   OUT=$OUT/paged CONFIG=configs/paged.json ROUNDS=3 ONE_FILE=1 scripts/device-compare-builds.sh build-main build-x
set -uo pipefail
. "$(dirname "$0")/device-env.sh"
[ $# -gt 0 ] || { sed -n '2,34p' "$0"; exit 2; }
mkdir -p "$OUT"
start=$SECONDS
[ -z "${BUDGET_S:-}" ] || [[ $BUDGET_S =~ ^[1-9][0-9]*$ ]] ||
    { echo "device-compare-builds: BUDGET_S expects seconds, got '$BUDGET_S'" >&2; exit 2; }
if [ -n "${PLACEMENTS:-}${ICACHE:-}" ]; then
    src=${CONFIG:-configs/mixed-mla.json}
    mkdir -p "$OUT/config"
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
if sys.argv[2]: d.setdefault("defaults", {})["placements"] = int(sys.argv[2])
if sys.argv[3]: d.setdefault("defaults", {})["icache"] = sys.argv[3]
json.dump(d, sys.stdout, indent=1)' "$src" "${PLACEMENTS:-}" "${ICACHE:-}" > "$OUT/config/$(basename "$src")" ||
        { echo "device-compare-builds: PLACEMENTS expects a count, got '$PLACEMENTS'" >&2; exit 2; }
    export CONFIG=$OUT/config/$(basename "$src")
fi
rounds=${ROUNDS:-1}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "device-compare-builds: ROUNDS expects a count >= 1, got '$rounds'" >&2; exit 2; }
timed=0 reported=0
for b in "$@"; do
    echo "=== $b ($((SECONDS - start)) s)"
    out=$(BUILD=$b timeout -k 10 200 bash scripts/device-kernel-iter.sh 2>&1 | grep -v '^$' | head -30)
    echo "$out"
    t=$(sed -n 's/^timed run: \([0-9]*\) s$/\1/p' <<< "$out")
    [ -n "$t" ] && timed=$((timed + t + 1)) reported=$((reported + 1))
done
# A timed round's first estimate: the first round's timed runs where every build reported one, else
# the whole first round (tests and all: longer than a timed round, so safe).
last=$((SECONDS - start))
((reported == $#)) && last=$timed
for ((r = 2; r <= rounds; r++)); do
    if [ -n "${BUDGET_S:-}" ] && ((SECONDS - start + last > BUDGET_S)); then
        echo "rounds stopped before round $r: ~${last} s a round would pass BUDGET_S=$BUDGET_S"; break
    fi
    round_start=$SECONDS
    order=("$@")
    if ((r % 2 == 0)); then order=(); for b in "$@"; do order=("$b" "${order[@]}"); done; fi
    for b in "${order[@]}"; do
        mkdir -p "$OUT/rounds/$b/r$r"
        timeout -k 10 -s INT 120 "$b/mla-bench" run --quiet --kernel sm90 --out "$OUT/rounds/$b/r$r" \
            "${CONFIG:-configs/mixed-mla.json}" > "$OUT/rounds/$b/r$r/run.log" 2>&1
        echo "round $r, $b: exit $? ($((SECONDS - start)) s)"
    done
    last=$((SECONDS - round_start))
done
if ((rounds > 1)); then
    tar -C "$OUT" -czf "$OUT/rounds.tgz" rounds && rm -rf "$OUT/rounds"
fi
if [ -n "${PEAKED:-}" ]; then
    echo "=== peaked scores, $1 ($((SECONDS - start)) s)"
    timeout -k 10 -s INT 120 "$1/mla-bench" run --quiet --kernel sm90 --out "$OUT/peaked" --dump "$OUT/dump" \
        tests/gpu/peaked-scores.json > "$OUT/peaked.log" 2>&1
    echo "run: exit $?"
    shopt -s nullglob
    for d in "$OUT"/dump/*/; do python3 scripts/worst-row.py "$d"; echo; done > "$OUT/worst-rows.txt" 2>&1
    cat "$OUT/worst-rows.txt"
    (cd "$OUT" && tar -czf peaked.tgz peaked.log $([ -d peaked ] && echo peaked)) && rm -rf "$OUT/dump" "$OUT/peaked" "$OUT/peaked.log"
fi
if [ -n "${ONE_FILE:-}" ]; then
    (cd "$OUT" && shopt -s nullglob && files=(iter-*.tgz rounds.tg[z] peaked.tg[z] worst-rows.tx[t]) &&
        tar -czf compare.tgz "${files[@]}" && rm -f "${files[@]}")
    rm -rf "$OUT/config"
fi
echo "done ($((SECONDS - start)) s)"
