#!/usr/bin/env bash
# GPU tests (run on a machine with a GPU): correctness sweep, planted-bug negative tests, tables and
# --dump written, and an independent re-check of a dumped case in numpy. Ends with "N passed, N failed".
set -u
BIN=${1:-build/mla-bench}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0

result() {  # name, condition-status (0 = ok), detail
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"
    else fail=$((fail + 1)); echo "FAIL $1: $3"; fi
}

# Number of cases in a CSV table with the given status (last column).
count_status() { tail -n +2 "$1" | awk -F, -v s="$2" '$NF == s' | wc -l; }

run_expect() {  # name, expected exit code, args...
    local name=$1 want=$2; shift 2
    "$BIN" run --quiet "$@" > "$TMP/$name.log" 2>&1
    local rc=$?
    cat "$TMP/$name.log"
    [ "$rc" -eq "$want" ]; result "$name (exit $rc, want $want)" $? "see the table above"
}

run_expect correctness 0 --out "$TMP/c" "$HERE/correctness.json"
n_ok=$(count_status "$TMP/c/correctness.csv" pass); n_all=$(($(wc -l < "$TMP/c/correctness.csv") - 1))
[ "$n_all" -gt 100 ] && [ "$n_ok" -eq "$n_all" ]; result "correctness: $n_ok of $n_all cases pass" $? "not every case passed"

run_expect negative-clean 0 --out "$TMP/n0" "$HERE/negative.json"
for fault in drop-token wrong-scale split-shift; do
    run_expect "negative-$fault" 1 --inject-fault "$fault" --out "$TMP/n-$fault" "$HERE/negative.json"
    n_fail=$(count_status "$TMP/n-$fault/negative.csv" fail); n_all=$(($(wc -l < "$TMP/n-$fault/negative.csv") - 1))
    [ "$n_all" -gt 0 ] && [ "$n_fail" -eq "$n_all" ]; result "$fault: the check fails $n_fail of $n_all cases" $? "a planted bug went unnoticed"
done

# Keep the sweep's table when asked (the device script collects it), for the tolerance evidence.
[ -n "${MB_KEEP_DIR:-}" ] && cp "$TMP/c/correctness.csv" "$MB_KEEP_DIR/"

for ext in json md csv; do
    [ -s "$TMP/c/correctness.$ext" ]; result "table written: correctness.$ext" $? "missing"
done

# A dumped case re-checked by an independent implementation (numpy), if numpy is there.
run_expect dump 0 --out "$TMP/d" --dump "$TMP/dump" "$HERE/../../configs/smoke.json"
if python3 -c 'import numpy' 2>/dev/null; then
    python3 "$HERE/recheck_dump.py" "$TMP/dump"; result "dump re-checked in numpy" $? "numpy disagrees with the tool"
else
    echo "numpy not found: dump re-check not run"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
