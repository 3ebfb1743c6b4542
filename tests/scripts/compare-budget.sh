#!/usr/bin/env bash
# scripts/device-compare-builds.sh keeps BUDGET_S by estimating a timed round from the first round's
# timed runs, not from the whole first round with its tests: a budget that holds three timed rounds
# but not two first rounds gets its three, and one that cannot hold a second timed round stops after
# the first. Stub builds (scripts that sleep where mla-bench would test or time), no GPU.
set -uo pipefail
cd "$(dirname "$0")/../.."
t=$(mktemp -d)
builds=(build-stub-budget-a build-stub-budget-b)
trap 'rm -rf "$t" "${builds[@]}"' EXIT
pass=0 fail=0
for b in "${builds[@]}"; do
    mkdir -p "$b"
    # The tests take 6 s a build (the correctness sweep), a timed run 1 s: long beside the script's own
    # overhead, which a loaded machine stretches (at 3 s a build the three-round budget failed there).
    cat > "$b/mla-bench" <<'STUB'
#!/usr/bin/env bash
out= cfg=
while [ $# -gt 0 ]; do case $1 in --out) out=$2; shift ;; *.json) cfg=$1 ;; esac; shift; done
mkdir -p "$out"
name=$(basename "$cfg" .json)
case $name in
    correctness) sleep 6; printf 'name,status\nc,pass\n' > "$out/$name.csv" ;;
    negative) printf 'name,status\nn,fail\n' > "$out/$name.csv" ;;
    *) sleep 1; printf 'name,status\nm,pass\n' > "$out/$name.csv" ;;
esac
STUB
    printf '#!/bin/sh\necho "17 passed, 0 failed"\n' > "$b/sm90-layout-test"
    chmod +x "$b/mla-bench" "$b/sm90-layout-test"
done
# NAME BUDGET WANT_ROUNDS: the builds get WANT_ROUNDS rounds each under BUDGET_S=BUDGET.
check() {
    local log n
    log=$(OUT=$t/$1 ROUNDS=3 BUDGET_S=$2 bash scripts/device-compare-builds.sh "${builds[@]}" 2>&1)
    n=$((1 + $(grep -c '^round [0-9]*, ' <<< "$log") / ${#builds[@]}))
    if [ "$n" -eq "$3" ]; then
        echo "ok   $1"; pass=$((pass + 1))
    else
        echo "FAIL $1: $n rounds, want $3"; echo "$log" | sed 's/^/    /'; fail=$((fail + 1))
    fi
}
# First round ~14 s (tests 12, timed 2); a timed round ~2 s, estimated 4: three rounds by ~18 s, room
# for 6 s of overhead. The whole first round as the estimate (14 + 14 > 24) would stop after one.
check "a budget of 24 s holds three rounds" 24 3
# 14 + 4 > 15: no second round.
check "a budget of 15 s holds one round" 15 1
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
