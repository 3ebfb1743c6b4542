#!/usr/bin/env bash
# One device call per kernel iteration (what the wgmma kernel's steps used, results/NOTES.md): the
# sm90 layout test, the sm90 correctness sweep and planted bugs, mixed-mla timed, and optionally Nsight
# Compute on a few shapes (stall reasons, speed of light) and the kernel's SASS. Everything lands in
# $OUT/iter-<build folder>.tgz (one file a run: the device tool brings back few). Expects a binary
# built here and .deps/lib (scripts/bundle-deps.sh).
#   PROBES="b,q,h,kv ..."   shapes to profile, e.g. PROBES="4,1,32,1024 128,4,16,8192"
#   CONFIG=...              what to time (default configs/mixed-mla.json)
#   ONLY_PROBES=1           skip the tests and the timed run (a profiling-only call)
#   BUILD=build-x           the build folder to use (default build); run the script once per folder
#                           to time two builds in one device call
# Each probe also leaves its report and a per-SASS-instruction table of stall samples (src-*.csv).
set -uo pipefail
. "$(dirname "$0")/device-env.sh"
BUILD=${BUILD:-build}
W=$OUT/iter-$BUILD
mkdir -p "$W"
B=$BUILD/mla-bench
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)

if [ -z "${ONLY_PROBES:-}" ]; then
# Every step is bounded: a kernel that hangs (a copy barrier that never completes) must not take the
# device call's whole time with it.
timeout -k 10 60 $BUILD/sm90-layout-test > "$W/layout.log" 2>&1
rc=$?; echo "layout test: exit $rc: $(tail -1 "$W/layout.log")"
if [ $rc -ne 0 ]; then   # the kernel is built from the same pieces: no point running it
    cat "$W/layout.log"; tar -C "$OUT" -czf "$W.tgz" "iter-$BUILD" && rm -rf "$W"; exit 1
fi
timeout -k 10 -s INT 180 $B run --quiet --kernel sm90 --out "$W/c" tests/gpu/correctness.json > "$W/correctness.log" 2>&1
echo "correctness: exit $?; failing: $(awk -F, 'NR > 1 && $NF != "pass"' "$W/c/correctness.csv" | cut -d, -f1 | tr '\n' ' ')"
for f in drop-token wrong-scale split-shift; do
    timeout -k 10 -s INT 60 $B run --quiet --kernel sm90 --inject-fault "$f" --out "$W/n-$f" tests/gpu/negative.json > /dev/null 2>&1
    echo "$f: caught in $(awk -F, 'NR > 1 && $NF == "fail"' "$W/n-$f/negative.csv" | wc -l) of $(($(wc -l < "$W/n-$f/negative.csv") - 1))"
done | tee "$W/planted-bugs.log"   # filed as is by scripts/collect-step.sh
t0=$SECONDS
timeout -k 10 -s INT 120 $B run --quiet --kernel sm90 --out "$W/m" "${CONFIG:-configs/mixed-mla.json}" > "$W/run.log" 2>&1
echo "timed run: $((SECONDS - t0)) s"   # device-compare-builds.sh estimates its rounds from it
head -n 20 "$W/run.log"
fi
for p in ${PROBES:-}; do
    IFS=, read -r b q h kv <<< "$p"
    printf '{"cases":[{"name":"probe","batch":%s,"q_len":%s,"heads":%s,"kv_len":%s,"mode":"eager","warmup":1,"min_runs":1,"max_runs":1}]}' \
        "$b" "$q" "$h" "$kv" > "$W/probe.json"
    # --clock-control none: the GPU's own clocks, as the timed runs have them (ncu's default locks the
    # SM to its base clock: b128-q4 read 305 us under it against 238 timed; profiles before the
    # twenty-fourth session's last are at that clock and compare only with each other).
    # No SourceCounters for shapes of more than 32 rows: on the 64-row kernel (512 threads, setmaxnreg)
    # its instrumented pass never ends (thirty-second session: hardware counters alone took 17 passes
    # and 5 s, SourceCounters alone hung past 100 s, while the 16-row kernel profiles with it; the
    # patched code's registers breaking the setmaxnreg pool is a guess, not verified). Those probes get
    # the report's text without the per-instruction table.
    src_section=(--section SourceCounters)
    [ $((q * h)) -gt 32 ] && src_section=()
    timeout -k 10 120 "$NCU" --clock-control none -k regex:decode_sm90 -c 1 -o "$W/rep-$b-$q-$h-$kv" --section SpeedOfLight --section WarpStateStats "${src_section[@]}" \
        --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio \
        $B run --kernel sm90 --out "$W/probe" "$W/probe.json" > "$W/ncu-log-$b-$q-$h-$kv.txt" 2>&1
    "$NCU" -i "$W/rep-$b-$q-$h-$kv.ncu-rep" > "$W/ncu-$b-$q-$h-$kv.txt" 2>&1
    [ ${#src_section[@]} -eq 0 ] ||
        "$NCU" -i "$W/rep-$b-$q-$h-$kv.ncu-rep" --page source --csv --print-source sass > "$W/src-$b-$q-$h-$kv.csv" 2>&1
    echo "ncu $p:"; grep -E "Duration|issue_stalled" "$W/ncu-$b-$q-$h-$kv.txt" | sort -k3 -g | tail -6
done
cuobjdump --dump-sass $BUILD/kernels/decode_sm90.o > "$W/sass.txt" 2>&1 || true
tar -C "$OUT" -czf "$W.tgz" "iter-$BUILD" && rm -rf "$W"
