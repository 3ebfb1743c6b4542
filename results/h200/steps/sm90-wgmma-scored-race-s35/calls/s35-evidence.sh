#!/usr/bin/env bash
# session 35, call 4: evidence for 26326faf (SCORED by tile mod 4), and the stall test on the old barriers.
set -u
base=$OUT; start=$SECONDS
nvidia-smi -L
export LD_LIBRARY_PATH=$PWD/.deps/lib
timeout -k 3 -s INT 25 build-so/mla-bench run --quiet --kernel sm90 --out "$base/neg" tests/gpu/stall-order.json > "$base/stall-old.log" 2>&1
echo "stall-order on the parity barriers (old): exit $? ($((SECONDS-start)) s)" | tee "$base/stall-old-exit.txt"
OUT=$base/p1 bash scripts/device-evidence.sh 1 2>&1 | tail -20
OUT=$base/p2 bash scripts/device-evidence.sh 2 2>&1 | tail -12
cd "$base" && tar -czf p1.tgz p1 && tar -czf p2.tgz p2 && tar -czf neg.tgz stall-old.log stall-old-exit.txt $( [ -d neg ] && echo neg ) && rm -rf p1 p2 neg stall-old.log stall-old-exit.txt
echo "done ($((SECONDS-start)) s)"
