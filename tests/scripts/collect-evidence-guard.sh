#!/usr/bin/env bash
# scripts/collect-evidence.sh files each GPU model's evidence into its own folder (results/h200 holds
# the README's H200 tables and the H200 gate's baseline; an H100's run goes to results/h100): archives
# whose runs record no known model, or two models between them, are refused with exit 1 before anything
# is filed. Synthetic archives (the filed one made of the committed H100 tables), no GPU; the filing goes
# under a temporary MB_RESULTS_ROOT, and the repository's results/ must not change. Needs build/mla-bench.
set -uo pipefail
cd "$(dirname "$0")/../.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
before=$(git status --porcelain results)
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# DIR ARCHIVE TOP NAME: DIR/ARCHIVE holding TOP/run.json whose device is NAME ("" = none recorded),
# beside the rest of a part 1's files.
part() {
    mkdir -p "$1/$3"
    if [ -n "$4" ]; then printf '{"device":{"name":"%s"}}' "$4"; else printf '{"cases":[]}'; fi > "$1/$3/run.json"
    tar -C "$1" -czf "$1/$2" "$3" && rm -rf "${1:?}/$3"
    for f in info.log correctness-sm90.csv correctness-portable.csv paged.tgz; do : > "$1/$f"; done
    echo "43 passed, 0 failed" > "$1/gpu-tests.log"
}
# NAME P1 P2 WANT: collect-evidence refuses, saying WANT, and files nothing anywhere.
check() {
    local out rc
    out=$(MB_RESULTS_ROOT=$t/results scripts/collect-evidence.sh "$2" "$3" guard-test 2>&1); rc=$?
    if [ $rc -eq 1 ] && grep -q "$4" <<< "$out" && [ "$(git status --porcelain results)" = "$before" ] &&
        [ -z "$(find "$t/results" -type f 2>/dev/null)" ]; then
        ok "$1"
    else
        bad "$1: exit $rc, want 1 and \"$4\"; $out"
        git checkout -q -- results 2>/dev/null   # what a broken guard filed
    fi
}

part "$t/none" tables.tar.gz tables ""
check "a part 1 recording no GPU refused" "$t/none" - "which GPU it ran on is not known"
part "$t/p2" evidence.tar.gz e "NVIDIA H100 80GB HBM3"
part "$t/h200" tables.tar.gz tables "NVIDIA H200"
check "an H200's part 1 beside an H100's part 2 refused before anything is filed" "$t/h200" "$t/p2" \
    "evidence.tar.gz ran on h100, the other archives on h200: nothing filed"

# A whole part 1 from an H100, made of the committed H100 run and floor: filed under results/h100,
# nothing under results/h200, the tables byte for byte.
p1=$t/h100
mkdir -p "$p1/tables/sm90" "$p1/tables/portable" "$p1/paged" "$p1/floor"
for k in sm90 portable; do cp results/h100/$k/mixed-mla.{csv,json,md} "$p1/tables/$k/"; done
cp results/h100/paged/paged.{csv,json,md,svg} "$p1/paged/"
cp results/h100/floor/mixed-mla-floor.{csv,json,md} "$p1/floor/" && : > "$p1/floor.log"
tar -C "$p1" -czf "$p1/tables.tar.gz" tables && tar -C "$p1" -czf "$p1/paged.tgz" paged &&
    tar -C "$p1" -czf "$p1/floor.tgz" floor floor.log && rm -rf "$p1/tables" "$p1/paged" "$p1/floor" "$p1/floor.log"
cp results/h100/sm90/gpu-correctness.csv "$p1/correctness-sm90.csv"
cp results/h100/portable/gpu-correctness.csv "$p1/correctness-portable.csv"
cp results/h100/gpu-tests.log results/h100/info.log "$p1/"
out=$(MB_RESULTS_ROOT=$t/results scripts/collect-evidence.sh "$p1" - guard-test 2>&1); rc=$?
if [ $rc -eq 0 ] && cmp -s "$t/results/h100/sm90/mixed-mla.json" results/h100/sm90/mixed-mla.json &&
    cmp -s "$t/results/h100/paged/paged.csv" results/h100/paged/paged.csv &&
    cmp -s "$t/results/h100/floor/mixed-mla-floor.json" results/h100/floor/mixed-mla-floor.json && [ ! -e "$t/results/h200" ] &&
    [ "$(git status --porcelain results)" = "$before" ]; then
    ok "an H100's part 1 filed under results/h100 and nowhere else"
else
    bad "an H100's part 1: exit $rc; $out; $(cd "$t" && find results -type f | head)"
    git checkout -q -- results 2>/dev/null
fi

# The same part 1 as the archive `device-evidence.sh both` brings back (p1.tgz holding folder p1):
# filed as the folder was; an archive of two folders is refused.
mkdir -p "$t/arch" && cp -r "$p1" "$t/arch/p1" && tar -C "$t/arch" -czf "$t/arch/p1.tgz" p1
out=$(MB_RESULTS_ROOT=$t/results-a scripts/collect-evidence.sh "$t/arch/p1.tgz" - guard-test 2>&1); rc=$?
if [ $rc -eq 0 ] && cmp -s "$t/results-a/h100/sm90/mixed-mla.json" results/h100/sm90/mixed-mla.json &&
    cmp -s "$t/results-a/h100/floor/mixed-mla-floor.json" results/h100/floor/mixed-mla-floor.json &&
    [ "$(git status --porcelain results)" = "$before" ]; then
    ok "a part 1 given as its archive filed as its folder"
else
    bad "a part 1 given as its archive: exit $rc; $out"
    git checkout -q -- results 2>/dev/null
fi
mkdir -p "$t/arch/p2" && tar -C "$t/arch" -czf "$t/arch/two.tgz" p1 p2
out=$(MB_RESULTS_ROOT=$t/results-b scripts/collect-evidence.sh "$t/arch/two.tgz" - guard-test 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q "holds more than one folder" <<< "$out" && [ ! -e "$t/results-b" ]; then
    ok "an archive of two folders refused"
else
    bad "an archive of two folders: exit $rc; $out"
fi

# device-evidence.sh with EVIDENCE_GPU=H200 on an H100 (a stand-in nvidia-smi) runs nothing and exits 0:
# the device may lend an H100 where an H200 was asked for.
mkdir -p "$t/bin" && printf '#!/bin/sh\necho "NVIDIA H100 80GB HBM3"\n' > "$t/bin/nvidia-smi" && chmod +x "$t/bin/nvidia-smi"
out=$(PATH=$t/bin:$PATH EVIDENCE_GPU=H200 OUT=$t/ev timeout 60 scripts/device-evidence.sh both 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q 'not H200: nothing run' <<< "$out" && [ -z "$(ls -A "$t/ev" 2>/dev/null)" ]; then
    ok "device-evidence.sh runs nothing on a GPU other than EVIDENCE_GPU's"
else
    bad "device-evidence.sh's GPU guard: exit $rc; $out; $(ls -A "$t/ev" 2>/dev/null)"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
