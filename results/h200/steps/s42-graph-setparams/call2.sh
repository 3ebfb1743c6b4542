#!/usr/bin/env bash
# Session 42, call 2: does the graph placements' draw on the short 64-row shapes come from the graph
# executable's kernel parameters being read cold? One binary (diag/s42-graph-setparams), each run a
# process of its own: plain, and with MB_DIAG_SETPARAMS=1 (cudaGraphExecKernelNodeSetParams before
# every replay: the driver rewrites the parameters, as an eager launch has them written), twice each,
# alternating; three placements (the evidence's draw), then eight.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/r
F='b32-q4-kv1024|b4-q4|b4-q1|b32-q1-kv1024'
for pl in 3 8; do
  for r in 1 2; do
    for v in plain setp; do
      e=; [ $v = setp ] && e="MB_DIAG_SETPARAMS=1"
      o=$OUT/r/p$pl-$v-$r
      env $e timeout -k 10 -s INT 120 build/mla-bench run --quiet --kernel sm90 --filter "$F" --set placements=$pl --out $o configs/mixed-mla.json > $o.log 2>&1
      echo "p$pl $v $r: exit $? ($((SECONDS - t0)) s)"
    done
  done
done
python3 - "$OUT/r" <<'PY'
import json, glob, sys, os
for f in sorted(glob.glob(sys.argv[1] + '/*/mixed-mla.json')):
    d = json.load(open(f))
    for c in d['cases']:
        print('%-16s %-32s %7.2f  [%s]' % (f.split('/')[-2], c['name'], c['time_us']['median'] if isinstance(c['time_us'], dict) else 0,
              ' '.join('%.2f' % x for x in c['placement_medians_us'])))
PY
tar -C $OUT -czf $OUT/r.tgz r && rm -rf $OUT/r
echo "total $((SECONDS - t0)) s"
