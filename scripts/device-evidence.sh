#!/usr/bin/env bash
# The evidence for a kernel that landed, in two parts (the whole set took ~660 s, two device calls,
# while the spin before each sample lasted 100 ms; with 100 us it is ~90 s, and both parts fit one
# call: run each with its own OUT and bring each back as one archive, the device returning few files).
# Run from the repository root with OUT set, after `make` and scripts/bundle-deps.sh here, carrying
# `build` and `.deps`:
#   scripts/device-evidence.sh 1   GPU tests, mixed-mla on both kernels (scripts/device-run.sh), the
#                                  paged table, mixed-mla's read-once floor, and Nsight Compute on
#                                  b128-q4 (PROBES to change it); ~60 s with the one profile; 9 files
#   scripts/device-evidence.sh 2   accuracy, ablation (scripts/device-ablation.sh), the split sweep, a
#                                  tuned run and the gate's pairs (scripts/device-sweep-gate.sh); ~35 s
#   scripts/device-evidence.sh both   part 1 then part 2, each brought back as one archive
#                                  ($OUT/p1.tgz, $OUT/p2.tgz), which collect-evidence.sh takes as they are
# EVIDENCE_GPU=H200 runs it only where nvidia-smi's name for the GPU contains H200, and elsewhere prints
# that name and exits 0: the device may lend an H100 where an H200 was asked for, and evidence for the
# H200's tables is wanted from an H200 alone (an H100 would only spend the call's time).
# Every step is bounded by `timeout`, so a hang costs its step, not the call. Bring the files back into
# results/ with scripts/collect-evidence.sh.
set -uo pipefail
. "$(dirname "$0")/device-env.sh"
mkdir -p "$OUT"
start=$SECONDS
if [ -n "${EVIDENCE_GPU:-}" ]; then
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -n 1)
    [[ $gpu == *"$EVIDENCE_GPU"* ]] || { echo "device-evidence: the GPU is \"$gpu\", not $EVIDENCE_GPU: nothing run"; exit 0; }
fi
case "${1:-}" in
both)
    for p in 1 2; do
        mkdir -p "$OUT/p$p"
        EVIDENCE_GPU= OUT=$OUT/p$p bash scripts/device-evidence.sh $p   # device-env.sh cd'd to the root
        tar -C "$OUT" -czf "$OUT/p$p.tgz" "p$p" && rm -rf "${OUT:?}/p$p"
    done
    ;;
1)
    timeout -k 10 380 bash scripts/device-run.sh > /dev/null 2>&1
    echo "device-run: exit $? ($((SECONDS - start)) s); $(tail -n 1 "$OUT/gpu-tests.log")"
    grep -E '^FAIL' "$OUT/gpu-tests.log"
    timeout -k 10 -s INT 100 build/mla-bench run --quiet --plot --kernel sm90 --out "$OUT/paged" configs/paged.json \
        > "$OUT/paged.log" 2>&1
    echo "paged: exit $? ($((SECONDS - start)) s); $(grep '^cases:' "$OUT/paged.log")"
    tar -C "$OUT" -czf "$OUT/paged.tgz" paged paged.log && rm -rf "$OUT/paged" "$OUT/paged.log"
    # The read-once floor of mixed-mla's cases on this GPU (~2 s).
    timeout -k 10 -s INT 120 build/mla-bench floor --quiet --out "$OUT/floor" configs/mixed-mla.json > "$OUT/floor.log" 2>&1
    echo "floor: exit $? ($((SECONDS - start)) s)"
    tar -C "$OUT" -czf "$OUT/floor.tgz" floor floor.log && rm -rf "$OUT/floor" "$OUT/floor.log"
    probes=${PROBES-128,4,16,8192}   # PROBES= (empty) profiles nothing
    n=$(wc -w <<< "$probes")   # ~60 s a profile, plus the build's SASS dump
    [ "$n" -eq 0 ] ||
        ONLY_PROBES=1 PROBES="$probes" timeout -k 10 $((60 + 80 * n)) bash scripts/device-kernel-iter.sh 2>&1 | tail -n $((1 + 6 * n))
    ;;
2)
    timeout -k 10 200 bash scripts/device-ablation.sh 2>&1 | tail -n 4
    timeout -k 10 300 bash scripts/device-sweep-gate.sh > "$OUT/sweep-gate.log" 2>&1
    echo "sweep-gate: exit $? ($((SECONDS - start)) s); $(grep -E '^auto within' "$OUT/sweep-gate.log")"
    ;;
*)
    sed -n '2,18p' "$0"; exit 2 ;;
esac
echo "done ($((SECONDS - start)) s)"
ls "$OUT"
