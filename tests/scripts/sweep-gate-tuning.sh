#!/usr/bin/env bash
# scripts/device-sweep-gate.sh names the sweep's tuning file as `mla-bench info` names this GPU's
# default (collect-evidence.sh files it as that GPU's tuning), and runs nothing where info names none.
# A stand-in binary (MLA_BENCH) that prints info's lines and records every other call; no GPU.
set -uo pipefail
cd "$(dirname "$0")/../.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
pass=0 fail=0
result() { if [ "$2" = 0 ]; then echo "ok   $1"; pass=$((pass + 1)); else echo "FAIL $1: $3"; fail=$((fail + 1)); fi; }

# stub INFO_TUNING_LINE: a stand-in whose `info` prints a device line and the given tuning line
stub() {
    cat > "$t/mla-bench" <<STUB
#!/usr/bin/env bash
if [ "\$1" = info ]; then
    echo "device        NVIDIA H100 80GB HBM3 (nvidia, sm_90)"
    $1
    exit 0
fi
echo "\$*" >> "$t/calls.log"
while [ \$# -gt 0 ]; do [ "\$1" = --out ] && mkdir -p "\$2"; shift; done
STUB
    chmod +x "$t/mla-bench"
    rm -f "$t/calls.log"
}

stub 'echo "tuning        results/tuning/nvidia-h100-80gb-hbm3.json (default --tuning)"'
OUT=$t/a MLA_BENCH=$t/mla-bench bash scripts/device-sweep-gate.sh > "$t/a.log" 2>&1
rc=$?
want=$t/a/e/tuning/nvidia-h100-80gb-hbm3.json
n=$(grep -c -- "--tuning $want " "$t/calls.log" 2>/dev/null); n=${n:-0}
result "the sweep and the tuned run use the tuning file info names" \
    "$([ "$rc" = 0 ] && [ "$n" = 2 ] && echo 0 || echo 1)" "exit $rc, $n of 2 calls with --tuning $want: $(cat "$t/calls.log" 2>/dev/null)"

stub 'true'   # a binary whose info names no tuning file
OUT=$t/b MLA_BENCH=$t/mla-bench bash scripts/device-sweep-gate.sh > "$t/b.log" 2>&1
rc=$?
result "no tuning file named: exit 4, nothing run" \
    "$([ "$rc" = 4 ] && [ ! -s "$t/calls.log" ] && grep -q 'named no tuning file' "$t/b.log" && echo 0 || echo 1)" \
    "exit $rc; calls: $(cat "$t/calls.log" 2>/dev/null); log: $(cat "$t/b.log")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
