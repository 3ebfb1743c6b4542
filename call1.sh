#!/usr/bin/env bash
# session 8, call 1: main, v42, v41+v42 side by side; the planted vote bug; profiles of v41+v42
set -u
export OUT
start=$SECONDS
timeout -k 10 420 bash scripts/device-compare-builds.sh build build-spec-softmax build-spec-early 2>&1 | tee "$OUT/compare.log"
echo "=== planted no-vote ($((SECONDS - start)) s)"
. scripts/device-env.sh
timeout -k 10 -s INT 90 build-planted-no-vote/mla-bench run --quiet --kernel sm90 --out "$OUT/planted" tests/gpu/correctness.json > "$OUT/planted.log" 2>&1
echo "planted run: exit $?; failing: $(awk -F, 'NR > 1 && $NF != "pass"' "$OUT/planted/correctness.csv" | cut -d, -f1 | tr '\n' ' ')"
(cd "$OUT" && tar -czf planted.tgz planted planted.log && rm -rf planted planted.log)
echo "=== probes ($((SECONDS - start)) s)"
OUT=$OUT/probes BUILD=build-spec-early ONLY_PROBES=1 PROBES="32,4,16,1024 128,4,16,8192 128,1,16,8192" timeout -k 10 120 bash scripts/device-kernel-iter.sh 2>&1 | tail -30
echo "done ($((SECONDS - start)) s)"
