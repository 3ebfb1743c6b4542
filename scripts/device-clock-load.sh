#!/usr/bin/env bash
# What the GPU does under a long shape's sustained load: nvidia-smi samples the SM clock, the power
# draw and limit, the temperature and the active clock-event reasons every 100 ms while `mla-bench run`
# times configs/sustained-load.json (b128-q4 for 6 s), and the lines below sum up the samples taken
# under load beside the run's own SM MHz. Whether the clock the tables show under the long shapes is
# the power limit's, heat's or neither is what it answers. Expects build/ and .deps/lib, as the other
# device scripts; ~15 s.
#   OUT=dir scripts/device-clock-load.sh [CONFIG]
set -uo pipefail
. "$(dirname "$0")/device-env.sh"
mkdir -p "$OUT"
cfg=${1:-configs/sustained-load.json}
q=timestamp,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active
q=$q,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,clocks_event_reasons.sw_thermal_slowdown
nvidia-smi --query-gpu="$q" --format=csv,noheader,nounits -lms 100 > "$OUT/smi.csv" 2> "$OUT/smi.err" &
smi=$!
sleep 1
timeout -k 10 -s INT 60 build/mla-bench run --quiet --out "$OUT/load" "$cfg" > "$OUT/load.log" 2>&1
echo "run: exit $?; $(grep -E '^b128|^cases' "$OUT/load.log" | tr -s ' ' | tr '\n' ';')"
sleep 1
kill "$smi" 2> /dev/null
wait "$smi" 2> /dev/null
# Samples under load: power above the midpoint of the idle and the highest draw seen.
python3 - "$OUT/smi.csv" <<'PY'
import sys
rows = [[f.strip() for f in l.split(",")] for l in open(sys.argv[1]) if l.count(",") >= 9]
if not rows: sys.exit("no nvidia-smi samples (see smi.err)")
num = lambda s: float(s) if s.replace(".", "", 1).isdigit() else float("nan")
p = [num(r[3]) for r in rows]
cut = (min(p) + max(p)) / 2
load = [r for r in rows if num(r[3]) > cut]
med = lambda xs: sorted(xs)[len(xs) // 2]
print("nvidia-smi: %d samples, %d under load (power > %.0f W): SM clock median %.0f MHz (min %.0f, max %.0f of %s), "
      "power median %.0f W (max %.0f) of a %s W limit, temperature max %s C" % (
      len(rows), len(load), cut, med([num(r[1]) for r in load]), min(num(r[1]) for r in load),
      max(num(r[1]) for r in load), load[0][2], med([num(r[3]) for r in load]), max(num(r[3]) for r in load),
      load[0][4], max(int(num(r[5])) for r in load)) if load else "nvidia-smi: no sample under load")
for i, name in ((6, "active reasons"), (7, "sw_power_cap"), (8, "hw_slowdown"), (9, "sw_thermal_slowdown")):
    seen = {}
    for r in load: seen[r[i]] = seen.get(r[i], 0) + 1
    print("  %s under load: %s" % (name, ", ".join("%s x%d" % kv for kv in sorted(seen.items()))))
PY
