#!/usr/bin/env bash
# session 35, call 3: the SCORED generation race: stall builds (old: expect a hang; fixed: pass),
# v127 on the fix, and the timing of main / fix / v127x.
set -u
. scripts/device-env.sh
mkdir -p "$OUT"; start=$SECONDS
nvidia-smi -L
printf '{"cases":[{"name":"guard","batch":4,"q_len":4,"heads":16,"kv_len":1024,"num_kv_splits":1,"mode":"eager","warmup":1,"min_runs":1,"max_runs":2}]}' > "$OUT/guard.json"
v127ok=0
for B in build-fixs build-sf build-v127xs build-so; do
  lim=30; [ $B = build-so ] && lim=20
  timeout -k 3 -s INT $lim $B/mla-bench run --kernel sm90 --out "$OUT/g-$B" "$OUT/guard.json" > "$OUT/g-$B.log" 2>&1
  rc=$?; echo "guard $B: exit $rc ($((SECONDS-start)) s) $(grep -E '^cases' "$OUT/g-$B.log")"
  [ $B = build-v127xs ] && [ $rc = 0 ] && v127ok=1
done
if [ $v127ok = 1 ]; then
  timeout -k 5 -s INT 60 build-v127xs/mla-bench run --quiet --kernel sm90 --out "$OUT/stress-v127x" results/h200/steps/sm90-wgmma-v127-pairs-s34/config-stress.json > "$OUT/stress-v127x.log" 2>&1
  echo "stress v127x: exit $? ($((SECONDS-start)) s) $(grep -E '^cases' "$OUT/stress-v127x.log")"
  timeout -k 5 -s INT 45 build-v127xs/mla-bench run --quiet --kernel sm90 --out "$OUT/acc-v127x" configs/accuracy.json > "$OUT/acc-v127x.log" 2>&1; echo "accuracy v127x: exit $? ($((SECONDS-start)) s) $(grep -E '^cases' "$OUT/acc-v127x.log")"
  timeout -k 5 -s INT 45 build-v127xs/mla-bench run --quiet --kernel sm90 --out "$OUT/peak-v127x" tests/gpu/peaked-scores.json > "$OUT/peak-v127x.log" 2>&1; echo "peaked v127x: exit $? ($((SECONDS-start)) s) $(grep -E '^cases' "$OUT/peak-v127x.log")"
  set -- build-main build-fixs build-v127xs
else
  set -- build-main build-fixs
fi
(cd "$OUT" && tar -czf probe3.tgz --exclude=cmp * && find . -maxdepth 1 ! -name probe3.tgz ! -name . -exec rm -rf {} +)
OUT=$OUT/cmp PLACEMENTS=8 ROUNDS=3 ONE_FILE=1 timeout -k 10 300 bash scripts/device-compare-builds.sh "$@" | grep -E "===|layout|correctness|caught|round|done|FAIL"
echo "done ($((SECONDS-start)) s)"
