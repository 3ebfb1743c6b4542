#!/usr/bin/env bash
# Session 42, call 4: call 3 showed the short 64-row shapes' placement draw gone with the instruction
# caches emptied, so the draw is what survives in them between calls. Is it the constant lines of the
# launch's parameters that the CTAs read (each CTA its first unit from three 132-entry arrays, 6.3 KB,
# at a place that differs per graph executable)? One binary (diag/s42-first-units-off; its device code
# is main's byte for byte): plain, and MB_DIAG_FIRST_UNITS_OFF=1 (the CTAs read their first units from
# the plan in memory and no array of the parameters), eight placements, twice each, alternating; then
# once each with the instruction caches emptied (what reading the plan costs, placement-free).
set -u
export LD_LIBRARY_PATH=$PWD/.deps/lib
t0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p $OUT/r
F='b32-q4-kv1024|b4-q4|b4-q1|b32-q1-kv1024'
run() {  # name env extra-args
  o=$OUT/r/$1
  env $2 timeout -k 10 -s INT 120 build/mla-bench run --quiet --kernel sm90 --filter "$F" --set placements=8 $3 --out $o configs/mixed-mla.json > $o.log 2>&1
  echo "$1: exit $? ($((SECONDS - t0)) s)"
}
for r in 1 2 3; do
  run plain-$r "" ""
  run off-$r MB_DIAG_FIRST_UNITS_OFF=1 ""
done
run icold-plain "" "--set icache=cold"
run icold-off MB_DIAG_FIRST_UNITS_OFF=1 "--set icache=cold"
python3 - "$OUT/r" <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + '/*/mixed-mla.json')):
    for c in json.load(open(f))['cases']:
        print('%-12s %-32s %7.2f  [%s]' % (f.split('/')[-2], c['name'], c['time_us']['median'],
              ' '.join('%.2f' % x for x in c['placement_medians_us'])))
PY
tar -C $OUT -czf $OUT/r.tgz r && rm -rf $OUT/r
echo "total $((SECONDS - t0)) s"
