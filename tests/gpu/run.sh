#!/usr/bin/env bash
# GPU tests (run on a machine with a GPU): correctness sweep (flat and paged caches), planted-bug
# negative tests, plans on the device before the calls that use them, tables and --dump written, an
# independent re-check of dumped cases in numpy (needs python3 with numpy), and the known failure
# still failing as recorded. Ends with "N passed, N failed".
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

# Every kernel this GPU runs: the sweep must pass, and each planted bug must fail every case.
kernels="portable"
# Exit 2 means this GPU cannot run sm90; any other outcome (even a failed check) puts it under test.
"$BIN" run --quiet --kernel sm90 --out "$TMP/probe" "$HERE/../../tests/data/one-case.json" >/dev/null 2>&1
[ $? -ne 2 ] && kernels="sm90 portable"
echo "kernels under test: $kernels"
# The sm90 kernel's tensor-core layouts on their own first: a wrong descriptor shows up here plainly.
if [[ $kernels == *sm90* ]]; then
    "$(dirname "$BIN")/sm90-layout-test"; result "sm90 wgmma layouts match host GEMMs" $? "see the products above"
    # The roles' barriers with each role stalled at one tile (Makefile, mla-bench-stall): a hang
    # here is a barrier generation two tiles share, which an ordinary run meets only in a rare timing.
    timeout -k 5 -s INT 60 "$(dirname "$BIN")/mla-bench-stall" run --quiet --kernel sm90 --out "$TMP/stall" "$HERE/stall-order.json" > "$TMP/stall.log" 2>&1
    rc=$?; n_ok=$( [ -f "$TMP/stall/stall-order.csv" ] && count_status "$TMP/stall/stall-order.csv" pass || echo 0)
    n_all=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$HERE/stall-order.json")
    [ "$rc" -eq 0 ] && [ "$n_ok" -eq "$n_all" ]; ok=$?
    [ "$ok" -eq 0 ] || tail -n 5 "$TMP/stall.log"
    result "sm90 roles' barriers with each role stalled at one tile: $n_ok of $n_all cases pass (exit $rc)" $ok "exit 124 or 137 is a deadlock (its log's end above)"
fi
for k in $kernels; do
    run_expect "correctness-$k" 0 --kernel "$k" --out "$TMP/c-$k" "$HERE/correctness.json"
    csv="$TMP/c-$k/correctness.csv"
    n_ok=$(count_status "$csv" pass); n_all=$(($(wc -l < "$csv") - 1))
    [ "$n_all" -gt 100 ] && [ "$n_ok" -eq "$n_all" ]; result "correctness ($k): $n_ok of $n_all cases pass" $? "not every case passed"
    [ -n "${MB_KEEP_DIR:-}" ] && cp "$csv" "$MB_KEEP_DIR/correctness-$k.csv"

    run_expect "negative-clean-$k" 0 --kernel "$k" --out "$TMP/n0-$k" "$HERE/negative.json"
    for fault in drop-token wrong-scale split-shift; do
        run_expect "negative-$fault-$k" 1 --kernel "$k" --inject-fault "$fault" --out "$TMP/n-$fault-$k" "$HERE/negative.json"
        csv="$TMP/n-$fault-$k/negative.csv"
        n_fail=$(count_status "$csv" fail); n_all=$(($(wc -l < "$csv") - 1))
        [ "$n_all" -gt 0 ] && [ "$n_fail" -eq "$n_all" ]; result "$fault ($k): the check fails $n_fail of $n_all cases" $? "a planted bug went unnoticed"
    done
done
cp -r "$TMP/c-portable" "$TMP/c"

for ext in json md csv; do
    [ -s "$TMP/c/correctness.$ext" ]; result "table written: correctness.$ext" $? "missing"
done
# Every case checked and timed on the default three placements (workspaces on other pages), its
# samples pooled: as many placement medians as placements, and at least min_runs samples from each.
python3 - "$TMP/c/correctness.json" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
bad = [c["name"] for c in cases if c.get("placements") != 3 or len(c.get("placement_medians_us", [])) != 3
       or c["time_us"]["n"] < 3 * c.get("stop_rule", {}).get("min_runs", 1e9)]
print("placements: %d of %d cases on 3, each with its own median" % (len(cases) - len(bad), len(cases)))
sys.exit(1 if bad or not cases else 0)
PY
result "every correctness case timed on 3 placements" $? "see the line above"
# Eager stage times come from staged calls of their own (10 a placement), never from the timed samples,
# whose calls have no events between the kernels; graph cases have neither.
python3 - "$TMP/c/correctness.json" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
def ok(c):
    st = c.get("stages_median_us", {})
    if c["mode"] == "eager":
        return c.get("staged_calls") == 30 and isinstance(c.get("staged_total_median_us"), (int, float)) \
            and isinstance(st.get("decode"), (int, float))
    return c.get("staged_calls") == 0 and c.get("staged_total_median_us") is None and st.get("decode") is None
bad = [c["name"] for c in cases if not ok(c)]
eager = sum(c["mode"] == "eager" for c in cases)
print("staged calls: %d of %d cases as their mode says (%d eager)%s" % (len(cases) - len(bad), len(cases), eager,
      ": not " + ", ".join(bad[:5]) if bad else ""))
sys.exit(1 if bad or not eager else 0)
PY
result "eager stage times from 30 staged calls, graph cases none" $? "see the line above"
# The SM clock across each case's timed calls (stamps of SM 0 around every sample): known for at
# least 90 % of the samples (a stamp block lands on SM 0 nearly always), one cycles/ns pair a sample,
# the case's figure their ratio of sums, and no faster than 1.1 x the device's reported peak.
python3 - "$TMP/c/correctness.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
peak = doc["device"].get("sm_clock_max_mhz") or 0
def why(c):
    k, n, mhz = c.get("sm_clock_samples"), c["time_us"]["n"], c.get("sm_clock_mhz")
    if not k or len(k["cycles"]) != n or len(k["ns"]) != n: return "no cycles/ns pair per sample"
    known = [(cy, ns) for cy, ns in zip(k["cycles"], k["ns"]) if cy > 0 and ns > 0]
    if len(known) < 0.9 * n: return "%d of %d samples stamped" % (len(known), n)
    ratio = sum(cy for cy, _ in known) / sum(ns for _, ns in known) * 1e3
    if not mhz or abs(mhz - ratio) > 1e-6 * ratio: return "sm_clock_mhz %s is not the samples' %.1f" % (mhz, ratio)
    if not 0 < mhz <= 1.1 * peak: return "%.0f MHz outside (0, 1.1 x peak %.0f]" % (mhz, peak)
    return None
bad = [(c["name"], why(c)) for c in doc["cases"] if why(c)]
clocks = sorted(c["sm_clock_mhz"] for c in doc["cases"] if c.get("sm_clock_mhz"))
print("SM clock: %d of %d cases well formed (peak %.0f MHz; cases %.0f-%.0f MHz)%s" % (len(doc["cases"]) - len(bad),
      len(doc["cases"]), peak, clocks[0] if clocks else 0, clocks[-1] if clocks else 0,
      ": " + "; ".join("%s: %s" % b for b in bad[:5]) if bad else ""))
sys.exit(1 if bad or not doc["cases"] or not peak else 0)
PY
result "SM clock known for every timed case, per sample, under the peak" $? "see the line above"

# A plan is on the device before the call that first uses it. The sweep's 32-split point has the
# 16-split point's plan under another key: uploaded just before its first call, into a workspace whose
# partial buffers already fit it, so no hipFree synchronises the device in between. While uploads went
# by hipMemcpy (the legacy stream; from pageable memory it may return before the copy lands) and the
# kernels ran on a non-blocking stream, that call's CTAs read their later units too soon: an illegal
# address in 2 of 2 runs on an H100 (results/NOTES.md, fifty-fourth session).
"$BIN" sweep --quiet --no-tuning --splits 8,16,32 --out "$TMP/upload" "$HERE/plan-upload.json" > "$TMP/upload.log" 2>&1
rc=$?; csv="$TMP/upload/plan-upload-sweep-points.csv"
n_ok=$( [ -f "$csv" ] && count_status "$csv" pass || echo 0)
[ "$rc" -eq 0 ] && [ "$n_ok" -eq 4 ]
result "a sweep's points each run on a plan uploaded just before them: $n_ok of 4 pass (exit $rc)" $? \
    "$(grep -h -- '- ERROR' "$TMP"/upload/*-points.md 2>/dev/null | head -n 2)"

# The read-once floor (mla-bench floor): a cache of as many bytes measured once; no floor under the
# launch floor; the 604 MB cache read at 30-150 % of the measured copy bandwidth (a read kernel that
# skipped its loads would read far faster, a broken sweep of shapes far slower).
"$BIN" floor --quiet --out "$TMP/floor" "$HERE/floor.json" > "$TMP/floor.log" 2>&1
rc=$?; cat "$TMP/floor.log"
python3 - "$TMP/floor/floor-floor.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in d["cases"]}
copy, launch = d["device"]["copy_tbps"], d["device"]["launch_floor_us"]
why = []
if d.get("schema") != "mla-bench/floor/1": why.append("schema %r" % d.get("schema"))
if c["small-twin"]["measured_as"] != "small" or c["small"]["measured_as"] is not None: why.append("twins not shared")
if any(len(x["shapes"]) != 27 for x in d["cases"]): why.append("not 27 shapes")
if any(x["floor_us"] < 0.9 * launch for x in d["cases"]): why.append("a floor under the launch floor %.2f" % launch)
if not 0.3 * copy <= c["large"]["tbps"] <= 1.5 * copy: why.append("large at %.2f TB/s, copy %.2f" % (c["large"]["tbps"], copy))
print("floor: %s" % ("; ".join(why) if why else "small %.2f us, large %.1f us (%.2f TB/s)" % (
    c["small"]["floor_us"], c["large"]["floor_us"], c["large"]["tbps"])))
sys.exit(1 if why else 0)
PY
ok=$?; [ "$rc" -eq 0 ] && [ "$ok" -eq 0 ]; result "floor: twins measured once, no floor under the launch, a large cache near copy bandwidth (exit $rc)" $? "see the lines above"

# Ctrl-C mid-run: exit 130, and the tables of the cases that finished are written and say so. The
# config samples each case for a fixed time, so the run is mid-way at 6 s however fast sampling gets
# (mixed-mla, used until 2026-11-30, finished in 3 s once the spin was 100 us and not 100 ms).
"$BIN" run --quiet --out "$TMP/int" "$HERE/interrupt.json" > "$TMP/int.log" 2>&1 &
pid=$!; sleep 6; kill -INT "$pid"; wait "$pid"; rc=$?
[ "$rc" -eq 130 ] && grep -Eq '"interrupted":[[:space:]]*true' "$TMP/int/interrupt.json" && [ "$(wc -l < "$TMP/int/interrupt.csv")" -ge 2 ]
result "Ctrl-C: exit $rc (want 130), finished cases written, marked interrupted" $? "$(tail -n 3 "$TMP/int.log")"

# Stopped by `timeout -s INT`, which signals the run and then its process group (the signal arrives
# twice): the finished cases must still be written.
timeout -s INT 6 "$BIN" run --quiet --out "$TMP/to" "$HERE/interrupt.json" > "$TMP/to.log" 2>&1
grep -Eq '"interrupted":[[:space:]]*true' "$TMP/to/interrupt.json" 2>/dev/null && [ "$(wc -l < "$TMP/to/interrupt.csv")" -ge 2 ]
result "timeout -s INT (signal delivered twice): finished cases written, marked interrupted" $? "$(tail -n 3 "$TMP/to.log")"

# Dumped cases re-checked by an independent implementation (numpy), if numpy is there: flat caches,
# and paged ones read through their dumped page tables.
run_expect dump 0 --out "$TMP/d" --dump "$TMP/dump" "$HERE/../../configs/smoke.json"
grep -Eq '"l2":[[:space:]]*"cold-clean"' "$TMP/d/smoke.json" 2>/dev/null
result "l2 cold-clean: run and recorded as such (smoke.json)" $? "no cold-clean case in $TMP/d/smoke.json"
# "icache": "cold" runs its eviction kernel before every timed call (every launch checked), the case
# passes, and the JSON, the CSV and the table say it was timed so; the other cases say warm.
python3 - "$TMP/d/smoke.json" "$TMP/d/smoke.csv" "$TMP/d/smoke.md" > "$TMP/icache.log" 2>&1 <<'PY'
import csv, json, sys
cases = {c["name"]: c for c in json.load(open(sys.argv[1]))["cases"]}
rows = {r["name"]: r for r in csv.DictReader(open(sys.argv[2]))}
cold = cases["icache-cold"]
assert cold["icache"] == "cold" and cold["status"] == "pass" and cold["time_us"]["n"] > 0, cold.get("status")
assert rows["icache-cold"]["icache"] == "cold" and rows["tiny"]["icache"] == "warm"
assert all(c["icache"] == "warm" for n, c in cases.items() if n != "icache-cold")
assert "graph, icache cold" in open(sys.argv[3]).read()
print("icache-cold: timed", cold["time_us"]["n"], "samples, recorded cold")
PY
result "icache cold: run, passed and recorded as such (smoke.json)" $? "$(tail -n 3 "$TMP/icache.log")"
# --filter runs only the matching cases, and the tables hold those alone; --set placements=1 times
# each on one workspace, and the JSON records the override.
run_expect filter 0 --out "$TMP/f" --filter '^ragged|wide' --set placements=1 "$HERE/../../configs/smoke.json"
[ "$(tail -n +2 "$TMP/f/smoke.csv" 2>/dev/null | cut -d, -f1 | tr '\n' ' ')" = "ragged-list ragged-uniform wide " ]
result "--filter: the tables hold ragged-list, ragged-uniform and wide alone" $? "got: $(tail -n +2 "$TMP/f/smoke.csv" 2>/dev/null | cut -d, -f1 | tr '\n' ' ')"
python3 - "$TMP/f/smoke.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["config"].get("set") == "--set placements=1" and all(c.get("placements") == 1 for c in d["cases"])
print("--set placements=1: config.set %r, placements %s" % (d["config"].get("set"), [c.get("placements") for c in d["cases"]]))
sys.exit(0 if ok and d["cases"] else 1)
PY
result "--set placements=1: every case on one placement, the override recorded" $? "see the line above"
# How the runtime loaded the kernels is recorded as the environment had it (README, "How it times":
# the load order moves the short 64-row shapes): set, and unset.
for how in set unset; do
    if [ $how = set ]; then
        CUDA_MODULE_LOADING=EAGER HIP_ENABLE_DEFERRED_LOADING=0 "$BIN" run --quiet --out "$TMP/ml-$how" \
            --set placements=1 "$HERE/../../tests/data/one-case.json" > "$TMP/ml-$how.log" 2>&1
    else
        env -u CUDA_MODULE_LOADING -u HIP_ENABLE_DEFERRED_LOADING "$BIN" run --quiet --out "$TMP/ml-$how" \
            --set placements=1 "$HERE/../../tests/data/one-case.json" > "$TMP/ml-$how.log" 2>&1
    fi
    rc=$?
    python3 - "$TMP/ml-$how/one-case.json" "$how" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["device"].get("module_loading")
want = {"set": ["CUDA_MODULE_LOADING=EAGER", "HIP_ENABLE_DEFERRED_LOADING=0"],
        "unset": ["CUDA_MODULE_LOADING unset", "HIP_ENABLE_DEFERRED_LOADING unset"]}[sys.argv[2]]
print("module loading %s: device.module_loading %r" % (sys.argv[2], got))
sys.exit(0 if got in want else 1)
PY
    ok=$?
    [ "$rc" -eq 0 ] && [ "$ok" -eq 0 ]
    result "module loading $how: recorded as the environment had it (exit $rc)" $? "$(tail -n 3 "$TMP/ml-$how.log")"
done
# "tuned" reads the tuning file's entry for the shape: a good count is used (splits column "2t"); a
# hand-edited count no config could ask for is refused, naming the file and the entry (exit 2).
echo '{ "cases": [ { "name": "t", "batch": 2, "kv_len": 256, "num_kv_splits": "tuned", "min_runs": 1, "max_runs": 1, "warmup": 0, "placements": 1 } ] }' > "$TMP/tuned.json"
for best in 2 0; do
    printf '{"schema":"mla-bench/tuning/1","entries":{"sm90-wgmma/b2-q1-h16-kv256-causal":{"best_splits":%s},"portable/b2-q1-h16-kv256-causal":{"best_splits":%s}}}' \
        "$best" "$best" > "$TMP/tuning-$best.json"
    "$BIN" run --quiet --out "$TMP/tu-$best" --tuning "$TMP/tuning-$best.json" "$TMP/tuned.json" > "$TMP/tu-$best.log" 2>&1
    rc=$?
    if [ "$best" = 2 ]; then
        [ "$rc" -eq 0 ] && grep -q ',2t,' "$TMP/tu-$best/tuned.csv" 2>/dev/null
        result "tuned: the tuning file's count is used (exit $rc, splits 2t)" $? "$(tail -n 3 "$TMP/tu-$best.log")"
    else
        [ "$rc" -eq 2 ] && grep -q 'tuning-0.json: entries\[".*"\].best_splits: expected integer in \[1, 256\], got 0' "$TMP/tu-$best.log"
        result "tuned: a tuning entry of 0 splits is refused by name (exit $rc, want 2)" $? "$(tail -n 3 "$TMP/tu-$best.log")"
    fi
done
run_expect dump-paged 0 --out "$TMP/dp" --dump "$TMP/dump" "$HERE/dump-paged.json"
if python3 -c 'import numpy' 2>/dev/null; then
    python3 "$HERE/recheck_dump.py" "$TMP/dump"; result "dump re-checked in numpy" $? "numpy disagrees with the tool"
else
    result "dump re-checked in numpy" 1 "python3 has no numpy (apt-get install python3-numpy): the re-check could not run"
fi

# The known failure (tests/gpu/peaked-scores.json, results/NOTES.md): extremely peaked scores, which
# the portable kernel must pass and the sm90 kernel's 32- and 64-row units fail by the fp8 tensor
# core's own accumulation error (measured: the layout test's peaked probe). Run every time, so a change
# in it (exit 0: a new way to do the score product; move its cases into correctness.json) or a worse
# break (an error: exit 4) is seen.
for k in $kernels; do
    "$BIN" run --quiet --kernel "$k" --out "$TMP/peaked-$k" "$HERE/peaked-scores.json" > "$TMP/peaked-$k.log" 2>&1
    rc=$?
    if [ "$k" = portable ]; then
        [ "$rc" -eq 0 ]; result "peaked scores (portable): exit $rc, want 0" $? "$(tail -n 3 "$TMP/peaked-$k.log")"
    else
        [ "$rc" -eq 1 ]; result "known failure (fp8 tensor-core accumulation), peaked scores (sm90): exit $rc, want 1" $? \
            "$(tail -n 3 "$TMP/peaked-$k.log")"
        # ... and by no more than its known margin (4.8e-3 worst row, one element outside, forty-fourth
        # session's runs), so that a broken rare path of the 64-row walker (a reference moving after
        # the unit's first tile, and the output and row sums rescaled with it: sm90_unit_ps.h), which
        # these scores run hardest, fails here too (a mutant that leaves the sums unrescaled: 0.996).
        python3 - "$TMP/peaked-$k/peaked-scores.json" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
def why(c):
    k = c["check"]
    if c["name"] == "peaked-control":
        return None if c["status"] == "pass" else "the control fails"
    row = k["row_rel_l2"]          # null where the output held a NaN
    if k["n_nonfinite"] or k["n_outside"] > 2 or row is None or row > 6e-3:
        return "worst row %s, %d outside, %d non-finite" % ("NaN" if row is None else "%.2e" % row, k["n_outside"],
                                                           k["n_nonfinite"])
    return None
bad = [(c["name"], w) for c in cases if (w := why(c))]
print("peaked margin: %d of %d cases within (worst row <= 6e-3, <= 2 elements outside, all finite; the control passes)%s"
      % (len(cases) - len(bad), len(cases), ": " + "; ".join("%s: %s" % b for b in bad) if bad else ""))
sys.exit(1 if bad or len(cases) != 5 else 0)
PY
        result "known failure within its known margin (sm90)" $? "see the line above"
    fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
