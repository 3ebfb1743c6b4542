#!/usr/bin/env bash
# scripts/collect-evidence.sh files only an H200's evidence into results/h200 (the README's tables and
# the gate's baseline): archives whose runs record another GPU model, or none, are refused with exit 1
# and nothing under results/ changes. Synthetic archives, no GPU; needs build/mla-bench (`make`).
set -uo pipefail
cd "$(dirname "$0")/../.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
before=$(git status --porcelain results)
pass=0 fail=0

# DIR ARCHIVE TOP NAME: DIR/ARCHIVE holding TOP/run.json whose device is NAME ("" = none recorded),
# beside the rest of a part 1's files.
part() {
    mkdir -p "$1/$3"
    if [ -n "$4" ]; then printf '{"device":{"name":"%s"}}' "$4"; else printf '{"cases":[]}'; fi > "$1/$3/run.json"
    tar -C "$1" -czf "$1/$2" "$3" && rm -rf "${1:?}/$3"
    for f in info.log correctness-sm90.csv correctness-portable.csv paged.tgz; do : > "$1/$f"; done
    echo "43 passed, 0 failed" > "$1/gpu-tests.log"
}
# NAME P1 P2 WANT: collect-evidence refuses, saying WANT, and leaves results/ as it was.
check() {
    local out rc
    out=$(scripts/collect-evidence.sh "$2" "$3" guard-test 2>&1); rc=$?
    if [ $rc -eq 1 ] && grep -q "$4" <<< "$out" && [ "$(git status --porcelain results)" = "$before" ]; then
        echo "ok   $1"; pass=$((pass + 1))
    else
        echo "FAIL $1: exit $rc, want 1 and \"$4\"; $out"; fail=$((fail + 1))
        git checkout -q -- results 2>/dev/null   # what a broken guard filed
    fi
}

part "$t/h100" tables.tar.gz tables "NVIDIA H100 80GB HBM3"
check "an H100's part 1 refused" "$t/h100" - "tables.tar.gz ran on h100, not h200: nothing filed"
part "$t/none" tables.tar.gz tables ""
check "a part 1 recording no GPU refused" "$t/none" - "which GPU it ran on is not known"
part "$t/p2" evidence.tar.gz e "NVIDIA H100 80GB HBM3"
check "an H100's part 2 refused" - "$t/p2" "evidence.tar.gz ran on h100, not h200: nothing filed"
part "$t/h200" tables.tar.gz tables "NVIDIA H200"
check "an H200's part 1 beside an H100's part 2 refused before anything is filed" "$t/h200" "$t/p2" "evidence.tar.gz ran on h100"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
