#!/usr/bin/env bash
# One device call for several kernel builds side by side (scripts/build-branches.sh makes them):
# scripts/device-kernel-iter.sh once per build folder (layout test, sm90 correctness, planted bugs,
# mixed-mla timed; each leaves $OUT/iter-<folder>.tgz), then, with PEAKED=1, the known failure
# (tests/gpu/peaked-scores.json) dumped with the first build and explained by scripts/worst-row.py on
# the device: the dumps are ~20 MB a case, so only $OUT/worst-rows.txt comes back. At most 8 files
# come back from a device call: five builds and the peaked text fit.
#   scripts/device-compare-builds.sh build build-ex2-ftz build-p-stmatrix build-vt-stmatrix
set -uo pipefail
. "$(dirname "$0")/device-env.sh"
[ $# -gt 0 ] || { sed -n '2,8p' "$0"; exit 2; }
mkdir -p "$OUT"
start=$SECONDS
for b in "$@"; do
    echo "=== $b ($((SECONDS - start)) s)"
    BUILD=$b timeout -k 10 200 bash scripts/device-kernel-iter.sh 2>&1 | grep -v '^$' | head -30
done
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
echo "done ($((SECONDS - start)) s)"
