#!/usr/bin/env bash
# Session 41, call 1: the eviction kernels' cost (ncu); the sliced eviction against the straight-line
# one (same binary, cold mixed-mla); v133d's GPU suite; v133d beside main with the caches cold.
set -u
export OUT LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
bash scripts/env-build.sh build-evict-sliced evs-sliced MB_DIAG_EVICT=sliced
bash scripts/env-build.sh build-v133d-evs v133d-sliced MB_DIAG_EVICT=sliced
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
B=build-evict-sliced/mla-bench
printf '{"cases":[{"name":"p","batch":32,"q_len":4,"heads":16,"kv_len":1024,"mode":"eager","icache":"cold","warmup":1,"min_runs":3,"max_runs":3}]}' > /tmp/one.json
for v in straight sliced; do
  MB_DIAG_EVICT=$v timeout -k 5 90 $NCU --clock-control none -k regex:icache_evict -c 3 $B run --quiet --kernel sm90 --out /tmp/p-$v /tmp/one.json > $OUT/ncu-evict-$v.txt 2>&1
  echo "ncu $v: exit $? $(grep -E '^ +Duration' $OUT/ncu-evict-$v.txt | tr -s ' ' | tr '\n' ';')"
done
mkdir -p $OUT/val
echo "=== straight vs sliced eviction, cold mixed-mla, 8 placements ($((SECONDS - t0)) s)"
for v in straight sliced; do
  s=$SECONDS
  MB_DIAG_EVICT=$v timeout -k 10 -s INT 150 $B run --quiet --kernel sm90 --set icache=cold --set placements=8 --out $OUT/val/$v configs/mixed-mla.json > $OUT/val/$v.log 2>&1
  echo "$v: exit $? in $((SECONDS - s)) s"
done
echo "=== GPU suite, v133d-evs ($((SECONDS - t0)) s)"
timeout -k 10 240 bash tests/gpu/run.sh build-v133d-evs/mla-bench > $OUT/gpu-tests-v133d.log 2>&1
echo "exit $?: $(tail -1 $OUT/gpu-tests-v133d.log) ($((SECONDS - t0)) s)"
grep -E '^(FAIL|not ok)' $OUT/gpu-tests-v133d.log | head
echo "=== main vs v133d, both with the sliced eviction, cold ($((SECONDS - t0)) s)"
OUT=$OUT/ab ICACHE=cold PLACEMENTS=8 ROUNDS=4 ONE_FILE=1 BUDGET_S=$((570 - (SECONDS - t0))) bash scripts/device-compare-builds.sh build-evs-sliced build-v133d-sliced 2>&1 | grep -v '^ \|^$' | tail -30
echo "total $((SECONDS - t0)) s"
