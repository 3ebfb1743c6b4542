#!/usr/bin/env bash
# Session 42, call 3: what decides the short 64-row shapes' placement draw (b32-q4-kv1024 graph: odd
# placements ~1 µs faster on call 2's GPU)? One binary (main, b99357f), one process a run, eight
# placements, twice each: the default cold L2; "cold-clean" (the flush read back, so no dirty lines
# are left for the call's writes to evict); the instruction caches emptied too; a hot L2.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/r
F='b32-q4-kv1024|b4-q4|b32-q1-kv1024'
for r in 1 2; do
  for v in cold clean icold hot; do
    case $v in cold) s=;; clean) s="--set l2=cold-clean";; icold) s="--set icache=cold";; hot) s="--set l2=hot";; esac
    o=$OUT/r/$v-$r
    timeout -k 10 -s INT 120 build/mla-bench run --quiet --kernel sm90 --filter "$F" --set placements=8 $s --out $o configs/mixed-mla.json > $o.log 2>&1
    echo "$v $r: exit $? ($((SECONDS - t0)) s)"
  done
done
python3 - "$OUT/r" <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + '/*/mixed-mla.json')):
    for c in json.load(open(f))['cases']:
        print('%-8s %-32s %7.2f  [%s]' % (f.split('/')[-2], c['name'], c['time_us']['median'],
              ' '.join('%.2f' % x for x in c['placement_medians_us'])))
PY
tar -C $OUT -czf $OUT/r.tgz r && rm -rf $OUT/r
echo "total $((SECONDS - t0)) s"
