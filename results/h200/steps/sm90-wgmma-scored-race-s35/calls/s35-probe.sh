#!/usr/bin/env bash
# session 35, call 1: is v127 (pairs) a hang? Guarded, small first.
set -u
. scripts/device-env.sh
mkdir -p "$OUT"; start=$SECONDS
nvidia-smi -L
g(){ printf '{"cases":[{"name":"guard","batch":4,"q_len":4,"heads":16,"kv_len":%s,"num_kv_splits":1,"mode":"%s","warmup":1,"min_runs":1,"max_runs":2}]}' "$1" "$2" > "$OUT/guard-$1-$2.json"; }
for kv in 1024 128; do g $kv eager; done
ok=1
for B in build-main build-v127s; do
  for kv in 1024; do
    timeout -k 5 -s INT 40 $B/mla-bench run --kernel sm90 --out "$OUT/g-$B-$kv" "$OUT/guard-$kv-eager.json" > "$OUT/g-$B-$kv.log" 2>&1
    rc=$?; echo "guard $B kv $kv: exit $rc ($((SECONDS-start)) s)"; tail -4 "$OUT/g-$B-$kv.log" | head -2
    [ $B = build-v127s ] && [ $rc -ne 0 ] && ok=0
  done
done
if [ $ok = 0 ]; then
  timeout -k 5 -s INT 30 build-v127s/mla-bench run --kernel sm90 --out "$OUT/g-128" "$OUT/guard-128-eager.json" > "$OUT/g-128.log" 2>&1; echo "kv128: exit $?"; tail -3 "$OUT/g-128.log"
  timeout -k 5 60 build-v127s/sm90-layout-test > "$OUT/layout.log" 2>&1; echo "layout: exit $?"; tail -3 "$OUT/layout.log"
  echo "done ($((SECONDS-start)) s)"; exit 0
fi
for B in build-main build-v127s; do
  timeout -k 5 -s INT 60 $B/mla-bench run --quiet --kernel sm90 --out "$OUT/stress-$B" results/h200/steps/sm90-wgmma-v127-pairs-s34/config-stress.json > "$OUT/stress-$B.log" 2>&1
  echo "stress $B: exit $? ($((SECONDS-start)) s)"; tail -3 "$OUT/stress-$B.log" | head -1
done
timeout -k 5 -s INT 45 build-v127s/mla-bench run --quiet --kernel sm90 --out "$OUT/acc-v127" configs/accuracy.json > "$OUT/acc-v127.log" 2>&1; echo "accuracy v127: exit $? ($((SECONDS-start)) s)"
timeout -k 5 -s INT 45 build-v127s/mla-bench run --quiet --kernel sm90 --out "$OUT/peak-v127" tests/gpu/peaked-scores.json > "$OUT/peak-v127.log" 2>&1; echo "peaked v127: exit $? ($((SECONDS-start)) s)"
OUT=$OUT/cmp PLACEMENTS=8 ROUNDS=3 ONE_FILE=1 timeout -k 10 280 bash scripts/device-compare-builds.sh build-main build-v127s | grep -E "===|layout|correctness|caught|round|done|FAIL"
cd "$OUT" && tar -czf probe.tgz --exclude=cmp --exclude=probe.tgz * && find . -maxdepth 1 ! -name cmp ! -name probe.tgz ! -name . -exec rm -rf {} +; echo "done ($((SECONDS-start)) s)"
